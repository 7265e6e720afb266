"""Worker memory settings while a kexplain task runs: heap reuse instead of a page fault per array.

Dask's nanny starts every worker process with ``MALLOC_TRIM_THRESHOLD_=65536`` (the
``distributed.nanny.pre-spawn-environ`` setting), so that workers give freed memory back to the
system.  Setting any glibc malloc threshold switches off glibc's *dynamic* mmap threshold, so every
array of 128 KiB or more is then a fresh ``mmap``, page-faulted in on first touch and unmapped
when freed.  kexplain's tasks allocate such temporaries per tile or per row block, thousands of
times: measured in one process (MMD^2 attribution, n = m = 1,000, d = 20), 218,000 page faults
instead of 3,500 and 20-70 % more CPU time (sys time 0.4-0.7 s against 0.0 s; four runs at load 9-12).

While at least one kexplain task runs in a worker process whose malloc thresholds were fixed by
the environment, :func:`heap_reuse` raises them (mmap threshold 32 MiB, glibc's own dynamic
ceiling; trim threshold 64 MiB) so that the temporaries are reused from the heap; when the last
such task ends it puts the environment's values back and trims the heap (``malloc_trim``), so the
memory goes back to the system as the nanny's setting intends.  Elsewhere (no glibc, or no such
variable: the dynamic threshold already reuses) it does nothing.  Values do not change: only
where the bytes live.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from typing import Any

from .._malloc import M_MMAP_THRESHOLD, M_TRIM_THRESHOLD, MMAP_DEFAULT, env_fixes_thresholds, glibc, raise_thresholds

_LOCK = threading.Lock()
_STATE: dict[str, Any] = {"active": 0, "libc": None}


def _env_threshold(name: str, default: int) -> int:
    try:
        return int(os.environ[name])
    except (KeyError, ValueError):
        return default


def _libc() -> Any:
    """glibc's handle when this process's malloc thresholds were fixed by its environment, else False."""
    if _STATE["libc"] is None:
        _STATE["libc"] = (glibc() if env_fixes_thresholds() else None) or False
    return _STATE["libc"]


@contextlib.contextmanager
def heap_reuse() -> Iterator[None]:
    """Raise the worker's malloc thresholds while kexplain tasks run (see the module docstring)."""
    libc = _libc()
    if not libc:
        yield
        return
    with _LOCK:
        _STATE["active"] += 1
        if _STATE["active"] == 1:
            raise_thresholds(libc)
    try:
        yield
    finally:
        with _LOCK:
            _STATE["active"] -= 1
            if _STATE["active"] == 0:
                libc.mallopt(M_MMAP_THRESHOLD, _env_threshold("MALLOC_MMAP_THRESHOLD_", MMAP_DEFAULT))
                libc.mallopt(M_TRIM_THRESHOLD, _env_threshold("MALLOC_TRIM_THRESHOLD_", MMAP_DEFAULT))
                libc.malloc_trim(0)

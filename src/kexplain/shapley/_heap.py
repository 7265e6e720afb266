"""Heap reuse for the engine's per-block arrays: glibc's malloc thresholds raised once per process.

The solver allocates its arrays afresh for every block of (points, rows): the game's factors
(about a sixth of ``max_block_bytes`` each), the kernel's temporaries while it builds them, the
leave-one-out integrals.  With glibc's *dynamic* thresholds those arrays come from the heap, but
the trim threshold follows twice the largest freed mmap'd chunk, so the top of the heap, freed
at the end of each block, is given back to the system and page-faulted in again by the next:
measured for 1,000 points at d = 20 with 2,000 support vectors (59 blocks of 32 MiB), 63,000-68,000
minor page faults and 0.20-0.22 s of system time in 1.6 s of CPU per call; 8 MiB blocks make it
worse (150,000 faults, 0.3 s).  With the mmap threshold at 32 MiB (the most glibc's dynamic rule
ever sets) and the trim threshold at 64 MiB (twice that, as the rule keeps it) the same call
takes no page faults and 1.3 s.

:func:`reuse_heap` sets those two values, once per process, before a solve of more than one
block.  The cost: up to 64 MiB of freed heap stays with the process for the next block or call
instead of going back to the system.  It does nothing where the process's environment fixed a
threshold (``MALLOC_TRIM_THRESHOLD_`` or ``MALLOC_MMAP_THRESHOLD_``: the user's or Dask's choice,
which ``kexplain.dask`` raises per task on its own), off glibc, or when glibc cannot be loaded.
Values never change: only where the bytes live.
"""

from __future__ import annotations

import threading

from .._malloc import env_fixes_thresholds, glibc, raise_thresholds

_LOCK = threading.Lock()
_STATE = {"done": False, "set": False}


def reuse_heap() -> bool:
    """Raise glibc's malloc thresholds once per process (module docstring); whether they are raised."""
    if _STATE["done"]:
        return _STATE["set"]
    with _LOCK:
        if not _STATE["done"]:
            _STATE["set"] = _raise_thresholds()
            _STATE["done"] = True
    return _STATE["set"]


def _raise_thresholds() -> bool:
    if env_fixes_thresholds():
        return False
    libc = glibc()
    return libc is not None and raise_thresholds(libc)

"""glibc's malloc thresholds: one place for the engine's heap reuse and Dask workers' settings.

``kexplain.shapley._heap`` raises the thresholds once per process before a multi-block solve;
``kexplain.dask._memory`` raises them while tasks run in workers whose environment fixed them, and
puts them back after.  Both set the values glibc's own dynamic rule ends at on 64-bit systems: an
mmap threshold of 32 MiB and a trim threshold of twice that.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
from typing import Any

#: glibc's mallopt parameters (malloc.h)
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3

#: glibc's default mmap threshold and the largest its dynamic threshold reaches on 64-bit systems
MMAP_DEFAULT, MMAP_MAX = 128 * 1024, 32 * 1024 * 1024

#: trim threshold while raised (glibc's dynamic rule keeps it at twice the mmap threshold)
TRIM_RAISED = 2 * MMAP_MAX

#: the environment variables by which a user (or Dask's nanny) fixes the thresholds
ENV_VARS = ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_")


def env_fixes_thresholds() -> bool:
    """Whether this process's environment fixed a malloc threshold (glibc's dynamic rule is then off)."""
    return any(name in os.environ for name in ENV_VARS)


def glibc() -> Any:
    """glibc's handle with ``mallopt`` and ``malloc_trim``, or None (not Linux, not glibc, not loadable)."""
    if not sys.platform.startswith("linux"):
        return None
    with contextlib.suppress(OSError, AttributeError):
        lib = ctypes.CDLL("libc.so.6")
        if lib.gnu_get_libc_version and lib.mallopt and lib.malloc_trim:  # glibc, not musl
            return lib
    return None


def raise_thresholds(libc: Any) -> bool:
    """Set the mmap threshold to ``MMAP_MAX`` and the trim threshold to ``TRIM_RAISED``; whether both took."""
    return bool(libc.mallopt(M_MMAP_THRESHOLD, MMAP_MAX)) and bool(libc.mallopt(M_TRIM_THRESHOLD, TRIM_RAISED))

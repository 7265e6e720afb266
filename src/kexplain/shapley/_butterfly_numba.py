"""Optional compiled Möbius and superset-sum transforms over bitmask tables (numba is not a core
dependency; :func:`kexplain.shapley.higher_order._butterfly` falls back to numpy).

The subset route's interactions take two such transforms of 2^d numbers per point; in numpy each
of their d passes is a few array calls whose overhead, at d = 12, costs more than the passes'
arithmetic.  Here every pass is one loop, in the same order (bit j = 0..d-1) with the same single
additions or subtractions, so the numbers equal numpy's bit for bit (no multiplication, so no
fused multiply-add can change a rounding).
"""

from __future__ import annotations

from numba import njit


@njit(cache=True, nogil=True)
def butterfly(x, d, subtract):  # pragma: no cover - compiled; tested via higher_order.py
    """In place on x (2^d, c), C-contiguous: for j = 0..d-1, x[S + j] -= x[S] (``subtract``) or
    x[S] += x[S + j] for every S without bit j.

    Row-major, bit j's pairs are the flat runs of 2^j c numbers 2^j c apart: one contiguous inner
    loop per run (vectorised by LLVM), the branch outside the loops."""
    n, c = x.shape
    y = x.reshape(n * c)
    for j in range(d):
        run = (1 << j) * c
        for base in range(0, n * c, 2 * run):
            # slices: the loops index from 0 and LLVM vectorises them (4x at d = 12 with 4 columns)
            lo = y[base : base + run]
            hi = y[base + run : base + 2 * run]
            if subtract:
                for i in range(run):
                    hi[i] -= lo[i]
            else:
                for i in range(run):
                    lo[i] += hi[i]

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
    """In place on x (2^d, c): for j = 0..d-1, x[S + j] -= x[S] (``subtract``) or x[S] += x[S + j]
    for every S without bit j."""
    n, c = x.shape
    for j in range(d):
        h = 1 << j
        for base in range(0, n, 2 * h):
            for i in range(base, base + h):
                for q in range(c):
                    if subtract:
                        x[i + h, q] -= x[i, q]
                    else:
                        x[i, q] += x[i + h, q]

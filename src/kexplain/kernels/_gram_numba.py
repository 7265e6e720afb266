"""The RBF Gram path's elementwise pass, compiled (numba is optional; see ``_gram._rbf_gram``).

``rbf_half_block`` turns one block of inner products G = A_s B^T into -||a - b||^2 / 2 in place, in
one pass over the block: the expansion ``(||a||^2/2 - g) + ||b||^2/2``, clamped at zero, with NaN
marking the entries whose rounding bound says the expansion may have lost digits (or is a
near-tie), which the caller recomputes from exact differences with the numpy path's own code.
The numpy path spends six to eight passes over the block on the same arithmetic; here the block
is read and written once, and numpy's exponential follows.

Halving is exact in binary floating point, so every expanded entry equals the numpy path's
``-0.5 * max((-2 g + ||a||^2) + ||b||^2, 0)`` bit for bit, and so does the whole matrix.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def rbf_half_block(G, ah, bh, tri, per_entry, bound_h, zero_h, err_unit, tol_h):  # pragma: no cover - compiled
    """G[i, j] <- -(expanded ||a_i - b_j||^2) / 2 in place; NaN where exact differences are needed.

    ``ah``/``bh`` are the half squared norms of the block's rows and columns.  ``tri``: the block's
    leading square is X against itself, and only its strict upper triangle is written (the caller
    mirrors it).  Flags (in half units): ``per_entry``: v < zero_h + e and (e > tol_h or v <= e)
    with e = err_unit * (ah + bh); else v <= bound_h.  Returns the number of flagged entries.
    """
    n, m = G.shape
    flagged = 0
    for i in range(n):
        a = ah[i]
        for j in range(i + 1 if tri else 0, m):
            b = bh[j]
            v = (a - G[i, j]) + b
            if v < 0.0:
                v = 0.0
            if per_entry:
                e = err_unit * (a + b)
                flag = v < zero_h + e and (e > tol_h or v <= e)
            else:
                flag = v <= bound_h
            if flag:
                G[i, j] = np.nan
                flagged += 1
            else:
                G[i, j] = -v
    return flagged


@njit(cache=True, nogil=True)
def mirror_square(G):  # pragma: no cover - compiled
    """The leading square of G made symmetric from its strict upper triangle, 0 on its diagonal."""
    k = min(G.shape[0], G.shape[1])
    for i in range(k):
        G[i, i] = 0.0
        for j in range(i + 1, k):
            G[j, i] = G[i, j]

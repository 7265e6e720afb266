"""Compiled per-pair kernel factors for the statistics (numba is optional; see ``_pairs``).

``tile_factors(U, V, i, j, kinds, inv, mismatch, out)`` writes out[r, f] = k_f(U[i_r, f], V[j_r, f])
for RBF (kind 0: exp(-u^2 / 2)), Laplacian (1: exp(-|u|)), Cauchy (2: 1 / (1 + u^2)) with
u = (x - y) / l, and the delta kernel on integer label codes (3: 1 if equal else ``mismatch``).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def tile_factors(U, V, i, j, kinds, inv, mismatch, out):  # pragma: no cover - compiled; tested via _pairs
    r = i.shape[0]
    d = U.shape[1]
    for q in range(r):
        a = i[q]
        b = j[q]
        for f in range(d):
            k = kinds[f]
            if k == 3:
                out[q, f] = 1.0 if U[a, f] == V[b, f] else mismatch[f]
            else:
                u = (U[a, f] - V[b, f]) * inv[f]
                if k == 0:
                    out[q, f] = np.exp(-0.5 * u * u)
                elif k == 1:
                    out[q, f] = np.exp(-abs(u))
                else:
                    out[q, f] = 1.0 / (1.0 + u * u)

"""Compiled inner loop of :mod:`kexplain.gp._interactions` (numba is optional; the numpy route
there gives the same numbers to rounding and is used without it).

``set_sums(delta, b, sets, beta, top, out)`` writes, for every set T (row of ``sets``) and row r,
out[s, r] = prod_{j in T} delta[r, j] * sum_{u + q <= top} beta[u, q] E_uq(r, T), with E the
bivariate elementary symmetric polynomials of the players outside T: [x^u y^q] prod_{l not in T}
(1 + x delta[r, l] + y b[r, l]), built in place (u and q descending) over the triangle u + q <= top.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def set_sums(delta, b, sets, beta, top, out):  # pragma: no cover - compiled; tested via _interactions
    R, d = delta.shape
    n, t = sets.shape
    nu, nq = beta.shape
    E = np.empty((nu, nq))
    keep = np.ones(d, dtype=np.bool_)
    for s in range(n):
        for i in range(t):
            keep[sets[s, i]] = False
        for r in range(R):
            for u in range(nu):
                for q in range(nq):
                    E[u, q] = 0.0
            E[0, 0] = 1.0
            for j in range(d):
                if not keep[j]:
                    continue
                dj = delta[r, j]
                bj = b[r, j]
                for u in range(nu - 1, -1, -1):
                    for q in range(min(nq - 1, top - u), -1, -1):
                        v = E[u, q]
                        if u > 0:
                            v += dj * E[u - 1, q]
                        if q > 0:
                            v += bj * E[u, q - 1]
                        E[u, q] = v
            acc = 0.0
            for u in range(nu):
                for q in range(min(nq - 1, top - u) + 1):
                    acc += beta[u, q] * E[u, q]
            prod = 1.0
            for i in range(t):
                prod *= delta[r, sets[s, i]]
            out[s, r] = prod * acc
        for i in range(t):
            keep[sets[s, i]] = True

"""Compiled loop of the near-base route of :mod:`kexplain.shapley.sparse` (needs numba).

One pass over each row's entries per node, no temporaries of shape (entries, nodes): what the
numpy version does in about fifteen array passes with logarithms.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: a row's ratio product outside [1 / _RATIO_LIMIT, _RATIO_LIMIT] declines the route
_RATIO_LIMIT = 1e100


@njit(cache=True, nogil=True)
def near_base_rows(T, wq, g0, Q0w, G0w, ptr, pos, a, b, W, phi, rho):  # pragma: no cover - compiled
    """Fill ``rho`` (m + 2, o) and add the entries' corrections to ``phi`` (k, o); False to decline.

    T (m + 2,) nodes then 0 and 1; wq (m,) weights; g0 (m + 2, k) the base row's factors at the
    nodes; Q0w (m, k) = w_l G0(t_l) / g0_j(t_l); G0w (m,) = w_l G0(t_l); rows' entries at
    ptr[i]:ptr[i + 1] of pos, a, b; W (n, o).
    """
    n = ptr.shape[0] - 1
    m2 = T.shape[0]
    m = m2 - 2
    o = W.shape[1]
    R = np.empty(m2)
    for i in range(n):
        for l in range(m2):
            R[l] = 1.0
        for e in range(ptr[i], ptr[i + 1]):
            j = pos[e]
            d = a[e] - b[e]
            for l in range(m):
                R[l] *= (b[e] + T[l] * d) / g0[l, j]
            R[m] *= b[e] / g0[m, j]  # t = 0 and t = 1 exactly
            R[m + 1] *= a[e] / g0[m + 1, j]
        for l in range(m2):
            if not (R[l] < _RATIO_LIMIT and R[l] > 1.0 / _RATIO_LIMIT):
                return False
        for q in range(o):
            w = W[i, q]
            for l in range(m2):
                rho[l, q] += w * R[l]
        for e in range(ptr[i], ptr[i + 1]):
            j = pos[e]
            d = a[e] - b[e]
            own = 0.0
            base = 0.0
            for l in range(m):
                own += G0w[l] * R[l] / (b[e] + T[l] * d)
                base += Q0w[l, j] * R[l]
            corr = d * own - (g0[m + 1, j] - g0[m, j]) * base
            for q in range(o):
                phi[j, q] += corr * W[i, q]
    return True

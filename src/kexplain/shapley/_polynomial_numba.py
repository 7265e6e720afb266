"""Optional compiled kernel for the values of polynomial-of-sum games (numba is not a core dependency).

``polynomial_values`` is the values loop of ``polynomial.polynomial_game_block`` for one
(point, row) pair at a time, with the prefix/suffix generating functions in small local arrays:
the same arithmetic in the same order of terms, so the same numbers up to rounding, without the
(points, rows, d, order) work arrays of the numpy path.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def polynomial_values(delta, T, c, t_nodes, t_weights, fact, binom, out):  # pragma: no cover - compiled
    """out[i, j, :] += sum_q c[q, :] int_0^1 E[P(B + delta_j + V_-j) - P(B + V_-j)] dt, per point i.

    delta (n, r, d) and T (n, r, p + 1) (Taylor coefficients of P at B) of each pair; fact[m] = m!,
    binom[a, b] = C(a, b); the rule (t_nodes, t_weights) integrates degree p - 1 exactly.
    """
    n, r, d = delta.shape
    p = T.shape[2] - 1
    K = p - 1
    o = c.shape[1]
    pw = np.empty((d, p + 1))
    egf = np.empty((d, p + 1))
    pre = np.empty((d + 1, K + 1))
    suf = np.empty((d + 1, K + 1))
    integ = np.empty(d)
    for i in range(n):
        for q in range(r):
            for j in range(d):
                pw[j, 0] = 1.0
                egf[j, 0] = 1.0
                for m in range(1, p + 1):
                    pw[j, m] = pw[j, m - 1] * delta[i, q, j]
                    egf[j, m] = pw[j, m] / fact[m]
                integ[j] = 0.0
            for l in range(t_nodes.shape[0]):
                t = t_nodes[l]
                for m in range(K + 1):
                    pre[0, m] = 0.0
                    suf[d, m] = 0.0
                pre[0, 0] = 1.0
                suf[d, 0] = 1.0
                for k in range(d):
                    kk = d - 1 - k
                    for m in range(K + 1):
                        acc_p = 0.0
                        acc_s = 0.0
                        for s in range(1, m + 1):
                            acc_p += egf[k, s] * pre[k, m - s]
                            acc_s += egf[kk, s] * suf[kk + 1, m - s]
                        pre[k + 1, m] = pre[k, m] + t * acc_p
                        suf[kk, m] = suf[kk + 1, m] + t * acc_s
                for j in range(d):
                    val = 0.0
                    for nn in range(1, p + 1):
                        acc = 0.0
                        for m in range(nn):
                            mom = 0.0
                            for s in range(m + 1):
                                mom += pre[j, s] * suf[j + 1, m - s]
                            acc += binom[nn, m] * mom * fact[m] * pw[j, nn - m]
                        val += T[i, q, nn] * acc
                    integ[j] += t_weights[l] * val
            for j in range(d):
                for k in range(o):
                    out[i, j, k] += integ[j] * c[q, k]

"""A faithful reimplementation of the per-feature dynamic programme of "Exact Shapley Value for Local
and Global Explanation of Additive Gaussian Processes" (benchmarks only).

Local values, equation (11): phi_i = (k~_i * l_i(d, 1))' alpha with
    l_i(q, t) = k~_q * l_i(q - 1, t + 1) + l_i(q - 1, t),   l_i(i, t) = l_i(i - 1, t),
    l_i(0, t) = sigma_t^2 / t.
Global values, equation (16): the same recursion on the matrices Gamma_q with sigma_t^4 / t.
The table is filled iteratively (q = 1..d, t = 1..d), once per feature: O(d^2) vector (or matrix)
operations per feature, O(d^3) per row in all.  Vectorised over explained points and rows exactly
like kexplain's solver, so the comparison is between the algorithms.
"""

import numpy as np


def paper_local(z, c, sigma2):
    """z (p, r, d) constrained kernel values, c (r,) = alpha, sigma2 (Q + 1,) order variances."""
    p, r, d = z.shape
    sig = np.zeros(d + 2)
    sig[: min(len(sigma2), d + 1)] = sigma2[: d + 1]
    phi = np.empty((p, d))
    for i in range(d):
        # L[t] holds l_i(q, t) for the current q; t = 1..d+1 (index t), l(., d + 1) = 0
        L = [None] + [np.full((p, r), sig[t] / t) for t in range(1, d + 1)] + [np.zeros((p, r))]
        for q in range(d):
            if q == i:
                continue  # l_i(i, t) = l_i(i - 1, t)
            L = [None] + [z[..., q] * L[t + 1] + L[t] for t in range(1, d + 1)] + [L[d + 1]]
        phi[:, i] = (z[..., i] * L[1]) @ c
    return phi


def paper_global(gammas, alpha, sigma2):
    """gammas (d, m, m) matrices Gamma_q, alpha (m,), sigma2 (Q + 1,)."""
    d = gammas.shape[0]
    sig = np.zeros(d + 2)
    sig[: min(len(sigma2), d + 1)] = sigma2[: d + 1]
    m = alpha.shape[0]
    out = np.empty(d)
    for i in range(d):
        L = [None] + [np.full((m, m), sig[t] ** 2 / t) for t in range(1, d + 1)] + [np.zeros((m, m))]
        for q in range(d):
            if q == i:
                continue
            L = [None] + [gammas[q] * L[t + 1] + L[t] for t in range(1, d + 1)] + [L[d + 1]]
        out[i] = alpha @ (gammas[i] * L[1]) @ alpha
    return out

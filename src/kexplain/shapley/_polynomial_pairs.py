"""The pairwise indices (SII, STII) of one block of a polynomial-of-sum game.

The leave-two-out moments, at each Gauss-Legendre node, from the prefix and suffix products of
the generating functions (:mod:`kexplain.shapley._polynomial_series`), contracted with the
Taylor coefficients as derived in :mod:`kexplain.shapley.polynomial`'s module docstring.
"""

from __future__ import annotations

from math import comb, factorial

import numpy as np

from ._polynomial_series import _prefix_suffix, _times_factor, _times_series
from .quadrature import gauss_legendre_01, nodes_for_degree


def _pair_indices(
    T: np.ndarray, powers: np.ndarray, egf: np.ndarray, c: np.ndarray, p: int, d: int, index: str
) -> np.ndarray:
    """The raw pairwise index I_jk (SII or STII) of one block, p >= 2 and d >= 2."""
    n, r = T.shape[1:]
    o = c.shape[1]
    K = p - 2
    if index == "stii":
        t_nodes, t_weights = gauss_legendre_01(nodes_for_degree(min(K, d - 2) + 1))
        t_weights = t_weights * 2.0 * (1.0 - t_nodes)
    else:
        t_nodes, t_weights = gauss_legendre_01(nodes_for_degree(min(K, d - 2)))
    fact = [float(factorial(m)) for m in range(K + 1)]
    out = np.zeros((n, d, d, o))
    for t, w in zip(t_nodes, t_weights):
        pre, suf = _prefix_suffix(egf, float(t), K)
        for j in range(d - 1):
            # runs[:, k - j - 1] = product over players < k except j, for k = j+1..d-1
            ks = np.arange(j + 1, d)
            runs = np.empty((K + 1, len(ks)) + pre.shape[2:])
            run = pre[:, j]
            for q, k in enumerate(ks):
                runs[:, q] = run
                run = _times_factor(run, egf[:, k], float(t))
            g = _times_series(runs, suf[:, ks + 1])  # E[V_-jk^m] / m!, (K + 1, d - j - 1, n, r)
            pj = powers[:, j][:, None]  # (p + 1, 1, n, r)
            pk = powers[:, ks]  # (p + 1, d - j - 1, n, r)
            integrand = np.zeros(g.shape[1:])
            for nn in range(2, p + 1):
                acc = np.zeros(g.shape[1:])
                for m in range(nn - 1):
                    q = nn - m
                    # the polynomial in (delta_j, delta_k) of order q: sum_{a=1}^{q-1} C(q, a) dj^a dk^(q-a)
                    cross = np.zeros(g.shape[1:])
                    for aa in range(1, q):
                        cross += comb(q, aa) * pj[aa] * pk[q - aa]
                    acc += (comb(nn, m) * fact[m]) * g[m] * cross
                integrand += T[nn] * acc
            val = w * np.einsum("knr,ro->nko", integrand, c)  # (n, d - j - 1, o)
            out[:, j, j + 1 :, :] += val
            out[:, j + 1 :, j, :] += val
    return out

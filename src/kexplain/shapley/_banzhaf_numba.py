"""Optional compiled leave-one-out pass of the interventional game's Banzhaf values (numba is not a
core dependency; :func:`kexplain.shapley.higher_order.banzhaf_interventional` falls back to numpy).

For every point, expansion row and background row the numpy passes form the mixed factors
g_j = (a_j + F_j) / 2, their prefix and suffix products and (a_j - F_j) times both, one array pass
per feature and step: at d = 12 with a few thousand (row, background row) pairs their per-call
overhead is most of a Banzhaf call.  Here each pair's features are one loop with the same
operations in the same order (no multiply-add contraction), so the numbers equal numpy's bit for bit.
"""

from __future__ import annotations

from numba import njit


@njit(cache=True, nogil=True)
def banzhaf_loo(a, F, loo, suf):  # pragma: no cover - compiled; tested via higher_order.py
    """a (p, r, d) present factors, F (r, n_b, d) background factors; writes loo (d, p, r, n_b):
    (a_j - F_j) prod_{l < j} g_l prod_{l > j} g_l, and suf (p, r, n_b): prod_l g_l (taken from
    l = d - 1 down to 0, as the numpy passes do)."""
    p, r, d = a.shape
    nb = F.shape[1]
    for q in range(p):
        for i in range(r):
            for z in range(nb):
                pre = 1.0
                for j in range(d):
                    loo[j, q, i, z] = (a[q, i, j] - F[i, z, j]) * pre
                    pre = pre * (0.5 * (a[q, i, j] + F[i, z, j]))
                s = 1.0
                for j in range(d - 1, -1, -1):
                    loo[j, q, i, z] = loo[j, q, i, z] * s
                    s = s * (0.5 * (a[q, i, j] + F[i, z, j]))
                suf[q, i, z] = s

"""Optional compiled pass of the stochastic values' prior term (numba is not a core dependency).

``prior_factors`` is the elementwise part of ``stochastic._prior_block`` for one chunk of entries
e = (background pair q, node a of t, node b of u): it forms the d factors h_k(t_a, u_b), their
product P, and writes (transposed, features by entries)

    X[j, e] = Dx_j(u_b) / h_j,      Y[l, e] = c_e P Dy_l(t_a) / h_l,

whose product X Y^T (one BLAS call by the caller, while the chunk is still in cache) is the
off-diagonal sum, and adds sum_e c_e P / h_j, times D2_j, to ``diag``.  The numpy path makes about
ten passes over (entries, d) arrays in memory; this one two over the chunk, each inner loop over
the entries of a pair (contiguous, independent: vectorised).  X and Y are the numpy path's numbers
to the last bit (the same operations in the same order, the product sequential as ``np.prod``
along a contiguous axis); the diagonal sums the cofactors over the nodes before multiplying by
D2 (as the numpy path now does), in a reassociated order.

Entries whose product comes near under- or overflow, or with a factor near zero, get zero columns
and are flagged in ``bad``: the caller finishes them in log space (``_loo2_products_safe``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

_TINY = np.finfo(np.float64).tiny * 1e16
_HUGE = np.finfo(np.float64).max * 1e-16
_SMALL = 1e-150


@njit(cache=True, nogil=True, fastmath={"reassoc"})
def _sum(x):  # pragma: no cover - compiled
    """sum(x), reassociated (vectorised): only the diagonal's sums over the nodes use it."""
    acc = 0.0
    for i in range(x.shape[0]):
        acc += x[i]
    return acc


@njit(cache=True, nogil=True, error_model="numpy")
def prior_factors(g11, G10, G01, G00, cq, t, wt, a0, a1, XT, YT, diag, bad):  # pragma: no cover - compiled
    """Fill XT, YT (d, >= q * na * m, C-contiguous) and bad, add the diagonal's terms to diag (d,).

    g11 (d,); G10, G01, G00 (q, d); cq (q,); t, wt (m,): nodes and weights on [0, 1]; the nodes of t
    a0 <= a < a1 only (na = a1 - a0), so that one pair's entries can be split.  The entry index is
    e = (q_i * na + a - a0) * m + b (b: the node of u), the numpy path's order.  X and Y are written
    transposed, so that every inner loop runs over the na * m entries of a pair, contiguous and
    independent (vectorised; the products' chains interleaved).
    """
    na = a1 - a0
    q = G10.shape[0]
    d = g11.shape[0]
    m = t.shape[0]
    n = na * m
    tE = np.empty(n)  # per entry of a pair: t, u, and the grid weight
    uE = np.empty(n)
    wE = np.empty(n)
    for a in range(na):
        for b in range(m):
            tE[a * m + b] = t[a0 + a]
            uE[a * m + b] = t[b]
            wE[a * m + b] = wt[a0 + a] * wt[b]
    P = np.empty(n)
    mn = np.empty(n)
    cP = np.empty(n)
    ok = np.empty(n)  # 1.0 or 0.0: a multiplier, so that the loops below have no branch
    ic = np.empty(n)
    for qi in range(q):
        off = qi * n
        for e in range(n):
            P[e] = 1.0
            mn[e] = np.inf
        # pass 1: X <- Dx, Y <- h and the products, feature by feature (the order of np.prod)
        for k in range(d):
            gk, g10, g01, g00 = g11[k], G10[qi, k], G01[qi, k], G00[qi, k]
            Xk = XT[k]  # rows of C-contiguous arrays: unit stride, which the vectoriser needs
            Yk = YT[k]
            for e in range(n):
                u = uE[e]
                A1 = u * gk + (1.0 - u) * g10
                A0 = u * g01 + (1.0 - u) * g00
                D = A1 - A0
                h = tE[e] * D
                h += A0
                Xk[off + e] = D
                Yk[off + e] = h
                P[e] *= h
                mn[e] = min(mn[e], abs(h))
        c = cq[qi]
        for e in range(n):
            aP = abs(P[e])
            good = mn[e] > _SMALL and aP > _TINY and aP < _HUGE
            bad[off + e] = not good
            if good:
                ok[e] = 1.0
                cP[e] = (c * wE[e]) * P[e]
            else:  # zero rows (the caller finishes the entry), and no division by zero below
                ok[e] = 0.0
                cP[e] = 0.0
                for k in range(d):
                    YT[k, off + e] = 1.0
        # pass 2: X = Dx / h, Y = c P Dy / h; the diagonal's D2 depends on the pair only, so the
        # cofactors' sum over the entries (terms of one sign for positive factors) is formed first
        for k in range(d):
            gk, g10, g01, g00 = g11[k], G10[qi, k], G01[qi, k], G00[qi, k]
            Xk = XT[k]
            Yk = YT[k]
            for e in range(n):
                inv = 1.0 / Yk[off + e]
                i = inv * cP[e]
                tt = tE[e]
                Xk[off + e] = (Xk[off + e] * inv) * ok[e]
                Yk[off + e] = i * (tt * (gk - g10) + (1.0 - tt) * (g01 - g00))
                ic[e] = i
            diag[k] += _sum(ic) * (gk - g10 - g01 + g00)

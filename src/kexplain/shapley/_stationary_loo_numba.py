"""The compiled quadrature kernel of the functional game of one RBF or Laplacian kernel (numba,
optional).

``stationary_loo_integrals`` is the same kernel for the functional game of one RBF or Laplacian
kernel (b = 1), with the factors computed inside: per point, the exponentials go straight into the
(feature, pair) blocks the passes read (no (pairs, d) array written and read back, no transpose),
and the point's certified node count comes from those factors while they are in cache.

It is ``_product_numba.weighted_loo_integrals`` (see its module docstring) at b = 1 with the
factors computed inside, through the same node passes (``_loo_passes_numba``): the same numbers bit
for bit at the same node count.  Still imported from ``_product_numba`` as well.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._exp_numba import stationary_factors_lanes
from ._loo_passes_numba import _c_rows, _node_groups, _store_rows4
from ._simd_numba import (
    vadd,
    vdata,
    vlane,
    vload,
    vmin,
    vmul,
    vsplat,
    vstore,
    vsub,
)


@njit(cache=True, nogil=True)
def stationary_loo_integrals(
    X, Y4, ls4, laplacian, R, T, W, sizes, limits, out, bad, pa, counts
):  # pragma: no cover - compiled; tested via product.py
    """``weighted_loo_integrals`` of the functional game of one RBF or Laplacian kernel, its
    factors computed here: pair k = (point p, row i) = (k // R, k % R) has present factors
    a_kj = exp(-0.5 u^2) (or exp(-|u|)), u = (X[p, j] - Y[i, j]) / l_j, and absent factors 1.

    ``Y4`` holds the R support points in blocks of 4 rows, each block transposed to (feature,
    row) and the last padded to 4 rows (any finite values): (ceil(R / 4) 4 d,), and ``ls4`` the
    lengthscales spread over 4 lanes (4 d,).  Per point, one pass of
    ``_exp_numba.stationary_factors_lanes`` writes every block's factors in the (feature, pair)
    layout the node passes read (ceil(R / 4) 4 d doubles: 83 KB at R = 520, d = 20, in L2),
    where ``weighted_loo_integrals`` reads the factors of a (pairs, d) array written by
    ``stationary_factors`` (5.5 MB per block of the solver's at d = 20) and transposes them.
    The factors are the same numbers (the same lanes), the products and passes the same
    operations in the same order as ``_pair_blocks``'s (b = 1 for every pair): the same numbers
    bit for bit at the same node count.  Every factor is in [0, 1] (the exponential of a
    non-positive number or of -inf), so ``_pair_blocks``'s division scheme for |a| > 1 never applies.

    Node counts: row i = 1 .. R of ``T``, ``W`` (R = len(T) - 1) holds the rule of
    ``sizes[i]`` nodes in its first ``sizes[i]`` entries, increasing with i, row R the exact one
    (``_product_functional._lazy_rule_table``: every count up to 64, then a geometric ladder).  With
    ``limits`` empty every point takes row R; else ``limits[i - 1]`` is the largest spread the
    ``sizes[i]``-node rule certifies (``quadrature.node_limits``) and each point takes the first
    row whose limit covers the largest spread sum_j |a - 1| / max(a, 1) = sum_j (1 - a_j) of its
    pairs, read from the factors already in cache (no second pass over the point's factors in
    memory): ``point_node_counts``'s certified count, a rung of the ladder ``node_limits``
    encodes, so always in the table.  counts[p] is the node count taken.
    """
    P, d = X.shape
    nrb = Y4.shape[0] // (4 * d)
    n_rows = T.shape[0] - 1
    n_lim = limits.shape[0]
    top = limits[n_lim - 1] if n_lim > 0 else -1.0
    xs = np.empty(4 * d)
    fac = np.empty(nrb * 4 * d)
    bT = np.ones((d, 4))
    dT = np.empty((d, 4))
    pre = np.empty((d, 20))
    acc = np.empty((d, 4))
    sw = np.empty(20)
    T = np.ascontiguousarray(T)
    W = np.ascontiguousarray(W)
    bad[:, :] = False
    zero = vsplat(0.0)
    one = vsplat(1.0)
    d4 = d - d % 4 if _c_rows(out) else 0
    pbT, pdT, ppre, pacc, psw = vdata(bT), vdata(dT), vdata(pre), vdata(acc), vdata(sw)
    pf = vdata(fac)
    for p in range(P):
        for j in range(d):
            x = X[p, j]
            for q in range(4):
                xs[4 * j + q] = x
        stationary_factors_lanes(xs, Y4, ls4, laplacian, fac)
        kq_last = R - 4 * (nrb - 1)
        for j in range(d):  # padding: harmless factors (dT = 0, spread 0), as _pair_blocks pads
            for q in range(kq_last, 4):
                fac[4 * d * (nrb - 1) + 4 * j + q] = 1.0
        m = n_rows
        if n_lim > 0:
            s_max = 0.0
            inf = vsplat(np.inf)
            for rb in range(nrb):
                base = 4 * d * rb
                # |a - 1| / max(a, 1) is 1 - a for a in [0, 1] (the same rounding), summed in
                # feature order a pair per lane
                sv = zero
                lov = inf
                for j in range(d):
                    x = vload(pf, base + 4 * j)
                    sv = vadd(sv, vsub(one, x))
                    lov = vmin(lov, x)
                for q in range(4):
                    s = vlane(sv, q)
                    lo = vlane(lov, q)
                    if not lo > 0.0 or not s <= top:
                        s_max = np.inf
                        break
                    s_max = max(s_max, s)
                if not s_max <= top:
                    break
            if s_max <= top:
                m = 0
                while limits[m] < s_max:
                    m += 1
                m += 1
        pt, pw = vdata(T[m]), vdata(W[m])
        m = sizes[m]
        counts[p] = m
        for rb in range(nrb):
            k0 = p * R + 4 * rb
            kq = min(4, R - 4 * rb)
            base = 4 * d * rb
            pv = one
            for j in range(d):
                x = vload(pf, base + 4 * j)
                vstore(pdT, 4 * j, vsub(x, one))
                pv = vmul(pv, x)
                vstore(pacc, 4 * j, zero)
            for q in range(kq):
                pa[k0 + q] = vlane(pv, q)
            _node_groups(pbT, pdT, ppre, pacc, psw, pt, pw, d, m, sw, k0, kq, bad)
            if kq == 4:
                _store_rows4(out, k0, d, d4, dT, acc)
            else:
                for q in range(kq):
                    for j in range(d):
                        out[k0 + q, j] = dT[j, q] * acc[j, q]

"""Optional compiled kernel for the product-game engine (numba is not a core dependency).

``weighted_loo_integrals`` computes, for every pair k (an explained point and a game row) and
feature j,

    out[k, j] = (a_kj - b_kj) * sum_l w_l prod_{i != j} g_ki(t_l),    g_ki(t) = b_ki + t (a_ki - b_ki),

with a's row for pair k being ``a[ia[k]]`` (the interventional game pairs one row of present
factors with every background row: the rows are not copied once per background row) and b's row
``b[k % len(b)]`` (b rarely depends on the point, so it is not repeated), and pa[k] = prod_j a_kj
(for v(all features)), in one fused pass that never materialises the (pairs, nodes, features)
array the numpy path needs.  It is a drop-in for ``product._weighted_loo_integrals_numpy``: same
arguments, same flags, the same numbers up to rounding, and the same contract for the
(pair, node) entries it cannot do safely: flagged in ``bad``, left out of ``out``, finished by
the caller in log space.

Two leave-one-out schemes, chosen per pair:

- every |a|, |b| <= 1 (all kernel games): prefix and suffix products, no division.  Every factor
  has |g| <= 1, so every partial product is at least |prod_i g_i| in magnitude; when that full
  product is a normal number nothing underflows.
- otherwise: the full product divided by the left-out factor, allowed only when the full product
  is far from under/overflow; a non-finite result sends the whole pair to the caller.

The first scheme is written for the machine (AVX2 + FMA, checked on AMD EPYC znver1): 4-double
vectors (``_simd_numba``: numba runs no SLP vectoriser, so lanes written as scalars stay scalar,
and lanes kept in arrays cost a load and a store per step), one pair per lane: blocks of 4 pairs,
their factors transposed to (feature, pair) once per block (two 128-bit loads per pair and 4
features, in-lane shuffles), then passes over the features with 3, 4 or 5 nodes at a time (one
vector per node, so 3 to 5 independent chains of products hide the multiplications' latency),
whose running prefix and suffix products stay in registers.  Per (feature, node) and 4 pairs that
leaves one vector store of prefix products and two fused multiply-adds and a multiplication
(the factors g(t) = b + t (a - b) are one fused multiply-add each, computed again in the backward
pass: storing them would cost a store, which on this core is slower than the multiply-add).
Each entry's sum over nodes runs in node order, so a pair's numbers do not depend on the pairs
it shares a block with, nor on how the nodes are grouped into passes.  The inlined passes take
data pointers, not arrays (numba would count references on each array argument of every call:
atomic operations that at small d cost more than the pass), and ``bad`` is written only where
an entry fails.

History, measured with ``benchmarks/bench_engine_kernel.py`` (CPU time, one thread): the
transposed gather and scatter, the 3- and 5-node passes and the pointer arguments made this
kernel 1.5-1.9x faster at 3-10 nodes and d = 10-1,000, bit for bit the same numbers.  It then
replaced a second mode for 12 nodes or more (each pair's nodes 16 at a time, four vectors of 4
nodes, summed in 4 lanes reduced at the end), which it beats by 1.3-2.2x at 12-40 nodes and
3-9% at d = 160-1,000; for those node counts the order of each sum changed, within 1.5e-15
relative on positive factors.

``stationary_loo_integrals`` is the same kernel for the functional game of one RBF or Laplacian
kernel (b = 1), with the factors computed inside: per point, the exponentials go straight into the
(feature, pair) blocks the passes read (no (pairs, d) array written and read back, no transpose),
and the point's certified node count comes from those factors while they are in cache.

The kernel takes any node count, not only ceil(d/2): ``point_node_counts`` gives each pair's
spread sum_j |a - b|_kj / max(a, b)_kj and, from the largest of each point's, the fewest nodes
that ``quadrature.certified_nodes``'s bound certifies (one vectorised pass of d divisions per
pair, before the integrals).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._exp_numba import stationary_factors_lanes
from ._simd_numba import (
    pget,
    vadd,
    vall_abs_gt,
    vdata,
    vfma,
    vkeep,
    vlane,
    vload,
    vload_t4,
    vmax_abs,
    vmin,
    vmul,
    vset,
    vsplat,
    vstore,
    vstore_t4,
    vsub,
)

_TINY = np.finfo(np.float64).tiny * 1e16
_HUGE = np.finfo(np.float64).max * 1e-16


@njit(cache=True, nogil=True)
def _one_pair_big(a, ka, b, kb, k, t, w, out, bad, P, S):  # pragma: no cover - compiled
    """Division scheme for pair k (rows a[ka], b[kb], some |a| or |b| above 1), node index innermost."""
    d = a.shape[1]
    m = t.shape[0]
    for l in range(m):
        P[l] = 1.0
    for j in range(d):
        bj = b[kb, j]
        dj = a[ka, j] - bj
        for l in range(m):
            P[l] *= bj + t[l] * dj
    for l in range(m):
        aP = abs(P[l])
        if aP > _TINY and aP < _HUGE:
            S[l] = w[l] * P[l]
            bad[k, l] = False
        else:
            S[l] = 0.0
            bad[k, l] = True
    finite = True
    for j in range(d):
        bj = b[kb, j]
        dj = a[ka, j] - bj
        s = 0.0
        for l in range(m):
            if S[l] != 0.0:
                s += S[l] / (bj + t[l] * dj)
        out[k, j] = dj * s
        if not np.isfinite(s):
            finite = False
    if not finite:
        for j in range(d):
            out[k, j] = 0.0
        for l in range(m):
            bad[k, l] = True


@njit(cache=True, nogil=True)
def _c_rows(x):  # pragma: no cover - compiled
    """Whether x[i, j] is at flat index i x.shape[1] + j (C order), as the vector loads assume."""
    return x.strides[1] == 8 and x.strides[0] == 8 * x.shape[1]


@njit(cache=True, nogil=True, inline="always")
def _gather4(a, b, ka0, ka1, ka2, ka3, kb0, kb1, kb2, kb3, d, d4, shared_b, bT, dT, acc):  # pragma: no cover - compiled
    """Features 0 .. d4 - 1 (d4 a multiple of 4) of a full block of 4 pairs, 4 features at a time:
    each pair's 4 factors two 128-bit loads, transposed in registers to 4 features x 4 pairs.
    Returns the vectors prod_j a (a pair per lane, j in order: the scalar chains' numbers) and
    max_j |a|, |b| (for the |a|, |b| <= 1 test).  Pointers from ``vdata`` (a (., d) and b (., d)
    in C order), as the node passes take."""
    zero = vsplat(0.0)
    pv = vsplat(1.0)
    mxa = zero
    mxb = zero
    for j in range(0, d4, 4):
        x0, x1, x2, x3 = vload_t4(a, ka0 * d + j, ka1 * d + j, ka2 * d + j, ka3 * d + j)
        if shared_b:  # the functional game: one row of absent factors for every pair
            y0 = vsplat(pget(b, j))
            y1 = vsplat(pget(b, j + 1))
            y2 = vsplat(pget(b, j + 2))
            y3 = vsplat(pget(b, j + 3))
        else:
            y0, y1, y2, y3 = vload_t4(b, kb0 * d + j, kb1 * d + j, kb2 * d + j, kb3 * d + j)
        vstore(bT, 4 * j, y0)
        vstore(bT, 4 * j + 4, y1)
        vstore(bT, 4 * j + 8, y2)
        vstore(bT, 4 * j + 12, y3)
        vstore(dT, 4 * j, vsub(x0, y0))
        vstore(dT, 4 * j + 4, vsub(x1, y1))
        vstore(dT, 4 * j + 8, vsub(x2, y2))
        vstore(dT, 4 * j + 12, vsub(x3, y3))
        pv = vmul(vmul(vmul(vmul(pv, x0), x1), x2), x3)
        mxa = vmax_abs(vmax_abs(mxa, x0), x1)
        mxb = vmax_abs(vmax_abs(mxb, x2), x3)
        mxa = vmax_abs(vmax_abs(mxa, y0), y1)
        mxb = vmax_abs(vmax_abs(mxb, y2), y3)
        vstore(acc, 4 * j, zero)
        vstore(acc, 4 * j + 4, zero)
        vstore(acc, 4 * j + 8, zero)
        vstore(acc, 4 * j + 12, zero)
    return pv, vmax_abs(mxa, mxb)


@njit(cache=True, nogil=True)
def _pair_blocks(a, ia, b, t, w, out, bad, pa, P1, S1):  # pragma: no cover - compiled
    """Prefix/suffix scheme over blocks of 4 pairs, one pair per vector lane, at any node count
    (passes of 3 to 5 nodes); pairs with an |a| or |b| above 1 are redone by
    ``_one_pair_big``.  Each entry's sum over nodes runs in node order, so a pair's numbers do
    not depend on the pairs it shares a block with.

    At small d the work per pair is a few hundred operations, so what surrounds the node loops
    counts: b's row index is carried (k mod len(b) without a division), a full block's rows are
    read and ``out``'s rows written 4 features at a time (vector loads and stores and a 4 x 4
    transpose in registers, where the arrays are in C order), prod_j a_kj builds up one pair per
    lane, and ``bad`` is cleared once and written only where an entry fails (the flags are rare;
    a store per (pair, node) was not).
    """
    K = ia.shape[0]
    d = a.shape[1]
    nb = b.shape[0]
    m = t.shape[0]
    bT = np.empty((d, 4))
    dT = np.empty((d, 4))
    pre = np.empty((d, 20))  # up to 5 nodes' prefix products per feature (``_pairs_nodes5``)
    acc = np.empty((d, 4))
    sw = np.empty(20)
    big = np.empty(4, dtype=np.bool_)
    ka = np.zeros(4, dtype=np.int64)
    kb = np.zeros(4, dtype=np.int64)
    # the vector gather and scatter read rows at flat indices (C order); the remainder, scalar
    d4 = d - d % 4 if _c_rows(a) and _c_rows(b) and _c_rows(out) else 0
    shared_b = nb == 1
    t = t.copy()  # the passes read t and w through pointers: contiguous
    w = w.copy()
    bad[:, :] = False
    zero = vsplat(0.0)
    r = 0  # b's row of the next pair: k mod nb
    for k0 in range(0, K, 4):
        kq = min(4, K - k0)
        for q in range(4):
            big[q] = False
            ka[q] = ia[k0 + q] if q < kq else 0
            kb[q] = r
            r += 1
            if r == nb:
                r = 0
        if kq == 4:
            pv, mx = _gather4(
                vdata(a),
                vdata(b),
                ka[0],
                ka[1],
                ka[2],
                ka[3],
                kb[0],
                kb[1],
                kb[2],
                kb[3],
                d,
                d4,
                shared_b,
                vdata(bT),
                vdata(dT),
                vdata(acc),
            )
            for j in range(d4, d):  # the last d mod 4 features (all of them where not in C order)
                x = vset(a[ka[0], j], a[ka[1], j], a[ka[2], j], a[ka[3], j])
                y = vset(b[kb[0], j], b[kb[1], j], b[kb[2], j], b[kb[3], j])
                vstore(bT, 4 * j, y)
                vstore(dT, 4 * j, vsub(x, y))
                pv = vmul(pv, x)
                mx = vmax_abs(vmax_abs(mx, x), y)
                vstore(acc, 4 * j, zero)
            p0 = vlane(pv, 0)
            p1 = vlane(pv, 1)
            p2 = vlane(pv, 2)
            p3 = vlane(pv, 3)
            big[0] = vlane(mx, 0) > 1.0
            big[1] = vlane(mx, 1) > 1.0
            big[2] = vlane(mx, 2) > 1.0
            big[3] = vlane(mx, 3) > 1.0
            pa[k0] = p0
            pa[k0 + 1] = p1
            pa[k0 + 2] = p2
            pa[k0 + 3] = p3
        else:
            for q in range(4):
                if q < kq:
                    prod_a = 1.0
                    for j in range(d):
                        x = a[ka[q], j]
                        y = b[kb[q], j]
                        bT[j, q] = y
                        dT[j, q] = x - y
                        prod_a *= x
                        if abs(x) > 1.0 or abs(y) > 1.0:
                            big[q] = True
                    pa[k0 + q] = prod_a
                else:  # padding: harmless factors
                    for j in range(d):
                        bT[j, q] = 1.0
                        dT[j, q] = 0.0
            for j in range(d):
                vstore(acc, 4 * j, zero)
        # node groups of 3 to 5 (a lone node's pass waits on each multiplication's latency):
        # 5 = 5, 6 = 3 + 3, 7 = 4 + 3, 9 = 4 + 5, 10 = 5 + 5, 11 = 4 + 4 + 3, ...
        # pointers taken in the loop, so that the arrays stay alive through it
        pbT, pdT, ppre, pacc, psw, pt, pw = vdata(bT), vdata(dT), vdata(pre), vdata(acc), vdata(sw), vdata(t), vdata(w)
        l0 = 0
        while l0 < m:
            rem = m - l0
            if rem == 5 or rem == 10:
                g = 5
                ok = _pairs_nodes5(pbT, pdT, ppre, pacc, psw, pt, pw, d, l0)
            elif rem == 3 or rem == 6:
                g = 3
                ok = _pairs_nodes3(pbT, pdT, ppre, pacc, psw, pt, pw, d, l0)
            elif rem >= 4:
                g = 4
                ok = _pairs_nodes4(pbT, pdT, ppre, pacc, psw, pt, pw, d, l0)
            else:
                g = 1
                ok = _pairs_node1(pbT, pdT, ppre, pacc, psw, pt, pw, d, l0)
            if not ok:
                _flag_bad(sw, l0, g, k0, kq, bad)
            l0 += g
        if kq == 4:
            # out rows k0 .. k0 + 3, 4 features at a time (a big pair's row is redone below)
            for j in range(0, d4, 4):
                vstore_t4(
                    out,
                    k0 * d + j,
                    (k0 + 1) * d + j,
                    (k0 + 2) * d + j,
                    (k0 + 3) * d + j,
                    vmul(vload(dT, 4 * j), vload(acc, 4 * j)),
                    vmul(vload(dT, 4 * j + 4), vload(acc, 4 * j + 4)),
                    vmul(vload(dT, 4 * j + 8), vload(acc, 4 * j + 8)),
                    vmul(vload(dT, 4 * j + 12), vload(acc, 4 * j + 12)),
                )
            for q in range(4):
                for j in range(d4, d):
                    out[k0 + q, j] = dT[j, q] * acc[j, q]
            for q in range(4):
                if big[q]:
                    _one_pair_big(a, ka[q], b, kb[q], k0 + q, t, w, out, bad, P1, S1)
        else:
            for q in range(kq):
                k = k0 + q
                if big[q]:
                    _one_pair_big(a, ka[q], b, kb[q], k, t, w, out, bad, P1, S1)
                else:
                    for j in range(d):
                        out[k, j] = dT[j, q] * acc[j, q]


@njit(cache=True, nogil=True)
def _flag_bad(sw, l0, nodes, k0, kq, bad):  # pragma: no cover - compiled
    """bad[k0 + q, l0 + g] = True where the full product sw[4 g + q] of node l0 + g for pair
    k0 + q is (near) subnormal (a pass gave that entry weight 0: the caller finishes it in log
    space); ``bad`` was cleared by the caller."""
    for g in range(nodes):
        for q in range(kq):
            if not abs(sw[4 * g + q]) > _TINY:
                bad[k0 + q, l0 + g] = True


@njit(cache=True, nogil=True, inline="always")
def _pairs_nodes4(bT, dT, pre, acc, sw, t, w, d, l0):  # pragma: no cover - compiled
    """Nodes l0 .. l0 + 3 for a block of 4 pairs: four vectors (one per node, a pair per lane)
    kept in registers; each pair's sum takes the nodes in order.  Pointers from
    ``vdata`` (bT, dT (d, 4), pre (d, 20), acc (d, 4), sw (20,), t, w): no array arguments,
    whose reference counts would cost more than the pass at small d.  Returns False where a full
    product is (near) subnormal: its node's weight is then 0 for that pair, sw holds the four
    products of each node, and the caller flags the entries (``_flag_bad``)."""
    u0 = vsplat(pget(t, l0))
    u1 = vsplat(pget(t, l0 + 1))
    u2 = vsplat(pget(t, l0 + 2))
    u3 = vsplat(pget(t, l0 + 3))
    p0 = vsplat(1.0)
    p1 = p0
    p2 = p0
    p3 = p0
    for j in range(d):
        vb = vload(bT, 4 * j)
        vd = vload(dT, 4 * j)
        vstore(pre, 20 * j, p0)
        vstore(pre, 20 * j + 4, p1)
        vstore(pre, 20 * j + 8, p2)
        vstore(pre, 20 * j + 12, p3)
        p0 = vmul(p0, vfma(u0, vd, vb))
        p1 = vmul(p1, vfma(u1, vd, vb))
        p2 = vmul(p2, vfma(u2, vd, vb))
        p3 = vmul(p3, vfma(u3, vd, vb))
    ok = vall_abs_gt(p0, _TINY) and vall_abs_gt(p1, _TINY) and vall_abs_gt(p2, _TINY) and vall_abs_gt(p3, _TINY)
    if ok:  # the usual case, in registers (a round trip of the lanes through memory stalls here)
        s0 = vsplat(pget(w, l0))
        s1 = vsplat(pget(w, l0 + 1))
        s2 = vsplat(pget(w, l0 + 2))
        s3 = vsplat(pget(w, l0 + 3))
    else:
        vstore(sw, 0, p0)
        vstore(sw, 4, p1)
        vstore(sw, 8, p2)
        vstore(sw, 12, p3)
        s0 = vkeep(p0, _TINY, pget(w, l0))
        s1 = vkeep(p1, _TINY, pget(w, l0 + 1))
        s2 = vkeep(p2, _TINY, pget(w, l0 + 2))
        s3 = vkeep(p3, _TINY, pget(w, l0 + 3))
    for j in range(d - 1, -1, -1):
        vb = vload(bT, 4 * j)
        vd = vload(dT, 4 * j)
        x = vfma(vload(pre, 20 * j), s0, vload(acc, 4 * j))
        x = vfma(vload(pre, 20 * j + 4), s1, x)
        x = vfma(vload(pre, 20 * j + 8), s2, x)
        vstore(acc, 4 * j, vfma(vload(pre, 20 * j + 12), s3, x))
        s0 = vmul(s0, vfma(u0, vd, vb))
        s1 = vmul(s1, vfma(u1, vd, vb))
        s2 = vmul(s2, vfma(u2, vd, vb))
        s3 = vmul(s3, vfma(u3, vd, vb))
    return ok


@njit(cache=True, nogil=True, inline="always")
def _pairs_nodes3(bT, dT, pre, acc, sw, t, w, d, l0):  # pragma: no cover - compiled
    """Nodes l0 .. l0 + 2, as ``_pairs_nodes4`` with three vectors (the tail m mod 4 = 3, and
    m = 6 as 3 + 3: three chains of products in flight where one node at a time would wait on
    each multiplication's latency)."""
    u0 = vsplat(pget(t, l0))
    u1 = vsplat(pget(t, l0 + 1))
    u2 = vsplat(pget(t, l0 + 2))
    p0 = vsplat(1.0)
    p1 = p0
    p2 = p0
    for j in range(d):
        vb = vload(bT, 4 * j)
        vd = vload(dT, 4 * j)
        vstore(pre, 20 * j, p0)
        vstore(pre, 20 * j + 4, p1)
        vstore(pre, 20 * j + 8, p2)
        p0 = vmul(p0, vfma(u0, vd, vb))
        p1 = vmul(p1, vfma(u1, vd, vb))
        p2 = vmul(p2, vfma(u2, vd, vb))
    ok = vall_abs_gt(p0, _TINY) and vall_abs_gt(p1, _TINY) and vall_abs_gt(p2, _TINY)
    if ok:
        s0 = vsplat(pget(w, l0))
        s1 = vsplat(pget(w, l0 + 1))
        s2 = vsplat(pget(w, l0 + 2))
    else:
        vstore(sw, 0, p0)
        vstore(sw, 4, p1)
        vstore(sw, 8, p2)
        s0 = vkeep(p0, _TINY, pget(w, l0))
        s1 = vkeep(p1, _TINY, pget(w, l0 + 1))
        s2 = vkeep(p2, _TINY, pget(w, l0 + 2))
    for j in range(d - 1, -1, -1):
        vb = vload(bT, 4 * j)
        vd = vload(dT, 4 * j)
        x = vfma(vload(pre, 20 * j), s0, vload(acc, 4 * j))
        x = vfma(vload(pre, 20 * j + 4), s1, x)
        vstore(acc, 4 * j, vfma(vload(pre, 20 * j + 8), s2, x))
        s0 = vmul(s0, vfma(u0, vd, vb))
        s1 = vmul(s1, vfma(u1, vd, vb))
        s2 = vmul(s2, vfma(u2, vd, vb))
    return ok


@njit(cache=True, nogil=True, inline="always")
def _pairs_nodes5(bT, dT, pre, acc, sw, t, w, d, l0):  # pragma: no cover - compiled
    """Nodes l0 .. l0 + 4, as ``_pairs_nodes4`` with five vectors (m = 5, 9 = 4 + 5 and
    10 = 5 + 5: one pass over the features fewer than with a lone node)."""
    u0 = vsplat(pget(t, l0))
    u1 = vsplat(pget(t, l0 + 1))
    u2 = vsplat(pget(t, l0 + 2))
    u3 = vsplat(pget(t, l0 + 3))
    u4 = vsplat(pget(t, l0 + 4))
    p0 = vsplat(1.0)
    p1 = p0
    p2 = p0
    p3 = p0
    p4 = p0
    for j in range(d):
        vb = vload(bT, 4 * j)
        vd = vload(dT, 4 * j)
        vstore(pre, 20 * j, p0)
        vstore(pre, 20 * j + 4, p1)
        vstore(pre, 20 * j + 8, p2)
        vstore(pre, 20 * j + 12, p3)
        vstore(pre, 20 * j + 16, p4)
        p0 = vmul(p0, vfma(u0, vd, vb))
        p1 = vmul(p1, vfma(u1, vd, vb))
        p2 = vmul(p2, vfma(u2, vd, vb))
        p3 = vmul(p3, vfma(u3, vd, vb))
        p4 = vmul(p4, vfma(u4, vd, vb))
    ok = (
        vall_abs_gt(p0, _TINY)
        and vall_abs_gt(p1, _TINY)
        and vall_abs_gt(p2, _TINY)
        and vall_abs_gt(p3, _TINY)
        and vall_abs_gt(p4, _TINY)
    )
    if ok:
        s0 = vsplat(pget(w, l0))
        s1 = vsplat(pget(w, l0 + 1))
        s2 = vsplat(pget(w, l0 + 2))
        s3 = vsplat(pget(w, l0 + 3))
        s4 = vsplat(pget(w, l0 + 4))
    else:
        vstore(sw, 0, p0)
        vstore(sw, 4, p1)
        vstore(sw, 8, p2)
        vstore(sw, 12, p3)
        vstore(sw, 16, p4)
        s0 = vkeep(p0, _TINY, pget(w, l0))
        s1 = vkeep(p1, _TINY, pget(w, l0 + 1))
        s2 = vkeep(p2, _TINY, pget(w, l0 + 2))
        s3 = vkeep(p3, _TINY, pget(w, l0 + 3))
        s4 = vkeep(p4, _TINY, pget(w, l0 + 4))
    for j in range(d - 1, -1, -1):
        vb = vload(bT, 4 * j)
        vd = vload(dT, 4 * j)
        x = vfma(vload(pre, 20 * j), s0, vload(acc, 4 * j))
        x = vfma(vload(pre, 20 * j + 4), s1, x)
        x = vfma(vload(pre, 20 * j + 8), s2, x)
        x = vfma(vload(pre, 20 * j + 12), s3, x)
        vstore(acc, 4 * j, vfma(vload(pre, 20 * j + 16), s4, x))
        s0 = vmul(s0, vfma(u0, vd, vb))
        s1 = vmul(s1, vfma(u1, vd, vb))
        s2 = vmul(s2, vfma(u2, vd, vb))
        s3 = vmul(s3, vfma(u3, vd, vb))
        s4 = vmul(s4, vfma(u4, vd, vb))
    return ok


@njit(cache=True, nogil=True, inline="always")
def _pairs_node1(bT, dT, pre, acc, sw, t, w, d, l0):  # pragma: no cover - compiled
    """Node l0 alone (m = 1, 2 and the tail of m mod 4 = 1, 2 after 4 + 4 + ...), as ``_pairs_nodes4``."""
    u0 = vsplat(pget(t, l0))
    p0 = vsplat(1.0)
    for j in range(d):
        vb = vload(bT, 4 * j)
        vd = vload(dT, 4 * j)
        vstore(pre, 20 * j, p0)
        p0 = vmul(p0, vfma(u0, vd, vb))
    ok = vall_abs_gt(p0, _TINY)
    if ok:
        s0 = vsplat(pget(w, l0))
    else:
        vstore(sw, 0, p0)
        s0 = vkeep(p0, _TINY, pget(w, l0))
    for j in range(d - 1, -1, -1):
        vb = vload(bT, 4 * j)
        vd = vload(dT, 4 * j)
        vstore(acc, 4 * j, vfma(vload(pre, 20 * j), s0, vload(acc, 4 * j)))
        s0 = vmul(s0, vfma(u0, vd, vb))
    return ok


@njit(cache=True, nogil=True)
def weighted_loo_integrals(a, ia, b, t, w, out, bad, pa):  # pragma: no cover - compiled; tested via product.py
    m = t.shape[0]
    _pair_blocks(a, ia, b, t, w, out, bad, pa, np.empty(m), np.empty(m))


@njit(cache=True, nogil=True, inline="always")
def _node_groups(pbT, pdT, ppre, pacc, psw, pt, pw, d, m, sw, k0, kq, bad):  # pragma: no cover - compiled
    """All m nodes of a block of 4 pairs in passes of 3 to 5 (``_pair_blocks``'s grouping, so the
    same numbers), flagging the entries a pass left out."""
    l0 = 0
    while l0 < m:
        rem = m - l0
        if rem == 5 or rem == 10:
            g = 5
            ok = _pairs_nodes5(pbT, pdT, ppre, pacc, psw, pt, pw, d, l0)
        elif rem == 3 or rem == 6:
            g = 3
            ok = _pairs_nodes3(pbT, pdT, ppre, pacc, psw, pt, pw, d, l0)
        elif rem >= 4:
            g = 4
            ok = _pairs_nodes4(pbT, pdT, ppre, pacc, psw, pt, pw, d, l0)
        else:
            g = 1
            ok = _pairs_node1(pbT, pdT, ppre, pacc, psw, pt, pw, d, l0)
        if not ok:
            _flag_bad(sw, l0, g, k0, kq, bad)
        l0 += g


@njit(cache=True, nogil=True)
def stationary_loo_integrals(
    X, Y4, ls4, laplacian, R, T, W, limits, out, bad, pa, counts
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

    Node counts: ``T[m, :m]``, ``W[m, :m]`` is the m-node rule (m = 1 .. n, n = len(T) - 1 the
    exact one).  With ``limits`` empty every point takes n; else each point takes
    ``point_node_counts``'s certified count, from the spreads sum_j |a - 1| / max(a, 1) =
    sum_j (1 - a_j) of its pairs read from the factors already in cache (no second pass over
    the point's factors in memory); counts[p] is the count taken.
    """
    P, d = X.shape
    nrb = Y4.shape[0] // (4 * d)
    n_exact = T.shape[0] - 1
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
        m = n_exact
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
        counts[p] = m
        pt, pw = vdata(T[m]), vdata(W[m])
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
                for j in range(0, d4, 4):
                    vstore_t4(
                        out,
                        k0 * d + j,
                        (k0 + 1) * d + j,
                        (k0 + 2) * d + j,
                        (k0 + 3) * d + j,
                        vmul(vload(dT, 4 * j), vload(acc, 4 * j)),
                        vmul(vload(dT, 4 * j + 4), vload(acc, 4 * j + 4)),
                        vmul(vload(dT, 4 * j + 8), vload(acc, 4 * j + 8)),
                        vmul(vload(dT, 4 * j + 12), vload(acc, 4 * j + 12)),
                    )
                for q in range(4):
                    for j in range(d4, d):
                        out[k0 + q, j] = dT[j, q] * acc[j, q]
            else:
                for q in range(kq):
                    for j in range(d):
                        out[k0 + q, j] = dT[j, q] * acc[j, q]


@njit(cache=True, nogil=True, fastmath={"reassoc"}, error_model="numpy")
def point_node_counts(a, ia, b, limits, r, counts):  # pragma: no cover - compiled; tested via product.py
    """counts[i] = the certified node count of point i, whose pairs are k = i r .. i r + r - 1 (rows
    a[ia[k]] and b[k % len(b)]): the smallest m with S <= limits[m - 1] for the largest of its pairs'
    spreads S_k = sum_j |a - b|_kj / max(a, b)_kj (``quadrature.node_limits``), and len(limits) + 1
    (the exact rule) past the last limit or when a factor is zero or negative (the point's other
    pairs are then skipped).

    The sum in any order (``reassoc``: vector lanes): it only picks a node count, through a bound
    with ample room for rounding.  ``error_model="numpy"``: no zero-division check, which would
    keep the loop scalar (a zero or negative factor shows in the minimum and S is discarded)."""
    nb = b.shape[0]
    d = a.shape[1]
    n_lim = limits.shape[0]
    top = limits[n_lim - 1] if n_lim > 0 else -1.0
    for i in range(counts.shape[0]):
        s_max = 0.0
        for k in range(i * r, i * r + r):
            ka = ia[k]
            kb = k % nb
            s = 0.0
            lo = np.inf
            for j in range(d):
                u = a[ka, j]
                v = b[kb, j]
                s += abs(u - v) / max(u, v)
                lo = min(lo, min(u, v))
            if not lo > 0.0 or not s <= top:
                s_max = np.inf
                break
            s_max = max(s_max, s)
        if not s_max <= top:
            counts[i] = n_lim + 1
        else:
            m = 0
            while limits[m] < s_max:  # a few steps: the count is near the same for every point
                m += 1
            counts[i] = m + 1


#: from this many players on, the subset route's kernel splits them in two halves (below, the
#: inner loops over one half's subsets are too short to pay for it)
_SPLIT_FEATURES = 8


def subset_table_layout(table: np.ndarray) -> np.ndarray:
    """The layout ``subset_values`` reads: table[q, i, m] (outputs, rows, 2^d) as
    (outputs, n_hi, rows, n_lo) with m = hi * n_lo + lo, n_lo = 2^(d // 2) from ``_SPLIT_FEATURES``
    players on (else n_lo = 2^d, n_hi = 1): each (hi, row) slice of n_lo numbers is contiguous."""
    o, R, n_sets = table.shape
    d = n_sets.bit_length() - 1
    n_lo = 2 ** (d // 2) if d >= _SPLIT_FEATURES else n_sets
    return np.ascontiguousarray(table.reshape(o, R, n_sets // n_lo, n_lo).transpose(0, 2, 1, 3))


@njit(cache=True, nogil=True)
def subset_values(a, Bc, v, w):  # pragma: no cover - compiled; tested via subsets.py
    """v[m, p, q] = sum_i w[p, i] Bc[q, i, m] prod_{j in m} a[p, i, j] for every subset m (bit j = feature j).

    ``Bc`` in the layout of :func:`subset_table_layout` (outputs, n_hi, rows, n_lo);
    ``w`` (points, rows) are per-point row weights (ones when the rows weigh the same at every point).

    The subset route (``kexplain.shapley.subsets``).  The players are split in two halves, the
    first log2(n_lo) and the rest: a subset's product is (its low half's product) x (its high
    half's product times w), and each half's 2^(d/2) products are built by doubling per point and
    row.  For each output and high half the n_lo accumulators then take every row's
    ``s * Alo[i, :] * Bc[q, hi, i, :]`` in one contiguous pass; nothing of size 2^d per row is
    written, and nothing of size (subsets, points, rows) is ever stored.  Each sum over rows runs
    in row order; the products are the doubling's up to the order of their factors.

    Returns whether every value written is finite (x - x == 0 fails for NaN and infinities), so
    that a caller needs no pass of its own over ``v`` (at one explained point, numpy's
    ``isfinite(v).all()`` costs as much as a tenth of the kernel).
    """
    N, R, d = a.shape
    o, n_hi, _, n_lo = Bc.shape
    dl = 0
    while (1 << dl) < n_lo:
        dl += 1
    Alo = np.empty((R, n_lo))
    Ahi = np.empty((R, n_hi))
    acc = np.empty(n_lo)
    finite = True
    for p in range(N):
        for i in range(R):
            Alo[i, 0] = 1.0
            h = 1
            for j in range(dl):
                aj = a[p, i, j]
                for m in range(h):
                    Alo[i, h + m] = Alo[i, m] * aj
                h *= 2
            Ahi[i, 0] = w[p, i]
            h = 1
            for j in range(dl, d):
                aj = a[p, i, j]
                for m in range(h):
                    Ahi[i, h + m] = Ahi[i, m] * aj
                h *= 2
        for q in range(o):
            for hi in range(n_hi):
                for lo in range(n_lo):
                    acc[lo] = 0.0
                for i in range(R):
                    s = Ahi[i, hi]
                    for lo in range(n_lo):
                        acc[lo] += s * Alo[i, lo] * Bc[q, hi, i, lo]
                for lo in range(n_lo):
                    x = acc[lo]
                    finite &= x - x == 0.0
                    v[hi * n_lo + lo, p, q] = x
    return finite

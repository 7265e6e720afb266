"""The quadrature kernel with the weighting and the reduction over rows fused in (numba, optional).

``_product_numba.weighted_loo_integrals`` writes every pair's integrals out[k, j] (pairs x d
doubles) and the solver then reduces them over each point's rows with the rows' weights
(``phi[p, j] = sum_r out[p r + r, j] c[r]``, a batched matrix product).  For the interventional
game at small d that store and the second pass over it are a large part of a call (50 background
rows x 200 support vectors = 10,600 pairs per point: 0.85 MB written and read back per point
for about 600 us of arithmetic).  ``weighted_loo_phi`` takes the same blocks of 4 pairs through
the same node passes (the helpers of ``_product_numba``, so each pair's integrals are the same
numbers, bit for bit) and adds ``c[r] * out[k, j]`` into 4 lane accumulators per feature of the
point, reduced at the end of the point; ``prod_j a_kj`` is weighted and summed the same way
(v(all features)).  Nothing of size pairs x d is written.

Each point's rows are taken in blocks of 4 from its own first row (the last block padded with
zero weights), so its sums do not depend on the other points of the call, nor on how many there
are.  The sums differ from the matrix product's only in their order (within a few units of
rounding of the sum of |terms|).

The rare cases leave the fused path: a factor above 1 in magnitude (the division scheme) or a
(pair, node) product near underflow (the log-space path) make it return 0 at once, and the
caller runs the unfused kernel on the whole block, whose contract handles both.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from ._loo_passes_numba import _TINY, _c_rows, _node_groups_ok
from ._product_numba import _gather4
from ._simd_numba import pget, vadd, vall_abs_gt, vdata, vfma, vlane, vload, vmax_abs, vmul, vset, vsplat, vstore, vsub

#: blocks of 4 pairs whose weighted integrals are summed in the lanes before joining the point's
#: totals: a two-level sum, whose rounding grows with span + rows / (4 span) rather than rows / 4
_SPAN = 32


@njit(cache=True, nogil=True)
def weighted_loo_phi(a, ia, b, t, w, c, r, phi, vfull):  # pragma: no cover - compiled; tested via product.py
    """phi[p, j] += sum_i c[i] out[p r + i, j] and vfull[p] += sum_i c[i] prod_j a[ia[p r + i], j]
    for every point p < len(phi) of pairs k = p r + i (rows a[ia[k]] and b[k % len(b)], out as
    ``weighted_loo_integrals`` gives it).  c (r,) C-contiguous.  Returns 0, with phi and vfull
    partly written, where the unfused kernel must do the block (module docstring); else 1, or 2
    when some vfull is not finite (x - x == 0 fails for NaN and infinities: no numpy pass after)."""
    d = a.shape[1]
    nb = b.shape[0]
    m = t.shape[0]
    n_points = phi.shape[0]
    bT = np.empty((d, 4))
    dT = np.empty((d, 4))
    pre = np.empty((d, 20))
    acc = np.empty((d, 4))
    sw = np.empty(20)
    phiT = np.empty((d, 4))
    phiS = np.empty((d, 4))
    d4 = d - d % 4 if _c_rows(a) and _c_rows(b) else 0
    shared_b = nb == 1
    t = t.copy()
    w = w.copy()
    zero = vsplat(0.0)
    finite = True
    for p in range(n_points):
        for j in range(d):
            vstore(phiT, 4 * j, zero)
            vstore(phiS, 4 * j, zero)
        vf = zero
        vs = zero
        kb0 = (p * r) % nb  # b's row of the point's first pair, then carried
        for i0 in range(0, r, 4):
            kq = min(4, r - i0)
            k0 = p * r + i0
            kb1 = kb0 + 1 if kb0 + 1 < nb else 0
            kb2 = kb1 + 1 if kb1 + 1 < nb else 0
            kb3 = kb2 + 1 if kb2 + 1 < nb else 0
            if kq == 4:
                ka0, ka1, ka2, ka3 = ia[k0], ia[k0 + 1], ia[k0 + 2], ia[k0 + 3]
                pv, mx = _gather4(
                    vdata(a),
                    vdata(b),
                    ka0,
                    ka1,
                    ka2,
                    ka3,
                    kb0,
                    kb1,
                    kb2,
                    kb3,
                    d,
                    d4,
                    shared_b,
                    vdata(bT),
                    vdata(dT),
                    vdata(acc),
                )
                for j in range(d4, d):
                    x = vset(a[ka0, j], a[ka1, j], a[ka2, j], a[ka3, j])
                    y = vset(b[kb0, j], b[kb1, j], b[kb2, j], b[kb3, j])
                    vstore(bT, 4 * j, y)
                    vstore(dT, 4 * j, vsub(x, y))
                    pv = vmul(pv, x)
                    mx = vmax_abs(vmax_abs(mx, x), y)
                    vstore(acc, 4 * j, zero)
                if vlane(mx, 0) > 1.0 or vlane(mx, 1) > 1.0 or vlane(mx, 2) > 1.0 or vlane(mx, 3) > 1.0:
                    return 0
                cv = vset(c[i0], c[i0 + 1], c[i0 + 2], c[i0 + 3])
            else:  # the point's last rows: padding lanes have factors 1, 1 and weight 0
                kbs = (kb0, kb1, kb2, kb3)
                cs = np.zeros(4)
                ps = np.zeros(4)
                for q in range(4):
                    if q < kq:
                        ka = ia[k0 + q]
                        kb = kbs[q]
                        prod_a = 1.0
                        for j in range(d):
                            x = a[ka, j]
                            y = b[kb, j]
                            bT[j, q] = y
                            dT[j, q] = x - y
                            prod_a *= x
                            if abs(x) > 1.0 or abs(y) > 1.0:
                                return 0
                        ps[q] = prod_a
                        cs[q] = c[i0 + q]
                    else:
                        for j in range(d):
                            bT[j, q] = 1.0
                            dT[j, q] = 0.0
                for j in range(d):
                    vstore(acc, 4 * j, zero)
                pv = vset(ps[0], ps[1], ps[2], ps[3])
                cv = vset(cs[0], cs[1], cs[2], cs[3])
            pbT, pdT, ppre, pacc = vdata(bT), vdata(dT), vdata(pre), vdata(acc)
            psw, pt, pw = vdata(sw), vdata(t), vdata(w)
            if not _node_groups_ok(pbT, pdT, ppre, pacc, psw, pt, pw, d, m):  # ``_pair_blocks``'s passes
                return 0
            # out[k, j] = dT * acc as the unfused kernel stores it, then weighted into the lanes
            for j in range(d):
                vstore(phiT, 4 * j, vfma(vmul(vload(dT, 4 * j), vload(acc, 4 * j)), cv, vload(phiT, 4 * j)))
            vf = vfma(pv, cv, vf)
            kb0 = kb3 + 1 if kb3 + 1 < nb else 0
            if (i0 // 4) % _SPAN == _SPAN - 1 or i0 + 4 >= r:  # the span's partial sums into the totals
                for j in range(d):
                    vstore(phiS, 4 * j, vadd(vload(phiS, 4 * j), vload(phiT, 4 * j)))
                    vstore(phiT, 4 * j, zero)
                vs = vadd(vs, vf)
                vf = zero
        for j in range(d):
            phi[p, j] += (phiS[j, 0] + phiS[j, 1]) + (phiS[j, 2] + phiS[j, 3])
        x = vfull[p] + ((vlane(vs, 0) + vlane(vs, 1)) + (vlane(vs, 2) + vlane(vs, 3)))
        vfull[p] = x
        finite &= x - x == 0.0
    return 1 if finite else 2


@njit(cache=True, nogil=True, inline="always")
def _nodes5_weighted(bT, dT, pre, phiT, t, w, d, cv):  # pragma: no cover - compiled
    """m = 5 nodes (one pass, ``_loo_passes_numba._pairs_nodes5``'s arithmetic) for a block of 4
    pairs, each feature's integral weighted into phiT (phiT += dT acc cv) as the backward sweep
    finds it: acc is neither zeroed, stored nor read again.  acc starts as pre s0 where the pass
    has fma(pre, s0, 0): the same number (a product of finite numbers, nonzero where the pass goes
    on, rounded once).  False, with phiT partly written, where a full product is (near)
    subnormal (``_node_groups_ok``'s False: the caller hands the block on)."""
    u0 = vsplat(pget(t, 0))
    u1 = vsplat(pget(t, 1))
    u2 = vsplat(pget(t, 2))
    u3 = vsplat(pget(t, 3))
    u4 = vsplat(pget(t, 4))
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
    if not (
        vall_abs_gt(p0, _TINY)
        and vall_abs_gt(p1, _TINY)
        and vall_abs_gt(p2, _TINY)
        and vall_abs_gt(p3, _TINY)
        and vall_abs_gt(p4, _TINY)
    ):
        return False
    s0 = vsplat(pget(w, 0))
    s1 = vsplat(pget(w, 1))
    s2 = vsplat(pget(w, 2))
    s3 = vsplat(pget(w, 3))
    s4 = vsplat(pget(w, 4))
    for j in range(d - 1, -1, -1):
        vb = vload(bT, 4 * j)
        vd = vload(dT, 4 * j)
        x = vmul(vload(pre, 20 * j), s0)
        x = vfma(vload(pre, 20 * j + 4), s1, x)
        x = vfma(vload(pre, 20 * j + 8), s2, x)
        x = vfma(vload(pre, 20 * j + 12), s3, x)
        x = vfma(vload(pre, 20 * j + 16), s4, x)
        vstore(phiT, 4 * j, vfma(vmul(vd, x), cv, vload(phiT, 4 * j)))
        s0 = vmul(s0, vfma(u0, vd, vb))
        s1 = vmul(s1, vfma(u1, vd, vb))
        s2 = vmul(s2, vfma(u2, vd, vb))
        s3 = vmul(s3, vfma(u3, vd, vb))
        s4 = vmul(s4, vfma(u4, vd, vb))
    return True


@intrinsic
def _poff(typingctx, ptr, i):
    """ptr + i (float64 elements) of a pointer from ``vdata``: a block's rows of a laid-out table."""

    def codegen(context, builder, sig, args):
        return builder.gep(args[0], [context.cast(builder, args[1], sig.args[1], types.intp)])

    return types.CPointer(types.float64)(ptr, i), codegen


@njit(cache=True, nogil=True)
def weighted_loo_phi_laid(a, ia, bl, t, w, c, r, phi, vfull, bl_bounded, five):  # pragma: no cover - compiled
    """``weighted_loo_phi`` with b's rows laid out as bl (ceil(r / 4), d, 4), bl[g, j, q] =
    b[4 g + q, j], padded with factors 1 (pair k = p r + i takes b's row i, as with len(b) = r):
    each block's absent factors are read in place, and where
    a block's 4 pairs share their present factors' row (the interventional game: one row of the
    explained point per support vector, for every background row) those are broadcast, not
    gathered.  The same factors, products and node passes, so the same numbers, bit for bit.
    Each row of a's product (v(all)'s factor: the lanes' running product, from 1 in feature
    order, the same number) and whether it holds a factor above 1 in magnitude are found once
    per row, not once per block of 4 pairs (a NaN is no such factor, as in the lanes' test).
    bl_bounded: the caller knows that no entry of bl exceeds 1 in magnitude (a NaN does not), so
    no block looks for one (the layout is built once per background, read by every call).
    five: None, or True where m = 5 nodes (d = 9, 10; else 0 is returned): each block then takes
    ``_nodes5_weighted`` (the same numbers).  None prunes that branch when numba compiles the
    kernel, so the other node counts run the code they ran without it (in the same branches its
    register use made d = 14 2% slower).
    Returns as ``weighted_loo_phi`` does, and 3 where every vfull is finite but some phi is not
    (1: all of phi and vfull finite, so its caller needs no numpy pass over them)."""
    d = a.shape[1]
    m = t.shape[0]
    if five is not None and m != 5:
        return 0
    n_points = phi.shape[0]
    pa = np.empty(a.shape[0])
    big = np.empty(a.shape[0], dtype=np.bool_)
    for k in range(a.shape[0]):
        prod_a = 1.0
        big_k = False
        for j in range(d):
            x = a[k, j]
            prod_a *= x
            big_k |= abs(x) > 1.0
        pa[k] = prod_a
        big[k] = big_k
    dT = np.empty((d, 4))
    pre = np.empty((d, 20))
    acc = np.empty((d, 4))
    sw = np.empty(20)
    phiT = np.empty((d, 4))
    phiS = np.empty((d, 4))
    xs = np.empty(4)
    t = t.copy()
    w = w.copy()
    c_unit = c.strides[0] == 8  # c's blocks of 4 weights as one vector load
    zero = vsplat(0.0)
    finite = True
    finite_phi = True
    pdT, ppre, pacc, psw, pt, pw = vdata(dT), vdata(pre), vdata(acc), vdata(sw), vdata(t), vdata(w)
    pphiT = vdata(phiT)
    for p in range(n_points):
        for j in range(d):
            vstore(phiT, 4 * j, zero)
            vstore(phiS, 4 * j, zero)
        vf = zero
        vs = zero
        for i0 in range(0, r, 4):
            kq = min(4, r - i0)
            k0 = p * r + i0
            pbT = _poff(vdata(bl), i0 * d)  # group i0 // 4: its (d, 4) absent factors
            mx = zero
            ka = ia[k0]
            if kq == 4 and ia[k0 + 1] == ka and ia[k0 + 2] == ka and ia[k0 + 3] == ka:  # one row for all 4
                if big[ka]:
                    return 0
                pv = vsplat(pa[ka])
                for j in range(d):
                    y = vload(pbT, 4 * j)
                    vstore(pdT, 4 * j, vsub(vsplat(a[ka, j]), y))
                    if not bl_bounded:
                        mx = vmax_abs(mx, y)
                    if five is None:
                        vstore(pacc, 4 * j, zero)
            elif kq == 4:  # a block across two support vectors: its rows gathered
                ka1, ka2, ka3 = ia[k0 + 1], ia[k0 + 2], ia[k0 + 3]
                if big[ka] or big[ka1] or big[ka2] or big[ka3]:
                    return 0
                pv = vset(pa[ka], pa[ka1], pa[ka2], pa[ka3])
                for j in range(d):
                    y = vload(pbT, 4 * j)
                    vstore(pdT, 4 * j, vsub(vset(a[ka, j], a[ka1, j], a[ka2, j], a[ka3, j]), y))
                    if not bl_bounded:
                        mx = vmax_abs(mx, y)
                    if five is None:
                        vstore(pacc, 4 * j, zero)
            else:  # the point's last rows: padding lanes have factors 1, 1 and weight 0
                for q in range(4):
                    if q < kq and big[ia[k0 + q]]:
                        return 0
                    xs[q] = pa[ia[k0 + q]] if q < kq else 1.0
                pv = vset(xs[0], xs[1], xs[2], xs[3])
                for j in range(d):
                    for q in range(4):
                        xs[q] = a[ia[k0 + q], j] if q < kq else 1.0
                    y = vload(pbT, 4 * j)
                    vstore(pdT, 4 * j, vsub(vset(xs[0], xs[1], xs[2], xs[3]), y))
                    if not bl_bounded:
                        mx = vmax_abs(mx, y)
                    if five is None:
                        vstore(pacc, 4 * j, zero)
            if vlane(mx, 0) > 1.0 or vlane(mx, 1) > 1.0 or vlane(mx, 2) > 1.0 or vlane(mx, 3) > 1.0:
                return 0
            if kq == 4:
                cv = vload(c, i0) if c_unit else vset(c[i0], c[i0 + 1], c[i0 + 2], c[i0 + 3])
            else:
                for q in range(4):
                    xs[q] = c[i0 + q] if q < kq else 0.0
                cv = vset(xs[0], xs[1], xs[2], xs[3])
            if five is not None:  # d = 9, 10: the one pass with acc in registers
                if not _nodes5_weighted(pbT, pdT, ppre, pphiT, pt, pw, d, cv):
                    return 0
            else:
                if not _node_groups_ok(pbT, pdT, ppre, pacc, psw, pt, pw, d, m):  # ``_pair_blocks``'s passes
                    return 0
                for j in range(d):
                    vstore(phiT, 4 * j, vfma(vmul(vload(dT, 4 * j), vload(acc, 4 * j)), cv, vload(phiT, 4 * j)))
            vf = vfma(pv, cv, vf)
            if (i0 // 4) % _SPAN == _SPAN - 1 or i0 + 4 >= r:
                for j in range(d):
                    vstore(phiS, 4 * j, vadd(vload(phiS, 4 * j), vload(phiT, 4 * j)))
                    vstore(phiT, 4 * j, zero)
                vs = vadd(vs, vf)
                vf = zero
        for j in range(d):
            y = phi[p, j] + ((phiS[j, 0] + phiS[j, 1]) + (phiS[j, 2] + phiS[j, 3]))
            phi[p, j] = y
            finite_phi &= y - y == 0.0
        x = vfull[p] + ((vlane(vs, 0) + vlane(vs, 1)) + (vlane(vs, 2) + vlane(vs, 3)))
        vfull[p] = x
        finite &= x - x == 0.0
    # the arrays behind the pointers stay alive to here
    dT[0, 0] = pre[0, 0] + acc[0, 0] + sw[0] + t[0] + w[0] + bl[0, 0, 0]
    return (1 if finite_phi else 3) if finite else 2

"""Symmetric node passes of the compiled quadrature kernels (numba, optional): a Gauss-Legendre
node t and its mirror 1 - t in one pass.

Every Gauss-Legendre rule on [0, 1] is symmetric: node m - 1 - l is 1 - t_l, with the same
weight.  A factor at the mirrored node is g(1 - t) = b + (1 - t) d = e - g(t), e = 2 b + d, so
a pass that takes a node and its mirror computes the first factor with a fused multiply-add and
the second with a subtraction (e costs two additions per feature and pass).
"""

from __future__ import annotations

from numba import njit

from ._simd_numba import (
    pget,
    vadd,
    vall_abs_gt,
    vfma,
    vkeep,
    vload,
    vmul,
    vsplat,
    vstore,
    vsub,
)

_TINY = 2.2250738585072014e-308 * 1e16  # _loo_passes_numba._TINY (np.finfo(float).tiny * 1e16)


@njit(cache=True, nogil=True)
def _flag_bad_sym(sw, l0, npair, mid, m, k0, kq, bad):  # pragma: no cover - compiled
    """bad[k0 + q, node] = True where the full product sw[4 g + q] of slot g is (near) subnormal.
    Slots run in node order: the npair low nodes l0 .., the middle node (mid = 1), the mirrors."""
    for g in range(2 * npair + mid):
        if g < npair:
            node = l0 + g
        elif g < npair + mid:
            node = (m - 1) // 2
        else:
            node = m - l0 - npair + (g - npair - mid)
        for q in range(kq):
            if not abs(sw[4 * g + q]) > _TINY:
                bad[k0 + q, node] = True


@njit(cache=True, nogil=True, inline="always")
def _sym4(bT, dT, pre, acc, sw, t, w, d, l0, m):  # pragma: no cover - compiled
    """Nodes l0, l0 + 1 and their mirrors m - 2 - l0, m - 1 - l0 (slots in node order)."""
    u0 = vsplat(pget(t, l0))
    u1 = vsplat(pget(t, l0 + 1))
    p0 = vsplat(1.0)
    p1 = p0
    p2 = p0
    p3 = p0
    for j in range(d):
        vb = vload(bT, 4 * j)
        vd = vload(dT, 4 * j)
        e = vadd(vadd(vb, vb), vd)
        vstore(pre, 20 * j, p0)
        vstore(pre, 20 * j + 4, p1)
        vstore(pre, 20 * j + 8, p2)
        vstore(pre, 20 * j + 12, p3)
        g0 = vfma(u0, vd, vb)
        g1 = vfma(u1, vd, vb)
        p0 = vmul(p0, g0)
        p1 = vmul(p1, g1)
        p2 = vmul(p2, vsub(e, g1))
        p3 = vmul(p3, vsub(e, g0))
    ok = vall_abs_gt(p0, _TINY) and vall_abs_gt(p1, _TINY) and vall_abs_gt(p2, _TINY) and vall_abs_gt(p3, _TINY)
    if ok:
        s0 = vsplat(pget(w, l0))
        s1 = vsplat(pget(w, l0 + 1))
        s2 = vsplat(pget(w, m - 2 - l0))
        s3 = vsplat(pget(w, m - 1 - l0))
    else:
        vstore(sw, 0, p0)
        vstore(sw, 4, p1)
        vstore(sw, 8, p2)
        vstore(sw, 12, p3)
        s0 = vkeep(p0, _TINY, pget(w, l0))
        s1 = vkeep(p1, _TINY, pget(w, l0 + 1))
        s2 = vkeep(p2, _TINY, pget(w, m - 2 - l0))
        s3 = vkeep(p3, _TINY, pget(w, m - 1 - l0))
    for j in range(d - 1, -1, -1):
        vb = vload(bT, 4 * j)
        vd = vload(dT, 4 * j)
        e = vadd(vadd(vb, vb), vd)
        x = vfma(vload(pre, 20 * j), s0, vload(acc, 4 * j))
        x = vfma(vload(pre, 20 * j + 4), s1, x)
        x = vfma(vload(pre, 20 * j + 8), s2, x)
        vstore(acc, 4 * j, vfma(vload(pre, 20 * j + 12), s3, x))
        g0 = vfma(u0, vd, vb)
        g1 = vfma(u1, vd, vb)
        s0 = vmul(s0, g0)
        s1 = vmul(s1, g1)
        s2 = vmul(s2, vsub(e, g1))
        s3 = vmul(s3, vsub(e, g0))
    return ok


@njit(cache=True, nogil=True, inline="always")
def _sym5(bT, dT, pre, acc, sw, t, w, d, l0, m):  # pragma: no cover - compiled
    """Nodes l0, l0 + 1, the middle node (m odd: t = 1/2) and the mirrors of l0 + 1, l0."""
    c = (m - 1) // 2
    u0 = vsplat(pget(t, l0))
    u1 = vsplat(pget(t, l0 + 1))
    uc = vsplat(pget(t, c))
    p0 = vsplat(1.0)
    p1 = p0
    p2 = p0
    p3 = p0
    p4 = p0
    for j in range(d):
        vb = vload(bT, 4 * j)
        vd = vload(dT, 4 * j)
        e = vadd(vadd(vb, vb), vd)
        vstore(pre, 20 * j, p0)
        vstore(pre, 20 * j + 4, p1)
        vstore(pre, 20 * j + 8, p2)
        vstore(pre, 20 * j + 12, p3)
        vstore(pre, 20 * j + 16, p4)
        g0 = vfma(u0, vd, vb)
        g1 = vfma(u1, vd, vb)
        p0 = vmul(p0, g0)
        p1 = vmul(p1, g1)
        p2 = vmul(p2, vfma(uc, vd, vb))
        p3 = vmul(p3, vsub(e, g1))
        p4 = vmul(p4, vsub(e, g0))
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
        s2 = vsplat(pget(w, c))
        s3 = vsplat(pget(w, m - 2 - l0))
        s4 = vsplat(pget(w, m - 1 - l0))
    else:
        vstore(sw, 0, p0)
        vstore(sw, 4, p1)
        vstore(sw, 8, p2)
        vstore(sw, 12, p3)
        vstore(sw, 16, p4)
        s0 = vkeep(p0, _TINY, pget(w, l0))
        s1 = vkeep(p1, _TINY, pget(w, l0 + 1))
        s2 = vkeep(p2, _TINY, pget(w, c))
        s3 = vkeep(p3, _TINY, pget(w, m - 2 - l0))
        s4 = vkeep(p4, _TINY, pget(w, m - 1 - l0))
    for j in range(d - 1, -1, -1):
        vb = vload(bT, 4 * j)
        vd = vload(dT, 4 * j)
        e = vadd(vadd(vb, vb), vd)
        x = vfma(vload(pre, 20 * j), s0, vload(acc, 4 * j))
        x = vfma(vload(pre, 20 * j + 4), s1, x)
        x = vfma(vload(pre, 20 * j + 8), s2, x)
        x = vfma(vload(pre, 20 * j + 12), s3, x)
        vstore(acc, 4 * j, vfma(vload(pre, 20 * j + 16), s4, x))
        g0 = vfma(u0, vd, vb)
        g1 = vfma(u1, vd, vb)
        s0 = vmul(s0, g0)
        s1 = vmul(s1, g1)
        s2 = vmul(s2, vfma(uc, vd, vb))
        s3 = vmul(s3, vsub(e, g1))
        s4 = vmul(s4, vsub(e, g0))
    return ok


@njit(cache=True, nogil=True, inline="always")
def _sym3(bT, dT, pre, acc, sw, t, w, d, l0, m):  # pragma: no cover - compiled
    """Node l0, the middle node (m odd) and the mirror of l0."""
    c = (m - 1) // 2
    u0 = vsplat(pget(t, l0))
    uc = vsplat(pget(t, c))
    p0 = vsplat(1.0)
    p1 = p0
    p2 = p0
    for j in range(d):
        vb = vload(bT, 4 * j)
        vd = vload(dT, 4 * j)
        e = vadd(vadd(vb, vb), vd)
        vstore(pre, 20 * j, p0)
        vstore(pre, 20 * j + 4, p1)
        vstore(pre, 20 * j + 8, p2)
        g0 = vfma(u0, vd, vb)
        p0 = vmul(p0, g0)
        p1 = vmul(p1, vfma(uc, vd, vb))
        p2 = vmul(p2, vsub(e, g0))
    ok = vall_abs_gt(p0, _TINY) and vall_abs_gt(p1, _TINY) and vall_abs_gt(p2, _TINY)
    if ok:
        s0 = vsplat(pget(w, l0))
        s1 = vsplat(pget(w, c))
        s2 = vsplat(pget(w, m - 1 - l0))
    else:
        vstore(sw, 0, p0)
        vstore(sw, 4, p1)
        vstore(sw, 8, p2)
        s0 = vkeep(p0, _TINY, pget(w, l0))
        s1 = vkeep(p1, _TINY, pget(w, c))
        s2 = vkeep(p2, _TINY, pget(w, m - 1 - l0))
    for j in range(d - 1, -1, -1):
        vb = vload(bT, 4 * j)
        vd = vload(dT, 4 * j)
        e = vadd(vadd(vb, vb), vd)
        x = vfma(vload(pre, 20 * j), s0, vload(acc, 4 * j))
        x = vfma(vload(pre, 20 * j + 4), s1, x)
        vstore(acc, 4 * j, vfma(vload(pre, 20 * j + 8), s2, x))
        g0 = vfma(u0, vd, vb)
        s0 = vmul(s0, g0)
        s1 = vmul(s1, vfma(uc, vd, vb))
        s2 = vmul(s2, vsub(e, g0))
    return ok


@njit(cache=True, nogil=True, inline="always")
def _sym2(bT, dT, pre, acc, sw, t, w, d, l0, m):  # pragma: no cover - compiled
    """Node l0 and its mirror m - 1 - l0."""
    u0 = vsplat(pget(t, l0))
    p0 = vsplat(1.0)
    p1 = p0
    for j in range(d):
        vb = vload(bT, 4 * j)
        vd = vload(dT, 4 * j)
        e = vadd(vadd(vb, vb), vd)
        vstore(pre, 20 * j, p0)
        vstore(pre, 20 * j + 4, p1)
        g0 = vfma(u0, vd, vb)
        p0 = vmul(p0, g0)
        p1 = vmul(p1, vsub(e, g0))
    ok = vall_abs_gt(p0, _TINY) and vall_abs_gt(p1, _TINY)
    if ok:
        s0 = vsplat(pget(w, l0))
        s1 = vsplat(pget(w, m - 1 - l0))
    else:
        vstore(sw, 0, p0)
        vstore(sw, 4, p1)
        s0 = vkeep(p0, _TINY, pget(w, l0))
        s1 = vkeep(p1, _TINY, pget(w, m - 1 - l0))
    for j in range(d - 1, -1, -1):
        vb = vload(bT, 4 * j)
        vd = vload(dT, 4 * j)
        e = vadd(vadd(vb, vb), vd)
        x = vfma(vload(pre, 20 * j), s0, vload(acc, 4 * j))
        vstore(acc, 4 * j, vfma(vload(pre, 20 * j + 4), s1, x))
        g0 = vfma(u0, vd, vb)
        s0 = vmul(s0, g0)
        s1 = vmul(s1, vsub(e, g0))
    return ok

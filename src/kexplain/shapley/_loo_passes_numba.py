"""The node passes of the compiled quadrature kernels (numba, optional): blocks of 4 pairs, one
pair per vector lane.

``_product_numba`` (whose module docstring tells the scheme, its history, what bounds these passes
on this core and what was tried and not kept),
``_stationary_loo_numba`` and ``_product_fused_numba`` take their blocks of 4 pairs, transposed to
(feature, pair), through these passes: ``_pairs_nodes3``, ``_pairs_nodes4`` and ``_pairs_nodes5``
take 3 to 5 nodes at a time (one vector per node, 3 to 5 independent chains of products), keeping
the running prefix and suffix products in registers; ``_pairs_node1`` takes one; ``_node_groups``
runs all m nodes of a block in the grouping ``_product_numba._pair_blocks`` uses (so the same
numbers), and ``_flag_bad`` flags the (pair, node) entries a pass left out (a full product near
underflow: the caller finishes them in log space).  They take data pointers, not arrays (numba
counts references on each array argument of every call), and are inlined into the kernels that
call them (``inline="always"``: numba inlines across modules at the level of its own IR).
Every name here is still imported from ``_product_numba`` as well.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._simd_numba import (
    pget,
    vall_abs_gt,
    vfma,
    vkeep,
    vload,
    vmul,
    vsplat,
    vstore,
    vstore_t4,
)

_TINY = np.finfo(np.float64).tiny * 1e16
_HUGE = np.finfo(np.float64).max * 1e-16


@njit(cache=True, nogil=True)
def _c_rows(x):  # pragma: no cover - compiled
    """Whether x[i, j] is at flat index i x.shape[1] + j (C order), as the vector loads assume."""
    return x.strides[1] == 8 and x.strides[0] == 8 * x.shape[1]


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


@njit(cache=True, nogil=True, inline="always")
def _node_pass(pbT, pdT, ppre, pacc, psw, pt, pw, d, l0, m):  # pragma: no cover - compiled
    """The next pass over a block of 4 pairs from node l0 of m: (nodes it took, False if it left an
    entry out).  Passes of 3 to 5 (a lone node's pass waits on each multiplication's latency):
    5 = 5, 6 = 3 + 3, 7 = 4 + 3, 9 = 4 + 5, 10 = 5 + 5, 11 = 4 + 4 + 3, ...; every kernel groups its
    nodes through here, so they give the same numbers."""
    rem = m - l0
    if rem == 5 or rem == 10:
        return 5, _pairs_nodes5(pbT, pdT, ppre, pacc, psw, pt, pw, d, l0)
    if rem == 3 or rem == 6:
        return 3, _pairs_nodes3(pbT, pdT, ppre, pacc, psw, pt, pw, d, l0)
    if rem >= 4:
        return 4, _pairs_nodes4(pbT, pdT, ppre, pacc, psw, pt, pw, d, l0)
    return 1, _pairs_node1(pbT, pdT, ppre, pacc, psw, pt, pw, d, l0)


@njit(cache=True, nogil=True, inline="always")
def _node_groups_ok(pbT, pdT, ppre, pacc, psw, pt, pw, d, m):  # pragma: no cover - compiled
    """All m nodes of a block of 4 pairs (``_node_pass``); False as soon as a pass left an entry
    out (the fused kernels hand such a block to the unfused one)."""
    l0 = 0
    while l0 < m:
        g, ok = _node_pass(pbT, pdT, ppre, pacc, psw, pt, pw, d, l0, m)
        if not ok:
            return False
        l0 += g
    return True


@njit(cache=True, nogil=True, inline="always")
def _node_groups(pbT, pdT, ppre, pacc, psw, pt, pw, d, m, sw, k0, kq, bad):  # pragma: no cover - compiled
    """All m nodes of a block of 4 pairs (``_node_pass``), flagging the entries a pass left out."""
    l0 = 0
    while l0 < m:
        g, ok = _node_pass(pbT, pdT, ppre, pacc, psw, pt, pw, d, l0, m)
        if not ok:
            _flag_bad(sw, l0, g, k0, kq, bad)
        l0 += g


@njit(cache=True, nogil=True, inline="always")
def _store_rows4(out, k0, d, d4, dT, acc):  # pragma: no cover - compiled
    """out rows k0 .. k0 + 3 = dT * acc of a full block of 4 pairs, 4 features at a time (a 4 x 4
    transpose in registers), then the last d mod 4 features one by one."""
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

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

What bounds it (``benchmarks/_simd_op_costs.py``; AMD EPYC Zen 1, 2.46 GHz): 256-bit fused
multiply-adds, multiplications and additions each issue once per cycle, the first two on the same
pair of pipes; a 256-bit store takes 2 cycles; an addition or subtraction runs beside a
multiplication (6 + 6 in 6.2 cycles) but hardly beside a fused multiply-add (6 + 3 in 9.1,
6 + 6 in 9.6).  A 4-node pass takes about 10 cycles per feature forward (four stores; 8.6 without
them) and 13.2 backward, 23-24 cycles for its 20 multiply-adds and multiplications: 83-87% of
those pipes.  At 5 such operations per (node, feature, 4 pairs) the kernel cannot pass about 21%
of single-thread DGEMM (18.4 GFLOP/s) by the count of 2 flops per (pair, node, feature); it runs
at about 18% (14-17% in ``bench_scale.py``'s rows at d = 100-1,000, its wrapper included).  Tried
and not kept: symmetric nodes (every Gauss-Legendre rule on [0, 1] has node
m - 1 - l = 1 - t_l: one pass takes both, the mirrored factor as e - g(t), e = 2 b + d, a
subtraction where a fused multiply-add was; 4 multiply-adds and multiplications per node instead
of 5) measured 0.95-1.01x of this kernel at d = 20-1,000 (the subtractions compete with the
multiply-adds and the stores: forward 3-8% slower, backward 1-3% faster), with values up to
3.6e-15 (relative to each row's largest) from a long-double reference where this kernel's are
within 1.5e-15; and one loop running the forward pass of one group of nodes beside the backward
pass of another (the stores beside the arithmetic) gave 0.92-1.01x.  Level too, bit for bit the
same numbers: each pass's prefix products packed at its own width (12 or 16 values per feature
rather than 20; 1.00x at d = 10-1,000), m = 6 in one 6-node pass rather than 3 + 3
(0.97-1.06x) and the running sums started by each block's first pass rather than zeroed in the
gather (1.00-1.05x).  The symmetric passes are in the git history (the commit "Experiment ...:
symmetric node passes" and its revert), should a core whose addition pipes run beside its
multiply-adds make them pay.

The node passes live in ``_loo_passes_numba`` (shared with ``_stationary_loo_numba``'s
``stationary_loo_integrals``, the same kernel for the functional game of one RBF or Laplacian
kernel with its factors computed inside, and with ``_product_fused_numba``), each point's certified
node count in ``_node_counts_numba`` (``point_node_counts``: the kernel takes any node count, not
only ceil(d/2)), the subset route's kernel in ``_subset_values_numba``.  Every name of those
modules, private ones included, is still imported from here.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._loo_passes_numba import _HUGE as _HUGE
from ._loo_passes_numba import _TINY as _TINY
from ._loo_passes_numba import _c_rows as _c_rows
from ._loo_passes_numba import _flag_bad as _flag_bad
from ._loo_passes_numba import _node_groups as _node_groups
from ._loo_passes_numba import _pairs_node1 as _pairs_node1
from ._loo_passes_numba import _pairs_nodes3 as _pairs_nodes3
from ._loo_passes_numba import _pairs_nodes4 as _pairs_nodes4
from ._loo_passes_numba import _pairs_nodes5 as _pairs_nodes5
from ._loo_passes_numba import _store_rows4
from ._node_counts_numba import point_node_counts as point_node_counts
from ._simd_numba import (
    pget,
    vdata,
    vlane,
    vload_t4,
    vmax_abs,
    vmul,
    vset,
    vsplat,
    vstore,
    vsub,
)
from ._stationary_loo_numba import stationary_loo_integrals as stationary_loo_integrals
from ._subset_values_numba import _SPLIT_FEATURES as _SPLIT_FEATURES
from ._subset_values_numba import subset_table_layout as subset_table_layout
from ._subset_values_numba import subset_values as subset_values


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
        # pointers taken in the loop, so that the arrays stay alive through it
        pbT, pdT, ppre, pacc, psw, pt, pw = vdata(bT), vdata(dT), vdata(pre), vdata(acc), vdata(sw), vdata(t), vdata(w)
        _node_groups(pbT, pdT, ppre, pacc, psw, pt, pw, d, m, sw, k0, kq, bad)  # passes of 3 to 5 nodes
        if kq == 4:
            # out rows k0 .. k0 + 3, 4 features at a time (a big pair's row is redone below)
            _store_rows4(out, k0, d, d4, dT, acc)
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
def weighted_loo_integrals(a, ia, b, t, w, out, bad, pa):  # pragma: no cover - compiled; tested via product.py
    m = t.shape[0]
    _pair_blocks(a, ia, b, t, w, out, bad, pa, np.empty(m), np.empty(m))

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

With 12 nodes or more (d >= 23) the first scheme runs one pair at a time with the node index
innermost, in chunks of nodes whose (d, chunk) prefix products stay in the L2 cache.  Its sum over
nodes is written as a loop of its own and compiled with reassociation allowed (numba's fastmath
flag "reassoc" on that one function, nothing else: no assumption about NaN, infinities or signed
zeros), so that LLVM vectorises it; with the sum and the suffix update in one loop, or without
the flag, it stays scalar.  Measured on one core (AMD EPYC, znver1): 1.6-1.7x at d = 160 and
1.5-1.6x at d = 1,000, values within 3e-15 relative of the sequential sum.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._simd_numba import vfma, vload, vmul, vsplat, vstore

_TINY = np.finfo(np.float64).tiny * 1e16
_HUGE = np.finfo(np.float64).max * 1e-16

#: below this many nodes the inner loops over nodes are too short to vectorise: the kernel then
#: runs over blocks of pairs, with the pair index innermost
_FEW_NODES = 12
_PAIR_BLOCK = 32

#: the only fast-math liberty taken (see the module docstring)
_REASSOC = {"reassoc"}

#: bytes of one pair's prefix products per chunk of nodes: half of a 512 KiB L2 cache
_CHUNK_BYTES = 256 * 2**10


@njit(cache=True, nogil=True)
def node_chunk(d, m):  # pragma: no cover - compiled
    """Nodes per chunk of the one-pair scheme: all m when (d, m) prefix products fit in
    ``_CHUNK_BYTES``, else a multiple of 8 (at least 8) that does."""
    c = _CHUNK_BYTES // (8 * max(1, d))
    if c >= m:
        return m
    return max(8, c - c % 8)


@njit(cache=True, nogil=True)
def _is_big(a, ka, b, kb):  # pragma: no cover - compiled
    """Whether the pair of rows a[ka], b[kb] has an |a| or |b| above 1, and prod_j a[ka, j]."""
    big = False
    prod_a = 1.0
    for j in range(a.shape[1]):
        prod_a *= a[ka, j]
        if abs(a[ka, j]) > 1.0 or abs(b[kb, j]) > 1.0:
            big = True
    return big, prod_a


@njit(cache=True, nogil=True)
def _one_pair_small(a, ka, b, kb, k, tp, wp, m, out, bad, pre, acc, sw):  # pragma: no cover - compiled
    """Prefix/suffix scheme for pair k (rows a[ka], b[kb], every |a|, |b| <= 1), 16 nodes at a time.

    The nodes ``tp``, ``wp`` (padded with weight 0 to a multiple of 16; only the first ``m`` are
    real) are taken in blocks of 16, four 4-lane vectors whose running prefix and suffix products
    stay in registers: the only memory traffic per (feature, block) is one row of ``pre`` (d, 16)
    written forward and read backward, and one row of the 4-lane sums ``acc`` (d, 4) (lane r takes
    nodes r, r + 4, r + 8 and r + 12 of every block), reduced once at the end.
    """
    d = a.shape[1]
    zero = vsplat(0.0)
    for j in range(d):
        vstore(acc, 4 * j, zero)
    for c0 in range(0, tp.shape[0], 16):
        t0 = vload(tp, c0)
        t1 = vload(tp, c0 + 4)
        t2 = vload(tp, c0 + 8)
        t3 = vload(tp, c0 + 12)
        p0 = vsplat(1.0)
        p1 = p0
        p2 = p0
        p3 = p0
        for j in range(d):
            bj = b[kb, j]
            vb = vsplat(bj)
            vd = vsplat(a[ka, j] - bj)
            vstore(pre, 16 * j, p0)
            vstore(pre, 16 * j + 4, p1)
            vstore(pre, 16 * j + 8, p2)
            vstore(pre, 16 * j + 12, p3)
            p0 = vmul(p0, vfma(t0, vd, vb))
            p1 = vmul(p1, vfma(t1, vd, vb))
            p2 = vmul(p2, vfma(t2, vd, vb))
            p3 = vmul(p3, vfma(t3, vd, vb))
        # a node whose full product is (near) subnormal goes to the caller: its weight here is 0
        vstore(sw, 0, p0)
        vstore(sw, 4, p1)
        vstore(sw, 8, p2)
        vstore(sw, 12, p3)
        for l in range(16):
            ok = abs(sw[l]) > _TINY
            sw[l] = wp[c0 + l] if ok else 0.0
            if c0 + l < m:
                bad[k, c0 + l] = not ok
        s0 = vload(sw, 0)
        s1 = vload(sw, 4)
        s2 = vload(sw, 8)
        s3 = vload(sw, 12)
        for j in range(d - 1, -1, -1):
            bj = b[kb, j]
            vb = vsplat(bj)
            vd = vsplat(a[ka, j] - bj)
            x = vfma(vload(pre, 16 * j), s0, vload(acc, 4 * j))
            x = vfma(vload(pre, 16 * j + 4), s1, x)
            x = vfma(vload(pre, 16 * j + 8), s2, x)
            vstore(acc, 4 * j, vfma(vload(pre, 16 * j + 12), s3, x))
            s0 = vmul(s0, vfma(t0, vd, vb))
            s1 = vmul(s1, vfma(t1, vd, vb))
            s2 = vmul(s2, vfma(t2, vd, vb))
            s3 = vmul(s3, vfma(t3, vd, vb))
    for j in range(d):
        out[k, j] = (a[ka, j] - b[kb, j]) * ((acc[j, 0] + acc[j, 1]) + (acc[j, 2] + acc[j, 3]))


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
def _pair_blocks(a, ia, b, t, w, out, bad, pa, P1, S1):  # pragma: no cover - compiled
    """Prefix/suffix scheme over blocks of pairs, pair index innermost (few nodes); pairs with an
    |a| or |b| above 1 are redone by ``_one_pair_big``.  Each entry's sum over nodes runs in node
    order, so a pair's numbers do not depend on the pairs it shares a block with."""
    K = ia.shape[0]
    d = a.shape[1]
    nb = b.shape[0]
    m = t.shape[0]
    Q = _PAIR_BLOCK
    bT = np.empty((d, Q))
    dT = np.empty((d, Q))
    pre = np.empty((d, m, Q))
    acc = np.empty((d, Q))
    P = np.empty((m, Q))
    S = np.empty((m, Q))
    s = np.empty(Q)
    big = np.empty(Q, dtype=np.bool_)
    for k0 in range(0, K, Q):
        kq = min(Q, K - k0)
        for q in range(Q):
            big[q] = False
            if q < kq:
                ka = ia[k0 + q]
                r = (k0 + q) % nb
                for j in range(d):
                    bT[j, q] = b[r, j]
                    dT[j, q] = a[ka, j] - b[r, j]
                    if abs(a[ka, j]) > 1.0 or abs(b[r, j]) > 1.0:
                        big[q] = True
                    acc[j, q] = 0.0
            else:  # padding: harmless factors
                for j in range(d):
                    bT[j, q] = 1.0
                    dT[j, q] = 0.0
                    acc[j, q] = 0.0
        # nodes inside the loop over features: each feature's (b, a - b) lanes and accumulators
        # are loaded once for all nodes; each entry still sums its nodes in node order
        for l in range(m):
            for q in range(Q):
                P[l, q] = 1.0
        for j in range(d):
            for l in range(m):
                tl = t[l]
                for q in range(Q):
                    pre[j, l, q] = P[l, q]
                    P[l, q] *= bT[j, q] + tl * dT[j, q]
        for l in range(m):
            for q in range(Q):
                if abs(P[l, q]) > _TINY:
                    S[l, q] = w[l]
                else:
                    S[l, q] = 0.0
                if q < kq:
                    bad[k0 + q, l] = S[l, q] == 0.0
        for j in range(d - 1, -1, -1):
            for q in range(Q):
                s[q] = acc[j, q]
            for l in range(m):
                tl = t[l]
                for q in range(Q):
                    s[q] += pre[j, l, q] * S[l, q]
                    S[l, q] *= bT[j, q] + tl * dT[j, q]
            for q in range(Q):
                acc[j, q] = s[q]
        for q in range(kq):
            k = k0 + q
            ka = ia[k]
            prod_a = 1.0
            for j in range(d):
                prod_a *= a[ka, j]
            pa[k] = prod_a
            if big[q]:
                _one_pair_big(a, ka, b, k % nb, k, t, w, out, bad, P1, S1)
            else:
                for j in range(d):
                    out[k, j] = dT[j, q] * acc[j, q]


@njit(cache=True, nogil=True)
def weighted_loo_integrals(a, ia, b, t, w, out, bad, pa):  # pragma: no cover - compiled; tested via product.py
    K = ia.shape[0]
    d = a.shape[1]
    nb = b.shape[0]
    m = t.shape[0]
    P = np.empty(m)
    S = np.empty(m)
    if m < _FEW_NODES:
        _pair_blocks(a, ia, b, t, w, out, bad, pa, P, S)
        return
    n_pad = -(-m // 16) * 16
    tp = np.full(n_pad, 0.5)  # padded nodes: weight 0, so they add nothing
    wp = np.zeros(n_pad)
    tp[:m] = t
    wp[:m] = w
    pre = np.empty((d, 16))
    acc = np.empty((d, 4))
    sw = np.empty(16)
    for k in range(K):
        ka = ia[k]
        kb = k % nb
        big, prod_a = _is_big(a, ka, b, kb)
        pa[k] = prod_a
        if big:
            _one_pair_big(a, ka, b, kb, k, t, w, out, bad, P, S)
        else:
            _one_pair_small(a, ka, b, kb, k, tp, wp, m, out, bad, pre, acc, sw)


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
    """
    N, R, d = a.shape
    o, n_hi, _, n_lo = Bc.shape
    dl = 0
    while (1 << dl) < n_lo:
        dl += 1
    Alo = np.empty((R, n_lo))
    Ahi = np.empty((R, n_hi))
    acc = np.empty(n_lo)
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
                    v[hi * n_lo + lo, p, q] = acc[lo]

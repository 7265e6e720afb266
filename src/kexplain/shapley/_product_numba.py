"""Optional compiled kernel for the product-game engine (numba is not a core dependency).

``weighted_loo_integrals`` computes, for every pair k (an explained point and a game row) and
feature j,

    out[k, j] = (a_kj - b_kj) * sum_l w_l prod_{i != j} g_ki(t_l),    g_ki(t) = b_ki + t (a_ki - b_ki),

with b's row for pair k being ``b[k % len(b)]`` (b rarely depends on the point, so it is not
repeated), and pa[k] = prod_j a_kj (for v(all features)), in one fused pass that never materialises
the (pairs, nodes, features) array the numpy path needs.  It is a drop-in for
``product._weighted_loo_integrals_numpy``: same arguments, same flags, the same numbers up to
rounding, and the same contract for the (pair, node) entries it cannot do safely: flagged in
``bad``, left out of ``out``, finished by the caller in log space.

Two leave-one-out schemes, chosen per pair:

- every |a|, |b| <= 1 (all kernel games): prefix and suffix products, no division.  Every factor
  has |g| <= 1, so every partial product is at least |prod_i g_i| in magnitude; when that full
  product is a normal number nothing underflows.
- otherwise: the full product divided by the left-out factor, allowed only when the full product
  is far from under/overflow; a non-finite result sends the whole pair to the caller.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_TINY = np.finfo(np.float64).tiny * 1e16
_HUGE = np.finfo(np.float64).max * 1e-16


#: below this many nodes the inner loops over nodes are too short to vectorise: the kernel then
#: runs over blocks of pairs, with the pair index innermost
_FEW_NODES = 12
_PAIR_BLOCK = 32


@njit(cache=True, nogil=True)
def _one_pair(a, b, k, kb, t, w, out, bad, pa, pre, P, S):  # pragma: no cover - compiled
    """Pair k (b's row kb) with the node index innermost; either scheme of the module docstring."""
    d = a.shape[1]
    m = t.shape[0]
    big = False
    prod_a = 1.0
    for j in range(d):
        prod_a *= a[k, j]
        if abs(a[k, j]) > 1.0 or abs(b[kb, j]) > 1.0:
            big = True
    pa[k] = prod_a
    for l in range(m):
        P[l] = 1.0
    if not big:
        for j in range(d):
            bj = b[kb, j]
            dj = a[k, j] - bj
            for l in range(m):
                pre[j, l] = P[l]
                P[l] *= bj + t[l] * dj
        for l in range(m):
            if abs(P[l]) > _TINY:
                S[l] = w[l]
                bad[k, l] = False
            else:
                S[l] = 0.0
                bad[k, l] = True
        for j in range(d - 1, -1, -1):
            bj = b[kb, j]
            dj = a[k, j] - bj
            s = 0.0
            for l in range(m):
                s += pre[j, l] * S[l]
                S[l] *= bj + t[l] * dj
            out[k, j] = dj * s
        return
    for j in range(d):
        bj = b[kb, j]
        dj = a[k, j] - bj
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
        dj = a[k, j] - bj
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
def _pair_blocks(a, b, t, w, out, bad, pa, pre1, P1, S1):  # pragma: no cover - compiled
    """Prefix/suffix scheme over blocks of pairs, pair index innermost (few nodes).  The same
    operations in the same order per entry as ``_one_pair``, so the same numbers; pairs with an
    |a| or |b| above 1 are redone by ``_one_pair``."""
    K, d = a.shape
    nb = b.shape[0]
    m = t.shape[0]
    Q = _PAIR_BLOCK
    bT = np.empty((d, Q))
    dT = np.empty((d, Q))
    pre = np.empty((d, Q))
    acc = np.empty((d, Q))
    P = np.empty(Q)
    S = np.empty(Q)
    big = np.empty(Q, dtype=np.bool_)
    for k0 in range(0, K, Q):
        kq = min(Q, K - k0)
        for q in range(Q):
            big[q] = False
            for j in range(d):
                if q < kq:
                    r = (k0 + q) % nb
                    bT[j, q] = b[r, j]
                    dT[j, q] = a[k0 + q, j] - b[r, j]
                    if abs(a[k0 + q, j]) > 1.0 or abs(b[r, j]) > 1.0:
                        big[q] = True
                else:  # padding: harmless factors
                    bT[j, q] = 1.0
                    dT[j, q] = 0.0
                acc[j, q] = 0.0
        for l in range(m):
            tl = t[l]
            for q in range(Q):
                P[q] = 1.0
            for j in range(d):
                for q in range(Q):
                    pre[j, q] = P[q]
                    P[q] *= bT[j, q] + tl * dT[j, q]
            for q in range(Q):
                if abs(P[q]) > _TINY:
                    S[q] = w[l]
                else:
                    S[q] = 0.0
                if q < kq:
                    bad[k0 + q, l] = S[q] == 0.0
            for j in range(d - 1, -1, -1):
                for q in range(Q):
                    acc[j, q] += pre[j, q] * S[q]
                    S[q] *= bT[j, q] + tl * dT[j, q]
        for q in range(kq):
            if big[q]:
                _one_pair(a, b, k0 + q, (k0 + q) % nb, t, w, out, bad, pa, pre1, P1, S1)
            else:
                prod_a = 1.0
                for j in range(d):
                    out[k0 + q, j] = dT[j, q] * acc[j, q]
                    prod_a *= a[k0 + q, j]
                pa[k0 + q] = prod_a


@njit(cache=True, nogil=True)
def weighted_loo_integrals(a, b, t, w, out, bad, pa):  # pragma: no cover - compiled; tested via product.py
    K, d = a.shape
    nb = b.shape[0]
    m = t.shape[0]
    pre = np.empty((d, m))
    P = np.empty(m)
    S = np.empty(m)
    if m < _FEW_NODES:
        _pair_blocks(a, b, t, w, out, bad, pa, pre, P, S)
        return
    for k in range(K):
        _one_pair(a, b, k, k % nb, t, w, out, bad, pa, pre, P, S)


@njit(cache=True, nogil=True)
def subset_values(a, Bc, v, w):  # pragma: no cover - compiled; tested via subsets.py
    """v[m, p, q] = sum_i w[p, i] Bc[q, i, m] prod_{j in m} a[p, i, j] for every subset m (bit j = feature j).

    ``w`` (points, rows) are per-point row weights (ones when the rows weigh the same at every point).

    The subset route (``kexplain.shapley.subsets``): per point and row,
    the table of subset products is built by doubling in a small scratch array and accumulated at
    once, so nothing of size (subsets, points, rows) is ever stored.
    """
    N, R, d = a.shape
    o, n_sets = Bc.shape[0], Bc.shape[2]
    A = np.empty(n_sets)
    acc = np.empty((o, n_sets))
    for p in range(N):
        for q in range(o):
            for m in range(n_sets):
                acc[q, m] = 0.0
        for i in range(R):
            A[0] = w[p, i]
            h = 1
            for j in range(d):
                aj = a[p, i, j]
                for m in range(h):
                    A[h + m] = A[m] * aj
                h *= 2
            for q in range(o):
                for m in range(n_sets):
                    acc[q, m] += A[m] * Bc[q, i, m]
        for q in range(o):
            for m in range(n_sets):
                v[m, p, q] = acc[q, m]

"""The fused functional route of the product-game engine: the functional game of one RBF or
Laplacian kernel, whose factors the compiled kernel computes itself (``_stationary_pairs_block``,
with the support points' layout ``_rows_in_lanes`` and the rule tables ``_lazy_rule_table``,
built row by row as points take their rules) (moved out of ``kexplain.shapley.product``, which
re-exports every name).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .._optional import compiled_or_none
from ._product_logspace import _weighted_loo_integrals_safe
from .quadrature import LADDER_FROM, _ladder_sizes, gauss_legendre_01, node_limits, nodes_for_degree, spread_limit


@compiled_or_none
def _stationary_kernel():
    """The fused functional kernel of RBF and Laplacian factors (``stationary_loo_integrals``), or None."""
    from ._product_numba import stationary_loo_integrals

    return stationary_loo_integrals


def _rows_in_lanes(Y):
    """Y (r, d) in blocks of 4 rows, each transposed to (feature, row), the last padded with
    zeros: the flat (ceil(r / 4) 4 d,) layout ``stationary_loo_integrals`` reads."""
    r, d = Y.shape
    nrb = -(-r // 4)
    Y4 = np.zeros((4 * nrb, d))
    Y4[:r] = Y
    return np.ascontiguousarray(Y4.reshape(nrb, 4, d).transpose(0, 2, 1)).reshape(-1)


def _stationary_pairs_block(X, Y, ls, laplacian, c, n_nodes, Y4=None):
    """``_pairs_block`` of the functional game of one RBF (or Laplacian) kernel, b = 1, with the
    factors a[p, i, j] = profile((X[p, j] - Y[i, j]) / ls[j]) computed inside the compiled kernel
    (``stationary_loo_integrals``) instead of a (points, rows, d) array: the same numbers bit for
    bit at the same node counts (the same factors, passes and matrix products).  Every factor is
    finite in [0, 1], so no finiteness pass is needed.

    ``n_nodes`` None: each point's certified count (``_point_nodes``'s rule, from every d with
    ``CERTIFY_FUSED_FROM_NODES``: the spreads come from the factors in cache, nearly free), the
    points with an entry that needs the log-space path redone with the exact rule, as
    ``_weighted_loo_integrals`` does; the (pair, node) entries flagged at the exact rule are
    finished in log space from those pairs' factors, recomputed.  ``Y4``: ``_rows_in_lanes(Y)``
    when the caller keeps it (the solver, once per block of rows for all blocks of points)."""
    from .._exp_numba import stationary_factors

    p, d = X.shape
    r, o = c.shape
    exact = nodes_for_degree(d - 1) if n_nodes is None else n_nodes
    certify = n_nodes is None and exact >= CERTIFY_FUSED_FROM_NODES and spread_limit(d) > 0.0
    # without certified counts every point takes the exact rule; with them, the rules up to
    # LADDER_FROM nodes first (milliseconds) and a larger one when a point takes it (below)
    table = _lazy_rule_table(exact)
    T, W, sizes = table.T, table.W, table.sizes
    table.build(range(1, min(sizes.size - 1, LADDER_FROM) + 1) if certify else [sizes.size - 1])
    ready = table.built.copy()  # rows complete before the kernel reads them (threads share the table)
    # the largest spread each of the table's rules below the exact one certifies
    limits = node_limits(d)[sizes[1:-1] - 1] if certify else np.empty(0)
    if Y4 is None:
        Y4 = _rows_in_lanes(Y)
    ls4 = np.repeat(ls, 4)
    X = np.ascontiguousarray(X)
    kernel = _stationary_kernel()
    K = p * r
    psi = np.empty((K, d))
    bad = np.empty((K, exact), dtype=bool)
    pa = np.empty(K)
    counts = np.empty(p, dtype=np.int64)
    kernel(X, Y4, ls4, bool(laplacian), r, T, W, sizes, limits, psi, bad, pa, counts)
    rows = np.searchsorted(sizes, counts)
    if not ready[rows].all():
        # points that took a rule not built yet: build it and run them again; the kernel picks
        # the same row from the same factors, so the values are those of a table built in full
        pts = np.flatnonzero(~ready[rows])
        table.build(np.unique(rows[pts]).tolist())
        k = (pts[:, None] * r + np.arange(r)).ravel()
        sub_psi, sub_bad, sub_pa = np.empty((k.size, d)), np.empty((k.size, exact), dtype=bool), np.empty(k.size)
        sub_counts = np.empty(pts.size, dtype=np.int64)
        kernel(X[pts], Y4, ls4, bool(laplacian), r, T, W, sizes, limits, sub_psi, sub_bad, sub_pa, sub_counts)
        psi[k], bad[k], pa[k], counts[pts] = sub_psi, sub_bad, sub_pa, sub_counts
    if bad.any():
        table.build([sizes.size - 1])  # the exact rule, for the redo and the log-space path
        if certify:
            # points with a flagged entry at a certified count: the exact rule, as in any block
            pts = np.flatnonzero(bad.reshape(p, r * exact).any(axis=1) & (counts < exact))
            if pts.size:
                k = (pts[:, None] * r + np.arange(r)).ravel()
                sub_psi, sub_bad, sub_pa = (
                    np.empty((k.size, d)),
                    np.empty((k.size, exact), dtype=bool),
                    np.empty(k.size),
                )
                redo = (sub_psi, sub_bad, sub_pa, counts[pts])
                kernel(X[pts], Y4, ls4, bool(laplacian), r, T, W, sizes, np.empty(0), *redo)
                psi[k], bad[k], pa[k] = sub_psi, sub_bad, sub_pa
        kk = np.flatnonzero(bad.any(axis=1))
        if kk.size:
            a = np.empty((kk.size, d))
            for pt in np.unique(kk // r).tolist():
                sel = kk // r == pt
                fac = np.empty((1, r, d))
                stationary_factors(X[pt : pt + 1], np.ascontiguousarray(Y), ls, bool(laplacian), fac)
                a[sel] = fac[0, kk[sel] % r]
            sub = psi[kk]
            _weighted_loo_integrals_safe(a, np.ones((1, d)), T[-1, :exact], W[-1, :exact], sub, bad[kk])
            psi[kk] = sub
    v_empty = np.broadcast_to(np.ones(r) @ c, (p, o)).copy()
    v_full = pa.reshape(p, r) @ c
    phi = np.matmul(psi.reshape(p, r, d).transpose(0, 2, 1), c)
    return phi, v_full, v_empty


def _rule_table(n):
    """(T, W, sizes) of ``_lazy_rule_table(n)`` with every row built: T, W of shape (R + 1, n), row i
    holding the ``sizes[i]``-node Gauss-Legendre rule on [0, 1] in its first sizes[i] entries (zeros
    after; row 0 unused, sizes[0] = 0), for every count ``quadrature.certified_nodes`` can give when
    the exact rule has n nodes (row R: that exact rule; O(log n) rules, where the table of every
    count from 1 to n cost O(n^3) time and O(n^2) memory).  The fused route builds rows as points
    take them; this builds them all (a caller that passes the table to the kernel itself)."""
    table = _lazy_rule_table(n)
    table.build(range(1, table.sizes.size))
    return table.T, table.W, table.sizes


class _LazyRuleTable:
    """``_rule_table(n)``'s arrays with each row built on first use (``build``), ``built[i]`` set once
    row i is complete.  A first call at d used to build all O(log d) rules, up to the exact one of
    ceil(d/2) nodes, O(d^2) work (1.2 s at d = 20,000 with the compiled recurrence), where its
    points take a few certified nodes."""

    def __init__(self, n):
        self.sizes = np.concatenate(([0], _ladder_sizes(n)))
        self.T, self.W = np.zeros((self.sizes.size, n)), np.zeros((self.sizes.size, n))
        self.built = np.zeros(self.sizes.size, dtype=bool)
        self.built[0] = True  # row 0 is unused

    def build(self, rows):
        for i in rows:
            if not self.built[i]:
                m = int(self.sizes[i])
                self.T[i, :m], self.W[i, :m] = gauss_legendre_01(m)
                self.built[i] = True  # after the row is written: other threads read the flag first


@lru_cache(maxsize=16)
def _lazy_rule_table(n):
    """The :class:`_LazyRuleTable` of n exact nodes, cached for the last 16 n."""
    return _LazyRuleTable(n)


#: the fused functional kernel certifies counts from this many exact nodes (d >= 11): its spreads
#: are read from factors already in cache, so certifying costs little where the pass over a
#: (pairs, d) array did not pay (``CERTIFY_FROM_NODES``).  On bench_pkex_shapiq.py's RBF SVR
#: (520 SVs, 200 points) it made d = 20 1.02-1.03x and d = 28 1.17-1.19x faster (9-10 nodes per
#: point instead of 10 / 14; one run, 5 interleaved, load about 8)
CERTIFY_FUSED_FROM_NODES = 6

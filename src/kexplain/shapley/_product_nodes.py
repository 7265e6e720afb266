"""Certified node counts of the product-game engine: each explained point's fewest
Gauss-Legendre nodes certified by the spread of its factors (``quadrature.certified_nodes``)
(moved out of ``kexplain.shapley.product``, which re-exports every name).

``CERTIFY_FROM_NODES`` has its one home here: it is read at call time (by ``_point_nodes`` and by
the fused interventional route), so patching it here reaches both.
"""

from __future__ import annotations

import numpy as np

from .._optional import compiled_or_none
from ._product_logspace import _WORK_BYTES
from .quadrature import node_limits, nodes_for_degree, spread_limit


def _point_counts_numpy(a, ia, b, limits, p, r):
    """``_product_numba.point_node_counts`` in numpy (without numba): each point's certified count."""
    K = p * r
    d = a.shape[1]
    step = max(1, _WORK_BYTES // (8 * max(1, d)))
    s = np.empty(K)
    for k0 in range(0, K, step):
        k = np.arange(k0, min(K, k0 + step))
        am = a[k] if ia is None else a[ia[k]]
        bm = b[k % b.shape[0]]
        with np.errstate(divide="ignore", invalid="ignore"):
            s[k] = np.sum(np.abs(am - bm) / np.maximum(am, bm), axis=1)
        s[k[~(np.minimum(am, bm).min(axis=1) > 0.0)]] = np.inf  # a zero or negative factor: no certificate
    s_max = s.reshape(p, r).max(axis=1) if r else np.zeros(p)
    return np.searchsorted(limits, s_max, side="left") + 1  # NaN and inf sort past the end


def _block_nodes(a2, ia, b2):
    """The certified node count of a block of pairs taken as one point (``_point_nodes``)."""
    K = a2.shape[0] if ia is None else ia.shape[0]
    return int(_point_nodes(a2, ia, b2, 1, K)[0])


#: the certified count is sought only where the exact rule has at least this many nodes (d >= 31).
#: Below d = 10 no certificate beats the exact rule.  Since the kernel runs one mode at every node
#: count (its time near proportional to the nodes), the spread pass, which reads every factor again,
#: is what decides: on the RBF SVRs of bench_pkex_shapiq.py (gamma = "scale"; 9-10 nodes per point
#: at d = 20-40) certified counts were 1.19x / 1.18x / 1.08x slower per point at d = 20 / 24 / 28,
#: even at d = 32 and 1.12x faster at d = 40 (CPU time, one thread, 3 interleaved, load about 3).
#: The fused functional kernel reads the spreads from factors in cache and certifies from
#: ``CERTIFY_FUSED_FROM_NODES``
CERTIFY_FROM_NODES = 16


def _point_nodes(a2, ia, b2, p, r):
    """Each point's certified node count (``quadrature.certified_nodes``) from the largest spread
    sum_j |a - b|_j / max(a, b)_j of its own r pairs: a point's count, and so its values, do not
    depend on the other points of the block (explanations stay bit-identical however the rows are
    split into calls or blocks)."""
    d = a2.shape[1]
    exact = nodes_for_degree(d - 1)
    if p == 0 or r == 0 or exact < CERTIFY_FROM_NODES or spread_limit(d) <= 0.0:
        return np.full(p, exact, dtype=np.int64)
    limits = node_limits(d)
    pass_ = _spread_pass()
    if pass_ is None:  # numba missing or unusable: the same pass in numpy
        return _point_counts_numpy(a2, ia, b2, limits, p, r)
    counts = np.empty(p, dtype=np.int64)
    pass_(a2, np.arange(p * r) if ia is None else ia, b2, limits, r, counts)
    return counts


@compiled_or_none
def _spread_pass():
    from ._product_numba import point_node_counts

    return point_node_counts

"""Each point's certified quadrature node count, compiled (numba, optional).

The kernel takes any node count, not only ceil(d/2): ``point_node_counts`` gives each pair's
spread sum_j |a - b|_kj / max(a, b)_kj and, from the largest of each point's, the fewest nodes
that ``quadrature.certified_nodes``'s bound certifies (one vectorised pass of d divisions per
pair, before the integrals).  ``stationary_loo_integrals`` (``_stationary_loo_numba``) reads the same spreads from
factors already in cache.  Still imported from ``_product_numba`` as well.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True, fastmath={"reassoc"}, error_model="numpy")
def point_node_counts(a, ia, b, limits, r, counts):  # pragma: no cover - compiled; tested via product.py
    """counts[i] = the certified node count of point i, whose pairs are k = i r .. i r + r - 1 (rows
    a[ia[k]] and b[k % len(b)]): the smallest m with S <= limits[m - 1] for the largest of its pairs'
    spreads S_k = sum_j |a - b|_kj / max(a, b)_kj (``quadrature.node_limits``), and len(limits) + 1
    (the exact rule) past the last limit or when a factor is zero or negative (the point's other
    pairs are then skipped).

    The sum in any order (``reassoc``: vector lanes): it only picks a node count, through a bound
    with ample room for rounding.  ``error_model="numpy"``: no zero-division check, which would
    keep the loop scalar.  Zero or negative factors are counted (a sum, not a running minimum:
    LLVM does not vectorise a minimum with numba's NaN semantics, and the loop ran scalar, its
    divisions one at a time: 1.8-1.9x slower at d >= 100); a NaN or infinite factor makes S NaN,
    which the test ``s <= top`` sends to the exact rule as before."""
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
            nonpos = 0.0  # factors <= 0: no certificate
            for j in range(d):
                u = a[ka, j]
                v = b[kb, j]
                s += abs(u - v) / (u if u > v else v)
                nonpos += 1.0 if u <= 0.0 or v <= 0.0 else 0.0
            if nonpos > 0.0 or not s <= top:
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

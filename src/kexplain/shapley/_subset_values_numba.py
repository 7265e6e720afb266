"""The subset route's compiled kernel (numba, optional): v(S) of every subset S of a product game
(``subset_values``) and the layout of the table it reads (``subset_table_layout``).

Used by ``kexplain.shapley.subsets`` and ``subset_tables``; still imported from ``_product_numba``
as well.
"""

from __future__ import annotations

import numpy as np
from numba import njit

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

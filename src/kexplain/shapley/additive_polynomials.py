"""Elementary symmetric polynomials of the last axis, and their leave-one-out tables.

The building blocks of the additive games of :mod:`kexplain.shapley.additive`: ``e_q(z)``, the sum
over every q-subset of the players of the product of their factors, by the stable recursion
``e_q <- e_q + z_k e_{q-1}`` (additions and products only), and ``e_q(z without j)`` for every
player j from prefix and suffix tables, without division by ``z_j``.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def elementary_symmetric(z: Any, max_order: int) -> np.ndarray:
    """Elementary symmetric polynomials e_0..e_Q of the last axis, by the stable recursion.

    Parameters
    ----------
    z : array-like of shape (..., d)
    max_order : int
        Q, the highest order returned.

    Returns
    -------
    ndarray of shape (..., max_order + 1)
        ``e[..., q]`` is the sum over all q-subsets of the last axis of the product of their entries.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley.additive import elementary_symmetric
    >>> elementary_symmetric(np.array([1.0, 2.0, 3.0]), 3)   # 1, 1+2+3, 2+3+6, 6
    array([ 1.,  6., 11.,  6.])
    """
    z = np.asarray(z, dtype=np.float64)
    zt = np.moveaxis(z, -1, 0)
    e = np.zeros((max_order + 1,) + z.shape[:-1])  # order-leading: contiguous updates
    e[0] = 1.0
    for k in range(z.shape[-1]):
        # the right side is evaluated first: the simultaneous update e_q <- e_q + z_k e_{q-1} for all q
        e[1:] += zt[k] * e[:-1]
    return np.moveaxis(e, 0, -1)


def leave_one_out_esp(z: Any, max_order: int) -> np.ndarray:
    """e_q(z without j) for every j and q = 0..max_order, from prefix and suffix tables.

    O(d Q^2) per row, without division.  (The solver needs only a weighted sum over q and uses
    the contracted form described in :mod:`kexplain.shapley.additive`.)

    Parameters
    ----------
    z : array-like of shape (..., d)
    max_order : int

    Returns
    -------
    ndarray of shape (..., d, max_order + 1)

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley.additive import leave_one_out_esp
    >>> leave_one_out_esp(np.array([1.0, 2.0, 3.0]), 2)[0]   # e_q(2, 3)
    array([1., 5., 6.])
    """
    z = np.asarray(z, dtype=np.float64)
    d = z.shape[-1]
    Q = max_order
    lead = z.shape[:-1]
    pre = np.zeros(lead + (d + 1, Q + 1))
    suf = np.zeros(lead + (d + 1, Q + 1))
    pre[..., 0, 0] = 1.0
    suf[..., d, 0] = 1.0
    for k in range(d):
        pre[..., k + 1, :] = pre[..., k, :]
        pre[..., k + 1, 1:] += z[..., k, None] * pre[..., k, :-1]
    for k in range(d - 1, -1, -1):
        suf[..., k, :] = suf[..., k + 1, :]
        suf[..., k, 1:] += z[..., k, None] * suf[..., k + 1, :-1]
    out = np.zeros(lead + (d, Q + 1))
    for a in range(Q + 1):
        # e_q(without j) = sum_a pre[j, a] * suf[j + 1, q - a]
        out[..., a:] += pre[..., :d, a, None] * suf[..., 1:, : Q + 1 - a]
    return out

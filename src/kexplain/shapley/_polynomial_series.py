"""Truncated power series in s: the generating functions of the polynomial-game solver.

E[e^(sV)] = prod_k (1 + t (e^(s delta_k) - 1)) for V a sum of independent two-point variables
(:mod:`kexplain.shapley.polynomial`, module docstring): the product by one player's factor, the
product of two series, and the prefix and suffix products over the players whose products give
the leave-one-out (and, run on, the leave-two-out) moments.
"""

from __future__ import annotations

import numpy as np

# The work arrays keep the power-series axis (and then the feature axis) first, so that every
# coefficient is one contiguous (points, rows) slab: the loops below touch whole slabs.


def _times_factor(series: np.ndarray, egf: np.ndarray, t: float) -> np.ndarray:
    """series * (1 + t (e^(s delta) - 1)), truncated; series (K + 1, ...), egf[m] = delta^m / m! (m >= 1)."""
    out = series.copy()
    K = series.shape[0] - 1
    for m in range(1, K + 1):
        # the factor's s^i coefficient is t delta^i / i! for i >= 1
        acc = egf[1] * series[m - 1]
        for i in range(2, m + 1):
            acc += egf[i] * series[m - i]
        out[m] += t * acc
    return out


def _times_series(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The truncated product of two power series (axis 0: coefficients)."""
    K = u.shape[0] - 1
    out = np.empty(np.broadcast_shapes(u.shape, v.shape))
    for m in range(K + 1):
        acc = u[0] * v[m]
        for i in range(1, m + 1):
            acc += u[i] * v[m - i]
        out[m] = acc
    return out


def _prefix_suffix(egf: np.ndarray, t: float, order: int) -> tuple[np.ndarray, np.ndarray]:
    """Prefix and suffix products of the players' generating functions, order ``order``.

    egf (>= order + 1, d, ...); returns pre, suf of shape (order + 1, d + 1, ...) with pre[:, k]
    the product over players < k and suf[:, k] the product over players >= k.
    """
    d = egf.shape[1]
    shape = (order + 1, d + 1) + egf.shape[2:]
    pre = np.zeros(shape)
    suf = np.zeros(shape)
    pre[0, 0] = 1.0
    suf[0, d] = 1.0
    for k in range(d):
        pre[:, k + 1] = _times_factor(pre[:, k], egf[:, k], t)
        j = d - 1 - k
        suf[:, j] = _times_factor(suf[:, j + 1], egf[:, j], t)
    return pre, suf

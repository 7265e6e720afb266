"""The parts a scale-mixture kernel is written in: one mixture factor and one component.

A :class:`MixtureFactor` is one Matérn or rational quadratic profile of its own scaled squared
distance; a :class:`MixtureComponent` is an amplitude times an RBF times a product of such factors.
``mixture.ScaleMixtureKernel`` is a sum of components; ``kexplain.kernels.mixture`` re-exports both
classes (pickles made when they lived there load, the path resolving to the same class).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class MixtureFactor:
    """One scale-mixture factor exp-mixture(u) of u = sum_j inv_sq_j (x_j - y_j)^2.

    ``family`` is "matern" (``param`` = nu) or "rq" (``param`` = alpha); ``inv_sq`` is 1 / l^2, one
    number or one per feature.
    """

    family: str
    param: float
    inv_sq: Any

    def scaled_sq_dist(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """u(x, y) for every pair of rows, shape (len(X), len(Y))."""
        w = np.broadcast_to(np.asarray(self.inv_sq, dtype=np.float64), (X.shape[1],))
        out = np.empty((X.shape[0], Y.shape[0]))
        # differences, not |a|^2 + |b|^2 - 2ab: the Matérn-1/2 takes a square root, which would turn
        # the cancellation error near u = 0 into errors of 1e-8
        step = max(1, 2**20 // max(1, Y.shape[0] * X.shape[1]))
        for s in range(0, X.shape[0], step):
            diff = X[s : s + step, None, :] - Y[None, :, :]
            out[s : s + step] = (diff * diff) @ w
        return out

    def name(self) -> str:
        """E.g. ``Matern(nu=2.5)``."""
        return f"Matern(nu={self.param:g})" if self.family == "matern" else f"RationalQuadratic(alpha={self.param:g})"


@dataclass(frozen=True)
class MixtureComponent:
    """amplitude * exp(-sum_j rbf_inv_sq_j (x_j - y_j)^2 / 2) * prod_f factor_f(x, y)."""

    amplitude: float
    rbf_inv_sq: Any
    factors: tuple[MixtureFactor, ...]

"""The RBF base kernel made orthogonal to a discrete (weighted empirical) measure, e.g. one feature's
training values: sums over the measure's points are exact, and measures with more than
``MAX_MEASURE_POINTS`` points are compressed to weighted quantile groups.  Imported from
``kexplain.gp.kernels`` (see there for the construction) and ``kexplain.gp``."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._params import check_positive_int
from ._kernel_math import _lengthscale, _sq

#: empirical measures with more support points than this are compressed to equal-weight quantile
#: groups (each represented by its mean), which keeps kernel evaluations O(this) per point
MAX_MEASURE_POINTS = 1000


def _check_measure(points: Any, weights: Any, max_points: Any) -> None:
    """Refuse what is no probability measure: an empty, non-finite or zero-weight one gave NaN
    kernel values, and negative weights a kernel that need not be positive definite, all silently."""
    try:
        p = np.asarray(points, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"points must be a 1-D array of numbers, got {points!r:.80}.") from None
    if p.ndim != 1 or p.size == 0 or not np.all(np.isfinite(p)):
        raise ValueError(f"points must be a non-empty 1-D array of finite numbers, got {points!r:.80}.")
    if weights is not None:
        try:
            w: np.ndarray | None = np.asarray(weights, dtype=np.float64)
        except (TypeError, ValueError):
            w = None
        if w is None or w.shape != p.shape or not np.all(np.isfinite(w)) or np.any(w < 0) or not w.sum() > 0:
            raise ValueError(
                f"weights must hold one finite, non-negative weight per point ({p.size}), not all zero; "
                f"got {weights!r:.80}."
            )
    check_positive_int(max_points, "max_points")


def _compress(values: Any, weights: Any = None, max_points: int = MAX_MEASURE_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """A discrete measure (points, weights); equal-count quantile groups beyond max_points."""
    values = np.asarray(values, dtype=np.float64)
    if weights is None:
        pts, counts = np.unique(values, return_counts=True)
        w = counts / counts.sum()
    else:
        pts, w = values, np.asarray(weights, dtype=np.float64) / np.sum(weights)
    if pts.shape[0] <= max_points:
        return pts, w
    order = np.argsort(pts)
    pts, w = pts[order], w[order]
    groups = np.minimum((np.cumsum(w) - 0.5 * w) * max_points, max_points - 1).astype(int)
    gw = np.bincount(groups, weights=w, minlength=max_points)
    gm = np.bincount(groups, weights=w * pts, minlength=max_points)
    keep = gw > 0
    return gm[keep] / gw[keep], gw[keep] / gw[keep].sum()


class ConstrainedEmpiricalRBF:
    """RBF base kernel made orthogonal to a discrete measure sum_s w_s delta(s).

    Parameters
    ----------
    points : array-like of shape (n,)
        Support of the measure (e.g. a feature's training values).
    weights : array-like of shape (n,), optional
        Their weights (default: the empirical frequencies).
    max_points : int
        Measures with more distinct points are compressed to this many weighted quantile groups.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.gp import ConstrainedEmpiricalRBF
    >>> k = ConstrainedEmpiricalRBF([0.0, 1.0, 3.0])
    >>> bool(np.allclose(k.weights @ k.at_measure(np.array([0.5, 2.0]), 1.0), 0.0))   # integrates to zero
    True
    """

    has_lengthscale = True

    def __init__(self, points: Any, weights: Any = None, max_points: int = MAX_MEASURE_POINTS) -> None:
        _check_measure(points, weights, max_points)
        self.points, self.weights = _compress(points, weights, max_points)

    def _base(self, x: Any, y: Any, s: float) -> np.ndarray:
        return np.exp(-_sq(x, y) / (2 * s))

    def _m(self, x: Any, s: float) -> np.ndarray:
        # a row-wise sum rather than a matrix-vector product: each row's value then does not depend on
        # how many rows are evaluated together (explanations are identical for every n_jobs)
        return (self._base(x, self.points, s) * self.weights).sum(axis=1)

    def _v(self, s: float) -> float:
        return float(self.weights @ self._base(self.points, self.points, s) @ self.weights)

    def k(self, x: Any, y: Any, l: float | None = None) -> np.ndarray:
        """Constrained kernel matrix k~(x_a, y_b), shape (len(x), len(y)).

        Parameters
        ----------
        x : array-like of shape (n,)
            Values of the feature.
        y : array-like of shape (m,)
            Values of the feature to compare them with.
        l : float, optional
            Lengthscale; None uses the kernel's own.

        Returns
        -------
        ndarray of shape (n, m)
            The constrained kernel matrix.
        """
        s = _lengthscale(l)
        return self._base(x, y, s) - np.outer(self._m(x, s), self._m(y, s)) / self._v(s)

    def dk_dlog_l(self, x: Any, y: Any, l: float | None = None) -> np.ndarray:
        """Derivative of ``k(x, y, l)`` in log l.

        Parameters
        ----------
        x : array-like of shape (n,)
            Values of the feature.
        y : array-like of shape (m,)
            Values of the feature to compare them with.
        l : float, optional
            Lengthscale; None uses the kernel's own.

        Returns
        -------
        ndarray of shape (n, m)
            The derivative of ``k(x, y, l)`` with respect to log l.
        """
        s = _lengthscale(l)
        sq = _sq(x, y)
        base = np.exp(-sq / (2 * s)) * sq / s
        kxs = self._base(x, self.points, s)
        kys = self._base(y, self.points, s)
        mx, my = kxs @ self.weights, kys @ self.weights
        dmx = (kxs * _sq(x, self.points) / s) @ self.weights
        dmy = (kys * _sq(y, self.points) / s) @ self.weights
        kss = self._base(self.points, self.points, s)
        v = self.weights @ kss @ self.weights
        dv = self.weights @ (kss * _sq(self.points, self.points) / s) @ self.weights
        return base - (np.outer(dmx, my) + np.outer(mx, dmy)) / v + np.outer(mx, my) * dv / v**2

    def diag(self, x: Any, l: float | None = None) -> np.ndarray:
        """k~(x_a, x_a) for each a.

        Parameters
        ----------
        x : array-like of shape (n,)
            Values of the feature.
        l : float, optional
            Lengthscale; None uses the kernel's own.

        Returns
        -------
        ndarray of shape (n,)
            The diagonal of ``k(x, x, l)``.
        """
        s = _lengthscale(l)
        return 1.0 - self._m(x, s) ** 2 / self._v(s)

    def at_measure(self, y: Any, l: float | None = None) -> np.ndarray:
        """k~(s, y) for the measure's points s: shape (n_points, len(y)).

        Parameters
        ----------
        y : array-like of shape (m,)
            Values of the feature.
        l : float, optional
            Lengthscale; None uses the kernel's own.

        Returns
        -------
        ndarray of shape (n_points, m)
            k~(s, y) for the measure's points s.
        """
        return self.k(self.points, y, l)

    def gamma(self, a: Any, b: Any, l: float | None = None) -> np.ndarray:
        """sum_s w_s k~(s, a) k~(s, b): shape (len(a), len(b)).

        Parameters
        ----------
        a : array-like of shape (n,)
            Values of the feature.
        b : array-like of shape (m,)
            Values of the feature.
        l : float, optional
            Lengthscale; None uses the kernel's own.

        Returns
        -------
        ndarray of shape (n, m)
            The integral of k~(s, a) k~(s, b) under the input measure.
        """
        ka = self.at_measure(a, l)
        kb = ka if b is a else self.at_measure(b, l)
        return (ka * self.weights[:, None]).T @ kb

    def sample(self, n: int, rng: np.random.RandomState) -> np.ndarray:
        """n draws from the measure.

        Parameters
        ----------
        n : int
            Number of draws.
        rng : numpy.random.RandomState
            Source of the draws.

        Returns
        -------
        ndarray of shape (n,)
            Draws from the input measure.
        """
        return rng.choice(self.points, size=n, p=self.weights)

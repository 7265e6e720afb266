"""One-dimensional base kernels made orthogonal to an input measure (constrained kernels).

From "Exact Shapley Value for Local and Global Explanation of Additive Gaussian Processes",
section 2.2 (equation 4).  For a base kernel k and a probability measure p on one feature, the
constrained kernel is

    k~(x, y) = k(x, y) - m(x) m(y) / v,   m(x) = int k(x, s) dp(s),   v = int int k(s, t) dp(s) dp(t),

so that int k~(x, y) dp(x) = 0 for every y: every GP sample path built from it has mean zero under
p, which is what makes the additive components a functional ANOVA decomposition.

Each class below fixes a base kernel and a measure and gives, for a lengthscale l,
``k(x, y, l)`` (the constrained kernel matrix), ``dk_dlog_l`` (its derivative for the marginal
likelihood), ``diag`` and ``gamma(a, b, l)`` = int k~(s, a) k~(s, b) dp(s), the matrix behind the
variance of a component (section 4, Theorem 1).

- :class:`ConstrainedGaussianRBF`: RBF base kernel under N(mu, delta^2); every integral in closed form.
- :class:`ConstrainedEmpiricalRBF`: RBF base kernel under a discrete (weighted empirical) measure;
  sums are exact.
- :class:`ConstrainedCategorical`: the delta kernel 1[x = y] on integer category codes under the
  category frequencies (a discrete measure); it has no lengthscale.  (Not to be confused with
  :class:`kexplain.kernels.Categorical`, the unconstrained per-feature kernel of product-kernel
  models.)
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

#: empirical measures with more support points than this are compressed to equal-weight quantile
#: groups (each represented by its mean), which keeps kernel evaluations O(this) per point
MAX_MEASURE_POINTS = 1000


class ConstrainedKernel(Protocol):
    """What an OAK model needs of a constrained base kernel (for type checking)."""

    has_lengthscale: bool

    def k(self, x: Any, y: Any, l: float | None = None) -> np.ndarray: ...

    def dk_dlog_l(self, x: Any, y: Any, l: float | None = None) -> np.ndarray: ...

    def diag(self, x: Any, l: float | None = None) -> np.ndarray: ...

    def gamma(self, a: Any, b: Any, l: float | None = None) -> np.ndarray: ...

    def sample(self, n: int, rng: np.random.RandomState) -> np.ndarray: ...


def _sq(x: Any, y: Any) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    return (x[:, None] - y[None, :]) ** 2


def _lengthscale(l: float | None) -> float:
    if l is None:
        raise ValueError("this kernel needs a lengthscale l.")
    return float(l) ** 2


#: above this ratio l / delta, ConstrainedGaussianRBF.gamma integrates by quadrature (its closed form
#: loses about 4 log10(l / delta) digits to cancellation: 7e-13 at 2, 1e-11 at 3)
GAMMA_QUADRATURE_RATIO = 1.5
#: Gauss-Hermite nodes of that quadrature (the integrand is entire and smooth on the measure's scale)
GAMMA_QUADRATURE_NODES = 120


def _hermite_rule() -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of N(0, 1) (probabilists' Gauss-Hermite, weights summing to one), built once."""
    rule = _HERMITE_CACHE.get(GAMMA_QUADRATURE_NODES)
    if rule is None:
        u, w = np.polynomial.hermite_e.hermegauss(GAMMA_QUADRATURE_NODES)
        rule = _HERMITE_CACHE[GAMMA_QUADRATURE_NODES] = (u, w / w.sum())
    return rule


_HERMITE_CACHE: dict[int, tuple[np.ndarray, np.ndarray]] = {}


class ConstrainedGaussianRBF:
    """RBF base kernel exp(-(x - y)^2 / (2 l^2)) made orthogonal to N(mu, delta^2).

    Parameters
    ----------
    mu, delta : float
        Mean and (positive) standard deviation of the Gaussian input measure.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.gp import ConstrainedGaussianRBF
    >>> k = ConstrainedGaussianRBF(0.0, 1.0)
    >>> x, w = np.polynomial.hermite_e.hermegauss(60)             # nodes of N(0, 1)
    >>> abs(w @ k.k(x, np.array([0.3]), 0.8) / w.sum()).max() < 1e-12
    np.True_
    """

    has_lengthscale = True

    def __init__(self, mu: float, delta: float) -> None:
        if not (np.isfinite(mu) and np.isfinite(delta) and delta > 0):
            raise ValueError(f"the Gaussian measure needs a finite mean and a positive scale, got {mu}, {delta}.")
        self.mu = float(mu)
        self.delta2 = float(delta) ** 2

    # m(x) = sqrt(s / A) exp(-(x - mu)^2 / (2 A)), A = s + delta^2, s = l^2
    def _m(self, x: Any, s: float) -> np.ndarray:
        A = s + self.delta2
        return np.sqrt(s / A) * np.exp(-((np.asarray(x, dtype=np.float64) - self.mu) ** 2) / (2 * A))

    def _dlog_m(self, x: Any, s: float) -> np.ndarray:
        A = s + self.delta2
        return 1.0 - s / A + s * (np.asarray(x, dtype=np.float64) - self.mu) ** 2 / A**2

    def _v(self, s: float) -> float:
        return float(np.sqrt(s / (s + 2 * self.delta2)))

    def _dlog_v(self, s: float) -> float:
        return 1.0 - s / (s + 2 * self.delta2)

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
        return np.exp(-_sq(x, y) / (2 * s)) - np.outer(self._m(x, s), self._m(y, s)) / self._v(s)

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
        mm = np.outer(self._m(x, s), self._m(y, s)) / self._v(s)
        return base - mm * (self._dlog_m(x, s)[:, None] + self._dlog_m(y, s)[None, :] - self._dlog_v(s))

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

    def _k_tilde_units(self, u: np.ndarray, w: np.ndarray, t: float) -> np.ndarray:
        """k~ at standardised inputs u = (x - mu) / delta, w (outer), t = delta^2 / l^2, without cancellation.

        k~ = e^A - e^B with A = -t (u - w)^2 / 2 and B = log(m(u) m(w) / v); the difference is
        e^B expm1(A - B) and A - B = t u w - t^2 (u^2 + w^2) / (2 (1 + t)) + log1p(t^2 / (1 + 2 t)) / 2
        has no cancelling O(1) parts ((1 + t)^2 / (1 + 2 t) = 1 + t^2 / (1 + 2 t)), so k~ keeps its
        relative accuracy when it is small (long length scales: k~ = O(t)).
        """
        uu, ww = u[:, None], w[None, :]
        AmB = t * uu * ww - t * t * (uu**2 + ww**2) / (2 * (1 + t)) + 0.5 * np.log1p(t * t / (1 + 2 * t))
        B = -np.log1p(t) - t * (uu**2 + ww**2) / (2 * (1 + t)) + 0.5 * np.log1p(2 * t)
        return np.asarray(np.exp(B) * np.expm1(AmB))

    def gamma(self, a: Any, b: Any, l: float | None = None) -> np.ndarray:
        """int k~(x, a) k~(x, b) dN(x; mu, delta^2): shape (len(a), len(b)).

        In closed form for l <= ``GAMMA_QUADRATURE_RATIO`` * delta; beyond, where the closed form
        subtracts O(1) terms to leave an O((delta / l)^4) result (relative error 2e-8 at
        l / delta = 10, none left at 1e3), by Gauss-Hermite quadrature of k~ k~ computed without
        cancellation (``_k_tilde_units``): relative error within 1e-12 of 50-digit arithmetic
        up to l / delta = 1e5 (tests/test_reliability_numerics.py).

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
        s = _lengthscale(l)
        if s > (GAMMA_QUADRATURE_RATIO**2) * self.delta2:
            return self._gamma_quadrature(a, b, s)
        return self._gamma_closed(a, b, s)

    def _gamma_quadrature(self, a: Any, b: Any, s: float) -> np.ndarray:
        delta = np.sqrt(self.delta2)
        t = self.delta2 / s
        u, wq = _hermite_rule()
        wa = (np.asarray(a, dtype=np.float64) - self.mu) / delta
        wb = (np.asarray(b, dtype=np.float64) - self.mu) / delta
        Ka = self._k_tilde_units(u, wa, t)  # (nodes, len(a))
        Kb = Ka if (wb.shape == wa.shape and np.array_equal(wa, wb)) else self._k_tilde_units(u, wb, t)
        return np.asarray((Ka * wq[:, None]).T @ Kb)

    def _gamma_closed(self, a: Any, b: Any, s: float) -> np.ndarray:
        d2 = self.delta2
        a = np.asarray(a, dtype=np.float64)
        b = np.asarray(b, dtype=np.float64)
        # int k(x, a) k(x, b) dp = exp(-(a - b)^2 / (4 s)) sqrt(s / (s + 2 d2)) exp(-(c - mu)^2 / (s + 2 d2))
        c = 0.5 * (a[:, None] + b[None, :])
        J = np.exp(-_sq(a, b) / (4 * s)) * np.sqrt(s / (s + 2 * d2)) * np.exp(-((c - self.mu) ** 2) / (s + 2 * d2))
        # h(y) = int m(x) k(x, y) dp; m(x) N(x; mu, d2) = sqrt(E / d2) N(x; mu, E), 1/E = 1/A + 1/d2
        A = s + d2
        E = 1.0 / (1.0 / A + 1.0 / d2)
        scale = np.sqrt(s / A) * np.sqrt(E / d2) * np.sqrt(s / (s + E))
        ha = scale * np.exp(-((a - self.mu) ** 2) / (2 * (s + E)))
        hb = scale * np.exp(-((b - self.mu) ** 2) / (2 * (s + E)))
        M2 = (s / A) * np.sqrt(A / (A + 2 * d2))  # int m(x)^2 dp
        v = self._v(s)
        ma, mb = self._m(a, s), self._m(b, s)
        return J - (np.outer(ma, hb) + np.outer(ha, mb)) / v + np.outer(ma, mb) * M2 / v**2

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
        return self.mu + np.sqrt(self.delta2) * rng.standard_normal(n)


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


class ConstrainedCategorical:
    """Delta kernel 1[x = y] on codes 0..L-1 made orthogonal to the category probabilities.

    The base kernel of a categorical feature of an OAK model under its discrete measure.  Codes
    outside 0..L-1 (categories not seen in training) have k(x, y) = 0 for y != x, so they get
    m(x) = 0 and a zero constrained kernel against every seen category.  It has no lengthscale
    (``l`` is accepted and ignored).

    Parameters
    ----------
    probs : array-like of shape (L,)
        Probability of each category code.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.gp import ConstrainedCategorical
    >>> k = ConstrainedCategorical([0.25, 0.75])
    >>> k.k([0, 1], [0, 1])
    array([[ 0.9, -0.3],
           [-0.3,  0.1]])
    >>> bool(np.allclose(k.probs @ k.k([0, 1], [0, 1]), 0.0))   # integrates to zero
    True
    """

    has_lengthscale = False

    def __init__(self, probs: Any) -> None:
        p = np.asarray(probs, dtype=np.float64)
        if p.ndim != 1 or p.size < 1 or np.any(p < 0) or not np.isclose(p.sum(), 1.0):
            raise ValueError("probs must be a 1-D probability vector over the categories.")
        self.probs = p
        self.v = float(p @ p)

    def _codes(self, x: Any) -> np.ndarray:
        return np.asarray(x, dtype=np.float64).astype(np.int64)

    def _m(self, x: Any) -> np.ndarray:
        c = self._codes(x)
        ok = (c >= 0) & (c < self.probs.size)
        return np.where(ok, self.probs[np.clip(c, 0, self.probs.size - 1)], 0.0)

    def k(self, x: Any, y: Any, l: float | None = None) -> np.ndarray:
        """Constrained kernel matrix k~(x_a, y_b), shape (len(x), len(y)).

        Parameters
        ----------
        x : array-like of shape (n,)
            Values of the feature.
        y : array-like of shape (m,)
            Values of the feature to compare them with.
        l : float, optional
            Ignored: the kernel has no lengthscale (kept for the common signature).

        Returns
        -------
        ndarray of shape (n, m)
            The constrained kernel matrix.
        """
        cx, cy = self._codes(x), self._codes(y)
        return (cx[:, None] == cy[None, :]).astype(np.float64) - np.outer(self._m(x), self._m(y)) / self.v

    def dk_dlog_l(self, x: Any, y: Any, l: float | None = None) -> np.ndarray:
        """Zero: the kernel has no lengthscale.

        Parameters
        ----------
        x : array-like of shape (n,)
            Values of the feature.
        y : array-like of shape (m,)
            Values of the feature to compare them with.
        l : float, optional
            Ignored: the kernel has no lengthscale (kept for the common signature).

        Returns
        -------
        ndarray of shape (n, m)
            The derivative of ``k(x, y, l)`` with respect to log l.
        """
        return np.zeros((len(x), len(y)))

    def diag(self, x: Any, l: float | None = None) -> np.ndarray:
        """k~(x_a, x_a) for each a.

        Parameters
        ----------
        x : array-like of shape (n,)
            Values of the feature.
        l : float, optional
            Ignored: the kernel has no lengthscale (kept for the common signature).

        Returns
        -------
        ndarray of shape (n,)
            The diagonal of ``k(x, x, l)``.
        """
        return 1.0 - self._m(x) ** 2 / self.v

    def levels(self) -> np.ndarray:
        """The category codes 0..L-1 (the support of the measure), as floats.

        Returns
        -------
        ndarray of shape (L,)
            The category codes 0..L-1, as floats.
        """
        return np.arange(self.probs.size, dtype=np.float64)

    def gamma(self, a: Any, b: Any, l: float | None = None) -> np.ndarray:
        """sum_c p_c k~(c, a) k~(c, b): shape (len(a), len(b)).

        Parameters
        ----------
        a : array-like of shape (n,)
            Values of the feature.
        b : array-like of shape (m,)
            Values of the feature.
        l : float, optional
            Ignored: the kernel has no lengthscale (kept for the common signature).

        Returns
        -------
        ndarray of shape (n, m)
            The integral of k~(s, a) k~(s, b) under the input measure.
        """
        ka = self.k(self.levels(), a)
        kb = self.k(self.levels(), b)
        return (ka * self.probs[:, None]).T @ kb

    def sample(self, n: int, rng: np.random.RandomState) -> np.ndarray:
        """n draws from the measure (codes as floats).

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
        return rng.choice(self.probs.size, size=n, p=self.probs).astype(np.float64)

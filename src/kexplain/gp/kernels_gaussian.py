"""The RBF base kernel made orthogonal to a Gaussian input measure N(mu, delta^2): every integral of
the constrained kernel in closed form, and Gauss-Hermite quadrature of its Gamma matrix where the
closed form loses digits to cancellation (long lengthscales).  Imported from ``kexplain.gp.kernels``
(see there for the construction, equation 4 of the additive-GP paper) and ``kexplain.gp``."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._kernel_math import _lengthscale, _sq

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

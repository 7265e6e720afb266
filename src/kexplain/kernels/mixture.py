"""Matérn and rational quadratic kernels as positive sums of RBF product kernels.

A stationary kernel of the scaled squared distance u = ||(x - y) / l||^2 that is a Gaussian scale
mixture, k(u) = E exp(-tau u / 2), becomes a sum of Gaussians once the mixing law is discretised,
k~(u) = sum_q w_q exp(-tau_q u / 2) with w_q > 0.  Each Gaussian is an RBF kernel with length scales
l / sqrt(tau_q), a product over features, so a model built on k~ is a sum of product-kernel models
and every game of the product-kernel engine solves it exactly.  The rational quadratic is the
Gamma(alpha, rate alpha) mixture over tau; the Matérn-nu is tau = nu / t with t ~ Gamma(nu, 1)
(derivations and the quadrature in ``kernels/_mixture_quadrature.py``).

Because the weights are positive, k~ is itself a positive-definite kernel: a model on k~ is a
genuine kernel model, and its Shapley values are *exact* Shapley values of a model that is within
``error * sum_i |c_i|`` of the user's model everywhere on the data's range.  The discretisation is
chosen for the range of scaled squared distances the data can produce (``span``: the width of the
data's bounding box per feature), and the uniform error ``error`` is measured on that range, not
assumed.

The kernel's parts (:class:`MixtureFactor`, :class:`MixtureComponent`) live in ``_mixture_factors``,
its settings (:data:`DEFAULT_KERNEL_TOL`, :func:`check_kernel_tol`, :func:`data_span` and the
parameter checks) in ``_mixture_params``; every one of those names is importable from here as well.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from numbers import Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

# the parts and the settings live in siblings; every name is imported here too, so the module's
# old names (and pickles of MixtureFactor and MixtureComponent made when they lived here) resolve
from ._mixture_factors import MixtureComponent, MixtureFactor
from ._mixture_params import (  # noqa: F401 - re-exported
    DEFAULT_KERNEL_TOL,
    DEFAULT_MAX_SQ_DIST,
    _check_inv_sq,
    _check_shape_param,
    _sq_range,
    check_kernel_tol,
    data_span,
)
from ._mixture_quadrature import cached_mixture_rule, exact_profile
from .base import RBF, SumKernel, _check_amplitude


class ScaleMixtureKernel(SumKernel):
    """Matérn and rational quadratic kernels as a positive sum of RBF product kernels.

    Also their products and sums with RBF kernels, within a measured uniform error.  The kernel
    is ``sum_c amplitude_c * RBF_c(x, y) * prod_f k_f(u_f(x, y))`` with each ``k_f`` a
    Matérn or rational quadratic profile of its own scaled squared distance u_f (scikit-learn's
    conventions: Matérn 2^(1-nu)/Gamma(nu) z^nu K_nu(z) with z = sqrt(2 nu u); rational quadratic
    (1 + u / (2 alpha))^(-alpha)).  Its ``terms`` are the RBF kernels of the discretised mixtures
    (products of factors multiply out into one RBF per combination of nodes), chosen so that the
    uniform error on the data's range is at most ``tol`` per factor; ``error`` is the bound on
    ``|k~(x, y) - k(x, y)|`` actually achieved, measured on that range.  Build one with
    :meth:`matern`, :meth:`rational_quadratic` or :func:`kexplain.kernels.from_sklearn`.

    Parameters
    ----------
    components : sequence of MixtureComponent
        The terms amplitude_c * RBF_c * prod_f k_f of the kernel.
    tol : float, optional
        Target uniform error of each mixture factor, in (0, 1); default :data:`DEFAULT_KERNEL_TOL`.
    span : array-like of shape (d,), optional
        Width of the data's bounding box per feature (max - min); every pair of points in the box
        has scaled squared distance at most sum_j span_j^2 / l_j^2.  None: a range of
        :data:`DEFAULT_MAX_SQ_DIST` (points up to 100 length scales apart).

    Attributes
    ----------
    error : float
        Bound on ``|k~(x, y) - k(x, y)|`` for x, y in the box (amplitudes included): the sum over
        components of amplitude * (prod_f (1 + eps_f) - 1), with eps_f the measured errors.
    rules : list of list of MixtureRule
        The discretisation of every factor, per component.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.kernels import ScaleMixtureKernel
    >>> k = ScaleMixtureKernel.matern(lengthscale=1.0, nu=2.5)
    >>> X = np.array([[0.0, 0.0], [1.0, 0.5]])
    >>> np.round(k(X), 6)
    array([[1.      , 0.458308],
           [0.458308, 1.      ]])
    >>> bool(np.allclose(k(X), k.exact(X), atol=1e-12)), k.error <= 1e-12
    (True, True)
    """

    def __init__(
        self,
        components: Sequence[MixtureComponent],
        *,
        tol: float | None = None,
        span: ArrayLike | None = None,
    ) -> None:
        comps = list(components)
        if not comps or not all(isinstance(c, MixtureComponent) for c in comps):
            raise TypeError("components must be a non-empty sequence of MixtureComponent.")
        self.components = comps
        self.tol = check_kernel_tol(tol, "tol")
        if span is not None:
            sp = np.asarray(span, dtype=np.float64)
            if sp.ndim != 1 or not np.all(np.isfinite(sp)) or np.any(sp < 0):
                raise ValueError(f"span must be a 1-D array of non-negative finite widths, got {span!r}.")
            self.span: np.ndarray | None = sp
        else:
            self.span = None
        terms: list[Any] = []
        self.rules: list[list[Any]] = []
        error = 0.0
        for comp in comps:
            rules = [
                cached_mixture_rule(f.family, f.param, _sq_range(f.inv_sq, self.span), self.tol) for f in comp.factors
            ]
            self.rules.append(rules)
            error += comp.amplitude * (float(np.prod([1.0 + r.error for r in rules])) - 1.0)
            for nodes in itertools.product(*[range(r.n_terms) for r in rules]):
                inv_sq = np.asarray(comp.rbf_inv_sq, dtype=np.float64)
                amp = comp.amplitude
                for f, r, q in zip(comp.factors, rules, nodes):
                    inv_sq = inv_sq + r.precisions[q] * np.asarray(f.inv_sq, dtype=np.float64)
                    amp *= float(r.weights[q])
                ls = 1.0 / np.sqrt(inv_sq)
                terms.append(RBF(lengthscale=float(ls) if ls.ndim == 0 else ls, amplitude=amp))
        self.error = float(error)
        super().__init__(terms)

    # -- constructors ------------------------------------------------------------------------
    @classmethod
    def matern(
        cls,
        lengthscale: float | ArrayLike = 1.0,
        nu: float = 1.5,
        amplitude: float = 1.0,
        *,
        tol: float | None = None,
        span: ArrayLike | None = None,
    ) -> ScaleMixtureKernel:
        """The Matérn kernel of scikit-learn, ``amplitude * Matern(length_scale=lengthscale, nu=nu)``.

        Parameters
        ----------
        lengthscale : float or array of shape (d,)
            One positive length scale, or one per feature (ARD).
        nu : float
            Positive smoothness; ``inf`` gives the RBF kernel.
        amplitude : float
            Positive factor.
        tol : float, optional
            Target uniform error of each mixture factor (see :class:`ScaleMixtureKernel`).
        span : array-like of shape (d,), optional
            Width of the data's bounding box per feature (see :class:`ScaleMixtureKernel`).

        Returns
        -------
        ScaleMixtureKernel

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.kernels import ScaleMixtureKernel
        >>> k = ScaleMixtureKernel.matern(lengthscale=[1.0, 2.0], nu=0.5)
        >>> X = np.array([[0.0, 0.0], [3.0, 4.0]])
        >>> round(float(k(X)[0, 1]), 6), round(float(np.exp(-np.sqrt(13.0))), 6)
        (0.027172, 0.027172)
        """
        inv_sq = _check_inv_sq(lengthscale, "lengthscale")
        nu = _check_shape_param(nu, "nu", allow_inf=True)
        amp = _check_amplitude(amplitude)
        if nu == np.inf:
            return cls([MixtureComponent(amp, inv_sq, ())], tol=tol, span=span)
        return cls([MixtureComponent(amp, 0.0 * inv_sq, (MixtureFactor("matern", nu, inv_sq),))], tol=tol, span=span)

    @classmethod
    def rational_quadratic(
        cls,
        lengthscale: float | ArrayLike = 1.0,
        alpha: float = 1.0,
        amplitude: float = 1.0,
        *,
        tol: float | None = None,
        span: ArrayLike | None = None,
    ) -> ScaleMixtureKernel:
        """The rational quadratic kernel ``amplitude * (1 + ||(x - y) / l||^2 / (2 alpha))^(-alpha)``.

        Parameters
        ----------
        lengthscale : float or array of shape (d,)
            One positive length scale, or one per feature.
        alpha : float
            Positive scale-mixture parameter.
        amplitude : float
            Positive factor.
        tol : float, optional
            Target uniform error of each mixture factor (see :class:`ScaleMixtureKernel`).
        span : array-like of shape (d,), optional
            Width of the data's bounding box per feature (see :class:`ScaleMixtureKernel`).

        Returns
        -------
        ScaleMixtureKernel

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.kernels import ScaleMixtureKernel
        >>> k = ScaleMixtureKernel.rational_quadratic(lengthscale=1.0, alpha=0.5)
        >>> round(float(k(np.array([[0.0], [1.0]]))[0, 1]), 6), round(2.0**-0.5, 6)
        (0.707107, 0.707107)
        """
        inv_sq = _check_inv_sq(lengthscale, "lengthscale")
        alpha = _check_shape_param(alpha, "alpha", allow_inf=False)
        amp = _check_amplitude(amplitude)
        return cls([MixtureComponent(amp, 0.0 * inv_sq, (MixtureFactor("rq", alpha, inv_sq),))], tol=tol, span=span)

    # -- the data's range --------------------------------------------------------------------
    def with_span(self, span: ArrayLike | None, tol: float | None = None) -> ScaleMixtureKernel:
        """The same kernel discretised for a bounding box of widths ``span`` (and tolerance ``tol``).

        Parameters
        ----------
        span : array-like of shape (d,) or None
            Width of the data's bounding box per feature (None: the default range).
        tol : float, optional
            Target uniform error of each factor; None keeps the kernel's.

        Returns
        -------
        ScaleMixtureKernel
            The kernel discretised for that range.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.kernels import ScaleMixtureKernel
        >>> k = ScaleMixtureKernel.rational_quadratic(1.0, alpha=0.3)
        >>> k.with_span(np.array([2.0, 2.0])).rules[0][0].max_sq_dist
        8.0
        """
        return ScaleMixtureKernel(self.components, tol=self.tol if tol is None else tol, span=span)

    def max_sq_dists(self) -> list[list[float]]:
        """The range [0, R] of each factor's scaled squared distance its discretisation covers.

        Returns
        -------
        list of list of float
            R for each factor of each component.
        """
        return [[r.max_sq_dist for r in rules] for rules in self.rules]

    def exact(self, X: ArrayLike, Y: ArrayLike | None = None) -> np.ndarray:
        """The Gram matrix of the kernel itself (not of its discretisation), shape (len(X), len(Y)).

        Parameters
        ----------
        X : array-like of shape (n, d)
            Rows.
        Y : array-like of shape (m, d), optional
            Second set of rows; None means X.

        Returns
        -------
        ndarray of shape (n, m)
            The exact Gram matrix.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.kernels import ScaleMixtureKernel
        >>> k = ScaleMixtureKernel.matern(lengthscale=1.0, nu=1.5)
        >>> z = np.sqrt(3.0)
        >>> bool(np.isclose(k.exact(np.zeros((1, 1)), np.ones((1, 1)))[0, 0], (1 + z) * np.exp(-z)))
        True
        """
        Xa = np.atleast_2d(np.asarray(X, dtype=np.float64))
        Ya = Xa if Y is None else np.atleast_2d(np.asarray(Y, dtype=np.float64))
        out = np.zeros((Xa.shape[0], Ya.shape[0]))
        for comp in self.components:
            part = comp.amplitude * np.exp(-0.5 * MixtureFactor("", 0.0, comp.rbf_inv_sq).scaled_sq_dist(Xa, Ya))
            for f in comp.factors:
                part = part * exact_profile(f.family, f.param, f.scaled_sq_dist(Xa, Ya))
            out += part
        return out

    # -- algebra and rescaling ---------------------------------------------------------------
    def rescaled(self, scale: ArrayLike) -> ScaleMixtureKernel:
        """The kernel on inputs x whose scaled version ``scale * x + shift`` this kernel sees.

        Parameters
        ----------
        scale : ndarray of shape (d,)
            Per-feature factor of an affine scaler, x_scaled = scale * x + shift.

        Returns
        -------
        Kernel
            The kernel that gives, on the unscaled inputs, the values this kernel gives on the
            scaled ones.
        """
        s2 = np.asarray(scale, dtype=np.float64) ** 2

        def _r(v: Any) -> Any:
            return np.asarray(v, dtype=np.float64) * s2

        comps = [
            MixtureComponent(
                c.amplitude, _r(c.rbf_inv_sq), tuple(MixtureFactor(f.family, f.param, _r(f.inv_sq)) for f in c.factors)
            )
            for c in self.components
        ]
        span = None if self.span is None else self.span / np.abs(np.asarray(scale, dtype=np.float64))
        return ScaleMixtureKernel(comps, tol=self.tol, span=span)

    def __mul__(self, other: Any) -> Any:
        if isinstance(other, Real) and not isinstance(other, bool):
            factor = float(other)
            comps = [
                MixtureComponent(_check_amplitude(c.amplitude * factor), c.rbf_inv_sq, c.factors)
                for c in self.components
            ]
            return ScaleMixtureKernel(comps, tol=self.tol, span=self.span)
        return NotImplemented

    __rmul__ = __mul__

    @property
    def n_mixture_terms(self) -> int:
        """Number of RBF terms of the discretisation."""
        return len(self.terms)

    def __repr__(self) -> str:
        parts = []
        for c in self.components:
            names = [f.name() for f in c.factors]
            if np.any(np.asarray(c.rbf_inv_sq) > 0):
                names.append("RBF")
            amp = "" if c.amplitude == 1.0 else f"{c.amplitude:.4g} * "
            parts.append(amp + " * ".join(names))
        return f"ScaleMixtureKernel({' + '.join(parts)}; {len(self.terms)} RBF terms, error={self.error:.2g})"

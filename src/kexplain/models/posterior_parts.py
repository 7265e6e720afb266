"""GPPosterior: the parts of a Gaussian-process posterior, and its mean, covariance and rounding bounds.

The parts are those of :mod:`kexplain.models.posterior`'s formulas (training inputs, kernel,
coefficients, the precision A or a Cholesky factor of its inverse, offset, scale, constant and
noise); the factors of A and their rounding constants are in
:mod:`kexplain.models.posterior_factors`.  This module holds the parts, their checks, the prior
and the mean; what is computed from the factor of A (whitening, rounding bounds, covariance,
variance) is the mix-in ``_PosteriorDataTerm`` of ``_posterior_data_term.py``, a base of
:class:`GPPosterior`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..kernels.base import Kernel, SumKernel
from ._posterior_data_term import _PosteriorDataTerm
from .expansion import KernelExpansion
from .posterior_factors import _BOUND_FACTOR as _BOUND_FACTOR
from .posterior_factors import _EPS as _EPS
from .posterior_factors import _cholesky_factor, _precision_factor, _real_array


@dataclass(eq=False)
class GPPosterior(_PosteriorDataTerm):
    """A Gaussian-process posterior of a latent function on a product (or sum of products) kernel.

    mean(x) = offset + scale * sum_i coef_i (k(x, X_i) + constant) and
    cov(x, x') = scale^2 [k_f(x, x') - k_f(x, X) A k_f(X, x')] with k_f = k + constant and
    A = ``precision``.  Build it with :func:`gp_posterior` from a fitted scikit-learn GP, or
    directly for any kernel model with a Gaussian posterior: for a KernelExpansion ``em`` fitted by
    kernel ridge / GP regression with noise variance s^2 on training inputs ``em.X_ref``,
    ``GPPosterior(em.X_ref, em.kernel, em.coef[:, 0], np.linalg.inv(K + s^2 I))`` (K the kernel's
    Gram matrix of the training inputs, ``offset`` the expansion's intercept).

    Parameters
    ----------
    X_train : array-like of shape (n, d)
        Training inputs.
    kernel : kexplain Kernel or SumKernel
        The prior kernel of f without its constant part, amplitude included.
    coef : array-like of shape (n,)
        Weights of the posterior mean (``alpha_`` of a GPR, y - pi of a Laplace GPC).
    precision : array-like of shape (n, n), optional
        The symmetric positive semi-definite matrix A of the posterior covariance.  Give either
        ``precision`` or ``cholesky``; None when the posterior was built from ``cholesky`` (see
        :meth:`precision_matrix`).
    offset : float
        Added to the mean (``normalize_y``'s training mean).
    scale : float
        Multiplies the mean and the standard deviation (``normalize_y``'s training std).
    constant : float
        Constant part of the prior kernel (a scikit-learn ``ConstantKernel`` term); it moves base
        values and predictions, never Shapley values.
    noise_variance : float
        Variance of the observation noise in the units of the kernel (before ``scale``), for
        explanations of the noisy observation y = f + noise.
    output : str
        What f is, in words (the ``output`` of the explanations).
    feature_names : sequence of str, optional
        Names of the d features (default x0..x{d-1}).
    cholesky : array-like of shape (n, n), optional
        A lower-triangular L with A = D (L L^T)^{-1} D (D = ``diag(cholesky_scale)``, default the
        identity): the Cholesky factor of K + s^2 I a GaussianProcessRegressor holds (``L_``), or
        of B = I + W^{1/2} K W^{1/2} of a Laplace classifier with D = W^{1/2}.  The numerically
        stable form: the data term k(x, X) A k(X, x') is computed as V^T V' with
        V = L^{-1} D k(X, x) (a triangular solve), never through an explicit inverse, so that it
        cannot exceed the prior term by more than rounding.
    cholesky_scale : array-like of shape (n,), optional
        The diagonal of D (positive), with ``cholesky`` only.
    sample_noise : array-like of shape (n,), optional
        Per-training-sample noise variances (a GaussianProcessRegressor's ``alpha`` array): the
        noise level is known only at the training inputs, so ``noisy=True`` is refused.

    Notes
    -----
    Accuracy: every result that involves the data term carries a rounding bound, computed from
    the weights u = A k(X, x) the data term uses (``error_radius``): the data term of a pair
    (x, x') is accurate to r(x) r(x') with r(x)^2 = c sqrt(n) eps (||B|| ||u||^2 + ||D k(X, x)||^2 / ||B||),
    ||B|| bounded by ||L||_F^2: the backward errors of the Cholesky factorisation and of the
    solves (Higham, 2002, "Accuracy and Stability of Numerical Algorithms", theorems 10.3 and
    8.5) with the probabilistic constant sqrt(n) eps in place of the worst case n eps (Higham &
    Mary, 2019, "A new approach to probabilistic rounding error analysis"), c = 8.  Against
    60-digit arithmetic on near-singular fits (condition number 1e16-1e18) the bound held with a
    margin of 10-1000.  For a
    near-interpolating fit (condition number of K + s^2 I near 1 / eps) a variance far below eps
    times the prior variance cannot be resolved in double precision: the explainers warn
    (:class:`kexplain.exceptions.AccuracyWarning`) and record the bound.

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> X = np.array([[0.0, 0.0], [1.0, 0.5]])
    >>> k = kx.kernels.RBF(1.0)
    >>> A = np.linalg.inv(k(X) + 0.1 * np.eye(2))
    >>> post = kx.models.GPPosterior(X, k, A @ np.array([1.0, -1.0]), A)
    >>> np.round(post.mean(X), 3), np.round(post.variance(X), 3)
    (array([ 0.823, -0.823]), array([0.088, 0.088]))
    """

    X_train: Any
    kernel: Kernel | SumKernel
    coef: Any
    precision: Any = None
    offset: float = 0.0
    scale: float = 1.0
    constant: float = 0.0
    noise_variance: float = 0.0
    output: str = "latent f of a GPPosterior"
    feature_names: Sequence[str] | None = None
    cholesky: Any = None
    cholesky_scale: Any = None
    sample_noise: Any = None

    def __post_init__(self) -> None:
        if not isinstance(self.kernel, (Kernel, SumKernel)):
            raise TypeError(
                "kernel must be a kexplain kernel (RBF, ..., ProductKernel, SumKernel), got "
                f"{type(self.kernel).__name__}; "
                "convert a scikit-learn kernel with kx.kernels.from_sklearn."
            )
        coef = _real_array(self.coef, "coef")
        # the expansion validates X_train against the kernel and coef against X_train
        em = KernelExpansion(self.X_train, coef, self.kernel, feature_names=self.feature_names)
        if coef.ndim != 1:
            raise ValueError(f"coef must have shape (n,) (one output), got shape {coef.shape}.")
        n = em.X_ref.shape[0]
        if (self.precision is None) == (self.cholesky is None):
            raise ValueError(
                "give exactly one of precision (the matrix A) and cholesky (a lower Cholesky factor L with "
                "A = D (L L^T)^{-1} D)."
            )
        if self.precision is not None:
            if self.cholesky_scale is not None:
                raise ValueError("cholesky_scale applies to cholesky=, not to precision=.")
            A, F, self._normB, self._cond = _precision_factor(self.precision, n)
            self._F: np.ndarray | None = F
            self._L: np.ndarray | None = None
            self._D: np.ndarray | None = None
            self.precision = A
        else:
            L, D, self._normB, self._cond = _cholesky_factor(self.cholesky, self.cholesky_scale, n)
            self._F, self._L, self._D = None, L, D
            self._Lf = np.asfortranarray(L)
            self.cholesky, self.cholesky_scale = L, D
        if self.sample_noise is not None:
            sn = _real_array(self.sample_noise, "sample_noise")
            if sn.shape != (n,) or not np.all(np.isfinite(sn)) or np.any(sn < 0):
                raise ValueError(f"sample_noise must hold {n} finite non-negative numbers, got shape {sn.shape}.")
            self.sample_noise = sn
        for name in ("offset", "scale", "constant", "noise_variance"):
            raw = getattr(self, name)
            if isinstance(raw, (bool, np.bool_)) or not isinstance(raw, Real):
                raise TypeError(f"{name} must be a real number, got {raw!r} of type {type(raw).__name__}.")
            v = float(raw)
            if not np.isfinite(v):
                raise ValueError(f"{name} must be a finite number, got {v}.")
            setattr(self, name, v)
        if self.scale <= 0:
            raise ValueError(f"scale must be positive, got {self.scale}.")
        if self.constant < 0 or self.noise_variance < 0:
            raise ValueError("constant and noise_variance must be non-negative.")
        self.X_train = em.X_ref
        self.coef = coef
        self._expansion = em

    @property
    def n_features(self) -> int:
        """Number of input features d."""
        return int(self.X_train.shape[1])

    def prior(self, X: ArrayLike, Y: ArrayLike | None = None) -> np.ndarray:
        """The prior kernel of f, ``kernel(X, Y) + constant`` (without ``scale``).

        Parameters
        ----------
        X : array-like of shape (N, d)
            Rows.
        Y : array-like of shape (M, d), optional
            Second set of rows; None means X.

        Returns
        -------
        ndarray of shape (N, M)
            The prior covariance kernel(X, Y) + constant.

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> post = kx.models.GPPosterior(np.zeros((1, 1)), kx.kernels.RBF(1.0), [1.0], [[0.5]], constant=2.0)
        >>> post.prior(np.array([[0.0]]))
        array([[3.]])
        """
        return np.asarray(self.kernel(X, Y)) + self.constant

    def expansion(self) -> KernelExpansion:
        """The posterior mean as a KernelExpansion (what the product-kernel explainer explains).

        Returns
        -------
        KernelExpansion
            The posterior mean written as a kernel expansion over the training rows.

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> post = kx.models.GPPosterior(np.zeros((1, 1)), kx.kernels.RBF(1.0), [2.0], [[0.5]], offset=1.0)
        >>> post.expansion().predict(np.array([[0.0]]))
        array([3.])
        """
        em = self._expansion
        return KernelExpansion(
            em.X_ref,
            self.scale * self.coef,
            self.kernel,
            intercept=self.offset + self.scale * self.constant * float(self.coef.sum()),
            feature_names=em.feature_names,
        )

    def mean(self, X: ArrayLike) -> np.ndarray:
        """Posterior mean of f at the rows of X, shape (N,).

        Parameters
        ----------
        X : array-like of shape (N, d)
            Rows.

        Returns
        -------
        ndarray of shape (N,)
            The posterior mean of f.

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> post = kx.models.GPPosterior(np.zeros((1, 1)), kx.kernels.RBF(1.0), [2.0], [[0.5]])
        >>> post.mean(np.array([[0.0], [1.0]])).round(3)
        array([2.   , 1.213])
        """
        Xv = self._expansion.check_input(X)
        return self.offset + self.scale * (self.prior(Xv, self.X_train) @ self.coef)

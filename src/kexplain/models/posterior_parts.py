"""GPPosterior: the parts of a Gaussian-process posterior, and its mean, covariance and rounding bounds.

The parts are those of :mod:`kexplain.models.posterior`'s formulas (training inputs, kernel,
coefficients, the precision A or a Cholesky factor of its inverse, offset, scale, constant and
noise); the factors of A and their rounding constants are in
:mod:`kexplain.models.posterior_factors`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..kernels.base import Kernel, SumKernel
from .expansion import KernelExpansion
from .posterior_factors import _BOUND_FACTOR, _EPS, _cholesky_factor, _precision_factor, _real_array


@dataclass(eq=False)
class GPPosterior:
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

    # -- the data term: whitened factors ------------------------------------------------------
    @property
    def condition_number(self) -> float:
        """Estimated 2-norm condition number of the training system (L L^T, or of ``precision``).

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> post = kx.models.GPPosterior(np.zeros((1, 1)), kx.kernels.RBF(1.0), [1.0], cholesky=[[2.0]])
        >>> post.condition_number
        1.0
        """
        return float(self._cond)

    def whiten(self, K: ArrayLike) -> np.ndarray:
        """V = F K with F^T F = A: the data term K^T A K' is V^T V' (a triangular solve, no inverse).

        Parameters
        ----------
        K : array-like of shape (n, m)
            Columns of (functionals of) k(X, .): kernel columns, or their Shapley values.

        Returns
        -------
        ndarray of shape (n, m)
            V = F K, so that K^T A K' = V^T V'.

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> X = np.array([[0.0], [1.0]])
        >>> k = kx.kernels.RBF(1.0)
        >>> B = k(X) + 0.1 * np.eye(2)
        >>> post = kx.models.GPPosterior(X, k, [1.0, 0.0], cholesky=np.linalg.cholesky(B))
        >>> kx_ = k(X, np.array([[0.5]]))
        >>> V = post.whiten(kx_)
        >>> bool(np.isclose((V.T @ V)[0, 0], (kx_.T @ np.linalg.solve(B, kx_))[0, 0]))
        True
        """
        from scipy.linalg.blas import dtrsv

        Km: np.ndarray = np.asarray(K, dtype=np.float64)
        if self._L is None:
            assert self._F is not None
            return np.asarray(self._F @ Km)
        if self._D is not None:
            Km = self._D[:, None] * Km if Km.ndim == 2 else self._D * Km
        squeeze = Km.ndim == 1
        K2 = Km.reshape(Km.shape[0], -1)
        out = np.empty_like(K2)
        if K2.shape[0] == 0:
            return out.reshape(Km.shape)
        Lf = self._Lf
        # one column at a time (level-2 BLAS, unthreaded, fixed blocking): the same bits whatever the
        # number of columns, blocks of points or threads, so n_jobs cannot change the covariance
        for j in range(K2.shape[1]):
            out[:, j] = dtrsv(Lf, K2[:, j], lower=1)
        return out[:, 0] if squeeze else out

    def error_radius(self, K: ArrayLike, V: ArrayLike | None = None) -> np.ndarray:
        """Per column j a radius r_j: the rounding error of the data term (K^T A K)_jl is at most r_j r_l.

        From the backward errors of the Cholesky factorisation and of the triangular solves,
        r_j^2 = c sqrt(n) eps (||B|| ||u_j||^2 + ||D K_j||^2 / ||B||) with u_j = L^{-T} V_j (the
        weights the data term applies, scaled by D); for an explicit ``precision``,
        r_j^2 = c sqrt(n) eps ||A|| ||K_j||^2 (class Notes).  In the units of the kernel (without
        ``scale``).

        Parameters
        ----------
        K : array-like of shape (n, m)
            Columns of (functionals of) k(X, .), as for :meth:`whiten`.
        V : array-like of shape (n, m), optional
            ``whiten(K)`` when already computed.

        Returns
        -------
        ndarray of shape (m,)
            The radius r_j of each column.

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> X = np.array([[0.0], [1.0]])
        >>> k = kx.kernels.RBF(1.0)
        >>> post = kx.models.GPPosterior(X, k, [1.0, 0.0], cholesky=np.linalg.cholesky(k(X) + 0.1 * np.eye(2)))
        >>> r = post.error_radius(k(X, np.array([[0.5]])))
        >>> bool(0 < r[0] ** 2 < 1e-13)
        True
        """
        from scipy.linalg import solve_triangular

        K = np.asarray(K, dtype=np.float64)
        n = K.shape[0]
        c = _BOUND_FACTOR * np.sqrt(max(n, 1)) * _EPS  # probabilistic rounding bound (class Notes)
        if self._L is None:
            return np.sqrt(c * self._normB * np.sum(K * K, axis=0))
        Vv = self.whiten(K) if V is None else np.asarray(V, dtype=np.float64)
        u = solve_triangular(self._L, Vv, lower=True, trans="T", check_finite=False) if n else Vv
        DK = K if self._D is None else self._D[:, None] * K
        nb = max(self._normB, 1e-300)
        return np.sqrt(c * (nb * np.sum(u * u, axis=0) + np.sum(DK * DK, axis=0) / nb))

    def precision_matrix(self) -> np.ndarray:
        """The matrix A itself (an explicit inverse: for inspection, not for computing with).

        Returns
        -------
        ndarray of shape (n, n)
            The matrix A of the data term.

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> post = kx.models.GPPosterior(np.zeros((1, 1)), kx.kernels.RBF(1.0), [1.0], cholesky=[[2.0]])
        >>> post.precision_matrix()
        array([[0.25]])
        """
        if self.precision is not None:
            return np.asarray(self.precision)
        n = self.X_train.shape[0]
        F = self.whiten(np.eye(n))
        return np.asarray(F.T @ F)

    def _check_noisy(self, noisy: bool) -> None:
        if noisy and self.sample_noise is not None:
            raise ValueError(
                "noisy=True needs one noise level for every input, but this posterior has a per-sample noise "
                "(a GaussianProcessRegressor's alpha array): it is known only at the training inputs.  Explain "
                "the latent f (noisy=False), or refit with a scalar alpha or a WhiteKernel."
            )

    def covariance(self, X: ArrayLike, Y: ArrayLike | None = None, *, noisy: bool = False) -> np.ndarray:
        """Posterior covariance of f between the rows of X and of Y (default X), shape (N, M).

        With ``noisy=True`` the covariance of the noisy observations y = f + noise: the noise
        variance is added where a row of X equals a row of Y.  The data term is a product of
        triangular-solved factors (class Notes); with Y None the result is symmetric with a
        non-negative diagonal.

        Parameters
        ----------
        X : array-like of shape (N, d)
            Rows.
        Y : array-like of shape (M, d), optional
            Second set of rows; None means X.
        noisy : bool, default False
            Add the noise variance: the covariance of y = f + noise rather than of f.

        Returns
        -------
        ndarray of shape (N, M)
            The posterior covariance.

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> post = kx.models.GPPosterior(np.zeros((1, 1)), kx.kernels.RBF(1.0), [1.0], [[0.5]])
        >>> post.covariance(np.array([[0.0], [3.0]])).round(3)
        array([[0.5  , 0.006],
               [0.006, 1.   ]])
        """
        self._check_noisy(noisy)
        Xv = self._expansion.check_input(X)
        Yv = Xv if Y is None else self._expansion.check_input(Y, name="Y")
        Vx = self.whiten(self.prior(Xv, self.X_train).T)
        Vy = Vx if Y is None else self.whiten(self.prior(Yv, self.X_train).T)
        cov = self.prior(Xv, Yv) - Vx.T @ Vy
        if noisy and self.noise_variance:
            same = np.all(Xv[:, None, :] == Yv[None, :, :], axis=2)
            cov = cov + self.noise_variance * same
        if Y is None:
            cov = 0.5 * (cov + cov.T)
            idx = np.arange(cov.shape[0])
            cov[idx, idx] = np.clip(cov[idx, idx], 0.0, None)
        return self.scale**2 * cov

    def variance(self, X: ArrayLike, *, noisy: bool = False) -> np.ndarray:
        """Posterior variance of f (or of y with ``noisy=True``) at the rows of X, shape (N,); never negative.

        Parameters
        ----------
        X : array-like of shape (N, d)
            Rows.
        noisy : bool, default False
            Add the noise variance: the covariance of y = f + noise rather than of f.

        Returns
        -------
        ndarray of shape (N,)
            The posterior variance, never negative.

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> post = kx.models.GPPosterior(np.zeros((1, 1)), kx.kernels.RBF(1.0), [1.0], [[0.5]], noise_variance=0.1)
        >>> post.variance(np.array([[0.0]]), noisy=True).round(3)
        array([0.6])
        """
        return self.variance_and_bound(X, noisy=noisy)[0]

    def variance_and_bound(self, X: ArrayLike, *, noisy: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """The posterior variance (N,) and a bound (N,) on its rounding error (``error_radius``), both scaled.

        Parameters
        ----------
        X : array-like of shape (N, d)
            Rows.
        noisy : bool, default False
            Add the noise variance: the covariance of y = f + noise rather than of f.

        Returns
        -------
        variance : ndarray of shape (N,)
            The posterior variance.
        bound : ndarray of shape (N,)
            A bound on its rounding error.

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> post = kx.models.GPPosterior(np.zeros((1, 1)), kx.kernels.RBF(1.0), [1.0], [[0.5]])
        >>> var, bound = post.variance_and_bound(np.array([[1.0]]))
        >>> var.round(3), bool(bound[0] < 1e-14)
        (array([0.816]), True)
        """
        self._check_noisy(noisy)
        Xv = self._expansion.check_input(X)
        K = self.prior(Xv, self.X_train).T
        V = self.whiten(K)
        diag = self.kernel.diag_value() + self.constant + (self.noise_variance if noisy else 0.0)
        var = np.clip(diag - np.einsum("ij,ij->j", V, V), 0.0, None)
        r = self.error_radius(K, V)
        bound = r * r + 4 * _EPS * diag
        return self.scale**2 * var, self.scale**2 * bound

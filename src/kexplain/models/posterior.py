"""Gaussian-process posteriors written on kexplain kernels: what stochastic Shapley values need.

A Gaussian-process posterior of a latent function f is Gaussian with

    mean(x)      = offset + scale * sum_i coef_i k_f(x, X_i),
    cov(x, x')   = scale^2 * [k_f(x, x') - k_f(x, X) A k_f(X, x')],

where k_f = ``kernel + constant`` is the prior kernel of f (its amplitude included), X the
training inputs and A the n x n "precision" matrix of the training data: (K + s^2 I)^{-1} for
regression, W^{1/2} (I + W^{1/2} K W^{1/2})^{-1} W^{1/2} for the Laplace approximation of a binary
classifier (Rasmussen & Williams, 2006, sections 2.2 and 3.4).  :class:`GPPosterior` holds these
parts and :func:`gp_posterior` reads them from fitted scikit-learn models.  Because Shapley values
are linear in f, their mean and covariance follow from these parts alone (Chau, Muandet &
Sejdinovic, 2023, section 3; ``kexplain.shapley.stochastic``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validation import to_array
from ..exceptions import UnsupportedModelError
from ..kernels.base import Kernel, SumKernel
from .expansion import KernelExpansion
from .gpflow import is_gpflow_model
from .gpytorch import is_torch_gp
from .sklearn import _check_fitted, _flatten_pipeline, _from_sklearn, as_kernel_expansion

#: the models :func:`gp_posterior` reads a posterior from
SUPPORTED_POSTERIORS = (
    "GaussianProcessRegressor (single output; latent f, normalize_y handled), binary "
    "GaussianProcessClassifier (latent f under the Laplace approximation; for several classes pass "
    "one of est.base_estimator_.estimators_), a Pipeline of per-feature scalers ending in one of "
    "these, or a kx.models.GPPosterior built from a KernelExpansion and its posterior precision"
)


def _real_array(x: Any, name: str) -> np.ndarray:
    """``x`` as a float64 array, refusing complex, text and ragged input by ``name``."""
    arr = to_array(x, name)
    if arr.dtype.kind == "c":
        raise ValueError(f"{name} must hold real numbers, got complex values.")
    try:
        return arr.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must hold real numbers, got values of type {arr.dtype} such as text.") from None


#: unit roundoff of float64
_EPS = float(np.finfo(np.float64).eps) / 2
#: safety factor of the rounding bounds (Cholesky, two triangular solves and the kernel values)
_BOUND_FACTOR = 8.0


def _triangular_condition(L: np.ndarray) -> float:
    """LAPACK's estimate of the 1-norm condition number of a lower-triangular matrix (inf if singular)."""
    from scipy.linalg import lapack

    if L.shape[0] == 0:
        return 1.0
    rcond, info = lapack.dtrcon(np.asfortranarray(L), norm="1", uplo="L", diag="N")
    return float("inf") if info != 0 or rcond <= 0 else float(1.0 / rcond)


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
            A = _real_array(self.precision, "precision")
            if A.shape != (n, n):
                raise ValueError(f"precision must have shape ({n}, {n}) for {n} training rows, got shape {A.shape}.")
            if not np.all(np.isfinite(A)):
                raise ValueError("precision contains NaN or infinite values.")
            scale = A.max() if A.size else 0.0
            if not np.allclose(A, A.T, rtol=1e-8, atol=1e-12 * max(1.0, abs(float(scale)))):
                raise ValueError("precision must be a symmetric matrix.")
            A = 0.5 * (A + A.T)
            # A = F^T F with F = sqrt(Lambda) Q^T: the data term is then a sum of squares (never negative)
            lam, Q = np.linalg.eigh(A) if n else (np.zeros(0), np.zeros((0, 0)))
            top = float(lam.max()) if n else 0.0
            if n and lam.min() < -1e-8 * max(top, 0.0) - 1e-300:
                raise ValueError(
                    f"precision must be positive semi-definite, got an eigenvalue {lam.min():.3g} (largest {top:.3g})."
                )
            self._F: np.ndarray | None = np.sqrt(np.clip(lam, 0.0, None))[:, None] * Q.T
            self._L: np.ndarray | None = None
            self._D: np.ndarray | None = None
            self._normB = max(top, 0.0)
            pos = lam[lam > 0]
            self._cond = float(top / pos.min()) if pos.size else 1.0
            self.precision = A
        else:
            L = _real_array(self.cholesky, "cholesky")
            if L.shape != (n, n):
                raise ValueError(f"cholesky must have shape ({n}, {n}) for {n} training rows, got shape {L.shape}.")
            if not np.all(np.isfinite(L)):
                raise ValueError("cholesky contains NaN or infinite values.")
            if np.any(np.triu(L, 1)):
                raise ValueError("cholesky must be lower triangular (the factor L of A = D (L L^T)^{-1} D).")
            diag = np.diag(L)
            if n and not np.all(diag > 0):
                raise ValueError(
                    "cholesky must have a positive diagonal (a Cholesky factor of a positive definite matrix)."
                )
            D = None
            if self.cholesky_scale is not None:
                D = _real_array(self.cholesky_scale, "cholesky_scale")
                if D.shape != (n,) or not np.all(np.isfinite(D)) or np.any(D < 0):
                    raise ValueError(f"cholesky_scale must hold {n} finite non-negative numbers, got shape {D.shape}.")
            self._F, self._L, self._D = None, L, D
            self._Lf = np.asfortranarray(L)
            self._normB = float(np.sum(L * L))  # ||L L^T||_F <= ||L||_F^2: a bound on ||B||_2
            self._cond = _triangular_condition(L) ** 2
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


#: relative accuracy the uncertainty results are checked against (AccuracyWarning beyond it)
UNCERTAINTY_RTOL = 1e-8


def check_accuracy(
    variances: ArrayLike, radii_sq: ArrayLike, condition_number: float, what: str, *, stacklevel: int = 2
) -> None:
    """Warn (:class:`~kexplain.exceptions.AccuracyWarning`) where a rounding bound exceeds ``UNCERTAINTY_RTOL``.

    A variance v with a data-term rounding bound b (``GPPosterior.error_radius`` squared) is
    resolved when b <= UNCERTAINTY_RTOL * v; otherwise the warning names the condition number of
    the training system, the worst relative bound and what the caller records.

    Parameters
    ----------
    variances : array-like
        The computed variances (in any units).
    radii_sq : array-like
        Their rounding bounds, same shape and units.
    condition_number : float
        ``GPPosterior.condition_number``.
    what : str
        What the variances are, in words (with where the bound is recorded).
    stacklevel : int
        Passed to ``warnings.warn`` (2: the caller of this function).

    Examples
    --------
    >>> import warnings
    >>> from kexplain.models.posterior import check_accuracy
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     check_accuracy([1e-12, 1.0], [1e-13, 1e-17], 1e17, "prediction variances")
    >>> print(str(caught[0].message)[:58])
    prediction variances: 1 of 2 are resolved to only a relati
    """
    import warnings

    from ..exceptions import AccuracyWarning

    v = np.asarray(variances, dtype=np.float64)
    b = np.asarray(radii_sq, dtype=np.float64)
    bad = b > UNCERTAINTY_RTOL * np.clip(v, 0.0, None)
    if not np.any(bad):
        return
    rel = b[bad] / np.maximum(np.clip(v[bad], 0.0, None), np.finfo(np.float64).tiny)
    worst = float(rel.max())
    shown = f"a relative {worst:.2g}" if worst < 1 else "100% or worse"
    warnings.warn(
        f"{what}: {int(bad.sum())} of {v.size} are resolved to only {shown} (the requested relative accuracy is "
        f"{UNCERTAINTY_RTOL:g}): the training system of the Gaussian process (K + noise) has condition number "
        f"{condition_number:.3g}, so variances below about eps * condition number times the prior variance "
        "cannot be resolved in double precision.  The bounds are in the result; a larger noise level (alpha or "
        "a WhiteKernel) or shorter length-scale bounds give a better-conditioned fit.",
        AccuracyWarning,
        stacklevel=stacklevel + 1,
    )


def record_accuracy(ex: Any, posterior: GPPosterior, values_bound: ArrayLike, prediction_bound: ArrayLike) -> None:
    """Put the rounding bounds of an uncertain explanation into ``ex.info``.

    ``info["variance_error_bound"]`` (N, d): bound on the error of each value's variance (the
    diagonal of ``covariance``; a covariance entry (j, l) is within the geometric mean of the two
    bounds); ``info["prediction_variance_error_bound"]`` (N,); ``info["condition_number"]`` of the
    posterior's training system.

    Parameters
    ----------
    ex : Explanation
    posterior : GPPosterior
    values_bound : array-like of shape (N, d)
    prediction_bound : array-like of shape (N,)

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.models.posterior import record_accuracy
    >>> post = kx.models.GPPosterior(np.zeros((1, 1)), kx.kernels.RBF(1.0), [1.0], [[0.5]])
    >>> ex = kx.Explanation(np.zeros((1, 1)), 0.0)
    >>> record_accuracy(ex, post, np.zeros((1, 1)), np.zeros(1))
    >>> sorted(ex.info)
    ['condition_number', 'prediction_variance_error_bound', 'variance_error_bound']
    """
    ex.info["variance_error_bound"] = np.asarray(values_bound, dtype=np.float64)
    ex.info["prediction_variance_error_bound"] = np.asarray(prediction_bound, dtype=np.float64)
    ex.info["condition_number"] = posterior.condition_number


def warn_accuracy(ex: Any, *, stacklevel: int = 3) -> None:
    """:func:`check_accuracy` on an explanation filled by :func:`record_accuracy` (once per call).

    Parameters
    ----------
    ex : Explanation
    stacklevel : int
        Where the warning points (3: the caller of the function that calls this one).

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.models.posterior import warn_accuracy
    >>> ex = kx.Explanation(np.zeros((1, 1)), 0.0, covariance=np.ones((1, 1, 1)), prediction_variance=[1.0])
    >>> ex.info.update(variance_error_bound=np.zeros((1, 1)), prediction_variance_error_bound=np.zeros(1),
    ...                condition_number=1.0)
    >>> warn_accuracy(ex)  # resolved: nothing to say
    """
    info = ex.info
    cond = float(info.get("condition_number", float("nan")))
    if ex.covariance is not None and "variance_error_bound" in info:
        C = np.asarray(ex.covariance)
        var = np.diagonal(C, axis1=-2, axis2=-1)
        check_accuracy(
            var,
            info["variance_error_bound"],
            cond,
            'variances of the Shapley values (info["variance_error_bound"])',
            stacklevel=stacklevel + 1,
        )
    if ex.prediction_variance is not None and "prediction_variance_error_bound" in info:
        check_accuracy(
            ex.prediction_variance,
            info["prediction_variance_error_bound"],
            cond,
            'prediction variances (info["prediction_variance_error_bound"])',
            stacklevel=stacklevel + 1,
        )


def _no_posterior(model: Any, why: str = "") -> UnsupportedModelError:
    name = type(model).__name__
    why = why or f"{name} is not a Gaussian-process model, so its predictions carry no posterior distribution."
    return UnsupportedModelError(
        f"uncertainty of explanations needs the model to be a Gaussian-process posterior: {why} Accepted: "
        f"{SUPPORTED_POSTERIORS}."
    )


def _gpr_posterior(
    est: Any,
) -> tuple[np.ndarray, np.ndarray, float, float, float, float, np.ndarray | None]:
    """(coef, Cholesky factor, offset, scale, constant, noise_variance, per-sample noise) of a fitted GPR."""
    _check_fitted(est, ["X_train_", "alpha_", "L_"])
    alpha = np.asarray(est.alpha_, dtype=np.float64)
    if alpha.ndim == 2 and alpha.shape[1] != 1:
        raise _no_posterior(est, "a GaussianProcessRegressor fitted on several targets; fit one per target.")
    alpha = alpha.reshape(-1)
    X = np.asarray(est.X_train_, dtype=np.float64)
    n, d = X.shape
    kernel, constant = _from_sklearn(est.kernel_, d, "GaussianProcessRegressor")
    L = np.tril(np.asarray(est.L_, dtype=np.float64))  # the factor the GP already holds: no inverse
    offset = float(np.ravel(est._y_train_mean)[0])
    scale = float(np.ravel(est._y_train_std)[0])
    prior_diag = (0.0 if kernel is None else kernel.diag_value()) + constant
    noise = float(np.ravel(est.kernel_.diag(X[:1]))[0]) - prior_diag  # the WhiteKernel part
    nugget = np.asarray(est.alpha, dtype=np.float64)
    sample_noise = None
    if nugget.ndim == 0 or nugget.size == 1 or np.all(nugget == nugget.ravel()[0]):
        noise += float(nugget.ravel()[0])
    else:
        # a per-sample alpha: the noise is known at the training inputs only (refused by noisy=True)
        sample_noise = nugget.reshape(-1) + max(noise, 0.0)
    return alpha, L, offset, scale, constant, max(noise, 0.0), sample_noise


def _binary_gpc_posterior(base: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """(coef, Cholesky factor L of B, W^{1/2}, constant) of a binary Laplace GP classifier's latent f."""
    _check_fitted(base, ["W_sr_", "L_", "pi_"])
    X = np.asarray(base.X_train_, dtype=np.float64)
    _, constant = _from_sklearn(base.kernel_, X.shape[1], "GaussianProcessClassifier")
    W_sr = np.asarray(base.W_sr_, dtype=np.float64)
    L = np.tril(np.asarray(base.L_, dtype=np.float64))  # lower Cholesky factor of B = I + W^1/2 K W^1/2
    coef = np.asarray(base.y_train_, dtype=np.float64) - np.asarray(base.pi_, dtype=np.float64)
    return coef, L, W_sr, constant


def gp_posterior(model: Any) -> GPPosterior:
    """The posterior of the latent function of a fitted Gaussian-process model.

    Parameters
    ----------
    model : GaussianProcessRegressor, binary GaussianProcessClassifier, Pipeline or GPPosterior
        A GaussianProcessRegressor gives the posterior of its latent f (``normalize_y`` becomes
        ``offset`` and ``scale``; a ``WhiteKernel`` and a scalar ``alpha`` become
        ``noise_variance``; an ``alpha`` array becomes ``sample_noise``).  The posterior keeps the
        model's own Cholesky factor ``L_`` (no explicit inverse is formed).  A binary
        GaussianProcessClassifier gives the Laplace approximation of its latent f (Rasmussen &
        Williams, 2006, section 3.4): coefficients y - pi and A = W^{1/2} B^{-1} W^{1/2} from its
        fitted ``W_sr_`` and ``L_`` (kept as factors).  Kernels are
        converted as by :func:`kexplain.models.as_kernel_expansion` (sums and products of RBF,
        ConstantKernel and WhiteKernel; per-feature scalers of a Pipeline folded in).  A
        GPPosterior is returned as it is.

    Returns
    -------
    GPPosterior
        The posterior of the fitted Gaussian process, for exact covariances of Shapley values.

    Raises
    ------
    UnsupportedModelError
        A TypeError (and ValueError) for models without a Gaussian posterior (an SVR, a kernel
        ridge, a multi-class or multi-target GP); the message names the model and what is
        accepted.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.gaussian_process import GaussianProcessRegressor
    >>> from sklearn.gaussian_process.kernels import RBF
    >>> from kexplain.models import gp_posterior
    >>> X = np.random.default_rng(0).normal(size=(20, 2))
    >>> gpr = GaussianProcessRegressor(RBF([1.0, 1.0]), alpha=0.01, normalize_y=True).fit(X, X[:, 0])
    >>> post = gp_posterior(gpr)
    >>> mean, std = gpr.predict(X[:3], return_std=True)
    >>> bool(np.allclose(post.mean(X[:3]), mean)), bool(np.allclose(np.sqrt(post.variance(X[:3])), std))
    (True, True)
    """
    if isinstance(model, GPPosterior):
        return model
    if isinstance(model, KernelExpansion):
        raise _no_posterior(
            model,
            "a KernelExpansion holds the posterior mean only; build a kx.models.GPPosterior from it and the "
            "posterior precision matrix.",
        )
    if is_torch_gp(model):
        from .gpytorch import describe_torch_output, gpytorch_parts_for_posterior

        p = gpytorch_parts_for_posterior(model)
        return GPPosterior(
            p["X_ref"],
            p["kernel"],
            p["coef"],
            p["precision"],
            offset=p["offset"] + p["scale"] * p["mean"],
            scale=p["scale"],
            constant=p["constant"],
            noise_variance=p["noise"],
            output=describe_torch_output(model),
        )
    if is_gpflow_model(model):
        from .gpflow import describe_gpflow_output, gpflow_parts_for_posterior

        p = gpflow_parts_for_posterior(model)
        return GPPosterior(
            p["X_ref"],
            p["kernel"],
            p["coef"],
            p["precision"],
            offset=p["mean"],
            constant=p["constant"],
            noise_variance=p["noise"],
            output=describe_gpflow_output(model),
        )
    steps = _flatten_pipeline(model)
    est = steps[-1] if steps else model
    name = type(est).__name__
    if name == "GaussianProcessRegressor":
        coef, L, offset, scale, constant, noise, sample_noise = _gpr_posterior(est)
        D = None
        output = "latent f of GaussianProcessRegressor"
    elif name in ("GaussianProcessClassifier", "_BinaryGaussianProcessClassifierLaplace"):
        if name == "GaussianProcessClassifier":
            _check_fitted(est, ["base_estimator_"])
            if hasattr(est.base_estimator_, "estimators_"):
                raise _no_posterior(
                    est,
                    "a GaussianProcessClassifier with more than two classes has one latent function per class; "
                    "pass one binary model, est.base_estimator_.estimators_[k].",
                )
            base = est.base_estimator_
        else:
            base = est
        coef, L, D, constant = _binary_gpc_posterior(base)
        offset, scale, noise, sample_noise = 0.0, 1.0, 0.0, None
        output = "latent f of GaussianProcessClassifier (Laplace approximation)"
    else:
        raise _no_posterior(est)
    if name == "_BinaryGaussianProcessClassifierLaplace":
        X = np.asarray(est.X_train_, dtype=np.float64)
        kernel, _ = _from_sklearn(est.kernel_, X.shape[1], "GaussianProcessClassifier")
        X_ref, names = X, None
    else:
        em = as_kernel_expansion(model)  # the kernel conversion, scalers folded in
        kernel, X_ref, names = em.kernel, em.X_ref, em.feature_names
    if kernel is None:
        raise _no_posterior(est, f"the kernel of this {name} is constant: nothing to explain.")
    if steps:
        output += " in a Pipeline"
    return GPPosterior(
        X_ref,
        kernel,
        coef,
        None,
        cholesky=L,
        cholesky_scale=D,
        sample_noise=sample_noise,
        offset=offset,
        scale=scale,
        constant=constant,
        noise_variance=noise,
        output=output,
        feature_names=names,
    )

"""The data term of a GPPosterior: whitening, rounding bounds, covariance and variance.

The mix-in under :class:`~kexplain.models.GPPosterior`: everything computed from the factor of the
precision that ``GPPosterior.__post_init__`` checks and stores (F with F^T F = A, or a Cholesky
factor L with its scale D), i.e. the data term k(x, X) A k(X, x') as V^T V' (a triangular solve,
never an explicit inverse), its rounding bound and the posterior covariance and variance built on
it.  The class Notes of GPPosterior give the bound.  GPPosterior (``posterior_parts.py``) adds the
parts themselves, their checks, the prior and the mean; this part names no module of it, so it
lives apart.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from .posterior_factors import _BOUND_FACTOR, _EPS

if TYPE_CHECKING:
    from ..kernels.base import Kernel, SumKernel
    from .expansion import KernelExpansion


class _PosteriorDataTerm:
    """The data term and the covariance of a GP posterior (see :class:`~kexplain.models.GPPosterior`)."""

    # the parts and factors GPPosterior.__post_init__ sets
    X_train: Any
    kernel: Kernel | SumKernel
    precision: Any
    constant: float
    noise_variance: float
    scale: float
    sample_noise: Any
    _expansion: KernelExpansion
    _F: np.ndarray | None
    _L: np.ndarray | None
    _D: np.ndarray | None
    _Lf: np.ndarray
    _normB: float
    _cond: float

    if TYPE_CHECKING:

        def prior(self, X: ArrayLike, Y: ArrayLike | None = None) -> np.ndarray: ...

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

"""BayesianCME: a Gaussian-process posterior over the conditional mean embedding.

Chau, 2023, thesis section 4.3.2 (Proposition 4.3.2, appendix B.3): the embedding mu(x, y) =
mu_{Y|X=x}(y) gets the prior GP(0, k (x) r) with r a *nuclear dominant* kernel over the target
kernel l, r(y, y') = int l(y, u) l(u, y') nu(du), which puts the sample paths y -> mu(x, y) in
the RKHS of l almost surely (Lukic & Beder, 2001; the construction of Flaxman, Sejdinovic,
Cunningham & Filippi, 2016), so that <f, mu(x, .)> is defined for f in that RKHS.  The
observations are l(y_i, y') = mu(x_i, y') + lambda^1/2 eps_i(y') with eps_i ~ GP(0, r).  The
ridge lambda is n * eta, the convention of ``kexplain.embeddings``.  The kernel r itself,
``nuclear_dominant_rbf``, lives in ``nuclear.py`` and is still imported from here.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.linalg import cho_factor, cho_solve
from scipy.optimize import minimize_scalar
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted, validate_data

from .._params import Options, check_param, check_positive
from .._params import Real as RealNumber
from .._validation import check_data, match_columns
from ..kernels.base import RBF
from ..kernels.heuristics import default_lengthscale
from ._checks import check_gram_output
from .gram import as_2d, resolve_kernel
from .nuclear import nuclear_dominant_rbf
from .ridge import jittered_cholesky


class BayesianCME(BaseEstimator):
    """Bayesian conditional mean embedding: posterior mean and covariance of mu_{Y|X=x}(y).

    The prior is mu ~ GP(0, k (x) r), r the nuclear dominant kernel of the RBF target kernel l
    (``nuclear_dominant_rbf``); the posterior (Chau, 2023, thesis Proposition 4.3.2) is

        mean(x, y) = k(x, X) (K + n eta I)^-1 L R^-1 r(Y, y)
        cov((x, y), (x', y')) = k(x, x') r(y, y') - k(x, X) (K + n eta I)^-1 k(X, x') r(y, Y) R^-1 r(Y, y')

    with K = k(X, X), L = l(Y, Y), R = r(Y, Y).  For f = sum_j a_j l(., p_j) in the RKHS of l the
    inner product <f, mu(x, .)> is Gaussian with mean sum_j a_j mean(x, p_j) and covariance
    a^T cov((x, P), (x', P)) a (``expectation``).

    Parameters
    ----------
    kernel : None, kexplain kernel or callable
        Kernel k on X (None: kexplain's default RBF, ``kx.kernels.default_kernel``).
    lengthscale : float or array-like, optional
        Lengthscales of the RBF target kernel l; None takes kexplain's default lengthscales
        (``kx.kernels.default_lengthscale``) of the training Y.  They stay fixed when eta is
        optimised (as in the thesis).
    measure_scale : float
        s in the measure ``nu(du) = exp(-||u||^2 / (2 s^2)) du`` of the nuclear dominant kernel.
    regularization : float or "marginal_likelihood"
        eta (lambda = n * eta), or maximise the log marginal likelihood (thesis eq. 4.13) over
        log10(eta) in [-8, 2].

    Attributes
    ----------
    regularization_ : float
    lengthscale_ : ndarray
    X_fit_, Y_fit_ : ndarray
    log_marginal_likelihood_ : float
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.embeddings import BayesianCME
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(50, 1)); Y = X + 0.1 * rng.normal(size=(50, 1))
    >>> bcme = BayesianCME(regularization=1e-2).fit(X, Y)
    >>> mean, cov = bcme.predict(X[:2], np.zeros((3, 1)), return_cov=True)
    >>> mean.shape, cov.shape
    ((2, 3), (2, 3, 2, 3))
    """

    lengthscale_: np.ndarray
    X_fit_: np.ndarray
    Y_fit_: np.ndarray
    kernel_: Any
    regularization_: float
    log_marginal_likelihood_: float
    _K_factor: Any
    _R_factor: Any
    _RinvL: np.ndarray

    def __init__(
        self,
        kernel: Any = None,
        *,
        lengthscale: float | ArrayLike | None = None,
        measure_scale: float = 1.0,
        regularization: float | str = 1e-3,
    ) -> None:
        self.kernel = kernel
        self.lengthscale = lengthscale
        self.measure_scale = measure_scale
        self.regularization = regularization

    def nuclear_kernel(self, A: ArrayLike, B: ArrayLike) -> np.ndarray:
        """The nuclear dominant kernel r(A, B) of the fitted target kernel.

        Parameters
        ----------
        A : array-like of shape (n, q)
            Target points.
        B : array-like of shape (m, q)
            Target points.

        Returns
        -------
        ndarray of shape (n, m)
            r(A, B).

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.embeddings import BayesianCME
        >>> b = BayesianCME(lengthscale=1.0).fit(np.zeros((3, 1)), np.arange(3.0)[:, None])
        >>> np.round(b.nuclear_kernel([[0.0]], [[0.0]]), 3)
        array([[1.447]])
        """
        check_is_fitted(self, "lengthscale_")
        return nuclear_dominant_rbf(A, B, self.lengthscale_, self.measure_scale)

    def target_kernel(self, A: ArrayLike, B: ArrayLike) -> np.ndarray:
        """The RBF target kernel l(A, B).

        Parameters
        ----------
        A : array-like of shape (n, q)
            Target points.
        B : array-like of shape (m, q)
            Target points.

        Returns
        -------
        ndarray of shape (n, m)
            l(A, B).

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.embeddings import BayesianCME
        >>> b = BayesianCME(lengthscale=1.0).fit(np.zeros((3, 1)), np.arange(3.0)[:, None])
        >>> np.round(b.target_kernel([[0.0]], [[1.0]]), 3)
        array([[0.607]])
        """
        check_is_fitted(self, "lengthscale_")
        return np.asarray(RBF(lengthscale=self.lengthscale_)(as_2d(np.asarray(A, float)), as_2d(np.asarray(B, float))))

    def fit(self, X: Any, y: Any) -> BayesianCME:
        """Fit the posterior of the embedding of Y given X.

        Parameters
        ----------
        X : array-like of shape (n, d)
            Rows of the conditioning variable.
        y : array-like of shape (n,) or (n, q)
            The targets Y.

        Returns
        -------
        BayesianCME
            self.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.embeddings import BayesianCME
        >>> X = np.linspace(0, 1, 20)[:, None]
        >>> BayesianCME(regularization="marginal_likelihood").fit(X, np.sin(X)).regularization_ > 0
        True
        """
        r = self.regularization
        # a string names the selector; anything else must be the ridge itself (so an array is never
        # compared with the name)
        accepted = Options(("marginal_likelihood",)) if isinstance(r, str) else RealNumber(0, closed="neither")
        check_param(r, "regularization", accepted, what="a positive number or 'marginal_likelihood'")
        check_positive(self.measure_scale, "measure_scale")
        n_rows = check_data(X, name="X", estimator=True, min_features=1, huge=True).shape[0]
        check_data(
            y,
            name="y",
            estimator=True,
            min_features=1,
            ndims=(1, 2),
            n_rows=n_rows,
            rows_of="X",
            tiny=self.lengthscale is None,
            huge=True,
        )
        X, Y = validate_data(self, X, y, multi_output=True, y_numeric=True, dtype=np.float64)
        Y2 = as_2d(Y)
        self.X_fit_, self.Y_fit_ = X, Y2
        if self.lengthscale is None:
            self.lengthscale_ = np.atleast_1d(default_lengthscale(Y2)).astype(np.float64)
        else:
            ls = np.atleast_1d(check_positive(self.lengthscale, "lengthscale", allow_array=True))
            if ls.shape[0] not in (1, Y2.shape[1]):
                raise ValueError(
                    f"lengthscale must be one number or one per column of y ({Y2.shape[1]}), got {ls.shape[0]}."
                )
            self.lengthscale_ = np.broadcast_to(ls, (Y2.shape[1],)).copy()
        self.kernel_ = resolve_kernel(self.kernel, X, "kernel")
        n = X.shape[0]
        K = self._k(X, X)
        L = self.target_kernel(Y2, Y2)
        R = self.nuclear_kernel(Y2, Y2)
        self._R_factor = jittered_cholesky(R)
        self._RinvL = cho_solve(self._R_factor, L, check_finite=False)  # R^-1 L
        if r == "marginal_likelihood":
            M = L @ self._RinvL
            e, U = np.linalg.eigh(K)
            e = np.maximum(e, 0.0)
            Mt = np.einsum("ij,ik,kj->j", U, M, U)
            logdetR = 2 * float(np.sum(np.log(np.diag(self._R_factor[0]))))

            def neg(log_eta: float) -> float:
                ev = e + n * 10.0**log_eta
                return float(0.5 * n * (np.sum(np.log(ev)) + logdetR) + 0.5 * np.sum(Mt / ev))

            res = minimize_scalar(neg, bounds=(-8.0, 2.0), method="bounded", options={"xatol": 1e-3})
            self.regularization_ = float(10.0**res.x)
        else:
            self.regularization_ = float(r)
        self._K_factor = cho_factor(K + n * self.regularization_ * np.eye(n), lower=True, check_finite=False)
        self.log_marginal_likelihood_ = self._log_ml(K, L)
        return self

    def _log_ml(self, K: np.ndarray, L: np.ndarray) -> float:
        n = K.shape[0]
        logdetK = 2 * float(np.sum(np.log(np.diag(self._K_factor[0]))))
        logdetR = 2 * float(np.sum(np.log(np.diag(self._R_factor[0]))))
        tr = float(np.trace(cho_solve(self._K_factor, L @ self._RinvL, check_finite=False)))
        return -0.5 * n * (logdetK + logdetR) - 0.5 * tr

    def _k(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        """k(A, B) of the fitted ``kernel``, checked: a callable returning NaN or a wrong shape is named."""
        return check_gram_output(self.kernel_(A, B), "kernel", (len(A), len(B)), "X")

    def _check_X(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "_K_factor")
        match_columns(X, getattr(self, "feature_names_in_", None), "X")
        check_data(X, name="X", estimator=True, min_features=1, huge=False)
        return np.asarray(validate_data(self, X, reset=False, dtype=np.float64))

    def _weights(self, Xv: np.ndarray) -> np.ndarray:
        """(K + n eta I)^-1 k(X, x), shape (n, N)."""
        return cho_solve(self._K_factor, self._k(self.X_fit_, Xv), check_finite=False)

    def predict(self, X: Any, Y: Any, *, return_cov: bool = False) -> Any:
        """Posterior mean of mu(x, y), shape (N, M), and with ``return_cov`` its covariance (N, M, N, M).

        Parameters
        ----------
        X : array-like of shape (N, d)
            Query rows of the conditioning variable.
        Y : array-like of shape (M, q)
            Target points.
        return_cov : bool, default False
            Also return the posterior covariance.

        Returns
        -------
        mean : ndarray of shape (N, M)
            The posterior mean of mu(x, y).
        cov : ndarray of shape (N, M, N, M)
            Its covariance, with ``return_cov=True`` only.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.embeddings import BayesianCME
        >>> X = np.linspace(-1, 1, 30)[:, None]
        >>> b = BayesianCME(lengthscale=1.0, regularization=1e-4).fit(X, X)
        >>> np.round(b.predict([[0.0]], [[0.0], [3.0]]), 2)   # close to l(0, y) = exp(-y^2 / 2)
        array([[1.  , 0.01]])
        """
        Xv = self._check_X(X)
        Yv = as_2d(check_data(Y, name="Y", estimator=True, min_features=1, ndims=(1, 2), huge=False))
        if Yv.shape[1] != self.Y_fit_.shape[1]:
            raise ValueError(
                f"Y has {Yv.shape[1]} columns, but the y given to fit had {self.Y_fit_.shape[1]}; Y must be "
                "points of y's space."
            )
        beta = self._weights(Xv)  # (n, N)
        rY = self.nuclear_kernel(self.Y_fit_, Yv)  # (n, M)
        # mean = beta^T L R^-1 r(Y, y) = beta^T (R^-1 L)^T r(Y, y)  (R, L symmetric)
        mean = beta.T @ (self._RinvL.T @ rY)
        if not return_cov:
            return mean
        kxx = self._k(Xv, Xv)
        cx = self._k(Xv, self.X_fit_) @ beta  # k(x, X) (K + n eta I)^-1 k(X, x')
        ryy = self.nuclear_kernel(Yv, Yv)
        sy = rY.T @ cho_solve(self._R_factor, rY, check_finite=False)  # r(y, Y) R^-1 r(Y, y')
        cov = kxx[:, None, :, None] * ryy[None, :, None, :] - cx[:, None, :, None] * sy[None, :, None, :]
        return mean, cov

    def expectation(self, X: Any, points: Any, coef: Any, *, return_cov: bool = False) -> Any:
        """Posterior of <f, mu(x, .)> for f = sum_j coef_j l(., points_j): mean (N,) [, covariance (N, N)].

        The mean is sum_j coef_j mean(x, p_j); the covariance is
        k(x, x') a^T R_PP a - k(x, X) (K + n eta I)^-1 k(X, x') a^T R_PY R^-1 R_YP a (Chau, 2023,
        thesis Proposition 4.3.3, where f is a kernel ridge regression with coefficients a).

        Parameters
        ----------
        X : array-like of shape (N, d)
            Query rows of the conditioning variable.
        points : array-like of shape (J, q)
            Target points p_j of f.
        coef : array-like of shape (J,)
            Coefficients of f = sum_j coef_j l(., p_j).
        return_cov : bool, default False
            Also return the posterior covariance.

        Returns
        -------
        mean : ndarray of shape (N,)
            The posterior mean of <f, mu(x, .)>.
        cov : ndarray of shape (N, N)
            Its covariance, with ``return_cov=True`` only.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.embeddings import BayesianCME
        >>> X = np.linspace(-1, 1, 30)[:, None]
        >>> b = BayesianCME(lengthscale=1.0, regularization=1e-3).fit(X, X)
        >>> m, C = b.expectation(X[:2], X, np.ones(30) / 30, return_cov=True)
        >>> m.shape, C.shape, bool(np.all(np.diag(C) > 0))
        ((2,), (2, 2), True)
        """
        Xv = self._check_X(X)
        P = as_2d(check_data(points, name="points", estimator=True, min_features=1, ndims=(1, 2), huge=False))
        q = self.Y_fit_.shape[1]
        if P.shape[1] != q:
            raise ValueError(
                f"points has {P.shape[1]} column(s), but the y given to fit had {q}; points must be points of "
                "y's space (the centres of f's kernel functions)."
            )
        a = check_data(
            coef,
            name="coef",
            estimator=True,
            min_features=1,
            ndims=(1,),
            n_rows=P.shape[0],
            rows_of="points",
            huge=True,
        )
        beta = self._weights(Xv)
        rYP = self.nuclear_kernel(self.Y_fit_, P) @ a  # (n,)
        mean = beta.T @ (self._RinvL.T @ rYP)
        if not return_cov:
            return mean
        B = float(a @ self.nuclear_kernel(P, P) @ a)
        C = float(rYP @ cho_solve(self._R_factor, rYP, check_finite=False))
        kxx = self._k(Xv, Xv)
        cov = B * kxx - C * (self._k(Xv, self.X_fit_) @ beta)
        return mean, cov

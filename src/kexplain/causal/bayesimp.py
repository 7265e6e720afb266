"""BayesIMP: E[T | do(X) = x] from two data sets, with uncertainty from both.

Chau, Ton, Gonzalez, Teh & Sejdinovic (2021), "BayesIMP: Uncertainty Quantification for Causal
Data Fusion" (Chau's thesis, 2023, chapter 4 and appendix B).  Data set D1 = (X, Z, Y) links the
treatment X to a mediator Y (with adjustment variables Z), data set D2 = (Y~, T) links the mediator
to the target T.  With T independent of do(X) given Y,

    g(x) = E[T | do(X) = x] = < f, mu_{Y|do(X)=x} >_{H_l},        f(y) = E[T | Y = y],

and each factor is estimated by kernel ridge regression or by a GP (thesis Table 4.1):

``"imp"``
    f a GP on D2 (prior GP(0, a l)), the embedding by kernel ridge regression on D1 (Prop. 4.3.1):
    g is a GP with mean beta(x)^T m_f(Y) and covariance beta(x)^T Cov_f(Y, Y) beta(x'); the mean is
    two-stage kernel ridge regression.  Component ``"D2"``.
``"bayesime"``
    f kernel ridge regression on D2, the embedding a Bayesian CME (GP prior k (x) r on the embedding,
    r the nuclear dominant kernel of l; Prop. 4.3.3): covariance B F(x, x') - C G(x, x').
    Component ``"D1"``.
``"bayesimp"``
    both GPs (f with prior GP(0, a r) so that it lies in H_l).  The thesis's Proposition 4.3.4 is
    dimensionally inconsistent as printed; we implement what its appendix derives: the inner
    product of the two independent GPs through their finite-dimensional versions on the landmarks
    xi = [Y; Y~] (appendix B.3.6),  <f~, mu~_x> = f(xi)^T K_xixi^-1 mu_x(xi), whose mean and
    covariance follow from the moments of independent Gaussian vectors (Proposition C.2):

        E   = m_f^T K^-1 m_mu(x)
        Cov = u^T C_mu(x, x') u                              ("D1",  u = K^-1 m_f)
            + m_mu(x)^T K^-1 S_f K^-1 m_mu(x')               ("D2")
            + tr(K^-1 S_f K^-1 C_mu(x, x'))                   ("interaction")

    with m_f, S_f the posterior mean and covariance of f at xi and m_mu, C_mu those of the Bayesian
    embedding (thesis eqs. B.21, B.22).  The result is not a GP; ``bo_prior`` moment-matches it.

Conventions: Gaussian kernels; the stage-1 ridge (and the Bayesian CME's noise) is
``N * regularization`` for N rows of D1 (kexplain's convention; chapter 4 writes lambda); the
prior amplitude a and the noise variance of f maximise the GP marginal likelihood on D2 when
``optimize=True`` (lengthscales stay at their values, the median heuristic by default, as the
thesis fixes the lengthscales of l and r); ``regularization="ml"`` chooses lambda by the Bayesian
CME's marginal likelihood (eq. B.23); small relative jitter (1e-10) regularises K^-1 and
R^-1.  The landmark algebra inverts Gram matrices of l and r on the mediator values; a mediator
lengthscale much longer than the spacing of those values makes them ill-conditioned and the
BayesIMP covariance inaccurate (a Monte Carlo check agrees to sampling error at lengthscale 0.3 on
27 landmarks spread over [-2.5, 2.5], not at 0.6).  The nuclear dominant kernel is
``kexplain.embeddings.nuclear_dominant_rbf``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.linalg import cho_solve
from scipy.optimize import minimize, minimize_scalar
from sklearn.exceptions import NotFittedError

from .._params import check_positive
from .._validation import check_data, feature_names_of, match_columns
from ..embeddings.gram import rbf
from ..embeddings.nuclear import nuclear_dominant_rbf
from ..embeddings.ridge import cholesky_logdet as _logdet
from ..embeddings.ridge import gp_cholesky as _chol
from ..kernels.heuristics import default_lengthscale
from ._method_algebra import _MethodAlgebra
from ._results import InterventionalGPPrior, InterventionalPrediction
from ._stage1 import Stage1

_METHODS = ("imp", "bayesime", "bayesimp")
_ADJUSTMENTS = (None, "backdoor", "frontdoor")


def _rows(a: Any, name: str, n: int | None = None, other: str = "", *, tiny: bool = False) -> np.ndarray:
    arr = check_data(a, name=name, estimator=True, min_features=1, ndims=(1, 2), tiny=tiny, huge=True)
    if arr.ndim == 1:
        arr = arr[:, None]
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{name} has {arr.shape[0]} rows but {other} has {n}; the rows of a data set must match.")
    return arr


def _ls(value: Any, data: np.ndarray, name: str) -> np.ndarray:
    if value is None:
        return np.atleast_1d(np.asarray(default_lengthscale(data), dtype=np.float64))
    ls = np.atleast_1d(check_positive(value, name, allow_array=True))
    if ls.size not in (1, data.shape[1]):
        raise ValueError(f"{name} must be positive, a scalar or one per column ({data.shape[1]}); got {value!r}.")
    return ls


# what fit prepares for each method and the covariance parts at queries are the mix-in of
# _method_algebra.py: the class, and so its pickles, stay here
class BayesIMP(_MethodAlgebra):
    """Interventional mean process E[T | do(X) = x] with IMP, BayesIME or BayesIMP uncertainty.

    Chau, Ton, Gonzalez, Teh & Sejdinovic (2021); Chau's thesis (2023), chapter 4.  See the module
    docstring for the three methods and the conventions.

    Parameters
    ----------
    method : {"imp", "bayesime", "bayesimp"}, default="bayesimp"
    adjustment : {None, "backdoor", "frontdoor"}, default=None
        None: p(Y | do(x)) = p(Y | x) (no confounding); ``"backdoor"``: average over the observed
        confounders Z; ``"frontdoor"``: Z mediates X -> Y and X, Y are confounded.
    lengthscale_x, lengthscale_z, lengthscale_y : float, array or None, default=None
        Gaussian-kernel lengthscales of the treatment, adjustment and mediator kernels (None:
        kexplain's default, ``kx.kernels.default_lengthscale``, one per column).
    regularization : float or "ml", default=1e-2
        lambda of the stage-1 embedding; the ridge (and the Bayesian CME's noise variance) is
        N * lambda.  ``"ml"`` maximises the Bayesian CME's log marginal likelihood (thesis eq. B.23)
        over lambda in [1e-8, 1] (this involves R_YY^-1, regularised by jitter).
    amplitude, noise : float, default=1.0 and 0.1
        Prior amplitude a and noise variance of the stage-2 model of f (initial values when
        ``optimize``); for ``"bayesime"`` f is kernel ridge regression with ridge noise / amplitude.
    measure_scale : float or None, default=None
        s of the measure ``nu(du) = exp(-|u|^2 / (2 s^2)) du`` of the nuclear dominant kernel (None:
        the largest absolute mediator value, so that nu covers the data).
    optimize : bool, default=True
        Fit amplitude and noise by the marginal likelihood of f on D2.

    Attributes
    ----------
    columns_x_ : list of str or None
        The DataFrame columns of the treatments X seen in fit (None for arrays): DataFrames given
        to ``predict`` and ``cross_cov`` must have exactly these columns in this order.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.causal import BayesIMP
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 1)); Y = X + 0.3 * rng.normal(size=(60, 1))
    >>> Y2 = rng.normal(size=(50, 1)); T = np.sin(Y2[:, 0]) + 0.1 * rng.normal(size=50)
    >>> model = BayesIMP(regularization="ml").fit(X, Y, Y2, T)
    >>> pred = model.predict(np.array([[0.0], [1.0]]), return_cov=True)
    >>> sorted(pred.components)
    ['D1', 'D2', 'interaction']
    >>> print(np.round(pred.mean, 1))
    [0.  0.8]
    """

    def __init__(
        self,
        method: str = "bayesimp",
        adjustment: str | None = None,
        *,
        lengthscale_x: Any = None,
        lengthscale_z: Any = None,
        lengthscale_y: Any = None,
        regularization: float = 1e-2,
        amplitude: float = 1.0,
        noise: float = 0.1,
        measure_scale: float | None = None,
        optimize: bool = True,
    ) -> None:
        self.method = method
        self.adjustment = adjustment
        self.lengthscale_x = lengthscale_x
        self.lengthscale_z = lengthscale_z
        self.lengthscale_y = lengthscale_y
        self.regularization = regularization
        self.amplitude = amplitude
        self.noise = noise
        self.measure_scale = measure_scale
        self.optimize = optimize

    def fit(self, X: Any, Y: Any, Y2: Any, T: Any, *, Z: Any = None) -> BayesIMP:
        """Fit on D1 = (X, Z, Y) and D2 = (Y2, T).

        Parameters
        ----------
        X : array of shape (N, d_x)
            Treatments of D1.
        Y : array of shape (N, d_y)
            Mediator of D1.
        Y2 : array of shape (M, d_y)
            Mediator of D2.
        T : array of shape (M,)
            Target of D2.
        Z : array of shape (N, d_z), optional
            Adjustment variables of D1 (required with ``adjustment``, refused without).

        Returns
        -------
        self
            The fitted estimator.
        """
        if self.method not in _METHODS:
            raise ValueError(f"method must be one of {', '.join(map(repr, _METHODS))}; got {self.method!r}.")
        if self.adjustment not in _ADJUSTMENTS:
            raise ValueError(f"adjustment must be None, 'backdoor' or 'frontdoor'; got {self.adjustment!r}.")
        if isinstance(self.regularization, str):
            if self.regularization != "ml":
                raise ValueError(f"regularization must be a positive float or 'ml'; got {self.regularization!r}.")
        else:
            check_positive(self.regularization, "regularization")
        check_positive(self.amplitude, "amplitude")
        check_positive(self.noise, "noise")
        if self.measure_scale is not None:
            check_positive(self.measure_scale, "measure_scale")
        # DataFrame columns seen in fit: later DataFrames are matched by name (the mediator of D2
        # must have the columns of D1's mediator)
        self.columns_x_ = feature_names_of(X)
        match_columns(Y2, feature_names_of(Y), "Y2")
        Xv = _rows(X, "X", tiny=self.lengthscale_x is None)
        N = Xv.shape[0]
        Yv = _rows(Y, "Y", N, "X", tiny=self.lengthscale_y is None)
        Y2v = _rows(Y2, "Y2", tiny=self.lengthscale_y is None)
        Tv = _rows(T, "T", Y2v.shape[0], "Y2")
        if Tv.shape[1] != 1:
            raise ValueError(f"T must be one target per row of Y2; got {Tv.shape[1]} columns.")
        if Y2v.shape[1] != Yv.shape[1]:
            raise ValueError(f"Y2 has {Y2v.shape[1]} columns but Y has {Yv.shape[1]}; both are the mediator.")
        if self.adjustment is None and Z is not None:
            raise ValueError("Z was given but adjustment=None; pass adjustment='backdoor' or 'frontdoor' to use it.")
        if self.adjustment is not None and Z is None:
            raise ValueError(f"adjustment={self.adjustment!r} needs the adjustment variables Z of D1.")
        Zv = None if Z is None else _rows(Z, "Z", N, "X", tiny=self.lengthscale_z is None)
        self.n_features_in_ = Xv.shape[1]
        self.lengthscale_x_ = _ls(self.lengthscale_x, Xv, "lengthscale_x")
        self.lengthscale_z_ = None if Zv is None else _ls(self.lengthscale_z, Zv, "lengthscale_z")
        ly = self.lengthscale_y_ = _ls(self.lengthscale_y, np.vstack([Yv, Y2v]), "lengthscale_y")
        both = np.vstack([Yv, Y2v])
        self.measure_scale_ = float(np.abs(both).max()) if self.measure_scale is None else float(self.measure_scale)
        s = self.measure_scale_
        self._R = nuclear_dominant_rbf(both, both, ly, s)  # r on the landmarks
        lam = 1.0 if self.regularization == "ml" else float(self.regularization)
        self.stage1_ = Stage1(Xv, Zv, self.adjustment, self.lengthscale_x_, self.lengthscale_z_, lam)
        if self.regularization == "ml":
            lam = self._select_regularization(self.stage1_.K, rbf(Yv, Yv, ly), self._R[:N, :N])
            self.stage1_ = Stage1(Xv, Zv, self.adjustment, self.lengthscale_x_, self.lengthscale_z_, lam)
        self.regularization_ = lam
        self.Y_, self.Y2_, self.T_ = Yv, Y2v, Tv[:, 0]
        self.Xi_ = both  # landmarks [Y; Y2]
        prior = self._R[N:, N:] if self.method == "bayesimp" else rbf(Y2v, Y2v, ly)
        theta = np.log([self.amplitude, self.noise])
        if self.optimize:
            res = minimize(self._nll, theta, args=(prior,), method="L-BFGS-B", bounds=[(-9.0, 9.0)] * 2)
            theta = res.x if np.isfinite(res.fun) else theta
        self.amplitude_, self.noise_ = (float(v) for v in np.exp(theta))
        self._prepare()
        return self

    @staticmethod
    def _select_regularization(K: np.ndarray, Kyy: np.ndarray, R: np.ndarray) -> float:
        """lambda maximising the Bayesian CME's log marginal likelihood (thesis eq. B.23, noise N lambda)."""
        N = K.shape[0]
        M = Kyy @ cho_solve(_chol(R), Kyy, check_finite=False)

        def nll(log_lam: float) -> float:
            try:
                c = _chol(K + N * np.exp(log_lam) * np.eye(N))
            except np.linalg.LinAlgError:
                return float("inf")
            return float(0.5 * N * _logdet(c) + 0.5 * np.trace(cho_solve(c, M, check_finite=False)))

        grid = np.linspace(np.log(1e-8), 0.0, 17)
        best = grid[int(np.argmin([nll(g) for g in grid]))]
        res = minimize_scalar(nll, bounds=(best - 1.2, best + 1.2), method="bounded")
        return float(np.exp(res.x if res.fun <= nll(best) else best))

    def _nll(self, theta: np.ndarray, prior: np.ndarray) -> float:
        a, s2 = np.exp(theta)
        try:
            c = _chol(a * prior + s2 * np.eye(prior.shape[0]))
        except np.linalg.LinAlgError:
            return float("inf")
        al = cho_solve(c, self.T_, check_finite=False)
        return float(0.5 * self.T_ @ al + 0.5 * _logdet(c))

    def _check(self, x: Any, name: str = "x") -> np.ndarray:
        if not hasattr(self, "stage1_"):
            raise ValueError("This BayesIMP instance is not fitted yet; call fit first.")
        match_columns(x, getattr(self, "columns_x_", None), name)
        xv = _rows(x, name)
        if xv.shape[1] != self.n_features_in_:
            raise ValueError(f"{name} has {xv.shape[1]} columns but the treatment X had {self.n_features_in_}.")
        return xv

    def predict(self, x: Any, return_cov: bool = False) -> Any:
        """E[T | do(X) = x] at query treatments, with its covariance and the covariance's parts.

        Parameters
        ----------
        x : array of shape (q, d_x)
            Query treatments.
        return_cov : bool, default=False
            Return an ``InterventionalPrediction`` (mean, cov, components) instead of the mean.

        Returns
        -------
        ndarray of shape (q,) or InterventionalPrediction
            The posterior mean of E[T | do(x)] at each query, or with ``return_cov`` an
            InterventionalPrediction holding the mean, the covariance and its parts.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.causal import BayesIMP
        >>> rng = np.random.default_rng(1)
        >>> X = rng.normal(size=(40, 1)); Y = 2 * X + 0.1 * rng.normal(size=(40, 1))
        >>> Y2 = 2 * rng.normal(size=(40, 1)); T = Y2[:, 0] + 0.1 * rng.normal(size=40)
        >>> m = BayesIMP("imp").fit(X, Y, Y2, T)
        >>> print(np.round(m.predict([[0.5]]), 1))
        [0.9]
        """
        xv = self._check(x)
        mean, _, comps = self._parts(xv, None)
        if not return_cov:
            return mean
        comps = {k: 0.5 * (v + v.T) for k, v in comps.items()}
        return InterventionalPrediction(mean, sum(comps.values()), comps)  # type: ignore[arg-type]

    def cross_cov(self, xa: Any, xb: Any) -> np.ndarray:
        """Covariance between E[T | do(xa)] and E[T | do(xb)], shape (len(xa), len(xb)).

        Parameters
        ----------
        xa : array-like of shape (qa, d_x)
            Query treatments.
        xb : array-like of shape (qb, d_x)
            Query treatments.

        Returns
        -------
        ndarray of shape (qa, qb)
            The posterior covariance.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.causal import BayesIMP
        >>> rng = np.random.default_rng(2)
        >>> X = rng.normal(size=(30, 1)); Y = X + 0.2 * rng.normal(size=(30, 1))
        >>> m = BayesIMP().fit(X, Y, Y[:20], np.sin(Y[:20, 0]))
        >>> m.cross_cov([[0.0]], [[0.0], [1.0]]).shape
        (1, 2)
        """
        a, b = self._check(xa, "xa"), self._check(xb, "xb")
        return sum(self._parts(a, b)[2].values())  # type: ignore[return-value]

    def bo_prior(self) -> InterventionalGPPrior:
        """The moment-matched GP prior for causal Bayesian optimisation (thesis section 4.4).

        Returns
        -------
        InterventionalGPPrior
            ``mean(x)`` and a scikit-learn ``kernel``.  In a BO loop over interventional data
            (x_k, t_k): fit ``GaussianProcessRegressor(kernel=prior.kernel + WhiteKernel(noise),
            optimizer=None)`` on (x_k, t_k - prior.mean(x_k)), predict at candidates and add
            ``prior.mean`` back; feed that mean and std to the acquisition function (e.g. expected
            improvement).

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.gaussian_process import GaussianProcessRegressor
        >>> from sklearn.gaussian_process.kernels import WhiteKernel
        >>> from kexplain.causal import BayesIMP
        >>> rng = np.random.default_rng(3)
        >>> X = rng.normal(size=(40, 1)); Y = X + 0.2 * rng.normal(size=(40, 1))
        >>> prior = BayesIMP().fit(X, Y, Y[:30], np.cos(Y[:30, 0])).bo_prior()
        >>> x_int = np.array([[0.0], [1.0]]); t_int = np.cos(x_int[:, 0])
        >>> gp = GaussianProcessRegressor(prior.kernel + WhiteKernel(1e-2), optimizer=None)
        >>> gp = gp.fit(x_int, t_int - prior.mean(x_int))
        >>> grid = np.array([[0.5]])
        >>> print(np.round(gp.predict(grid) + prior.mean(grid), 1))
        [0.9]
        """
        if not hasattr(self, "stage1_"):
            raise NotFittedError("This BayesIMP instance is not fitted yet; call fit before bo_prior().")
        return InterventionalGPPrior(self)

"""Deconditional Gaussian processes: the Conditional Mean Process posterior for bagged data.

Chau, Bouabid & Sejdinovic (2021), "Deconditional Downscaling with Gaussian Processes"
(Chau's thesis, 2023, chapter 3 and appendix A).  A latent field f ~ GP(m, k) on high-resolution
inputs x is observed only through noisy conditional means

    z~_j = E[f(X) | Y = y~_j] + eps_j,      eps_j ~ N(0, sigma^2),

where Y is a low-resolution (bag-level) mediating variable.  The bags of high-resolution inputs
x_j = {x_j^(1), ..., x_j^(n_j)} come with bag covariates y_j (data set D1); the targets z~ come
with their own covariates y~ (data set D2: *indirect matching*), or with the bags themselves
(y~ = y: *direct matching*).  The conditional expectation of f is a GP on Y (the CMP), jointly
Gaussian with f, and the deconditional posterior f | z~ is a GP with (thesis eqs. 3.7, 3.8)

    m_d(x)     = m(x) + k(x, x) A (Q + sigma^2 I)^-1 (z~ - m)
    k_d(x, x') = k(x, x') - k(x, x) A (Q + sigma^2 I)^-1 A^T k(x, x'),    Q = A^T K_xx A,

with A the empirical conditional mean operator evaluated at y~.

Estimators of A (``estimator=``)
--------------------------------
``"exact"``
    the CMO estimated with every bag covariate replicated n_j times (thesis eq. 3.1 on
    sum_j n_j rows), computed at bag level: with P the (n, B) bag indicator and D = P^T P,
    (P L P^T + n lam I)^-1 P = P (L D + n lam I)^-1 (push-through), so A = P (L D + n lam I)^-1 L_{y y~}
    costs O(B^3 + n^2) instead of O(n^3) (n = sum_j n_j points, B bags).
``"shrinkage"``
    the Conditional Mean Shrinkage Operator (thesis eq. 3.9; S-CMP): bag means of the feature maps
    regressed on the bag covariates, A = P D^-1 (L + B lam I)^-1 L_{y y~}.  With equal bag sizes it
    equals the exact estimator.
``"variational"``
    VARCMP (thesis appendix A.3): inducing inputs w (k-means++ on the inputs), q(u) = N(eta, Sigma)
    on u = f(w), and the evidence lower bound (A.70) with the exact CMO.  The optimal q is Gaussian
    in closed form (Titsias, 2009), and the bound at that q (the "collapsed" ELBO) is what the
    hyperparameters maximise; ``elbo`` evaluates the uncollapsed bound (A.70) for any q.  With the
    inducing inputs at every input the variational posterior is the exact one in exact
    arithmetic only: the computation goes through the inverse of the inducing Gram matrix (a
    Cholesky factor with a relative jitter of at least 1e-10) and subtracts two quadratic forms
    of it, so in floating point it differs from ``"exact"`` by the conditioning of that matrix
    (measured on 30 one-point bags of a smooth fit: means within 3e-8, covariances within 3e-3 of
    their scale, the worst at short length scales).  Use ``estimator="exact"`` for the exact
    posterior.

Without bag covariates (``mediator=None``) a bag's embedding is the mean of its feature maps and
the model is the bag-GP of Law et al. (2018) (BAGG-GP; VBAGG with ``estimator="variational"``);
with one point per bag it is GP regression.

Ridge convention: as everywhere in kexplain's embeddings, the ridge of a kernel ridge regression
on n rows is ``n * regularization`` (thesis chapter 3 writes N lambda; chapter 4 writes lambda).

Hyperparameters (lengthscales, amplitude, noise variance) maximise the log marginal likelihood
(the collapsed ELBO for ``"variational"``) with scipy's L-BFGS-B on log-parameters and
analytic gradients (finite differences in the mediator lengthscales and for ``"variational"``);
``regularization`` is fixed unless it is ``"ml"``.  Kernels are Gaussian (RBF) on both
inputs, as in the thesis's swiss-roll study.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.linalg import solve_triangular
from scipy.optimize import minimize
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .._params import check_positive, check_positive_int
from .._typing import RandomStateLike
from .._validation import check_data
from ._bags import _as_bags, _check_2d, _check_bag_labels
from ._deconditional_likelihood import DeconditionalLikelihood, _bag_sums
from ._deconditional_likelihood import _sqdist as _sqdist
from .gram import rbf
from .ridge import cholesky_logdet as _logdet  # noqa: F401  (the names this module had before its split)
from .ridge import gp_cholesky as _chol  # noqa: F401

_ESTIMATORS = ("exact", "shrinkage", "variational")
_LOG_BOUNDS = (-9.0, 9.0)


class DeconditionalGPRegressor(DeconditionalLikelihood, RegressorMixin, BaseEstimator):
    """Deconditional GP regression on bags (CMP, S-CMP, VARCMP; Chau, Bouabid & Sejdinovic, 2021).

    Fits the latent high-resolution field f from bag-level targets, directly matched (one target
    per bag) or through a mediating bag covariate (indirect matching), and predicts f at new
    high-resolution inputs with its posterior mean, standard deviation or covariance (Chau's
    thesis, 2023, section 3.3 and appendix A; see the module docstring for the estimators).

    Parameters
    ----------
    estimator : {"exact", "shrinkage", "variational"}, default="exact"
        How the conditional mean operator is estimated (CMP, S-CMP, VARCMP).
    lengthscale : float or array of shape (n_features,), default=1.0
        Initial lengthscale(s) of the Gaussian kernel k on the high-resolution inputs (an array
        gives one lengthscale per column).
    amplitude : float, default=1.0
        Initial prior variance of f.
    mediator_lengthscale : float or array, default=1.0
        Initial lengthscale(s) of the Gaussian kernel l on the mediator (unused without one).
    noise : float, default=0.1
        Initial variance sigma^2 of the noise on the bag-level targets.
    regularization : float or "ml", default=1e-3
        CMO regularisation lambda; the ridge is ``n * regularization`` for a regression on n rows.
        ``"ml"`` learns it with the other hyperparameters by marginal likelihood (from 1e-3),
        which is what learning an amplitude for the mediator kernel l amounts to.
    n_inducing : int, default=50
        Number of inducing inputs for ``"variational"`` (k-means++ centres of the inputs; every
        input when there are no more inputs than this).
    optimize : bool, default=True
        Maximise the log marginal likelihood (collapsed ELBO for ``"variational"``) over the
        kernel hyperparameters and the noise.
    max_iter : int, default=100
        Iterations of L-BFGS-B.
    normalize_y : bool, default=False
        Centre and scale the targets (a constant prior mean m, as in scikit-learn's GP).
    random_state : int, Generator or None, default=None
        Seeds the k-means++ choice of inducing inputs (no effect for the other estimators).

    Attributes
    ----------
    lengthscale_, amplitude_, noise_, mediator_lengthscale_, regularization_ : fitted hyperparameters
    log_marginal_likelihood_value_ : float
        Log marginal likelihood (collapsed ELBO for ``"variational"``) at the fitted values.
    n_bags_ : int
    n_iter_ : int
        L-BFGS-B iterations (1 without optimisation).
    inducing_points_ : ndarray or None

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.embeddings.deconditional import DeconditionalGPRegressor
    >>> rng = np.random.default_rng(0)
    >>> bags = [rng.normal(loc=c, size=(20, 1)) for c in np.linspace(-2, 2, 8)]
    >>> z = np.array([np.sin(b).mean() for b in bags])
    >>> gp = DeconditionalGPRegressor().fit(bags, z, mediator=np.linspace(-2, 2, 8)[:, None])
    >>> mean, std = gp.predict(np.array([[0.0], [1.0]]), return_std=True)
    >>> print(np.round(mean, 1), bool(np.all(std > 0)))
    [0.  0.9] True
    """

    def __init__(
        self,
        estimator: str = "exact",
        *,
        lengthscale: Any = 1.0,
        amplitude: float = 1.0,
        mediator_lengthscale: Any = 1.0,
        noise: float = 0.1,
        regularization: float = 1e-3,
        n_inducing: int = 50,
        optimize: bool = True,
        max_iter: int = 100,
        normalize_y: bool = False,
        random_state: RandomStateLike = None,
    ) -> None:
        self.estimator = estimator
        self.lengthscale = lengthscale
        self.amplitude = amplitude
        self.mediator_lengthscale = mediator_lengthscale
        self.noise = noise
        self.regularization = regularization
        self.n_inducing = n_inducing
        self.optimize = optimize
        self.max_iter = max_iter
        self.normalize_y = normalize_y
        self.random_state = random_state

    # ------------------------------------------------------------------ fitting
    def fit(
        self, X: Any, y: Any, *, bags: Any = None, mediator: Any = None, target_mediator: Any = None
    ) -> DeconditionalGPRegressor:
        """Fit on bags of inputs and bag-level (direct) or mediated (indirect) targets.

        Parameters
        ----------
        X : array of shape (n, n_features) or list of arrays of shape (n_j, n_features)
            High-resolution inputs: the rows of all bags, with ``bags`` giving each row's bag, or a
            list with one array per bag.  An array without ``bags`` makes every row its own bag
            (GP regression when ``mediator`` is None).
        y : array of shape (n_targets,)
            Bag-level targets: one per bag (direct matching; bags in the order of the list, or of
            ``np.unique(bags)``), or one per row of ``target_mediator`` (indirect matching).
        bags : array of shape (n,), optional
            Bag label of each row of X (only with an array X).
        mediator : array of shape (n_bags, p), optional
            Bag covariates y_j (the mediating variable), one row per bag in bag order.  None uses
            the bags' mean embeddings (the bag-GP of Law et al., 2018).
        target_mediator : array of shape (n_targets, p), optional
            Mediator values y~ observed with the targets (indirect matching); requires ``mediator``.

        Returns
        -------
        self
            The fitted estimator.
        """
        if self.estimator not in _ESTIMATORS:
            raise ValueError(f"estimator must be one of {', '.join(map(repr, _ESTIMATORS))}; got {self.estimator!r}.")
        if isinstance(self.regularization, str):
            if self.regularization != "ml":
                raise ValueError(f"regularization must be a float >= 0 or 'ml'; got {self.regularization!r}.")
        else:
            check_positive(self.regularization, "regularization", allow_zero=True)
        check_positive(self.lengthscale, "lengthscale", allow_array=True)
        check_positive(self.mediator_lengthscale, "mediator_lengthscale", allow_array=True)
        check_positive(self.amplitude, "amplitude")
        check_positive(self.noise, "noise")
        check_positive_int(self.max_iter, "max_iter")
        check_positive_int(self.n_inducing, "n_inducing")
        data, labels, _ = _as_bags(X, bags)
        n_rows = check_data(data, name="X", estimator=True, min_features=1, huge=True).shape[0]
        if labels is None:
            z_rows = (
                None
                if y is None
                else check_data(y, name="y", estimator=True, min_features=1, ndims=(1, 2), huge=True).shape[0]
            )
            if z_rows is not None and z_rows != n_rows:
                raise ValueError(
                    f"y has {z_rows} targets but X has {n_rows} rows, each its own bag (bags=None): pass bags, "
                    "the bag label of each row, or X as a list of bags."
                )
            Xc, z = validate_data(self, data, y, dtype=np.float64, y_numeric=True)
            labels = np.arange(Xc.shape[0])
        else:
            Xc = validate_data(self, data, dtype=np.float64)
            if y is None:
                name = type(self).__name__
                raise ValueError(f"This {name} estimator requires y to be passed, but the target y is None.")
            z = check_data(y, name="y", estimator=True, min_features=1, ndims=(1, 2), huge=True).ravel()
            labels = _check_bag_labels(labels, Xc.shape[0])
        _, inv = np.unique(labels, return_inverse=True)
        order = np.argsort(inv, kind="stable")
        self.X_train_ = Xc[order]
        counts = np.bincount(inv)
        self.counts_ = counts.astype(np.float64)
        self.starts_ = np.concatenate([[0], np.cumsum(counts)[:-1]])
        B = counts.size
        self.n_bags_ = B
        self.mediator_: np.ndarray | None = None if mediator is None else _check_2d(mediator, "mediator", B, "bags")
        if target_mediator is not None:
            if self.mediator_ is None:
                raise ValueError("target_mediator (indirect matching) requires mediator, the bag covariates.")
            tmed = _check_2d(target_mediator, "target_mediator", z.size, "targets in y")
            self.target_mediator_: np.ndarray | None = tmed
            if tmed.shape[1] != self.mediator_.shape[1]:
                raise ValueError(
                    f"target_mediator has {tmed.shape[1]} columns but mediator has {self.mediator_.shape[1]}."
                )
        else:
            if z.size != B:
                raise ValueError(
                    f"y has {z.size} targets but there are {B} bags; direct matching needs one target per bag "
                    "(pass mediator and target_mediator for indirect matching)."
                )
            self.target_mediator_ = self.mediator_
        self.y_mean_, self.y_std_ = (float(z.mean()), float(z.std()) or 1.0) if self.normalize_y else (0.0, 1.0)
        self._z = (z - self.y_mean_) / self.y_std_
        ls = np.atleast_1d(np.asarray(self.lengthscale, dtype=np.float64))
        if ls.size not in (1, Xc.shape[1]):
            raise ValueError(f"lengthscale must be a scalar or have {Xc.shape[1]} entries; got {ls.size}.")
        self._p = ls.size
        theta: list[np.ndarray] = [np.log(ls), np.log([self.amplitude, self.noise])]
        self._opt_lam = self.regularization == "ml" and self.mediator_ is not None
        if self.mediator_ is not None:
            theta.append(np.log(np.atleast_1d(np.asarray(self.mediator_lengthscale, dtype=np.float64))))
            if self._opt_lam:
                theta.append(np.log([1e-3]))
        theta0 = np.concatenate(theta)
        self.inducing_points_ = self._inducing() if self.estimator == "variational" else None
        self._cache: dict[Any, np.ndarray] = {}
        self.n_iter_ = 1
        if self.optimize:
            exact = self.estimator != "variational"
            res = minimize(
                self._objective_grad if exact else self._objective,
                theta0,
                jac=exact or None,
                method="L-BFGS-B",
                bounds=[_LOG_BOUNDS] * theta0.size,
                options={"maxiter": int(self.max_iter)},
            )
            theta0 = res.x if np.isfinite(res.fun) else theta0
            self.n_iter_ = max(int(res.nit), 1)
        self.theta_ = theta0
        self.log_marginal_likelihood_value_ = -self._objective(theta0)
        self._posterior(theta0)
        self._cache = {}
        return self

    def _inducing(self) -> np.ndarray:
        from sklearn.cluster import kmeans_plusplus

        X = self.X_train_
        if int(self.n_inducing) >= X.shape[0]:
            return X.copy()
        rs = self.random_state
        seed = rs if isinstance(rs, (int, np.integer)) or rs is None else np.random.default_rng(rs).integers(2**31)
        centres, _ = kmeans_plusplus(X, int(self.n_inducing), random_state=seed)
        return np.asarray(centres)

    # --------------------------------------------------------------- prediction
    def predict(self, X: Any, return_std: bool = False, return_cov: bool = False) -> Any:
        """Posterior mean of the high-resolution field f, with its std or covariance.

        Parameters
        ----------
        X : array of shape (n_queries, n_features)
            High-resolution inputs.
        return_std : bool, default=False
            Also return the posterior standard deviation of f (no observation noise).
        return_cov : bool, default=False
            Also return the posterior covariance of f (eq. 3.8); not with ``return_std``.

        Returns
        -------
        mean : ndarray of shape (n_queries,)
            Posterior mean of f at each query.
        std : ndarray of shape (n_queries,)
            Posterior standard deviation of f, only with ``return_std=True``.
        cov : ndarray of shape (n_queries, n_queries)
            Posterior covariance of f, only with ``return_cov=True``.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.embeddings.deconditional import DeconditionalGPRegressor
        >>> X = np.linspace(0, 3, 10)[:, None]
        >>> gp = DeconditionalGPRegressor(optimize=False).fit(X, np.sin(X).ravel())
        >>> print(np.round(gp.predict([[1.5]]), 2))
        [0.99]
        """
        check_is_fitted(self)
        if return_std and return_cov:
            raise ValueError("return_std and return_cov cannot both be True; ask for one of them.")
        check_data(X, name="X", estimator=True, min_features=1, huge=False)
        Xq = validate_data(self, X, reset=False, dtype=np.float64)
        ls, amp = np.atleast_1d(self.lengthscale_), self.amplitude_
        s, mu = self.y_std_, self.y_mean_
        if self.estimator != "variational":
            Kb = amp * _bag_sums(rbf(Xq, self.X_train_, ls), self.starts_)  # (q, B)
            mean = Kb @ self._w * s + mu
            if not (return_std or return_cov):
                return mean
            H = Kb @ self._G_
            V = solve_triangular(self._c[0], H.T, lower=True, check_finite=False)
        else:
            Kqw = rbf(Xq, self.inducing_points_, ls, amp)
            mean = Kqw @ self._w * s + mu
            if not (return_std or return_cov):
                return mean
            Vw = solve_triangular(self._cw[0], Kqw.T, lower=True, check_finite=False)
            Vl = solve_triangular(self._cl[0], Kqw.T, lower=True, check_finite=False)
            if return_std:
                var = amp - (Vw * Vw).sum(0) + (Vl * Vl).sum(0)
                return mean, np.sqrt(np.maximum(var, 0.0)) * s
            cov = rbf(Xq, Xq, ls, amp) - Vw.T @ Vw + Vl.T @ Vl
            return mean, cov * s**2
        if return_std:
            var = amp - (V * V).sum(0)
            return mean, np.sqrt(np.maximum(var, 0.0)) * s
        return mean, (rbf(Xq, Xq, ls, amp) - V.T @ V) * s**2

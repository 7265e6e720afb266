"""The estimator of orthogonal additive GPs (OAK), after "Exact Shapley Value for Local and Global
Explanation of Additive Gaussian Processes": it ties together the constrained base kernels (section
2.2), the input checks and encoding, the marginal likelihood and posterior, and the games."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .._typing import RandomStateLike
from .._validation import check_data, check_legacy_random_state, feature_names_of
from ..explanation import Explanation
from . import _fitting as fitting
from ._anova import AnovaAccessors
from ._checks import check_fit_inputs, check_rows, numeric_target, standardize_target
from ._encoding import InputEncoder, categorical_mask
from ._interactions import GlobalInteractionsMixin

#: above this many training rows ``n_inducing=None`` switches to the sparse mode, with this many inducing points
SPARSE_THRESHOLD, DEFAULT_INDUCING = 5000, 500
#: hyperparameters are fitted on at most this many (randomly chosen) rows
MAX_FIT_ROWS = 1000


class OAKRegressor(AnovaAccessors, GlobalInteractionsMixin, RegressorMixin, BaseEstimator):
    """Orthogonal additive Gaussian process regressor with exact local and global Shapley values.

    Parameters
    ----------
    max_interaction_order : int or None
        Highest interaction order Q (1 = additive model). None means all orders (Q = d).
    input_measure : {"gaussian", "empirical"}
        The measure the base kernels are made orthogonal to. "gaussian": N(mean, std^2) of each
        (transformed) feature, every integral in closed form. "empirical": the training values of
        each feature (compressed to at most 1000 weighted points), exact for that measure.
        Categorical features always use their category frequencies.
    normalize_inputs : bool
        Fit a standardised Yeo-Johnson power transform per continuous feature first, so the
        Gaussian measure fits the data (the role of the normalising flows in section 6 of the
        additive-GP paper, see :mod:`kexplain.gp`): smooth, strictly monotone, it extrapolates beyond
        the training range (a quantile map clips there) and has one parameter per feature.
    categorical_features : None, list of column indices or names, or mask of bool
        Features with discrete measures (binary or categorical, integer codes or labels). None:
        the columns holding non-numeric labels.
    n_inducing : int or None
        Sparse mode with this many inducing points (a random subset of the training rows) and the
        DTC/projected-process posterior. None: exact for n <= 5000, else 500 inducing points.
        In both modes the hyperparameters are fitted on at most 1000 random rows (the marginal
        likelihood's gradient holds rows^2 x d arrays); the posterior then uses every row.
    max_iter : int
        L-BFGS-B iterations for the marginal likelihood (0 keeps the initial hyperparameters).
    n_restarts : int
        Extra optimisations from random starting points; the best marginal likelihood wins.
    random_state : int, RandomState or None
        Seeds the random restarts and the choice of fitting rows and inducing points.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.gp import OAKRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(30, 3))
    >>> gp = OAKRegressor(max_interaction_order=2, max_iter=5).fit(X, np.sin(X[:, 0]) + X[:, 1] * X[:, 2])
    >>> ex = gp.explain(X[:2])                  # exact local values, functional-ANOVA game
    >>> bool(np.allclose(ex.predictions, gp.predict(X[:2])))
    True
    >>> gi = gp.global_importance()             # exact variance decomposition
    >>> bool(np.isclose(gi.values.sum(), gi.total))
    True
    """

    def __init__(
        self,
        max_interaction_order: int | None = None,
        input_measure: str = "gaussian",
        normalize_inputs: bool = True,
        categorical_features: Any = None,
        n_inducing: int | None = None,
        max_iter: int = 200,
        n_restarts: int = 0,
        random_state: RandomStateLike = None,
    ) -> None:
        self.max_interaction_order = max_interaction_order
        self.input_measure = input_measure
        self.normalize_inputs = normalize_inputs
        self.categorical_features = categorical_features
        self.n_inducing = n_inducing
        self.max_iter = max_iter
        self.n_restarts = n_restarts
        self.random_state = random_state

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True  # label columns are categorical features
        return tags

    def fit(self, X: Any, y: Any) -> OAKRegressor:
        """Fit the input encoding, the base-kernel measures, the hyperparameters and the posterior.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n, d)
            Numbers, or labels in the categorical features.
        y : array-like of shape (n,)
            Numeric targets.

        Returns
        -------
        OAKRegressor
            The fitted model (self).

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.gp import OAKRegressor
        >>> X = np.random.default_rng(0).normal(size=(20, 2))
        >>> OAKRegressor(max_iter=0).fit(X, X[:, 0]).order_variances_.shape
        (3,)
        """
        check_fit_inputs(X, y)  # dense, 2-D, >= 2 rows and >= 1 column (a DataFrame without columns too)
        y = numeric_target(y)
        names = feature_names_of(X)
        _, y = validate_data(self, X, y, dtype=None, ensure_all_finite=False, ensure_min_samples=2, y_numeric=True)
        n, d = len(y), int(self.n_features_in_)
        Q = fitting.check_params(self, d)
        self._names = names if names is not None else [f"x{j}" for j in range(d)]
        mask = categorical_mask(X, self.categorical_features, names, d)
        self._encoder = InputEncoder(mask, self._names, self.normalize_inputs)
        Z = self._encoder.fit_transform(check_data(X, name="X", numeric_mask=~mask, min_rows=2))
        self.categorical_mask_, self.categories_ = mask, self._encoder.categories
        self.transformer_ = self._encoder.transformer
        bases = fitting.base_kernels(Z, mask, self.categories_, self.input_measure)
        self.bases_, self.max_order_ = bases, Q
        self.y_mean_, self.y_std_, ys = standardize_target(np.asarray(y, dtype=np.float64))
        rng = check_legacy_random_state(self.random_state)
        m = DEFAULT_INDUCING if self.n_inducing is None and n > SPARSE_THRESHOLD else self.n_inducing
        self.sparse_ = m is not None and m < n
        # the marginal likelihood's gradient holds (rows^2 x d) arrays: above MAX_FIT_ROWS the
        # hyperparameters come from a random subset, the posterior still from every row
        fit_rows = np.sort(rng.choice(n, MAX_FIT_ROWS, replace=False)) if n > MAX_FIT_ROWS else np.arange(n)
        scales = np.array([1.0 if mask[j] else Z[:, j].std() for j in range(d)])
        lik = fitting.MarginalLikelihood(bases, Q, scales)
        nll, theta, self.n_iter_ = lik.minimise(Z[fit_rows], ys[fit_rows], rng, self.max_iter, self.n_restarts)
        ls, s2, noise = lik.unpack(theta)
        self.lengthscales_ = np.where(lik.has_l, ls, np.nan)
        self.order_variances_, self.noise_variance_ = s2, noise
        self.log_marginal_likelihood_value_ = -nll
        inducing = m if self.sparse_ else None
        self.support_, self.alpha_, self._factors = fitting.posterior(bases, Z, ys, ls, s2, noise, inducing, rng)
        return self

    def _validated(self, X: Any, name: str = "X") -> np.ndarray:
        """Rows checked against the fitted model (shape, feature names, NaN with rows and columns named)."""
        check_is_fitted(self)
        check_rows(X, name)
        if name == "X":  # scikit-learn's checks of shape and feature names; other inputs get their own name
            validate_data(self, X, reset=False, dtype=None, ensure_all_finite=False)
        d, names = self.n_features_in_, getattr(self, "feature_names_in_", None)
        return check_data(X, name=name, n_features=d, numeric_mask=~self.categorical_mask_, feature_names=names)

    def _encode(self, X: Any, name: str = "X") -> np.ndarray:
        """Validated, encoded and transformed copy of X as float64 (categories as codes)."""
        Xv = self._validated(X, name)  # first: NotFittedError before any fitted attribute is read
        return self._encoder.transform(Xv)

    def _mean_encoded(self, Z: np.ndarray) -> np.ndarray:
        """Posterior mean at rows already in the model's encoded space."""
        Kxs = fitting.additive_kernel(self.bases_, Z, self.support_, self._ls, self.order_variances_)
        return self.y_mean_ + self.y_std_ * (Kxs @ self.alpha_)

    def predict(self, X: Any, return_std: bool = False) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
        """Posterior mean (and, with ``return_std``, the standard deviation of the latent f).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n, d)
            Rows with the fitted model's features (labels in the categorical ones).
        return_std : bool
            Also return the posterior standard deviation of the latent function (no noise).

        Returns
        -------
        mean : ndarray of shape (n,)
            The posterior mean, in target units.
        std : ndarray of shape (n,)
            Only with ``return_std=True``: the latent posterior standard deviation, in target units.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.gp import OAKRegressor
        >>> X = np.random.default_rng(0).normal(size=(20, 2))
        >>> mean, std = OAKRegressor(max_iter=0).fit(X, X[:, 0]).predict(X[:3], return_std=True)
        >>> mean.shape, bool(np.all(std > 0))
        ((3,), True)
        """
        Z = self._encode(X)
        Kxs = fitting.additive_kernel(self.bases_, Z, self.support_, self._ls, self.order_variances_)
        mean = self.y_mean_ + self.y_std_ * (Kxs @ self.alpha_)
        if not return_std:
            return mean
        kdiag = fitting.additive_kernel_diag(self.bases_, Z, self._ls, self.order_variances_)
        var = fitting.latent_variance(kdiag, Kxs, self._factors, self.noise_variance_)
        return mean, self.y_std_ * np.sqrt(var)

    @property
    def feature_names_(self) -> list[str]:
        """The feature names (a DataFrame's columns, else x0..x{d-1})."""
        check_is_fitted(self)
        return list(self._names)

    def explain(self, X: Any, **options: Any) -> Explanation:
        """Exact local Shapley values in the functional-ANOVA game: ``OAKExplainer(self).explain(X, **options)``.

        ``phi_j(x) = sum_{T containing j} f_T(x) / |T|`` (additive-GP paper, section 3, Lemma 1); the values
        sum with the base value f_0 to ``predict(X)``.  For the interventional game, use ``OAKExplainer``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n, d)
            The rows to explain.
        **options
            Passed to :meth:`OAKExplainer.explain` (``uncertainty``, ``n_jobs``, ...).

        Returns
        -------
        Explanation
            The values of shape (n, d), base value f_0, game ``"anova"``.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.gp import OAKRegressor
        >>> X = np.random.default_rng(0).normal(size=(20, 2))
        >>> ex = OAKRegressor(max_iter=0).fit(X, X[:, 0]).explain(X[:3])
        >>> ex.values.shape, ex.game
        ((3, 2), 'anova')
        """
        from .explainer import OAKExplainer

        return OAKExplainer(self).explain(X, **options)

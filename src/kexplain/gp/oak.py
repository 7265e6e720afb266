"""The estimator of orthogonal additive GPs (OAK), after "Exact Shapley Value for Local and Global
Explanation of Additive Gaussian Processes": it ties together the constrained base kernels (section
2.2), the input checks and encoding, the marginal likelihood and posterior, and the games."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import check_data, check_legacy_random_state, feature_names_of
from ..attribution import GlobalAttribution
from ..explanation import Explanation
from . import _fitting as fitting
from ._checks import check_fit_inputs, check_rows, numeric_target, standardize_target
from ._encoding import InputEncoder, categorical_mask, feature_index
from ._games import component_values, variance_attribution
from ._interactions import GlobalInteractionsMixin

#: above this many training rows ``n_inducing=None`` switches to the sparse mode, with this many inducing points
SPARSE_THRESHOLD, DEFAULT_INDUCING = 5000, 500
#: hyperparameters are fitted on at most this many (randomly chosen) rows
MAX_FIT_ROWS = 1000


class OAKRegressor(GlobalInteractionsMixin, RegressorMixin, BaseEstimator):
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
        random_state: Any = None,
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

    @property
    def _ls(self) -> np.ndarray:
        return np.nan_to_num(self.lengthscales_, nan=1.0)

    def predict(self, X: Any, return_std: bool = False) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
        """Posterior mean (and, with ``return_std``, the standard deviation of the latent f).

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

    @property
    def constant_(self) -> float:
        """f_0: the constant ANOVA component (the mean of f under the input measure)."""
        check_is_fitted(self)
        return float(self.y_mean_ + self.y_std_ * self.order_variances_[0] * self.alpha_.sum())

    def explain(self, X: Any, **options: Any) -> Explanation:
        """Exact local Shapley values in the functional-ANOVA game: ``OAKExplainer(self).explain(X, **options)``.

        ``phi_j(x) = sum_{T containing j} f_T(x) / |T|`` (additive-GP paper, section 3, Lemma 1); the values
        sum with the base value f_0 to ``predict(X)``.  For the interventional game, use ``OAKExplainer``.

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

    def global_importance(self) -> GlobalAttribution:
        """Exact global variance Shapley values (additive-GP paper, section 4, Theorem 1) with Sobol indices.

        Returns
        -------
        GlobalAttribution
            ``total`` is the variance of the posterior mean under the product of the per-feature input
            measures (in target units), which the Shapley ``values`` sum to exactly; the columns
            ``first_order_sobol`` and ``total_sobol`` hold the Sobol indices (fractions of the
            variance) and ``info["component_variance"][q]`` the variance of all interactions of order q.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.gp import OAKRegressor
        >>> X = np.random.default_rng(0).normal(size=(30, 2))
        >>> gi = OAKRegressor(max_iter=10).fit(X, np.sin(2 * X[:, 0])).global_importance()
        >>> gi.ranking(), bool(np.all(gi.total_sobol >= gi.first_order_sobol))
        (['x0', 'x1'], True)
        """
        check_is_fitted(self)
        return variance_attribution(self)

    def component(self, features: Any, X: Any) -> np.ndarray:
        """The fitted ANOVA component f_T(x) for the feature subset T = ``features`` (int, name or list).

        ``component([], X)`` is the constant f_0; components above the interaction order are zero.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.gp import OAKRegressor
        >>> X = np.random.default_rng(0).normal(size=(20, 2))
        >>> gp = OAKRegressor(max_iter=0).fit(X, X[:, 0])
        >>> parts = sum(gp.component(T, X[:3]) for T in ([], [0], [1], [0, 1]))
        >>> bool(np.allclose(parts, gp.predict(X[:3])))
        True
        """
        check_is_fitted(self)
        if isinstance(features, (str, bytes)) or np.ndim(features) == 0:
            features = [features]
        idx = sorted({feature_index(f, self._names) for f in features})
        if len(idx) != len(list(features)):
            raise ValueError(f"features lists a feature twice: {features!r}.")
        Z = self._encode(X)
        if not idx:
            return np.full(Z.shape[0], self.constant_)
        if len(idx) > self.max_order_:
            return np.zeros(Z.shape[0])
        coef = self.y_std_ * self.order_variances_[len(idx)] * self.alpha_
        return component_values([self.bases_[j] for j in idx], Z[:, idx], self.support_[:, idx], self._ls[idx], coef)

    def sample_input_measure(self, n: int, random_state: Any = None) -> np.ndarray:
        """n rows drawn from the product of the per-feature input measures, in the model's encoded space.

        For Monte Carlo checks: evaluate them with the posterior mean in that space.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.gp import OAKRegressor
        >>> X = np.random.default_rng(0).normal(size=(20, 2))
        >>> OAKRegressor(max_iter=0).fit(X, X[:, 0]).sample_input_measure(5, random_state=0).shape
        (5, 2)
        """
        check_is_fitted(self)
        rng = check_legacy_random_state(random_state)
        return np.column_stack([b.sample(n, rng) for b in self.bases_])

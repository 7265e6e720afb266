"""The ANOVA side of the OAK estimator: its constant and components f_T, the exact global values and
draws from the input measure.

:class:`~kexplain.gp.OAKRegressor` inherits these from :class:`AnovaAccessors`, which keeps
``oak.py`` to fitting and prediction; they read only the fitted attributes listed below.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._typing import RandomStateLike
from .._validation import check_legacy_random_state
from ..attribution import GlobalAttribution
from ._encoding import feature_index
from ._games import component_values, variance_attribution


class AnovaAccessors:
    """The functional-ANOVA accessors of a fitted orthogonal additive GP (a mix-in of OAKRegressor)."""

    # fitted state, set by OAKRegressor.fit
    _names: list[str]
    bases_: list[Any]
    support_: np.ndarray
    alpha_: np.ndarray
    order_variances_: np.ndarray
    max_order_: int
    y_mean_: float
    y_std_: float

    lengthscales_: np.ndarray

    @property
    def _ls(self) -> np.ndarray:
        # categorical features have no lengthscale (NaN); their kernels ignore the value passed
        return np.nan_to_num(self.lengthscales_, nan=1.0)

    def _encode(self, X: Any, name: str = "X") -> np.ndarray:
        raise NotImplementedError  # OAKRegressor validates and encodes rows (oak.py)

    @property
    def constant_(self) -> float:
        """f_0: the constant ANOVA component (the mean of f under the input measure)."""
        check_is_fitted(self)
        return float(self.y_mean_ + self.y_std_ * self.order_variances_[0] * self.alpha_.sum())

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

        Parameters
        ----------
        features : int, str or sequence of int or str
            The feature subset T, by column index or name (each feature at most once); ``[]`` for f_0.
        X : array-like or DataFrame of shape (n, d)
            Rows to evaluate the component at, with every feature of the fitted model.

        Returns
        -------
        ndarray of shape (n,)
            f_T(x) for each row, in target units.

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

    def sample_input_measure(self, n: int, random_state: RandomStateLike = None) -> np.ndarray:
        """n rows drawn from the product of the per-feature input measures, in the model's encoded space.

        For Monte Carlo checks: evaluate them with the posterior mean in that space.

        Parameters
        ----------
        n : int
            Number of rows to draw.
        random_state : int, RandomState, Generator or None
            Seeds the draw.

        Returns
        -------
        ndarray of shape (n, d)
            The rows, in the encoded space (transformed continuous features, category codes).

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

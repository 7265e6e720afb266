"""Feature selection by the Shapley attribution of HSIC(features, target) (PKeX, section 5.3)."""
from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from ..kernels.base import Categorical
from .hsic import hsic_shapley


class HSICShapleySelector(SelectorMixin, BaseEstimator):
    """Keep the features with the largest Shapley share of HSIC(X, y).

    Each feature's score is its exact Shapley value in the HSIC game (the HSIC computed with the
    feature kernel restricted to a coalition); the scores sum to the HSIC between all features and
    the target.  Works as a step of a scikit-learn Pipeline and inside GridSearchCV.

    Parameters
    ----------
    n_features_to_select : int, float or None
        An int keeps that many features; a float in (0, 1] keeps that fraction of them (rounded,
        at least one); None keeps half.
    kernel_x : kexplain product kernel or None
        None: an RBF with one median-heuristic lengthscale over all (standardized) features.
    kernel_y : "auto", a kexplain kernel, or None
        "auto": the delta kernel Categorical(mismatch=0) for class labels (binary or multiclass
        targets, as sklearn's ``type_of_target`` sees them) and the median-heuristic RBF otherwise.
    estimator : "biased" (default, the paper's) or "unbiased"
    standardize : bool
        Scale features to unit variance before the kernel (the median heuristic with one
        lengthscale is otherwise dominated by the features with the largest range).
    max_samples : int or None
        Use at most this many rows (drawn with ``random_state``); the cost is O(n^2 d).

    Attributes
    ----------
    scores_ : array (n_features_in_,), the Shapley values
    attribution_ : StatAttribution
    ranking_ : array, 1 for the best feature
    n_features_in_, feature_names_in_
    """

    def __init__(self, n_features_to_select=None, kernel_x=None, kernel_y="auto", estimator="biased",
                 standardize=True, max_samples=None, random_state=None):
        self.n_features_to_select = n_features_to_select
        self.kernel_x = kernel_x
        self.kernel_y = kernel_y
        self.estimator = estimator
        self.standardize = standardize
        self.max_samples = max_samples
        self.random_state = random_state

    def _n_selected(self, d):
        k = self.n_features_to_select
        if k is None:
            return max(1, d // 2)
        if isinstance(k, (bool, np.bool_)):
            pass
        elif isinstance(k, Integral):
            if 1 <= k <= d:
                return int(k)
        elif isinstance(k, Real) and 0 < k <= 1:
            return max(1, int(round(k * d)))
        raise ValueError(
            f"n_features_to_select must be None, an integer in [1, {d}] or a fraction in (0, 1], got {k!r}."
        )

    def fit(self, X, y):
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None: the "
                "features are scored by their share of HSIC(X, y)."
            )
        X = validate_data(self, X, dtype=np.float64, ensure_min_samples=2)
        y = check_array(y, ensure_2d=False, dtype=None, ensure_all_finite=True)
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"X and y must have the same number of rows, got {X.shape[0]} and {y.shape[0]}.")
        k = self._n_selected(X.shape[1])
        if self.max_samples is not None:
            if not isinstance(self.max_samples, Integral) or self.max_samples < 2:
                raise ValueError(f"max_samples must be None or an integer >= 2, got {self.max_samples!r}.")
            if X.shape[0] > self.max_samples:
                rows = check_random_state(self.random_state).choice(X.shape[0], self.max_samples, replace=False)
                X, y = X[np.sort(rows)], y[np.sort(rows)]
        if self.standardize:
            sd = X.std(axis=0)
            X = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
        kernel_y = self.kernel_y
        if isinstance(kernel_y, str):
            if kernel_y != "auto":
                raise ValueError(f"kernel_y must be 'auto', None or a kexplain kernel, got {kernel_y!r}.")
            kind = type_of_target(y)
            kernel_y = Categorical(mismatch=0.0) if kind in ("binary", "multiclass") else None
        if kernel_y is None and y.dtype.kind not in "OUSb":
            y = y.astype(np.float64)
        self.attribution_ = hsic_shapley(X, y, kernel_x=self.kernel_x, kernel_y=kernel_y,
                                         attribute="x", estimator=self.estimator)
        self.scores_ = self.attribution_.values.copy()
        order = np.argsort(-self.scores_, kind="stable")
        self.ranking_ = np.empty(len(order), dtype=np.int64)
        self.ranking_[order] = np.arange(1, len(order) + 1)
        self.n_features_to_select_ = k
        return self

    def _get_support_mask(self):
        check_is_fitted(self, "scores_")
        return self.ranking_ <= self.n_features_to_select_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags

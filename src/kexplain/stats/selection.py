"""Feature selection by the Shapley attribution of HSIC(features, target).

Mohammadi, Chau & Muandet (2025), "Computing Exact Shapley Values in Polynomial Time for
Product-Kernel Methods" (PKeX-Shapley), section 5.3: rank the features by their exact Shapley share
of HSIC(X, y) (section 4.2) and keep the top ones.
"""

from __future__ import annotations

from numbers import Integral
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import Tags
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted, check_scalar, validate_data

from .._params import Integer, Real, check_param
from .._typing import RandomStateLike
from .._validation import check_bool, check_random_state
from ..attribution import GlobalAttribution
from ..kernels.base import Categorical, Kernel
from ._common import check_estimator_name
from .hsic import hsic_shapley


class HSICShapleySelector(SelectorMixin, BaseEstimator):
    """Keep the features with the largest Shapley share of HSIC(X, y).

    Each feature's score is its exact Shapley value in the HSIC game (the HSIC computed with the
    feature kernel restricted to a coalition of features; Mohammadi, Chau & Muandet, 2025,
    sections 4.2 and 5.3); the scores sum to the HSIC between all features and the target.  Works
    as a step of a scikit-learn Pipeline and inside GridSearchCV.

    Parameters
    ----------
    n_features_to_select : int, float or None, default None
        An int keeps that many features; a float in (0, 1] keeps that fraction of them (rounded,
        at least one); None keeps half.
    kernel_x : kexplain product kernel, optional
        None: an RBF with one median-heuristic lengthscale over all (standardized) features.
    kernel_y : "auto", kexplain kernel or None, default "auto"
        "auto": the delta kernel ``Categorical(mismatch=0)`` for class labels (binary or multiclass
        targets, as scikit-learn's ``type_of_target`` sees them) and the median-heuristic RBF
        otherwise; None: the median-heuristic RBF.
    estimator : {"biased", "unbiased"}, default "biased"
        The HSIC estimator (see :func:`kexplain.stats.hsic`); "biased" is the paper's.
    standardize : bool, default True
        Scale features to unit variance before the kernel (the median heuristic with one
        lengthscale is otherwise dominated by the features with the largest range).
    max_samples : int, optional
        Use at most this many rows (drawn with ``random_state``); the cost is O(n^2 d).
    random_state : None, int, numpy Generator, RandomState or SeedSequence
        Seeds the rows drawn for ``max_samples``; no effect without it.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        The Shapley values of HSIC, one per feature.
    attribution_ : GlobalAttribution
        The attribution the scores come from (``total`` is the HSIC).
    ranking_ : ndarray of shape (n_features,)
        1 for the best feature, 2 for the next, and so on.
    n_features_to_select_ : int
        The number of features kept.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X was a DataFrame with string column names.

    See Also
    --------
    kexplain.stats.hsic_shapley : the attribution on its own.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.stats import HSICShapleySelector
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 5))
    >>> y = X[:, 3] ** 2 + X[:, 0] + 0.1 * rng.normal(size=60)
    >>> sel = HSICShapleySelector(n_features_to_select=2).fit(X, y)
    >>> sel.get_support().nonzero()[0]
    array([0, 3])
    >>> sel.transform(X).shape
    (60, 2)
    """

    def __init__(
        self,
        n_features_to_select: int | float | None = None,
        kernel_x: Kernel | None = None,
        kernel_y: Kernel | str | None = "auto",
        estimator: str = "biased",
        standardize: bool = True,
        max_samples: int | None = None,
        random_state: RandomStateLike = None,
    ) -> None:
        self.n_features_to_select = n_features_to_select
        self.kernel_x = kernel_x
        self.kernel_y = kernel_y
        self.estimator = estimator
        self.standardize = standardize
        self.max_samples = max_samples
        self.random_state = random_state

    def _n_selected(self, d: int) -> int:
        k = self.n_features_to_select
        if k is None:
            return max(1, d // 2)
        what = f"None, an integer in [1, {d}] or a fraction in (0, 1]"
        # an integer is a count (checked first, so 1 is one feature), a float a fraction of d
        v = check_param(k, "n_features_to_select", Integer(1, d), Real(0, 1, closed="right"), what=what)
        return v if isinstance(v, int) else max(1, int(round(v * d)))

    def fit(self, X: Any, y: Any) -> HSICShapleySelector:
        """Score the features by their Shapley share of HSIC(X, y).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows of the features to select from.
        y : array-like of shape (n_samples,) or (n_samples, n_targets)
            A regression target, class labels, or several target columns.

        Returns
        -------
        self
            The fitted estimator.
        """
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None: the "
                "features are scored by their share of HSIC(X, y)."
            )
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2, multi_output=True, y_numeric=False)
        k = self._n_selected(X.shape[1])
        estimator = check_estimator_name(self.estimator)
        standardize = check_bool(self.standardize, "standardize")
        if self.max_samples is not None:
            check_scalar(self.max_samples, "max_samples", Integral, min_val=2)
            if X.shape[0] > self.max_samples:
                rng = check_random_state(self.random_state, "random_state")
                rows = np.sort(rng.choice(X.shape[0], self.max_samples, replace=False))
                X, y = X[rows], y[rows]
        if standardize:
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
        attribution = hsic_shapley(X, y, kernel_x=self.kernel_x, kernel_y=kernel_y, attribute="x", estimator=estimator)
        assert isinstance(attribution, GlobalAttribution)
        self.attribution_ = attribution
        self.scores_ = attribution.values.copy()
        order = np.argsort(-self.scores_, kind="stable")
        self.ranking_ = np.empty(len(order), dtype=np.int64)
        self.ranking_[order] = np.arange(1, len(order) + 1)
        self.n_features_to_select_ = k
        return self

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "scores_")
        return self.ranking_ <= self.n_features_to_select_

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags

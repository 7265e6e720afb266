"""The STAR model protocol: h(x) = intercept + sum_t f_t(x[:, I_t]).

A structured additive regression (STAR) model lists its terms; each term is a feature subset I
(column indices) and a function vectorised over rows that sees only those columns.  Anything that
can be described this way - GAMs, GA2Ms such as EBMs, sparse polynomials, STAR RKHS Weightings -
is explained exactly by ``StarExplainer`` at a cost independent of the total number of features.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from .._validation import check_data
from ..exceptions import UnsupportedModelError


class StarTerm:
    """One term f_I of a STAR model.

    Parameters
    ----------
    features : sequence of int
        The columns I the term reads, distinct, in the order the function expects them.
    function : callable
        ``function(X_I)`` with ``X_I`` of shape (n_rows, len(features)) returns shape (n_rows,)
        or (n_rows, n_outputs).
    name : str, optional
    """

    __slots__ = ("features", "function", "name")

    def __init__(self, features: Sequence[int], function: Callable[[np.ndarray], np.ndarray], name=None):
        feats = np.atleast_1d(np.asarray(features))
        if feats.ndim != 1 or feats.size == 0:
            raise ValueError(f"a term's features must be a non-empty 1-D sequence of column indices, got {features!r}.")
        if not np.issubdtype(feats.dtype, np.integer):
            raise TypeError(f"a term's features must be integer column indices, got {features!r}.")
        if np.any(feats < 0):
            raise ValueError(f"a term's features must be non-negative column indices, got {features!r}.")
        if len(set(feats.tolist())) != feats.size:
            raise ValueError(f"a term's features must be distinct, got {features!r}.")
        if not callable(function):
            raise TypeError(f"a term's function must be callable, got {type(function).__name__}.")
        self.features = tuple(int(j) for j in feats)
        self.function = function
        self.name = name if name is not None else "*".join(f"x{j}" for j in self.features)

    @property
    def size(self) -> int:
        return len(self.features)

    def __call__(self, X_I: np.ndarray) -> np.ndarray:
        return self.function(X_I)

    def __repr__(self):
        return f"StarTerm(features={self.features}, name={self.name!r})"


class StarModel:
    """A STAR model: an intercept plus a list of terms over feature subsets.

    Parameters
    ----------
    terms : list of StarTerm or of (features, function) pairs
    n_features : int, optional
        Total number of features of the input rows; by default one more than the largest index a
        term names.  Terms naming a column >= n_features are refused.
    intercept : float or array (n_outputs,)
    feature_names : list of str, optional
    output_names : list of str, optional
    """

    def __init__(self, terms, n_features: int | None = None, intercept=0.0, feature_names=None,
                 output_names=None):
        if isinstance(terms, StarTerm) or (isinstance(terms, tuple) and len(terms) == 2 and callable(terms[1])):
            terms = [terms]   # a single term given bare
        try:
            terms = list(terms)
        except TypeError:
            raise TypeError(
                f"terms must be a list of StarTerm or (features, function) pairs, got {type(terms).__name__}."
            ) from None
        self.terms = [_as_term(t, i) for i, t in enumerate(terms)]
        largest = max((max(t.features) for t in self.terms), default=-1)
        if n_features is None:
            if feature_names is not None:
                n_features = len(feature_names)
            else:
                n_features = largest + 1
        if isinstance(n_features, (bool, np.bool_)) or not isinstance(n_features, (int, np.integer)) or n_features < 1:
            raise ValueError(f"n_features must be a positive integer, got {n_features!r}.")
        n_features = int(n_features)
        for i, t in enumerate(self.terms):
            bad = [j for j in t.features if j >= n_features]
            if bad:
                raise ValueError(
                    f"term {i} ({t.name}) names feature(s) {bad} out of range: the model has "
                    f"n_features={n_features}, so indices must lie in 0..{n_features - 1}."
                )
        self.n_features = n_features
        self.intercept = np.atleast_1d(np.asarray(intercept, dtype=np.float64))
        if self.intercept.ndim != 1 or not np.all(np.isfinite(self.intercept)):
            raise ValueError(f"intercept must be a finite scalar or 1-D array, got {intercept!r}.")
        if feature_names is not None and len(feature_names) != n_features:
            raise ValueError(f"feature_names has {len(feature_names)} names for n_features={n_features}.")
        self.feature_names = None if feature_names is None else [str(f) for f in feature_names]
        self.output_names = None if output_names is None else [str(o) for o in output_names]

    @property
    def max_order(self) -> int:
        """The largest term size k (the STAR-SHAP cost grows as 2^k)."""
        return max((t.size for t in self.terms), default=0)

    def predict(self, X) -> np.ndarray:
        """h(x) for each row: (N,) for one output, (N, n_outputs) for several."""
        X = check_data(X, name="X", n_features=self.n_features)
        out = np.zeros((X.shape[0], self.intercept.size)) + self.intercept
        for i, t in enumerate(self.terms):
            out = out + evaluate_term(t, X[:, list(t.features)], i)
        return out[:, 0] if out.shape[1] == 1 else out

    def __repr__(self):
        return f"StarModel({len(self.terms)} terms, n_features={self.n_features}, max_order={self.max_order})"


def evaluate_term(term: StarTerm, X_I: np.ndarray, index: int = 0) -> np.ndarray:
    """The term's values as an (n_rows, n_outputs) float array, checked for shape and finiteness."""
    vals = np.asarray(term.function(X_I), dtype=np.float64)
    n = X_I.shape[0]
    if vals.ndim == 1 and vals.shape[0] == n:
        vals = vals[:, None]
    elif not (vals.ndim == 2 and vals.shape[0] == n):
        raise ValueError(
            f"term {index} ({term.name}) must return shape (n_rows,) or (n_rows, n_outputs) for "
            f"{n} rows, but returned shape {vals.shape}."
        )
    if not np.all(np.isfinite(vals)):
        raise ValueError(f"term {index} ({term.name}) returned NaN or infinite values.")
    return vals


def _as_term(t, i) -> StarTerm:
    if isinstance(t, StarTerm):
        return t
    if isinstance(t, (tuple, list)) and len(t) in (2, 3) and callable(t[1]):
        return StarTerm(t[0], t[1], *(t[2:]))
    raise TypeError(
        f"term {i} must be a StarTerm or a (features, function) pair, got {type(t).__name__}: {t!r}."
    )


def as_star_model(model, n_features: int | None = None) -> StarModel:
    """A StarModel view of ``model``.

    Accepted: a StarModel; an object with a ``to_star_model()`` method (kexplain's fitted
    RKHSWeightingRegressor / RKHSWeightingClassifier); interpret's fitted
    ExplainableBoostingRegressor / ExplainableBoostingClassifier; a list of (features, function)
    pairs or StarTerm objects.
    """
    if isinstance(model, StarModel):
        star = model
    elif hasattr(model, "to_star_model") and callable(model.to_star_model):
        star = model.to_star_model()
    elif type(model).__name__ in ("ExplainableBoostingRegressor", "ExplainableBoostingClassifier"):
        from .ebm import ebm_to_star

        star = ebm_to_star(model)
    elif isinstance(model, (list, tuple)):
        star = StarModel(model, n_features=n_features)
    else:
        raise UnsupportedModelError(
            f"{type(model).__name__} is not a STAR model. StarExplainer accepts a kx.star.StarModel, a "
            "list of (features, function) pairs, a fitted kx.star.RKHSWeightingRegressor or "
            "RKHSWeightingClassifier, or a fitted interpret ExplainableBoostingRegressor / "
            "ExplainableBoostingClassifier. For other models use kx.ProductKernelExplainer "
            "(product-kernel models) or kx.exact_shapley / kx.sampled_shapley (any model)."
        )
    if n_features is not None and star.n_features != n_features:
        raise ValueError(
            f"the model has {star.n_features} features but the data have {n_features} columns."
        )
    return star

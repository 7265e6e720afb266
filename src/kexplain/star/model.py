"""The STAR model protocol: h(x) = intercept + sum_t f_t(x[:, I_t]).

A structured additive regression (STAR) model lists its terms; each term is a feature subset I
(column indices) and a function vectorised over rows that sees only those columns (Dubé &
Marchand, "Shapley Values of Structured Additive Regression Models and Application to RKHS
Weightings of Functions", section 2.2, equation 16).  Anything that can be described this way -
GAMs, GA2Ms such as EBMs, sparse polynomials, STAR RKHS Weightings - is explained exactly by
:class:`~kexplain.star.StarExplainer` at a cost independent of the total number of features.

This module knows nothing of the models it can describe: the adapters that turn fitted models
into a :class:`StarModel` live in :mod:`kexplain.star.adapters`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._params import Integer, check_param
from .._validation import MAGNITUDE_LIMIT, check_data

#: the output a StarModel built from plain terms explains
SUM_OF_TERMS = "sum of terms"


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
        Label of the term; defaults to the features joined by ``*`` (``"x0*x2"``).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.star import StarTerm
    >>> term = StarTerm((0, 2), lambda X: X[:, 0] * X[:, 1])
    >>> term
    StarTerm(features=(0, 2), name='x0*x2')
    >>> term(np.array([[2.0, 3.0]]))
    array([6.])
    """

    __slots__ = ("features", "function", "name")

    def __init__(
        self,
        features: Sequence[int] | np.ndarray,
        function: Callable[[np.ndarray], Any],
        name: str | None = None,
    ) -> None:
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
        self.features: tuple[int, ...] = tuple(int(j) for j in feats)
        self.function = function
        self.name: str = str(name) if name is not None else "*".join(f"x{j}" for j in self.features)

    @property
    def size(self) -> int:
        """Number of features the term reads, ``|I|``."""
        return len(self.features)

    def __call__(self, X_I: np.ndarray) -> Any:
        return self.function(X_I)

    def __repr__(self) -> str:
        return f"StarTerm(features={self.features}, name={self.name!r})"


class StarModel:
    """A STAR model: an intercept plus a list of terms over feature subsets.

    Parameters
    ----------
    terms : list of StarTerm or of (features, function) pairs
        The terms f_I; a single term may be given bare.
    n_features : int, optional
        Total number of features of the input rows; by default the number of ``feature_names``,
        else one more than the largest index a term names.  Terms naming a column >= n_features
        are refused.
    intercept : float or array-like of shape (n_outputs,)
        Constant added to the sum of the terms.
    feature_names : list of str, optional
        One name per feature.
    output_names : list of str, optional
        One name per output.
    output : str
        Which model output the terms add up to, in words; adapters set it
        (``"predict of RKHSWeightingRegressor"``), a model built from plain terms keeps the
        default ``"sum of terms"``.  It becomes the ``output`` of the explanations.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.star import StarModel
    >>> model = StarModel([((0,), lambda X: X[:, 0] ** 2), ((0, 1), lambda X: X[:, 0] * X[:, 1])],
    ...                   n_features=3, intercept=1.0)
    >>> model
    StarModel(2 terms, n_features=3, max_order=2)
    >>> model.predict(np.array([[1.0, 2.0, 5.0], [3.0, 0.0, 0.0]]))
    array([ 4., 10.])
    """

    def __init__(
        self,
        terms: Any,
        n_features: int | None = None,
        intercept: Any = 0.0,
        feature_names: Sequence[str] | None = None,
        output_names: Sequence[str] | None = None,
        *,
        output: str = SUM_OF_TERMS,
    ) -> None:
        if isinstance(terms, StarTerm) or (isinstance(terms, tuple) and len(terms) == 2 and callable(terms[1])):
            terms = [terms]  # a single term given bare
        try:
            terms = list(terms)
        except TypeError:
            raise TypeError(
                f"terms must be a list of StarTerm or (features, function) pairs, got {type(terms).__name__}."
            ) from None
        self.terms: list[StarTerm] = [_as_term(t, i) for i, t in enumerate(terms)]
        largest = max((max(t.features) for t in self.terms), default=-1)
        if n_features is None:
            n_features = len(feature_names) if feature_names is not None else largest + 1
        check_param(n_features, "n_features", Integer(1))
        n_features = int(n_features)
        for i, t in enumerate(self.terms):
            bad = [j for j in t.features if j >= n_features]
            if bad:
                raise ValueError(
                    f"term {i} ({t.name}) names feature(s) {bad} out of range: the model has "
                    f"n_features={n_features}, so indices must lie in 0..{n_features - 1}."
                )
        self.n_features: int = n_features
        self.intercept: np.ndarray = np.atleast_1d(np.asarray(intercept, dtype=np.float64))
        if self.intercept.ndim != 1 or not np.all(np.isfinite(self.intercept)):
            raise ValueError(f"intercept must be a finite scalar or 1-D array, got {intercept!r}.")
        if feature_names is not None and len(feature_names) != n_features:
            raise ValueError(f"feature_names has {len(feature_names)} names for n_features={n_features}.")
        self.feature_names: list[str] | None = None if feature_names is None else [str(f) for f in feature_names]
        self.output_names: list[str] | None = None if output_names is None else [str(o) for o in output_names]
        self.output: str = str(output)

    @property
    def max_order(self) -> int:
        """The largest term size k (the STAR-SHAP cost grows as 2^k)."""
        return max((t.size for t in self.terms), default=0)

    def predict(self, X: Any) -> np.ndarray:
        """h(x) for each row of ``X``.

        Parameters
        ----------
        X : array-like of shape (N, n_features)
            The rows.

        Returns
        -------
        ndarray of shape (N,) for one output, (N, n_outputs) for several.
            The sum of the terms (plus the intercept) at every row.
        """
        X = check_data(X, name="X", n_features=self.n_features)
        out = np.zeros((X.shape[0], self.intercept.size)) + self.intercept
        for i, t in enumerate(self.terms):
            out = out + evaluate_term(t, X[:, list(t.features)], i)
        return out[:, 0] if out.shape[1] == 1 else out

    def __repr__(self) -> str:
        return f"StarModel({len(self.terms)} terms, n_features={self.n_features}, max_order={self.max_order})"


def evaluate_term(term: StarTerm, X_I: np.ndarray, index: int = 0) -> np.ndarray:
    """The term's values on rows ``X_I`` as an (n_rows, n_outputs) float array.

    Parameters
    ----------
    term : StarTerm
        The term.
    X_I : ndarray of shape (n_rows, term.size)
        The term's columns of the rows, in the term's order.
    index : int
        Position of the term in its model, named in error messages.

    Returns
    -------
    ndarray of shape (n_rows, n_outputs)
        Checked for shape and finiteness.

    Raises
    ------
    ValueError
        Naming the term, when it returns complex or non-numeric values, the wrong shape, or
        NaN or infinite values.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.star import StarTerm
    >>> from kexplain.star.model import evaluate_term
    >>> evaluate_term(StarTerm((1,), lambda X: 2 * X[:, 0]), np.array([[1.0], [3.0]]))
    array([[2.],
           [6.]])
    """
    raw = np.asarray(term.function(X_I))
    if raw.dtype.kind == "c":
        raise ValueError(
            f"term {index} ({term.name}) returned complex values; a term must return real numbers "
            "(take the real part or the modulus in the function if that is what is meant)."
        )
    try:
        vals = raw.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"term {index} ({term.name}) must return numbers, but returned an array of dtype {raw.dtype}."
        ) from None
    n = X_I.shape[0]
    if vals.ndim == 1 and vals.shape[0] == n:
        vals = vals[:, None]
    elif not (vals.ndim == 2 and vals.shape[0] == n):
        raise ValueError(
            f"term {index} ({term.name}) must return shape (n_rows,) or (n_rows, n_outputs) for "
            f"{n} rows, but returned shape {vals.shape}."
        )
    if not np.all(np.isfinite(vals)):
        largest = float(np.max(np.abs(X_I), initial=0.0)) if X_I.dtype.kind in "fiu" else 0.0
        # finite inputs this large overflow in ordinary terms: name the data, not only the term
        hint = (
            f" on inputs as large as {largest:.3g} (rows of X or of the background); rescale the data"
            if largest > MAGNITUDE_LIMIT
            else ""
        )
        raise ValueError(f"term {index} ({term.name}) returned NaN or infinite values{hint}.")
    return vals


def _as_term(t: Any, i: int) -> StarTerm:
    if isinstance(t, StarTerm):
        return t
    if isinstance(t, (tuple, list)) and len(t) in (2, 3) and callable(t[1]):
        return StarTerm(t[0], t[1], *(t[2:]))
    raise TypeError(f"term {i} must be a StarTerm or a (features, function) pair, got {type(t).__name__}: {t!r}.")

"""Input validation at the public boundary (one place, clear messages).

The one validation entry: every folder imports its checks from here.  This module holds the
array entry (:func:`check_data`, the magnitude bound, :func:`match_columns`, :func:`check_weights`);
the pieces live in sibling modules that only this one imports: ``_validation_columns`` (column
names, labels, conversion to numbers), ``_validation_sparse`` (scipy sparse input) and
``_validation_options`` (flags, interaction indices, ``n_jobs``, random states).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._validation_columns import (
    _check_table,
    _numeric_1d,
    _numeric_estimator,
    column_label,
    feature_names_of,
    is_missing,
    to_array,
)
from ._validation_options import (
    INTERACTION_INDICES,
    check_bool,
    check_interactions,
    check_legacy_random_state,
    check_n_jobs,
    check_random_state,
    validate_n_jobs,
)
from ._validation_sparse import check_sparse_data, is_sparse

__all__ = [
    "INTERACTION_INDICES",
    "MAGNITUDE_LIMIT",
    "SPARSE_POLICIES",
    "check_bool",
    "check_data",
    "check_interactions",
    "check_legacy_random_state",
    "check_magnitude",
    "check_n_jobs",
    "check_random_state",
    "check_sparse_data",
    "check_weights",
    "column_label",
    "feature_names_of",
    "is_missing",
    "is_sparse",
    "match_columns",
    "to_array",
    "validate_n_jobs",
]


#: past this magnitude squared distances (and variances) of rows overflow float64, and below its
#: reciprocal a lengthscale chosen from the data by the median heuristic underflows when squared:
#: the one bound every check of magnitudes reads
MAGNITUDE_LIMIT = 1e150

#: how ``check_data`` treats a scipy sparse matrix: densify it, refuse it, or keep it sparse
#: (validated by :func:`check_sparse_data`)
SPARSE_POLICIES = ("densify", "refuse", "keep")


def check_magnitude(
    arr: np.ndarray,
    name: str,
    *,
    huge: bool = True,
    tiny: bool = False,
    rescale: str = "e.g. standardize its columns",
) -> None:
    """Refuse numbers whose squares overflow (``huge``) or whose spread is too small to measure (``tiny``).

    The bound is :data:`MAGNITUDE_LIMIT` (1e150): squared distances and variances of such values
    overflow float64, and a lengthscale chosen from a spread below 1e-150 underflows when squared.

    Parameters
    ----------
    arr : ndarray of floats
    name : str
        What ``arr`` is called in messages.
    huge, tiny : bool
        Which of the two bounds to enforce.
    rescale : str
        How to rescale, for the message.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain._validation import check_magnitude
    >>> check_magnitude(np.ones((2, 1)), "X")
    >>> try:
    ...     check_magnitude(np.array([[1e300], [0.0]]), "X")
    ... except ValueError as exc:
    ...     print(str(exc)[:34])
    X has values as large as 1e+300; t
    """
    if arr.size == 0 or arr.dtype.kind not in "biuf":
        return
    big = max(float(arr.max()), -float(arr.min()))  # no |arr| temporary
    if huge and big > MAGNITUDE_LIMIT:
        raise ValueError(
            f"{name} has values as large as {big:.3g}; their squares (squared distances, variances) overflow "
            f"float64: rescale {name} ({rescale})."
        )
    spread = float(np.max(arr) - np.min(arr))
    if tiny and 0.0 < spread < 1.0 / MAGNITUDE_LIMIT:
        raise ValueError(
            f"{name} varies by only {spread:.3g}; kernel lengthscales that small underflow: rescale {name} ({rescale})."
        )


def _ndim_error(name: str, arr: np.ndarray, ndims: Sequence[int]) -> ValueError:
    """What ``name`` must be and what it is, with scikit-learn's "Reshape your data" hint."""
    what = " or ".join("a 1-D array (n_samples,)" if k == 1 else "a 2-D array (n_samples, n_features)" for k in ndims)
    got = "a scalar" if arr.ndim == 0 else f"a {arr.ndim}-D array of shape {arr.shape}"
    hint = (
        f" Reshape your data: {name}.reshape(-1, 1) for a single feature, {name}.reshape(1, -1) for a single sample."
        if 2 in ndims
        else ""
    )
    return ValueError(f"{name} must be {what}, got {got}.{hint}")


def check_data(
    X: Any,
    *,
    name: str = "X",
    n_features: int | None = None,
    numeric_mask: np.ndarray | None = None,
    feature_names: Sequence[str] | None = None,
    min_rows: int = 1,
    ndims: Sequence[int] = (2,),
    n_rows: int | None = None,
    rows_of: str = "",
    min_features: int = 0,
    sparse: str = "densify",
    dense_reason: str = "",
    convert: bool = True,
    text_advice: str | None = None,
    huge: bool = False,
    tiny: bool = False,
    rescale: str = "e.g. standardize its columns",
    estimator: bool = False,
    column_names: Sequence[str] | None = None,
    copy: bool = True,
) -> np.ndarray:
    """Validate a data set: the one entry for arrays at kexplain's public boundary.

    Returns a float64 array, or an object array when some features are categorical labels
    (``numeric_mask`` False), with the numeric columns as floats.  The options state what the
    caller accepts; every message names ``name`` and says what is accepted.

    Parameters
    ----------
    X : array-like, DataFrame or scipy sparse matrix of shape (n, d) (or (n,) when ``ndims`` allows it)
    name : str
        What ``X`` is called in messages (``"X"``, ``"background"``, ``"--data rows.csv"``).
    n_features : int, optional
        The number of features the model expects.
    numeric_mask : bool array of shape (d,), optional
        Which features must be numbers (default: all); the others are labels (the text and
        categorical policy: labels are kept as objects, missing labels refused).
    feature_names : sequence of str, optional
        The columns a DataFrame must have, in this order.
    min_rows : int
        The fewest rows accepted.
    ndims : sequence of int
        The numbers of dimensions accepted: ``(2,)`` (default), ``(1,)`` or ``(1, 2)``.
    n_rows : int, optional
        The number of rows required, matching ``rows_of`` (named in the message).
    rows_of : str
        What the rows must match ("X"), for the message.
    min_features : int
        The fewest columns accepted (0 or 1).
    sparse : {"densify", "refuse", "keep"}
        The sparse policy: a scipy sparse matrix is densified, refused (with ``dense_reason``), or
        kept sparse: validated by :func:`check_sparse_data` and returned as a CSR matrix.
    dense_reason : str
        Why dense data is needed, for the refusal of a sparse matrix.
    convert : bool
        Convert to numbers (the default); False checks shape and type only and returns the array as
        given (for estimators that encode label columns themselves).
    text_advice : str, optional
        What to do with text in a numeric column (default: how to encode it or declare it a label).
    huge, tiny : bool
        The magnitude bound (:data:`MAGNITUDE_LIMIT`): refuse values whose squares overflow
        (``huge``), or a spread too small for a lengthscale (``tiny``); ``rescale`` says how to rescale.
    rescale : str
        How to rescale, for the magnitude messages.
    estimator : bool
        Phrase the messages as scikit-learn's estimator checks look for them ("Reshape your data",
        "0 sample(s)", "0 feature(s)", "NaN or infinity"), with the argument named.
    column_names : sequence of str, optional
        Names for the columns in messages only (never compared with a DataFrame's header).
    copy : bool
        Return a new array (default); False lets a float64 input pass through without a copy.

    Returns
    -------
    ndarray of shape (n, d) (or (n,))

    Raises
    ------
    ValueError
        Naming ``name`` for: None, wrong dimensionality, too few rows, a wrong number of features,
        columns that differ from ``feature_names``, non-numeric values in numeric features, NaN
        or infinite values (rows and columns named), values beyond the magnitude bound.
    TypeError
        For a sparse matrix when ``sparse="refuse"``, and (``estimator``) entries that are neither
        numbers nor text.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain._validation import check_data
    >>> check_data([[1, 2], [3, 4]], n_features=2)
    array([[1., 2.],
           [3., 4.]])
    >>> try:
    ...     check_data([[1.0, np.nan]], name="background")
    ... except ValueError as exc:
    ...     print(exc)
    background contains NaN or infinite values at (row 0, column 1).
    >>> check_data([1.0, 2.0], name="y", ndims=(1, 2))
    array([1., 2.])
    """
    if X is None:
        if estimator:
            raise ValueError(f"This estimator requires {name} to be passed, but the target {name} is None.")
        raise ValueError(f"{name} is required, got None.")
    if sparse not in SPARSE_POLICIES:
        raise ValueError(f"sparse must be one of {SPARSE_POLICIES}, got {sparse!r}.")
    if sparse == "refuse" and hasattr(X, "toarray") and hasattr(X, "nnz"):
        raise TypeError(
            f"{name} is a scipy sparse matrix; {dense_reason or 'dense data is needed here'}: pass {name}.toarray()."
        )
    if sparse == "keep" and is_sparse(X):
        return check_sparse_data(X, name=name, n_features=n_features, min_rows=min_rows)  # a CSR matrix
    if (
        type(X) is np.ndarray
        and X.dtype == np.float64
        and X.ndim == 2
        and 2 in ndims
        and convert
        and not (estimator or huge or tiny)
        and numeric_mask is None
        and X.shape[0] >= max(min_rows, 1)
        and X.shape[1] >= min_features
        and (n_features is None or X.shape[1] == n_features)
        and (n_rows is None or X.shape[0] == n_rows)
    ):
        # a float64 array of the right shape (every explain call with a NumPy X): what the general
        # path returns for it (no column names to compare), unless some value is not finite,
        # which the general path then reports by row and column
        out = X.astype(np.float64, copy=copy)
        if np.isfinite(out).all():
            return out
    names = feature_names_of(X)
    arr = to_array(X, name)
    if arr.dtype.kind == "c" and (estimator or not convert):
        raise ValueError(
            f"Complex data not supported: {name} has complex values; kernels here take real numbers or labels."
        )
    if arr.ndim == 1 and n_features is not None and arr.shape[0] == n_features and n_features > 1 and 1 not in ndims:
        raise ValueError(
            f"{name} must be 2-D with shape (n_samples, n_features); got a 1-D array of length "
            f"{arr.shape[0]}. Use {name}.reshape(1, -1) for a single row."
        )
    if arr.ndim not in ndims:
        if estimator or not convert or tuple(ndims) != (2,):
            raise _ndim_error(name, arr, ndims)
        raise ValueError(f"{name} must be a 2-D array of shape (n_samples, n_features), got shape {arr.shape}.")
    if arr.shape[0] < min_rows:
        if estimator or not convert:
            raise ValueError(
                f"{name} has {arr.shape[0]} sample(s) (shape={arr.shape}) while a minimum of {min_rows} is "
                f"required: {name} needs at least {min_rows} row(s)."
            )
        raise ValueError(f"{name} must have at least {min_rows} row(s), got {arr.shape[0]}.")
    if arr.ndim == 2 and arr.shape[1] < min_features:
        if estimator or not convert:
            raise ValueError(
                f"{name} has {arr.shape[1]} feature(s) (shape={arr.shape}) while a minimum of {min_features} is "
                f"required: {name} needs at least {min_features} column(s)."
            )
        raise ValueError(
            f"{name} must have at least {'one feature' if min_features == 1 else f'{min_features} features'} "
            f"(column), got shape {arr.shape}."
        )
    if not convert:
        return arr
    if arr.dtype.kind == "c":
        raise ValueError(f"{name} has complex values; kernels here take real numbers or labels.")
    if arr.ndim == 1 or estimator:
        out = _numeric_estimator(arr, name) if estimator else _numeric_1d(arr, name)
    else:
        if column_names is not None and names is None and feature_names is None and len(column_names) == arr.shape[1]:
            names = [str(c) for c in column_names]
        out = _check_table(arr, name, names, n_features, numeric_mask, feature_names, text_advice, copy)
    if n_rows is not None and out.shape[0] != n_rows:
        raise ValueError(
            f"{name} has {out.shape[0]} rows, but {rows_of} has {n_rows}: found input variables with inconsistent "
            "numbers of samples."
        )
    if huge or tiny:
        check_magnitude(out, name, huge=huge, tiny=tiny, rescale=rescale)
    return out


def match_columns(value: Any, columns: Any, name: str) -> None:
    """Refuse a DataFrame ``value`` whose columns differ from the ``columns`` seen in fit (in order),
    with the message of :func:`check_data`.

    Parameters
    ----------
    value : array-like or DataFrame
    columns : sequence of str or None
        The columns seen in fit (None: fitted on an array, nothing to compare).
    name : str
        What ``value`` is called in messages.

    Examples
    --------
    >>> import pandas as pd
    >>> from kexplain._validation import match_columns
    >>> try:
    ...     match_columns(pd.DataFrame({"b": [1.0], "a": [2.0]}), ["a", "b"], "x")
    ... except ValueError as exc:
    ...     print(str(exc)[:46])
    x has the model's columns in a different order
    """
    if columns is None:
        return
    names = feature_names_of(value)
    expected = [str(c) for c in columns]
    if names is not None and names != expected:
        check_data(value, name=name, feature_names=expected, min_rows=0)  # raises, naming the columns


def check_weights(weights: Any, n: int, name: str = "background_weights") -> np.ndarray:
    """Non-negative finite weights, one per row, normalised to sum to one.

    The weights are divided by the largest one before they are summed, so weights whose sum
    overflows (or whose values are subnormal) are normalised exactly; complex weights are refused.

    Parameters
    ----------
    weights : array-like of shape (n,)
    n : int
        The number of rows weighted.
    name : str
        What the weights are called in messages.

    Returns
    -------
    ndarray of shape (n,)

    Examples
    --------
    >>> from kexplain._validation import check_weights
    >>> check_weights([1, 3], 2)
    array([0.25, 0.75])
    >>> check_weights([1e308, 1e308], 2)        # the sum would overflow: scaled first
    array([0.5, 0.5])
    """
    raw = to_array(weights, name)
    if raw.dtype.kind == "c":
        raise ValueError(f"{name} has complex values; weights must be real non-negative numbers.")
    try:
        w = raw.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"{name} must be a 1-D array of {n} non-negative numbers (one per background row), got {weights!r}."
        ) from None
    if w.ndim != 1 or w.shape[0] != n:
        raise ValueError(f"{name} must be a 1-D array with one weight per row ({n}), got shape {w.shape}.")
    if not np.all(np.isfinite(w)) or np.any(w < 0) or not np.any(w > 0):
        raise ValueError(f"{name} must be non-negative, finite and not all zero.")
    # scaled by the largest weight first, so the sum cannot overflow (nor tiny weights underflow)
    w = w / w.max()
    return w / w.sum()

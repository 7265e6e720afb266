"""Checks of the data and options of the embedding and causal estimators, naming the argument.

scikit-learn's ``validate_data`` says "Expected 2D array" or "could not convert string to float"
without saying which argument is wrong; these checks run first, keep the phrases scikit-learn's
estimator checks look for ("Reshape your data", "0 sample(s)", "0 feature(s)", "Complex data not
supported", "NaN", "argument must be ... string ... number") and add the argument's name.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

import numpy as np

from .._validation import check_data, feature_names_of, to_array

#: past this magnitude squared distances between rows overflow float64 (and below its reciprocal
#: a median-heuristic lengthscale squared underflows to zero)
_LARGEST = 1e150


def check_array_arg(
    a: Any,
    name: str,
    *,
    ndims: tuple[int, ...] = (2,),
    n_rows: int | None = None,
    rows_of: str = "",
    huge: bool = True,
    tiny: bool = False,
) -> np.ndarray:
    """``a`` as a finite float64 array with one of ``ndims`` dimensions, or an error naming ``name``.

    Parameters
    ----------
    a : array-like
    name : str
        What ``a`` is called in messages.
    ndims : tuple of int
        The numbers of dimensions accepted.
    n_rows : int, optional
        The number of rows ``a`` must have (``rows_of`` says what they match).
    rows_of : str
        What the rows must match, for the message ("X has 15 rows").
    huge : bool
        Whether to refuse values so large that squared distances or variances overflow.
    tiny : bool
        Whether to refuse a spread so small that a lengthscale chosen from the data underflows
        (for data a median heuristic is computed on).

    Returns
    -------
    ndarray

    Examples
    --------
    >>> from kexplain.embeddings._checks import check_array_arg
    >>> check_array_arg([[1.0], [2.0]], "Y2").shape
    (2, 1)
    >>> try:
    ...     check_array_arg([1.0, 2.0], "Y2")
    ... except ValueError as exc:
    ...     print(str(exc)[:46])
    Y2 must be a 2-D array (rows, features), got a
    """
    if a is None:
        raise ValueError(f"This estimator requires {name} to be passed, but the target {name} is None.")
    arr = to_array(a, name)
    if arr.dtype.kind == "c":
        raise ValueError(f"Complex data not supported: {name} has complex values; it must hold real numbers.")
    if arr.ndim not in ndims:
        what = " or ".join("a 1-D array (rows,)" if k == 1 else "a 2-D array (rows, features)" for k in ndims)
        got = "a scalar" if arr.ndim == 0 else f"a {arr.ndim}-D array of shape {arr.shape}"
        hint = f" Reshape your data: {name}.reshape(-1, 1) for a single feature." if 2 in ndims else ""
        raise ValueError(f"{name} must be {what}, got {got}.{hint}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} has 0 sample(s) (shape={arr.shape}) while a minimum of 1 is required.")
    if arr.ndim == 2 and arr.shape[1] == 0:
        raise ValueError(f"{name} has 0 feature(s) (shape={arr.shape}) while a minimum of 1 is required.")
    if arr.dtype.kind not in "biuf":
        try:
            arr = arr.astype(np.float64)
        except ValueError:
            example = next((v for v in arr.ravel() if isinstance(v, (str, bytes))), arr.ravel()[0])
            raise ValueError(f"{name} must hold numbers; got text such as {example!r}.") from None
        except TypeError:
            bad = next(v for v in arr.ravel() if not isinstance(v, (Real, str, bytes)))
            raise TypeError(
                f"{name} has an entry of type {type(bad).__name__}: each argument must be a real number or a "
                "string holding a number."
            ) from None
    arr = np.asarray(arr, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        at = [int(i) for i in np.argwhere(~np.isfinite(arr))[0]]
        where = f"row {at[0]}" + (f", column {at[1]}" if len(at) > 1 else "")
        raise ValueError(f"{name} contains NaN or infinity ({where}).")
    if n_rows is not None and arr.shape[0] != n_rows:
        raise ValueError(
            f"{name} has {arr.shape[0]} rows, but {rows_of} has {n_rows}: found input variables with inconsistent "
            "numbers of samples."
        )
    check_magnitude(arr, name, huge=huge, tiny=tiny)
    return arr


def check_magnitude(arr: np.ndarray, name: str, *, huge: bool = True, tiny: bool = True) -> None:
    """Refuse data whose squares overflow (``huge``) or whose spread is too small to measure (``tiny``).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.embeddings._checks import check_magnitude
    >>> check_magnitude(np.ones((2, 1)), "X")
    >>> try:
    ...     check_magnitude(np.array([[1e300], [0.0]]), "X")
    ... except ValueError as exc:
    ...     print(str(exc)[:34])
    X has values as large as 1e+300; t
    """
    if arr.size == 0:
        return
    big = float(np.max(np.abs(arr)))
    if huge and big > _LARGEST:
        raise ValueError(
            f"{name} has values as large as {big:.3g}; their squares (distances, variances) overflow float64: "
            f"rescale {name} (e.g. standardize its columns)."
        )
    spread = float(np.max(arr) - np.min(arr))
    if tiny and 0.0 < spread < 1.0 / _LARGEST:
        raise ValueError(
            f"{name} varies by only {spread:.3g}; kernel lengthscales that small underflow: rescale {name} "
            "(e.g. standardize its columns)."
        )


def check_positive(
    value: Any, name: str, *, allow_zero: bool = False, allow_array: bool = False, finite: bool = True
) -> Any:
    """A positive (or non-negative) real number, or with ``allow_array`` an array of them.

    Returns a float, or a float64 array when ``allow_array`` and ``value`` is array-like.

    Examples
    --------
    >>> from kexplain.embeddings._checks import check_positive
    >>> check_positive(0.5, "noise")
    0.5
    >>> try:
    ...     check_positive(-1.0, "noise")
    ... except ValueError as exc:
    ...     print(exc)
    noise must be a positive finite number, got -1.0.
    """
    kind = "non-negative" if allow_zero else "positive"
    if allow_array and not isinstance(value, (str, bytes)) and np.ndim(value) > 0:
        try:
            arr = np.asarray(value)
        except ValueError:
            raise ValueError(f"{name} must be a {kind} number or a 1-D array of them, got {value!r}.") from None
        if arr.ndim != 1 or arr.dtype.kind not in "biuf" or arr.dtype.kind == "b":
            raise ValueError(f"{name} must be a {kind} number or a 1-D array of them, got {value!r}.")
        arr = arr.astype(np.float64)
        if not np.all(np.isfinite(arr)) or np.any(arr < 0) or (not allow_zero and np.any(arr == 0)):
            raise ValueError(f"{name} must hold {kind} finite numbers, got {value!r}.")
        return arr
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a {kind} real number, got {value!r} of type {type(value).__name__}.")
    v = float(value)
    if (finite and not np.isfinite(v)) or np.isnan(v) or v < 0 or (v == 0 and not allow_zero):
        raise ValueError(f"{name} must be a {kind} finite number, got {value!r}.")
    return v


def check_positive_int(value: Any, name: str) -> int:
    """A positive integer (bools refused), or an error naming ``name``.

    Examples
    --------
    >>> from kexplain.embeddings._checks import check_positive_int
    >>> check_positive_int(3, "max_iter")
    3
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}.")
    return int(value)


def check_matrix(
    M: Any, name: str, *, shape: tuple[int | None, int | None] = (None, None), square: bool = False, what: str = ""
) -> np.ndarray:
    """A finite 2-D float64 matrix (a Gram or cross-kernel matrix), or an error naming ``name``.

    ``shape``: the numbers of rows and columns required (None: any); ``square``: rows == columns;
    ``what`` says what the rows must match, for the message.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.embeddings._checks import check_matrix
    >>> check_matrix(np.eye(2), "K", square=True).shape
    (2, 2)
    >>> try:
    ...     check_matrix(np.ones((2, 3)), "K", square=True)
    ... except ValueError as exc:
    ...     print(exc)
    K must be a square (n, n) matrix, got shape (2, 3).
    """
    if M is None:
        raise ValueError(f"{name} is required, got None.")
    arr = to_array(M, name)
    if arr.dtype.kind == "c":
        raise ValueError(f"{name} has complex values; kernel matrices are real.")
    try:
        arr = np.asarray(arr, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a matrix of numbers, got dtype {arr.dtype}.") from None
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D matrix, got shape {arr.shape}.")
    if square and arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name} must be a square (n, n) matrix, got shape {arr.shape}.")
    for axis, (want, label) in enumerate(zip(shape, ("rows", "columns"))):
        if want is not None and arr.shape[axis] != want:
            extra = f" ({what})" if what else ""
            raise ValueError(
                f"{name} has {arr.shape[axis]} {label}, but {want} are needed{extra}; got shape {arr.shape}."
            )
    if not np.all(np.isfinite(arr)):
        at = [int(i) for i in np.argwhere(~np.isfinite(arr))[0]]
        raise ValueError(f"{name} contains NaN or infinite values (row {at[0]}, column {at[1]}).")
    big = max(float(arr.max()), -float(arr.min())) if arr.size else 0.0  # no |arr| temporary
    if big > _LARGEST:
        raise ValueError(
            f"{name} has values as large as {big:.3g}; products of them overflow float64: "
            f"a kernel matrix is bounded by its diagonal (rescale the kernel's amplitude)."
        )
    return arr


def check_gram_output(G: Any, kernel_name: str, shape: tuple[int, int], rows: str) -> np.ndarray:
    """The Gram matrix a user's kernel callable returned: finite, of the asked shape, or an error
    naming the kernel parameter.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.embeddings._checks import check_gram_output
    >>> try:
    ...     check_gram_output(np.full((1, 1), np.nan), "kernel", (1, 1), "X")
    ... except ValueError as exc:
    ...     print(str(exc)[:56])
    kernel returned NaN or infinite values (row 0, column 0)
    """
    arr = np.asarray(G)
    if arr.shape != shape or arr.dtype.kind not in "biuf":
        raise ValueError(
            f"{kernel_name} must return a real (len(A), len(B)) Gram matrix; for the rows of {rows} it returned "
            f"{'shape ' + str(arr.shape) if arr.shape != shape else 'dtype ' + str(arr.dtype)} instead of {shape}."
        )
    arr = np.asarray(arr, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        at = [int(i) for i in np.argwhere(~np.isfinite(arr))[0]]
        raise ValueError(
            f"{kernel_name} returned NaN or infinite values (row {at[0]}, column {at[1]}) for the rows of {rows}; "
            "a kernel must give finite numbers."
        )
    return arr


def match_columns(value: Any, columns: Any, name: str) -> None:
    """Refuse a DataFrame ``value`` whose columns differ from the ``columns`` seen in fit (in order),
    with the message of the product-kernel explainers (:func:`kexplain._validation.check_data`).

    Examples
    --------
    >>> import pandas as pd
    >>> from kexplain.embeddings._checks import match_columns
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

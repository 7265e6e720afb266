"""The columns and cells of a table: names, labels, and their conversion to numbers.

The pieces :func:`kexplain._validation.check_data` assembles (a DataFrame's header compared with the
model's features, text in numeric columns, missing labels, NaN named by row and column).  Import
the public names from :mod:`kexplain._validation`, the one validation entry.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Real
from typing import Any

import numpy as np


def feature_names_of(X: Any) -> list[str] | None:
    """The column names of a DataFrame as strings, or None for anything without columns.

    Parameters
    ----------
    X : array-like or DataFrame

    Returns
    -------
    list of str or None

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from kexplain._validation import feature_names_of
    >>> feature_names_of(pd.DataFrame({"a": [1], 2: [3]}))
    ['a', '2']
    >>> feature_names_of(np.zeros((1, 2))) is None
    True
    """
    cols = getattr(X, "columns", None)
    if cols is not None:
        return [str(c) for c in cols]
    return None


def column_label(j: int, names: Sequence[str] | None) -> str:
    """``column j`` or ``column 'name'`` for messages."""
    return f"column {j}" if names is None else f"column {names[j]!r}"


def _describe_bad(mask: np.ndarray, limit: int = 5, names: Sequence[str] | None = None) -> str:
    """``(row r, column c), ...`` for the first ``limit`` True entries of ``mask``, then a count."""
    rows, cols = np.nonzero(mask)
    pairs = sorted(set(zip(rows.tolist(), cols.tolist())))
    shown = ", ".join(f"(row {r}, {column_label(c, names)})" for r, c in pairs[:limit])
    more = f" and {len(pairs) - limit} more" if len(pairs) > limit else ""
    return shown + more


def is_missing(v: Any) -> bool:
    """None, NaN, pandas.NA or NaT: labels that cannot be compared for equality."""
    if v is None:
        return True
    if isinstance(v, (float, np.floating)):
        return bool(np.isnan(v))
    return type(v).__name__ in ("NAType", "NaTType")


def to_array(X: Any, name: str = "X") -> np.ndarray:
    """A numpy array from a scipy sparse matrix (densified), a DataFrame or anything array-like.

    Ragged nested lists (rows of different lengths) give a ValueError naming ``name`` instead of
    numpy's "setting an array element with a sequence".

    Parameters
    ----------
    X : array-like, DataFrame or scipy sparse matrix
    name : str
        What ``X`` is called in messages.

    Returns
    -------
    ndarray

    Examples
    --------
    >>> from kexplain._validation import to_array
    >>> to_array([[1, 2], [3, 4]]).shape
    (2, 2)
    >>> try:
    ...     to_array([[1, 2], [3]], name="background")
    ... except ValueError as exc:
    ...     print(exc)
    background must be a 2-D array (n_samples, n_features) of numbers or labels; got rows of different lengths.
    """
    if hasattr(X, "toarray") and hasattr(X, "nnz"):  # scipy sparse matrix or array
        return X.toarray()
    if hasattr(X, "to_numpy"):
        return X.to_numpy()
    try:
        return np.asarray(X)
    except ValueError:  # numpy: "setting an array element with a sequence" (ragged rows)
        raise ValueError(
            f"{name} must be a 2-D array (n_samples, n_features) of numbers or labels; got rows of different lengths."
        ) from None


#: what to do with a text column given to a model whose kernel takes numbers there
_TEXT_ADVICE = (
    "A fitted scikit-learn model (SVR, SVC, KernelRidge, a GP) was trained on numbers: encode these "
    "columns exactly as its training data was encoded (the same encoder, e.g. the OrdinalEncoder or "
    "the 0/1 coding used before fitting) and explain the encoded rows. To treat a column as labels "
    "instead, build the model on a kernel with kx.kernels.Categorical for it (a kx.KernelExpansion with "
    "a kx.kernels.ProductKernel, or kx.gp.OAKRegressor, which encodes label columns itself)."
)


def _shown(names: Sequence[str], limit: int = 8) -> str:
    """The first ``limit`` names, quoted, then a count."""
    head = ", ".join(repr(str(n)) for n in names[:limit])
    return head + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _check_columns(names: list[str], expected: list[str], name: str) -> None:
    """A ValueError naming the extra and missing columns of ``name`` against the model's features."""
    if set(names) == set(expected) and len(names) == len(expected):
        raise ValueError(
            f"{name} has the model's columns in a different order: {names} instead of {expected}; "
            f"reorder them: {name}[{expected!r}]."
        )
    extra = [n for n in names if n not in expected]
    missing = [n for n in expected if n not in names]
    parts = []
    if extra:
        parts.append(f"column(s) the model was not fitted on: {_shown(extra)}")
    if missing:
        parts.append(f"the model's feature(s) {_shown(missing)} are missing")
    if not parts:  # the same names with repeats
        parts.append(f"its columns {_shown(names)} repeat some of the model's features {_shown(expected)}")
    advice = f" Drop the extra columns ({name}.drop(columns={extra!r})) or select " if extra else " Select "
    raise ValueError(
        f"the columns of {name} do not match the model's: "
        + "; ".join(parts)
        + "."
        + advice
        + f"the model's features in order: {name}[{expected!r}]."
    )


def _numeric_1d(arr: np.ndarray, name: str) -> np.ndarray:
    """A finite float64 vector, entries named by position."""
    try:
        out = arr.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must hold numbers, got values of dtype {arr.dtype}.") from None
    bad = ~np.isfinite(out)
    if bad.any():
        raise ValueError(f"{name} contains NaN or infinite values at entry {int(np.argmax(bad))}.")
    return out


def _numeric_estimator(arr: np.ndarray, name: str) -> np.ndarray:
    """Finite float64 numbers, in the phrases scikit-learn's estimator checks look for."""
    if arr.dtype.kind not in "biuf":
        try:
            arr = arr.astype(np.float64)
        except ValueError:
            example = next((v for v in arr.ravel() if isinstance(v, (str, bytes))), arr.ravel()[0])
            if isinstance(example, str):
                example = str(example)  # 'a', not np.str_('a')
            raise ValueError(f"{name} must hold numbers; got text such as {example!r}.") from None
        except TypeError:
            bad = next(v for v in arr.ravel() if not isinstance(v, (Real, str, bytes)))
            raise TypeError(
                f"{name} has an entry of type {type(bad).__name__}: each argument must be a real number or a "
                "string holding a number."
            ) from None
    out = np.asarray(arr, dtype=np.float64)
    if not np.all(np.isfinite(out)):
        at = [int(i) for i in np.argwhere(~np.isfinite(out))[0]]
        where = f"row {at[0]}" + (f", column {at[1]}" if len(at) > 1 else "")
        raise ValueError(f"{name} contains NaN or infinity ({where}).")
    return out


def _check_table(
    arr: np.ndarray,
    name: str,
    names: list[str] | None,
    n_features: int | None,
    numeric_mask: np.ndarray | None,
    feature_names: Sequence[str] | None,
    text_advice: str | None,
    copy: bool = True,
) -> np.ndarray:
    """The columns of a 2-D table: numbers where ``numeric_mask`` says so, labels elsewhere."""
    advice = _TEXT_ADVICE if text_advice is None else text_advice
    d = arr.shape[1]
    if names is not None and feature_names is not None and list(feature_names) != names:
        _check_columns(names, [str(f) for f in feature_names], name)
    if n_features is not None and d != n_features:
        shown = "" if names is None else f": its columns are {_shown(names)}; select the model's, in order"
        raise ValueError(f"{name} has {d} features, but the model expects {n_features}{shown}.")
    # labels for messages: the DataFrame's header, else the model's feature names
    if names is None and feature_names is not None and len(feature_names) == d:
        names = [str(f) for f in feature_names]
    if numeric_mask is None:
        numeric_mask = np.ones(d, dtype=bool)
    numeric_mask = np.asarray(numeric_mask, dtype=bool)
    if numeric_mask.all():
        try:
            out = arr.astype(np.float64, copy=copy)
        except (TypeError, ValueError):
            bad_cols: list[Any] = []
            for j in range(d):
                try:
                    arr[:, j].astype(np.float64)
                except (TypeError, ValueError):
                    bad_cols.append(names[j] if names else j)
            raise ValueError(
                f"{name} has non-numeric values in column(s) {bad_cols} (text or labels), but the model's "
                f"kernel takes numbers there. {advice}"
            ) from None
        bad = ~np.isfinite(out)
        if bad.any():
            raise ValueError(f"{name} contains NaN or infinite values at {_describe_bad(bad, names=names)}.")
        return out
    out = np.empty(arr.shape, dtype=object)
    for j in range(d):
        col = arr[:, j]
        if numeric_mask[j]:
            try:
                colf = col.astype(np.float64)
            except (TypeError, ValueError):
                raise ValueError(
                    f"{name} has non-numeric values in column(s) {[names[j] if names else j]}: "
                    f"{column_label(j, names)} holds text or labels, but the model's kernel takes numbers "
                    f"there. {advice}"
                ) from None
            if not np.all(np.isfinite(colf)):
                bad = np.zeros(arr.shape, dtype=bool)
                bad[:, j] = ~np.isfinite(colf)
                raise ValueError(f"{name} contains NaN or infinite values at {_describe_bad(bad, names=names)}.")
            out[:, j] = colf
        else:
            missing = np.array([is_missing(v) for v in col], dtype=bool)
            if missing.any():
                bad = np.zeros(arr.shape, dtype=bool)
                bad[:, j] = missing
                raise ValueError(
                    f"{name} contains missing labels at {_describe_bad(bad, names=names)}; a "
                    "Categorical feature needs a label in every row (encode missing as its own label)."
                )
            out[:, j] = col
    return out

"""Input validation at the public boundary (one place, clear messages)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from numbers import Real
from typing import Any

import numpy as np

from ._params import Boolean, Integer, check_param


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


def is_sparse(X: Any) -> bool:
    """Whether ``X`` is a scipy sparse matrix or array.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> from kexplain._validation import is_sparse
    >>> is_sparse(sparse.csr_matrix(np.eye(2))), is_sparse(np.eye(2))
    (True, False)
    """
    return hasattr(X, "toarray") and hasattr(X, "nnz") and hasattr(X, "tocsr")


def check_sparse_data(X: Any, *, name: str = "X", n_features: int | None = None, min_rows: int = 1) -> Any:
    """A scipy sparse matrix validated and returned in canonical CSR form (float64).

    CSC, COO and the other formats are converted to CSR (a copy; the input is never changed).
    Duplicate entries are summed (as ``toarray`` does), explicitly stored zeros are dropped and
    column indices sorted, so the non-zeros are exactly the stored entries.

    Parameters
    ----------
    X : scipy sparse matrix or array of shape (n, d)
    name : str
        What ``X`` is called in messages.
    n_features : int, optional
        The number of features the model expects.
    min_rows : int
        The fewest rows accepted.

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n, d)

    Raises
    ------
    ValueError
        Naming ``name`` for complex or non-numeric entries, too few rows, a wrong number of
        features, NaN or infinite stored values (row and column named).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> from kexplain._validation import check_sparse_data
    >>> M = sparse.coo_matrix(([1.0, 0.0, 2.0], ([0, 0, 1], [2, 1, 0])), shape=(2, 3))
    >>> check_sparse_data(M).nnz
    2
    >>> try:
    ...     check_sparse_data(sparse.csr_matrix([[0.0, np.inf]]), name="background")
    ... except ValueError as exc:
    ...     print(exc)
    background contains NaN or infinite values at (row 0, column 1).
    """
    from scipy import sparse as sp

    kind = np.dtype(X.dtype).kind
    if kind == "c":
        raise ValueError(f"{name} has complex values; kernels here take real numbers.")
    if kind not in "biuf":
        raise ValueError(f"{name} must hold numbers, got a sparse matrix of dtype {X.dtype}.")
    if len(X.shape) != 2:
        raise ValueError(f"{name} must be a 2-D sparse matrix (n_samples, n_features), got shape {X.shape}.")
    M = sp.csr_matrix(X, dtype=np.float64, copy=True)
    n, d = M.shape
    if n < min_rows:
        raise ValueError(f"{name} must have at least {min_rows} row(s), got {n}.")
    if n_features is not None and d != n_features:
        raise ValueError(f"{name} has {d} features, but the model expects {n_features}.")
    M.sum_duplicates()
    bad = np.flatnonzero(~np.isfinite(M.data))
    if bad.size:
        row = int(np.searchsorted(M.indptr, bad[0], side="right") - 1)
        raise ValueError(f"{name} contains NaN or infinite values at (row {row}, column {int(M.indices[bad[0]])}).")
    M.eliminate_zeros()
    return M


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


def check_bool(value: Any, name: str) -> bool:
    """``value`` as a bool; anything but True/False (numpy bools included) raises TypeError.

    Parameters
    ----------
    value : bool
    name : str
        The argument's name, used in the message.

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain._validation import check_bool
    >>> check_bool(np.True_, "interactions")
    True
    >>> try:
    ...     check_bool(1, "progress")
    ... except TypeError as exc:
    ...     print(exc)
    progress must be True or False, got 1.
    """
    if value is True or value is False:  # every explain call checks a few flags: skip the generic path
        return value
    return bool(check_param(value, name, Boolean()))


#: the pairwise interaction indices the solvers and explainers compute
INTERACTION_INDICES = ("sii", "stii")


def check_interactions(value: Any, name: str = "interactions") -> str | None:
    """The interaction index asked for: None (no interactions), ``"sii"`` or ``"stii"``.

    ``False`` (or None) means none, ``True`` the default ``"sii"`` (the Shapley interaction index of
    Grabisch & Roubens, 1999, in the layout of shap's ``TreeExplainer``); ``"stii"`` is the
    Shapley-Taylor interaction index of order 2 (Sundararajan, Dhamdhere & Agarwal, 2020), the
    one shap's ``ExactExplainer`` reports.  Case is ignored.

    Parameters
    ----------
    value : bool, None or {"sii", "stii"}
    name : str
        The argument's name, used in the message.

    Returns
    -------
    str or None

    Examples
    --------
    >>> from kexplain._validation import check_interactions
    >>> check_interactions(True), check_interactions("STII"), check_interactions(False)
    ('sii', 'stii', None)
    """
    if value is None or isinstance(value, (bool, np.bool_)):
        return "sii" if value else None
    if isinstance(value, str) and value.lower() in INTERACTION_INDICES:
        return value.lower()
    if isinstance(value, Mapping):
        raise ValueError(
            f"{name}={dict(value)!r} (an index of any order) is supported by the explainers of product games "
            "(ProductKernelExplainer, PrefShapExplainer), by kx.gp.OAKExplainer and by kx.exact_shapley; here "
            "pass True, False, 'sii' or 'stii'."
        )
    raise TypeError(
        f"{name} must be True or False, or the name of an index: 'sii' (the Shapley interaction "
        f"index, what True means) or 'stii' (the Shapley-Taylor index of order 2, as shap's "
        f"ExactExplainer); got {value!r}."
    )


def check_n_jobs(n_jobs: int | None) -> int:
    """``n_jobs`` as joblib reads it: None defers to joblib, -1 is every core, -2 all but one.

    ``None`` takes the ``n_jobs`` of an enclosing ``joblib.parallel_config(n_jobs=...)`` (1 outside
    one); negative counts are resolved by ``joblib.effective_n_jobs``, which counts the cores
    this process may use (CPU affinity and container quotas), not every core of the machine.

    Parameters
    ----------
    n_jobs : int or None

    Returns
    -------
    int
        The number of workers, at least 1.

    Examples
    --------
    >>> import joblib
    >>> from kexplain._validation import check_n_jobs
    >>> check_n_jobs(None), check_n_jobs(3)
    (1, 3)
    >>> with joblib.parallel_config(n_jobs=2):
    ...     check_n_jobs(None)
    2
    >>> check_n_jobs(-1) == joblib.cpu_count()
    True
    """
    validate_n_jobs(n_jobs)
    from joblib import effective_n_jobs

    return max(1, int(effective_n_jobs(None if n_jobs is None else int(n_jobs))))


def validate_n_jobs(n_jobs: Any) -> int | None:
    """``n_jobs`` checked but not resolved: None, a positive or a negative integer, as given.

    :func:`check_n_jobs` resolves it through joblib, which costs more than a small explanation
    (a per-call lookup of joblib's active backend); a caller with only one block of work to do
    checks the argument with this and resolves it only when there is more than one block.

    Examples
    --------
    >>> from kexplain._validation import validate_n_jobs
    >>> validate_n_jobs(None), validate_n_jobs(-1)
    (None, -1)
    """
    if not (n_jobs is None or (type(n_jobs) is int and n_jobs >= 1)):  # the common values need no parsing
        check_param(
            n_jobs,
            "n_jobs",
            None,
            Integer(1),
            Integer(high=-1),
            what="None, a positive integer or a negative one (-1: every core)",
        )
    return None if n_jobs is None else int(n_jobs)


def check_random_state(random_state: Any, name: str = "random_state") -> np.random.Generator:
    """A numpy Generator from None, an int seed, a SeedSequence, a Generator or a RandomState.

    Parameters
    ----------
    random_state : None, int, SeedSequence, Generator or RandomState
        A Generator is returned as it is (so draws continue its stream).
    name : str
        The argument's name, used in the message.

    Returns
    -------
    numpy.random.Generator

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain._validation import check_random_state
    >>> float(np.round(check_random_state(0).random(), 3))
    0.637
    >>> rng = np.random.default_rng(1)
    >>> check_random_state(rng) is rng
    True
    """
    if random_state is None or isinstance(random_state, np.random.SeedSequence):
        return np.random.default_rng(random_state)
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1))
    if (
        isinstance(random_state, (int, np.integer))
        and not isinstance(random_state, (bool, np.bool_))
        and random_state >= 0
    ):
        return np.random.default_rng(int(random_state))
    raise ValueError(
        f"{name} must be None, a non-negative integer, a numpy SeedSequence, Generator or RandomState, "
        f"got {random_state!r}."
    )


def check_legacy_random_state(random_state: Any, name: str = "random_state") -> np.random.RandomState:
    """A numpy RandomState, for estimators whose draws are defined through scikit-learn's convention.

    Accepts what :func:`check_random_state` accepts; an int seeds a RandomState exactly as
    scikit-learn's ``check_random_state`` does (so fitted results do not change), a Generator or a
    SeedSequence seeds one from its stream.  Anything else raises a ValueError naming ``name``.

    Parameters
    ----------
    random_state : None, int, SeedSequence, Generator or RandomState
    name : str
        The argument's name, used in the message.

    Returns
    -------
    numpy.random.RandomState

    Examples
    --------
    >>> from kexplain._validation import check_legacy_random_state
    >>> int(check_legacy_random_state(0).randint(100))
    44
    >>> try:
    ...     check_legacy_random_state(-1)
    ... except ValueError as exc:
    ...     print(str(exc)[:44])
    random_state must be None, a non-negative in
    """
    if random_state is None:
        return np.random.mtrand._rand
    if isinstance(random_state, np.random.RandomState):
        return random_state
    gen = check_random_state(random_state, name)  # validates, naming the argument
    if isinstance(random_state, (int, np.integer)):
        if random_state >= 2**32:
            raise ValueError(f"{name} must be below 2**32 for this estimator, got {random_state!r}.")
        return np.random.RandomState(int(random_state))
    return np.random.RandomState(int(gen.integers(2**32 - 1)))

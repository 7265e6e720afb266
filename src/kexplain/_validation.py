"""Input validation at the public boundary (one place, clear messages)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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


def _column_label(j: int, names: Sequence[str] | None) -> str:
    """``column j`` or ``column 'name'`` for messages."""
    return f"column {j}" if names is None else f"column {names[j]!r}"


def _describe_bad(mask: np.ndarray, limit: int = 5, names: Sequence[str] | None = None) -> str:
    """``(row r, column c), ...`` for the first ``limit`` True entries of ``mask``, then a count."""
    rows, cols = np.nonzero(mask)
    pairs = sorted(set(zip(rows.tolist(), cols.tolist())))
    shown = ", ".join(f"(row {r}, {_column_label(c, names)})" for r, c in pairs[:limit])
    more = f" and {len(pairs) - limit} more" if len(pairs) > limit else ""
    return shown + more


def _is_missing(v: Any) -> bool:
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


def check_data(
    X: Any,
    *,
    name: str = "X",
    n_features: int | None = None,
    numeric_mask: np.ndarray | None = None,
    feature_names: Sequence[str] | None = None,
    min_rows: int = 1,
) -> np.ndarray:
    """Validate a 2-D data set; returns a float64 array, or an object array when some features
    are categorical labels (``numeric_mask`` False), with the numeric columns as floats.

    Parameters
    ----------
    X : array-like, DataFrame or scipy sparse matrix of shape (n, d)
    name : str
        What ``X`` is called in messages (``"X"``, ``"background"``, ``"--data rows.csv"``).
    n_features : int, optional
        The number of features the model expects.
    numeric_mask : bool array of shape (d,), optional
        Which features must be numbers (default: all).
    feature_names : sequence of str, optional
        The columns a DataFrame must have, in this order.
    min_rows : int
        The fewest rows accepted.

    Returns
    -------
    ndarray of shape (n, d)

    Raises
    ------
    ValueError
        Naming ``name`` for: wrong dimensionality, too few rows, a wrong number of features,
        columns that differ from ``feature_names``, non-numeric values in numeric features, NaN
        or infinite values (rows and columns named).

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
    """
    names = feature_names_of(X)
    arr = to_array(X, name)
    if arr.ndim == 1 and n_features is not None and arr.shape[0] == n_features and n_features > 1:
        raise ValueError(
            f"{name} must be 2-D with shape (n_samples, n_features); got a 1-D array of length "
            f"{arr.shape[0]}. Use {name}.reshape(1, -1) for a single row."
        )
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array of shape (n_samples, n_features), got shape {arr.shape}.")
    if arr.shape[0] < min_rows:
        raise ValueError(f"{name} must have at least {min_rows} row(s), got {arr.shape[0]}.")
    if arr.dtype.kind == "c":
        raise ValueError(f"{name} has complex values; kernels here take real numbers or labels.")
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
            out = arr.astype(np.float64)
        except (TypeError, ValueError):
            bad_cols: list[Any] = []
            for j in range(d):
                try:
                    arr[:, j].astype(np.float64)
                except (TypeError, ValueError):
                    bad_cols.append(names[j] if names else j)
            raise ValueError(
                f"{name} has non-numeric values in column(s) {bad_cols} (text or labels), but the model's "
                f"kernel takes numbers there. {_TEXT_ADVICE}"
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
                    f"{name} {_column_label(j, names)} holds text or labels, but the model's kernel takes "
                    f"numbers there. {_TEXT_ADVICE}"
                ) from None
            if not np.all(np.isfinite(colf)):
                bad = np.zeros(arr.shape, dtype=bool)
                bad[:, j] = ~np.isfinite(colf)
                raise ValueError(f"{name} contains NaN or infinite values at {_describe_bad(bad, names=names)}.")
            out[:, j] = colf
        else:
            missing = np.array([_is_missing(v) for v in col], dtype=bool)
            if missing.any():
                bad = np.zeros(arr.shape, dtype=bool)
                bad[:, j] = missing
                raise ValueError(
                    f"{name} contains missing labels at {_describe_bad(bad, names=names)}; a "
                    "Categorical feature needs a label in every row (encode missing as its own label)."
                )
            out[:, j] = col
    return out


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
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}.")
    return bool(value)


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
            "(ProductKernelExplainer, PrefShapExplainer) and by kx.exact_shapley; here pass True, False, "
            "'sii' or 'stii'."
        )
    raise TypeError(
        f"{name} must be True or False, or the name of an index: 'sii' (the Shapley interaction "
        f"index, what True means) or 'stii' (the Shapley-Taylor index of order 2, as shap's "
        f"ExactExplainer); got {value!r}."
    )


def check_n_jobs(n_jobs: int | None) -> int:
    """``n_jobs`` as joblib reads it: None means 1; a positive count; -1 all cores, -2 all but one.

    Parameters
    ----------
    n_jobs : int or None

    Returns
    -------
    int
        The number of workers, at least 1.

    Examples
    --------
    >>> import os
    >>> from kexplain._validation import check_n_jobs
    >>> check_n_jobs(None), check_n_jobs(3)
    (1, 3)
    >>> check_n_jobs(-1) == (os.cpu_count() or 1)
    True
    """
    if n_jobs is None:
        return 1
    if isinstance(n_jobs, (bool, np.bool_)) or not isinstance(n_jobs, (int, np.integer)) or n_jobs == 0:
        raise ValueError(f"n_jobs must be None, a positive integer or a negative one (-1: every core), got {n_jobs!r}.")
    if n_jobs < 0:
        import os

        return max(1, (os.cpu_count() or 1) + 1 + int(n_jobs))
    return int(n_jobs)


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

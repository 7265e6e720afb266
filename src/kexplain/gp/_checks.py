"""Checks of OAK's inputs and targets, and the overflow-safe standardisation of targets."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_data, to_array

#: why OAK refuses a scipy sparse matrix (the sparse policy of check_data)
DENSE_REASON = "OAKRegressor needs dense data (additive GP kernels are dense)"


def check_rows(X: Any, name: str = "X", *, min_rows: int = 1) -> np.ndarray:
    """Dense, 2-D, at least ``min_rows`` rows and one column: :func:`kexplain._validation.check_data`
    with OAK's policies (sparse refused, labels kept for OAK's own encoder, scikit-learn's phrases).

    Made before scikit-learn's ``validate_data``, whose messages ("Expected 2D array") name no argument.

    Parameters
    ----------
    X : array-like or DataFrame
    name : str
        What ``X`` is called in messages.
    min_rows : int
        The fewest rows accepted.

    Returns
    -------
    ndarray
        ``X`` as an array, not converted (label columns stay as they are).

    Examples
    --------
    >>> from kexplain.gp._checks import check_rows
    >>> check_rows([[1.0, 2.0]]).shape
    (1, 2)
    >>> try:
    ...     check_rows([1.0, 2.0])
    ... except ValueError as exc:
    ...     print(str(exc)[:62])
    X must be a 2-D array (n_samples, n_features), got a 1-D array
    """
    return check_data(
        X, name=name, min_rows=min_rows, min_features=1, sparse="refuse", dense_reason=DENSE_REASON, convert=False
    )


def check_fit_inputs(X: Any, y: Any) -> None:
    """The shapes of OAKRegressor.fit's X and y, with messages naming the argument.

    X must be dense and 2-D with at least two rows and one column; y real numbers, one per row
    of X, as a 1-D array (a single column is accepted, as scikit-learn does, with its warning).

    Parameters
    ----------
    X : array-like or DataFrame of shape (n, d)
    y : array-like of shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.gp._checks import check_fit_inputs
    >>> check_fit_inputs(np.zeros((3, 2)), np.zeros(3))
    >>> try:
    ...     check_fit_inputs(np.zeros((3, 2)), np.zeros(2))
    ... except ValueError as exc:
    ...     print(exc)
    y has 2 value(s) but X has 3 rows; y needs one target per row of X.
    """
    n = check_rows(X, "X", min_rows=2).shape[0]
    if y is None:
        raise ValueError("OAKRegressor requires y to be passed, but the target y is None.")
    arr = to_array(y, "y")
    numeric_target(arr)
    if arr.ndim == 0 or arr.ndim > 2 or (arr.ndim == 2 and arr.shape[1] != 1):
        raise ValueError(f"y must be a 1-D array of targets (n_samples,), got shape {arr.shape}.")
    if arr.shape[0] != n:
        raise ValueError(f"y has {arr.shape[0]} value(s) but X has {n} rows; y needs one target per row of X.")


def numeric_target(y: Any) -> Any:
    """Refuse complex, text and ragged targets, naming y (a regressor's targets are real numbers)."""
    arr = to_array(y, "y")
    if arr.dtype.kind == "c":
        raise ValueError("Complex data not supported: y has complex values; OAKRegressor fits real-valued targets.")
    if arr.dtype.kind in "USO":
        if arr.dtype.kind == "O":
            try:
                return arr.astype(np.float64)
            except (TypeError, ValueError):
                pass
        example = arr.ravel()[0] if arr.size else None
        raise ValueError(
            f"y must be numeric (real-valued regression targets), got values of dtype {arr.dtype} such as "
            f"{example!r}; convert them with np.asarray(y, dtype=float) if they are numbers written as text."
        )
    return y


def standardize_target(y: np.ndarray) -> tuple[float, float, np.ndarray]:
    """Mean, standard deviation and standardised copy of y, computed on y / max|y| so that targets
    near the float range (1e300, 1e-300) neither overflow nor underflow."""
    scale = float(np.max(np.abs(y))) if y.size else 0.0
    if scale == 0.0:
        return 0.0, 1.0, y.copy()
    u = y / scale
    mu, sd = float(np.mean(u)), float(np.std(u))
    if sd <= 0:
        return mu * scale, 1.0, (u - mu) * scale
    return mu * scale, sd * scale, (u - mu) / sd

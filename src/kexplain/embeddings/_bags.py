"""Bags of high-resolution rows for the deconditional GP: a list of arrays, or rows with bag labels,
checked by name before any algebra."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_data, to_array


def _as_bags(X: Any, bags: Any) -> tuple[Any, np.ndarray | None, bool]:
    """(data for validate_data, bag labels per row or None, given-as-list flag)."""
    if isinstance(X, (list, tuple)) and len(X) > 0 and all(_ndim(b) == 2 for b in X if _is_arraylike(b)):
        if not all(_is_arraylike(b) for b in X):
            return X, None, False
        for j, b in enumerate(X):
            if np.shape(b)[0] == 0:
                raise ValueError(f"X: bag {j} is empty; every bag needs at least one row.")
        arrays = [check_data(b, name=f"X[{j}]", estimator=True, min_features=1, huge=True) for j, b in enumerate(X)]
        for j, b in enumerate(arrays):
            if b.shape[1] != arrays[0].shape[1]:
                raise ValueError(
                    f"X: bag {j} has {b.shape[1]} features but bag 0 has {arrays[0].shape[1]}; "
                    "all bags must have the same columns."
                )
        if bags is not None:
            raise ValueError("bags must be None when X is given as a list of bags.")
        labels = np.concatenate([np.full(len(b), j) for j, b in enumerate(arrays)])
        return np.vstack(arrays), labels, True
    if bags is None:
        return X, None, False
    return X, to_array(bags, "bags"), False


def _ndim(b: Any) -> int:
    try:
        return int(np.ndim(b))
    except ValueError:  # ragged nested lists
        return -1


def _is_arraylike(b: Any) -> bool:
    return hasattr(b, "shape") or isinstance(b, (list, tuple))


def _check_2d(a: Any, name: str, n_rows: int, what: str) -> np.ndarray:
    arr = check_data(a, name=name, estimator=True, min_features=1, ndims=(1, 2), huge=True)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.shape[0] != n_rows:
        raise ValueError(f"{name} has {arr.shape[0]} rows but there are {n_rows} {what}.")
    return arr


def _check_bag_labels(bags: Any, n_rows: int) -> np.ndarray:
    """One bag label per row of X (numbers or strings, of one kind), or an error naming bags."""
    labels = to_array(bags, "bags")
    if labels.ndim != 1:
        raise ValueError(f"bags must be a 1-D array with one bag label per row of X, got shape {labels.shape}.")
    if labels.shape[0] != n_rows:
        raise ValueError(f"bags has {labels.shape[0]} labels but X has {n_rows} rows.")
    if labels.dtype.kind == "c" or (labels.dtype.kind == "f" and not np.all(np.isfinite(labels))):
        raise ValueError("bags must be finite real numbers or strings (one label per row of X).")
    try:
        np.unique(labels)
    except TypeError:
        raise ValueError("bags must be labels of one kind (all numbers or all strings); got a mixture.") from None
    return labels

"""Shared validation and helpers of the preference estimators (duels, labels, scales, flipping)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validation import check_data, feature_names_of, to_array

LABELS_DOC = "y: 1 (or True) means the left item wins; 0 or -1 means the right item wins."


#: how to bring items whose squared distances overflow back into range (check_data's magnitude bound)
_RESCALE = "e.g. standardize each feature over both sides of the duels"


def check_side(X: Any, name: str, n_features: int | None = None, columns: Sequence[str] | None = None) -> np.ndarray:
    """One side of the duels (or the context) as a finite 2-D float array, errors naming ``name``.

    ``columns``: the DataFrame columns seen in fit (None: not fitted on a DataFrame); a DataFrame
    ``X`` must have exactly these, in this order (the message of :func:`kexplain._validation.check_data`).
    """
    arr = check_data(X, name=name, feature_names=columns, min_features=1, huge=True, rescale=_RESCALE)
    if n_features is not None and arr.shape[1] != n_features:
        raise ValueError(f"{name} has {arr.shape[1]} features, but the model was fitted with {n_features}.")
    return arr


def check_duels(
    X_left: Any,
    X_right: Any,
    context: Any,
    *,
    n_features: int | None = None,
    n_context: int | None = None,
    fitted: bool = False,
    columns: Sequence[str] | None = None,
    context_columns: Sequence[str] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Validated (X_left, X_right, context).

    ``fitted``: compare with the numbers of features seen in fit; ``n_context`` is then 0 for a
    model fitted without a context, and a context is required exactly when it is positive.
    ``columns`` / ``context_columns``: the DataFrame columns seen in fit, which DataFrames given
    now must have in the same order (both sides of the duels have the item columns).  In fit
    (``columns`` None) a DataFrame ``X_right`` must have the columns of a DataFrame ``X_left``.
    """
    Xl = check_side(X_left, "X_left", columns=columns)
    if columns is None:
        columns = feature_names_of(X_left)
    Xr = check_side(X_right, "X_right", columns=columns)
    if Xl.shape[1] != Xr.shape[1]:
        raise ValueError(
            f"X_left has {Xl.shape[1]} features but X_right has {Xr.shape[1]}; both sides of a duel are "
            "items with the same features."
        )
    if Xl.shape[0] != Xr.shape[0]:
        raise ValueError(f"X_left has {Xl.shape[0]} rows but X_right has {Xr.shape[0]}; one row per duel on each side.")
    if n_features is not None and Xl.shape[1] != n_features:
        raise ValueError(f"X_left and X_right have {Xl.shape[1]} features, but the model was fitted with {n_features}.")
    C = None
    if fitted:
        if context is None and n_context:
            raise ValueError("context is required: the model was fitted with a context (one row per duel).")
        if context is not None and not n_context:
            raise ValueError("context was given but the model was fitted without a context; drop the context argument.")
    if context is not None:
        C = check_side(context, "context", n_context if fitted else None, columns=context_columns)
        if C.shape[0] != Xl.shape[0]:
            raise ValueError(f"context has {C.shape[0]} rows for {Xl.shape[0]} duels; one row per duel.")
    return Xl, Xr, C


def check_labels(y: Any, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``y`` as 0/1 floats (1: left wins) and the classes in the user's coding ([0, 1] or [-1, 1])."""
    if y is None:
        raise ValueError("y is required: 1 where the left item wins, 0 (or -1) where the right item wins.")
    arr = to_array(y, "y")
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"y must be 1-D (one outcome per duel), got shape {arr.shape}.")
    if arr.shape[0] != n:
        raise ValueError(f"y has {arr.shape[0]} entries for {n} duels.")
    if arr.dtype.kind == "b":
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iuf":
        raise ValueError(f"y must hold numbers 0/1 or -1/+1 ({LABELS_DOC}), got dtype {arr.dtype}.")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise ValueError("y contains NaN or infinite values.")
    values = set(np.unique(arr).tolist())
    if values <= {0, 1}:
        classes = np.array([0, 1])
    elif values <= {-1, 1}:
        classes = np.array([-1, 1])
    else:
        raise ValueError(
            f"y must have two classes coded 0/1 or -1/+1 ({LABELS_DOC}); got the values {sorted(values)[:10]}."
        )
    return (arr == 1).astype(np.float64), classes


def side_names(X: Any, d: int, prefix: str) -> list[str]:
    """Column names of a DataFrame, else ``prefix0, prefix1, ...``."""
    names = feature_names_of(X)
    return list(names) if names is not None and len(names) == d else [f"{prefix}{j}" for j in range(d)]


def fitted_columns(X: Any, d: int) -> list[str] | None:
    """The DataFrame columns of ``X`` (what later DataFrames are matched against), None for arrays."""
    names = feature_names_of(X)
    return list(names) if names is not None and len(names) == d else None


def feature_scales(*arrays: np.ndarray) -> np.ndarray:
    """Per-feature standard deviations of the pooled rows (1 where a feature is constant)."""
    pooled = np.concatenate(arrays, axis=0)
    s = pooled.std(axis=0)
    return np.where(s > 0, s, 1.0)


def reference_lengthscale(*arrays: np.ndarray) -> np.ndarray:
    """Per-feature lengthscales of the median heuristic on standardised rows: ``median * std_j``
    (kexplain's default, :func:`kexplain.kernels.default_lengthscale`)."""
    from ..kernels.heuristics import default_lengthscale

    return np.asarray(default_lengthscale(*arrays), dtype=np.float64)


def flip_alternate(Xl: np.ndarray, Xr: np.ndarray, y01: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Duels oriented winner-left, then every second one flipped: both outcomes occur (for n >= 2).

    A skew-symmetric model is unchanged by the orientation of any duel, so this changes nothing
    but lets classifiers that need two classes accept winner-loser data.
    """
    win = y01 == 1
    L = np.where(win[:, None], Xl, Xr)
    R = np.where(win[:, None], Xr, Xl)
    flip = np.zeros(len(y01), dtype=bool)
    flip[1::2] = True
    L2 = np.where(flip[:, None], R, L)
    R2 = np.where(flip[:, None], L, R)
    return L2, R2, (~flip).astype(np.float64)

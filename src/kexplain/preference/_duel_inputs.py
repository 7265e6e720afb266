"""What :class:`~kexplain.preference.explainer.PrefShapExplainer` reads: its options, the
background items and contexts absent features are drawn from, the duels and their outcomes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validation import check_data, check_weights, to_array
from .data import DuelData, Duels
from .expansion import PreferenceExpansion


def _distinct_rows(A: np.ndarray, cap: int | None = None) -> np.ndarray:
    """The distinct rows of A in their first order of appearance (at most ``cap``, evenly spaced)."""
    try:
        _, idx = np.unique(np.asarray(A, dtype=np.float64), axis=0, return_index=True)
    except (TypeError, ValueError):  # labels: compare rows as tuples
        seen: dict[tuple[Any, ...], int] = {}
        for i, row in enumerate(map(tuple, A)):
            seen.setdefault(row, i)
        idx = np.fromiter(seen.values(), dtype=np.int64)
    idx = np.sort(idx)
    if cap is not None and idx.size > cap:
        idx = idx[np.unique(np.linspace(0, idx.size - 1, cap).round().astype(np.int64))]
    return A[idx]


def _check_choice(value: Any, name: str, choices: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {tuple(choices)}, got {value!r}.")
    return value


def _check_options(
    pe: PreferenceExpansion,
    level: str,
    game: str,
    background: Any,
    background_weights: Any,
    context_background: Any,
    context_background_weights: Any,
) -> None:
    """The constructor's options that must agree: a context level needs a context model, the
    observational game has no joint level, and background weights need their background."""
    if level != "item" and pe.context_kernel is None:
        raise ValueError(f"level={level!r} explains context features, but the model was fitted without a context.")
    if game == "observational" and level == "joint":
        raise ValueError(
            "game='observational' supports level='item' and level='context'; use game='interventional' "
            "for the joint game."
        )
    if background_weights is not None and background is None:
        raise ValueError("background_weights needs a background.")
    if context_background_weights is not None and context_background is None:
        raise ValueError("context_background_weights needs a context_background.")


def _duels(X: Any, X_right: Any, context: Any) -> tuple[Any, Any, Any]:
    """(left, right, context) of ``explain``'s input: a Duels, a DuelData, or the left items with
    ``X_right`` (and ``context``) beside them."""
    if isinstance(X, DuelData):
        X = Duels.of(X)
    if isinstance(X, Duels):
        if X_right is not None or context is not None:
            raise TypeError(
                "explain got Duels and X_right/context; pass the right items and the contexts inside "
                "Duels(X_left, X_right, context)."
            )
        return X.left, X.right, X.context
    if X_right is None:
        raise TypeError(
            "explain needs the duels: X must be Duels(X_left, X_right, context) or a DuelData "
            f"(or the left items with X_right), got {type(X).__name__} without X_right."
        )
    return X, X_right, context


def _orientation(y: Any, n: int) -> np.ndarray:
    """+1 where the left item won, -1 where the right item won."""
    arr = to_array(y, "y")
    if arr.ndim != 1 or arr.shape[0] != n:
        raise ValueError(f"y must hold one outcome per duel, shape ({n},), got shape {arr.shape}.")
    if arr.dtype == bool:
        return np.where(arr, 1.0, -1.0)
    try:
        f = arr.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError("y must be 1/0, 1/-1 or True/False (1 or True: the left item won).") from None
    labels = set(np.unique(f).tolist())
    if not (labels <= {0.0, 1.0} or labels <= {-1.0, 1.0}):
        raise ValueError(
            f"y must be 1/0, 1/-1 or True/False (1 or True: the left item won), got the labels {sorted(labels)}."
        )
    return np.where(f > 0, 1.0, -1.0)


def _difference(Xl: np.ndarray, Xr: np.ndarray) -> np.ndarray | None:
    try:
        return np.asarray(Xl, dtype=np.float64) - np.asarray(Xr, dtype=np.float64)
    except (TypeError, ValueError):  # categorical items: no difference to show
        return None


def _backgrounds(
    pe: PreferenceExpansion,
    d: int,
    p: int,
    cap: int | None,
    uses_items: bool,
    uses_contexts: bool,
    background: Any,
    background_weights: Any,
    context_background: Any,
    context_background_weights: Any,
) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    """(items, their weights, contexts, their weights) of the constructor: the rows given, checked,
    or the distinct ones of the model's support duels (at most ``cap``), uniform weights by default."""
    Z = wz = U = wu = None
    if uses_items:
        if background is None:
            Z = _distinct_rows(np.vstack([pe.left, pe.right]), cap)
        else:
            Z = check_data(
                background,
                name="background",
                n_features=d,
                numeric_mask=pe.item_kernel.numeric_mask(d),
                feature_names=pe.columns,
            )
        wz = (
            np.full(Z.shape[0], 1.0 / Z.shape[0])
            if background_weights is None
            else check_weights(background_weights, Z.shape[0])
        )
    if uses_contexts:
        assert pe.context is not None and pe.context_kernel is not None
        if context_background is None:
            U = _distinct_rows(pe.context, cap)
        else:
            U = check_data(
                context_background,
                name="context_background",
                n_features=p,
                numeric_mask=pe.context_kernel.numeric_mask(p),
                feature_names=pe.context_columns,
            )
        wu = (
            np.full(U.shape[0], 1.0 / U.shape[0])
            if context_background_weights is None
            else check_weights(context_background_weights, U.shape[0], name="context_background_weights")
        )
    return Z, wz, U, wu

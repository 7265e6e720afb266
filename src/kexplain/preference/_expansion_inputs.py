"""What a :class:`~kexplain.preference.expansion.PreferenceExpansion` accepts: item kernels made
product kernels of amplitude one, arrays of items, fitted column names, and duels (two sides and an
optional context) checked against the model's kernels and columns.  Every name here is still
imported from ``kexplain.preference.expansion``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_data, feature_names_of, to_array
from ..kernels.base import Kernel, ProductKernel, SumKernel


def as_unit_product_kernel(kernel: Any, d: int, name: str) -> tuple[ProductKernel, float]:
    """``kernel`` as a ProductKernel on ``d`` features with every amplitude 1, and the amplitude removed.

    A per-feature kernel with one shared lengthscale is spread over the ``d`` features.
    """
    if isinstance(kernel, SumKernel) or not isinstance(kernel, Kernel):
        raise TypeError(
            f"{name} must be a kexplain product kernel (RBF, Laplacian, Cauchy, Categorical or a "
            f"ProductKernel of them), got {kernel!r}."
        )
    if isinstance(kernel, ProductKernel):
        kernel.check_n_features(d, name)
        amp = kernel.total_amplitude
        parts = []
        for k, feats in kernel.parts:
            k1 = k._copy()
            k1.amplitude = 1.0
            parts.append((k1, feats))
        return ProductKernel(parts), amp
    kernel.check_n_features(d, name)
    amp = kernel.amplitude
    k1 = kernel._copy()
    k1.amplitude = 1.0
    if k1.n_features is None:
        if hasattr(k1, "lengthscale"):
            k1.lengthscale = np.full(d, float(k1.lengthscale))
        elif hasattr(k1, "_n_features"):
            k1._n_features = d
    if k1.n_features != d:  # pragma: no cover - every kexplain per-feature kernel is handled above
        raise TypeError(f"{name} {kernel!r} cannot be spread over {d} features.")
    return ProductKernel([k1]), amp


def _item_array(
    value: Any, name: str, kernel: ProductKernel | None = None, columns: Sequence[str] | None = None
) -> np.ndarray:
    """A 2-D array of items (rows) with finite numbers where the kernel needs numbers.

    ``columns``: the DataFrame columns the model was fitted on; a DataFrame ``value`` with other
    columns (or the same in another order) is refused with check_data's message.
    """
    names = feature_names_of(value)
    if columns is not None and names is not None and names != list(columns):
        check_data(value, name=name, feature_names=columns, min_rows=0)  # raises, naming the columns
    arr = to_array(value, name)
    if arr.ndim == 1:
        raise ValueError(f"{name} must be 2-D (n_duels, n_features), got a 1-D array of shape {arr.shape}.")
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_duels, n_features), got shape {arr.shape}.")
    if kernel is not None:
        kernel.check_n_features(arr.shape[1], name)
        return check_data(arr, name=name, numeric_mask=kernel.numeric_mask(arr.shape[1]), min_rows=0)
    return arr


def _columns(frame: Any, names: Sequence[str] | None, d: int, name: str) -> list[str] | None:
    """``names`` as a list of d strings, else the columns of a DataFrame ``frame`` (None for arrays)."""
    if names is None:
        found = feature_names_of(frame)
        return found if found is not None and len(found) == d else None
    if isinstance(names, str) or np.ndim(names) != 1:
        raise ValueError(f"{name} must be a list of {d} column names, got {names!r}.")
    out = [str(c) for c in names]
    if len(out) != d:
        raise ValueError(f"{name} has {len(out)} names for {d} features.")
    return out


def check_duel_arrays(
    X_left: ArrayLike,
    X_right: ArrayLike,
    context: ArrayLike | None,
    item_kernel: Kernel | None,
    context_kernel: Kernel | None,
    *,
    fitted_with_context: bool | None = None,
    columns: Sequence[str] | None = None,
    context_columns: Sequence[str] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Validate duels: X_left and X_right 2-D with the same shape, context exactly when expected;
    DataFrames with the ``columns`` (``context_columns``) the model was fitted on, in order."""
    Xl = _item_array(X_left, "X_left", columns=columns)
    Xr = _item_array(X_right, "X_right", columns=columns)
    if Xl.shape[1] != Xr.shape[1]:
        raise ValueError(
            f"X_left has {Xl.shape[1]} features but X_right has {Xr.shape[1]}; both sides of a duel are "
            "items with the same features."
        )
    if Xl.shape[0] != Xr.shape[0]:
        raise ValueError(f"X_left has {Xl.shape[0]} rows but X_right has {Xr.shape[0]}; one row per duel on each side.")
    if item_kernel is not None:
        Xl = _item_array(Xl, "X_left", item_kernel)  # type: ignore[arg-type]
        Xr = _item_array(Xr, "X_right", item_kernel)  # type: ignore[arg-type]
    expects = (context_kernel is not None) if fitted_with_context is None else fitted_with_context
    if context is None:
        if expects:
            raise ValueError("context is required: the model was fitted with a context (one row per duel).")
        return Xl, Xr, None
    if not expects:
        raise ValueError("context was given but the model was fitted without a context; drop the context argument.")
    C = _item_array(context, "context", columns=context_columns)
    if C.shape[0] != Xl.shape[0]:
        raise ValueError(f"context has {C.shape[0]} rows for {Xl.shape[0]} duels; one row per duel.")
    if context_kernel is not None:
        C = _item_array(C, "context", context_kernel)  # type: ignore[arg-type]
    return Xl, Xr, C

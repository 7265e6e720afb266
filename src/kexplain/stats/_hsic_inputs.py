"""The inputs of the HSIC statistics: both sides validated, their default kernels, which sides get values.

Each side of :func:`kexplain.stats.hsic` and its attribution is validated on its own, and gets
its own default kernel: an RBF with the median heuristic on numeric columns, the delta kernel
``Categorical(0)`` on columns of labels (text, booleans or other non-numbers), or a product of
the two for mixed columns; data near the float range are rescaled for the scale-free default.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_bool, check_data
from ..kernels.base import RBF, Categorical, Kernel, ProductKernel
from ..kernels.heuristics import default_lengthscale
from ._common import check_estimator_name
from ._kernels import as_2d, check_bandwidth, overflow_scale, resolve_kernel, validate_sample

ATTRIBUTES = ("x", "y", "both")


def _label_columns(data: Any) -> np.ndarray:
    """Boolean (d,): which columns hold labels (text, booleans or other non-numbers), not numbers."""
    if hasattr(data, "dtypes") and hasattr(data, "columns"):  # DataFrame: one dtype per column
        kinds = [getattr(dt, "kind", "O") for dt in data.dtypes]
        if "O" not in kinds:  # object columns are looked at value by value below
            return np.array([kind not in "iuf" for kind in kinds], dtype=bool)
    arr = data.to_numpy() if hasattr(data, "to_numpy") else np.asarray(data)
    if arr.ndim != 2:
        return np.zeros(0, dtype=bool)
    if arr.dtype.kind != "O":
        return np.full(arr.shape[1], arr.dtype.kind in "USb", dtype=bool)

    def is_number(v: Any) -> bool:
        return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))

    return np.array([not all(is_number(v) for v in arr[:, j]) for j in range(arr.shape[1])], dtype=bool)


def _prepare_side(
    data: Any, kernel: Any, name: str, bandwidth: str, min_rows: int, standardize: bool = True
) -> tuple[np.ndarray, list[str], Kernel, str | None]:
    """(array, names, kernel, note): the note says which columns got the delta kernel by default."""
    kname = "kernel_x" if name == "X" else "kernel_y"
    if kernel is not None:
        resolve_kernel(kernel, None, kname)  # type errors before any data check
    data = as_2d(data, name)
    note = None
    scale = 1.0
    labels = _label_columns(data) if kernel is None else np.zeros(0, dtype=bool)
    if kernel is None and labels.size and labels.all():
        # text or boolean labels: the delta kernel is the only sensible default
        kernel = Categorical(mismatch=0.0)
        note = f"{name}: every column holds labels, so the default kernel is the delta kernel Categorical(0)."
    if kernel is None and labels.any():
        # mixed columns: the delta kernel on the label columns only, an RBF on the numbers
        arr, names = validate_sample(data, Categorical(0.0) * 1.0, name, min_rows=min_rows)
        lab, num = np.flatnonzero(labels), np.flatnonzero(~labels)
        numeric = np.asarray(arr[:, num], dtype=np.float64)
        check_data(numeric, name=name, min_rows=min_rows)
        scale = overflow_scale(None, (numeric,), name)
        numeric = numeric / scale
        per_feature = bandwidth == "median_per_feature"
        ls = default_lengthscale(numeric, per_feature=per_feature, standardize=standardize)
        kern: Kernel = ProductKernel([(RBF(ls), num), (Categorical(0.0), lab)])
        arr = check_data(data, name=name, numeric_mask=kern.numeric_mask(arr.shape[1]), min_rows=min_rows)
        arr[:, num] = numeric
        shown = [names[j] for j in lab]
        note = (
            f"{name}: columns {shown} hold labels (text, booleans or other non-numbers): the default kernel "
            f"gives them the delta kernel Categorical(0) and the other columns an RBF (median heuristic)."
        )
    else:
        arr, names = validate_sample(data, kernel, name, min_rows=min_rows)
        # data near the float range: the default RBF (median heuristic) is scale-free, so it works
        # on data / scale; a given kernel is refused there with a message naming the side
        scale = overflow_scale(kernel, (arr,), name)
        arr = arr / scale if scale != 1.0 else arr
        kern = resolve_kernel(kernel, (arr,), kname, bandwidth, standardize)
    if scale != 1.0:
        rescaled = (
            f"{name}: values up to {scale:.3g} make differences between rows overflow in float64; the default "
            f"kernel is scale-free, so it was computed on {name} / {scale:.3g} (the same HSIC)."
        )
        note = rescaled if note is None else f"{note} {rescaled}"
    if name == "Y" and names == [f"x{j}" for j in range(arr.shape[1])]:
        names = [f"y{j}" for j in range(arr.shape[1])]
    return arr, names, kern, note


def _prepare(
    X: Any, Y: Any, kernel_x: Any, kernel_y: Any, estimator: Any, bandwidth: Any, standardize: Any = True
) -> tuple[np.ndarray, list[str], Kernel, np.ndarray, list[str], Kernel, str, list[str]]:
    estimator = check_estimator_name(estimator)
    bandwidth = check_bandwidth(bandwidth)
    standardize = check_bool(standardize, "standardize")
    min_rows = 2
    Xa, xnames, kx_, xnote = _prepare_side(X, kernel_x, "X", bandwidth, min_rows, standardize)
    Ya, ynames, ky_, ynote = _prepare_side(Y, kernel_y, "Y", bandwidth, min_rows, standardize)
    if len(Xa) != len(Ya):
        raise ValueError(
            f"X and Y must have the same number of rows (paired observations), got {len(Xa)} and {len(Ya)}."
        )
    if estimator == "unbiased" and len(Xa) < 4:
        raise ValueError(f"the unbiased HSIC estimator needs at least 4 rows, got {len(Xa)}.")
    notes = [t for t in (xnote, ynote) if t is not None]
    return Xa, xnames, kx_, Ya, ynames, ky_, estimator, notes


def _check_attribute(attribute: Any) -> str:
    if attribute not in ATTRIBUTES:
        raise ValueError(f"attribute must be 'x', 'y' or 'both', got {attribute!r}.")
    return str(attribute)


def _sides(attribute: str) -> tuple[str, ...]:
    return ("x", "y") if attribute == "both" else (attribute,)

"""The inputs of the MMD^2 statistics: the two samples validated alike, and the kernel.

The two samples must have the same features (and, for DataFrames, the same column names); the
default kernel is an RBF with the median heuristic on the pooled sample, computed on the data
divided by a power of two where differences of rows would overflow (the RBF is scale-free).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_bool, feature_names_of
from ..kernels.base import Kernel
from ._kernels import overflow_scale, resolve_kernel, validate_sample


def _prepare(
    X: Any, Z: Any, kernel: Any, bandwidth: Any, standardize: Any = True
) -> tuple[np.ndarray, np.ndarray, list[str], Kernel, dict[str, Any]]:
    """Validated samples, feature names, the kernel, and notes for the result's ``info``."""
    if kernel is not None:
        resolve_kernel(kernel, None, "kernel")
    Xa, names = validate_sample(X, kernel, "X", min_rows=2)
    Za, znames = validate_sample(Z, kernel, "Z", min_rows=2)
    if Xa.shape[1] != Za.shape[1]:
        raise ValueError(
            f"X has {Xa.shape[1]} features but Z has {Za.shape[1]}; the two samples of a two-sample test "
            "must have the same features (columns)."
        )
    if feature_names_of(X) is not None and feature_names_of(Z) is not None and znames != names:
        raise ValueError(f"the columns of Z ({znames}) differ from those of X ({names}); align them first.")
    info: dict[str, Any] = {}
    scale = overflow_scale(kernel, (Xa, Za), "X and Z")
    if scale != 1.0:
        # the default RBF is scale-equivariant: work on X / s with the median heuristic of X / s
        Xa, Za = Xa / scale, Za / scale
        info["data_scale"] = scale
    kernel = resolve_kernel(kernel, (Xa, Za), "kernel", bandwidth, check_bool(standardize, "standardize"))
    return Xa, Za, names, kernel, info

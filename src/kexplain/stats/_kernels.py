"""Kernels for the kernel statistics: the median heuristic, validation, and per-pair factors.

The attributions need, for each sample pair (p, q), the per-feature factors k_j(p_j, q_j) of a
product kernel.  ``Kernel.feature_values`` gives them for every combination of two sets of rows;
here we need them for matched pairs only, which each kernel gives through ``Kernel.pair_values``
(a direct formula for the kernels of ``kexplain.kernels``, one call per pair for any other).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import MAGNITUDE_LIMIT, check_data, feature_names_of, to_array
from ..kernels.base import Kernel, SumKernel, default_kernel, term_amplitude

BANDWIDTHS = ("median", "median_per_feature")


def check_bandwidth(bandwidth: Any) -> str:
    if bandwidth not in BANDWIDTHS:
        raise ValueError(f"bandwidth must be one of {BANDWIDTHS}, got {bandwidth!r}.")
    return str(bandwidth)


def check_kernel(kernel: Any, name: str) -> Kernel:
    if isinstance(kernel, SumKernel):
        raise TypeError(
            f"{name} is a SumKernel; the MMD and HSIC attributions need one product kernel "
            "(RBF, Laplacian, Cauchy, Categorical or a ProductKernel of them)."
        )
    if not isinstance(kernel, Kernel):
        raise TypeError(
            f"{name} must be a kexplain product kernel (kx.kernels.RBF, Laplacian, Cauchy, "
            f"Categorical or ProductKernel) or None for an RBF with the median heuristic, got "
            f"{type(kernel).__name__}."
        )
    return kernel


def as_2d(data: Any, name: str) -> Any:
    """1-D input is one column (a univariate target); everything else must be 2-D."""
    if hasattr(data, "to_numpy"):  # pandas: a Series is one column, a DataFrame keeps its names
        return data.to_frame() if getattr(data, "ndim", 2) == 1 else data
    arr = to_array(data, name)  # ragged rows: a ValueError naming ``name``
    return arr.reshape(-1, 1) if arr.ndim == 1 else arr


def validate_sample(
    data: Any, kernel: Kernel | None, name: str, min_rows: int, n_features: int | None = None
) -> tuple[np.ndarray, list[str]]:
    """(array, feature names) for a sample whose kernel may be None (numeric then).

    The data are converted once (a DataFrame's ``to_numpy``); :func:`kexplain._validation.check_data`
    then validates that array, naming a DataFrame's columns in its messages.
    """
    data = as_2d(data, name)
    names = feature_names_of(data)
    arr0 = to_array(data, name)
    d = arr0.shape[1] if arr0.ndim == 2 else None
    mask = None
    if kernel is not None and d is not None:
        kernel.check_n_features(d, name)
        mask = kernel.numeric_mask(d)
    arr = check_data(arr0, name=name, numeric_mask=mask, min_rows=min_rows, column_names=names)
    if n_features is not None and arr.shape[1] != n_features:
        raise ValueError(
            f"{name} has {arr.shape[1]} features but the other sample has {n_features}; the two "
            "samples of a two-sample test must have the same features."
        )
    if names is None:
        names = [f"x{j}" for j in range(arr.shape[1])]
    return arr, names


def resolve_kernel(kernel: Any, arrays: Any, name: str, bandwidth: str = "median", standardize: bool = True) -> Kernel:
    """The kernel to use: the given one, or an RBF with the median heuristic on pooled ``arrays``
    (on standardised features when ``standardize``)."""
    if kernel is not None:
        return check_kernel(kernel, name)
    bandwidth = check_bandwidth(bandwidth)
    # kexplain's one default policy (kexplain.kernels.default_kernel); the options vary it
    return default_kernel(*arrays, per_feature=bandwidth == "median_per_feature", standardize=standardize)


def amplitude(kernel: Kernel) -> float:
    return term_amplitude(kernel)


def pair_factors(kernel: Kernel, P: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """k_j(P_rj, Q_rj) for matched rows, shape (r, d), without the amplitude (``Kernel.pair_values``)."""
    return kernel.pair_values(P, Q)


#: magnitudes beyond this make differences (and the median heuristic's squared distances) overflow
_OVERFLOW = MAGNITUDE_LIMIT


def overflow_scale(kernel: Kernel | None, arrays: Any, name: str) -> float:
    """1.0, or the power of two to divide numeric data by so that differences of rows cannot overflow.

    Only the default (scale-free) kernel allows that; with a given kernel such data is refused with
    a ValueError naming ``name``.
    """
    mags = [float(np.max(np.abs(a))) for a in arrays if a.dtype.kind == "f" and a.size]
    big = max(mags, default=0.0)
    if big <= _OVERFLOW:
        return 1.0
    if kernel is not None:
        raise ValueError(
            f"{name} hold values up to {big:.3g}, so differences between rows overflow in float64; divide "
            "the data (and the kernel's lengthscales) by a common scale, or pass kernel=None (the median "
            "heuristic then rescales the data itself)."
        )
    return float(2.0 ** np.ceil(np.log2(big)))

"""Kernels for the kernel statistics: the median heuristic, validation, and per-pair factors.

The attributions need, for each sample pair (p, q), the per-feature factors k_j(p_j, q_j) of a
product kernel.  ``Kernel.feature_values`` gives them for every combination of two sets of rows;
here we need them for matched pairs only, so stationary and categorical kernels are evaluated on
the pairs directly and any other per-feature kernel falls back to one call per pair.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_data, feature_names_of, to_array
from ..kernels.base import (
    Categorical,
    Kernel,
    ProductKernel,
    SumKernel,
    _Stationary,
    term_amplitude,
)
from ..kernels.heuristics import median_heuristic

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
    """(array, feature names) for a sample whose kernel may be None (numeric then)."""
    data = as_2d(data, name)
    names = feature_names_of(data)
    arr0 = data.to_numpy() if hasattr(data, "to_numpy") else np.asarray(data)
    d = arr0.shape[1] if arr0.ndim == 2 else None
    mask = None
    if kernel is not None and d is not None:
        kernel.check_n_features(d, name)
        mask = kernel.numeric_mask(d)
    arr = check_data(data, name=name, numeric_mask=mask, min_rows=min_rows)
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
    return _default_rbf(arrays, bandwidth == "median_per_feature", standardize)


def standardized_median_heuristic(*arrays: np.ndarray, per_feature: bool = False) -> Any:
    """The median heuristic on features scaled to unit standard deviation, in the original units.

    The pooled rows' standard deviation s_j of each feature (1 for a constant feature) divides the
    data, the median heuristic runs on the scaled data, and the lengthscale is multiplied back by
    s_j: an RBF with lengthscales s_j * ell on the raw data is the RBF with lengthscale ell on the
    standardised data, so no feature dominates the distance because of its units.
    """
    pooled = np.concatenate([np.asarray(a, dtype=np.float64) for a in arrays], axis=0)
    if pooled.ndim != 2 or pooled.shape[1] == 0 or pooled.shape[0] == 0:
        return median_heuristic(*arrays, per_feature=per_feature)  # its own answer (or message)
    sd = pooled.std(axis=0)
    sd = np.where(np.isfinite(sd) & (sd > 0), sd, 1.0)
    ell = median_heuristic(*(np.asarray(a, dtype=np.float64) / sd for a in arrays), per_feature=per_feature)
    return np.asarray(ell, dtype=np.float64) * sd


def _default_rbf(arrays: Any, per_feature: bool, standardize: bool = True) -> Kernel:
    from ..kernels.base import RBF

    if standardize:
        return RBF(lengthscale=standardized_median_heuristic(*arrays, per_feature=per_feature))
    return RBF(lengthscale=median_heuristic(*arrays, per_feature=per_feature))


def amplitude(kernel: Kernel) -> float:
    return term_amplitude(kernel)


def pair_factors(kernel: Kernel, P: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """k_j(P_rj, Q_rj) for matched rows, shape (r, d), without the amplitude."""
    r, d = P.shape
    if isinstance(kernel, ProductKernel):
        out = np.empty((r, d))
        for k, feats in kernel.parts:
            ps, qs = P[:, feats], Q[:, feats]
            if k.numeric:
                ps, qs = ps.astype(np.float64), qs.astype(np.float64)
            out[:, feats] = pair_factors(k, ps, qs)
        return out
    if isinstance(kernel, _Stationary):
        # stationary: k(p, q) depends on p - q only, so the pairs become rows against the origin
        diff = np.asarray(P, dtype=np.float64) - np.asarray(Q, dtype=np.float64)
        return kernel.feature_values(diff, np.zeros((1, d)))[:, 0, :]
    if isinstance(kernel, Categorical):
        mismatch: float = kernel.mismatch
        return np.where(np.asarray(P) == np.asarray(Q), 1.0, mismatch)
    # any other per-feature kernel: one call per pair is slow but correct
    if r == 0:
        return np.zeros((0, d))
    return np.stack([kernel.feature_values(P[i : i + 1], Q[i : i + 1])[0, 0] for i in range(r)])


#: magnitudes beyond this make differences (and the median heuristic's squared distances) overflow
_OVERFLOW = 1e150


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

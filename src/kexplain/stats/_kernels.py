"""Kernels for the kernel statistics: the median heuristic, validation, and per-pair factors.

The attributions need, for each sample pair (p, q), the per-feature factors k_j(p_j, q_j) of a
product kernel.  ``Kernel.feature_values`` gives them for every combination of two sets of rows;
here we need them for matched pairs only, so stationary and categorical kernels are evaluated on
the pairs directly and any other per-feature kernel falls back to one call per pair.
"""
from __future__ import annotations

import numpy as np

from .._validation import check_data, feature_names_of
from ..kernels.base import (
    Categorical,
    Kernel,
    ProductKernel,
    SumKernel,
    _Stationary,
    term_amplitude,
)

#: rows used to compute the median heuristic; more only refine a median that is already stable
MEDIAN_MAX_ROWS = 1000

BANDWIDTHS = ("median", "median_per_feature")


def _median_rows(data: np.ndarray, max_rows: int) -> np.ndarray:
    # evenly spaced rows keep the heuristic deterministic without a random_state
    if len(data) <= max_rows:
        return data
    idx = np.linspace(0, len(data) - 1, max_rows).round().astype(np.int64)
    return data[idx]


def _safe_median(dist: np.ndarray) -> float:
    """Median of pairwise distances, falling back to the median of the nonzero ones.

    A feature with ties in over half of its pairs (a binary or mostly constant feature) has a
    zero median; the median of its nonzero distances is then a bandwidth on the scale at which
    its values do differ.  A constant feature has no nonzero distance: its factor is 1 for every
    pair whatever the bandwidth, so 1.0 is returned (it is a null player and gets exactly zero).
    """
    med = float(np.median(dist)) if dist.size else 0.0
    if med > 0:
        return med
    nz = dist[dist > 0]
    return float(np.median(nz)) if nz.size else 1.0


def median_heuristic(*arrays, per_feature: bool = False, max_rows: int = MEDIAN_MAX_ROWS):
    """Median heuristic lengthscale from the pooled rows of ``arrays``.

    ``per_feature=False`` (the default everywhere in kexplain.stats, and the paper's choice):
    one lengthscale, the median Euclidean distance between pooled rows, so the RBF is the
    isotropic exp(-||x - x'||^2 / (2 l^2)).  ``per_feature=True``: one lengthscale per feature, the
    median absolute difference in that feature (each factor is then informative on its own, but
    their product over many features is close to zero for most pairs: prefer it for few features).

    Zero medians (ties in over half the pairs, or constant features) fall back to the median of the
    nonzero distances, and to 1.0 when there are none; see ``_safe_median``.
    """
    from scipy.spatial.distance import pdist

    pooled = np.concatenate([np.asarray(a, dtype=np.float64) for a in arrays], axis=0)
    rows = _median_rows(pooled, max_rows)
    if per_feature:
        return np.array([_safe_median(pdist(rows[:, j:j + 1], "cityblock")) for j in range(rows.shape[1])])
    return _safe_median(pdist(rows, "euclidean"))


def check_bandwidth(bandwidth) -> str:
    if bandwidth not in BANDWIDTHS:
        raise ValueError(f"bandwidth must be one of {BANDWIDTHS}, got {bandwidth!r}.")
    return bandwidth


def check_kernel(kernel, name: str) -> Kernel:
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


def as_2d(data, name: str):
    """1-D input is one column (a univariate target); everything else must be 2-D."""
    if not hasattr(data, "to_numpy") and np.ndim(data) == 1:
        return np.asarray(data).reshape(-1, 1)
    if hasattr(data, "to_numpy") and getattr(data, "ndim", 2) == 1:   # pandas Series
        return data.to_frame()
    return data


def validate_sample(data, kernel, name: str, min_rows: int, n_features: int | None = None):
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


def resolve_kernel(kernel, arrays, name: str, bandwidth: str = "median") -> Kernel:
    """The kernel to use: the given one, or an RBF with the median heuristic on pooled ``arrays``."""
    if kernel is not None:
        return check_kernel(kernel, name)
    bandwidth = check_bandwidth(bandwidth)
    return _default_rbf(arrays, bandwidth == "median_per_feature")


def _default_rbf(arrays, per_feature):
    from ..kernels.base import RBF

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
        return np.where(np.asarray(P) == np.asarray(Q), 1.0, kernel.mismatch)
    # any other per-feature kernel: one call per pair is slow but correct
    return np.stack([kernel.feature_values(P[i:i + 1], Q[i:i + 1])[0, 0] for i in range(r)]) if r else np.zeros((0, d))

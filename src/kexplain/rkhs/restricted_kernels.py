"""Kernels restricted to a subset of features (thesis appendix C.3): same family, same
hyperparameters, evaluated on the columns of the subset only.

Used by RKHSExplainer for models whose kernel is not a product over features (Matern,
RationalQuadratic, polynomial, ...): the conditional mean embedding given X_S regresses with k_S.
"""
from __future__ import annotations

import numpy as np

from ..exceptions import UnsupportedModelError

_STRING_KERNELS = ("rbf", "laplacian", "poly", "polynomial", "sigmoid", "linear", "cosine", "chi2",
                   "additive_chi2")
SUPPORTED_NON_PRODUCT = (
    "KernelRidge, GaussianProcessRegressor, SVR/NuSVR/SVC/NuSVC with a scikit-learn kernel built "
    "from Matern, RationalQuadratic, RBF, ExpSineSquared, DotProduct, PairwiseKernel, "
    "ConstantKernel and WhiteKernel (sums, products, powers), or a string kernel "
    f"{', '.join(_STRING_KERNELS)}"
)


def restrict_gp_kernel(kernel, S_idx):
    """A scikit-learn GP kernel object acting on the features ``S_idx`` only."""
    from sklearn.base import clone
    from sklearn.gaussian_process import kernels as sk

    if isinstance(kernel, (sk.Sum, sk.Product)):
        return type(kernel)(restrict_gp_kernel(kernel.k1, S_idx), restrict_gp_kernel(kernel.k2, S_idx))
    if isinstance(kernel, sk.Exponentiation):
        return sk.Exponentiation(restrict_gp_kernel(kernel.kernel, S_idx), kernel.exponent)
    if isinstance(kernel, (sk.ConstantKernel, sk.WhiteKernel, sk.DotProduct, sk.PairwiseKernel)):
        return kernel
    if isinstance(kernel, (sk.RBF, sk.Matern, sk.RationalQuadratic, sk.ExpSineSquared)):
        ls = np.asarray(kernel.length_scale, dtype=np.float64)
        if ls.ndim == 0:
            return kernel
        return clone(kernel).set_params(length_scale=ls[S_idx])
    raise UnsupportedModelError(
        f"cannot restrict the kernel {kernel!r} to a subset of features. Supported: {SUPPORTED_NON_PRODUCT}."
    )


def string_kernel(metric, params):
    """k(A, B) for a scikit-learn pairwise kernel name with fixed parameters."""
    from sklearn.metrics.pairwise import pairwise_kernels

    def k(A, B):
        return pairwise_kernels(A, B, metric=metric, filter_params=True, **params)

    return k


def kernel_of(est, d):
    """(callable on full rows, function S_idx -> callable on the columns S_idx) for a fitted
    scikit-learn kernel estimator, or None when it has no usable kernel."""
    name = type(est).__name__
    k = None
    if name == "GaussianProcessRegressor":
        k = getattr(est, "kernel_", None)
    elif name == "KernelRidge":
        k = est.kernel
        if isinstance(k, str):
            if k not in _STRING_KERNELS:
                return None
            params = dict(est.kernel_params or {})
            params.setdefault("gamma", est.gamma if est.gamma is not None else 1.0 / d)
            params.setdefault("degree", est.degree)
            params.setdefault("coef0", est.coef0)
            f = string_kernel(k, params)
            return f, lambda S_idx: f
    elif name in ("SVR", "NuSVR", "SVC", "NuSVC"):
        k = est.kernel
        if isinstance(k, str):
            if k == "precomputed":
                return None
            params = {"gamma": float(est._gamma), "degree": est.degree, "coef0": est.coef0}
            f = string_kernel("poly" if k == "poly" else k, params)
            return f, lambda S_idx: f
        return None
    if k is None or not hasattr(k, "theta"):
        return None
    return k, lambda S_idx: restrict_gp_kernel(k, S_idx)

"""Kernels restricted to a subset of features (Chau, 2023, thesis appendix C.3): same family,
same hyperparameters, evaluated on the columns of the subset only.

Used by RKHSExplainer for models whose kernel is not a product over features (Matern,
RationalQuadratic, polynomial, ...): the conditional mean embedding given X_S regresses with k_S.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..exceptions import UnsupportedModelError

_STRING_KERNELS = ("rbf", "laplacian", "poly", "polynomial", "sigmoid", "linear", "cosine", "chi2", "additive_chi2")
SUPPORTED_NON_PRODUCT = (
    "KernelRidge, GaussianProcessRegressor, SVR/NuSVR/SVC/NuSVC with a scikit-learn kernel built "
    "from Matern, RationalQuadratic, RBF, ExpSineSquared, DotProduct, PairwiseKernel, "
    "ConstantKernel and WhiteKernel (sums, products, powers), or a string kernel "
    f"{', '.join(_STRING_KERNELS)}"
)


KernelFn = Callable[[np.ndarray, np.ndarray], np.ndarray]


def restrict_gp_kernel(kernel: Any, S_idx: np.ndarray) -> Any:
    """A scikit-learn GP kernel object acting on the features ``S_idx`` only.

    Anisotropic lengthscales are cut to ``S_idx``; isotropic and feature-free parts
    (ConstantKernel, WhiteKernel, DotProduct, PairwiseKernel) are kept as they are.

    Parameters
    ----------
    kernel : sklearn.gaussian_process.kernels.Kernel
        Built from RBF, Matern, RationalQuadratic, ExpSineSquared, DotProduct, PairwiseKernel,
        ConstantKernel and WhiteKernel through sums, products and powers.
    S_idx : ndarray of int
        The features kept.

    Returns
    -------
    sklearn.gaussian_process.kernels.Kernel
        To be applied to the columns ``S_idx`` of the rows.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.gaussian_process.kernels import Matern
    >>> from kexplain.rkhs.restricted_kernels import restrict_gp_kernel
    >>> restrict_gp_kernel(Matern(length_scale=[1.0, 2.0, 3.0], nu=1.5), np.array([0, 2]))
    Matern(length_scale=[1, 3], nu=1.5)
    """
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


def string_kernel(metric: str, params: dict[str, Any]) -> KernelFn:
    """k(A, B) for a scikit-learn pairwise kernel name with fixed parameters.

    Parameters
    ----------
    metric : str
        A name ``sklearn.metrics.pairwise.pairwise_kernels`` accepts ("rbf", "poly", ...).
    params : dict
        Its parameters (those it does not take are dropped).

    Returns
    -------
    callable
        k(A, B) of shape (len(A), len(B)).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.rkhs.restricted_kernels import string_kernel
    >>> k = string_kernel("rbf", {"gamma": 0.5, "degree": 3})
    >>> np.round(k(np.zeros((1, 2)), np.ones((1, 2))), 3)
    array([[0.368]])
    """
    return _StringKernel(metric, params)


class _StringKernel:
    """k(A, B) of a scikit-learn pairwise kernel name; an object, not a closure, so that an
    explainer holding it can be pickled (sent to a Dask worker)."""

    def __init__(self, metric: str, params: dict[str, Any]) -> None:
        self.metric, self.params = metric, params

    def __call__(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        from sklearn.metrics.pairwise import pairwise_kernels

        return pairwise_kernels(A, B, metric=self.metric, filter_params=True, **self.params)


class _Unrestricted:
    """S -> the same kernel: a string kernel of scikit-learn is applied to the columns S as given."""

    def __init__(self, kernel: KernelFn) -> None:
        self.kernel = kernel

    def __call__(self, S_idx: np.ndarray) -> KernelFn:
        return self.kernel


class _Restricted:
    """S -> the scikit-learn kernel object restricted to the features S (``restrict_gp_kernel``)."""

    def __init__(self, kernel: Any) -> None:
        self.kernel = kernel

    def __call__(self, S_idx: np.ndarray) -> Any:
        return restrict_gp_kernel(self.kernel, S_idx)


def kernel_of(est: Any, d: int | None) -> tuple[Any, Callable[[np.ndarray], Any]] | None:
    """The kernel of a fitted scikit-learn kernel estimator and its restrictions.

    Parameters
    ----------
    est : fitted estimator
        KernelRidge, GaussianProcessRegressor, SVR, NuSVR, SVC or NuSVC.
    d : int or None
        Number of features (the default gamma of KernelRidge's string kernels is 1 / d).

    Returns
    -------
    tuple or None
        (callable on full rows, function S_idx -> callable on the columns S_idx), or None when
        the estimator has no usable kernel (a precomputed kernel, an unknown estimator).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> from kexplain.rkhs.restricted_kernels import kernel_of
    >>> X = np.random.default_rng(0).normal(size=(10, 3))
    >>> full, on = kernel_of(KernelRidge(kernel="poly", degree=2).fit(X, X[:, 0]), 3)
    >>> on(np.array([0, 1]))(X[:2, :2], X[:3, :2]).shape
    (2, 3)
    """
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
            params.setdefault("gamma", est.gamma if est.gamma is not None else (None if not d else 1.0 / d))
            params.setdefault("degree", est.degree)
            params.setdefault("coef0", est.coef0)
            f = string_kernel(k, params)
            return f, _Unrestricted(f)
    elif name in ("SVR", "NuSVR", "SVC", "NuSVC"):
        k = est.kernel
        if isinstance(k, str):
            if k == "precomputed":
                return None
            params = {"gamma": float(est._gamma), "degree": est.degree, "coef0": est.coef0}
            f = string_kernel("poly" if k == "poly" else k, params)
            return f, _Unrestricted(f)
        return None
    if k is None or not hasattr(k, "theta"):
        return None
    return k, _Restricted(k)

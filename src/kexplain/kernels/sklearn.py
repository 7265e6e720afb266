"""Conversion of scikit-learn Gaussian-process kernels into kexplain product kernels.

Supported: sums and products of ``RBF`` (isotropic or one length scale per feature),
``ConstantKernel`` and ``WhiteKernel``.  Sums of products are expanded; a product of RBFs is one
RBF (their inverse squared length scales add); constant-only terms become an intercept; a
``WhiteKernel`` contributes nothing between distinct inputs (scikit-learn's k(X, Y) for Y given is
zero), so it drops out of predictions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import UnsupportedModelError
from .base import RBF, Kernel, SumKernel

SUPPORTED_SKLEARN_KERNELS = (
    "sums and products of RBF (isotropic or ARD length scales), ConstantKernel and WhiteKernel, and powers of them"
)

#: what a user can do with a fitted model whose kernel has no product form
OTHER_KERNELS_ADVICE = (
    "Explain such a fitted model with kx.RKHSExplainer(model, value='interventional') (it evaluates the model "
    "on coalitions of its training rows, or of background=B: exact up to 12 features, sampled beyond), "
    "or kx.RKHSExplainer(model) for the observational game."
)


def _expand(k: Any) -> list[tuple[float, list[Any]]]:
    """List of (amplitude, [inverse squared length scales]) terms."""
    from sklearn.gaussian_process import kernels as sk

    if isinstance(k, sk.Sum):
        return _expand(k.k1) + _expand(k.k2)
    if isinstance(k, sk.Product):
        return [(a1 * a2, f1 + f2) for a1, f1 in _expand(k.k1) for a2, f2 in _expand(k.k2)]
    if isinstance(k, sk.Exponentiation):
        p = float(k.exponent)
        terms = _expand(k.kernel)
        if not terms:  # white noise only: zero between distinct inputs, at any power
            return []
        if len(terms) == 1:  # (a * prod exp(-u^2/2))^p = a^p * prod exp(-p u^2 / 2)
            amp, inv_sq = terms[0]
            return [(amp**p, [np.asarray(v) * p for v in inv_sq])]
        if p.is_integer() and p >= 1:
            out: list[tuple[float, list[Any]]] = terms
            for _ in range(int(p) - 1):
                out = [(a1 * a2, f1 + f2) for a1, f1 in out for a2, f2 in terms]
            return out
        raise UnsupportedModelError(
            f"kernel {k!r}: a sum raised to a non-integer power has no product form. Supported "
            f"scikit-learn kernels: {SUPPORTED_SKLEARN_KERNELS}. {OTHER_KERNELS_ADVICE}"
        )
    if isinstance(k, sk.ConstantKernel):
        return [(float(k.constant_value), [])]
    if isinstance(k, sk.WhiteKernel):
        return []
    if type(k) is sk.RBF:
        ls = np.asarray(k.length_scale, dtype=np.float64)
        return [(1.0, [1.0 / ls**2])]
    raise UnsupportedModelError(
        f"kernel {k!r} has no exact product form. Supported scikit-learn kernels: "
        f"{SUPPORTED_SKLEARN_KERNELS} (not Matern, RationalQuadratic, DotProduct, ...). {OTHER_KERNELS_ADVICE}"
    )


def from_sklearn(kernel: Any, n_features: int) -> tuple[Kernel | SumKernel | None, float]:
    """Convert a scikit-learn Gaussian-process kernel into a kexplain kernel and a constant.

    The kernel equals ``kexplain_kernel + constant`` between distinct inputs; the kexplain kernel is
    None when every term is constant.

    Parameters
    ----------
    kernel : sklearn.gaussian_process.kernels.Kernel
        Sums, products and powers of ``RBF``, ``ConstantKernel`` and ``WhiteKernel``.
    n_features : int
        Number of input features (for isotropic length scales).

    Returns
    -------
    kernel : RBF, SumKernel or None
    constant : float

    Raises
    ------
    UnsupportedModelError
        For kernels without an exact product form (Matern, RationalQuadratic, DotProduct, ...); the
        message points to ``kx.RKHSExplainer(model, value="interventional")``, which explains
        such fitted models exactly up to 12 features.

    Examples
    --------
    >>> from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel
    >>> from kexplain.kernels import from_sklearn
    >>> from_sklearn(ConstantKernel(2.0) * RBF([1.0, 2.0]) + ConstantKernel(0.5) + WhiteKernel(), 2)
    (RBF(lengthscale=[1. 2.], amplitude=2), 0.5)
    """
    terms: list[Kernel] = []
    constant = 0.0
    for amp, inv_sq in _expand(kernel):
        if amp == 0.0:
            continue
        if not inv_sq:
            constant += amp
            continue
        total = np.zeros(n_features)
        for v in inv_sq:
            v = np.asarray(v)
            if v.ndim == 1 and v.size != n_features:
                raise UnsupportedModelError(
                    f"an RBF length scale has {v.size} entries but the model has {n_features} features."
                )
            total = total + v
        ls = 1.0 / np.sqrt(total)
        if amp < 0:
            raise UnsupportedModelError(f"kernel {kernel!r} has a negative amplitude.")
        terms.append(RBF(lengthscale=float(ls[0]) if np.all(ls == ls[0]) else ls, amplitude=amp))
    if not terms:
        return None, constant
    return (terms[0] if len(terms) == 1 else SumKernel(terms)), constant

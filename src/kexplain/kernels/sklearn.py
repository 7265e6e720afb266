"""Conversion of scikit-learn Gaussian-process kernels into kexplain product kernels.

Supported: sums and products of ``RBF`` (isotropic or one length scale per feature),
``ConstantKernel`` and ``WhiteKernel``, and of ``Matern`` (any nu; nu = inf is the RBF) and
``RationalQuadratic``, which are Gaussian scale mixtures and become a
:class:`~kexplain.kernels.mixture.ScaleMixtureKernel` (a positive sum of RBF kernels within a
measured uniform error, see ``kernels/mixture.py``).  Sums of products are expanded; a product of RBFs is one
RBF (their inverse squared length scales add); constant-only terms become an intercept; a
``WhiteKernel`` contributes nothing between distinct inputs (scikit-learn's k(X, Y) for Y given is
zero), so it drops out of predictions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import UnsupportedModelError
from .base import RBF, Kernel, SumKernel
from .mixture import MixtureComponent, MixtureFactor, ScaleMixtureKernel, _check_inv_sq, _check_shape_param

SUPPORTED_SKLEARN_KERNELS = (
    "sums and products of RBF (isotropic or ARD length scales), Matern (any nu, isotropic or ARD; exact to a "
    "reported bound), RationalQuadratic (exact to a reported bound), ConstantKernel and WhiteKernel, and integer "
    "powers of them"
)

#: what a user can do with a fitted model whose kernel has no product form
OTHER_KERNELS_ADVICE = (
    "Explain such a fitted model with kx.RKHSExplainer(model, game='interventional') (it evaluates the model "
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
        mixtures = any(isinstance(v, MixtureFactor) for _, f in terms for v in f)
        if len(terms) == 1 and not mixtures:  # (a * prod exp(-u^2/2))^p = a^p * prod exp(-p u^2 / 2)
            amp, inv_sq = terms[0]
            return [(amp**p, [np.asarray(v) * p for v in inv_sq])]
        if p.is_integer() and p >= 1:
            out: list[tuple[float, list[Any]]] = terms
            for _ in range(int(p) - 1):
                out = [(a1 * a2, f1 + f2) for a1, f1 in out for a2, f2 in terms]
            return out
        what = "a Matern or RationalQuadratic kernel" if mixtures else "a sum"
        raise UnsupportedModelError(
            f"kernel {k!r}: {what} raised to a non-integer power has no product form. Supported "
            f"scikit-learn kernels: {SUPPORTED_SKLEARN_KERNELS}. {OTHER_KERNELS_ADVICE}"
        )
    if isinstance(k, sk.ConstantKernel):
        return [(float(k.constant_value), [])]
    if isinstance(k, sk.WhiteKernel):
        return []
    if type(k) is sk.RBF:
        ls = np.asarray(k.length_scale, dtype=np.float64)
        return [(1.0, [1.0 / ls**2])]
    if type(k) is sk.Matern:
        m_inv = _check_inv_sq(k.length_scale, "length_scale of Matern")
        nu = _check_shape_param(k.nu, "nu of Matern", allow_inf=True)
        if nu == np.inf:  # scikit-learn's Matern with nu = inf is its RBF
            return [(1.0, [np.asarray(m_inv)])]
        return [(1.0, [MixtureFactor("matern", nu, m_inv)])]
    if type(k) is sk.RationalQuadratic:
        q_inv = _check_inv_sq(k.length_scale, "length_scale of RationalQuadratic")
        alpha = _check_shape_param(k.alpha, "alpha of RationalQuadratic", allow_inf=False)
        return [(1.0, [MixtureFactor("rq", alpha, q_inv)])]
    raise UnsupportedModelError(
        f"kernel {k!r} has no exact product form. Supported scikit-learn kernels: "
        f"{SUPPORTED_SKLEARN_KERNELS} (not DotProduct, ExpSineSquared, ...). {OTHER_KERNELS_ADVICE}"
    )


def from_sklearn(kernel: Any, n_features: int, *, tol: float | None = None) -> tuple[Kernel | SumKernel | None, float]:
    """Convert a scikit-learn Gaussian-process kernel into a kexplain kernel and a constant.

    The kernel equals ``kexplain_kernel + constant`` between distinct inputs; the kexplain kernel is
    None when every term is constant.

    Parameters
    ----------
    kernel : sklearn.gaussian_process.kernels.Kernel
        Sums, products and powers of ``RBF``, ``ConstantKernel`` and ``WhiteKernel``.
    n_features : int
        Number of input features (for isotropic length scales).
    tol : float, optional
        Target uniform error of the discretised Matern and RationalQuadratic factors, in (0, 1)
        (default ``kexplain.kernels.mixture.DEFAULT_KERNEL_TOL``); explainers refit it to their data.

    Returns
    -------
    kernel : RBF, SumKernel, ScaleMixtureKernel or None
        A ScaleMixtureKernel when a Matern or RationalQuadratic is involved; None when every
        term is constant.
    constant : float
        The constant term: the kernel is ``kexplain kernel + constant`` between distinct inputs.

    Raises
    ------
    UnsupportedModelError
        For kernels without an exact product form (DotProduct, ExpSineSquared, ...); the
        message points to ``kx.RKHSExplainer(model, game="interventional")``, which explains
        such fitted models exactly up to 12 features.

    Examples
    --------
    >>> from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel
    >>> from kexplain.kernels import from_sklearn
    >>> from_sklearn(ConstantKernel(2.0) * RBF([1.0, 2.0]) + ConstantKernel(0.5) + WhiteKernel(), 2)
    (RBF(lengthscale=[1. 2.], amplitude=2), 0.5)
    >>> from sklearn.gaussian_process.kernels import Matern
    >>> k, const = from_sklearn(ConstantKernel(2.0) * Matern(1.0, nu=2.5) + WhiteKernel(), 3)
    >>> k.error <= 2e-12, const
    (True, 0.0)
    """
    terms: list[RBF] = []
    components: list[MixtureComponent] = []
    constant = 0.0
    for amp, inv_sq in _expand(kernel):
        if amp == 0.0:
            continue
        if not inv_sq:
            constant += amp
            continue
        if amp < 0:
            raise UnsupportedModelError(f"kernel {kernel!r} has a negative amplitude.")
        total = np.zeros(n_features)
        factors = []
        for v in inv_sq:
            if isinstance(v, MixtureFactor):
                size = np.size(v.inv_sq)
                if np.ndim(v.inv_sq) == 1 and size != n_features:
                    raise UnsupportedModelError(
                        f"a {v.name()} length scale has {size} entries but the model has {n_features} features."
                    )
                factors.append(v)
                continue
            v = np.asarray(v)
            if v.ndim == 1 and v.size != n_features:
                raise UnsupportedModelError(
                    f"an RBF length scale has {v.size} entries but the model has {n_features} features."
                )
            total = total + v
        if factors:
            components.append(MixtureComponent(float(amp), total, tuple(factors)))
            continue
        ls = 1.0 / np.sqrt(total)
        terms.append(RBF(lengthscale=float(ls[0]) if np.all(ls == ls[0]) else ls, amplitude=amp))
    if components:
        # plain RBF terms join the mixture as components without factors, so that the whole
        # kernel keeps one error bound and one range
        for t in terms:
            components.append(MixtureComponent(t.amplitude, 1.0 / np.asarray(t.lengthscale) ** 2, ()))
        return ScaleMixtureKernel(components, tol=tol), constant
    if not terms:
        return None, constant
    return (terms[0] if len(terms) == 1 else SumKernel(terms)), constant

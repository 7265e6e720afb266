"""Conversion of GPflow kernels into kexplain product kernels.

Supported: ``SquaredExponential`` (``RBF``), ``Matern12``, ``Matern32``, ``Matern52``,
``RationalQuadratic`` and ``Constant``, with one length scale or one per feature and
``active_dims``, sums (``Sum``, ``+``) and products (``Product``, ``*``); a ``White`` kernel in the
top-level sum acts on the training inputs only (it is zero between distinct points), so it is
returned as extra noise, not as part of the kernel.  GPflow's conventions are scikit-learn's:
RBF variance * exp(-r^2 / 2), Matérn with nu = 1/2, 3/2, 5/2 and rational quadratic
variance * (1 + r^2 / (2 alpha))^(-alpha), r the distance divided by the length scales; so the
terms are those of :func:`kexplain.kernels.from_sklearn` (Matérn and rational quadratic become a
:class:`~kexplain.kernels.ScaleMixtureKernel` within a measured uniform error).  gpflow and
tensorflow are imported by the caller only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import UnsupportedModelError
from ._terms import Term, kernel_from_terms
from .base import RBF, SumKernel
from .mixture import MixtureFactor

SUPPORTED_GPFLOW_KERNELS = (
    "sums (Sum, +) and products (Product, *) of SquaredExponential, Matern12, Matern32, Matern52 (exact to a "
    "reported bound), RationalQuadratic (exact to a reported bound) and Constant, with ARD length scales and "
    "active_dims (every product term must involve every feature), plus White in the top-level sum"
)

#: the route that works for a GPflow model whose kernel has no product form
GPFLOW_ROUTE = (
    "Explain such a model through its posterior mean as a NumPy function: "
    "f = lambda X: model.predict_f(X)[0].numpy()[:, 0], then "
    "kx.RKHSExplainer(f, background=B, value='interventional') (exact up to 12 features, sampled with "
    "standard errors beyond)"
)

_MATERN_NU = {"Matern12": 0.5, "Matern32": 1.5, "Matern52": 2.5}


def _refuse(what: str) -> UnsupportedModelError:
    return UnsupportedModelError(f"{what} Supported GPflow kernels: {SUPPORTED_GPFLOW_KERNELS}. {GPFLOW_ROUTE}.")


def _value(p: Any) -> np.ndarray:
    return np.asarray(p.numpy() if hasattr(p, "numpy") else p, dtype=np.float64)


def _dims(k: Any, dims: np.ndarray) -> np.ndarray:
    """The original feature indices kernel ``k`` sees (its ``active_dims`` within its parent's)."""
    active = getattr(k, "active_dims", None)
    if active is None:
        return dims
    return dims[active] if isinstance(active, slice) else dims[np.asarray(active, dtype=np.int64)]


def _inv_sq(k: Any, dims: np.ndarray, d: int) -> np.ndarray:
    """1 / lengthscales^2 of a stationary GPflow kernel on all d features (0 where inactive)."""
    ls = _value(k.lengthscales).reshape(-1)
    if ls.size not in (1, dims.size):
        raise _refuse(f"{type(k).__name__} has {ls.size} length scales for {dims.size} active features.")
    if not np.all(np.isfinite(ls)) or np.any(ls <= 0):
        raise _refuse(f"{type(k).__name__} has non-positive or non-finite length scales {ls}.")
    out = np.zeros(d)
    np.add.at(out, dims, np.broadcast_to(1.0 / ls**2, dims.shape))
    return out


def _expand(k: Any, dims: np.ndarray, d: int) -> list[Term]:
    name = type(k).__name__
    dims = _dims(k, dims)
    if name == "Sum":
        return [t for sub in k.kernels for t in _expand(sub, dims, d)]
    if name == "Product":
        out: list[Term] = [(1.0, [])]
        for sub in k.kernels:
            terms = _expand(sub, dims, d)
            out = [(a1 * a2, f1 + f2) for a1, f1 in out for a2, f2 in terms]
        return out
    if name == "Constant":
        return [(float(_value(k.variance).reshape(-1)[0]), [])]
    variance = float(_value(getattr(k, "variance", 1.0)).reshape(-1)[0])
    if name in ("SquaredExponential", "RBF"):
        return [(variance, [_inv_sq(k, dims, d)])]
    if name in _MATERN_NU:
        return [(variance, [MixtureFactor("matern", _MATERN_NU[name], _inv_sq(k, dims, d))])]
    if name == "RationalQuadratic":
        alpha = float(_value(k.alpha).reshape(-1)[0])
        if not np.isfinite(alpha) or alpha <= 0:
            raise _refuse(f"RationalQuadratic with alpha={alpha}: alpha must be positive and finite.")
        return [(variance, [MixtureFactor("rq", alpha, _inv_sq(k, dims, d))])]
    why = {
        "White": "a White kernel is supported only as a term of the top-level sum (it is noise on the training inputs)",
        "Periodic": "a periodic kernel is not a Gaussian scale mixture",
        "Cosine": "a cosine kernel is not a positive product over features",
        "Linear": "a linear kernel is not a product over features",
        "Polynomial": "a polynomial kernel is not a product over features",
        "ArcCosine": "an arc-cosine kernel is not a product over features",
        "ChangePoints": "a change-point kernel's weights are not a product over features",
    }.get(name, "it has no exact product form")
    raise _refuse(f"GPflow kernel {name}: {why}.")


def from_gpflow(
    kernel: Any, n_features: int, *, tol: float | None = None
) -> tuple[RBF | SumKernel | None, float, float]:
    """Convert a GPflow kernel into a kexplain kernel, a constant and the variance of its White terms.

    The kernel equals ``kexplain_kernel + constant`` between distinct points (within the
    mixture's reported ``error`` for Matérn and rational quadratic kernels) and
    ``kexplain_kernel + constant + white`` on the diagonal of a training Gram matrix.

    Parameters
    ----------
    kernel : gpflow.kernels.Kernel
        See :data:`SUPPORTED_GPFLOW_KERNELS`.
    n_features : int
        Number of input features the kernel is applied to.
    tol : float, optional
        Target uniform error of the discretised Matérn and rational quadratic factors.

    Returns
    -------
    kernel : RBF, SumKernel, ScaleMixtureKernel or None
        None when every term is constant.
    constant : float
    white : float
        The summed variance of the top-level ``White`` terms.

    Raises
    ------
    UnsupportedModelError
        For kernels without an exact product form, naming what is supported and the route that works.

    Examples
    --------
    >>> import numpy as np
    >>> import pytest
    >>> gpflow = pytest.importorskip("gpflow")  # the repository runs this in its GPflow environment
    >>> from kexplain.kernels.gpflow import from_gpflow
    >>> gk = gpflow.kernels.SquaredExponential(variance=2.0, lengthscales=[1.0, 0.5])
    >>> k, const, white = from_gpflow(gk, 2)
    >>> X = np.array([[0.0, 0.0], [1.0, 0.5]])
    >>> bool(np.allclose(k(X), gk(X).numpy())), const, white
    (True, 0.0, 0.0)
    """
    d = int(n_features)
    top = kernel.kernels if type(kernel).__name__ == "Sum" else [kernel]
    white = 0.0
    rest = []
    all_dims = np.arange(d)
    for sub in top:
        if type(sub).__name__ == "White":
            white += float(_value(sub.variance).reshape(-1)[0])
        else:
            rest.append(sub)
    dims = _dims(kernel, all_dims) if type(kernel).__name__ == "Sum" else all_dims
    terms = [t for sub in rest for t in _expand(sub, dims, d)]
    k, constant = kernel_from_terms(terms, d, name=type(kernel).__name__, refuse=_refuse, tol=tol)
    return k, constant, white

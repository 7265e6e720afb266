"""Conversion of GPyTorch kernels into kexplain product kernels.

Supported: ``ScaleKernel``, ``RBFKernel``, ``MaternKernel`` (nu 0.5, 1.5, 2.5), ``RQKernel`` and
``ConstantKernel``, with one length scale or one per feature (``ard_num_dims``), ``active_dims``,
sums (``AdditiveKernel``, ``+``) and products (``ProductKernel``, ``*``), batched kernels (one batch
entry per output of a batched multi-output model).  GPyTorch's conventions are scikit-learn's:
RBF exp(-r^2 / 2), Matérn 2^(1-nu)/Gamma(nu) (sqrt(2 nu) r)^nu K_nu(sqrt(2 nu) r) and rational
quadratic (1 + r^2 / (2 alpha))^(-alpha), with r the distance of the inputs divided by the length
scales, so the terms are those of :func:`kexplain.kernels.from_sklearn`: Matérn and rational
quadratic kernels become a :class:`~kexplain.kernels.ScaleMixtureKernel` (a positive sum of RBF
kernels within a measured uniform error).  torch and gpytorch are imported by the caller only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import UnsupportedModelError
from ._terms import kernel_from_terms
from .base import RBF, SumKernel
from .dot_product import Linear, Polynomial, PolynomialOfSum
from .mixture import MixtureFactor

SUPPORTED_GPYTORCH_KERNELS = (
    "sums (AdditiveKernel, +) and products (ProductKernel, *) of ScaleKernel, RBFKernel, MaternKernel "
    "(nu 0.5, 1.5, 2.5; exact to a reported bound), RQKernel (exact to a reported bound) and ConstantKernel, "
    "with ard_num_dims and active_dims (every product term must involve every feature); and a LinearKernel or "
    "PolynomialKernel on all features (in a ScaleKernel, plus ConstantKernel terms), exact"
)

#: the route that works for a fitted GPyTorch / BoTorch model whose kernel has no product form
GPYTORCH_ROUTE = (
    "Explain such a model through its posterior mean as a NumPy function: "
    "f = lambda X: model.posterior(torch.as_tensor(X)).mean.detach().numpy()[:, 0] (BoTorch) or "
    "lambda X: model(torch.as_tensor(X)).mean.detach().numpy() (GPyTorch), then "
    "kx.RKHSExplainer(f, background=B, value='interventional') (exact up to 12 features, sampled with "
    "standard errors beyond)"
)


def _refuse(what: str) -> UnsupportedModelError:
    return UnsupportedModelError(f"{what} Supported GPyTorch kernels: {SUPPORTED_GPYTORCH_KERNELS}. {GPYTORCH_ROUTE}.")


def _numpy(t: Any, batch: int | None) -> np.ndarray:
    """A kernel parameter as float64 numpy, the batch entry ``batch`` taken when it is batched."""
    arr = np.asarray(t.detach().cpu().double().numpy(), dtype=np.float64)
    if batch is not None and arr.ndim >= 1 and arr.shape[0] > 1:
        arr = arr[batch]
    elif batch is not None and arr.ndim >= 1 and arr.shape[0] == 1 and arr.ndim > 2:
        arr = arr[0]
    return arr


def _dims(k: Any, dims: np.ndarray) -> np.ndarray:
    """The original feature indices kernel ``k`` sees (its ``active_dims`` within its parent's)."""
    active = getattr(k, "active_dims", None)
    if active is None:
        return dims
    idx = np.asarray(active.detach().cpu().numpy() if hasattr(active, "detach") else active, dtype=np.int64)
    return dims[idx]


def _inv_sq(k: Any, dims: np.ndarray, d: int, batch: int | None) -> np.ndarray:
    """1 / lengthscale^2 of a stationary GPyTorch kernel, on all d features (0 where inactive)."""
    ls = _numpy(k.lengthscale, batch).reshape(-1)
    if ls.size not in (1, dims.size):
        raise _refuse(f"{type(k).__name__} has {ls.size} length scales for {dims.size} active features.")
    if not np.all(np.isfinite(ls)) or np.any(ls <= 0):
        raise _refuse(f"{type(k).__name__} has non-positive or non-finite length scales {ls}.")
    out = np.zeros(d)
    np.add.at(out, dims, np.broadcast_to(1.0 / ls**2, dims.shape))
    return out


def _expand(k: Any, dims: np.ndarray, d: int, batch: int | None) -> list[tuple[float, list[Any]]]:
    """(amplitude, [inverse squared length scales or MixtureFactor]) terms of a GPyTorch kernel."""
    from gpytorch import kernels as gk

    dims = _dims(k, dims)
    if type(k) is gk.ScaleKernel:
        amp = float(_numpy(k.outputscale, batch).reshape(-1)[0])
        return [(amp * a, f) for a, f in _expand(k.base_kernel, dims, d, batch)]
    if type(k) is gk.AdditiveKernel:
        return [t for sub in k.kernels for t in _expand(sub, dims, d, batch)]
    if type(k) is gk.ProductKernel:
        out: list[tuple[float, list[Any]]] = [(1.0, [])]
        for sub in k.kernels:
            terms = _expand(sub, dims, d, batch)
            out = [(a1 * a2, f1 + f2) for a1, f1 in out for a2, f2 in terms]
        return out
    if type(k) is gk.ConstantKernel:
        return [(float(_numpy(k.constant, batch).reshape(-1)[0]), [])]
    if type(k) is gk.RBFKernel:
        return [(1.0, [_inv_sq(k, dims, d, batch)])]
    if type(k) is gk.MaternKernel:
        nu = float(k.nu)
        if nu not in (0.5, 1.5, 2.5):
            raise _refuse(f"MaternKernel with nu={nu}: GPyTorch allows only 0.5, 1.5 and 2.5.")
        return [(1.0, [MixtureFactor("matern", nu, _inv_sq(k, dims, d, batch))])]
    if type(k) is gk.RQKernel:
        alpha = float(_numpy(k.alpha, batch).reshape(-1)[0])
        if not np.isfinite(alpha) or alpha <= 0:
            raise _refuse(f"RQKernel with alpha={alpha}: alpha must be positive and finite.")
        return [(1.0, [MixtureFactor("rq", alpha, _inv_sq(k, dims, d, batch))])]
    why = {
        "SpectralMixtureKernel": "a spectral mixture kernel is a sum of cosines times Gaussians, not a positive "
        "product over features",
        "PeriodicKernel": "a periodic kernel is not a Gaussian scale mixture",
        "LinearKernel": "a linear kernel is exact on its own (in a ScaleKernel, plus constants) but not inside "
        "products or sums with stationary kernels",
        "PolynomialKernel": "a polynomial kernel is exact on its own (in a ScaleKernel, plus constants) but not "
        "inside products or sums with stationary kernels",
    }.get(type(k).__name__, "it has no exact product form")
    raise _refuse(f"GPyTorch kernel {type(k).__name__}: {why}.")


def _dot_product(kernel: Any, d: int, batch: int | None) -> tuple[PolynomialOfSum, float] | None:
    """A kernel that is amplitude * (Linear or Polynomial) plus constants, as a kexplain dot-product
    kernel and the constant; None when the kernel is not of that form (the product route applies)."""
    from gpytorch import kernels as gk

    terms = list(kernel.kernels) if type(kernel) is gk.AdditiveKernel else [kernel]
    constant, found = 0.0, []
    for t in terms:
        amp = 1.0
        while type(t) is gk.ScaleKernel:
            amp *= float(_numpy(t.outputscale, batch).reshape(-1)[0])
            t = t.base_kernel
        if type(t) is gk.ConstantKernel:
            constant += amp * float(_numpy(t.constant, batch).reshape(-1)[0])
        elif type(t) in (gk.LinearKernel, gk.PolynomialKernel):
            found.append((amp, t))
        else:
            return None
    if len(found) != 1:
        return None
    amp, t = found[0]
    if getattr(t, "active_dims", None) is not None and _dims(t, np.arange(d)).tolist() != list(range(d)):
        raise _refuse(f"{type(t).__name__} on some features (active_dims): only on all features.")
    if type(t) is gk.LinearKernel:
        variance = _numpy(t.variance, batch).reshape(-1)
        if variance.size not in (1, d) or np.any(variance <= 0) or not np.all(np.isfinite(variance)):
            raise _refuse(f"LinearKernel with variance {variance}: positive and finite, one or one per feature.")
        return Linear(gamma=float(variance[0]) if variance.size == 1 else variance, amplitude=amp), constant
    power = int(t.power)
    offset = float(_numpy(t.offset, batch).reshape(-1)[0])
    return Polynomial(degree=power, gamma=1.0, coef0=offset, amplitude=amp), constant


def from_gpytorch(
    kernel: Any, n_features: int, *, batch: int | None = None, tol: float | None = None
) -> tuple[RBF | SumKernel | PolynomialOfSum | None, float]:
    """Convert a GPyTorch kernel into a kexplain kernel and a constant.

    The kernel equals ``kexplain_kernel + constant`` (within the mixture's reported ``error`` for
    Matérn and rational quadratic kernels); the kexplain kernel is None when every term is constant.

    Parameters
    ----------
    kernel : gpytorch.kernels.Kernel
        See :data:`SUPPORTED_GPYTORCH_KERNELS`.
    n_features : int
        Number of input features the kernel is applied to.
    batch : int, optional
        The batch entry to convert, for a batched kernel (one per output of a batched model).
    tol : float, optional
        Target uniform error of the discretised Matérn and rational quadratic factors.

    Returns
    -------
    kernel : RBF, SumKernel, ScaleMixtureKernel, Linear, Polynomial or None
    constant : float

    Raises
    ------
    UnsupportedModelError
        For kernels without an exact product form, naming what is supported and the route that works.

    Examples
    --------
    >>> import numpy as np
    >>> import torch
    >>> import gpytorch
    >>> from kexplain.kernels.gpytorch import from_gpytorch
    >>> gk = gpytorch.kernels.ScaleKernel(gpytorch.kernels.RBFKernel(ard_num_dims=2)).double()
    >>> k, const = from_gpytorch(gk, 2)
    >>> X = torch.tensor([[0.0, 0.0], [1.0, 0.5]], dtype=torch.float64)
    >>> bool(np.allclose(k(X.numpy()), gk(X).to_dense().detach().numpy()))
    True
    """
    d = int(n_features)
    dot = _dot_product(kernel, d, batch)
    if dot is not None:
        return dot
    return kernel_from_terms(
        _expand(kernel, np.arange(d), d, batch), d, name=type(kernel).__name__, refuse=_refuse, tol=tol
    )

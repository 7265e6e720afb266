"""Adapters: fitted GPyTorch ExactGP and BoTorch models -> KernelExpansion and GPPosterior.

The explained output is the posterior mean of the latent function (BoTorch:
``model.posterior(X).mean``, outcome transform undone).  For an ExactGP with Gaussian likelihood,

    mean(x) = m + k(x, X) (K + Sigma)^{-1} (y - m),   cov(x, x') = k(x, x') - k(x, X) (K + Sigma)^{-1} k(X, x'),

with m the constant of the mean module, K the kernel's Gram matrix of the training inputs and Sigma
the likelihood's noise covariance (Rasmussen & Williams, 2006, eq. 2.25-2.26).  Both are read from
the model's own forward pass and likelihood in float64, and the conversion checks them against the
model's own prediction.  BoTorch's affine input transforms (``Normalize``, ``InputStandardize``) are
folded into the length scales and support points; ``Standardize`` outcome transforms into the
coefficients, the intercept and the posterior's ``offset``/``scale``.  torch, gpytorch and botorch
are imported only when such a model is passed.

Reading the model (its forward pass, likelihood, variational strategy and transforms) and the
statement of what is supported live in ``_gpytorch_parts.py``; every name is still imported from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._optional import require
from ..exceptions import UnsupportedModelError
from ..kernels.dot_product import PolynomialOfSum
from ..kernels.gpytorch import GPYTORCH_ROUTE as GPYTORCH_ROUTE
from ..kernels.gpytorch import SUPPORTED_GPYTORCH_KERNELS as SUPPORTED_GPYTORCH_KERNELS
from ..kernels.gpytorch import from_gpytorch
from ..kernels.mixture import ScaleMixtureKernel
from ._gpytorch_parts import _ALLOWED_CHILDREN as _ALLOWED_CHILDREN
from ._gpytorch_parts import SUPPORTED_GPYTORCH_MODELS as SUPPORTED_GPYTORCH_MODELS
from ._gpytorch_parts import _affine_input, _exact_parts, _np, _outcome, _refuse
from ._gpytorch_parts import _variational_parts as _variational_parts
from .expansion import KernelExpansion


def is_torch_gp(model: Any) -> bool:
    """Whether ``model`` is a GPyTorch or BoTorch model (checked by module name, importing nothing).

    Examples
    --------
    >>> from kexplain.models.gpytorch import is_torch_gp
    >>> is_torch_gp(object())
    False
    """
    return any(str(getattr(c, "__module__", "")).split(".")[0] in ("gpytorch", "botorch") for c in type(model).__mro__)


def _single_model_parts(model: Any, tol: float | None) -> list[dict[str, Any]]:
    """Every output of one ExactGP / SingleTaskGP as parts on the original features."""
    torch = require("torch", "explaining a GPyTorch or BoTorch model")
    require("gpytorch", "explaining a GPyTorch or BoTorch model")
    parts = _exact_parts(model, torch)
    m = len(parts)
    means, stdvs = _outcome(model, m)
    d = parts[0]["X"].shape[1]
    affine = _affine_input(model, d)
    for p, mu, sd in zip(parts, means, stdvs):
        kernel: Any
        kernel, const = from_gpytorch(model.covar_module, d, batch=p["batch"], tol=tol)
        if kernel is None:
            raise _refuse(f"the kernel of {type(model).__name__} is constant: nothing to explain.")
        X_ref = p["X"]
        if affine is not None:
            scale, shift = affine
            # a dot-product kernel is not translation invariant: it takes the shift as well
            kernel = kernel.rescaled(scale, shift) if isinstance(kernel, PolynomialOfSum) else kernel.rescaled(scale)
            X_ref = (X_ref - shift) / scale
        p.update(kernel=kernel, constant=const, X_ref=X_ref, offset=float(mu), scale=float(sd))
        # check the conversion of the kernel against GPyTorch's own Gram matrix of the training inputs
        with torch.no_grad():
            K = _np(
                model.covar_module(
                    torch.as_tensor(p["X"]).unsqueeze(0) if p["batch"] is not None else torch.as_tensor(p["X"])
                ).to_dense()
            )
        K = K[p["batch"]] if p["batch"] is not None and K.ndim == 3 else K
        ours = kernel.exact(X_ref) if isinstance(kernel, ScaleMixtureKernel) else kernel(X_ref)
        if not np.allclose(ours + const, K, rtol=1e-8, atol=1e-10 * max(1.0, float(np.abs(K).max()))):
            raise _refuse(
                f"the kernel of {type(model).__name__} ({type(model.covar_module).__name__}) did not convert "
                f"exactly (largest difference {float(np.abs(ours + const - K).max()):.3g})."
            )
    return parts


def _all_parts(model: Any, tol: float | None = None) -> list[dict[str, Any]]:
    if type(model).__name__ == "ModelListGP":
        return [p for sub in model.models for p in _single_model_parts(sub, tol)]
    return _single_model_parts(model, tol)


def _expansion_of(p: dict[str, Any], feature_names: Sequence[str] | None) -> KernelExpansion:
    if isinstance(p["kernel"], PolynomialOfSum):
        raise UnsupportedModelError(
            "the model's kernel is a linear or polynomial kernel, not a product over features: "
            "kx.ProductKernelExplainer explains it exactly through kx.models.as_polynomial_expansion(model)."
        )
    coef = p["scale"] * p["coef"]
    intercept = p["offset"] + p["scale"] * (p["mean"] + p["constant"] * float(p["coef"].sum()))
    return KernelExpansion(p["X_ref"], coef, p["kernel"], intercept, feature_names=feature_names)


def gpytorch_polynomial_parts(model: Any) -> tuple[np.ndarray, np.ndarray, PolynomialOfSum, float] | None:
    """(support points, coefficients, kernel, intercept) of a GPyTorch / BoTorch model whose kernel
    is linear or polynomial; None when its kernel is of the product kind (see :func:`gpytorch_expansion`).

    :func:`kexplain.models.as_polynomial_expansion` builds the model's
    :class:`~kexplain.models.PolynomialExpansion` from them.

    Parameters
    ----------
    model : gpytorch.models.ExactGP or botorch SingleTaskGP
        Single output; its kernel a ``LinearKernel`` or ``PolynomialKernel`` on all features (in a
        ``ScaleKernel``, plus ``ConstantKernel`` terms).

    Returns
    -------
    tuple or None

    Examples
    --------
    >>> import numpy as np
    >>> import torch
    >>> import gpytorch
    >>> from botorch.models import SingleTaskGP
    >>> from kexplain.models import as_polynomial_expansion
    >>> X = torch.rand(20, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    >>> kernel = gpytorch.kernels.ScaleKernel(gpytorch.kernels.LinearKernel(ard_num_dims=3))
    >>> gp = SingleTaskGP(X, X[:, :1] - 2 * X[:, 1:2], covar_module=kernel).double().eval()
    >>> em = as_polynomial_expansion(gp)
    >>> mean = gp.posterior(X[:4]).mean.detach().numpy()[:, 0]
    >>> bool(np.allclose(em.predict(X[:4].numpy()), mean, rtol=1e-8, atol=1e-10))
    True
    """
    parts = _all_parts(model)
    if not any(isinstance(p["kernel"], PolynomialOfSum) for p in parts):
        return None
    if len(parts) != 1:
        raise _refuse(
            f"{type(model).__name__} has {len(parts)} outputs with linear or polynomial kernels; explain each "
            "output's model on its own (for a ModelListGP: model.models[k])."
        )
    p = parts[0]
    coef = p["scale"] * p["coef"]
    intercept = p["offset"] + p["scale"] * (p["mean"] + p["constant"] * float(p["coef"].sum()))
    return p["X_ref"], coef, p["kernel"], float(intercept)


def gpytorch_expansion(
    model: Any, feature_names: Sequence[str] | None = None, tol: float | None = None
) -> KernelExpansion:
    """The posterior mean of a GPyTorch ExactGP or BoTorch model as a KernelExpansion.

    Parameters
    ----------
    model : gpytorch.models.ExactGP, botorch SingleTaskGP or ModelListGP
        In eval mode, float64; see :data:`SUPPORTED_GPYTORCH_MODELS`.  Several outputs (a batched
        multi-output SingleTaskGP, a ModelListGP) become outputs ``"output k"`` with their own kernels.
    feature_names : sequence of str, optional
    tol : float, optional
        Target uniform error of discretised Matérn / rational quadratic kernels.

    Returns
    -------
    KernelExpansion

    Raises
    ------
    UnsupportedModelError
        Models or kernels without an exact kernel-expansion form, with the route that works.

    Examples
    --------
    >>> import numpy as np
    >>> import torch
    >>> from botorch.models import SingleTaskGP
    >>> from kexplain.models.gpytorch import gpytorch_expansion
    >>> X = torch.rand(20, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    >>> gp = SingleTaskGP(X, (X[:, :1] - X[:, 1:2]) ** 2).eval()
    >>> em = gpytorch_expansion(gp)
    >>> mean = gp.posterior(X[:4]).mean.detach().numpy()[:, 0]
    >>> bool(np.allclose(em.predict(X[:4].numpy()), mean, rtol=1e-8, atol=1e-10))
    True
    """
    parts = _all_parts(model, tol)
    if len(parts) == 1:
        return _expansion_of(parts[0], feature_names)
    pieces = [_expansion_of(p, feature_names) for p in parts]
    return KernelExpansion.stack(pieces, output_names=[f"output {k}" for k in range(len(parts))])


def gpytorch_parts_for_posterior(model: Any) -> dict[str, Any]:
    """The parts of :class:`kexplain.models.GPPosterior` for a single-output GPyTorch / BoTorch model.

    Examples
    --------
    >>> import torch
    >>> from botorch.models import SingleTaskGP
    >>> X = torch.rand(10, 2, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    >>> parts = gpytorch_parts_for_posterior(SingleTaskGP(X, X[:, :1]).eval())
    >>> parts["precision"].shape, parts["X_ref"].shape
    ((10, 10), (10, 2))
    """
    parts = _all_parts(model)
    if isinstance(parts[0]["kernel"], PolynomialOfSum):
        raise UnsupportedModelError(
            f"uncertainty=True on {type(model).__name__}: the exact covariance of the values is computed for "
            "product kernels; with a linear or polynomial kernel the values are exact, explain without "
            "uncertainty=True."
        )
    if len(parts) != 1:
        raise UnsupportedModelError(
            f"uncertainty of explanations needs a single-output Gaussian-process posterior; {type(model).__name__} "
            f"has {len(parts)} outputs. Explain each output's model separately (for a ModelListGP: model.models[k])."
        )
    A = np.asarray(parts[0]["precision"], dtype=np.float64)
    lam = np.linalg.eigvalsh(A) if A.size else np.zeros(1)
    if lam.min() < -1e-8 * max(float(lam.max()), 0.0):
        # a variational posterior's K^-1/2 (I - S) K^-1/2 is indefinite where the variational covariance S
        # exceeds the prior: kexplain's covariance path takes A as a sum of squares (see GPPosterior)
        raise UnsupportedModelError(
            f"uncertainty=True on {type(model).__name__}: its posterior precision is indefinite (smallest eigenvalue "
            f"{lam.min():.3g}), as a variational posterior's can be, and the exact covariance of the values is "
            "computed here only for a positive semi-definite precision (exact GPs). The values themselves are "
            "exact: explain without uncertainty=True."
        )
    return parts[0]


def describe_torch_output(model: Any) -> str:
    """The output explained for a GPyTorch / BoTorch model, in words.

    Examples
    --------
    >>> from kexplain.models.gpytorch import describe_torch_output
    >>> describe_torch_output(object())
    'posterior mean of the latent f of object'
    """
    name = type(model).__name__
    if any(c.__module__.split(".")[0] == "botorch" for c in type(model).__mro__):
        return f"posterior mean of {name} (model.posterior(X).mean, outcome transform undone)"
    return f"posterior mean of the latent f of {name}"

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
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._optional import require
from ..exceptions import UnsupportedModelError
from ..kernels.dot_product import PolynomialOfSum
from ..kernels.gpytorch import GPYTORCH_ROUTE, SUPPORTED_GPYTORCH_KERNELS, from_gpytorch
from ..kernels.mixture import ScaleMixtureKernel
from .expansion import KernelExpansion

SUPPORTED_GPYTORCH_MODELS = (
    "GPyTorch ExactGP and ApproximateGP with a (whitened) VariationalStrategy, in eval mode (ConstantMean or "
    "ZeroMean; GaussianLikelihood or "
    "FixedNoiseGaussianLikelihood; kernels: " + SUPPORTED_GPYTORCH_KERNELS + "), BoTorch SingleTaskGP (also "
    "batched multi-output) with Normalize / InputStandardize input and Standardize outcome transforms, and "
    "ModelListGP of these; float64 parameters"
)

#: modules a supported ExactGP may hold besides its mean, kernel and likelihood
_ALLOWED_CHILDREN = {"mean_module", "covar_module", "likelihood", "input_transform", "outcome_transform"}


def is_torch_gp(model: Any) -> bool:
    """Whether ``model`` is a GPyTorch or BoTorch model (checked by module name, importing nothing).

    Examples
    --------
    >>> from kexplain.models.gpytorch import is_torch_gp
    >>> is_torch_gp(object())
    False
    """
    return any(str(getattr(c, "__module__", "")).split(".")[0] in ("gpytorch", "botorch") for c in type(model).__mro__)


def _refuse(what: str) -> UnsupportedModelError:
    return UnsupportedModelError(f"{what} Supported: {SUPPORTED_GPYTORCH_MODELS}. {GPYTORCH_ROUTE}.")


def _np(t: Any) -> np.ndarray:
    return np.asarray(t.detach().cpu().double().numpy(), dtype=np.float64)


def _affine_input(model: Any, d: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(scale, shift) with transformed x = scale * x + shift, or None without input transform."""
    tf = getattr(model, "input_transform", None)
    if tf is None:
        return None
    name = type(tf).__name__
    if name not in ("Normalize", "InputStandardize") or getattr(tf, "indices", None) is not None:
        raise _refuse(
            f"input transform {name}{' on some features' if name in ('Normalize', 'InputStandardize') else ''}: "
            "only Normalize and InputStandardize on all features are per-feature affine maps that fold into the "
            "kernel."
        )
    offset = _np(tf.offset).reshape(-1)
    coefficient = _np(tf.coefficient).reshape(-1)
    if coefficient.size != d or offset.size != d:
        raise _refuse(f"input transform {name} with a batch shape is not supported.")
    # BoTorch: transformed x = (x - offset) / coefficient
    return 1.0 / coefficient, -offset / coefficient


def _outcome(model: Any, m: int) -> tuple[np.ndarray, np.ndarray]:
    """(means, stdvs) of each output's Standardize outcome transform (0 and 1 without one)."""
    tf = getattr(model, "outcome_transform", None)
    if tf is None:
        return np.zeros(m), np.ones(m)
    if type(tf).__name__ != "Standardize":
        raise _refuse(
            f"outcome transform {type(tf).__name__}: only Standardize is affine, so that the posterior mean of "
            "the untransformed outcome is still a kernel expansion."
        )
    means = _np(tf.means).reshape(-1)
    stdvs = _np(tf.stdvs).reshape(-1)
    if means.size != m:
        raise _refuse(f"Standardize with {means.size} outputs on a model with {m}.")
    return means, stdvs


def _exact_parts(model: Any, torch: Any) -> list[dict[str, Any]]:
    """Per output: training inputs (transformed space), coef, precision, mean constant, kernel parts."""
    import gpytorch

    if type(model.__dict__.get("_modules", {}).get("variational_strategy")).__name__ == "VariationalStrategy":
        return _variational_parts(model, torch)
    if not isinstance(model, gpytorch.models.ExactGP):
        raise _refuse(
            f"{type(model).__name__} is not an ExactGP nor an ApproximateGP with a whitened VariationalStrategy "
            "(other variational strategies, e.g. UnwhitenedVariationalStrategy, are not converted)."
        )
    if model.training:
        raise _refuse(f"{type(model).__name__} is in training mode, where it returns its prior; call model.eval().")
    extra = [n for n, _ in model.named_children() if n not in _ALLOWED_CHILDREN]
    if extra:
        raise _refuse(
            f"{type(model).__name__} has modules {extra} besides its mean, kernel and likelihood (a deep kernel or "
            "feature extractor?): its posterior mean is not a kernel expansion in the input features."
        )
    lik = model.likelihood
    if type(lik).__name__ not in ("GaussianLikelihood", "FixedNoiseGaussianLikelihood"):
        raise _refuse(f"likelihood {type(lik).__name__}: only Gaussian likelihoods with fixed or learned noise.")
    mean_mod = model.mean_module
    if type(mean_mod).__name__ not in ("ConstantMean", "ZeroMean"):
        raise _refuse(f"mean module {type(mean_mod).__name__}: only ConstantMean and ZeroMean give an intercept.")
    X = model.train_inputs[0]
    y = model.train_targets
    if X.dtype != torch.float64 or y.dtype != torch.float64:
        raise _refuse(
            f"the model holds {X.dtype} data: its own predictions carry float32 rounding (1e-6), so exact values "
            "could not match them. Convert it with model.double() (the hyperparameters are kept) and explain that."
        )
    batched = X.dim() == 3
    with torch.no_grad():
        prior = model.forward(X)
        marginal = lik(prior, [X]) if type(lik).__name__ == "FixedNoiseGaussianLikelihood" else lik(prior)
        K = _np(prior.covariance_matrix)
        Kn = _np(marginal.covariance_matrix)
        prior_mean = _np(prior.mean)
        K_cov = _np(model.covar_module(X).to_dense())
        mean_direct = _np(mean_mod(X))
    if not np.allclose(K, K_cov, rtol=1e-10, atol=1e-12) or not np.allclose(prior_mean, mean_direct, atol=1e-12):
        raise _refuse(
            f"{type(model).__name__}.forward does more than mean_module(x) and covar_module(x) (a feature extractor "
            "or deep kernel?)."
        )
    Xn, yn = _np(X), _np(y)
    if not batched:
        Xn, yn, K, Kn, prior_mean = Xn[None], yn[None], K[None], Kn[None], prior_mean[None]
    parts = []
    for b in range(Xn.shape[0]):
        A = np.linalg.inv(Kn[b])
        A = 0.5 * (A + A.T)
        coef = np.linalg.solve(Kn[b], yn[b] - prior_mean[b])
        noise = np.diag(Kn[b] - K[b])
        parts.append(
            {
                "X": Xn[b],
                "coef": coef,
                "precision": A,
                "mean": float(prior_mean[b][0]) if prior_mean.shape[-1] else 0.0,
                "noise": float(noise[0]) if np.allclose(noise, noise[0], rtol=1e-12) else 0.0,
                "batch": b if batched else None,
            }
        )
    return parts


def _variational_parts(model: Any, torch: Any) -> list[dict[str, Any]]:
    """The parts of an ApproximateGP with a (whitened) VariationalStrategy: an expansion over its
    inducing points Z.  GPyTorch predicts mean(x) = mu(x) + k(x, Z) L^{-T} m and
    cov(x, x') = k(x, x') - k(x, Z) L^{-T} (I - S) L^{-1} k(Z, x') with L L^T = K_ZZ + jitter I and
    q(u) = N(m, S) the whitened variational distribution."""
    if model.training:
        raise _refuse(f"{type(model).__name__} is in training mode; call model.eval().")
    allowed = {"variational_strategy", "mean_module", "covar_module", "likelihood"}
    extra = [n for n, _ in model.named_children() if n not in allowed]
    if extra:
        raise _refuse(
            f"{type(model).__name__} has modules {extra} besides its mean, kernel and variational strategy (a deep "
            "kernel or feature extractor?): its posterior mean is not a kernel expansion in the input features."
        )
    if type(model.mean_module).__name__ not in ("ConstantMean", "ZeroMean"):
        raise _refuse(f"mean module {type(model.mean_module).__name__}: only ConstantMean and ZeroMean.")
    strategy = model.variational_strategy
    Z = strategy.inducing_points
    if Z.dtype != torch.float64 or Z.dim() != 2:
        raise _refuse(
            f"inducing points of dtype {Z.dtype} and shape {tuple(Z.shape)}: only unbatched float64 models; "
            "convert with model.double()."
        )
    with torch.no_grad():
        model(Z[:1])  # GPyTorch initialises q(u) on its first call; read it after that
        q = strategy.variational_distribution
        m, S = _np(q.mean), _np(q.covariance_matrix)
        Kzz = _np(model.covar_module(Z).to_dense())
        mu = _np(model.mean_module(Z))
        jitter = float(strategy.jitter_val)
    L = np.linalg.cholesky(Kzz + jitter * np.eye(len(Kzz)))
    Linv = np.linalg.solve(L, np.eye(len(L)))
    coef = Linv.T @ m
    A = Linv.T @ (np.eye(len(L)) - S) @ Linv
    # the model's own prediction at points near the inducing points must be this expansion
    with torch.no_grad():
        Xc = Z[:5] + 0.01
        own = _np(model(Xc).mean)
        ours = _np(model.mean_module(Xc)) + _np(model.covar_module(Xc, Z).to_dense()) @ coef
    if not np.allclose(own, ours, rtol=1e-7, atol=1e-9 * max(1.0, float(np.abs(own).max()))):
        raise _refuse(f"the predictive mean of {type(model).__name__} is not k(x, Z) L^-T m (a custom forward?).")
    return [
        {
            "X": _np(Z),
            "coef": coef,
            "precision": 0.5 * (A + A.T),
            "mean": float(mu[0]) if mu.size else 0.0,
            "noise": 0.0,
            "batch": None,
        }
    ]


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

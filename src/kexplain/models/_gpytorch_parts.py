"""Reading a fitted GPyTorch or BoTorch model: its training inputs, coefficients and precision.

The first half of the adapters of ``kexplain.models.gpytorch`` (whose module docstring gives the
posterior they convert): ``_exact_parts`` reads an ExactGP's posterior mean and covariance from
its own forward pass and likelihood in float64 (an ApproximateGP's whitened variational posterior
in ``_variational_parts``), ``_affine_input`` and ``_outcome`` read BoTorch's input and outcome
transforms, and ``_refuse`` says, with ``SUPPORTED_GPYTORCH_MODELS``, what is converted instead.
Converting the kernel, checking it against the model's own Gram matrix and building the
KernelExpansion or GPPosterior parts from what is read here stay in ``gpytorch.py``, which imports
every name of this module; this one names nothing of it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import UnsupportedModelError
from ..kernels.gpytorch import GPYTORCH_ROUTE, SUPPORTED_GPYTORCH_KERNELS

SUPPORTED_GPYTORCH_MODELS = (
    "GPyTorch ExactGP and ApproximateGP with a (whitened) VariationalStrategy, in eval mode (ConstantMean or "
    "ZeroMean; GaussianLikelihood or "
    "FixedNoiseGaussianLikelihood; kernels: " + SUPPORTED_GPYTORCH_KERNELS + "), BoTorch SingleTaskGP (also "
    "batched multi-output) with Normalize / InputStandardize input and Standardize outcome transforms, and "
    "ModelListGP of these; float64 parameters"
)

#: modules a supported ExactGP may hold besides its mean, kernel and likelihood
_ALLOWED_CHILDREN = {"mean_module", "covar_module", "likelihood", "input_transform", "outcome_transform"}


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

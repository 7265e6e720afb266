"""Gaussian-process posteriors written on kexplain kernels: what stochastic Shapley values need.

A Gaussian-process posterior of a latent function f is Gaussian with

    mean(x)      = offset + scale * sum_i coef_i k_f(x, X_i),
    cov(x, x')   = scale^2 * [k_f(x, x') - k_f(x, X) A k_f(X, x')],

where k_f = ``kernel + constant`` is the prior kernel of f (its amplitude included), X the
training inputs and A the n x n "precision" matrix of the training data: (K + s^2 I)^{-1} for
regression, W^{1/2} (I + W^{1/2} K W^{1/2})^{-1} W^{1/2} for the Laplace approximation of a binary
classifier (Rasmussen & Williams, 2006, sections 2.2 and 3.4).  :class:`GPPosterior` holds these
parts and :func:`gp_posterior` reads them from fitted scikit-learn models.  Because Shapley values
are linear in f, their mean and covariance follow from these parts alone (Chau, Muandet &
Sejdinovic, 2023, section 3; ``kexplain.shapley.stochastic``).

Every name is imported from here; the code lives by idea in four modules:

- ``posterior_parts``: :class:`GPPosterior` (mean, covariance, whitening, rounding bounds);
- ``posterior_factors``: the checks and factors of the precision or its Cholesky factor;
- ``posterior_accuracy``: the rounding bounds recorded in explanations and their warnings
  (:func:`check_accuracy`, :func:`record_accuracy`, :func:`warn_accuracy`);
- this module: :func:`gp_posterior`, which reads the parts from fitted models.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import UnsupportedModelError
from ._sklearn_pipeline import _flatten_pipeline
from .expansion import KernelExpansion
from .gpflow import is_gpflow_model
from .gpytorch import is_torch_gp
from .posterior_accuracy import UNCERTAINTY_RTOL, check_accuracy, record_accuracy, warn_accuracy
from .posterior_parts import GPPosterior
from .sklearn import as_kernel_expansion
from .sklearn_estimators import _check_fitted, _from_sklearn

__all__ = [
    "SUPPORTED_POSTERIORS",
    "UNCERTAINTY_RTOL",
    "GPPosterior",
    "check_accuracy",
    "gp_posterior",
    "record_accuracy",
    "warn_accuracy",
]

#: the models :func:`gp_posterior` reads a posterior from
SUPPORTED_POSTERIORS = (
    "GaussianProcessRegressor (single output; latent f, normalize_y handled), binary "
    "GaussianProcessClassifier (latent f under the Laplace approximation; for several classes pass "
    "one of est.base_estimator_.estimators_), a Pipeline of per-feature scalers ending in one of "
    "these, or a kx.models.GPPosterior built from a KernelExpansion and its posterior precision"
)


def _no_posterior(model: Any, why: str = "") -> UnsupportedModelError:
    name = type(model).__name__
    why = why or f"{name} is not a Gaussian-process model, so its predictions carry no posterior distribution."
    return UnsupportedModelError(
        f"uncertainty of explanations needs the model to be a Gaussian-process posterior: {why} Accepted: "
        f"{SUPPORTED_POSTERIORS}."
    )


def _gpr_posterior(
    est: Any,
) -> tuple[np.ndarray, np.ndarray, float, float, float, float, np.ndarray | None]:
    """(coef, Cholesky factor, offset, scale, constant, noise_variance, per-sample noise) of a fitted GPR."""
    _check_fitted(est, ["X_train_", "alpha_", "L_"])
    alpha = np.asarray(est.alpha_, dtype=np.float64)
    if alpha.ndim == 2 and alpha.shape[1] != 1:
        raise _no_posterior(est, "a GaussianProcessRegressor fitted on several targets; fit one per target.")
    alpha = alpha.reshape(-1)
    X = np.asarray(est.X_train_, dtype=np.float64)
    n, d = X.shape
    kernel, constant = _from_sklearn(est.kernel_, d, "GaussianProcessRegressor")
    L = np.tril(np.asarray(est.L_, dtype=np.float64))  # the factor the GP already holds: no inverse
    offset = float(np.ravel(est._y_train_mean)[0])
    scale = float(np.ravel(est._y_train_std)[0])
    prior_diag = (0.0 if kernel is None else kernel.diag_value()) + constant
    noise = float(np.ravel(est.kernel_.diag(X[:1]))[0]) - prior_diag  # the WhiteKernel part
    nugget = np.asarray(est.alpha, dtype=np.float64)
    sample_noise = None
    if nugget.ndim == 0 or nugget.size == 1 or np.all(nugget == nugget.ravel()[0]):
        noise += float(nugget.ravel()[0])
    else:
        # a per-sample alpha: the noise is known at the training inputs only (refused by noisy=True)
        sample_noise = nugget.reshape(-1) + max(noise, 0.0)
    return alpha, L, offset, scale, constant, max(noise, 0.0), sample_noise


def _binary_gpc_posterior(base: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """(coef, Cholesky factor L of B, W^{1/2}, constant) of a binary Laplace GP classifier's latent f."""
    _check_fitted(base, ["W_sr_", "L_", "pi_"])
    X = np.asarray(base.X_train_, dtype=np.float64)
    _, constant = _from_sklearn(base.kernel_, X.shape[1], "GaussianProcessClassifier")
    W_sr = np.asarray(base.W_sr_, dtype=np.float64)
    L = np.tril(np.asarray(base.L_, dtype=np.float64))  # lower Cholesky factor of B = I + W^1/2 K W^1/2
    coef = np.asarray(base.y_train_, dtype=np.float64) - np.asarray(base.pi_, dtype=np.float64)
    return coef, L, W_sr, constant


def gp_posterior(model: Any) -> GPPosterior:
    """The posterior of the latent function of a fitted Gaussian-process model.

    Parameters
    ----------
    model : GaussianProcessRegressor, binary GaussianProcessClassifier, Pipeline or GPPosterior
        A GaussianProcessRegressor gives the posterior of its latent f (``normalize_y`` becomes
        ``offset`` and ``scale``; a ``WhiteKernel`` and a scalar ``alpha`` become
        ``noise_variance``; an ``alpha`` array becomes ``sample_noise``).  The posterior keeps the
        model's own Cholesky factor ``L_`` (no explicit inverse is formed).  A binary
        GaussianProcessClassifier gives the Laplace approximation of its latent f (Rasmussen &
        Williams, 2006, section 3.4): coefficients y - pi and A = W^{1/2} B^{-1} W^{1/2} from its
        fitted ``W_sr_`` and ``L_`` (kept as factors).  Kernels are
        converted as by :func:`kexplain.models.as_kernel_expansion` (sums and products of RBF,
        ConstantKernel and WhiteKernel; per-feature scalers of a Pipeline folded in).  A
        GPPosterior is returned as it is.

    Returns
    -------
    GPPosterior
        The posterior of the fitted Gaussian process, for exact covariances of Shapley values.

    Raises
    ------
    UnsupportedModelError
        A TypeError (and ValueError) for models without a Gaussian posterior (an SVR, a kernel
        ridge, a multi-class or multi-target GP); the message names the model and what is
        accepted.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.gaussian_process import GaussianProcessRegressor
    >>> from sklearn.gaussian_process.kernels import RBF
    >>> from kexplain.models import gp_posterior
    >>> X = np.random.default_rng(0).normal(size=(20, 2))
    >>> gpr = GaussianProcessRegressor(RBF([1.0, 1.0]), alpha=0.01, normalize_y=True).fit(X, X[:, 0])
    >>> post = gp_posterior(gpr)
    >>> mean, std = gpr.predict(X[:3], return_std=True)
    >>> bool(np.allclose(post.mean(X[:3]), mean)), bool(np.allclose(np.sqrt(post.variance(X[:3])), std))
    (True, True)
    """
    if isinstance(model, GPPosterior):
        return model
    if isinstance(model, KernelExpansion):
        raise _no_posterior(
            model,
            "a KernelExpansion holds the posterior mean only; build a kx.models.GPPosterior from it and the "
            "posterior precision matrix.",
        )
    if is_torch_gp(model):
        from .gpytorch import describe_torch_output, gpytorch_parts_for_posterior

        p = gpytorch_parts_for_posterior(model)
        return GPPosterior(
            p["X_ref"],
            p["kernel"],
            p["coef"],
            p["precision"],
            offset=p["offset"] + p["scale"] * p["mean"],
            scale=p["scale"],
            constant=p["constant"],
            noise_variance=p["noise"],
            output=describe_torch_output(model),
        )
    if is_gpflow_model(model):
        from .gpflow import describe_gpflow_output, gpflow_parts_for_posterior

        p = gpflow_parts_for_posterior(model)
        return GPPosterior(
            p["X_ref"],
            p["kernel"],
            p["coef"],
            p["precision"],
            offset=p["mean"],
            constant=p["constant"],
            noise_variance=p["noise"],
            output=describe_gpflow_output(model),
        )
    steps = _flatten_pipeline(model)
    est = steps[-1] if steps else model
    name = type(est).__name__
    if name == "GaussianProcessRegressor":
        coef, L, offset, scale, constant, noise, sample_noise = _gpr_posterior(est)
        D = None
        output = "latent f of GaussianProcessRegressor"
    elif name in ("GaussianProcessClassifier", "_BinaryGaussianProcessClassifierLaplace"):
        if name == "GaussianProcessClassifier":
            _check_fitted(est, ["base_estimator_"])
            if hasattr(est.base_estimator_, "estimators_"):
                raise _no_posterior(
                    est,
                    "a GaussianProcessClassifier with more than two classes has one latent function per class; "
                    "pass one binary model, est.base_estimator_.estimators_[k].",
                )
            base = est.base_estimator_
        else:
            base = est
        coef, L, D, constant = _binary_gpc_posterior(base)
        offset, scale, noise, sample_noise = 0.0, 1.0, 0.0, None
        output = "latent f of GaussianProcessClassifier (Laplace approximation)"
    else:
        raise _no_posterior(est)
    if name == "_BinaryGaussianProcessClassifierLaplace":
        X = np.asarray(est.X_train_, dtype=np.float64)
        kernel, _ = _from_sklearn(est.kernel_, X.shape[1], "GaussianProcessClassifier")
        X_ref, names = X, None
    else:
        em = as_kernel_expansion(model)  # the kernel conversion, scalers folded in
        kernel, X_ref, names = em.kernel, em.X_ref, em.feature_names
    if kernel is None:
        raise _no_posterior(est, f"the kernel of this {name} is constant: nothing to explain.")
    if steps:
        output += " in a Pipeline"
    return GPPosterior(
        X_ref,
        kernel,
        coef,
        None,
        cholesky=L,
        cholesky_scale=D,
        sample_noise=sample_noise,
        offset=offset,
        scale=scale,
        constant=constant,
        noise_variance=noise,
        output=output,
        feature_names=names,
    )

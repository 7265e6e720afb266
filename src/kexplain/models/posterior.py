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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validation import to_array
from ..exceptions import UnsupportedModelError
from ..kernels.base import Kernel, SumKernel
from .expansion import KernelExpansion
from .gpytorch import is_torch_gp
from .sklearn import _check_fitted, _flatten_pipeline, _from_sklearn, as_kernel_expansion

#: the models :func:`gp_posterior` reads a posterior from
SUPPORTED_POSTERIORS = (
    "GaussianProcessRegressor (single output; latent f, normalize_y handled), binary "
    "GaussianProcessClassifier (latent f under the Laplace approximation; for several classes pass "
    "one of est.base_estimator_.estimators_), a Pipeline of per-feature scalers ending in one of "
    "these, or a kx.models.GPPosterior built from a KernelExpansion and its posterior precision"
)


def _real_array(x: Any, name: str) -> np.ndarray:
    """``x`` as a float64 array, refusing complex, text and ragged input by ``name``."""
    arr = to_array(x, name)
    if arr.dtype.kind == "c":
        raise ValueError(f"{name} must hold real numbers, got complex values.")
    try:
        return arr.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must hold real numbers, got values of type {arr.dtype} such as text.") from None


@dataclass(eq=False)
class GPPosterior:
    """A Gaussian-process posterior of a latent function on a product (or sum of products) kernel.

    mean(x) = offset + scale * sum_i coef_i (k(x, X_i) + constant) and
    cov(x, x') = scale^2 [k_f(x, x') - k_f(x, X) A k_f(X, x')] with k_f = k + constant and
    A = ``precision``.  Build it with :func:`gp_posterior` from a fitted scikit-learn GP, or
    directly for any kernel model with a Gaussian posterior: for a KernelExpansion ``em`` fitted by
    kernel ridge / GP regression with noise variance s^2 on training inputs ``em.X_ref``,
    ``GPPosterior(em.X_ref, em.kernel, em.coef[:, 0], np.linalg.inv(K + s^2 I))`` (K the kernel's
    Gram matrix of the training inputs, ``offset`` the expansion's intercept).

    Parameters
    ----------
    X_train : array-like of shape (n, d)
        Training inputs.
    kernel : kexplain Kernel or SumKernel
        The prior kernel of f without its constant part, amplitude included.
    coef : array-like of shape (n,)
        Weights of the posterior mean (``alpha_`` of a GPR, y - pi of a Laplace GPC).
    precision : array-like of shape (n, n)
        The symmetric positive semi-definite matrix A of the posterior covariance.
    offset : float
        Added to the mean (``normalize_y``'s training mean).
    scale : float
        Multiplies the mean and the standard deviation (``normalize_y``'s training std).
    constant : float
        Constant part of the prior kernel (a scikit-learn ``ConstantKernel`` term); it moves base
        values and predictions, never Shapley values.
    noise_variance : float
        Variance of the observation noise in the units of the kernel (before ``scale``), for
        explanations of the noisy observation y = f + noise.
    output : str
        What f is, in words (the ``output`` of the explanations).
    feature_names : sequence of str, optional

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> X = np.array([[0.0, 0.0], [1.0, 0.5]])
    >>> k = kx.kernels.RBF(1.0)
    >>> A = np.linalg.inv(k(X) + 0.1 * np.eye(2))
    >>> post = kx.models.GPPosterior(X, k, A @ np.array([1.0, -1.0]), A)
    >>> np.round(post.mean(X), 3), np.round(post.variance(X), 3)
    (array([ 0.823, -0.823]), array([0.088, 0.088]))
    """

    X_train: Any
    kernel: Kernel | SumKernel
    coef: Any
    precision: Any
    offset: float = 0.0
    scale: float = 1.0
    constant: float = 0.0
    noise_variance: float = 0.0
    output: str = "latent f of a GPPosterior"
    feature_names: Sequence[str] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.kernel, (Kernel, SumKernel)):
            raise TypeError(
                "kernel must be a kexplain kernel (RBF, ..., ProductKernel, SumKernel), got "
                f"{type(self.kernel).__name__}; "
                "convert a scikit-learn kernel with kx.kernels.from_sklearn."
            )
        coef = _real_array(self.coef, "coef")
        # the expansion validates X_train against the kernel and coef against X_train
        em = KernelExpansion(self.X_train, coef, self.kernel, feature_names=self.feature_names)
        if coef.ndim != 1:
            raise ValueError(f"coef must have shape (n,) (one output), got shape {coef.shape}.")
        n = em.X_ref.shape[0]
        A = _real_array(self.precision, "precision")
        if A.shape != (n, n):
            raise ValueError(f"precision must have shape ({n}, {n}) for {n} training rows, got shape {A.shape}.")
        if not np.all(np.isfinite(A)):
            raise ValueError("precision contains NaN or infinite values.")
        scale = A.max() if A.size else 0.0
        if not np.allclose(A, A.T, rtol=1e-8, atol=1e-12 * max(1.0, abs(float(scale)))):
            raise ValueError("precision must be a symmetric matrix.")
        for name in ("offset", "scale", "constant", "noise_variance"):
            raw = getattr(self, name)
            if isinstance(raw, (bool, np.bool_)) or not isinstance(raw, Real):
                raise TypeError(f"{name} must be a real number, got {raw!r} of type {type(raw).__name__}.")
            v = float(raw)
            if not np.isfinite(v):
                raise ValueError(f"{name} must be a finite number, got {v}.")
            setattr(self, name, v)
        if self.scale <= 0:
            raise ValueError(f"scale must be positive, got {self.scale}.")
        if self.constant < 0 or self.noise_variance < 0:
            raise ValueError("constant and noise_variance must be non-negative.")
        self.X_train = em.X_ref
        self.coef = coef
        self.precision = 0.5 * (A + A.T)
        self._expansion = em

    @property
    def n_features(self) -> int:
        """Number of input features d."""
        return int(self.X_train.shape[1])

    def prior(self, X: ArrayLike, Y: ArrayLike | None = None) -> np.ndarray:
        """The prior kernel of f, ``kernel(X, Y) + constant`` (without ``scale``).

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> post = kx.models.GPPosterior(np.zeros((1, 1)), kx.kernels.RBF(1.0), [1.0], [[0.5]], constant=2.0)
        >>> post.prior(np.array([[0.0]]))
        array([[3.]])
        """
        return np.asarray(self.kernel(X, Y)) + self.constant

    def expansion(self) -> KernelExpansion:
        """The posterior mean as a KernelExpansion (what the product-kernel explainer explains).

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> post = kx.models.GPPosterior(np.zeros((1, 1)), kx.kernels.RBF(1.0), [2.0], [[0.5]], offset=1.0)
        >>> post.expansion().predict(np.array([[0.0]]))
        array([3.])
        """
        em = self._expansion
        return KernelExpansion(
            em.X_ref,
            self.scale * self.coef,
            self.kernel,
            intercept=self.offset + self.scale * self.constant * float(self.coef.sum()),
            feature_names=em.feature_names,
        )

    def mean(self, X: ArrayLike) -> np.ndarray:
        """Posterior mean of f at the rows of X, shape (N,).

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> post = kx.models.GPPosterior(np.zeros((1, 1)), kx.kernels.RBF(1.0), [2.0], [[0.5]])
        >>> post.mean(np.array([[0.0], [1.0]])).round(3)
        array([2.   , 1.213])
        """
        Xv = self._expansion.check_input(X)
        return self.offset + self.scale * (self.prior(Xv, self.X_train) @ self.coef)

    def covariance(self, X: ArrayLike, Y: ArrayLike | None = None, *, noisy: bool = False) -> np.ndarray:
        """Posterior covariance of f between the rows of X and of Y (default X), shape (N, M).

        With ``noisy=True`` the covariance of the noisy observations y = f + noise: the noise
        variance is added where a row of X equals a row of Y.

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> post = kx.models.GPPosterior(np.zeros((1, 1)), kx.kernels.RBF(1.0), [1.0], [[0.5]])
        >>> post.covariance(np.array([[0.0], [3.0]])).round(3)
        array([[0.5  , 0.006],
               [0.006, 1.   ]])
        """
        Xv = self._expansion.check_input(X)
        Yv = Xv if Y is None else self._expansion.check_input(Y, name="Y")
        kxX = self.prior(Xv, self.X_train)
        kyX = kxX if Y is None else self.prior(Yv, self.X_train)
        cov = self.prior(Xv, Yv) - kxX @ self.precision @ kyX.T
        if noisy and self.noise_variance:
            same = np.all(Xv[:, None, :] == Yv[None, :, :], axis=2)
            cov = cov + self.noise_variance * same
        return self.scale**2 * cov

    def variance(self, X: ArrayLike, *, noisy: bool = False) -> np.ndarray:
        """Posterior variance of f (or of y with ``noisy=True``) at the rows of X, shape (N,).

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> post = kx.models.GPPosterior(np.zeros((1, 1)), kx.kernels.RBF(1.0), [1.0], [[0.5]], noise_variance=0.1)
        >>> post.variance(np.array([[0.0]]), noisy=True).round(3)
        array([0.6])
        """
        Xv = self._expansion.check_input(X)
        kxX = self.prior(Xv, self.X_train)
        diag = self.kernel.diag_value() + self.constant + (self.noise_variance if noisy else 0.0)
        quad = np.einsum("ij,jk,ik->i", kxX, self.precision, kxX)
        return self.scale**2 * (diag - quad)


def _no_posterior(model: Any, why: str = "") -> UnsupportedModelError:
    name = type(model).__name__
    why = why or f"{name} is not a Gaussian-process model, so its predictions carry no posterior distribution."
    return UnsupportedModelError(
        f"uncertainty of explanations needs the model to be a Gaussian-process posterior: {why} Accepted: "
        f"{SUPPORTED_POSTERIORS}."
    )


def _gpr_posterior(est: Any) -> tuple[np.ndarray, np.ndarray, float, float, float, float]:
    """(coef, precision, offset, scale, constant, noise_variance) of a fitted GaussianProcessRegressor."""
    from scipy.linalg import cho_solve

    _check_fitted(est, ["X_train_", "alpha_", "L_"])
    alpha = np.asarray(est.alpha_, dtype=np.float64)
    if alpha.ndim == 2 and alpha.shape[1] != 1:
        raise _no_posterior(est, "a GaussianProcessRegressor fitted on several targets; fit one per target.")
    alpha = alpha.reshape(-1)
    X = np.asarray(est.X_train_, dtype=np.float64)
    n, d = X.shape
    kernel, constant = _from_sklearn(est.kernel_, d, "GaussianProcessRegressor")
    L = np.asarray(est.L_, dtype=np.float64)
    A = cho_solve((L, True), np.eye(n))
    offset = float(np.ravel(est._y_train_mean)[0])
    scale = float(np.ravel(est._y_train_std)[0])
    prior_diag = (0.0 if kernel is None else kernel.diag_value()) + constant
    noise = float(np.ravel(est.kernel_.diag(X[:1]))[0]) - prior_diag  # the WhiteKernel part
    nugget = np.asarray(est.alpha, dtype=np.float64)
    if nugget.ndim == 0:
        noise += float(nugget)
    return alpha, A, offset, scale, constant, max(noise, 0.0)


def _binary_gpc_posterior(base: Any) -> tuple[np.ndarray, np.ndarray, float]:
    """(coef, precision, constant) of a binary Laplace GP classifier's latent f."""
    from scipy.linalg import cho_solve

    _check_fitted(base, ["W_sr_", "L_", "pi_"])
    X = np.asarray(base.X_train_, dtype=np.float64)
    _, constant = _from_sklearn(base.kernel_, X.shape[1], "GaussianProcessClassifier")
    W_sr = np.asarray(base.W_sr_, dtype=np.float64)
    L = np.asarray(base.L_, dtype=np.float64)  # lower Cholesky factor of B = I + W^1/2 K W^1/2
    A = W_sr[:, None] * cho_solve((L, True), np.diag(W_sr))
    coef = np.asarray(base.y_train_, dtype=np.float64) - np.asarray(base.pi_, dtype=np.float64)
    return coef, A, constant


def gp_posterior(model: Any) -> GPPosterior:
    """The posterior of the latent function of a fitted Gaussian-process model.

    Parameters
    ----------
    model : GaussianProcessRegressor, binary GaussianProcessClassifier, Pipeline or GPPosterior
        A GaussianProcessRegressor gives the posterior of its latent f (``normalize_y`` becomes
        ``offset`` and ``scale``; a ``WhiteKernel`` and a scalar ``alpha`` become
        ``noise_variance``).  A binary GaussianProcessClassifier gives the Laplace
        approximation of its latent f (Rasmussen & Williams, 2006, section 3.4): coefficients
        y - pi and A = W^{1/2} B^{-1} W^{1/2} from its fitted ``W_sr_`` and ``L_``.  Kernels are
        converted as by :func:`kexplain.models.as_kernel_expansion` (sums and products of RBF,
        ConstantKernel and WhiteKernel; per-feature scalers of a Pipeline folded in).  A
        GPPosterior is returned as it is.

    Returns
    -------
    GPPosterior

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
    steps = _flatten_pipeline(model)
    est = steps[-1] if steps else model
    name = type(est).__name__
    if name == "GaussianProcessRegressor":
        coef, A, offset, scale, constant, noise = _gpr_posterior(est)
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
        coef, A, constant = _binary_gpc_posterior(base)
        offset, scale, noise = 0.0, 1.0, 0.0
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
        A,
        offset=offset,
        scale=scale,
        constant=constant,
        noise_variance=noise,
        output=output,
        feature_names=names,
    )

"""Adapters: fitted GPflow models -> KernelExpansion and GPPosterior.

The explained output is the posterior mean of the latent function, ``model.predict_f(X)[0]``.
Every supported model's mean is a kernel expansion over its data or inducing points:

- ``GPR``: m + k(x, X) (K + s2 I)^{-1} (y - m(X)), K the kernel's Gram matrix of the training
  inputs and s2 the Gaussian likelihood's variance (Rasmussen & Williams, 2006, eq. 2.25);
- ``SGPR`` (Titsias, 2009): m + k(x, Z) (s2 Kzz + Kzx Kxz)^{-1} Kzx (y - m(X)), Kzz with GPflow's
  jitter on its diagonal;
- ``SVGP`` and ``VGP``: m + k(x, Z) L^{-T} q_mu with L L^T = Kzz + jitter I when whitened
  (``VGP`` always is, with Z the training inputs), m + k(x, Z) Kzz^{-1} q_mu otherwise; with a
  non-Gaussian likelihood this is the latent function's mean, not the predicted response's.

Several output columns (``Y`` of shape (N, P), ``q_mu`` of shape (M, P)) with one shared kernel
become P outputs.  The conversion checks itself against the model's own ``predict_f``.  The exact
posterior covariance of the values (``uncertainty=True``) is given for single-output ``GPR``.
gpflow and tensorflow are imported only when such a model is passed; GPflow 2 requires numpy < 2,
so the repository tests this adapter in an environment of its own (``make test-gpflow``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..exceptions import UnsupportedModelError
from ..kernels.gpflow import GPFLOW_ROUTE, SUPPORTED_GPFLOW_KERNELS, from_gpflow
from ..kernels.mixture import ScaleMixtureKernel
from .expansion import KernelExpansion

SUPPORTED_GPFLOW_MODELS = (
    "GPflow GPR, SGPR, SVGP and VGP (Zero or Constant mean function; kernels: " + SUPPORTED_GPFLOW_KERNELS + "), "
    "float64, with one or several output columns sharing the kernel"
)


def is_gpflow_model(model: Any) -> bool:
    """Whether ``model`` is a GPflow model (checked by module name, importing nothing).

    Examples
    --------
    >>> from kexplain.models.gpflow import is_gpflow_model
    >>> is_gpflow_model(object())
    False
    """
    return any(str(getattr(c, "__module__", "")).split(".")[0] == "gpflow" for c in type(model).__mro__)


def _refuse(what: str) -> UnsupportedModelError:
    return UnsupportedModelError(f"{what} Supported: {SUPPORTED_GPFLOW_MODELS}. {GPFLOW_ROUTE}.")


def _np(t: Any) -> np.ndarray:
    return np.asarray(t.numpy() if hasattr(t, "numpy") else t, dtype=np.float64)


def _mean_constant(model: Any, P: int) -> np.ndarray:
    mf = model.mean_function
    name = type(mf).__name__
    if name == "Zero":
        return np.zeros(P)
    if name == "Constant":
        c = _np(mf.c).reshape(-1)
        return np.broadcast_to(c, (P,)).astype(np.float64) if c.size in (1, P) else np.full(P, np.nan)
    raise _refuse(f"mean function {name}: only Zero and Constant give an intercept.")


def _parts(model: Any, tol: float | None) -> dict[str, Any]:
    """Reference points, coefficients (M, P), mean constants (P,), kernel, constant, precision."""
    name = type(model).__name__
    if name not in ("GPR", "SGPR", "SVGP", "VGP"):
        raise _refuse(f"GPflow model {name} is not supported.")
    import gpflow

    kernel_obj = model.kernel
    if type(kernel_obj).__name__ in ("SharedIndependent", "SeparateIndependent", "LinearCoregionalization"):
        raise _refuse(f"multi-output kernel {type(kernel_obj).__name__}: only one kernel shared by every output.")
    jitter = float(gpflow.config.default_jitter())
    precision = None
    noise = 0.0
    # the expansion's support points: the training inputs (GPR, VGP) or the inducing points
    Z = _np(model.data[0]) if name in ("GPR", "VGP") else _np(model.inducing_variable.Z)
    kernel, constant, white = from_gpflow(kernel_obj, Z.shape[1], tol=tol)
    if kernel is None:
        raise _refuse(f"the kernel of {name} is constant: nothing to explain.")
    if name in ("GPR", "SGPR"):
        X, Y = (_np(a) for a in model.data)
        if type(model.likelihood).__name__ != "Gaussian":
            raise _refuse(f"{name} with likelihood {type(model.likelihood).__name__}.")
        s2 = float(_np(model.likelihood.variance).reshape(-1)[0])
        P = Y.shape[1]
        m = _mean_constant(model, P)
        if name == "GPR":
            Kn = _np(kernel_obj(X)) + s2 * np.eye(len(X))
            coef = np.linalg.solve(Kn, Y - m)
            A = np.linalg.inv(Kn)
            precision = 0.5 * (A + A.T)
            noise = s2 + white
        else:
            Kzz = _np(kernel_obj(Z)) + jitter * np.eye(len(Z))
            Kzx = _np(kernel_obj(Z, X))
            coef = np.linalg.solve(s2 * Kzz + Kzx @ Kzx.T, Kzx @ (Y - m))
    else:
        q_mu = _np(model.q_mu)
        P = q_mu.shape[1]
        m = _mean_constant(model, P)
        Kzz = _np(kernel_obj(Z)) + jitter * np.eye(len(Z))
        if name == "VGP" or bool(getattr(model, "whiten", False)):
            L = np.linalg.cholesky(Kzz)
            coef = np.linalg.solve(L.T, q_mu)
        else:
            coef = np.linalg.solve(Kzz, q_mu)
    if np.any(np.isnan(m)):
        raise _refuse(f"a Constant mean function with {_np(model.mean_function.c).size} values for {P} outputs.")
    # the kernel's conversion, checked against GPflow's own Gram matrix between distinct points
    # (kernel(X, X2) applies active_dims; kernel.K does not)
    probe = Z[: min(len(Z), 50)]
    K_own = _np(kernel_obj(probe, probe + 0.0))
    ours = kernel.exact(probe) if isinstance(kernel, ScaleMixtureKernel) else kernel(probe)
    off = ~np.eye(len(probe), dtype=bool)
    scale = max(1.0, float(np.abs(K_own).max()))
    if not np.allclose((ours + constant)[off], K_own[off], rtol=1e-8, atol=1e-10 * scale):
        raise _refuse(
            f"the kernel of {name} ({type(kernel_obj).__name__}) did not convert exactly "
            f"(largest difference {float(np.abs(ours + constant - K_own)[off].max()):.3g})."
        )
    return {
        "X_ref": Z,
        "coef": coef,
        "mean": m,
        "kernel": kernel,
        "constant": constant,
        "precision": precision,
        "noise": noise,
        "n_outputs": P,
    }


def gpflow_expansion(
    model: Any, feature_names: Sequence[str] | None = None, tol: float | None = None
) -> KernelExpansion:
    """The posterior mean of a GPflow model as a KernelExpansion.

    Parameters
    ----------
    model : gpflow.models.GPR, SGPR, SVGP or VGP
        See :data:`SUPPORTED_GPFLOW_MODELS`.  Several output columns become outputs ``"output k"``.
    feature_names : sequence of str, optional
    tol : float, optional
        Target uniform error of discretised Matérn / rational quadratic kernels.

    Returns
    -------
    KernelExpansion

    Raises
    ------
    UnsupportedModelError
        Models or kernels without an exact kernel-expansion form, with the route that works; and a
        conversion whose predictions do not match the model's own ``predict_f``.

    Examples
    --------
    >>> import numpy as np
    >>> import pytest
    >>> gpflow = pytest.importorskip("gpflow")  # the repository runs this in its GPflow environment
    >>> from kexplain.models.gpflow import gpflow_expansion
    >>> X = np.random.default_rng(0).uniform(size=(20, 3))
    >>> kernel = gpflow.kernels.SquaredExponential(lengthscales=[1.0] * 3)
    >>> gp = gpflow.models.GPR((X, X[:, :1] - X[:, 1:2] ** 2), kernel)
    >>> em = gpflow_expansion(gp)
    >>> bool(np.allclose(em.predict(X[:4]), gp.predict_f(X[:4])[0].numpy()[:, 0], rtol=1e-8, atol=1e-10))
    True
    """
    p = _parts(model, tol)
    P = p["n_outputs"]
    coef = p["coef"][:, 0] if P == 1 else p["coef"]
    intercept = p["mean"] + p["constant"] * p["coef"].sum(axis=0)
    em = KernelExpansion(
        p["X_ref"],
        coef,
        p["kernel"],
        float(intercept[0]) if P == 1 else intercept,
        feature_names=feature_names,
        output_names=None if P == 1 else [f"output {k}" for k in range(P)],
    )
    _check_against_predict_f(model, em, p["X_ref"])
    return em


def _check_against_predict_f(model: Any, em: KernelExpansion, Z: np.ndarray) -> None:
    rng = np.random.default_rng(0)
    probe = Z[rng.choice(len(Z), size=min(len(Z), 8), replace=False)] + 0.01
    own = _np(model.predict_f(probe)[0])
    ours = np.asarray(em.predict(probe)).reshape(own.shape)
    err = float(np.abs(own - ours).max())
    # the kernel's discretisation error (Matérn / rational quadratic) propagates through the coefficients
    bound = float(np.abs(em.coef).sum(axis=0).max()) * float(getattr(em.kernel, "error", 0.0) or 0.0)
    if err > 1e-7 * max(1.0, float(np.abs(own).max())) + bound:
        raise _refuse(
            f"the posterior mean of {type(model).__name__} did not convert exactly (largest difference {err:.3g} "
            "from predict_f): a custom predict_f, or a model not in the list below?"
        )


def gpflow_parts_for_posterior(model: Any) -> dict[str, Any]:
    """The parts of :class:`kexplain.models.GPPosterior` for a single-output GPflow ``GPR``.

    Examples
    --------
    >>> import numpy as np
    >>> import pytest
    >>> gpflow = pytest.importorskip("gpflow")
    >>> X = np.random.default_rng(0).uniform(size=(10, 2))
    >>> parts = gpflow_parts_for_posterior(gpflow.models.GPR((X, X[:, :1]), gpflow.kernels.Matern52()))
    >>> parts["precision"].shape, parts["X_ref"].shape
    ((10, 10), (10, 2))
    """
    p = _parts(model, None)
    if p["precision"] is None:
        raise UnsupportedModelError(
            f"uncertainty=True on {type(model).__name__}: the exact covariance of the values is computed for "
            "GPflow's GPR (an exact Gaussian posterior); a sparse or variational model's values are exact, "
            "explain it without uncertainty=True."
        )
    if p["n_outputs"] != 1:
        raise UnsupportedModelError(
            f"uncertainty of explanations needs a single-output Gaussian-process posterior; {type(model).__name__} "
            f"has {p['n_outputs']} output columns. Fit one GPR per column."
        )
    p["coef"] = p["coef"][:, 0]
    p["mean"] = float(p["mean"][0])
    return p


def describe_gpflow_output(model: Any) -> str:
    """The output explained for a GPflow model, in words.

    Examples
    --------
    >>> from kexplain.models.gpflow import describe_gpflow_output
    >>> describe_gpflow_output(object())
    'posterior mean of the latent f of object (predict_f)'
    """
    return f"posterior mean of the latent f of {type(model).__name__} (predict_f)"

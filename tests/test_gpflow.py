"""GPflow models explained exactly (kexplain.models.gpflow), checked against GPflow's own predict_f.

GPflow 2 requires numpy < 2, so these tests run in an environment of their own: ``make test-gpflow``
(part of ``make test``) builds ``.venv-gpflow`` with kexplain, GPflow and pytest and runs this file and
the GPflow modules' doctests there.  In the main environment, without GPflow, they are skipped.
"""

import itertools
import math

import numpy as np
import pytest

gpflow = pytest.importorskip("gpflow")
tf = pytest.importorskip("tensorflow")

import kexplain as kx  # noqa: E402
from kexplain.exceptions import UnsupportedModelError  # noqa: E402
from kexplain.models import as_kernel_expansion, gp_posterior  # noqa: E402

RNG = np.random.default_rng(0)
X = RNG.uniform(-1, 1, size=(30, 3))
Y = np.sin(2 * X[:, :1]) + X[:, 1:2] * X[:, 2:3] + 0.05 * RNG.normal(size=(30, 1))
B = RNG.uniform(-1, 1, size=(6, 3))
XQ = RNG.uniform(-1, 1, size=(3, 3))


def f_of(model):
    return lambda Z: model.predict_f(np.asarray(Z, dtype=np.float64))[0].numpy()


def shapley_by_enumeration(f, x, background):
    """Interventional Shapley values of one row by all 2^d coalitions, on the model's own predict_f
    (every hybrid point x_S b_notS in one call)."""
    d = len(x)
    subsets = list(itertools.product([0, 1], repeat=d))
    pts = []
    for S in subsets:
        Z = background.copy()
        Z[:, np.flatnonzero(S)] = x[np.flatnonzero(S)]
        pts.append(Z)
    out = f(np.vstack(pts)).reshape(len(subsets), len(background), -1).mean(axis=1)
    v = dict(zip(subsets, out))
    phi = np.zeros((d, out.shape[1]))
    for S in subsets:
        for i in np.flatnonzero(S):
            s = sum(S) - 1
            weight = math.factorial(s) * math.factorial(d - s - 1) / math.factorial(d)
            without = tuple(0 if j == i else S[j] for j in range(d))
            phi[i] += weight * (v[S] - v[without])
    return phi


def kernels():
    se = gpflow.kernels.SquaredExponential(variance=1.3, lengthscales=[0.7, 1.1, 0.9])
    return {
        "se_ard": se,
        "matern52": gpflow.kernels.Matern52(variance=0.8, lengthscales=[0.6, 0.9, 1.2]),
        "matern12": gpflow.kernels.Matern12(lengthscales=0.8),
        "rq": gpflow.kernels.RationalQuadratic(alpha=1.5, lengthscales=0.7),
        "sum_const_white": gpflow.kernels.SquaredExponential(lengthscales=0.9)
        + gpflow.kernels.Constant(0.4)
        + gpflow.kernels.White(0.01),
        "product_active_dims": gpflow.kernels.SquaredExponential(lengthscales=0.8, active_dims=[0])
        * gpflow.kernels.Matern32(lengthscales=[0.7, 1.3], active_dims=[1, 2]),
    }


@pytest.mark.parametrize("name", list(kernels()))
def test_gpr_values_equal_enumeration_on_predict_f(name):
    kernel = kernels()[name]
    model = gpflow.models.GPR((X, Y), kernel, mean_function=gpflow.functions.Constant(0.3), noise_variance=0.02)
    em = as_kernel_expansion(model)
    own = model.predict_f(XQ)[0].numpy()[:, 0]
    bound = float(np.abs(em.coef).sum()) * float(getattr(em.kernel, "error", 0.0) or 0.0)
    np.testing.assert_allclose(em.predict(XQ), own, rtol=0, atol=1e-9 + bound)
    ex = kx.ProductKernelExplainer(model, B).explain(XQ)
    f = f_of(model)
    for r in range(len(XQ)):
        ref = shapley_by_enumeration(f, XQ[r], B)[:, 0]
        np.testing.assert_allclose(ex.values[r], ref, rtol=0, atol=1e-9 + 4 * bound)
    np.testing.assert_allclose(ex.predictions, own, rtol=0, atol=1e-9 + bound)


def test_sparse_and_variational_models_match_predict_f():
    Z = X[::3].copy()
    k = gpflow.kernels.SquaredExponential(lengthscales=[0.7, 1.1, 0.9])
    models = [gpflow.models.SGPR((X, Y), k, inducing_variable=Z, noise_variance=0.05)]
    for whiten in (True, False):
        svgp = gpflow.models.SVGP(
            gpflow.kernels.Matern52(lengthscales=0.8), gpflow.likelihoods.Gaussian(), Z, whiten=whiten, num_latent_gps=1
        )
        svgp.q_mu.assign(RNG.normal(size=(len(Z), 1)))
        models.append(svgp)
    vgp = gpflow.models.VGP(
        (X, (Y > 0).astype(float)), gpflow.kernels.SquaredExponential(), gpflow.likelihoods.Bernoulli()
    )
    vgp.q_mu.assign(RNG.normal(size=(len(X), 1)))
    models.append(vgp)
    for model in models:
        em = as_kernel_expansion(model)
        own = model.predict_f(XQ)[0].numpy()[:, 0]
        bound = float(np.abs(em.coef).sum()) * float(getattr(em.kernel, "error", 0.0) or 0.0)
        np.testing.assert_allclose(em.predict(XQ), own, rtol=0, atol=1e-8 + bound, err_msg=type(model).__name__)
        ex = kx.ProductKernelExplainer(model, B).explain(XQ[:1])
        ref = shapley_by_enumeration(f_of(model), XQ[0], B)[:, 0]
        np.testing.assert_allclose(ex.values[0], ref, rtol=0, atol=1e-8 + 4 * bound, err_msg=type(model).__name__)


def test_several_output_columns_are_several_outputs():
    Y2 = np.hstack([Y, X[:, :1] ** 2])
    model = gpflow.models.GPR((X, Y2), gpflow.kernels.SquaredExponential(lengthscales=0.8), noise_variance=0.05)
    ex = kx.ProductKernelExplainer(model, B).explain(XQ)
    assert ex.values.shape == (3, 3, 2)
    np.testing.assert_allclose(ex.predictions, model.predict_f(XQ)[0].numpy(), rtol=0, atol=1e-9)


def test_gpr_posterior_equals_gpflow_mean_and_variance():
    model = gpflow.models.GPR(
        (X, Y),
        gpflow.kernels.Matern32(lengthscales=[0.6, 0.9, 1.2]) + gpflow.kernels.Constant(0.2),
        noise_variance=0.03,
    )
    post = gp_posterior(model)
    mean, var = (t.numpy()[:, 0] for t in model.predict_f(XQ))
    bound = float(getattr(post, "kernel_error_bound", 0.0) or 0.0)
    np.testing.assert_allclose(post.mean(XQ), mean, rtol=0, atol=1e-8 + 50 * bound)
    np.testing.assert_allclose(post.variance(XQ), var, rtol=0, atol=1e-8 + 50 * bound)


def test_uncertainty_of_gpr_values_matches_posterior_samples():
    """The values are linear in f: their covariance over posterior samples of f at the hybrid points."""
    model = gpflow.models.GPR(
        (X, Y), gpflow.kernels.SquaredExponential(lengthscales=[0.7, 1.1, 0.9]), noise_variance=0.02
    )
    ex = kx.ProductKernelExplainer(model, B).explain(XQ[:1], uncertainty=True)
    d = 3
    # every hybrid point x_S b_notS the game touches, with the linear map from f there to the values
    pts = []
    for S in itertools.product([0, 1], repeat=d):
        Zs = B.copy()
        Zs[:, np.flatnonzero(S)] = XQ[0, np.flatnonzero(S)]
        pts.append(Zs)
    P = np.vstack(pts)
    M = np.zeros((d, len(P)))
    for i in range(d):
        for k, S in enumerate(itertools.product([0, 1], repeat=d)):
            s = sum(S)
            sign = 1 if S[i] else -1
            size = s - 1 if S[i] else s
            weight = math.factorial(size) * math.factorial(d - size - 1) / math.factorial(d)
            M[i, k * len(B) : (k + 1) * len(B)] += sign * weight / len(B)
    mean, cov = model.predict_f(P, full_cov=True)
    cov_values = M @ cov.numpy()[0] @ M.T
    np.testing.assert_allclose(M @ mean.numpy()[:, 0], ex.values[0], rtol=0, atol=1e-9)
    np.testing.assert_allclose(ex.covariance[0], cov_values, rtol=1e-6, atol=1e-10)


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: gpflow.models.GPR((X, Y), gpflow.kernels.Periodic(gpflow.kernels.SquaredExponential())), "Periodic"),
        (lambda: gpflow.models.GPR((X, Y), gpflow.kernels.Linear()), "Linear"),
        (
            lambda: gpflow.models.GPR(
                (X, Y), gpflow.kernels.SquaredExponential(), mean_function=gpflow.functions.Linear(np.ones((3, 1)))
            ),
            "mean function Linear",
        ),
        (lambda: gpflow.models.GPR((X, Y), gpflow.kernels.Constant()), "constant: nothing to explain"),
        (
            lambda: gpflow.models.GPR((X, Y), gpflow.kernels.SquaredExponential(active_dims=[0])),
            "does not involve features",
        ),
    ],
)
def test_models_without_an_exact_form_are_refused_with_the_route(make, match):
    with pytest.raises(UnsupportedModelError, match=match) as err:
        as_kernel_expansion(make())
    assert "RKHSExplainer" in str(err.value)


def test_uncertainty_of_a_variational_model_is_refused_and_values_still_work():
    svgp = gpflow.models.SVGP(gpflow.kernels.SquaredExponential(), gpflow.likelihoods.Gaussian(), X[::3].copy())
    with pytest.raises(UnsupportedModelError, match="GPR"):
        gp_posterior(svgp)
    assert kx.ProductKernelExplainer(svgp, B).explain(XQ).values.shape == (3, 3)

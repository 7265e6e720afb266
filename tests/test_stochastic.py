"""Stochastic Shapley values of Gaussian processes: exact posterior covariance of the values.

The reference is the definition: every coalition pair (S, T) of two points' interventional games
evaluated on the posterior covariance k_post at the hybrid points, then the Shapley weights of
both coalitions.  Nothing of the solver is reused by the reference.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessClassifier, GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF as SkRBF
from sklearn.gaussian_process.kernels import ConstantKernel, WhiteKernel
from sklearn.svm import SVR

import kexplain as kx
from kexplain.explainers.posterior_games import summarize_background
from kexplain.models import GPPosterior, gp_posterior
from kexplain.shapley.quadrature import gauss_legendre_01
from kexplain.shapley.stochastic import product_covariance, row_shapley_values

try:
    import numba  # noqa: F401

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - numba is optional
    HAVE_NUMBA = False


# -- the reference: enumeration of all coalition pairs -------------------------------------------
def shapley_matrix(d: int) -> tuple[np.ndarray, np.ndarray]:
    """(coalitions (2^d, d) bool, W (d, 2^d)) with phi_j = sum_S W[j, S] v(S)."""
    coalitions = np.array([[(m >> k) & 1 for k in range(d)] for m in range(2**d)], dtype=bool)
    W = np.zeros((d, 2**d))
    for s, S in enumerate(coalitions):
        size = int(S.sum())
        for j in range(d):
            if S[j]:  # S = S' + j with |S'| = size - 1
                W[j, s] += math.factorial(size - 1) * math.factorial(d - size) / math.factorial(d)
            else:
                W[j, s] -= math.factorial(size) * math.factorial(d - size - 1) / math.factorial(d)
    return coalitions, W


def hybrid_points(x: np.ndarray, Z: np.ndarray, coalitions: np.ndarray) -> np.ndarray:
    """Rows (coalition S, background row b) = x on S, z_b off S; shape (2^d * B, d)."""
    pts = np.where(coalitions[:, None, :], x[None, None, :], Z[None, :, :])
    return pts.reshape(-1, x.shape[0])


def brute_covariance(post: GPPosterior, x: np.ndarray, y: np.ndarray, Z: np.ndarray, w: np.ndarray, noisy=False):
    """Cov(phi(x), phi(y)) (d, d) by enumerating every pair of coalitions on k_post."""
    d = x.shape[0]
    coalitions, W = shapley_matrix(d)
    Hx, Hy = hybrid_points(x, Z, coalitions), hybrid_points(y, Z, coalitions)
    K = post.covariance(Hx, Hy, noisy=noisy)  # (2^d B, 2^d B)
    B = Z.shape[0]
    V = np.einsum("sbtc,b,c->st", K.reshape(2**d, B, 2**d, B), w, w)  # Cov(v_x(S), v_y(T))
    return W @ V @ W.T


def brute_values(post: GPPosterior, x: np.ndarray, Z: np.ndarray, w: np.ndarray) -> np.ndarray:
    coalitions, W = shapley_matrix(x.shape[0])
    v = post.mean(hybrid_points(x, Z, coalitions)).reshape(2 ** x.shape[0], -1) @ w
    return W @ v


def random_posterior(rng, n, d, *, ard=True, sum_kernel=False, constant=0.0, scale=1.0, noise=0.0):
    X = rng.normal(size=(n, d))
    ls = rng.uniform(0.7, 2.0, d) if ard else 1.3
    kernel = kx.kernels.RBF(ls, amplitude=1.7)
    if sum_kernel:
        kernel = kx.kernels.SumKernel([kernel, kx.kernels.Laplacian(2.0, amplitude=0.4)])
    K = kernel(X) + constant
    A = np.linalg.inv(K + 0.3 * np.eye(n))
    coef = A @ rng.normal(size=n)
    return GPPosterior(X, kernel, coef, A, offset=0.5, scale=scale, constant=constant, noise_variance=noise)


# -- the solver against the definition ------------------------------------------------------------
@pytest.mark.parametrize("d", [1, 2, 3, 5, 6])
def test_covariance_equals_enumeration_of_coalition_pairs(d):
    rng = np.random.default_rng(d)
    post = random_posterior(rng, 12, d, scale=1.9, constant=0.4)
    Z = rng.normal(size=(3, d))
    w = rng.dirichlet(np.ones(3))
    X = rng.normal(size=(2, d))
    ex = kx.ProductKernelExplainer(post, background=Z, background_weights=w).explain(X, uncertainty=True, joint=True)
    for i in range(2):
        ref = brute_covariance(post, X[i], X[i], Z, w)
        np.testing.assert_allclose(ex.covariance[i], ref, rtol=1e-10, atol=1e-10 * np.abs(ref).max())
        np.testing.assert_allclose(ex.values[i], brute_values(post, X[i], Z, w), rtol=1e-10, atol=1e-12)
    cross = brute_covariance(post, X[0], X[1], Z, w)
    np.testing.assert_allclose(ex.joint_covariance[0, :, 1, :], cross, rtol=1e-10, atol=1e-10 * np.abs(cross).max())


def test_sum_kernel_noise_and_ties_equal_enumeration():
    """A sum of product kernels, the noisy observation y, and a background row equal to x (ties)."""
    rng = np.random.default_rng(3)
    d = 4
    post = random_posterior(rng, 10, d, sum_kernel=True, noise=0.2)
    X = rng.normal(size=(2, d))
    Z = np.vstack([rng.normal(size=(2, d)), X[:1]])
    Z[0, 1] = X[0, 1]  # one shared feature value
    w = np.array([0.5, 0.2, 0.3])
    expl = kx.ProductKernelExplainer(post, background=Z, background_weights=w)
    for noisy in (False, True):
        ex = expl.explain(X, uncertainty=True, joint=True, noisy=noisy)
        for i, j in [(0, 0), (1, 1), (0, 1)]:
            ref = brute_covariance(post, X[i], X[j], Z, w, noisy=noisy)
            np.testing.assert_allclose(ex.joint_covariance[i, :, j, :], ref, rtol=1e-10, atol=1e-11)


def test_product_covariance_with_zero_factors_and_blocks():
    """Exact zeros (log-space path) and tiny blocks of background pairs give the same numbers."""
    rng = np.random.default_rng(0)
    d, B = 5, 4
    g11 = rng.uniform(size=(2, d))
    g10, g01 = rng.uniform(size=(2, B, d)), rng.uniform(size=(2, B, d))
    g00 = rng.uniform(size=(B, B, d))
    g00[:, :, 0] = 0.0
    g10[0, 1, :3] = 0.0
    w = rng.dirichlet(np.ones(B))
    full = product_covariance(g11, g10, g01, g00, w)
    small = product_covariance(g11, g10, g01, lambda r, c: g00[r, c], w, max_block_bytes=1)
    np.testing.assert_allclose(small, full, rtol=1e-13, atol=1e-15)


def _long_double_prior(g11, g10, g01, g00, w):
    """The prior term of one pair of points by its definition, in long double: for every background
    pair the double Gauss-Legendre sum of Dx_j Dy_l prod_{k != j, l} h_k (off the diagonal) and
    D2_j prod_{k != j} h_k (on it), the products formed without division."""
    L = np.longdouble
    d, B = g11.shape[0], w.shape[0]
    t, wt = gauss_legendre_01(max(1, (d + 1) // 2))
    T, U = t.astype(L)[:, None, None], t.astype(L)[None, :, None]
    W = wt.astype(L)[:, None] * wt.astype(L)[None, :]
    C = np.zeros((d, d), dtype=L)
    G11 = g11.astype(L)
    for b in range(B):
        for c in range(B):
            G10, G01, G00 = g10[c].astype(L), g01[b].astype(L), g00[b, c].astype(L)
            h = T * U * G11 + T * (1 - U) * G10 + (1 - T) * U * G01 + (1 - T) * (1 - U) * G00
            Dx = U * (G11 - G01) + (1 - U) * (G10 - G00)
            Dy = T * (G11 - G10) + (1 - T) * (G01 - G00)
            ww = L(w[b]) * L(w[c])
            for j in range(d):
                for l in range(d):
                    rest = np.prod(np.delete(h, [j, l] if j != l else [j], axis=-1), axis=-1)
                    term = (G11 - G10 - G01 + G00)[j] if j == l else Dx[..., j] * Dy[..., l]
                    C[j, l] += ww * (W * term * rest).sum()
    return C


@pytest.mark.parametrize("d", [1, 2, 5, 7, 30])
@pytest.mark.parametrize("case", ["positive", "zeros", "negative", "tiny"])
def test_compiled_prior_equals_numpy_and_the_definition(d, case, monkeypatch):
    """The compiled pass (whole pairs, and one pair's nodes split into chunks) equals the numpy path
    to rounding, and both equal the long-double definition; zero, negative and tiny factors take
    the log-space finish for the entries they flag."""
    from kexplain.shapley import stochastic

    rng = np.random.default_rng(d)
    B = 3
    g11 = rng.uniform(0.2, 1.0, size=(1, d))
    g10, g01 = rng.uniform(0.2, 1.0, size=(1, B, d)), rng.uniform(0.2, 1.0, size=(1, B, d))
    g00 = rng.uniform(0.2, 1.0, size=(B, B, d))
    if case == "zeros":
        g10[0, 1, : min(2, d)] = 0.0
        g00[0, 2, 0] = 0.0
    elif case == "negative":
        g00[..., 0] *= -1.0
        g01[0, 0, -1] = -0.5
    elif case == "tiny":
        g00[1, 1] = 1e-160
    w = rng.dirichlet(np.ones(B))
    compiled = stochastic._prior_kernel
    monkeypatch.setattr(stochastic, "_prior_kernel", lambda: None)
    numpy_path = product_covariance(g11, g10, g01, g00, w)[0]
    scale = np.abs(numpy_path).max()
    results = {"numpy": numpy_path}
    if HAVE_NUMBA:
        monkeypatch.setattr(stochastic, "_prior_kernel", compiled)
        results["compiled"] = product_covariance(g11, g10, g01, g00, w)[0]
        monkeypatch.setattr(stochastic, "_CHUNK_BYTES", 1)  # one node of t per chunk
        results["compiled, split"] = product_covariance(g11, g10, g01, g00, w)[0]
    for name, C in results.items():
        np.testing.assert_allclose(C, numpy_path, rtol=0, atol=1e-13 * scale, err_msg=name)
    if d <= 7:
        ref = _long_double_prior(g11[0], g10[0], g01[0], g00, w).astype(np.float64)
        for name, C in results.items():
            np.testing.assert_allclose(C, ref, rtol=0, atol=1e-13 * np.abs(ref).max(), err_msg=name)


def test_row_shapley_values_match_the_product_engine():
    rng = np.random.default_rng(1)
    a, b, w = rng.uniform(size=(2, 3, 4)), rng.uniform(size=(3, 5, 4)), rng.dirichlet(np.ones(5))
    phi = row_shapley_values(a, b, w)
    coalitions, W = shapley_matrix(4)
    for p in range(2):
        for i in range(3):
            v = np.array([w @ np.prod(np.where(S, a[p, i], b[i]), axis=1) for S in coalitions])
            np.testing.assert_allclose(phi[p, i], W @ v, rtol=1e-12)


# -- properties --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def gpr_setting():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(40, 4))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2] + 0.1 * rng.normal(size=40) + 3.0
    kernel = ConstantKernel(2.0) * SkRBF([1.0, 1.5, 1.0, 2.0]) + WhiteKernel(0.05)
    gpr = GaussianProcessRegressor(kernel, normalize_y=True, random_state=0).fit(X, y)
    return gpr, X


def test_efficiency_in_distribution_and_psd(gpr_setting):
    gpr, X = gpr_setting
    Z = X[:6]
    expl = kx.ProductKernelExplainer(gpr, background=Z)
    ex = expl.explain(X[10:14], uncertainty=True, joint=True)
    post = gp_posterior(gpr)
    for noisy in (False, True):
        exn = expl.explain(X[10:14], uncertainty=True, noisy=noisy)
        Xq = X[10:14]
        diff_var = (
            post.variance(Xq, noisy=noisy)
            - 2 * post.covariance(Xq, Z, noisy=noisy).mean(axis=1)
            + post.covariance(Z, noisy=noisy).mean()
        )
        # both sides cancel a prior variance of scale^2 k(x, x) through A: rounding grows with cond(A)
        atol = 1e-15 * post.scale**2 * post.kernel.diag_value() * np.linalg.cond(post.precision_matrix())
        np.testing.assert_allclose(exn.covariance.sum(axis=(1, 2)), diff_var, rtol=1e-9, atol=atol)
        np.testing.assert_allclose(exn.prediction_variance, post.variance(Xq, noisy=noisy), rtol=1e-12)
        np.testing.assert_allclose(exn.base_variance, post.covariance(Z, noisy=noisy).mean(), rtol=1e-12)
    N, d = ex.values.shape
    J = ex.joint_covariance.reshape(N * d, N * d)
    np.testing.assert_allclose(J, J.T, rtol=0, atol=1e-15 * np.abs(J).max())
    assert np.linalg.eigvalsh(J).min() > -1e-10 * np.abs(J).max()
    for C in ex.covariance:
        assert np.linalg.eigvalsh(C).min() > -1e-10 * np.abs(C).max()
    # the values are the posterior mean's, unchanged by uncertainty=True
    np.testing.assert_allclose(ex.values, expl.explain(X[10:14]).values, rtol=1e-12)


def test_normalize_y_matches_sklearn_posterior(gpr_setting):
    gpr, X = gpr_setting
    post = gp_posterior(gpr)
    mean, cov = gpr.predict(X[:5], return_cov=True)
    np.testing.assert_allclose(post.mean(X[:5]), mean, rtol=1e-10)
    # scikit-learn's covariance includes the WhiteKernel: the noisy observation's
    nugget = post.scale**2 * gpr.alpha
    np.testing.assert_allclose(post.covariance(X[:5], noisy=True), cov + nugget * np.eye(5), rtol=1e-7, atol=1e-10)
    assert post.scale != 1.0 and post.offset != 0.0


@pytest.mark.slow
def test_baseline_game_is_one_background_row(gpr_setting):
    gpr, X = gpr_setting
    z = X[3]
    a = kx.ProductKernelExplainer(gpr, baseline=z).explain(X[:3], uncertainty=True)
    b = kx.ProductKernelExplainer(gpr, background=z[None, :]).explain(X[:3], uncertainty=True)
    np.testing.assert_allclose(a.covariance, b.covariance, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(a.values, b.values, rtol=1e-12, atol=1e-15)
    assert a.game == "baseline"


def test_monte_carlo_over_posterior_draws():
    """Shapley values of posterior function draws: their sample covariance agrees within standard errors."""
    rng = np.random.default_rng(11)
    d = 3
    post = random_posterior(rng, 15, d)
    Z = rng.normal(size=(3, d))
    w = np.full(3, 1 / 3)
    x = rng.normal(size=d)
    coalitions, W = shapley_matrix(d)
    H = hybrid_points(x, Z, coalitions)
    mean = post.mean(H)
    K = post.covariance(H)
    S = 20000
    draws = rng.multivariate_normal(mean, K, size=S, method="eigh")  # (S, 2^d B)
    phis = (draws.reshape(S, 2**d, 3) @ w) @ W.T  # (S, d)
    ex = kx.ProductKernelExplainer(post, background=Z).explain(x[None, :], uncertainty=True)
    C = ex.covariance[0]
    emp = np.cov(phis.T)
    # standard error of a sample covariance of Gaussians: sqrt((C_jl^2 + C_jj C_ll) / S)
    se = np.sqrt((C**2 + np.outer(np.diag(C), np.diag(C))) / S)
    assert np.all(np.abs(emp - C) < 5 * se)
    assert np.all(np.abs(phis.mean(axis=0) - ex.values[0]) < 5 * np.sqrt(np.diag(C) / S))


def test_gpc_latent_posterior():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] - X[:, 1] + 0.3 * rng.normal(size=40) > 0).astype(int)
    gpc = GaussianProcessClassifier(ConstantKernel(1.5) * SkRBF([1.0, 1.0, 1.0]), random_state=0).fit(X, y)
    post = gp_posterior(gpc)
    m, v = gpc.base_estimator_.latent_mean_and_variance(X[:4])
    np.testing.assert_allclose(post.mean(X[:4]), m, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(post.variance(X[:4]), v, rtol=1e-8, atol=1e-12)
    Z = X[:3]
    ex = kx.ProductKernelExplainer(gpc, background=Z).explain(X[5:7], uncertainty=True)
    for i in range(2):
        ref = brute_covariance(post, X[5 + i], X[5 + i], Z, np.full(3, 1 / 3))
        np.testing.assert_allclose(ex.covariance[i], ref, rtol=1e-10, atol=1e-12 * np.abs(ref).max())


# -- refusals and options ----------------------------------------------------------------------------
def test_functional_game_refused_with_reason(gpr_setting):
    gpr, X = gpr_setting
    with pytest.raises(ValueError, match="constant function 1, which is not in") as info:
        kx.ProductKernelExplainer(gpr).explain(X[:2], uncertainty=True)
    assert "background=B" in str(info.value) and "baseline" in str(info.value)


def test_model_without_posterior_is_refused():
    X = np.random.default_rng(0).normal(size=(20, 2))
    svr = SVR().fit(X, X[:, 0])
    expl = kx.ProductKernelExplainer(svr, background=X[:5])
    with pytest.raises(TypeError, match="SVR.*Gaussian-process posterior") as info:
        expl.explain(X[:2], uncertainty=True)
    assert "GaussianProcessRegressor" in str(info.value)
    with pytest.raises(TypeError, match="not a Gaussian-process model"):
        gp_posterior(svr)
    expl.explain(X[:2])  # the values themselves still work


def test_option_checks(gpr_setting):
    gpr, X = gpr_setting
    expl = kx.ProductKernelExplainer(gpr, background=X[:4])
    with pytest.raises(ValueError, match="apply to uncertainty=True"):
        expl.explain(X[:2], joint=True)
    with pytest.raises(TypeError, match="uncertainty must be True or False"):
        expl.explain(X[:2], uncertainty="yes")
    ex = expl.explain(X[:2])
    assert ex.covariance is None and ex.base_variance is None


def test_n_jobs_gives_identical_covariance(gpr_setting):
    gpr, X = gpr_setting
    expl = kx.ProductKernelExplainer(gpr, background=X[:4])
    a = expl.explain(X[:12], uncertainty=True, n_jobs=1)
    b = expl.explain(X[:12], uncertainty=True, n_jobs=2)
    np.testing.assert_allclose(a.covariance, b.covariance, rtol=1e-13, atol=1e-16)


def test_background_summary_is_exact_for_the_summarised_game(gpr_setting):
    gpr, X = gpr_setting
    Zs, ws = summarize_background(X[:20], np.full(20, 0.05), 4)
    a = kx.ProductKernelExplainer(gpr, background=X[:20], background_summary=4).explain(X[30:32], uncertainty=True)
    b = kx.ProductKernelExplainer(gpr, background=Zs, background_weights=ws).explain(X[30:32], uncertainty=True)
    np.testing.assert_allclose(a.covariance, b.covariance, rtol=1e-12)
    assert Zs.shape == (4, 4) and ws.sum() == pytest.approx(1.0)


def test_explanation_interval_and_sampling(gpr_setting):
    gpr, X = gpr_setting
    ex = kx.ProductKernelExplainer(gpr, background=X[:4]).explain(X[5:8], uncertainty=True, joint=True)
    lo, hi = ex.interval(0.9)
    np.testing.assert_allclose((hi - lo) / 2, 1.6448536269514722 * ex.std, rtol=1e-12)
    draws = ex.sample(4000, random_state=0)
    vals = np.stack([e.values for e in draws])  # (k, N, d)
    emp = np.cov(vals.reshape(4000, -1).T)
    J = ex.joint_covariance.reshape(emp.shape)
    assert np.abs(emp - J).max() < 0.15 * np.abs(J).max()
    sub = ex[[0, 2]]
    assert sub.joint_covariance.shape == (2, 4, 2, 4)
    np.testing.assert_allclose(sub.joint_covariance[1, :, 0, :], ex.joint_covariance[2, :, 0, :])
    both = kx.Explanation.concatenate([ex[:1], ex[1:]])
    assert both.joint_covariance is None
    np.testing.assert_allclose(both.covariance, ex.covariance)


def test_pipeline_with_scaler_and_posterior_object_input():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(4)
    X = rng.normal(size=(30, 3)) * [1.0, 5.0, 0.2]
    gpr = GaussianProcessRegressor(SkRBF([1.0, 1.0, 1.0]), alpha=0.05, optimizer=None)
    pipe = make_pipeline(StandardScaler(), gpr).fit(X, X[:, 0] + X[:, 2] * 3)
    post = gp_posterior(pipe)
    mean, std = pipe.predict(X[:4], return_std=True)
    np.testing.assert_allclose(post.mean(X[:4]), mean, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(post.variance(X[:4]), std**2, rtol=1e-7, atol=1e-12)
    a = kx.ProductKernelExplainer(pipe, background=X[:3]).explain(X[5:7], uncertainty=True)
    b = kx.ProductKernelExplainer(post, background=X[:3]).explain(X[5:7], uncertainty=True)
    np.testing.assert_allclose(a.covariance, b.covariance, rtol=1e-12, atol=1e-15)
    assert gp_posterior(post) is post and "Pipeline" in post.output
    with pytest.raises(TypeError, match="holds the posterior mean only"):
        gp_posterior(post.expansion())

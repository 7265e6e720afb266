"""GP-SHAP (Chau, Muandet & Sejdinovic, 2023): mean and covariance of the observational Shapley
values of a Gaussian process through RKHSExplainer(..., game="observational").explain(X, uncertainty=True)."""

import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF as skRBF
from sklearn.gaussian_process.kernels import ConstantKernel, WhiteKernel
from sklearn.kernel_ridge import KernelRidge
from sklearn.svm import SVR

import kexplain as kx
from kexplain.exceptions import UnsupportedModelError
from kexplain.rkhs.cme import ProductCME
from kexplain.rkhs.gpshap import ObservationalGPSHAP, shapley_coefficients
from kexplain.shapley import all_coalitions


def _posterior(rng, d, kernel, n_train=18, scale=1.0, offset=0.0):
    Xtr = rng.normal(size=(n_train, d))
    A = np.linalg.inv(kernel(Xtr) + 0.2 * np.eye(n_train))
    return kx.models.GPPosterior(Xtr, kernel, A @ np.sin(Xtr[:, 0]), A, scale=scale, offset=offset)


def _mixed_points(cme, X, weights):
    """Every (point, coalition): the rows (x_S, R_l,not S) and the CME weights beta^S(x) over them."""
    d, n = cme.d, cme.n
    w = np.full(n, 1 / n) if weights is None else weights
    H, B = [], []
    for x in X:
        for m, S in enumerate(all_coalitions(d)):
            Hs = cme.R.copy()
            Hs[:, S] = x[S]
            if 0 < m < 2**d - 1:
                k = sum(
                    wt * np.prod(t.feature_values(cme.R, x[None])[:, 0, S], axis=-1)
                    for wt, t in zip(cme.cme_w, cme.em.terms)
                )
                beta = cme.exact_factor(np.flatnonzero(S)).weights(k[:, None])[:, 0]
            else:
                beta = w
            H.append(Hs)
            B.append(beta)
    L = np.zeros((len(B), len(B) * n))
    for q, beta in enumerate(B):
        L[q, q * n : (q + 1) * n] = beta
    return np.concatenate(H), L


@pytest.mark.parametrize("weighted", [False, True])
def test_covariance_equals_dense_enumeration_of_coalition_pairs(weighted):
    rng = np.random.default_rng(1)
    d, n, N = 4, 20, 3
    R = rng.normal(size=(n, d))
    R[:, 1] += 0.5 * R[:, 0]
    kernel = kx.kernels.SumKernel(
        [kx.kernels.RBF(np.array([1.0, 0.8, 1.5, 1.2]), amplitude=1.3), kx.kernels.Laplacian(2.0, amplitude=0.4)]
    )
    post = _posterior(rng, d, kernel, scale=1.7, offset=0.3)
    w = rng.uniform(0.1, 1.0, n)
    w = w / w.sum() if weighted else None
    cme = ProductCME(post.expansion(), R, 1e-2, weights=w)
    X = rng.normal(size=(N, d))
    mean, cov = ObservationalGPSHAP(post, cme).moments(X)
    _, joint = ObservationalGPSHAP(post, cme).moments(X, joint=True)
    H, L = _mixed_points(cme, X, w)
    V = L @ post.covariance(H) @ L.T  # covariance of every (point, coalition) value
    Phi = np.kron(np.eye(N), shapley_coefficients(d).T)
    dense = (Phi @ V @ Phi.T).reshape(N, d, N, d)
    scale = np.abs(dense).max()
    np.testing.assert_allclose(joint, dense, rtol=0, atol=1e-10 * scale)
    np.testing.assert_allclose(cov, dense[np.arange(N), :, np.arange(N), :], rtol=0, atol=1e-10 * scale)
    # the mean: the observational values of the posterior mean (offset and constants pass exactly)
    values = kx.RKHSExplainer(post, R, background_weights=w, cme_regularization=1e-2).explain(X).values
    np.testing.assert_allclose(mean, values, atol=1e-12)
    np.testing.assert_allclose(mean, (Phi @ (L @ (post.mean(H) - 0.3))).reshape(N, d), atol=1e-10)


def test_covariance_matches_monte_carlo_over_posterior_draws():
    rng = np.random.default_rng(2)
    d, n = 3, 15
    R = rng.normal(size=(n, d))
    post = _posterior(rng, d, kx.kernels.RBF(np.array([1.0, 1.3, 0.8])), n_train=12)
    cme = ProductCME(post.expansion(), R, 1e-2)
    x = rng.normal(size=(1, d))
    mean, cov = ObservationalGPSHAP(post, cme).moments(x)
    H, L = _mixed_points(cme, x, None)
    Kp = post.covariance(H)
    evals, evecs = np.linalg.eigh(0.5 * (Kp + Kp.T))
    root = evecs * np.sqrt(np.clip(evals, 0, None))
    draws = post.mean(H)[None] + rng.standard_normal((20000, H.shape[0])) @ root.T  # f at the mixed points
    phi = (draws @ L.T) @ shapley_coefficients(d)  # (draws, d)
    se_mean = np.sqrt(np.diag(cov[0]) / draws.shape[0])
    assert np.all(np.abs(phi.mean(0) - mean[0]) < 4 * se_mean)
    emp = np.cov(phi.T)
    # standard error of a sample covariance of Gaussians: sqrt((s_jj s_kk + s_jk^2) / n)
    s = cov[0]
    se = np.sqrt((np.outer(np.diag(s), np.diag(s)) + s**2) / draws.shape[0])
    assert np.all(np.abs(emp - s) < 4 * se)


@pytest.fixture(scope="module")
def gpr():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2] + 0.1 * rng.normal(size=40)
    kernel = ConstantKernel(1.0) * skRBF([1.0, 1.0, 1.0]) + WhiteKernel(0.05)
    return X, GaussianProcessRegressor(kernel, normalize_y=True, random_state=0).fit(X, y)


def test_explain_with_uncertainty_on_a_gaussian_process_regressor(gpr):
    X, model = gpr
    ex = kx.RKHSExplainer(model)
    e = ex.explain(X[:6], uncertainty=True)
    plain = ex.explain(X[:6])
    np.testing.assert_allclose(e.values, plain.values, atol=1e-10)
    np.testing.assert_allclose(e.base_values, plain.base_values, atol=1e-10)
    assert e.covariance.shape == (6, 3, 3)
    np.testing.assert_allclose(e.covariance, e.covariance.transpose(0, 2, 1), atol=0)
    assert np.linalg.eigvalsh(e.covariance).min() > -1e-12
    # efficiency in distribution: Var(sum_j phi_j) = Var(f(x) - sum_l w_l f(R_l))
    post = kx.models.gp_posterior(model)
    w = np.full(40, 1 / 40)
    total = e.covariance.sum(axis=(1, 2))
    direct = e.prediction_variance + e.base_variance - 2 * post.covariance(X[:6], X) @ w
    # (both sides are differences of O(scale^2) terms: compare on that scale)
    np.testing.assert_allclose(total, direct, rtol=0, atol=1e-9 * post.scale**2)
    np.testing.assert_allclose(e.prediction_variance, post.variance(X[:6]), rtol=1e-12)
    # rows in threads, and the joint covariance, agree with the per-point covariance
    np.testing.assert_allclose(ex.explain(X[:6], uncertainty=True, n_jobs=2).covariance, e.covariance, atol=1e-15)
    j = ex.explain(X[:3], uncertainty=True, joint=True)
    assert j.joint_covariance.shape == (3, 3, 3, 3)
    np.testing.assert_allclose(j.covariance, e.covariance[:3], atol=1e-15)
    np.testing.assert_allclose(j.joint_covariance, j.joint_covariance.transpose(2, 3, 0, 1), atol=0)
    lo, hi = e.interval(0.95)
    assert np.all(lo <= e.values) and np.all(e.values <= hi)


def test_interventional_uncertainty_is_the_product_kernel_explainers(gpr):
    X, model = gpr
    e = kx.RKHSExplainer(model, X[:20], game="interventional").explain(X[:3], uncertainty=True)
    ref = kx.ProductKernelExplainer(model, X[:20]).explain(X[:3], uncertainty=True)
    np.testing.assert_allclose(e.values, ref.values, atol=1e-12)
    np.testing.assert_allclose(e.covariance, ref.covariance, atol=1e-14)
    assert e.game == "interventional"


def test_a_constant_kernel_part_adds_nothing_to_the_covariance():
    rng = np.random.default_rng(5)
    d = 3
    R = rng.normal(size=(15, d))
    k = kx.kernels.RBF(1.0)
    Xtr = rng.normal(size=(10, d))
    X = rng.normal(size=(2, d))
    covs = []
    for c in (0.0, 2.0):
        A = np.linalg.inv(k(Xtr) + c + 0.1 * np.eye(10))
        post = kx.models.GPPosterior(Xtr, k, A @ Xtr[:, 0], A, constant=c)
        covs.append(ObservationalGPSHAP(post, ProductCME(post.expansion(), R, 1e-2)).moments(X)[1])
    # the constant changes the posterior (A), but a constant function itself adds nothing
    A0 = np.linalg.inv(k(Xtr) + 2.0 + 0.1 * np.eye(10))
    post0 = kx.models.GPPosterior(Xtr, k, A0 @ Xtr[:, 0], A0, constant=0.0)
    ref = ObservationalGPSHAP(post0, ProductCME(post0.expansion(), R, 1e-2)).moments(X)[1]
    np.testing.assert_allclose(covs[1], ref, atol=1e-14)


def test_bad_input_is_refused(gpr):
    X, model = gpr
    kr = KernelRidge(kernel="rbf", gamma=0.5).fit(X, X[:, 0])
    with pytest.raises(UnsupportedModelError, match="Gaussian-process posterior"):
        kx.RKHSExplainer(kr).explain(X[:2], uncertainty=True)
    svr = SVR().fit(X, X[:, 0])
    with pytest.raises(UnsupportedModelError, match="SVR"):
        kx.RKHSExplainer(svr, X).explain(X[:2], uncertainty=True)
    with pytest.raises(ValueError, match="exact CME"):
        kx.RKHSExplainer(model, approximation="nystroem", n_landmarks=10).explain(X[:2], uncertainty=True)
    with pytest.raises(ValueError, match="ProductKernelExplainer"):
        kx.RKHSExplainer(kx.KernelExpansion(X, X[:, 0], kx.kernels.RBF(1.0)), game="interventional").explain(
            X[:2], uncertainty=True, budget=50
        )
    with pytest.raises(ValueError, match="joint=True needs uncertainty=True"):
        kx.RKHSExplainer(model).explain(X[:2], joint=True)
    with pytest.raises(ValueError, match="no interactions"):
        kx.RKHSExplainer(model).explain(X[:2], uncertainty=True, interactions=True)


def test_points_in_blocks_give_the_same_moments(monkeypatch):
    import kexplain.rkhs.gpshap as gpshap

    rng = np.random.default_rng(6)
    R = rng.normal(size=(12, 3))
    post = _posterior(rng, 3, kx.kernels.RBF(1.2), n_train=10)
    gs = ObservationalGPSHAP(post, ProductCME(post.expansion(), R, 1e-2))
    X = rng.normal(size=(4, 3))
    mean, cov = gs.moments(X)
    monkeypatch.setattr(gpshap, "_TABLE_BYTES", 1)  # one point per block
    mean1, cov1 = gs.moments(X)
    np.testing.assert_allclose(mean1, mean, atol=1e-14)
    np.testing.assert_allclose(cov1, cov, atol=1e-14)

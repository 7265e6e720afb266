"""BayesIMP / IMP / BayesIME (Chau, Ton, Gonzalez, Teh & Sejdinovic, 2021) against brute force."""

import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import WhiteKernel
from sklearn.kernel_ridge import KernelRidge

from kexplain.causal import BayesIMP, InterventionalPrediction
from kexplain.embeddings import nuclear_dominant_rbf
from kexplain.embeddings.gram import rbf


def _data(rng, N=40, M=30, confounded=False):
    U = rng.normal(size=(N, 1))
    X = rng.uniform(-2, 2, size=(N, 1)) + (0.5 * U if confounded else 0)
    Z = 0.8 * X + 0.3 * rng.normal(size=(N, 1))
    Y = np.sin(Z) + X * 0.3 + (0.4 * U if confounded else 0) + 0.1 * rng.normal(size=(N, 1))
    Y2 = rng.uniform(-2, 2, size=(M, 1))
    T = np.cos(Y2[:, 0]) + 0.1 * rng.normal(size=M)
    return X, Z, Y, Y2, T


FIXED = dict(
    lengthscale_x=0.7,
    lengthscale_z=0.8,
    lengthscale_y=0.5,
    regularization=1e-2,
    amplitude=1.2,
    noise=0.05,
    measure_scale=2.0,
    optimize=False,
)


def _beta(X, Z, adjustment, x, lam=1e-2):
    N = X.shape[0]
    Kx = rbf(X, X, 0.7)
    if adjustment is None:
        return np.linalg.solve(Kx + N * lam * np.eye(N), rbf(X, x, 0.7))
    Kz = rbf(Z, Z, 0.8)
    phi = rbf(X, x, 0.7) * Kz.mean(1)[:, None]
    if adjustment == "frontdoor":
        bz = np.linalg.solve(Kx + N * lam * np.eye(N), rbf(X, x, 0.7))
        phi = Kx.mean(1)[:, None] * (Kz @ bz)
    return np.linalg.solve(Kx * Kz + N * lam * np.eye(N), phi)


def test_imp_mean_is_two_stage_kernel_ridge_regression():
    rng = np.random.default_rng(0)
    X, Z, Y, Y2, T = _data(rng)
    xq = np.linspace(-2, 2, 7)[:, None]
    m = BayesIMP("imp", **FIXED).fit(X, Y, Y2, T)
    stage2 = KernelRidge(alpha=0.05 / 1.2, kernel="rbf", gamma=0.5 / 0.5**2).fit(Y2, T)
    stage1 = KernelRidge(alpha=X.shape[0] * 1e-2, kernel="rbf", gamma=0.5 / 0.7**2).fit(X, stage2.predict(Y))
    np.testing.assert_allclose(m.predict(xq), stage1.predict(xq), atol=1e-10)
    # backdoor: the same two stages with the adjusted stage-1 weights
    mb = BayesIMP("imp", "backdoor", **FIXED).fit(X, Y, Y2, T, Z=Z)
    np.testing.assert_allclose(mb.predict(xq), _beta(X, Z, "backdoor", xq).T @ stage2.predict(Y), atol=1e-10)
    mf = BayesIMP("imp", "frontdoor", **FIXED).fit(X, Y, Y2, T, Z=Z)
    np.testing.assert_allclose(mf.predict(xq), _beta(X, Z, "frontdoor", xq).T @ stage2.predict(Y), atol=1e-10)


def test_imp_covariance_is_the_posterior_of_f_through_the_embedding():
    rng = np.random.default_rng(1)
    X, Z, Y, Y2, T = _data(rng)
    xq = np.linspace(-2, 2, 5)[:, None]
    p = BayesIMP("imp", **FIXED).fit(X, Y, Y2, T).predict(xq, return_cov=True)
    gp = GaussianProcessRegressor(
        1.2 * __import__("sklearn").gaussian_process.kernels.RBF(0.5, "fixed"), alpha=0.05, optimizer=None
    ).fit(Y2, T)
    _, cf = gp.predict(Y, return_cov=True)
    b = _beta(X, Z, None, xq)
    np.testing.assert_allclose(p.cov, b.T @ cf @ b, atol=1e-8)
    assert set(p.components) == {"D2"}


def _moments_by_monte_carlo(model, X, Y, Y2, T, xq, n_mc, rng):
    """Sample f(xi) and mu(x_q, xi) from their posteriors (thesis B.21, B.22); g = f^T K^-1 mu."""
    a, s2, ly, s = model.amplitude_, model.noise_, model.lengthscale_y_, model.measure_scale_
    xi = np.vstack([Y, Y2])
    N, L, q = Y.shape[0], xi.shape[0], xq.shape[0]
    R = nuclear_dominant_rbf(xi, xi, ly, s)
    C2 = a * R[N:, N:] + s2 * np.eye(len(T))
    m_f = a * R[:, N:] @ np.linalg.solve(C2, T)
    S_f = a * R - a * a * R[:, N:] @ np.linalg.solve(C2, R[N:, :])
    lam = N * 1e-2
    Kx = rbf(X, X, 0.7)
    beta = np.linalg.solve(Kx + lam * np.eye(N), rbf(X, xq, 0.7))
    RYY_inv = np.linalg.inv(R[:N, :N])
    m_mu = R[:, :N] @ RYY_inv @ rbf(Y, Y, ly) @ beta  # (L, q)
    F = rbf(xq, xq, 0.7)
    G = rbf(xq, X, 0.7) @ beta
    Sm = R[:, :N] @ RYY_inv @ R[:N, :]
    C_mu = np.kron(F, R) - np.kron(G, Sm)
    Kinv = np.linalg.inv(rbf(xi, xi, ly))

    def sample(mean, cov, n):
        w, V = np.linalg.eigh(0.5 * (cov + cov.T))
        return mean + (rng.normal(size=(n, len(mean))) * np.sqrt(np.maximum(w, 0))) @ V.T

    f = sample(m_f, S_f, n_mc)  # (n, L)
    mu = sample(m_mu.T.ravel(), C_mu, n_mc).reshape(n_mc, q, L)
    return np.einsum("nl,lk,nqk->nq", f, Kinv, mu)


def test_bayesimp_mean_and_covariance_match_monte_carlo():
    rng = np.random.default_rng(2)
    N, M = 15, 12
    X = np.linspace(-2, 2, N)[:, None]
    Y = 1.2 * X + 0.1 * rng.normal(size=(N, 1))
    Y2 = np.linspace(-2.5, 2.5, M)[:, None] + 0.05
    T = np.sin(Y2[:, 0]) + 0.1 * rng.normal(size=M)
    xq = np.array([[-1.0], [0.2], [1.5]])
    model = BayesIMP("bayesimp", **dict(FIXED, lengthscale_y=0.3)).fit(X, Y, Y2, T)
    pred = model.predict(xq, return_cov=True)
    g = _moments_by_monte_carlo(model, X, Y, Y2, T, xq, 40000, rng)
    n = g.shape[0]
    se_mean = g.std(0) / np.sqrt(n)
    assert np.all(np.abs(g.mean(0) - pred.mean) < 4 * se_mean)
    c = g - g.mean(0)
    prods = c[:, :, None] * c[:, None, :]
    se_cov = prods.std(0) / np.sqrt(n)
    assert np.all(np.abs(prods.mean(0) - pred.cov) < 4 * se_cov)
    assert set(pred.components) == {"D1", "D2", "interaction"}
    np.testing.assert_allclose(sum(pred.components.values()), pred.cov)


def test_imp_credible_intervals_are_calibrated_when_the_model_is_right():
    """f drawn from the GP prior of IMP, t = f(y~) + noise; truth g(x) = sum_i beta_i(x) f(y_i)."""
    rng = np.random.default_rng(3)
    X, Z, Y, Y2, T = _data(rng, N=30, M=20)
    xq = np.linspace(-2, 2, 9)[:, None]
    b = _beta(X, Z, None, xq)
    allY = np.vstack([Y, Y2])
    Lc = np.linalg.cholesky(1.2 * rbf(allY, allY, 0.5) + 1e-9 * np.eye(len(allY)))
    hits = []
    for _ in range(200):
        f = Lc @ rng.normal(size=len(allY))
        t = f[30:] + np.sqrt(0.05) * rng.normal(size=20)
        p = BayesIMP("imp", **FIXED).fit(X, Y, Y2, t).predict(xq, return_cov=True)
        hits.append(np.abs(b.T @ f[:30] - p.mean) <= 1.959964 * p.std)
    assert abs(np.mean(hits) - 0.95) < 0.03


@pytest.mark.parametrize("method", ["imp", "bayesime", "bayesimp"])
@pytest.mark.parametrize("adjustment", [None, "backdoor", "frontdoor"])
def test_covariances_are_positive_semidefinite_and_consistent(method, adjustment):
    rng = np.random.default_rng(4)
    X, Z, Y, Y2, T = _data(rng, N=30, M=20, confounded=adjustment is not None)
    xq = np.linspace(-2.5, 2.5, 8)[:, None]
    model = BayesIMP(method, adjustment, **FIXED).fit(X, Y, Y2, T, Z=None if adjustment is None else Z)
    p = model.predict(xq, return_cov=True)
    assert isinstance(p, InterventionalPrediction)
    assert np.linalg.eigvalsh(p.cov).min() > -1e-8 * np.abs(p.cov).max()
    np.testing.assert_allclose(model.cross_cov(xq, xq), p.cov, atol=1e-10)
    np.testing.assert_allclose(model.cross_cov(xq[:3], xq[3:]), p.cov[:3, 3:], atol=1e-10)
    prior = model.bo_prior()
    np.testing.assert_allclose(prior.kernel(xq), p.cov, atol=1e-10)
    np.testing.assert_allclose(prior.mean(xq), p.mean)


def test_bo_prior_plugs_into_a_scikit_learn_gp():
    rng = np.random.default_rng(5)
    X, Z, Y, Y2, T = _data(rng)
    prior = BayesIMP(**dict(FIXED, optimize=True)).fit(X, Y, Y2, T).bo_prior()
    x_int = np.array([[-1.0], [0.5]])
    t_int = prior.mean(x_int) + 0.3
    gp = GaussianProcessRegressor(prior.kernel + WhiteKernel(1e-3), optimizer=None)
    gp.fit(x_int, t_int - prior.mean(x_int))
    m = gp.predict(x_int) + prior.mean(x_int)
    np.testing.assert_allclose(m, t_int, atol=0.05)


def test_embedding_uncertainty_grows_away_from_the_treatments_of_d1():
    """Figure 4.5: BayesIME/BayesIMP are unsure where D1 has no treatments, IMP is not."""
    rng = np.random.default_rng(6)
    X, Z, Y, Y2, T = _data(rng, N=60, M=40)
    xq = np.array([[0.0], [4.0]])
    for method in ("bayesime", "bayesimp"):
        p = BayesIMP(method, **FIXED).fit(X, Y, Y2, T).predict(xq, return_cov=True)
        assert p.components["D1"][1, 1] > 3 * p.components["D1"][0, 0]
    imp = BayesIMP("imp", **FIXED).fit(X, Y, Y2, T).predict(xq, return_cov=True)
    assert imp.cov[1, 1] < imp.cov[0, 0]  # the ridge shrinks the embedding to zero far from D1


def test_bad_input_gets_clear_errors():
    rng = np.random.default_rng(7)
    X, Z, Y, Y2, T = _data(rng, N=20, M=15)
    with pytest.raises(ValueError, match="method must be one of"):
        BayesIMP("sampling").fit(X, Y, Y2, T)
    with pytest.raises(ValueError, match="adjustment must be None, 'backdoor' or 'frontdoor'"):
        BayesIMP(adjustment="sideways").fit(X, Y, Y2, T, Z=Z)
    with pytest.raises(ValueError, match="Y has 19 rows but X has 20"):
        BayesIMP().fit(X, Y[:19], Y2, T)
    with pytest.raises(ValueError, match="T has 14 rows but Y2 has 15"):
        BayesIMP().fit(X, Y, Y2, T[:14])
    with pytest.raises(ValueError, match="Z has 10 rows but X has 20"):
        BayesIMP(adjustment="backdoor").fit(X, Y, Y2, T, Z=Z[:10])
    with pytest.raises(ValueError, match="needs the adjustment variables Z"):
        BayesIMP(adjustment="frontdoor").fit(X, Y, Y2, T)
    with pytest.raises(ValueError, match="Z was given but adjustment=None"):
        BayesIMP().fit(X, Y, Y2, T, Z=Z)
    with pytest.raises(ValueError, match="Y2 has 2 columns but Y has 1"):
        BayesIMP().fit(X, Y, np.hstack([Y2, Y2]), T)
    Xn = X.copy()
    Xn[3, 0] = np.nan
    with pytest.raises(ValueError, match=r"X contains NaN or infinity \(row 3, column 0\)"):
        BayesIMP().fit(Xn, Y, Y2, T)
    with pytest.raises(ValueError, match="not fitted"):
        BayesIMP().predict(X)
    model = BayesIMP().fit(X, Y, Y2, T)
    with pytest.raises(ValueError, match="x has 2 columns but the treatment X had 1"):
        model.predict(np.zeros((2, 2)))


def test_regularization_by_bayesian_cme_marginal_likelihood():
    rng = np.random.default_rng(8)
    X, Z, Y, Y2, T = _data(rng, N=40, M=20)
    model = BayesIMP(**dict(FIXED, regularization="ml")).fit(X, Y, Y2, T)
    lam = model.regularization_
    assert 1e-8 <= lam <= 1.0
    K, Kyy, R = model.stage1_.K, rbf(Y, Y, 0.5), model._R[:40, :40]
    M = Kyy @ np.linalg.solve(R + 1e-10 * np.trace(R) / 40 * np.eye(40), Kyy)

    def nll(v):
        C = K + 40 * v * np.eye(40)
        return 0.5 * 40 * np.linalg.slogdet(C)[1] + 0.5 * np.trace(np.linalg.solve(C, M))

    assert nll(lam) <= min(nll(lam * 3), nll(lam / 3)) + 1e-6 * abs(nll(lam))
    with pytest.raises(ValueError, match="regularization must be a positive float or 'ml'"):
        BayesIMP(regularization="cv").fit(X, Y, Y2, T)

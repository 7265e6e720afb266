"""kexplain.embeddings: conditional mean embeddings (exact, Nystroem, weighted), their Bayesian
version with the nuclear dominant kernel, and RKHS-SHAP's observational games built on them."""

import numpy as np
import pytest
from scipy.integrate import dblquad, quad
from sklearn.gaussian_process.kernels import Matern
from sklearn.kernel_ridge import KernelRidge
from sklearn.utils.estimator_checks import parametrize_with_checks

import kexplain as kx
from kexplain.embeddings import (
    BayesianCME,
    ConditionalMeanEmbedding,
    ExactRidge,
    cme_log_marginal_likelihood,
    nuclear_dominant_rbf,
)
from kexplain.kernels import RBF


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    Y = np.column_stack([X[:, 0] + 0.1 * rng.normal(size=60), np.sin(X[:, 1])])
    return X, Y


def test_weights_are_the_ridge_formula(data):
    X, Y = data
    k = RBF([1.0, 0.7])
    cme = ConditionalMeanEmbedding(k, regularization=1e-2).fit(X, Y)
    Xn = X[:5] + 0.3
    beta = np.linalg.solve(k(X, X) + 60 * 1e-2 * np.eye(60), k(X, Xn))
    np.testing.assert_allclose(cme.weights(Xn), beta, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(cme.expectation(Xn, Y), beta.T @ Y, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(cme.predict(Xn), beta.T @ Y, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(cme.expectation(Xn, lambda y: y[:, 0] ** 2), beta.T @ Y[:, 0] ** 2, atol=1e-12)
    L = cme.target_kernel_(Y, Y)
    np.testing.assert_allclose(cme.inner_product(Xn, X[:3]), beta.T @ L @ cme.weights(X[:3]), atol=1e-12)
    np.testing.assert_allclose(cme.embedding(Xn, Y[:4]), beta.T @ L[:, :4], atol=1e-12)


def test_sample_weights_equal_repeated_rows(data):
    X, Y = data
    counts = np.arange(60) % 3 + 1
    k = RBF(1.0)
    a = ConditionalMeanEmbedding(k, k, regularization=1e-3).fit(X, Y, sample_weight=counts)
    b = ConditionalMeanEmbedding(k, k, regularization=1e-3).fit(np.repeat(X, counts, 0), np.repeat(Y, counts, 0))
    np.testing.assert_allclose(a.predict(X[:7] - 0.2), b.predict(X[:7] - 0.2), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(a.inner_product(X[:3]), b.inner_product(X[:3]), rtol=1e-8, atol=1e-10)


def test_nystroem_with_every_row_a_landmark_is_exact(data):
    X, Y = data
    exact = ConditionalMeanEmbedding(RBF(1.0), regularization=1e-2).fit(X, Y)
    nys = ConditionalMeanEmbedding(RBF(1.0), regularization=1e-2, approximation="nystroem", n_landmarks=500).fit(X, Y)
    np.testing.assert_allclose(nys.predict(X[:5]), exact.predict(X[:5]), rtol=1e-6, atol=1e-7)
    few = ConditionalMeanEmbedding(
        RBF(1.0), regularization=1e-2, approximation="nystroem", n_landmarks=20, random_state=0
    ).fit(X, Y)
    assert few.landmarks_.size == 20
    assert np.abs(few.predict(X[:5]) - exact.predict(X[:5])).max() < 0.1


def test_regularization_by_cross_validation_and_marginal_likelihood(data):
    X, Y = data
    cv = ConditionalMeanEmbedding(regularization="cv", grid=(1e-4, 1e-2, 10.0), random_state=0).fit(X, Y)
    assert cv.regularization_ in (1e-4, 1e-2, 10.0)
    assert cv.scores_[cv.regularization_] == min(cv.scores_.values())
    assert cv.regularization_ != 10.0  # a huge ridge shrinks every embedding to zero
    ml = ConditionalMeanEmbedding(regularization="marginal_likelihood").fit(X, Y)
    K, L = ml.kernel_(X, X), ml.target_kernel_(Y, Y)
    best = cme_log_marginal_likelihood(K, L, 60 * ml.regularization_)
    for f in (0.5, 2.0):
        assert best >= cme_log_marginal_likelihood(K, L, 60 * ml.regularization_ * f) - 1e-6


def test_log_marginal_likelihood_matches_the_matrix_normal_density():
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(6, 2))
    K = RBF(1.0)(Z)
    L = RBF(0.7)(Z + 0.5) + 1e-3 * np.eye(6)
    lam = 0.3
    # observations O = L with row covariance K + lam I and column covariance L: log N(vec O; 0, L (x) (K + lam I))
    cov = np.kron(L, K + lam * np.eye(6))
    o = L.reshape(-1, order="F")
    sign, logdet = np.linalg.slogdet(cov)
    full = -0.5 * (logdet + o @ np.linalg.solve(cov, o))
    ours = cme_log_marginal_likelihood(K, L, lam)
    const = -0.5 * 6 * np.linalg.slogdet(L)[1]  # terms that do not depend on lam
    assert ours + const == pytest.approx(full, rel=1e-9)


@pytest.mark.parametrize("bad", ["nan", "rows", "reg", "approx"])
def test_bad_input_is_refused(data, bad):
    X, Y = data
    if bad == "nan":
        Xb = X.copy()
        Xb[3, 1] = np.nan
        with pytest.raises(ValueError, match="NaN"):
            ConditionalMeanEmbedding().fit(Xb, Y)
    elif bad == "rows":
        with pytest.raises(ValueError, match="inconsistent numbers of samples"):
            ConditionalMeanEmbedding().fit(X, Y[:-1])
    elif bad == "reg":
        with pytest.raises(ValueError, match="regularization"):
            ConditionalMeanEmbedding(regularization=-1.0).fit(X, Y)
    else:
        with pytest.raises(ValueError, match="approximation"):
            ConditionalMeanEmbedding(approximation="rff").fit(X, Y)


@parametrize_with_checks([ConditionalMeanEmbedding(RBF(1.0), RBF(1.0), regularization=1e-3)])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


# -- the Bayesian CME ------------------------------------------------------------------------------
@pytest.mark.parametrize("a,b,ls,s", [(0.3, -1.1, 0.7, 1.3), (2.0, 2.5, 1.5, 0.6)])
def test_nuclear_dominant_rbf_matches_quadrature_1d(a, b, ls, s):
    def f(u):
        return np.exp(-((a - u) ** 2 + (u - b) ** 2) / (2 * ls**2) - u**2 / (2 * s**2))

    num = quad(f, -np.inf, np.inf, epsabs=1e-14, epsrel=1e-12)[0]
    assert nuclear_dominant_rbf([[a]], [[b]], ls, s)[0, 0] == pytest.approx(num, rel=1e-9)


def test_nuclear_dominant_rbf_matches_quadrature_2d():
    a, b, ls, s = np.array([0.4, -0.2]), np.array([-0.5, 0.9]), np.array([0.8, 1.3]), 1.1

    def f(u2, u1):
        u = np.array([u1, u2])
        return np.exp(-np.sum(((a - u) ** 2 + (u - b) ** 2) / (2 * ls**2)) - u @ u / (2 * s**2))

    num = dblquad(f, -12, 12, -12, 12, epsabs=1e-12, epsrel=1e-10)[0]
    assert nuclear_dominant_rbf(a[None], b[None], ls, s)[0, 0] == pytest.approx(num, rel=1e-7)


def test_bayesian_cme_posterior_is_gp_conditioning_on_the_kronecker_model():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(7, 1))
    Y = np.linspace(-2, 2, 7)[rng.permutation(7), None]  # spread out: R = r(Y, Y) well conditioned
    eta = 0.02
    b = BayesianCME(RBF(0.9), lengthscale=0.3, measure_scale=1.5, regularization=eta).fit(X, Y)
    Xs, Ys = rng.normal(size=(2, 1)), rng.normal(size=(3, 1))
    K, R = RBF(0.9)(X), b.nuclear_kernel(Y, Y)
    L = b.target_kernel(Y, Y)
    # vec over (x-row, y-column): prior k (x) r; observations O_ij = mu(x_i, y_j) + noise (lam I (x) R)
    lam = 7 * eta
    prior_oo = np.kron(K, R)
    noise = np.kron(lam * np.eye(7), R)
    cross = np.kron(RBF(0.9)(Xs, X), b.nuclear_kernel(Ys, Y))  # (2*3, 7*7)
    G = np.linalg.solve(prior_oo + noise, np.eye(49))
    mean = cross @ G @ L.reshape(-1)
    cov = np.kron(RBF(0.9)(Xs, Xs), b.nuclear_kernel(Ys, Ys)) - cross @ G @ cross.T
    m, C = b.predict(Xs, Ys, return_cov=True)
    assert np.linalg.cond(R) < 1e4
    np.testing.assert_allclose(m.reshape(-1), mean, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(C.reshape(6, 6), cov, rtol=1e-7, atol=1e-9)
    # the inner product with f = sum_j a_j l(., p_j) is the evaluation at the points p_j
    P, a = rng.normal(size=(4, 1)), rng.normal(size=4)
    em, ec = b.expectation(Xs, P, a, return_cov=True)
    pm, pc = b.predict(Xs, P, return_cov=True)
    np.testing.assert_allclose(em, pm @ a, atol=1e-10)
    np.testing.assert_allclose(ec, np.einsum("ajbk,j,k->ab", pc, a, a), atol=1e-10)


def test_bayesian_cme_marginal_likelihood_is_maximised():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 1))
    Y = np.sin(2 * X) + 0.1 * rng.normal(size=(40, 1))
    best = BayesianCME(lengthscale=0.5, regularization="marginal_likelihood").fit(X, Y)
    for f in (0.3, 3.0):
        other = BayesianCME(lengthscale=0.5, regularization=best.regularization_ * f).fit(X, Y)
        assert best.log_marginal_likelihood_ >= other.log_marginal_likelihood_ - 1e-6


# -- RKHS-SHAP's observational games on the toolkit ------------------------------------------------
def test_product_game_is_the_cme_of_the_absent_features():
    """v_x(S) = sum_l beta_l(x_S) f(x_S, R_l,not S), beta the toolkit's CME on the features in S."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(40, 3))
    model = KernelRidge(kernel="rbf", gamma=0.3, alpha=0.1).fit(X, X[:, 0] * X[:, 1])
    ex = kx.RKHSExplainer(model, cme_regularization=1e-2)
    S = np.array([True, False, True])
    Xe = X[:4] + 0.1
    v = ex.value_function(Xe)(S[None])[0, :, 0]
    ls = np.sqrt(1 / (2 * 0.3))
    cme = ConditionalMeanEmbedding(RBF(ls), regularization=1e-2).fit(X[:, S], X)
    beta = cme.weights(Xe[:, S])
    for p in range(4):
        H = X.copy()
        H[:, S] = Xe[p, S]
        assert v[p] == pytest.approx(beta[:, p] @ model.predict(H), rel=1e-10, abs=1e-12)
    direct = ExactRidge(RBF(ls)(X[:, S]), 40 * 1e-2).weights(RBF(ls)(X[:, S], Xe[:, S]))
    np.testing.assert_allclose(beta, direct, atol=1e-13)


# values of RKHSExplainer before its games moved onto kexplain.embeddings (same inputs below)
_LOCKED = {
    "exact": [[0.6362431604045743, -0.007475512000560391, -0.034819539608216946],
              [-0.4484689611571136, 0.10172075886720078, 0.29711911233308413]],
    "weighted": [[0.805652895289009, -0.08004478762725141, -0.07200813848788777],
                 [-0.5747927052012783, 0.20260890201442494, 0.3822065736080974]],
    # the Nystroem cases moved with issue #28: the CME system is factorised through QR without the
    # jitter of 1e-9 mean(diag) that dominated lam K_LL here; the weights now follow the documented
    # formula (tests/test_reliability_numerics.py checks them against 40-digit arithmetic); moved
    # again with issue #26's vectorised exponential: the RBF factors changed by at most 1 ulp and
    # this 12-landmark system (no jitter) amplifies that to 4.3e-8 (numpy's exp still gives the old
    # numbers exactly; the other cases here moved by less than 1e-12)
    "nystroem": [[0.7282369821997078, -0.07593288253632342, -0.05835599086758729],
                 [-0.503067219388033, 0.0871076661187766, 0.36633046331242763]],
    "generic": [[0.4020705811920309, 0.1667136404555296, 0.015792363961570435],
                [-0.278673455852008, 0.04781602988252016, 0.12875550086045673]],
    "generic_nystroem": [[1.0044626352480572, 0.0572718601039686, -0.41894713071430967],
                         [-0.6791127510729731, 0.2503949323968756, 0.3848266725956518]],
}  # fmt: skip


@pytest.mark.parametrize("case", list(_LOCKED))
def test_observational_values_unchanged_by_the_move(case):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 3))
    X[:, 1] += 0.6 * X[:, 0]
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2]
    w = np.linspace(0.5, 1.5, 30)
    if case.startswith("generic"):
        model = KernelRidge(kernel=Matern(length_scale=1.3, nu=1.5), alpha=0.1).fit(X, y)
    else:
        model = KernelRidge(kernel="rbf", gamma=0.4, alpha=0.1).fit(X, y)
    kw = {
        "exact": {},
        "weighted": dict(background_weights=w),
        "nystroem": dict(approximation="nystroem", n_landmarks=12),
        "generic": {},
        "generic_nystroem": dict(approximation="nystroem", n_landmarks=12, background_weights=w),
    }[case]
    v = kx.RKHSExplainer(model, **kw).explain(X[:2]).values
    np.testing.assert_allclose(v, np.array(_LOCKED[case]), rtol=0, atol=1e-12)

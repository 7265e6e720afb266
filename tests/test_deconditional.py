"""DeconditionalGPRegressor (CMP, S-CMP, VARCMP; Chau, Bouabid & Sejdinovic, 2021) against brute force."""

import warnings

import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel
from sklearn.utils.estimator_checks import parametrize_with_checks

from kexplain.embeddings.deconditional import DeconditionalGPRegressor
from kexplain.embeddings.gram import rbf


def _bagged(rng, sizes, d=2):
    centres = np.linspace(-2, 2, len(sizes))
    bags = [rng.normal(loc=c, scale=0.7, size=(n, d)) for c, n in zip(centres, sizes)]
    med = np.column_stack([centres, np.cos(centres)])
    return bags, med


def _naive_cmp(bags, med, tmed, z, ls, amp, noise, lsy, lam, Xq):
    """Thesis eqs. 3.1, 3.7, 3.8 with every bag covariate replicated (O(n^3))."""
    X = np.vstack(bags)
    yrep = np.repeat(med, [len(b) for b in bags], axis=0)
    n = X.shape[0]
    L = rbf(yrep, yrep, lsy)
    A = np.linalg.solve(L + n * lam * np.eye(n), rbf(yrep, tmed, lsy))
    K = rbf(X, X, ls, amp)
    C = A.T @ K @ A + noise * np.eye(len(z))
    H = rbf(Xq, X, ls, amp) @ A
    mean = H @ np.linalg.solve(C, z)
    cov = rbf(Xq, Xq, ls, amp) - H @ np.linalg.solve(C, H.T)
    return mean, cov


PARAMS = dict(lengthscale=0.9, amplitude=1.3, noise=0.05, mediator_lengthscale=1.1, optimize=False)


def test_one_point_bags_are_gp_regression():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(25, 2))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=25)
    Xq = rng.normal(size=(7, 2))
    gp = DeconditionalGPRegressor(**PARAMS).fit(X, y)
    ref = GaussianProcessRegressor(ConstantKernel(1.3, "fixed") * RBF(0.9, "fixed"), alpha=0.05, optimizer=None)
    ref.fit(X, y)
    m, c = gp.predict(Xq, return_cov=True)
    m0, c0 = ref.predict(Xq, return_cov=True)
    np.testing.assert_allclose(m, m0, atol=1e-10)
    np.testing.assert_allclose(c, c0, atol=1e-10)
    # the same through one-row bags given as a list
    m2 = DeconditionalGPRegressor(**PARAMS).fit([x[None] for x in X], y).predict(Xq)
    np.testing.assert_allclose(m2, m0, atol=1e-10)


@pytest.mark.parametrize("indirect", [False, True])
def test_bag_level_exact_equals_naive_replicated_form(indirect):
    rng = np.random.default_rng(1)
    bags, med = _bagged(rng, [3, 7, 4, 9, 5, 6])
    tmed = rng.normal(size=(4, 2)) if indirect else med
    z = rng.normal(size=len(tmed))
    Xq = rng.normal(size=(5, 2))
    gp = DeconditionalGPRegressor(regularization=1e-2, **PARAMS)
    gp.fit(bags, z, mediator=med, target_mediator=tmed if indirect else None)
    m, c = gp.predict(Xq, return_cov=True)
    m0, c0 = _naive_cmp(bags, med, tmed, z, 0.9, 1.3, 0.05, 1.1, 1e-2, Xq)
    np.testing.assert_allclose(m, m0, atol=1e-9)
    np.testing.assert_allclose(c, c0, atol=1e-9)
    _, s = gp.predict(Xq, return_std=True)
    np.testing.assert_allclose(s, np.sqrt(np.diag(c0)), atol=1e-8)


def test_cmp_mean_is_the_deconditional_mean_embedding_estimator():
    """Eq. 3.2 (Hsu & Ramos, 2019) with noise sigma^2 = M epsilon."""
    rng = np.random.default_rng(2)
    bags, med = _bagged(rng, [5, 5, 6, 4, 5])
    tmed = rng.normal(size=(6, 2))
    z = rng.normal(size=6)
    Xq = rng.normal(size=(4, 2))
    eps, lam = 0.02, 1e-2
    X = np.vstack(bags)
    yrep = np.repeat(med, [len(b) for b in bags], axis=0)
    N, M = X.shape[0], len(z)
    A = np.linalg.solve(rbf(yrep, yrep, 1.1) + N * lam * np.eye(N), rbf(yrep, tmed, 1.1))
    K = rbf(X, X, 0.9)
    dme = rbf(Xq, X, 0.9) @ A @ np.linalg.solve(A.T @ K @ A + M * eps * np.eye(M), z)
    p = dict(PARAMS, amplitude=1.0, noise=M * eps)
    gp = DeconditionalGPRegressor(regularization=lam, **p).fit(bags, z, mediator=med, target_mediator=tmed)
    np.testing.assert_allclose(gp.predict(Xq), dme, atol=1e-10)


def test_equal_bag_sizes_exact_equals_shrinkage():
    rng = np.random.default_rng(3)
    bags, med = _bagged(rng, [6] * 7)
    tmed = rng.normal(size=(5, 2))
    z = rng.normal(size=5)
    Xq = rng.normal(size=(4, 2))
    out = []
    for est in ("exact", "shrinkage"):
        gp = DeconditionalGPRegressor(est, regularization=1e-2, **PARAMS)
        out.append(gp.fit(bags, z, mediator=med, target_mediator=tmed).predict(Xq, return_cov=True))
    np.testing.assert_allclose(out[0][0], out[1][0], atol=1e-10)
    np.testing.assert_allclose(out[0][1], out[1][1], atol=1e-10)
    # with unequal sizes the two estimators differ
    bags2, _ = _bagged(rng, [2, 9, 3, 8, 4, 6, 5])
    a, b = (
        DeconditionalGPRegressor(e, regularization=1e-2, **PARAMS).fit(bags2, z, mediator=med, target_mediator=tmed)
        for e in ("exact", "shrinkage")
    )
    assert np.abs(a.predict(Xq) - b.predict(Xq)).max() > 1e-6


def test_variational_with_every_input_inducing_equals_exact():
    rng = np.random.default_rng(4)
    bags, med = _bagged(rng, [3, 4, 2, 5, 3])
    z = rng.normal(size=5)
    Xq = rng.normal(size=(4, 2))
    p = dict(PARAMS, lengthscale=0.6)
    ex = DeconditionalGPRegressor("exact", regularization=1e-2, **p).fit(bags, z, mediator=med)
    va = DeconditionalGPRegressor("variational", regularization=1e-2, n_inducing=100, **p).fit(bags, z, mediator=med)
    assert va.inducing_points_.shape[0] == 17
    m0, c0 = ex.predict(Xq, return_cov=True)
    m1, c1 = va.predict(Xq, return_cov=True)
    np.testing.assert_allclose(m1, m0, atol=1e-6)
    np.testing.assert_allclose(c1, c0, atol=1e-6)
    np.testing.assert_allclose(va.log_marginal_likelihood_value_, ex.log_marginal_likelihood_value_, atol=1e-6)
    # the uncollapsed ELBO (A.70) at the optimal q is the collapsed bound; any other q is lower
    assert va.elbo() == pytest.approx(va.log_marginal_likelihood_value_, abs=1e-8)
    assert va.elbo(q_mean=va.q_mean_ + 0.1) < va.elbo()
    assert va.elbo(q_cov=va.q_cov_ * 1.5) < va.elbo()


def test_fewer_inducing_points_give_a_lower_bound():
    rng = np.random.default_rng(5)
    bags, med = _bagged(rng, [6, 7, 5, 8, 6, 7])
    z = rng.normal(size=6)
    ex = DeconditionalGPRegressor("exact", **PARAMS).fit(bags, z, mediator=med)
    va = DeconditionalGPRegressor("variational", n_inducing=6, random_state=0, **PARAMS).fit(bags, z, mediator=med)
    assert va.log_marginal_likelihood_value_ <= ex.log_marginal_likelihood_value_ + 1e-9


def test_marginal_likelihood_optimisation_improves_the_evidence():
    rng = np.random.default_rng(6)
    bags, med = _bagged(rng, [10] * 8, d=1)
    z = np.array([np.sin(2 * b).mean() for b in bags]) + 0.01 * rng.normal(size=8)
    fixed = DeconditionalGPRegressor(**PARAMS).fit(bags, z, mediator=med)
    fitted = DeconditionalGPRegressor(**dict(PARAMS, optimize=True)).fit(bags, z, mediator=med)
    assert fitted.log_marginal_likelihood_value_ > fixed.log_marginal_likelihood_value_
    assert fitted.noise_ != 0.05
    learnt = DeconditionalGPRegressor(**dict(PARAMS, optimize=True, regularization="ml")).fit(bags, z, mediator=med)
    assert learnt.log_marginal_likelihood_value_ >= fitted.log_marginal_likelihood_value_ - 1e-6
    assert learnt.regularization_ != 1e-3 and fitted.regularization_ == 1e-3


@pytest.mark.slow
def test_credible_intervals_are_calibrated_when_the_model_is_right():
    """f drawn from the GP prior, z = A^T f(x) + noise with the model's own CMO: 95% coverage."""
    rng = np.random.default_rng(7)
    bags, med = _bagged(rng, [4, 6, 5, 7, 3, 5, 6, 4], d=1)
    X = np.vstack(bags)
    Xq = np.linspace(-3, 3, 15)[:, None]
    gp = DeconditionalGPRegressor(regularization=1e-2, **PARAMS)
    gp.fit(bags, np.zeros(8), mediator=med)
    A = np.zeros((X.shape[0], 8))
    starts = np.concatenate([[0], np.cumsum([len(b) for b in bags])])
    for j in range(8):
        A[starts[j] : starts[j + 1]] = gp._G_[j]
    allx = np.vstack([X, Xq])
    Lc = np.linalg.cholesky(rbf(allx, allx, 0.9, 1.3) + 1e-9 * np.eye(len(allx)))
    hits = []
    for _ in range(300):
        f = Lc @ rng.normal(size=len(allx))
        z = A.T @ f[: len(X)] + np.sqrt(0.05) * rng.normal(size=8)
        gp.fit(bags, z, mediator=med)
        m, s = gp.predict(Xq, return_std=True)
        hits.append(np.abs(f[len(X) :] - m) <= 1.959964 * s)
    assert abs(np.mean(hits) - 0.95) < 0.02


def test_bad_input_gets_clear_errors():
    rng = np.random.default_rng(8)
    bags, med = _bagged(rng, [3, 4, 5])
    z = rng.normal(size=3)
    gp = DeconditionalGPRegressor(**PARAMS)
    with pytest.raises(ValueError, match="X: bag 1 has 3 features but bag 0 has 2"):
        gp.fit([bags[0], rng.normal(size=(4, 3)), bags[2]], z)
    with pytest.raises(ValueError, match="X: bag 1 is empty"):
        gp.fit([bags[0], np.zeros((0, 2)), bags[2]], z)
    bad = [b.copy() for b in bags]
    bad[2][1, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        gp.fit(bad, z)
    with pytest.raises(ValueError, match="y contains NaN"):
        gp.fit(bags, np.array([0.0, np.nan, 1.0]))
    with pytest.raises(ValueError, match="y has 4 targets but there are 3 bags"):
        gp.fit(bags, np.zeros(4))
    with pytest.raises(ValueError, match="mediator has 2 rows but there are 3 bags"):
        gp.fit(bags, z, mediator=med[:2])
    with pytest.raises(ValueError, match=r"mediator contains NaN or infinity \(row 0, column 1\)"):
        gp.fit(bags, z, mediator=np.array([[0.0, np.nan], [1, 1], [2, 2]]))
    with pytest.raises(ValueError, match="target_mediator has 2 rows but there are 3 targets in y"):
        gp.fit(bags, z, mediator=med, target_mediator=med[:2])
    with pytest.raises(ValueError, match="target_mediator .* requires mediator"):
        gp.fit(bags, z, target_mediator=med)
    with pytest.raises(ValueError, match="bags has 5 labels but X has 12 rows"):
        gp.fit(np.vstack(bags), z, bags=np.arange(5))
    with pytest.raises(ValueError, match="regularization must be a float >= 0 or 'ml'"):
        DeconditionalGPRegressor(regularization="cv").fit(bags, z)
    with pytest.raises(ValueError, match="estimator must be one of"):
        DeconditionalGPRegressor("full").fit(bags, z)
    gp.fit(bags, z)
    with pytest.raises(ValueError, match="return_std and return_cov"):
        gp.predict(bags[0], return_std=True, return_cov=True)
    with pytest.raises(ValueError, match="elbo is defined for estimator='variational' only"):
        gp.elbo()


def test_bag_labels_and_list_of_bags_agree():
    rng = np.random.default_rng(9)
    bags, med = _bagged(rng, [3, 4, 5])
    z = rng.normal(size=3)
    labels = np.concatenate([np.full(len(b), lab) for b, lab in zip(bags, ["a", "b", "c"])])
    perm = rng.permutation(len(labels))
    X = np.vstack(bags)[perm]
    a = DeconditionalGPRegressor(**PARAMS).fit(bags, z, mediator=med).predict(bags[0])
    b = DeconditionalGPRegressor(**PARAMS).fit(X, z, bags=labels[perm], mediator=med).predict(bags[0])
    np.testing.assert_allclose(a, b, atol=1e-10)


@pytest.mark.slow
@parametrize_with_checks([DeconditionalGPRegressor(optimize=False)])
def test_sklearn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(estimator)


@pytest.mark.parametrize("estimator", ["exact", "shrinkage"])
@pytest.mark.parametrize("lengthscale,reg", [(1.0, 1e-3), ([0.8, 1.3], 1e-3), ([0.8, 1.3], "ml")])
def test_marginal_likelihood_gradient_matches_finite_differences(estimator, lengthscale, reg):
    from scipy.optimize import approx_fprime

    rng = np.random.default_rng(10)
    bags, med = _bagged(rng, [4, 6, 5, 3, 7])
    z = rng.normal(size=5)
    gp = DeconditionalGPRegressor(estimator, regularization=reg, **dict(PARAMS, lengthscale=lengthscale))
    gp.fit(bags, z, mediator=med)
    gp._cache = {}
    theta = gp.theta_ + 0.05
    f, g = gp._objective_grad(theta)
    assert f == pytest.approx(gp._objective(theta))
    np.testing.assert_allclose(g, approx_fprime(theta, gp._objective, 1e-6), atol=2e-5)

"""Exact Sobol indices and Shapley effects (kexplain.sensitivity) against brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.stats as st
from scipy import integrate
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF as SkRBF
from sklearn.gaussian_process.kernels import ConstantKernel, WhiteKernel
from sklearn.kernel_ridge import KernelRidge
from sklearn.svm import SVR

import kexplain as kx
from kexplain.sensitivity import SensitivityAnalysis, sobol_indices
from kexplain.sensitivity._tables import Marginal, RowGroup, closed_form_tables


# ----------------------------------------------------------------------------- brute force
def grid_closed_variances(predict, Z, w):
    """V_S for every coalition S, by averaging over the full grid of the product of the weighted
    empirical marginals of the columns of Z (B^d points)."""
    B, d = Z.shape
    idx = np.array(list(itertools.product(range(B), repeat=d)))  # (B^d, d)
    grid = Z[idx, np.arange(d)]
    f = predict(grid).reshape((B,) * d)
    W = np.ones((B,) * d)
    for j in range(d):
        shape = [1] * d
        shape[j] = B
        W = W * w.reshape(shape)
    mean = float((W * f).sum())
    out = {}
    for S in itertools.product([False, True], repeat=d):
        S = np.array(S)
        absent = tuple(int(j) for j in np.flatnonzero(~S))
        wa = np.ones((B,) * d)
        for j in absent:
            shape = [1] * d
            shape[j] = B
            wa = wa * w.reshape(shape)
        g = (wa * f).sum(axis=absent, keepdims=True)  # E[f | X_S] on the S-grid
        ws = W.sum(axis=absent, keepdims=True)
        out[tuple(S)] = float((ws * g**2).sum() - mean**2)
    return out


def enumerate_shapley(V, d):
    def v(coalitions):
        return np.array([V[tuple(bool(x) for x in c)] for c in coalitions])

    return kx.exact_shapley(v, d).values


def fitted_models(rng, d):
    X = rng.normal(size=(30, d))
    y = np.sin(2 * X[:, 0]) + X[:, 1] * X[:, -1] + 0.3 * X[:, 0] ** 2
    ls = 0.7 + 0.3 * np.arange(d)
    return X, {
        "svr": SVR(gamma=0.4, C=3.0).fit(X, y),
        "krr": KernelRidge(kernel="rbf", gamma=0.3, alpha=0.2).fit(X, y),
        "gpr": GaussianProcessRegressor(
            ConstantKernel(1.5) * SkRBF(ls), alpha=0.05, optimizer=None, normalize_y=True
        ).fit(X, y),
        "laplacian": KernelRidge(kernel="laplacian", gamma=0.3, alpha=0.5).fit(X, y),
    }


# ----------------------------------------------------------------------------- exactness
@pytest.mark.parametrize("name", ["svr", "krr", "gpr", "laplacian"])
@pytest.mark.parametrize("d,B,weighted", [(3, 5, False), (4, 4, True), (5, 3, False)])
def test_closed_indices_and_shapley_effects_match_grid_enumeration(name, d, B, weighted):
    rng = np.random.default_rng(d * 10 + B)
    X, models = fitted_models(rng, d)
    model = models[name]
    Z = rng.normal(size=(B, d))
    w = rng.uniform(0.2, 1.0, size=B) if weighted else np.full(B, 1.0 / B)
    w = w / w.sum()
    V = grid_closed_variances(model.predict, Z, w)
    sa = SensitivityAnalysis(model, background=Z, background_weights=w if weighted else None)
    full = tuple([True] * d)
    scale = abs(V[full])
    assert scale > 1e-6
    assert sa.variance == pytest.approx(V[full], rel=1e-10)
    for S, v in V.items():
        mask = [j for j in range(d) if S[j]]
        if mask:
            got = sa.closed_index([mask], normalized=False)[0]
            assert abs(got - v) <= 1e-10 * scale
    first = sa.first_order(normalized=False)
    total = sa.total_order(normalized=False)
    for j in range(d):
        single = tuple(k == j for k in range(d))
        others = tuple(k != j for k in range(d))
        assert abs(first[j] - V[single]) <= 1e-10 * scale
        assert abs(total[j] - (V[full] - V[others])) <= 1e-10 * scale
    pairs = [(0, 1), (1, d - 1)]
    second = sa.second_order(pairs, normalized=False)
    for (j, k), s2 in zip(pairs, second):
        both = tuple(i in (j, k) for i in range(d))
        expect = V[both] - V[tuple(i == j for i in range(d))] - V[tuple(i == k for i in range(d))]
        assert abs(s2 - expect) <= 1e-10 * scale
    phi = sa.shapley_values()
    ref = enumerate_shapley(V, d)
    np.testing.assert_allclose(phi, ref, rtol=0, atol=1e-10 * scale)


def test_sum_kernel_expansion_term_by_term():
    """A mixture (SumKernel) expansion: every pair of terms, cross terms included."""
    rng = np.random.default_rng(3)
    d, B = 3, 4
    k = kx.kernels.SumKernel([kx.kernels.RBF([0.7, 1.0, 1.5]), 0.5 * kx.kernels.RBF(2.0), kx.kernels.Laplacian(1.2)])
    em = kx.KernelExpansion(rng.normal(size=(6, d)), rng.normal(size=6), k, intercept=0.3)
    Z = rng.normal(size=(B, d))
    w = np.full(B, 1.0 / B)
    V = grid_closed_variances(em.predict, Z, w)
    sa = SensitivityAnalysis(em, background=Z)
    scale = V[(True,) * d]
    np.testing.assert_allclose(sa.shapley_values(), enumerate_shapley(V, d), atol=1e-10 * scale, rtol=0)
    assert sa.variance == pytest.approx(scale, rel=1e-10)


def test_categorical_feature_with_background():
    rng = np.random.default_rng(4)
    d, B = 3, 4
    k = kx.kernels.ProductKernel([kx.kernels.RBF(1.0), kx.kernels.Categorical(0.3), kx.kernels.RBF(0.8)])
    Xr = np.empty((5, 3), dtype=object)
    Xr[:, 0] = rng.normal(size=5)
    Xr[:, 1] = rng.choice(["a", "b", "c"], size=5)
    Xr[:, 2] = rng.normal(size=5)
    em = kx.KernelExpansion(Xr, rng.normal(size=5), k)
    Z = np.empty((B, 3), dtype=object)
    Z[:, 0] = rng.normal(size=B)
    Z[:, 1] = ["a", "b", "a", "c"]
    Z[:, 2] = rng.normal(size=B)
    V = grid_closed_variances(em.predict, Z, np.full(B, 1.0 / B))
    sa = SensitivityAnalysis(em, background=Z)
    scale = V[(True,) * d]
    np.testing.assert_allclose(sa.shapley_values(), enumerate_shapley(V, d), atol=1e-10 * scale, rtol=0)


def test_multi_output_needs_an_output_and_matches_single():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(8, 2))
    coef = rng.normal(size=(8, 2))
    em = kx.KernelExpansion(X, coef, kx.kernels.RBF(1.0))
    with pytest.raises(ValueError, match="output"):
        SensitivityAnalysis(em, background=X)
    one = kx.KernelExpansion(X, coef[:, 1], kx.kernels.RBF(1.0))
    a = SensitivityAnalysis(em, background=X, output=1)
    b = SensitivityAnalysis(one, background=X)
    np.testing.assert_allclose(a.shapley_values(), b.shapley_values(), rtol=1e-12)
    assert "output" in a.output


# ----------------------------------------------------------------------------- properties
@pytest.mark.parametrize("seed", range(4))
def test_index_inequalities(seed):
    rng = np.random.default_rng(seed)
    d = 5
    X = rng.uniform(-2, 2, size=(60, d))
    y = X[:, 0] * X[:, 1] + np.sin(X[:, 2]) + 0.1 * rng.normal(size=60)
    model = KernelRidge(kernel="rbf", gamma=0.4, alpha=0.1).fit(X, y)
    g = sobol_indices(model, background=X[:40], pairs=[(0, 1)], subsets=[[0, 1, 2]])
    assert g.first_order_sobol.sum() <= 1 + 1e-12
    assert np.all(g.total_sobol >= g.first_order_sobol - 1e-12)
    assert np.all(g.first_order_sobol >= -1e-12)
    assert g.shapley_effect.sum() == pytest.approx(1.0, abs=1e-10)
    assert g.values.sum() == pytest.approx(g.total, rel=1e-10)
    # Shapley effects lie between first-order and total indices (Owen, 2014)
    assert np.all(g.shapley_effect >= g.first_order_sobol - 1e-10)
    assert np.all(g.shapley_effect <= g.total_sobol + 1e-10)
    assert g.info["second_order"][(0, 1)] > 0.05  # the x0 * x1 interaction
    assert 0 < g.info["closed"][(0, 1, 2)] <= 1 + 1e-12


def test_model_variance_is_the_sample_variance_over_the_product_measure():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(40, 3))
    model = SVR().fit(X, X[:, 0] + X[:, 1] ** 2)
    sa = SensitivityAnalysis(model, background=X)
    # Monte Carlo over the product of the empirical marginals (independent column draws)
    idx = rng.integers(0, 40, size=(200_000, 3))
    f = model.predict(X[idx, np.arange(3)])
    assert sa.variance == pytest.approx(f.var(), rel=0.02)


# ----------------------------------------------------------------------------- closed forms
@pytest.mark.parametrize("marg", [Marginal("normal", 0.3, 0.8), Marginal("uniform", -1.0, 2.0)])
def test_closed_form_expectations_against_quadrature(marg):
    def density(x):
        if marg.kind == "normal":
            return np.exp(-0.5 * ((x - marg.a) / marg.b) ** 2) / (marg.b * np.sqrt(2 * np.pi))
        return 1.0 / (marg.b - marg.a)

    lo, hi = (marg.a - 12 * marg.b, marg.a + 12 * marg.b) if marg.kind == "normal" else (marg.a, marg.b)
    for L, c in [(0.5, 0.1), (1.3, -2.0), (0.2, 1.7)]:
        got = float(marg.gauss_mean(np.asarray(L), np.asarray(c)))
        ref = integrate.quad(
            lambda x, c=c, L=L: np.exp(-((x - c) ** 2) / (2 * L * L)) * density(x), lo, hi, points=[c]
        )[0]
        assert got == pytest.approx(ref, rel=1e-9, abs=1e-14)
        # E_{X, X'} k(X, X'): the inner expectation by quadrature too (nested, no closed form used)
        if L != 0.5:
            continue
        got = marg.prior_mean(L)

        def inner(y, L=L):
            return integrate.quad(lambda x: np.exp(-((x - y) ** 2) / (2 * L * L)) * density(x), lo, hi, points=[y])[0]

        ref = integrate.quad(lambda y: inner(y) * density(y), lo, hi, limit=100)[0]
        assert got == pytest.approx(ref, rel=1e-7)


@pytest.mark.slow
def test_closed_form_tables_cross_lengthscales_against_quadrature():
    rng = np.random.default_rng(7)
    groups = [
        RowGroup(kx.kernels.RBF([0.6, 1.1]), rng.normal(size=(3, 2))),
        RowGroup(kx.kernels.RBF([1.4, 0.5]), rng.normal(size=(2, 2))),
        RowGroup(None, np.zeros((1, 2))),
    ]
    margs = [Marginal("normal", 0.2, 1.3), Marginal("uniform", -1.5, 0.5)]
    tab = closed_form_tables(groups, margs, prior=True)
    dens = [st.norm(0.2, 1.3).pdf, st.uniform(-1.5, 2.0).pdf]
    lims = [(0.2 - 15, 0.2 + 15), (-1.5, 0.5)]

    def factor(g, i, j, x):
        if g.term is None:
            return 1.0
        return float(g.term.feature_values(np.array([[x, x]]), g.Y[i : i + 1])[0, 0, j])

    rows = [(g, i) for g in groups for i in range(g.n_rows)]
    for j in range(2):
        for r, (g1, i1) in enumerate(rows):
            ref = integrate.quad(lambda x, g1=g1, i1=i1, j=j: factor(g1, i1, j, x) * dens[j](x), *lims[j])[0]
            assert tab.m[r, j] == pytest.approx(ref, rel=1e-8, abs=1e-13)
            for s, (g2, i2) in enumerate(rows):
                ref = integrate.quad(lambda x: factor(g1, i1, j, x) * factor(g2, i2, j, x) * dens[j](x), *lims[j])[0]  # noqa: B023
                assert tab.A[r, s, j] == pytest.approx(ref, rel=1e-8, abs=1e-13)


def test_distributions_match_a_large_sample():
    """Closed-form marginals against the empirical marginals of a large sample (same model)."""
    rng = np.random.default_rng(8)
    em = kx.KernelExpansion(rng.normal(size=(10, 3)), rng.normal(size=10), kx.kernels.RBF([0.8, 1.0, 1.5]))
    dists = [st.norm(0.5, 1.0), st.uniform(-1, 2), st.norm(-0.2, 0.5)]
    exact = SensitivityAnalysis(em, distributions=dists)
    # the closed form is the limit of the empirical one: a stratified sample of each marginal
    u = (np.arange(4000) + 0.5) / 4000
    Z = np.column_stack([d.ppf(u) for d in dists])
    emp = SensitivityAnalysis(em, background=Z)
    np.testing.assert_allclose(exact.shapley_values(), emp.shapley_values(), rtol=2e-3, atol=1e-4 * exact.variance)
    mvn = SensitivityAnalysis(em, distributions=[st.norm(0.5, 1.0)] * 3)
    via_mvn = SensitivityAnalysis(em, distributions=st.multivariate_normal([0.5] * 3, np.eye(3)))
    np.testing.assert_allclose(mvn.shapley_values(), via_mvn.shapley_values(), rtol=1e-12)


# ----------------------------------------------------------------------------- SALib
@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # x3 is irrelevant: huge lengthscale
def test_salib_estimates_cover_the_exact_indices():
    SALib = pytest.importorskip("SALib")  # noqa: F841
    from SALib.analyze import sobol as sobol_analyze
    from SALib.sample import sobol as sobol_sample

    rng = np.random.default_rng(9)
    d = 4
    X = rng.uniform(-np.pi, np.pi, size=(150, d))
    y = np.sin(X[:, 0]) + 5 * np.sin(X[:, 1]) ** 2 + 0.1 * X[:, 2] ** 4 * np.sin(X[:, 0])
    gpr = GaussianProcessRegressor(ConstantKernel(10.0) * SkRBF([1.0] * d), alpha=1e-4, normalize_y=True).fit(X, y)
    sa = SensitivityAnalysis(gpr, distributions=[st.uniform(-np.pi, 2 * np.pi)] * d)
    problem = {"num_vars": d, "names": [f"x{j}" for j in range(d)], "bounds": [[-np.pi, np.pi]] * d}
    P = sobol_sample.sample(problem, 2**13, calc_second_order=False, seed=1)
    Si = sobol_analyze.analyze(problem, gpr.predict(P), calc_second_order=False, seed=2)
    first, total = sa.first_order(), sa.total_order()
    # SALib's 95% bootstrap intervals (widened by 1.5 for the 8 simultaneous comparisons)
    assert np.all(np.abs(Si["S1"] - first) <= 1.5 * Si["S1_conf"] + 1e-3)
    assert np.all(np.abs(Si["ST"] - total) <= 1.5 * Si["ST_conf"] + 1e-3)


# ----------------------------------------------------------------------------- bad input
def test_bad_input_is_refused_clearly():
    rng = np.random.default_rng(10)
    X = rng.normal(size=(20, 2))
    krr = KernelRidge(kernel="rbf").fit(X, X[:, 0])
    with pytest.raises(ValueError, match="dependent"):
        SensitivityAnalysis(krr, distributions=st.multivariate_normal([0, 0], [[1.0, 0.5], [0.5, 1.0]]))
    with pytest.raises(ValueError, match="exactly one"):
        SensitivityAnalysis(krr)
    with pytest.raises(ValueError, match="exactly one"):
        SensitivityAnalysis(krr, background=X, distributions=[st.norm()] * 2)
    with pytest.raises(ValueError, match=r"distributions\[1\].*not supported"):
        SensitivityAnalysis(krr, distributions=[st.norm(), st.expon()])
    with pytest.raises(ValueError, match="distributions has 1 entries"):
        SensitivityAnalysis(krr, distributions=[st.norm()])
    lap = KernelRidge(kernel="laplacian").fit(X, X[:, 0])
    with pytest.raises(ValueError, match="RBF factors only"):
        SensitivityAnalysis(lap, distributions=[st.norm()] * 2)
    with pytest.raises(ValueError, match="target"):
        SensitivityAnalysis(krr, background=X, target="variance")
    with pytest.raises(kx.UnsupportedModelError, match="posterior"):
        SensitivityAnalysis(krr, background=X, target="posterior_expectation")
    with pytest.raises(kx.UnsupportedModelError):
        SensitivityAnalysis(object(), background=X)
    sa = SensitivityAnalysis(krr, background=X)
    with pytest.raises(ValueError, match="subsets"):
        sa.closed_index([[5]])
    with pytest.raises(ValueError, match="pair"):
        sa.second_order([(0, 0)])
    with pytest.raises(ValueError, match="background"):
        SensitivityAnalysis(krr, background=X[:, :1])


# ----------------------------------------------------------------------------- GP posterior expectation
def grid_quadratic_forms(Z, w):
    """Grid points and, for every coalition S, the matrix Q_S with V_S(f) = f^T Q_S f on the grid."""
    B, d = Z.shape
    idx = np.array(list(itertools.product(range(B), repeat=d)))
    grid = Z[idx, np.arange(d)]
    W = np.prod(w[idx], axis=1)
    out = {}
    for S in itertools.product([False, True], repeat=d):
        S = np.array(S)
        same = np.all(idx[:, None, S] == idx[None, :, S], axis=-1)
        K = same * np.prod(w[idx[:, ~S]], axis=1)[None, :]
        out[tuple(S)] = K.T @ (W[:, None] * K) - np.outer(W, W)
    return grid, out


@pytest.mark.parametrize("constant", [False, True])
def test_posterior_expectation_matches_the_trace_formula_on_the_grid(constant):
    rng = np.random.default_rng(11)
    d, B = 3, 4
    X = rng.normal(size=(15, d))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2]
    kern = ConstantKernel(2.0) * SkRBF([0.8, 1.2, 1.0]) + (ConstantKernel(0.7) if constant else 0 * ConstantKernel(1.0))
    if not constant:
        kern = ConstantKernel(2.0) * SkRBF([0.8, 1.2, 1.0])
    gpr = GaussianProcessRegressor(kern, alpha=0.1, optimizer=None, normalize_y=True).fit(X, y)
    Z = rng.normal(size=(B, d))
    w = np.full(B, 1.0 / B)
    grid, Q = grid_quadratic_forms(Z, w)
    post = kx.models.gp_posterior(gpr)
    mu, Sigma = post.mean(grid), post.covariance(grid)
    expect = {S: float(mu @ q @ mu + np.trace(q @ Sigma)) for S, q in Q.items()}
    sa = SensitivityAnalysis(gpr, background=Z, target="posterior_expectation")
    full = (True,) * d
    scale = expect[full]
    assert sa.variance == pytest.approx(scale, rel=1e-9)
    np.testing.assert_allclose(sa.shapley_values(), enumerate_shapley(expect, d), atol=1e-9 * scale, rtol=0)
    np.testing.assert_allclose(
        sa.first_order(normalized=False), [expect[tuple(k == j for k in range(d))] for j in range(d)], atol=1e-9 * scale
    )
    # the expectation exceeds the posterior mean's variance (the posterior adds variance)
    assert sa.variance > SensitivityAnalysis(gpr, background=Z).variance


def test_posterior_expectation_closed_form_matches_many_samples():
    rng = np.random.default_rng(12)
    d = 2
    X = rng.uniform(-1, 1, size=(12, d))
    gpr = GaussianProcessRegressor(ConstantKernel(1.0) * SkRBF([0.6, 0.9]), alpha=0.05, optimizer=None).fit(
        X, X[:, 0] ** 2 - X[:, 1]
    )
    dists = [st.uniform(-1, 2), st.norm(0.0, 0.6)]
    exact = SensitivityAnalysis(gpr, distributions=dists, target="posterior_expectation")
    u = (np.arange(300) + 0.5) / 300
    Z = np.column_stack([dd.ppf(u) for dd in dists])
    emp = SensitivityAnalysis(gpr, background=Z, target="posterior_expectation")
    np.testing.assert_allclose(exact.shapley_values(), emp.shapley_values(), rtol=5e-3)


# ----------------------------------------------------------------------------- variance attribution
def gp_for_variance(rng, d, white=False):
    X = rng.normal(size=(25, d))
    X[:12] += 2.0  # clustered data
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1]
    k = ConstantKernel(1.3) * SkRBF(0.8 + 0.2 * np.arange(d))
    if white:
        k = k + WhiteKernel(0.05)
    return X, GaussianProcessRegressor(k, alpha=1e-3 if white else 0.02, optimizer=None, normalize_y=True).fit(X, y)


@pytest.mark.parametrize("game", ["interventional", "baseline"])
@pytest.mark.parametrize("white", [False, True])
def test_variance_attribution_matches_enumeration_of_sklearn_std(game, white):
    rng = np.random.default_rng(13)
    d = 4
    X, gpr = gp_for_variance(rng, d, white)
    Z = rng.normal(size=(5, d))
    w = rng.uniform(0.5, 1.0, size=5)
    w /= w.sum()
    if game == "interventional":
        explainer = kx.ProductKernelExplainer(gpr, background=Z, background_weights=w)
    else:
        Z, w = Z[:1], np.ones(1)
        explainer = kx.ProductKernelExplainer(gpr, baseline=Z[0])
    Xe = rng.normal(size=(3, d)) * 2.5
    ex = explainer.explain(Xe, target="variance", noisy=white, interactions=True)

    def v(coalitions):
        out = np.empty((len(coalitions), len(Xe)))
        for ci, S in enumerate(coalitions):
            h = np.where(S[None, None, :], Xe[:, None, :], Z[None, :, :]).reshape(-1, d)
            _, std = gpr.predict(h, return_std=True)
            out[ci] = (std**2).reshape(len(Xe), -1) @ w
        return out

    ref = kx.exact_shapley(v, d, interactions=True)
    scale = np.abs(ref.v_full).max()
    np.testing.assert_allclose(ex.values, ref.values, atol=1e-10 * scale, rtol=0)
    np.testing.assert_allclose(ex.interactions, ref.interactions, atol=1e-10 * scale, rtol=0)
    # sklearn's std includes a WhiteKernel's noise, not alpha: the noisy variance adds alpha too
    extra = gpr.alpha * gp_posterior_scale2(gpr) if white else 0.0
    np.testing.assert_allclose(ex.base_values, ref.v_empty + extra, rtol=1e-10)
    np.testing.assert_allclose(ex.values.sum(axis=1), ref.v_full - ref.v_empty, atol=1e-10 * scale, rtol=0)
    assert ex.efficiency_error < 1e-10
    assert "posterior" in ex.output and "variance" in ex.output


def gp_posterior_scale2(gpr):
    return kx.models.gp_posterior(gpr).scale ** 2


def test_variance_attribution_far_features_dominate():
    """At a point far from the data along x0 only, x0 carries the variance."""
    rng = np.random.default_rng(14)
    X = rng.normal(size=(40, 3))
    gpr = GaussianProcessRegressor(SkRBF([1.0, 1.0, 1.0]), alpha=0.01, optimizer=None).fit(X, X.sum(axis=1))
    ex = kx.ProductKernelExplainer(gpr, background=X[:10]).explain(np.array([[6.0, 0.0, 0.0]]), target="variance")
    assert np.argmax(ex.values[0]) == 0 and ex.values[0, 0] > 0.5 * ex.values[0].sum()


def test_variance_attribution_bad_input():
    rng = np.random.default_rng(15)
    X = rng.normal(size=(20, 2))
    svr = SVR().fit(X, X[:, 0])
    with pytest.raises(kx.UnsupportedModelError, match="target='variance'"):
        kx.ProductKernelExplainer(svr, background=X).explain(X[:2], target="variance")
    gpr = GaussianProcessRegressor(optimizer=None).fit(X, X[:, 0])
    with pytest.raises(ValueError, match="interventional game"):
        kx.ProductKernelExplainer(gpr).explain(X[:2], target="variance")
    with pytest.raises(ValueError, match="target"):
        kx.ProductKernelExplainer(gpr, background=X).explain(X[:2], target="std")
    with pytest.raises(ValueError, match="uncertainty"):
        kx.ProductKernelExplainer(gpr, background=X).explain(X[:2], target="variance", uncertainty=True)


def test_variance_attribution_n_jobs_identical():
    rng = np.random.default_rng(16)
    X, gpr = gp_for_variance(rng, 3)
    e = kx.ProductKernelExplainer(gpr, background=X[:6])
    a = e.explain(X[:5], target="variance", n_jobs=1)
    b = e.explain(X[:5], target="variance", n_jobs=2)
    np.testing.assert_array_equal(a.values, b.values)


def test_posterior_draws_sum_to_one_and_are_bracketed_by_the_expectation():
    rng = np.random.default_rng(17)
    d = 3
    X = rng.uniform(-1, 1, size=(20, d))
    gpr = GaussianProcessRegressor(ConstantKernel(1.0) * SkRBF([0.5, 0.8, 1.0]), alpha=0.05, optimizer=None).fit(
        X, np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2]
    )
    Z = rng.uniform(-1, 1, size=(8, d))
    sa = SensitivityAnalysis(gpr, background=Z)
    draws = sa.posterior_draws(400, random_state=0)
    assert draws["shapley_effect"].shape == (400, d)
    np.testing.assert_allclose(draws["shapley_effect"].sum(axis=1), 1.0, atol=1e-9)
    assert np.all(draws["total_sobol"] >= draws["first_order_sobol"] - 1e-9)
    expected = SensitivityAnalysis(gpr, background=Z, target="posterior_expectation").variance
    mean_var = draws["variance"].mean()
    se = draws["variance"].std() / np.sqrt(400)
    assert sa.variance - 4 * se <= mean_var <= expected + 4 * se
    assert draws["shapley_effect"].std(axis=0).max() > 0


# ----------------------------------------------------------------------------- global importance
def test_global_importance_mean_is_exact_and_intervals_cover():
    rng = np.random.default_rng(18)
    X = rng.normal(size=(30, 3))
    gpr = GaussianProcessRegressor(SkRBF([1.0, 1.0, 1.0]), alpha=0.1, optimizer=None).fit(
        X, 2 * X[:, 0] + 0.3 * X[:, 1] + 0.1 * rng.normal(size=30)
    )
    ex = kx.ProductKernelExplainer(gpr, background=X[:6]).explain(X[:5], uncertainty=True, joint=True)
    imp = kx.sensitivity.global_importance(ex, n_samples=20000, random_state=1)
    # the exact mean against brute-force sampling of the joint Gaussian
    N, d = ex.values.shape
    cov = ex.joint_covariance.reshape(N * d, N * d)
    draws = rng.multivariate_normal(ex.values.ravel(), cov, size=40000, method="eigh")
    mc = np.abs(draws.reshape(-1, N, d)).mean(axis=1)
    se = mc.std(axis=0) / np.sqrt(len(mc))
    assert np.all(np.abs(imp.mean_abs - mc.mean(axis=0)) <= 5 * se + 1e-12)
    assert np.all(imp.lower <= imp.mean_abs) and np.all(imp.mean_abs <= imp.upper)
    np.testing.assert_allclose(imp.rank_probabilities.sum(axis=0), 1.0)
    np.testing.assert_allclose(imp.rank_probabilities.sum(axis=1), 1.0)
    assert imp.rank_probabilities[0, 0] > 0.99
    lo, hi = np.quantile(mc, [0.025, 0.975], axis=0)
    np.testing.assert_allclose(imp.lower, lo, atol=0.05 * (hi - lo).max())
    np.testing.assert_allclose(imp.upper, hi, atol=0.05 * (hi - lo).max())


def test_global_importance_plot_and_bad_input():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    rng = np.random.default_rng(19)
    X = rng.normal(size=(20, 2))
    gpr = GaussianProcessRegressor(alpha=0.1, optimizer=None).fit(X, X[:, 0])
    e = kx.ProductKernelExplainer(gpr, background=X[:4])
    ex = e.explain(X[:3], uncertainty=True, joint=True)
    ax = kx.sensitivity.global_importance(ex, n_samples=500, random_state=0).plot()
    assert len(ax.patches) == 2
    with pytest.raises(ValueError, match="joint=True"):
        kx.sensitivity.global_importance(e.explain(X[:3], uncertainty=True))
    with pytest.raises(ValueError, match="level"):
        kx.sensitivity.global_importance(ex, level=95)


# ----------------------------------------------------------------------------- axioms (hypothesis)
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as hst  # noqa: E402


@settings(max_examples=25, deadline=None)
@given(seed=hst.integers(0, 10_000), d=hst.integers(2, 5), n=hst.integers(1, 6), null=hst.integers(0, 4))
def test_shapley_effects_axioms(seed, d, n, null):
    """Efficiency (sum = Var f), null player (a feature with a point-mass marginal gets 0) and
    symmetry (two features with identical columns, lengthscales and reference values share equally)."""
    rng = np.random.default_rng(seed)
    null = null % d
    ls = rng.uniform(0.5, 2.0, size=d)
    X_ref = rng.normal(size=(n, d))
    Z = rng.normal(size=(6, d))
    Z[:, null] = 0.3  # point mass: the feature cannot move f
    em = kx.KernelExpansion(X_ref, rng.normal(size=n), kx.kernels.RBF(ls))
    sa = SensitivityAnalysis(em, background=Z)
    phi = sa.shapley_values()
    assert abs(phi.sum() - sa.variance) <= 1e-10 * max(1.0, abs(sa.variance))
    assert abs(phi[null]) <= 1e-12 * max(1.0, abs(sa.variance))
    if d >= 3:
        j, k = [i for i in range(d) if i != null][:2]
        ls[k] = ls[j]
        X_ref[:, k] = X_ref[:, j]
        Z[:, k] = Z[:, j]
        sym = SensitivityAnalysis(kx.KernelExpansion(X_ref, em.coef[:, 0], kx.kernels.RBF(ls)), background=Z)
        p2 = sym.shapley_values()
        assert abs(p2[j] - p2[k]) <= 1e-10 * max(1.0, abs(sym.variance))


def test_pipeline_and_svc_use_the_explainers_adapter():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    rng = np.random.default_rng(20)
    d, B = 3, 4
    X = rng.normal(size=(40, d)) * [1.0, 3.0, 0.5] + [0.0, 2.0, -1.0]
    Z = X[:B]
    w = np.full(B, 1.0 / B)
    pipe = make_pipeline(StandardScaler(), SVR(C=2.0)).fit(X, X[:, 0] * X[:, 1])
    svc = SVC(gamma=0.3).fit(X, (X[:, 0] > 0).astype(int))
    for model, predict in [(pipe, pipe.predict), (svc, svc.decision_function)]:
        V = grid_closed_variances(predict, Z, w)
        sa = SensitivityAnalysis(model, background=Z)
        scale = V[(True,) * d]
        np.testing.assert_allclose(sa.shapley_values(), enumerate_shapley(V, d), atol=1e-10 * scale, rtol=0)


def test_posterior_expectation_of_a_sum_kernel_posterior():
    """A GPPosterior on a mixture (SumKernel) with a constant: cross-term pairs and the prior game."""
    rng = np.random.default_rng(21)
    d, B = 3, 3
    Xt = rng.normal(size=(10, d))
    k = kx.kernels.SumKernel([kx.kernels.RBF([0.7, 1.0, 1.3]), 0.4 * kx.kernels.RBF(2.5)])
    K = k(Xt) + 0.3
    A = np.linalg.inv(K + 0.1 * np.eye(10))
    post = kx.models.GPPosterior(Xt, k, A @ rng.normal(size=10), A, constant=0.3, scale=1.7, offset=0.2)
    Z = rng.normal(size=(B, d))
    grid, Q = grid_quadratic_forms(Z, np.full(B, 1.0 / B))
    mu, Sigma = post.mean(grid), post.covariance(grid)
    expect = {S: float(mu @ q @ mu + np.trace(q @ Sigma)) for S, q in Q.items()}
    sa = SensitivityAnalysis(post, background=Z, target="posterior_expectation")
    scale = expect[(True,) * d]
    np.testing.assert_allclose(sa.shapley_values(), enumerate_shapley(expect, d), atol=1e-9 * scale, rtol=0)
    np.testing.assert_allclose(
        sa.total_order(normalized=False),
        [scale - expect[tuple(k != j for k in range(d))] for j in range(d)],
        atol=1e-9 * scale,
    )

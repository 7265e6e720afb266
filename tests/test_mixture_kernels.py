"""Matérn and rational quadratic kernels as scale mixtures of RBF kernels (issue 20, item 2).

References never use kexplain's kernels: the interventional and baseline games are enumerated on
the model's own ``predict`` at hybrid points, the functional game on scikit-learn's kernel object
evaluated at points whose absent features equal the reference point's, the posterior covariance
on scikit-learn's ``predict(return_cov=True)``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.gaussian_process import GaussianProcessClassifier, GaussianProcessRegressor
from sklearn.gaussian_process import kernels as sk
from sklearn.kernel_ridge import KernelRidge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import kexplain as kx
from kexplain.exceptions import UnsupportedModelError
from kexplain.kernels import ScaleMixtureKernel, from_sklearn
from kexplain.kernels._mixture_quadrature import exact_profile, mixture_profile, mixture_rule, trapezoid_rule

D = 5


def _data(d=D, n=30, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2] - 0.5 * X[:, -1] + 0.05 * rng.normal(size=n)
    return X, y, rng


def _hybrid_game(f, Xe, Z):
    """v(S) at every explained point: mean over rows z of Z of f(x_S, z_notS)."""

    def v(S):
        H = np.where(S[:, None, None, :], Xe[None, :, None, :], Z[None, None, :, :])
        return f(H.reshape(-1, Xe.shape[1])).reshape(S.shape[0], Xe.shape[0], Z.shape[0]).mean(-1)

    return v


def _functional_game(kernel, X_train, coef, Xe):
    """sum_i c_i k(h_i, x_i) with h_i = x on S and x_i elsewhere: the kernel restricted to S."""

    def v(S):
        out = np.empty((S.shape[0], Xe.shape[0]))
        for a, s in enumerate(S):
            for p, x in enumerate(Xe):
                H = np.where(s[None, :], x[None, :], X_train)
                # the diagonal of k(H, X_train): scikit-learn's k(X, Y) with Y given has no white noise
                out[a, p] = coef @ np.diag(kernel(H, X_train))
        return out

    return v


KERNELS = {
    "matern05-iso": sk.Matern(1.3, nu=0.5),
    "matern15-ard": sk.Matern([0.8, 1.5, 1.0, 2.0, 1.2], nu=1.5),
    "matern25-ard+white": sk.ConstantKernel(1.7) * sk.Matern([1.0, 2.0, 0.7, 1.5, 3.0], nu=2.5) + sk.WhiteKernel(0.01),
    "matern08-iso": sk.Matern(1.1, nu=0.8),
    "rq03+rbf": sk.RationalQuadratic(1.0, alpha=0.3) + sk.ConstantKernel(0.5) * sk.RBF(2.0),
    "rq2*rbf-ard": sk.RationalQuadratic(1.5, alpha=2.0) * sk.RBF([1.0, 3.0, 2.0, 1.0, 4.0]) + sk.ConstantKernel(0.3),
    "rq50": sk.ConstantKernel(2.0) * sk.RationalQuadratic(0.9, alpha=50.0),
    "matern-nu-inf": sk.Matern(1.0, nu=np.inf),
}


def _gpr(kernel, seed=0, alpha=1e-4):
    X, y, rng = _data(seed=seed)
    return GaussianProcessRegressor(kernel, alpha=alpha, optimizer=None).fit(X, y), X, rng


def _check(values, ref, ex, what):
    err = np.abs(np.asarray(values) - np.asarray(ref)).max()
    scale = np.abs(ref).max()
    assert err <= 1e-10 * scale, (what, err, scale)
    if ex.kernel_error_bound is not None:
        assert err <= np.max(ex.kernel_error_bound), (what, err, ex.kernel_error_bound)
    return err


@pytest.mark.parametrize("name", list(KERNELS))
@pytest.mark.parametrize("game", ["interventional", "baseline", "functional"])
def test_values_match_enumeration_on_the_models_own_predict(name, game):
    gp, X, rng = _gpr(KERNELS[name])
    Xe = rng.normal(size=(3, D)) * 1.5  # partly outside the training box: the range must widen
    if game == "interventional":
        Z = X[:6]
        explainer = kx.ProductKernelExplainer(gp, background=Z)
        v = _hybrid_game(gp.predict, Xe, Z)
    elif game == "baseline":
        z = X[7]
        explainer = kx.ProductKernelExplainer(gp, baseline=z)
        v = _hybrid_game(gp.predict, Xe, z[None, :])
    else:
        explainer = kx.ProductKernelExplainer(gp)
        v = _functional_game(gp.kernel_, gp.X_train_, gp.alpha_, Xe)
    ex = explainer.explain(Xe)
    ref = kx.exact_shapley(v, D)
    _check(ex.values, ref.values, ex, name)
    if name == "matern-nu-inf":  # an RBF: no discretisation, nothing to bound
        assert ex.kernel_error_bound is None
        return
    assert isinstance(ex.kernel_error_bound, float) and ex.kernel_error_bound > 0
    assert ex.info["kernel_error"] <= 1.1e-12 * 2.5
    if game != "functional":
        np.testing.assert_allclose(ex.predictions, gp.predict(Xe), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("index", ["sii", "stii"])
@pytest.mark.parametrize("name", ["matern25-ard+white", "rq03+rbf", "matern05-iso"])
def test_interactions_match_enumeration(name, index):
    gp, X, rng = _gpr(KERNELS[name], seed=1)
    Xe = rng.normal(size=(2, D))
    Z = X[:5]
    ex = kx.ProductKernelExplainer(gp, background=Z).explain(Xe, interactions=index)
    ref = kx.exact_shapley(_hybrid_game(gp.predict, Xe, Z), D, interactions=index)
    err = np.abs(ex.interactions - ref.interactions)
    assert err.max() <= 1e-10 * np.abs(ref.interactions).max()
    off = ~np.eye(D, dtype=bool)
    assert err[:, off].max() <= ex.info["interaction_error_bound"]
    assert err[:, ~off].max() <= D * ex.info["interaction_error_bound"]


def test_functional_game_interactions_match_enumeration():
    gp, X, rng = _gpr(KERNELS["matern15-ard"], seed=2)
    Xe = rng.normal(size=(2, D))
    ex = kx.ProductKernelExplainer(gp).explain(Xe, interactions=True)
    ref = kx.exact_shapley(_functional_game(gp.kernel_, gp.X_train_, gp.alpha_, Xe), D, interactions=True)
    assert np.abs(ex.interactions - ref.interactions).max() <= 1e-10 * np.abs(ref.interactions).max()


def test_reported_bound_is_never_smaller_than_the_observed_error_at_loose_tolerances():
    """At loose tolerances the error is visible; the bound must still hold (and be tight-ish)."""
    gp, X, rng = _gpr(KERNELS["matern25-ard+white"], seed=3, alpha=1e-2)
    Xe = rng.normal(size=(4, D))
    Z = X[:6]
    ref = kx.exact_shapley(_hybrid_game(gp.predict, Xe, Z), D).values
    previous = 0
    for tol in [1e-3, 1e-5, 1e-8]:
        explainer = kx.ProductKernelExplainer(gp, background=Z, kernel_tol=tol)
        ex = explainer.explain(Xe)
        err = np.abs(ex.values - ref).max()
        assert err <= ex.kernel_error_bound
        assert ex.info["kernel_error"] <= 2 * tol  # per factor tol, the constant amplitude about 1.7
        assert ex.info["mixture_terms"] > previous  # a tighter tolerance costs terms
        previous = ex.info["mixture_terms"]
    # the loosest tolerance must really be loose, or the bound above checks nothing
    loose = kx.ProductKernelExplainer(gp, background=Z, kernel_tol=1e-3).explain(Xe)
    assert np.abs(loose.values - ref).max() > 1e-9


def test_bound_holds_for_the_kernel_itself_on_random_pairs():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(60, 3)) * 3
    for kernel in [sk.Matern([0.5, 1.0, 2.0], nu=0.5), sk.RationalQuadratic(0.3, alpha=0.3), sk.Matern(0.7, nu=3.7)]:
        for tol in [1e-4, 1e-9, 1e-12]:
            k, _ = from_sklearn(kernel, 3, tol=tol)
            k = k.with_span(np.ptp(X, axis=0))
            Kt = kernel(X, X[::-1].copy())[::-1]
            Km = k(X, X[::-1].copy())[::-1]
            assert np.abs(Km - Kt).max() <= k.error
            assert k.error <= tol * 1.0001 or tol == 1e-12
            assert all(np.all(r.weights > 0) for rules in k.rules for r in rules)


@pytest.mark.parametrize("family,param", [("matern", 0.5), ("matern", 1.5), ("matern", 2.5), ("rq", 0.3), ("rq", 50.0)])
def test_rule_error_is_measured_not_assumed(family, param):
    rule = mixture_rule(family, param, 50.0, 1e-10)
    u = np.concatenate([[0.0, 1e-30, 1e-20, 1e-12], np.random.default_rng(0).uniform(0, 50.0, 5000)])
    err = np.abs(mixture_profile(rule.precisions, rule.weights, u) - exact_profile(family, param, u)).max()
    assert err <= rule.error <= 1e-10
    # the exact profiles follow scikit-learn's conventions
    r = np.sqrt(u[4:20])
    kern = sk.Matern(1.0, nu=param) if family == "matern" else sk.RationalQuadratic(1.0, alpha=param)
    ref = kern(np.zeros((1, 1)), r[:, None])[0]
    np.testing.assert_allclose(exact_profile(family, param, r**2), ref, rtol=1e-12, atol=1e-14)


def test_default_tolerance_terms_and_small_nu_tail():
    """Matérn-1/2 needs its slow tail of large precisions: the naive cut stalls near 1e-2."""
    rule = mixture_rule("matern", 0.5, 100.0, 1e-12)
    assert rule.error <= 1e-12
    assert rule.precisions.max() > 1e20  # the t^(1/2) tail reaches far
    k25 = mixture_rule("matern", 2.5, 100.0, 1e-12)
    assert k25.n_terms < 35  # the compressed rule (the trapezoid needs 56)


@pytest.mark.parametrize(
    "family,param,R,tol",
    [("matern", 2.5, 50.0, 1e-12), ("rq", 2.0, 1e3, 1e-12), ("rq", 0.3, 50.0, 1e-12), ("rq", 50.0, 50.0, 1e-12),
     ("matern", 2.5, 1e3, 1e-6), ("rq", 2.0, 50.0, 1e-4), ("matern", 0.5, 50.0, 1e-8)],
)  # fmt: skip
def test_compressed_rule_is_shorter_positive_and_its_error_is_measured(family, param, R, tol):
    """The compression of a fine trapezoid rule: fewer terms, positive weights and precisions (so
    the discretised kernel stays positive definite), and a reported error that is a measurement:
    never below the error seen on fresh points (random, logarithmic near u = 0, and u = 0)."""
    trapezoid_tau, _, _ = trapezoid_rule(family, param, R, tol)
    rule = mixture_rule(family, param, R, tol)
    assert np.all(rule.weights > 0) and np.all(rule.precisions > 0)
    if (family, param) != ("matern", 0.5):  # there the eigenvalues are too graded: the trapezoid is kept
        assert rule.n_terms < trapezoid_tau.size
    rng = np.random.default_rng(5)
    u = np.concatenate([[0.0, 1e-300, 1e-30], rng.uniform(0.0, R, 20000), np.logspace(-25, np.log10(R), 4000), [R]])
    seen = np.abs(mixture_profile(rule.precisions, rule.weights, u) - exact_profile(family, param, u)).max()
    assert seen <= rule.error <= tol


@pytest.mark.parametrize("bad", [0.0, 1.0, -1e-12, 1.5, np.nan, np.inf, "1e-12"])
def test_bad_kernel_tolerance_is_refused_with_its_name(bad):
    with pytest.raises(ValueError, match="tol"):
        ScaleMixtureKernel.matern(1.0, nu=2.5, tol=bad)
    with pytest.raises(ValueError, match="tol"):
        ScaleMixtureKernel.rational_quadratic(1.0, alpha=2.0).with_span(np.ones(2), tol=bad)


def test_explained_points_outside_the_box_widen_the_range():
    gp, X, rng = _gpr(KERNELS["rq03+rbf"])
    Z = X[:4]
    explainer = kx.ProductKernelExplainer(gp, background=Z)
    R0 = explainer.expansion.kernel.max_sq_dists()[0][0]
    far = X[:2] + 20.0
    ex = explainer.explain(far)
    assert explainer.expansion.kernel.max_sq_dists()[0][0] > 10 * R0
    ref = kx.exact_shapley(_hybrid_game(gp.predict, far, Z), D).values
    _check(ex.values, ref, ex, "far")
    assert explainer.expected_value == pytest.approx(gp.predict(Z).mean(), abs=1e-12)


def test_kernel_ridge_gpc_and_pipeline():
    X, y, rng = _data()
    Xe = rng.normal(size=(2, D))
    Z = X[:5]
    kr = KernelRidge(kernel=sk.Matern(1.2, nu=1.5) + sk.RBF(3.0), alpha=0.1).fit(X, y)
    ex = kx.ProductKernelExplainer(kr, background=Z).explain(Xe)
    _check(ex.values, kx.exact_shapley(_hybrid_game(kr.predict, Xe, Z), D).values, ex, "kr")
    gpc = GaussianProcessClassifier(sk.ConstantKernel(2.0) * sk.RationalQuadratic(1.0, alpha=2.0), optimizer=None)
    gpc.fit(X, y > 0)
    latent = gpc.base_estimator_

    def f(H):
        # the Laplace GPC's latent mean, from scikit-learn's own fitted parts
        return latent.kernel_(H, latent.X_train_) @ (latent.y_train_ - latent.pi_)

    ex = kx.ProductKernelExplainer(gpc, background=Z).explain(Xe)
    _check(ex.values, kx.exact_shapley(_hybrid_game(f, Xe, Z), D).values, ex, "gpc")
    pipe = make_pipeline(
        StandardScaler(), GaussianProcessRegressor(sk.Matern([1.0, 2.0, 1.0, 1.0, 0.5], nu=2.5), alpha=1e-3)
    )
    pipe.fit(X * [1.0, 10.0, 0.1, 1.0, 1.0], y)
    Xs, Zs = Xe * [1.0, 10.0, 0.1, 1.0, 1.0], Z * [1.0, 10.0, 0.1, 1.0, 1.0]
    ex = kx.ProductKernelExplainer(pipe, background=Zs).explain(Xs)
    _check(ex.values, kx.exact_shapley(_hybrid_game(pipe.predict, Xs, Zs), D).values, ex, "pipeline")


def test_products_of_two_mixtures():
    X, y, rng = _data(d=3)
    kernel = sk.Matern(1.0, nu=1.5) * sk.RationalQuadratic(2.0, alpha=1.0)
    gp = GaussianProcessRegressor(kernel, alpha=1e-3, optimizer=None).fit(X, y)
    Xe, Z = rng.normal(size=(2, 3)), X[:4]
    ex = kx.ProductKernelExplainer(gp, background=Z, kernel_tol=1e-7).explain(Xe)
    ref = kx.exact_shapley(_hybrid_game(gp.predict, Xe, Z), 3).values
    assert np.abs(ex.values - ref).max() <= ex.kernel_error_bound


def test_multiclass_gpc_with_one_kernel_per_class():
    X, y, rng = _data()
    labels = np.digitize(y, np.quantile(y, [0.33, 0.66]))
    gpc = GaussianProcessClassifier(sk.Matern(1.0, nu=2.5), optimizer=None).fit(X, labels)
    Xe, Z = rng.normal(size=(2, D)), X[:4]
    ex = kx.ProductKernelExplainer(gpc, background=Z).explain(Xe)
    assert ex.values.shape == (2, D, 3) and np.shape(ex.kernel_error_bound) == (3,)
    for k, est in enumerate(gpc.base_estimator_.estimators_):

        def f(H, est=est):
            return est.kernel_(H, est.X_train_) @ (est.y_train_ - est.pi_)

        ref = kx.exact_shapley(_hybrid_game(f, Xe, Z), D).values
        assert np.abs(ex.values[:, :, k] - ref).max() <= 1e-10 * np.abs(ref).max()
        assert np.abs(ex.values[:, :, k] - ref).max() <= ex.kernel_error_bound[k]
        assert np.abs(ex[:, k].values - ref).max() <= ex[:, k].kernel_error_bound


@pytest.mark.parametrize("spread", [1.0, 4.0])  # 4: the point widens the range (the mixture is refitted)
def test_uncertainty_matches_enumeration_of_coalition_pairs(spread):
    d = 4
    rng = np.random.default_rng(5)
    X = rng.normal(size=(25, d))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2]
    gp = GaussianProcessRegressor(sk.ConstantKernel(1.5) * sk.Matern([1.0, 1.5, 0.8, 2.0], nu=1.5), alpha=1e-2)
    gp.set_params(optimizer=None).fit(X, y)
    x, Z = rng.normal(size=(1, d)) * spread, X[:3]
    explainer = kx.ProductKernelExplainer(gp, background=Z)
    explainer.explain(X[:1], uncertainty=True)  # the covariance solver is built before the range widens
    R0 = explainer.expansion.kernel.max_sq_dists()[0][0]
    ex = explainer.explain(x, uncertainty=True)
    assert (explainer.expansion.kernel.max_sq_dists()[0][0] > R0) == (spread > 1)
    # every hybrid point of every coalition, and scikit-learn's posterior covariance between them
    C = 2**d
    S = ((np.arange(C)[:, None] >> np.arange(d)[None, :]) & 1).astype(bool)
    H = np.where(S[:, None, :], x[0][None, None, :], Z[None, :, :]).reshape(-1, d)
    mean, cov = gp.predict(H, return_cov=True)
    M = np.kron(np.eye(C), np.full((1, len(Z)), 1.0 / len(Z)))  # v(S) = mean over the background

    def onehot(coalitions):
        idx = (coalitions.astype(int) << np.arange(d)[None, :]).sum(1)
        return np.eye(C)[idx]

    L = kx.exact_shapley(onehot, d).values.T  # (d, C): phi = L v
    ref_cov = L @ M @ cov @ M.T @ L.T
    np.testing.assert_allclose(ex.values[0], L @ M @ mean, rtol=0, atol=1e-10 * np.abs(L @ M @ mean).max())
    np.testing.assert_allclose(ex.covariance[0], ref_cov, rtol=0, atol=1e-8 * np.abs(ref_cov).max())


def test_bad_input_names_the_argument():
    X, y, _ = _data()
    gp = GaussianProcessRegressor(sk.Matern(1.0, nu=1.5), optimizer=None).fit(X, y)
    for bad in [0.0, 1.0, -1e-3, 2.0, np.nan, "small", True]:
        with pytest.raises(ValueError, match="kernel_tol"):
            kx.ProductKernelExplainer(gp, kernel_tol=bad)
    for nu in [0.0, -1.0, np.nan]:
        with pytest.raises(ValueError, match="nu"):
            from_sklearn(sk.Matern(1.0, nu=nu), D)
        with pytest.raises(ValueError, match="nu"):
            ScaleMixtureKernel.matern(1.0, nu=nu)
    for alpha in [0.0, -2.0, np.inf]:
        with pytest.raises(ValueError, match="alpha"):
            from_sklearn(sk.RationalQuadratic(1.0, alpha=alpha), D)
        with pytest.raises(ValueError, match="alpha"):
            ScaleMixtureKernel.rational_quadratic(1.0, alpha=alpha)
    for ls in [np.nan, [1.0, np.nan, 1.0, 1.0, 1.0], -1.0]:
        with pytest.raises(ValueError, match="length_scale"):
            from_sklearn(sk.Matern(ls, nu=2.5), D)
        with pytest.raises(ValueError, match="lengthscale"):
            ScaleMixtureKernel.matern(ls, nu=2.5)
    with pytest.raises(ValueError, match="tol"):
        ScaleMixtureKernel.matern(1.0, tol=1.5)
    with pytest.raises(UnsupportedModelError, match="non-integer power"):
        from_sklearn(sk.Matern(1.0, nu=1.5) ** 1.5, D)
    gp2 = GaussianProcessRegressor(clone(sk.Matern(1.0, nu=1.5)) ** 2, optimizer=None).fit(X[:, :2], y)
    ex = kx.ProductKernelExplainer(gp2, background=X[:3, :2], kernel_tol=1e-6).explain(X[3:5, :2])
    ref = kx.exact_shapley(_hybrid_game(gp2.predict, X[3:5, :2], X[:3, :2]), 2).values
    assert np.abs(ex.values - ref).max() <= ex.kernel_error_bound


@pytest.mark.slow
@settings(max_examples=8)
@given(
    nu=st.sampled_from([0.5, 1.5, 2.5, 0.8, 4.0]),
    scale=st.floats(0.3, 5.0),
    seed=st.integers(0, 1000),
)
def test_axioms_efficiency_and_null_player(nu, scale, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(12, 3)) * scale
    X[:, 2] = 0.0  # a feature the model never sees vary
    k = ScaleMixtureKernel.matern([1.0, 2.0, 1.0], nu=nu, tol=1e-8)
    em = kx.KernelExpansion(X, rng.normal(size=12), k)
    Xe = rng.normal(size=(3, 3)) * scale
    Xe[:, 2] = 0.0
    ex = kx.ProductKernelExplainer(em, background=X[:4]).explain(Xe)
    np.testing.assert_allclose(ex.predictions, np.ravel(ex.v_full), atol=1e-12)
    np.testing.assert_allclose(ex.values[:, 2], 0.0, atol=1e-14)


def test_compiled_finish_of_flagged_entries_matches_numpy():
    """The engine's compiled log-space finish (narrow RBF terms flag most pairs) against the numpy one."""
    pytest.importorskip("numba")
    from kexplain.shapley._product_safe_numba import weighted_loo_integrals_safe
    from kexplain.shapley.product import _weighted_loo_integrals_safe_numpy

    rng = np.random.default_rng(7)
    K, d, nb = 400, 12, 7
    # kernel-like factors with exact zeros, subnormal-range and ordinary values, a few negative
    a = np.exp(-rng.choice([0.0, 0.5, 300.0, 700.0, np.inf], size=(K, d), p=[0.3, 0.3, 0.2, 0.1, 0.1]))
    b = np.exp(-rng.choice([0.0, 0.5, 300.0, 700.0, np.inf], size=(nb, d), p=[0.3, 0.3, 0.2, 0.1, 0.1]))
    a[rng.random((K, d)) < 0.05] *= -1
    t, w = np.polynomial.legendre.leggauss(6)
    t, w = (t + 1) / 2, w / 2
    bad = rng.random((K, 6)) < 0.7
    ours, ref = np.zeros((K, d)), np.zeros((K, d))
    weighted_loo_integrals_safe(a, b, t, w, ours, bad)
    _weighted_loo_integrals_safe_numpy(a, b, t, w, ref, bad)
    assert np.abs(ref).max() > 1e-3  # the inputs do reach the nonzero cases
    np.testing.assert_allclose(ours, ref, rtol=1e-12, atol=1e-280)

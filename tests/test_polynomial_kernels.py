"""Linear, polynomial, DotProduct and chi-squared kernel models: exact values in every game.

References never use kexplain's kernels: the coalition values are the model's OWN predict /
decision_function on hybrid points (x_S with the background row, the baseline row, or zeros
for the functional game: a dot-product kernel restricted to S is the kernel at x with the absent
features set to 0), enumerated over all 2^d coalitions by ``kx.exact_shapley``.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import interventional_value_function
from hypothesis import given
from hypothesis import strategies as st

import kexplain as kx
from kexplain.exceptions import UnsupportedModelError
from kexplain.explainers import polynomial_games
from kexplain.models import as_kernel_expansion, as_polynomial_expansion, model_output
from kexplain.shapley.polynomial import (
    check_polynomial,
    polynomial_game_block,
    solve_polynomial_game,
    taylor_coefficients,
)

RTOL = 1e-10


def _output(model):
    return lambda H: model_output(model, H)


def _reference(model, X, game, Z=None, interactions=None):
    """Enumeration of all coalitions with the model's own output on hybrid points."""
    d = X.shape[1]
    if game == "functional":
        Zr = np.zeros((1, d))
    elif game == "baseline":
        Zr = np.asarray(Z).reshape(1, d)
    else:
        Zr = Z
    vf = interventional_value_function(_output(model), X, Zr)
    return kx.exact_shapley(vf, d, interactions=interactions)


def _check(model, X, game, Z=None, interactions=None):
    """Largest error of the explainer against the reference, relative to the largest magnitude."""
    kw = {"background": Z} if game == "interventional" else {"baseline": Z} if game == "baseline" else {}
    ex = kx.ProductKernelExplainer(model, **kw).explain(X, interactions=interactions)
    ref = _reference(model, X, game, Z, interactions)
    vals = np.asarray(ex.values)
    rv = np.asarray(ref.values).reshape(vals.shape)
    out = np.asarray(model_output(model, X))
    scale = max(1.0, np.abs(rv).max(), np.abs(out).max())
    err = np.abs(vals - rv).max() / scale
    # efficiency against the model itself
    eff = np.abs(vals.sum(axis=1) + np.asarray(ex.base_values) - out).max() / scale
    err = max(err, eff)
    if interactions:
        ri = np.asarray(ref.interactions).reshape(np.shape(ex.interactions))
        err = max(err, np.abs(ex.interactions - ri).max() / scale)
        assert ex.interaction_index == interactions
    forced_rows = polynomial_games.MONOMIAL_LIMIT == 0
    assert ex.info["route"] == "polynomial" if forced_rows else ex.info["route"] in ("polynomial", "monomials")
    return err


@pytest.fixture(params=["auto", "rows"])
def route(request, monkeypatch):
    """Every model test runs twice: the route the cost model picks, and the row route forced."""
    if request.param == "rows":
        monkeypatch.setattr(polynomial_games, "MONOMIAL_LIMIT", 0)
    return request.param


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 6))
    y = X[:, 0] * X[:, 1] - X[:, 2] + 0.5 * X[:, 3] ** 2
    return X, y


# ----------------------------------------------------------------------------- the solver


def _enumerated(a, b, c, terms, interactions=None):
    n, r, d = a.shape

    def vf(S):
        u = np.where(S[:, None, None, :], a[None], b[None]).sum(-1)  # (C, n, r)
        return taylor_coefficients(terms, u)[..., 0] @ c  # (C, n, o)

    return kx.exact_shapley(vf, d, interactions=interactions)


@pytest.mark.parametrize("d", [1, 2, 3, 6, 9])
@pytest.mark.parametrize(
    "terms",
    [[(1.0, [0.3])], [(1.5, [1.0, 1.0])], [(0.7, [0.5] * 3)], [(1.0, [2.0] * 5), (0.3, [-1.0, 0.5]), (2.0, [])]],
)
@pytest.mark.parametrize("index", [None, "sii", "stii"])
def test_solver_against_enumeration(d, terms, index):
    rng = np.random.default_rng(d)
    a, b, c = rng.normal(size=(2, 3, d)), rng.normal(size=(2, 3, d)), rng.normal(size=(3, 2))
    out = polynomial_game_block(a, b, c, terms, interactions=index)
    ref = _enumerated(a, b, c, terms, index)
    scale = max(1.0, np.abs(ref.values).max())
    np.testing.assert_allclose(out[0], ref.values, atol=RTOL * scale, rtol=0)
    np.testing.assert_allclose(out[1], ref.v_full, atol=RTOL * scale, rtol=0)
    np.testing.assert_allclose(out[2], ref.v_empty, atol=RTOL * scale, rtol=0)
    if index:
        from kexplain.shapley.interactions import interaction_layout

        np.testing.assert_allclose(
            interaction_layout(out[0], out[3], index), ref.interactions, atol=RTOL * scale, rtol=0
        )


def test_solver_blocks_do_not_change_values():
    rng = np.random.default_rng(1)

    class Game:
        n_points, n_rows, n_features, n_outputs = 7, 50, 5, 2
        terms = [(1.0, [1.0, 1.0, 1.0])]
        A, B, C = rng.normal(size=(7, 50, 5)), rng.normal(size=(1, 50, 5)), rng.normal(size=(50, 2))

        def block(self, points, rows):
            return self.A[points, rows], self.B[:, rows], self.C[rows]

    big = solve_polynomial_game(Game(), interactions="sii")
    small = solve_polynomial_game(Game(), interactions="sii", max_block_bytes=2**14)
    np.testing.assert_allclose(small.values, big.values, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(small.interactions, big.interactions, rtol=1e-12, atol=1e-12)


_floats = st.floats(-2.0, 2.0, allow_nan=False)


@given(
    d=st.integers(3, 6),
    p=st.integers(1, 5),
    coef0=_floats,
    seed=st.integers(0, 2**31 - 1),
)
def test_solver_axioms(d, p, coef0, seed):
    """Efficiency, symmetry and the dummy (null) player, and agreement with enumeration."""
    rng = np.random.default_rng(seed)
    a, b = rng.normal(size=(1, 4, d)), rng.normal(size=(1, 4, d))
    # player 0 is a dummy (same term present or absent); players 1 and 2 are symmetric
    a[..., 0] = b[..., 0]
    a[..., 2], b[..., 2] = a[..., 1], b[..., 1]
    c = rng.normal(size=(4, 1))
    terms = [(1.0, [coef0] * p)]
    phi, v_full, v_empty, inter = polynomial_game_block(a, b, c, terms, interactions="sii")
    scale = max(1.0, np.abs(v_full).max(), np.abs(v_empty).max())
    assert abs(phi.sum() - (v_full - v_empty).sum()) <= 1e-10 * scale
    assert abs(phi[0, 0, 0]) <= 1e-12 * scale
    assert np.all(np.abs(inter[0, 0, :, 0]) <= 1e-12 * scale)
    assert abs(phi[0, 1, 0] - phi[0, 2, 0]) <= 1e-12 * scale
    ref = _enumerated(a, b, c, terms)
    assert np.abs(phi - ref.values).max() <= 1e-10 * max(scale, np.abs(ref.values).max())


def test_taylor_coefficients_are_the_shifted_polynomial():
    terms = [(2.0, [1.0, -0.5, 3.0]), (0.5, [])]
    x = np.array([-1.0, 0.3, 2.0])
    T = taylor_coefficients(terms, x)
    for y in (-0.7, 0.0, 1.3):
        direct = 2.0 * (x + y + 1.0) * (x + y - 0.5) * (x + y + 3.0) + 0.5
        np.testing.assert_allclose((T * y ** np.arange(4)).sum(-1), direct, rtol=1e-14)


# ----------------------------------------------------------------------------- SVMs


@pytest.mark.parametrize("degree", [1, 2, 3, 5])
@pytest.mark.parametrize("coef0", [0.0, 1.3])
@pytest.mark.parametrize("game", ["functional", "interventional", "baseline"])
def test_poly_svc_binary_against_enumeration(route, data, degree, coef0, game):
    from sklearn.svm import SVC

    X, y = data
    model = SVC(kernel="poly", degree=degree, coef0=coef0, gamma="scale", C=0.5).fit(X, y > 0)
    assert _check(model, X[:3], game, X[5:9] if game == "interventional" else X[9]) <= RTOL


@pytest.mark.parametrize("index", ["sii", "stii"])
@pytest.mark.parametrize("game", ["functional", "interventional", "baseline"])
def test_poly_svc_interactions_against_enumeration(route, data, index, game):
    from sklearn.svm import SVC

    X, y = data
    model = SVC(kernel="poly", degree=3, coef0=0.7, gamma="auto").fit(X, y > 0)
    assert _check(model, X[:2], game, X[5:9] if game == "interventional" else X[9], interactions=index) <= RTOL


def test_ten_features_all_games_and_indices(route):
    from sklearn.svm import SVC

    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 10))
    model = SVC(kernel="poly", degree=4, coef0=1.0, gamma=0.2).fit(X, X[:, 0] * X[:, 1] + X[:, 2] > 0)
    for game, Z in (("functional", None), ("interventional", X[10:13]), ("baseline", X[20])):
        for index in (None, "sii", "stii"):
            assert _check(model, X[:2], game, Z, interactions=index) <= RTOL


@pytest.mark.parametrize("game", ["functional", "interventional", "baseline"])
def test_multiclass_ovo_svc(route, data, game):
    from sklearn.svm import SVC

    X, y = data
    labels = np.digitize(y, [-0.5, 0.5, 1.5])
    model = SVC(kernel="poly", degree=2, coef0=1.0, decision_function_shape="ovo").fit(X, labels)
    assert model_output(model, X[:1]).shape == (1, 6)
    assert _check(model, X[:2], game, X[5:8] if game == "interventional" else X[9], interactions="sii") <= RTOL


def test_cost_model_picks_the_monomial_route_for_small_degree(data):
    from sklearn.svm import SVC

    X, y = data
    model = SVC(kernel="poly", degree=3, coef0=1.0).fit(X, y > 0)
    assert kx.ProductKernelExplainer(model, background=X[:20]).route == "monomials"
    assert kx.ProductKernelExplainer(model).route == "monomials"
    # degree 5 in 40 features: 1.2 million monomials times 32 subsets, more than the rows cost
    X40 = np.random.default_rng(0).normal(size=(30, 40))
    model = SVC(kernel="poly", degree=5).fit(X40, X40[:, 0] > 0)
    assert kx.ProductKernelExplainer(model, baseline=X40[0]).route == "polynomial"


def test_multiclass_ovr_svc_is_refused(data):
    from sklearn.svm import SVC

    X, y = data
    model = SVC(kernel="poly", degree=2).fit(X, np.digitize(y, [-0.5, 0.5]))
    with pytest.raises(UnsupportedModelError, match="decision_function_shape='ovo'"):
        kx.ProductKernelExplainer(model)


@pytest.mark.parametrize("kernel", ["linear", "poly"])
@pytest.mark.parametrize("estimator", ["SVR", "NuSVR", "NuSVC", "SVC"])
def test_other_svms(route, data, kernel, estimator):
    import sklearn.svm as svm

    X, y = data
    est = getattr(svm, estimator)(kernel=kernel, degree=2, coef0=0.5)
    model = est.fit(X, y if estimator.endswith("R") else y > 0)
    for game, Z in (("functional", None), ("interventional", X[5:9]), ("baseline", X[9])):
        assert _check(model, X[:2], game, Z) <= RTOL


def test_linear_svr_values_are_closed_form(route, data):
    """A linear model's interventional values are w_j (x_j - mean_z z_j)."""
    from sklearn.svm import SVR

    X, y = data
    model = SVR(kernel="linear").fit(X, y)
    Z = X[10:30]
    ex = kx.ProductKernelExplainer(model, background=Z).explain(X[:4])
    expected = model.coef_[0] * (X[:4] - Z.mean(axis=0))
    np.testing.assert_allclose(ex.values, expected, rtol=1e-10, atol=1e-12)


def test_poly_svc_pipeline_with_scaler(route, data):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MinMaxScaler, StandardScaler
    from sklearn.svm import SVC

    X, y = data
    Xs = X * [1.0, 10.0, 0.1, 1.0, 3.0, 1.0] + 5.0
    for scaler in (StandardScaler(), MinMaxScaler()):
        model = make_pipeline(scaler, SVC(kernel="poly", degree=3, coef0=1.0)).fit(Xs, y > 0)
        for game, Z in (("interventional", Xs[5:9]), ("baseline", Xs[9])):
            assert _check(model, Xs[:2], game, Z, interactions="sii") <= RTOL


# ----------------------------------------------------------------------------- KernelRidge and GPs


@pytest.mark.parametrize(
    "params",
    [
        {"kernel": "poly", "degree": 3, "coef0": 1.0},
        {"kernel": "polynomial", "degree": 2, "coef0": 0.0, "gamma": 0.3},
        {"kernel": "linear"},
        {"kernel": "poly", "degree": 5, "coef0": 2.0},
    ],
)
def test_kernel_ridge(route, data, params):
    from sklearn.kernel_ridge import KernelRidge

    X, y = data
    model = KernelRidge(alpha=1.0, **params).fit(X, y)
    for game, Z in (("functional", None), ("interventional", X[5:9]), ("baseline", X[9])):
        assert _check(model, X[:2], game, Z, interactions="stii") <= RTOL


def test_kernel_ridge_default_gamma_is_one_over_features(data):
    from sklearn.kernel_ridge import KernelRidge

    X, y = data
    model = KernelRidge(kernel="poly", degree=2).fit(X, y)
    em = as_polynomial_expansion(model)
    assert em.kernel.gamma == pytest.approx(1.0 / X.shape[1])
    np.testing.assert_allclose(em.predict(X[:5]), model.predict(X[:5]), rtol=1e-10)


@pytest.mark.slow
def test_gpr_dot_product_squared(route, data):
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import ConstantKernel, DotProduct, WhiteKernel

    X, y = data
    kernel = ConstantKernel(0.5) * DotProduct(sigma_0=1.0) ** 2 + DotProduct(sigma_0=0.3) + WhiteKernel(0.1)
    model = GaussianProcessRegressor(kernel, normalize_y=True, random_state=0).fit(X[:40], y[:40])
    for game, Z in (("functional", None), ("interventional", X[5:9]), ("baseline", X[9])):
        for index in (None, "sii"):
            assert _check(model, X[:2], game, Z, interactions=index) <= RTOL


def test_gpr_product_of_dot_products_and_kernel_ridge_gp_kernel(route, data):
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import ConstantKernel, DotProduct
    from sklearn.kernel_ridge import KernelRidge

    X, y = data
    kernel = DotProduct(sigma_0=0.5) * DotProduct(sigma_0=2.0) + ConstantKernel(1.5)
    gpr = GaussianProcessRegressor(kernel, alpha=0.1, optimizer=None).fit(X[:40], y[:40])
    krr = KernelRidge(kernel=DotProduct(sigma_0=1.0) ** 3, alpha=1.0).fit(X, y)
    for model in (gpr, krr):
        for game, Z in (("functional", None), ("interventional", X[5:9])):
            assert _check(model, X[:2], game, Z, interactions="stii") <= RTOL


def test_additive_chi2_kernel_ridge():
    """Additive kernel: values against enumeration with the model's own predict."""
    from sklearn.kernel_ridge import KernelRidge

    rng = np.random.default_rng(5)
    X = rng.uniform(0, 2, size=(50, 5))
    model = KernelRidge(kernel="additive_chi2", alpha=1.0).fit(X, X[:, 0] - X[:, 1] ** 2)
    for game, Z in (("interventional", X[5:9]), ("baseline", X[9])):
        assert _check(model, X[:3], game, Z, interactions="sii") <= RTOL
    # the additive game's values are each feature's own contribution
    Z = X[5:9]
    ex = kx.ProductKernelExplainer(model, background=Z).explain(X[:3])
    em = as_polynomial_expansion(model)
    h_x = em.kernel.feature_terms(X[:3], em.X_ref)  # (3, n, d)
    h_z = em.kernel.feature_terms(Z, em.X_ref).mean(axis=0)  # (n, d)
    direct = np.einsum("pnd,n->pd", h_x - h_z[None], em.coef[:, 0])
    np.testing.assert_allclose(ex.values, direct, rtol=1e-10, atol=1e-12)


def test_chi2_kernel_ridge_is_a_product_kernel():
    from sklearn.kernel_ridge import KernelRidge

    rng = np.random.default_rng(6)
    X = rng.uniform(0, 2, size=(40, 5))
    model = KernelRidge(kernel="chi2", gamma=0.7, alpha=1.0).fit(X, X[:, 0] * X[:, 1])
    em = as_kernel_expansion(model)
    assert isinstance(em.kernel, kx.kernels.Chi2)
    Z = X[5:9]
    ex = kx.ProductKernelExplainer(model, background=Z).explain(X[:3], interactions="sii")
    vf = interventional_value_function(model.predict, X[:3], Z)
    ref = kx.exact_shapley(vf, 5, interactions="sii")
    np.testing.assert_allclose(ex.values, ref.values, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ex.interactions, ref.interactions, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(
        em.kernel(X[:4], X[4:9]),
        __import__("sklearn").metrics.pairwise.chi2_kernel(X[:4], X[4:9], gamma=0.7),
        rtol=1e-12,
    )


@pytest.mark.slow
def test_against_shap_exact_explainer(route, data):
    shap = pytest.importorskip("shap")
    from sklearn.svm import SVC

    X, y = data
    model = SVC(kernel="poly", degree=3, coef0=1.0).fit(X, y > 0)
    Z = X[10:14]
    ex = kx.ProductKernelExplainer(model, background=Z).explain(X[:2])
    masker = shap.maskers.Independent(Z, max_samples=len(Z))
    sv = shap.explainers.Exact(model.decision_function, masker)(X[:2])
    np.testing.assert_allclose(ex.values, sv.values, rtol=1e-9, atol=1e-10)


# ----------------------------------------------------------------------------- kernels and bad input


def test_kernel_grams_match_scikit_learn():
    from sklearn.metrics.pairwise import additive_chi2_kernel, linear_kernel, polynomial_kernel

    rng = np.random.default_rng(2)
    X, Y = rng.uniform(0, 1, size=(5, 3)), rng.uniform(0, 1, size=(4, 3))
    np.testing.assert_allclose(
        kx.kernels.Polynomial(4, gamma=0.3, coef0=-0.2)(X, Y), polynomial_kernel(X, Y, 4, 0.3, -0.2), rtol=1e-12
    )
    np.testing.assert_allclose(kx.kernels.Linear()(X, Y), linear_kernel(X, Y), rtol=1e-12)
    np.testing.assert_allclose(kx.kernels.AdditiveChi2()(X, Y), additive_chi2_kernel(X, Y), rtol=1e-12)


def test_kernel_algebra():
    k = kx.kernels.Polynomial(2, gamma=1.0, coef0=1.0)
    lin = kx.kernels.Linear()
    x, y = np.array([[1.0, 2.0]]), np.array([[0.5, -1.0]])
    u = (x @ y.T).item()
    assert (2.0 * k + lin)(x, y).item() == pytest.approx(2.0 * (u + 1.0) ** 2 + u)
    assert (k * lin)(x, y).item() == pytest.approx((u + 1.0) ** 2 * u)
    assert (lin**3 + 1.0)(x, y).item() == pytest.approx(u**3 + 1.0)
    with pytest.raises(ValueError, match="integer power"):
        lin**1.5
    with pytest.raises(ValueError, match="same per-feature sum"):
        k + kx.kernels.Polynomial(2, gamma=2.0)


@pytest.mark.parametrize("degree", [0, -1, 2.5, True, "3", float("nan")])
def test_bad_degree(degree):
    with pytest.raises(ValueError, match="degree"):
        kx.kernels.Polynomial(degree=degree)


def test_bad_parameters():
    with pytest.raises(ValueError, match="gamma"):
        kx.kernels.Polynomial(2, gamma=float("nan"))
    with pytest.raises(ValueError, match="gamma"):
        kx.kernels.Polynomial(2, gamma=-1.0)
    with pytest.raises(ValueError, match="coef0"):
        kx.kernels.Polynomial(2, coef0=float("inf"))
    with pytest.raises(ValueError, match="gamma"):
        kx.kernels.Chi2(gamma=0.0)
    with pytest.raises(ValueError, match="polynomial"):
        check_polynomial([])
    with pytest.raises(ValueError, match="finite"):
        check_polynomial([(1.0, [np.nan])])


def test_nan_input_is_refused(data):
    from sklearn.svm import SVC

    X, y = data
    model = SVC(kernel="poly", degree=2).fit(X, y > 0)
    explainer = kx.ProductKernelExplainer(model, background=X[:5])
    bad = X[:2].copy()
    bad[0, 1] = np.nan
    with pytest.raises(ValueError, match="X"):
        explainer.explain(bad)
    Zbad = X[:5].copy()
    Zbad[2, 0] = np.inf
    with pytest.raises(ValueError, match="background"):
        kx.ProductKernelExplainer(model, background=Zbad)


def test_refusals_name_the_route(data):
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, DotProduct
    from sklearn.kernel_ridge import KernelRidge
    from sklearn.svm import SVC

    X, y = data
    with pytest.raises(UnsupportedModelError, match="non-integer"):
        kx.ProductKernelExplainer(KernelRidge(kernel="poly", degree=2.5).fit(np.abs(X), y))
    gpr = GaussianProcessRegressor(DotProduct() ** 1.5, optimizer=None, alpha=1.0).fit(X[:20], y[:20])
    with pytest.raises(UnsupportedModelError, match="non-integer"):
        kx.ProductKernelExplainer(gpr)
    gpr = GaussianProcessRegressor(DotProduct() * RBF(), optimizer=None, alpha=1.0).fit(X[:20], y[:20])
    with pytest.raises(UnsupportedModelError, match="RKHSExplainer"):
        kx.ProductKernelExplainer(gpr)
    model = SVC(kernel="poly").fit(X, y > 0)
    with pytest.raises(UnsupportedModelError, match="ProductKernelExplainer"):
        as_kernel_expansion(model)
    with pytest.raises(ValueError, match="numpy float64"):
        kx.ProductKernelExplainer(model, background=X[:3]).explain(X[:1], dtype="float32")


# ----------------------------------------------------------------------------- the monomial route


@given(
    d=st.integers(1, 6),
    n_mono=st.integers(1, 6),
    seed=st.integers(0, 2**31 - 1),
    index=st.sampled_from([None, "sii", "stii"]),
)
def test_monomial_game_against_enumeration(d, n_mono, seed, index):
    """A random polynomial model's interventional game, against enumeration of all coalitions."""
    from kexplain.shapley.monomials import MonomialGame, MonomialGroup

    rng = np.random.default_rng(seed)
    groups, monomials = [], []
    for _ in range(n_mono):
        s = int(rng.integers(1, min(d, 3) + 1))
        support = np.sort(rng.choice(d, size=s, replace=False))
        exps = tuple(int(e) for e in rng.integers(1, 3, size=s))
        coef = rng.normal(size=(1, 2))
        groups.append(MonomialGroup(support[None, :], exps, coef))
        monomials.append((support, exps, coef[0]))
    Z, w = rng.normal(size=(4, d)), rng.dirichlet(np.ones(4))
    X = rng.normal(size=(2, d))
    constant = rng.normal(size=2)
    res = MonomialGame(groups, constant, Z, w).solve(X, interactions=index)

    def f(H):
        out = np.tile(constant, (len(H), 1))
        for support, exps, coef in monomials:
            out += np.prod(H[:, support] ** np.array(exps), axis=1)[:, None] * coef
        return out

    ref = kx.exact_shapley(interventional_value_function(f, X, Z, w), d, interactions=index)
    scale = max(1.0, np.abs(ref.values).max())
    assert np.abs(res.values - ref.values).max() <= 1e-10 * scale
    np.testing.assert_allclose(res.v_full, f(X), rtol=1e-10, atol=1e-12 * scale)
    if index:
        assert np.abs(res.interactions - ref.interactions).max() <= 1e-10 * scale


def test_functional_game_of_a_pipeline_is_the_baseline_at_the_centre(route, data):
    """With a centring scaler the functional game sets absent features where the scaled input is 0."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    X, y = data
    Xs = X * 3.0 + 2.0
    model = make_pipeline(StandardScaler(), SVC(kernel="poly", degree=3, coef0=0.5)).fit(Xs, y > 0)
    centre = model[0].mean_
    functional = kx.ProductKernelExplainer(model).explain(Xs[:3], interactions="sii")
    assert _check(model, Xs[:3], "baseline", centre, interactions="sii") <= RTOL
    at_centre = kx.ProductKernelExplainer(model, baseline=centre).explain(Xs[:3], interactions="sii")
    np.testing.assert_allclose(functional.values, at_centre.values, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(functional.interactions, at_centre.interactions, rtol=1e-10, atol=1e-12)


def test_n_jobs_and_blocks_do_not_change_values(route, data):
    from sklearn.svm import SVC

    X, y = data
    model = SVC(kernel="poly", degree=3, coef0=1.0).fit(X, y > 0)
    one = kx.ProductKernelExplainer(model, background=X[:6]).explain(X[:9], interactions="stii")
    two = kx.ProductKernelExplainer(model, background=X[:6], max_block_bytes=2**16).explain(
        X[:9], interactions="stii", n_jobs=2
    )
    np.testing.assert_allclose(two.values, one.values, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(two.interactions, one.interactions, rtol=1e-12, atol=1e-13)


def test_chi2_kernels_in_pipelines():
    """Multiplying scalers fold into the chi-squared kernels; shifting ones are refused by name."""
    from sklearn.kernel_ridge import KernelRidge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MaxAbsScaler, MinMaxScaler

    rng = np.random.default_rng(7)
    X = rng.uniform(0, 1, size=(40, 4)) * [1.0, 10.0, 0.1, 3.0]
    y = X[:, 0] + X[:, 1] * X[:, 2]
    for kernel in ("chi2", "additive_chi2"):
        params = {"gamma": 0.5} if kernel == "chi2" else {}
        model = make_pipeline(MaxAbsScaler(), KernelRidge(kernel=kernel, alpha=1.0, **params)).fit(X, y)
        Z = X[5:8]
        ex = kx.ProductKernelExplainer(model, background=Z).explain(X[:2], interactions="sii")
        ref = kx.exact_shapley(interventional_value_function(model.predict, X[:2], Z), 4, interactions="sii")
        np.testing.assert_allclose(ex.values, ref.values, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(ex.interactions, ref.interactions, rtol=1e-10, atol=1e-12)
        shifted = make_pipeline(MinMaxScaler(), KernelRidge(kernel=kernel, alpha=1.0, **params)).fit(X, y)
        with pytest.raises(UnsupportedModelError, match="translation invariant"):
            kx.ProductKernelExplainer(shifted)


@pytest.mark.parametrize("p", [1, 2, 3, 5])
def test_compiled_and_numpy_backends_agree(p):
    pytest.importorskip("numba")
    rng = np.random.default_rng(p)
    a, b, c = rng.normal(size=(3, 20, 7)), rng.normal(size=(1, 20, 7)), rng.normal(size=(20, 2))
    terms = [(1.0, [0.7] * p), (0.5, [-1.0])]
    compiled = polynomial_game_block(a, b, c, terms, backend="numba", interactions="stii")
    plain = polynomial_game_block(a, b, c, terms, backend="numpy", interactions="stii")
    for x, y in zip(compiled, plain):
        np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-12 * np.abs(y).max())


def test_unknown_backend_is_refused():
    with pytest.raises(ValueError, match="backend"):
        polynomial_game_block(np.ones((1, 1, 2)), 0.0, np.ones((1, 1)), [(1.0, [1.0])], backend="gpu")

"""OAKRegressor and OAKExplainer: exact local and global Shapley values against enumeration and Monte Carlo."""

import itertools

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

import kexplain as kx
from kexplain.gp import OAKExplainer, OAKRegressor
from kexplain.gp import _fitting as fitting


def _data(n, d, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2] + 0.05 * rng.normal(size=n)
    return X, y


@pytest.fixture(scope="module", params=["gaussian", "empirical"])
def fitted(request):
    X, y = _data(60, 4)
    return OAKRegressor(input_measure=request.param, max_iter=60, random_state=0).fit(X, y), X


@pytest.fixture(scope="module")
def wide():
    # d = 7 with order 3; hyperparameters left at their starting values (the explanation is exact
    # for any hyperparameters, so no optimisation is needed to test it)
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 7))
    y = X[:, 0] * X[:, 1] + np.cos(X[:, 2]) + X[:, 3] ** 2
    return OAKRegressor(max_interaction_order=3, max_iter=0).fit(X, y), X


def _local_by_enumeration(model, X):
    d = X.shape[1]
    comps = {}
    for q in range(d + 1):
        for T in itertools.combinations(range(d), q):
            comps[T] = model.component(list(T), X)

    def v(coalitions):
        out = []
        for s in coalitions:
            members = tuple(np.nonzero(s)[0])
            out.append(sum(comps[T] for T in comps if set(T) <= set(members)))
        return np.array(out)

    return kx.exact_shapley(v, d)


def test_local_values_equal_enumeration_of_the_anova_game(fitted):
    _check_local_against_enumeration(*fitted)


def test_local_values_equal_enumeration_d7_order3(wide):
    _check_local_against_enumeration(*wide)


def _check_local_against_enumeration(model, X):
    ex = model.explain(X[:6])
    ref = _local_by_enumeration(model, X[:6])
    np.testing.assert_allclose(ex.values, ref.values, atol=1e-9)
    np.testing.assert_allclose(ex.base_values, ref.v_empty, atol=1e-9)
    # efficiency, and the game's full coalition is the model's prediction
    np.testing.assert_allclose(ex.predictions, model.predict(X[:6]), atol=1e-9)
    np.testing.assert_allclose(ex.base_values, model.constant_, atol=1e-12)
    assert isinstance(ex, kx.Explanation)


def _component_variances(model):
    S = model.support_
    ls = np.nan_to_num(model.lengthscales_, nan=1.0)
    G = [b.gamma(S[:, j], S[:, j], ls[j]) for j, b in enumerate(model.bases_)]
    a = model.alpha_ * model.y_std_
    out = {}
    for q in range(1, model.max_order_ + 1):
        for T in itertools.combinations(range(S.shape[1]), q):
            GT = np.prod([G[j] for j in T], axis=0)
            out[T] = model.order_variances_[q] ** 2 * a @ GT @ a
    return out


def test_global_values_sum_to_variance_and_equal_enumeration(fitted):
    model, X = fitted
    gi = model.global_importance()
    var_T = _component_variances(model)
    d = X.shape[1]

    def v(coalitions):
        return np.array([sum(val for T, val in var_T.items() if s[list(T)].all()) for s in coalitions])

    ref = kx.exact_shapley(v, d)
    np.testing.assert_allclose(gi.values, ref.values, rtol=1e-9, atol=1e-12)
    assert isinstance(gi, kx.GlobalAttribution) and gi.quantity == "variance"
    assert gi.values.sum() == pytest.approx(gi.total, rel=1e-7)
    assert gi.total == pytest.approx(sum(var_T.values()), rel=1e-10)
    np.testing.assert_allclose(gi.first_order_sobol, [var_T[(j,)] / gi.total for j in range(d)], rtol=1e-9)
    # total Sobol index: the variance of every component that contains the feature
    np.testing.assert_allclose(
        gi.total_sobol, [sum(v for T, v in var_T.items() if j in T) / gi.total for j in range(d)], rtol=1e-9
    )
    np.testing.assert_allclose(gi.info["component_variance"].sum(), gi.total, rtol=1e-10)
    frame = gi.to_frame()
    assert list(frame.index) == model.feature_names_
    assert {"value", "first_order_sobol", "total_sobol"} <= set(frame.columns)


def test_variance_and_sobol_indices_match_monte_carlo(fitted):
    model, X = fitted
    gi = model.global_importance()
    N = 12000
    A = model.sample_input_measure(N, random_state=1)
    B = model.sample_input_measure(N, random_state=2)
    fA, fB = model._mean_encoded(A), model._mean_encoded(B)
    var = np.var(np.r_[fA, fB])
    assert gi.total == pytest.approx(var, rel=0.05)
    for j in range(X.shape[1]):
        ABj = A.copy()
        ABj[:, j] = B[:, j]
        fABj = model._mean_encoded(ABj)
        first = np.mean(fB * (fABj - fA)) / var  # Saltelli (2010)
        total = 0.5 * np.mean((fA - fABj) ** 2) / var  # Jansen
        assert gi.first_order_sobol[j] == pytest.approx(first, abs=0.04)
        assert gi.total_sobol[j] == pytest.approx(total, abs=0.04)
    # the mean of f under the measure is the constant component
    assert np.mean(np.r_[fA, fB]) == pytest.approx(model.constant_, abs=0.05 * np.sqrt(var) + 1e-3)


def test_recovers_known_additive_components():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 3))
    y = np.sin(1.5 * X[:, 0]) + (X[:, 1] ** 2 - 1) + 0.05 * rng.normal(size=120)
    model = OAKRegressor(max_interaction_order=2, normalize_inputs=False, max_iter=80, random_state=0).fit(X, y)
    grid = np.zeros((41, 3))
    grid[:, 0] = grid[:, 1] = grid[:, 2] = np.linspace(-2, 2, 41)
    err0 = model.component(0, grid) - np.sin(1.5 * grid[:, 0])
    err1 = model.component(1, grid) - (grid[:, 1] ** 2 - 1)
    # components are centred for the fitted N(mean, std^2) measure, not exactly N(0, 1): compare
    # after removing the mean offset
    assert np.sqrt(np.mean((err0 - err0.mean()) ** 2)) < 0.15
    assert np.sqrt(np.mean((err1 - err1.mean()) ** 2)) < 0.2
    assert np.abs(model.component(2, grid)).max() < 0.1
    assert np.abs(model.component([0, 1], grid)).max() < 0.1
    gi = model.global_importance()
    assert gi.ranking()[-1] == "x2"


def test_predict_std_matches_dense_posterior(fitted):
    model, X = fitted
    Xt = np.random.default_rng(5).normal(size=(5, 4)) * 2
    mean, std = model.predict(Xt, return_std=True)
    Z, Zt = model.support_, model._encode(Xt)
    ls = np.nan_to_num(model.lengthscales_, nan=1.0)

    def kernel(A, B):
        return fitting.additive_kernel(model.bases_, A, B, ls, model.order_variances_)

    K = kernel(Z, Z) + model.noise_variance_ * np.eye(len(Z))
    k = kernel(Zt, Z)
    kxx = np.diag(kernel(Zt, Zt))
    var = kxx - np.einsum("ij,ji->i", k, np.linalg.solve(K, k.T))
    np.testing.assert_allclose(std, model.y_std_ * np.sqrt(var), rtol=1e-6, atol=1e-9)
    assert np.all(std > 0)


def test_sparse_mode_is_exact_for_its_own_expansion():
    X, y = _data(150, 3, seed=4)
    model = OAKRegressor(n_inducing=30, max_iter=15, random_state=0).fit(X, y)
    assert model.sparse_ and model.support_.shape[0] == 30
    assert model.score(X, y) > 0.9
    ex = model.explain(X[:5])
    np.testing.assert_allclose(ex.predictions, model.predict(X[:5]), atol=1e-9)
    gi = model.global_importance()
    assert gi.values.sum() == pytest.approx(gi.total, rel=1e-7)
    _, std = model.predict(X[:5], return_std=True)
    assert np.all(np.isfinite(std)) and np.all(std >= 0)


def test_categorical_features_labels_and_unseen_levels():
    rng = np.random.default_rng(6)
    n = 60
    lab = rng.choice(["a", "b", "c"], size=n)
    x = rng.normal(size=n)
    y = np.where(lab == "a", 1.0, np.where(lab == "b", -1.0, 0.0)) + x + 0.05 * rng.normal(size=n)
    X = np.empty((n, 2), dtype=object)
    X[:, 0], X[:, 1] = lab, x
    model = OAKRegressor(max_iter=40, random_state=0).fit(X, y)
    assert model.categorical_mask_.tolist() == [True, False]
    ex = model.explain(X[:8])
    np.testing.assert_allclose(ex.predictions, model.predict(X[:8]), atol=1e-9)
    ref = _local_by_enumeration(model, X[:8])
    np.testing.assert_allclose(ex.values, ref.values, atol=1e-9)
    Xu = X[:2].copy()
    Xu[:, 0] = "zzz"  # unseen category: zero categorical component
    np.testing.assert_allclose(model.component(0, Xu), 0.0, atol=1e-12)
    assert np.isfinite(model.predict(Xu)).all()
    gi = model.global_importance()
    assert gi.values.sum() == pytest.approx(gi.total, rel=1e-7)
    # binary integer codes declared categorical
    Xb = np.column_stack([(lab == "a").astype(float), x])
    mb = OAKRegressor(categorical_features=[0], max_iter=20).fit(Xb, y)
    assert mb.categorical_mask_.tolist() == [True, False]


def test_bad_input_gets_clear_errors():
    X, y = _data(30, 3)
    with pytest.raises(ValueError, match="continuous values"):
        OAKRegressor(categorical_features=[1], max_iter=0).fit(X, y)
    Xn = X.copy()
    Xn[4, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        OAKRegressor(max_iter=0).fit(Xn, y)
    with pytest.raises(ValueError, match="max_interaction_order=4 is above the number of features"):
        OAKRegressor(max_interaction_order=4).fit(X, y)
    with pytest.raises(ValueError, match="input_measure"):
        OAKRegressor(input_measure="uniform").fit(X, y)
    with pytest.raises(ValueError, match="y contains NaN"):
        OAKRegressor(max_iter=0).fit(X, np.r_[np.nan, y[1:]])
    with pytest.raises(NotFittedError):
        OAKRegressor().predict(X)
    model = OAKRegressor(max_iter=0).fit(X, y)
    with pytest.raises(ValueError, match="NaN"):
        model.explain(Xn)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :2])
    with pytest.raises(ValueError, match="features"):
        model.component(["nope"], X)


def test_sklearn_conventions_and_determinism():
    X, y = _data(30, 3)
    est = OAKRegressor(max_interaction_order=2, max_iter=8, n_restarts=1, random_state=7)
    params = est.get_params()
    assert params["max_interaction_order"] == 2 and params["random_state"] == 7
    a = clone(est).fit(X, y)
    b = clone(est).fit(X, y)
    assert a is not b
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    np.testing.assert_array_equal(a.explain(X[:3]).values, b.explain(X[:3]).values)
    assert est.fit(X, y) is est


def test_pandas_names_flow_to_explanations():
    pd = pytest.importorskip("pandas")
    X, y = _data(40, 3)
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    model = OAKRegressor(max_iter=10).fit(df, y)
    ex = model.explain(df.iloc[:3])
    assert ex.feature_names == ["a", "b", "c"]
    assert list(ex.to_frame().columns[:3]) == ["a", "b", "c"]
    np.testing.assert_allclose(model.component("b", df.iloc[:3]), model.component(1, df.iloc[:3]))


@pytest.mark.parametrize("measure", ["gaussian", "empirical"])
def test_marginal_likelihood_gradient_matches_finite_differences(measure):
    X, y = _data(25, 3, seed=8)
    model = OAKRegressor(input_measure=measure, max_interaction_order=2, max_iter=0).fit(X, y)
    ys = (y - model.y_mean_) / model.y_std_
    nll = fitting.MarginalLikelihood(model.bases_, model.max_order_, np.ones(3))
    rng = np.random.default_rng(0)
    theta = rng.uniform(-1.0, 0.5, size=3 + 3 + 1)
    _, grad = nll(theta, model.support_, ys)
    h = 1e-5
    fd = np.array(
        [
            (nll(theta + h * e, model.support_, ys)[0] - nll(theta - h * e, model.support_, ys)[0]) / (2 * h)
            for e in np.eye(theta.size)
        ]
    )
    np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-6)


# -- OAKExplainer: the two games -----------------------------------------------------------------
def _interventional_by_enumeration(model, X, B, w):
    """v(S) = sum_b w_b f(x_S, z_b,notS), by predicting every hybrid row."""
    d = X.shape[1]

    def v(coalitions):
        out = []
        for s in coalitions:
            vals = np.zeros(len(X))
            for b, wb in zip(B, w):
                H = X.copy()
                H[:, ~s] = b[~s]
                vals += wb * model.predict(H)
            out.append(vals)
        return np.array(out)

    return kx.exact_shapley(v, d)


@pytest.mark.parametrize("weighted", [False, True])
def test_interventional_game_equals_enumeration(fitted, weighted):
    model, X = fitted
    B = X[40:47]
    w = np.random.default_rng(2).uniform(0.2, 1.0, size=len(B)) if weighted else np.full(len(B), 1 / len(B))
    explainer = OAKExplainer(model, B, background_weights=w if weighted else None)
    assert explainer.game == "interventional"
    ex = explainer.explain(X[:5])
    ref = _interventional_by_enumeration(model, X[:5], B, w / w.sum())
    np.testing.assert_allclose(ex.values, ref.values, atol=1e-10)
    np.testing.assert_allclose(ex.base_values, ref.v_empty, atol=1e-10)
    # efficiency: values + base == predict, and the base is the weighted mean prediction on B
    np.testing.assert_allclose(ex.predictions, model.predict(X[:5]), atol=1e-10)
    np.testing.assert_allclose(ex.base_values, np.average(model.predict(B), weights=w), atol=1e-10)
    assert ex.game == "interventional" and ex.output == "predict of OAKRegressor"


def test_interventional_game_d7_order3_and_categorical(wide):
    model, X = wide
    ex = OAKExplainer(model, X[20:24]).explain(X[:3])
    ref = _interventional_by_enumeration(model, X[:3], X[20:24], np.full(4, 0.25))
    np.testing.assert_allclose(ex.values, ref.values, atol=1e-10)
    np.testing.assert_allclose(ex.predictions, model.predict(X[:3]), atol=1e-10)


def test_interventional_game_with_labels():
    rng = np.random.default_rng(6)
    n = 40
    lab = rng.choice(["a", "b", "c"], size=n)
    x = rng.normal(size=n)
    y = np.where(lab == "a", 1.0, -1.0) * x + 0.05 * rng.normal(size=n)
    X = np.empty((n, 2), dtype=object)
    X[:, 0], X[:, 1] = lab, x
    model = OAKRegressor(max_iter=10, random_state=0).fit(X, y)
    ex = OAKExplainer(model, X[30:36]).explain(X[:4])
    d = 2
    B = X[30:36]

    def v(coalitions):
        out = []
        for s in coalitions:
            vals = np.zeros(4)
            for b in B:
                H = X[:4].copy()
                H[:, ~s] = b[~s]
                vals += model.predict(H) / len(B)
            out.append(vals)
        return np.array(out)

    ref = kx.exact_shapley(v, d)
    np.testing.assert_allclose(ex.values, ref.values, atol=1e-10)
    np.testing.assert_allclose(ex.predictions, model.predict(X[:4]), atol=1e-10)


def test_anova_explainer_is_the_default_game(fitted):
    model, X = fitted
    explainer = OAKExplainer(model)
    assert explainer.game == "anova"
    ex = explainer.explain(X[:6])
    np.testing.assert_array_equal(ex.values, model.explain(X[:6]).values)
    ref = _local_by_enumeration(model, X[:6])
    np.testing.assert_allclose(ex.values, ref.values, atol=1e-10)
    np.testing.assert_allclose(ex.base_values + ex.values.sum(axis=1), model.predict(X[:6]), atol=1e-10)
    assert ex.game == "anova" and ex.output == "predict of OAKRegressor"


@pytest.mark.parametrize("background", [False, True])
def test_n_jobs_gives_identical_values(fitted, background):
    model, X = fitted
    explainer = OAKExplainer(model, X[:10] if background else None)
    one = explainer.explain(X[10:19], n_jobs=1)
    three = explainer.explain(X[10:19], n_jobs=3)
    np.testing.assert_allclose(three.values, one.values, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(three.base_values, one.base_values, rtol=1e-12, atol=1e-13)
    # random_state has no effect on exact values
    np.testing.assert_array_equal(explainer.explain(X[10:12], random_state=3).values, one.values[:2])


@pytest.mark.slow
def test_matches_shap_exact_explainer_on_the_background(fitted):
    shap = pytest.importorskip("shap")
    model, X = fitted
    B = X[30:36]
    ours = OAKExplainer(model, B).explain(X[:3])
    theirs = shap.ExactExplainer(model.predict, shap.maskers.Independent(B, max_samples=len(B)))(X[:3])
    np.testing.assert_allclose(ours.values, theirs.values, atol=1e-8)
    np.testing.assert_allclose(ours.base_values, theirs.base_values, atol=1e-8)


def test_explainer_options_and_errors(fitted):
    model, X = fitted
    with pytest.raises(ValueError, match="interactions"):
        OAKExplainer(model).explain(X[:2], interactions=True)
    with pytest.raises(ValueError, match="interactions"):
        OAKExplainer(model, X[:5]).explain(X[:2], interactions=True)
    with pytest.raises(NotFittedError):
        OAKExplainer(OAKRegressor())
    with pytest.raises(kx.UnsupportedModelError, match="OAKRegressor"):
        OAKExplainer(object())
    with pytest.raises(ValueError, match="background_weights"):
        OAKExplainer(model, X[:4], background_weights=[1.0, 2.0])
    with pytest.raises(ValueError, match="background"):
        OAKExplainer(model, X[:4, :2])
    names = OAKExplainer(model, feature_names=["a", "b", "c", "d"]).explain(X[:2]).feature_names
    assert names == ["a", "b", "c", "d"]
    assert isinstance(OAKExplainer(model), kx.Explainer)


def test_explainer_keeps_dataframe_index_and_progress():
    pd = pytest.importorskip("pandas")
    X, y = _data(40, 3)
    df = pd.DataFrame(X, columns=["a", "b", "c"], index=[f"r{i}" for i in range(40)])
    model = OAKRegressor(max_iter=5).fit(df, y)
    ex = OAKExplainer(model, df.iloc[:5]).explain(df.iloc[10:13], progress=True, n_jobs=2)
    assert list(ex.to_frame().index) == ["r10", "r11", "r12"]
    assert ex.feature_names == ["a", "b", "c"]


# --- issue 11 -----------------------------------------------------------------------------------


def test_zero_columns_are_refused_clearly():
    import pandas as pd

    for X0 in (np.zeros((5, 0)), pd.DataFrame(index=range(5))):
        with pytest.raises(ValueError, match="0 feature"):
            OAKRegressor(max_iter=0).fit(X0, np.arange(5.0))


def test_sparse_input_is_refused_naming_the_argument():
    import scipy.sparse as sp

    X, y = _data(20, 3)
    with pytest.raises(TypeError, match="[Ss]parse"):
        OAKRegressor(max_iter=0).fit(sp.csr_matrix(X), y)
    model = OAKRegressor(max_iter=0).fit(X, y)
    for call in (model.predict, model.explain, lambda A: model.component(0, A)):
        with pytest.raises(TypeError, match="[Ss]parse"):
            call(sp.csr_matrix(X))
    with pytest.raises(TypeError, match="background.*[Ss]parse|[Ss]parse.*background"):
        OAKExplainer(model, sp.csr_matrix(X))


@pytest.mark.parametrize(
    "y_bad, match",
    [
        (np.array(["a", "b"] * 10), "y must be numeric"),
        (np.array([str(v) for v in range(20)]), "y must be numeric"),
        (np.arange(20) + 1j, "y has complex values"),
        (np.arange(20).astype(complex), "y has complex values"),
    ],
)
def test_bad_targets_are_refused_naming_y(y_bad, match):
    X, _ = _data(20, 3)
    with pytest.raises(ValueError, match=match):
        OAKRegressor(max_iter=0).fit(X, y_bad)


def test_component_takes_integer_features_only():
    X, y = _data(20, 3)
    model = OAKRegressor(max_iter=0).fit(X, y)
    for bad in (1.5, [1.5], True):
        with pytest.raises(ValueError, match="features accepts feature indices"):
            model.component(bad, X)


@pytest.mark.parametrize("bad", [-1, "seed", 1.5])
def test_bad_random_state_is_named(bad):
    X, y = _data(20, 3)
    with pytest.raises(ValueError, match="random_state"):
        OAKRegressor(max_iter=0, random_state=bad).fit(X, y)
    model = OAKRegressor(max_iter=0).fit(X, y)
    with pytest.raises(ValueError, match="random_state"):
        model.sample_input_measure(3, random_state=bad)


@pytest.mark.parametrize("scale", [1e300, 1e-300])
@pytest.mark.parametrize("normalize", [True, False])
def test_extreme_scales_of_X_are_rescaled_internally(scale, normalize):
    X, y = _data(30, 3)
    ref = OAKRegressor(max_iter=0, normalize_inputs=normalize).fit(X, y)
    big = OAKRegressor(max_iter=0, normalize_inputs=normalize).fit(X * scale, y)
    pred = big.predict(X[:5] * scale)
    assert np.all(np.isfinite(pred))
    # the internal rescaling is an exact power of two per column: within rounding of the model on X
    # up to that power of two, which the Yeo-Johnson transform and the lengthscales absorb
    assert np.corrcoef(pred, ref.predict(X[:5]))[0, 1] > 0.99
    ex = big.explain(X[:3] * scale)
    np.testing.assert_allclose(ex.predictions, big.predict(X[:3] * scale), rtol=1e-10)


@pytest.mark.parametrize("scale", [1e300, 1e-300])
def test_extreme_scales_of_y_give_finite_predictions_in_target_units(scale):
    X, y = _data(30, 3)
    ref = OAKRegressor(max_iter=0).fit(X, y)
    big = OAKRegressor(max_iter=0).fit(X, y * scale)
    mean, std = big.predict(X[:5], return_std=True)
    r_mean, r_std = ref.predict(X[:5], return_std=True)
    np.testing.assert_allclose(mean / scale, r_mean, rtol=1e-10)
    np.testing.assert_allclose(std / scale, r_std, rtol=1e-10)
    ex = big.explain(X[:3])
    np.testing.assert_allclose(ex.values / scale, ref.explain(X[:3]).values, rtol=1e-9, atol=1e-12)


def test_variance_that_overflows_is_reported_naming_y():
    X, y = _data(30, 3)
    big = OAKRegressor(max_iter=0).fit(X, y * 1e300)
    with pytest.raises(OverflowError, match="y"):
        big.global_importance()
    small = OAKRegressor(max_iter=0).fit(X, y * 1e-100)
    ref = OAKRegressor(max_iter=0).fit(X, y)
    np.testing.assert_allclose(small.global_importance().values / 1e-200, ref.global_importance().values, rtol=1e-9)

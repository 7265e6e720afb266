"""ModelAgnosticExplainer, ObservationalExplainer and the routing of RKHSExplainer (issue #22, item 4).

RKHSExplainer does no solving of its own: each (model, game) goes to one explainer, whose values
it returns unchanged (bit for bit).
"""

from __future__ import annotations

import pickle
from itertools import combinations
from math import factorial

import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import Matern
from sklearn.kernel_ridge import KernelRidge

import kexplain as kx
from kexplain.explainers import ModelAgnosticExplainer
from kexplain.rkhs import ObservationalExplainer


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(50, 4))
    X[:, 1] += 0.7 * X[:, 0]
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2] - X[:, 3]
    return X, y


def f(Z):
    return np.tanh(Z[:, 0]) * Z[:, 1] + Z[:, 2] ** 2 - 0.5 * Z[:, 3]


def brute_force(model, x, R, w=None):
    """Shapley values of v(S) = mean_r model(x_S, r_Sc), by the Shapley formula over every coalition."""
    d = R.shape[1]
    w = np.full(R.shape[0], 1.0 / R.shape[0]) if w is None else w / w.sum()

    def v(S):
        H = R.copy()
        H[:, list(S)] = x[list(S)]
        return float(model(H) @ w)

    phi = np.zeros(d)
    for j in range(d):
        others = [k for k in range(d) if k != j]
        for s in range(d):
            for S in combinations(others, s):
                wt = factorial(s) * factorial(d - s - 1) / factorial(d)
                phi[j] += wt * (v(S + (j,)) - v(S))
    return phi, v(())


@pytest.mark.parametrize("weighted", [False, True])
def test_model_agnostic_values_equal_the_shapley_formula(data, weighted):
    X, _ = data
    R = X[:12]
    w = np.linspace(0.5, 2.0, 12) if weighted else None
    ex = ModelAgnosticExplainer(f, R, background_weights=w)
    e = ex.explain(X[20:23])
    assert e.game == "interventional" and e.output == "f (callable)" and e.info["solver"] == "exact"
    for p in range(3):
        phi, base = brute_force(f, X[20 + p], R, w)
        np.testing.assert_allclose(e.values[p], phi, rtol=1e-10, atol=1e-12)
        assert e.base_values[p] == pytest.approx(base, rel=1e-12)
    np.testing.assert_allclose(e.predictions, f(X[20:23]), rtol=1e-12)


def test_model_agnostic_matches_shap_exact_explainer(data):
    shap = pytest.importorskip("shap")
    X, _ = data
    R = X[:10]
    ours = ModelAgnosticExplainer(f, R).explain(X[30:33])
    theirs = shap.ExactExplainer(f, shap.maskers.Independent(R, max_samples=10))(X[30:33])
    np.testing.assert_allclose(ours.values, theirs.values, rtol=1e-9, atol=1e-10)


def test_model_agnostic_sampled_beyond_the_limit_has_standard_errors(data):
    X, _ = data
    R = X[:10]
    exact = ModelAgnosticExplainer(f, R).explain(X[:2])
    ex = ModelAgnosticExplainer(f, R, max_exact_features=3)
    s = ex.explain(X[:2], random_state=0)
    assert s.info["solver"] == "sampled" and s.standard_errors.shape == (2, 4)
    assert np.all(np.abs(s.values - exact.values) <= 6 * s.standard_errors + 1e-9)
    np.testing.assert_allclose(s.values.sum(axis=1), exact.values.sum(axis=1), rtol=1e-10)  # efficiency holds
    np.testing.assert_array_equal(ex.explain(X[:2], random_state=0, n_jobs=2).values, s.values)
    with pytest.raises(ValueError, match="interactions=True needs enumerated coalitions"):
        ex.explain(X[:2], interactions=True)


def test_model_agnostic_bad_input_is_named(data):
    X, _ = data
    with pytest.raises(ValueError, match="background is required for a model of type function"):
        ModelAgnosticExplainer(f)
    with pytest.raises(ValueError, match="max_exact_features must be a positive integer"):
        ModelAgnosticExplainer(f, X[:5], max_exact_features=0)
    with pytest.raises(ValueError, match="max_block_bytes must be a positive integer"):
        ModelAgnosticExplainer(f, X[:5], max_block_bytes=True)
    with pytest.raises(kx.UnsupportedModelError, match="neither predict nor __call__"):
        ModelAgnosticExplainer(object(), X[:5])
    with pytest.raises(ValueError, match="X has 3 features, but the model expects 4"):
        ModelAgnosticExplainer(KernelRidge().fit(X, X[:, 0]), X[:5]).explain(X[:2, :3])


def test_model_agnostic_keeps_training_rows_of_an_estimator_and_pickles(data):
    X, y = data
    krr = KernelRidge(kernel="rbf", gamma=0.3, alpha=0.1).fit(X[:30], y[:30])
    ex = ModelAgnosticExplainer(krr)
    np.testing.assert_array_equal(ex.background, X[:30])
    assert ex.output == "predict of KernelRidge"
    again = pickle.loads(pickle.dumps(ex))
    np.testing.assert_array_equal(again.explain(X[40:42]).values, ex.explain(X[40:42]).values)


def test_rkhs_explainer_routes_and_returns_the_routed_values_bit_for_bit(data):
    X, y = data
    krr = KernelRidge(kernel="rbf", gamma=0.3, alpha=0.1).fit(X, y)
    mat = GaussianProcessRegressor(Matern(length_scale=1.5, nu=1.5), alpha=1e-2, optimizer=None).fit(X, y)
    B, P = X[:20], X[30:34]
    # interventional, product kernel: ProductKernelExplainer, not a copy of it
    rk = kx.RKHSExplainer(krr, B, game="interventional")
    assert type(rk.explainer) is kx.ProductKernelExplainer
    np.testing.assert_array_equal(rk.explain(P).values, kx.ProductKernelExplainer(krr, B).explain(P).values)
    # interventional, any other model: ModelAgnosticExplainer on the model's own predict
    for model in (mat, f):
        rk = kx.RKHSExplainer(model, B, game="interventional")
        assert type(rk.explainer) is ModelAgnosticExplainer
        np.testing.assert_array_equal(rk.explain(P).values, ModelAgnosticExplainer(model, B).explain(P).values)
    # observational: ObservationalExplainer, for product kernels, other kernels and callables
    for model in (krr, mat, f):
        rk = kx.RKHSExplainer(model, B)
        assert type(rk.explainer) is ObservationalExplainer
        direct = ObservationalExplainer(model, B).explain(P)
        np.testing.assert_array_equal(rk.explain(P).values, direct.values)
        np.testing.assert_allclose(direct.predictions, rk.explain(P).predictions, rtol=0, atol=0)


def test_sampled_product_interventional_runs_on_the_models_predict(data):
    """A budget asks for the sampled solver: the game is then evaluated on the expansion's own
    predict at hybrid rows, and agrees with the exact engine within the standard errors."""
    X, y = data
    krr = KernelRidge(kernel="rbf", gamma=0.3, alpha=0.1).fit(X, y)
    rk = kx.RKHSExplainer(krr, X[:20], game="interventional")
    exact = rk.explain(X[30:33])
    s = rk.explain(X[30:33], budget=200, random_state=0)
    assert s.info["solver"] == "sampled" and s.output == exact.output == "predict of KernelRidge"
    assert np.all(np.abs(s.values - exact.values) <= 6 * s.standard_errors + 1e-9)
    np.testing.assert_allclose(s.predictions, krr.predict(X[30:33]), rtol=1e-10)
    S = np.array([[True, False, True, False], [False] * 4])
    v = rk.value_function(X[30:33])(S)
    phi, base = brute_force(krr.predict, X[30], X[:20])
    assert v[1, 0, 0] == pytest.approx(base, rel=1e-12)
    H = X[:20].copy()
    H[:, [0, 2]] = X[30, [0, 2]]
    assert v[0, 0, 0] == pytest.approx(krr.predict(H).mean(), rel=1e-12)


def test_observational_explainer_is_efficient_and_caches_per_coalition(data):
    X, y = data
    krr = KernelRidge(kernel="rbf", gamma=0.3, alpha=0.1).fit(X, y)
    ex = ObservationalExplainer(krr, X[:25], cme_regularization=1e-2)
    e = ex.explain(X[30:33])
    np.testing.assert_allclose(e.predictions, krr.predict(X[30:33]), rtol=1e-10)
    assert len(ex._cme.cache) == 2**4 - 2
    np.testing.assert_array_equal(ex.explain(X[30:33], n_jobs=2).values, e.values)
    with pytest.raises(ValueError, match="cme_regularization must be a positive finite number"):
        ObservationalExplainer(krr, cme_regularization=0.0)


def test_value_attribute_is_a_deprecated_name_of_game(data):
    X, y = data
    krr = KernelRidge(kernel="rbf", gamma=0.3, alpha=0.1).fit(X, y)
    ex = kx.RKHSExplainer(krr, X[:10], game="interventional")
    with pytest.warns(FutureWarning, match="read RKHSExplainer.game"):
        assert ex.value == "interventional"


@pytest.mark.parametrize("game", ["observational", "interventional"])
def test_weighted_routes_are_the_routed_explainers_and_survive_pickling(data, game):
    X, y = data
    mat = GaussianProcessRegressor(Matern(length_scale=1.5, nu=1.5), alpha=1e-2, optimizer=None).fit(X, y)
    B, P = X[:20], X[30:33]
    w = np.random.default_rng(1).uniform(0.1, 3.0, 20)
    rk = kx.RKHSExplainer(mat, B, background_weights=w, game=game)
    direct = (ObservationalExplainer if game == "observational" else ModelAgnosticExplainer)(
        mat, B, background_weights=w
    ).explain(P)
    got = rk.explain(P)
    np.testing.assert_array_equal(got.values, direct.values)
    # the restricted kernels are objects, not closures: a kernel model's explainer ships to a worker
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(rk)).explain(P).values, got.values)
    if game == "observational":
        callable_obs = kx.RKHSExplainer(f, B)  # the default RBF of a callable pickles too
        np.testing.assert_array_equal(
            pickle.loads(pickle.dumps(callable_obs)).explain(P).values, callable_obs.explain(P).values
        )

"""RKHSWeightingRegressor / RKHSWeightingClassifier: scikit-learn conventions, fit, STAR view."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from sklearn.utils.estimator_checks import parametrize_with_checks

import kexplain as kx
from kexplain.star import (
    RKHSWeighting,
    RKHSWeightingClassifier,
    RKHSWeightingRegressor,
    RWRelu,
    StarExplainer,
    UniformSubsets,
)


@parametrize_with_checks(
    [
        RKHSWeightingRegressor(n_parameters=40, random_state=0),
        RKHSWeightingRegressor(n_parameters=40, interaction_order=2, subsets="up_to", random_state=0),
        RKHSWeightingClassifier(n_parameters=40, random_state=0),
        RKHSWeightingClassifier(instantiation="stumps", n_parameters=40, random_state=0),
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _data(n=160, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2] + 0.1 * rng.normal(size=n)
    return X, y


@pytest.mark.parametrize(
    "instantiation,order,subsets",
    [
        ("relu", None, "size"),
        ("sign", 2, "size"),
        ("relu", 2, "up_to"),
        ("relu", 3, "sequences"),
        ("sign", 3, "sequences_up_to"),
        ("stumps", None, "size"),
    ],
)
def test_fit_recovers_a_model_drawn_from_its_own_class(instantiation, order, subsets):
    """Targets from random coefficients on the parameters the estimator will sample: the
    least-squares fit (tiny lambda) recovers the function and the coefficients."""
    rng = np.random.default_rng(1)
    d, T = 5, 25
    X, Xtest = rng.normal(size=(400, d)), rng.normal(size=(200, d))
    est = RKHSWeightingRegressor(
        instantiation=instantiation,
        n_parameters=T,
        interaction_order=order,
        subsets=subsets,
        regularization=0.0,
        epsilon=0.0,
        gamma=1.5,
        standardize=False,
        random_state=3,
    )
    est.fit(X, np.zeros(len(X)))  # to read the parameters it samples
    truth = est.weighting_
    a = rng.normal(size=T)
    y = truth.design_matrix(X) @ a
    est.fit(X, y)
    np.testing.assert_array_equal(np.concatenate(est.weighting_.weights_), np.concatenate(truth.weights_))
    y_test = truth.design_matrix(Xtest) @ a
    r2 = 1 - np.sum((est.predict(Xtest) - y_test) ** 2) / np.sum((y_test - y_test.mean()) ** 2)
    assert r2 > 0.9999
    # the coefficients themselves are identifiable only when the design is well conditioned
    # (1-D ReLU or sign features are nearly collinear, so some classes recover f but not a)
    if np.linalg.cond(truth.design_matrix(X)) < 1e6:
        np.testing.assert_allclose(est.coef_, a, atol=1e-2)


def test_fit_learns_smooth_function():
    X, y = _data(300)
    Xt, yt = _data(200, seed=1)
    est = RKHSWeightingRegressor(n_parameters=300, interaction_order=2, random_state=0).fit(X, y)
    assert est.score(Xt, yt) > 0.7


def test_least_squares_solves_equation_64():
    X, y = _data(60)
    rng = np.random.default_rng(0)
    w = RKHSWeighting(RWRelu(sigma=1.0, gamma=1.0), 5, UniformSubsets(5, 2)).sample(30, rng)
    lam, eps = 1e-3, 1e-6
    a = w.fit_coefficients(X, y, lam, eps)
    Phi, G, m = w.design_matrix(X), w.gram(), len(X)
    # gradient of (1/2m)||Phi a - y||^2 + lam/2 a'Ga + eps/2 a'a is zero at the solution
    grad = Phi.T @ (Phi @ a - y) / m + lam * G @ a + eps * a
    assert np.abs(grad).max() < 1e-8 * max(1.0, np.abs(Phi.T @ y).max())


@pytest.mark.parametrize("subsets,order", [("size", 2), ("up_to", 3), ("sequences", 2)])
def test_star_model_reproduces_predict_and_respects_the_order(subsets, order):
    X, y = _data(120)
    est = RKHSWeightingRegressor(n_parameters=80, interaction_order=order, subsets=subsets, random_state=0).fit(X, y)
    star = est.to_star_model()
    assert star.max_order <= order
    np.testing.assert_allclose(star.predict(X), est.predict(X), rtol=1e-10, atol=1e-10)
    if subsets == "sequences":
        assert all(t.features == tuple(range(t.features[0], t.features[0] + order)) for t in star.terms)
    ex = StarExplainer(est, X[:15]).explain(X[:4], interactions=True)
    np.testing.assert_allclose(ex.predictions, est.predict(X[:4]), atol=1e-10)
    assert ex.output == star.output == "predict of RKHSWeightingRegressor" and ex.game == "interventional"


def test_original_instantiation_is_one_full_term():
    X, y = _data(80, d=4)
    est = RKHSWeightingRegressor(instantiation="sign", n_parameters=30, random_state=0).fit(X, y)
    star = est.to_star_model()
    assert len(star.terms) == 1 and star.terms[0].features == (0, 1, 2, 3)
    ex = StarExplainer(est, X[:5]).explain(X[:3])
    ref = kx.exact_shapley(
        lambda S: np.array(
            [est.predict(np.where(s, X[:3, None, :], X[None, :5, :]).reshape(-1, 4)).reshape(3, 5).mean(1) for s in S]
        ),
        4,
    )
    np.testing.assert_allclose(ex.values, ref.values, atol=1e-10)


def test_classifier_binary_and_multiclass():
    X, y = _data(150)
    yb = (y > 0).astype(int)
    clf = RKHSWeightingClassifier(n_parameters=100, interaction_order=2, random_state=0).fit(X, yb)
    assert clf.score(X, yb) > 0.8
    star = clf.to_star_model()
    np.testing.assert_allclose(star.predict(X), clf.decision_function(X), atol=1e-10)
    yc = np.digitize(y, [-0.5, 0.5])
    clf3 = RKHSWeightingClassifier(instantiation="stumps", n_parameters=100, random_state=0).fit(X, yc)
    scores = clf3.decision_function(X)
    assert scores.shape == (150, 3)
    np.testing.assert_array_equal(clf3.predict(X), clf3.classes_[scores.argmax(1)])
    ex = StarExplainer(clf3, X[:10]).explain(X[:3])
    assert ex.values.shape == (3, 5, 3)
    assert ex.output == "decision_function of RKHSWeightingClassifier"
    assert ex.output_names == [f"score({c})" for c in clf3.classes_]
    np.testing.assert_allclose(ex.predictions, scores[:3], atol=1e-10)


def test_clone_gridsearch_and_determinism():
    X, y = _data(100)
    est = RKHSWeightingRegressor(n_parameters=50, interaction_order=2, random_state=0)
    assert clone(est).get_params() == est.get_params()
    gs = GridSearchCV(est, {"regularization": [1e-6, 1e-2], "c": [0.1, 0.5]}, cv=3).fit(X, y)
    assert set(gs.best_params_) == {"regularization", "c"}
    p1 = clone(est).fit(X, y).predict(X)
    p2 = clone(est).fit(X, y).predict(X)
    np.testing.assert_array_equal(p1, p2)
    p3 = clone(est).set_params(random_state=1).fit(X, y).predict(X)
    assert not np.allclose(p1, p3)


def test_feature_names_pass_through():
    pd = pytest.importorskip("pandas")
    X, y = _data(60, d=3)
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    est = RKHSWeightingRegressor(n_parameters=20, interaction_order=1, random_state=0).fit(df, y)
    ex = StarExplainer(est, df.iloc[:5]).explain(df.iloc[:2])
    assert ex.feature_names == ["a", "b", "c"]


@pytest.mark.parametrize(
    "params,match",
    [
        ({"instantiation": "tanh"}, "instantiation must be one of"),
        ({"n_parameters": 0}, "n_parameters must be a positive integer"),
        ({"interaction_order": 0}, "interaction_order must be None or a positive integer"),
        ({"interaction_order": 9}, "exceeds the number of features"),
        ({"interaction_order": 2, "subsets": "pairs"}, "subsets must be one of"),
        ({"regularization": -1.0}, "regularization must be a non-negative number"),
        ({"c": 1.5}, "c must lie strictly between 0 and 1"),
        ({"instantiation": "stumps", "interaction_order": 2}, "already additive"),
        ({"sigma": -1.0}, "sigma must be a positive number"),
    ],
)
def test_bad_hyper_parameters(params, match):
    X, y = _data(30)
    with pytest.raises(ValueError, match=match):
        RKHSWeightingRegressor(**{"n_parameters": 10, **params}).fit(X, y)


# --- issue 11 -----------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [RKHSWeightingRegressor, RKHSWeightingClassifier])
def test_unfitted_to_star_model_raises_not_fitted(cls):
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        cls().to_star_model()
    with pytest.raises(NotFittedError):
        StarExplainer(cls(), np.zeros((3, 2)))


@pytest.mark.parametrize("bad", [-1, "seed", 1.5])
def test_bad_random_state_is_named(bad):
    X = np.random.default_rng(0).normal(size=(10, 2))
    with pytest.raises(ValueError, match="random_state"):
        RKHSWeightingRegressor(n_parameters=5, random_state=bad).fit(X, X[:, 0])
    with pytest.raises(ValueError, match="random_state"):
        kx.star.unanimity_model(4, 2, 2, random_state=bad)
    with pytest.raises(ValueError, match="random_state"):
        kx.star.unanimity_data(4, 2, random_state=bad)

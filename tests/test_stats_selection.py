"""HSICShapleySelector: scikit-learn selector conventions, Pipeline and GridSearchCV."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

import kexplain as kx
from kexplain.stats import HSICShapleySelector, hsic_shapley


@pytest.fixture
def regression(rng):
    X = rng.normal(size=(40, 6))
    y = np.sin(X[:, 4]) * 2 + X[:, 1] + 0.1 * rng.normal(size=40)
    return X, y


def test_scores_are_the_hsic_shapley_values_of_standardized_features(regression):
    X, y = regression
    sel = HSICShapleySelector(n_features_to_select=2).fit(X * [1, 10, 1, 1, 100, 1], y)
    att = hsic_shapley((X - X.mean(0)) / X.std(0), y)
    np.testing.assert_allclose(sel.scores_, att.values, rtol=1e-10)
    assert isinstance(sel.attribution_, kx.GlobalAttribution) and sel.attribution_.quantity == "HSIC"
    assert sel.scores_.sum() == pytest.approx(sel.attribution_.total, rel=1e-10)
    assert set(np.flatnonzero(sel.get_support())) == {1, 4}
    assert sel.transform(X).shape == (40, 2)
    assert sel.ranking_.min() == 1 and sorted(sel.ranking_) == list(range(1, 7))


@pytest.mark.parametrize("k, expected", [(None, 3), (1, 1), (0.2, 1), (0.5, 3), (1.0, 6), (6, 6)])
def test_n_features_to_select(regression, k, expected):
    X, y = regression
    assert HSICShapleySelector(n_features_to_select=k).fit(X, y).get_support().sum() == expected


@pytest.mark.parametrize("k", [0, 7, -1, 1.5, 0.0, "all", True])
def test_bad_n_features_to_select(regression, k):
    X, y = regression
    with pytest.raises(ValueError, match="n_features_to_select must be"):
        HSICShapleySelector(n_features_to_select=k).fit(X, y)


def test_classification_target_uses_delta_kernel(rng):
    X = rng.normal(size=(40, 4))
    y = (X[:, 2] > 0).astype(int)
    sel = HSICShapleySelector(n_features_to_select=1).fit(X, y)
    assert isinstance(sel.attribution_.info["kernel_other"], kx.kernels.Categorical)
    assert np.flatnonzero(sel.get_support()).tolist() == [2]


def test_pipeline_and_grid_search(regression, rng):
    X, y = regression
    pipe = make_pipeline(HSICShapleySelector(), Ridge())
    grid = GridSearchCV(pipe, {"hsicshapleyselector__n_features_to_select": [1, 2, 4]}, cv=3).fit(X, y)
    assert grid.best_params_["hsicshapleyselector__n_features_to_select"] in (2, 4)
    Xc = rng.normal(size=(45, 5))
    yc = np.where(Xc[:, 0] + Xc[:, 3] > 0, "a", "b")
    pc = make_pipeline(HSICShapleySelector(n_features_to_select=2), LogisticRegression()).fit(Xc, yc)
    assert pc.score(Xc, yc) > 0.8
    assert set(np.flatnonzero(pc[0].get_support())) == {0, 3}


def test_sklearn_conventions(regression):
    pd = pytest.importorskip("pandas")
    X, y = regression
    sel = HSICShapleySelector(n_features_to_select=2, max_samples=30, random_state=0)
    assert clone(sel).get_params() == sel.get_params()
    Xdf = pd.DataFrame(X, columns=list("abcdef"))
    sel.fit(Xdf, y)
    assert list(sel.feature_names_in_) == list("abcdef")
    assert list(sel.get_feature_names_out()) == [c for c, s in zip("abcdef", sel.get_support()) if s]
    np.testing.assert_array_equal(clone(sel).fit(Xdf, y).scores_, sel.scores_)  # deterministic
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        HSICShapleySelector().transform(X)
    with pytest.raises(ValueError, match="max_samples"):
        HSICShapleySelector(max_samples=1).fit(X, y)
    with pytest.raises(TypeError, match="max_samples"):
        HSICShapleySelector(max_samples=2.5).fit(X, y)
    with pytest.raises(ValueError, match="random_state"):
        HSICShapleySelector(max_samples=30, random_state=-3).fit(X, y)
    with pytest.raises(ValueError, match="estimator must be"):
        HSICShapleySelector(estimator="plugin").fit(X, y)
    with pytest.raises(TypeError, match="standardize must be True or False"):
        HSICShapleySelector(standardize="yes").fit(X, y)
    with pytest.raises(ValueError, match="kernel_y must be 'auto'"):
        HSICShapleySelector(kernel_y="delta").fit(X, y)
    with pytest.raises(ValueError, match="features"):
        HSICShapleySelector(n_features_to_select=2).fit(X, y).transform(X[:, :4])


@parametrize_with_checks([HSICShapleySelector()])
def test_passes_sklearn_estimator_checks(estimator, check):
    check(estimator)

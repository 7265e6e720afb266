"""interpret's Explainable Boosting Machines through the STAR adapter (optional extra ``star``)."""

import numpy as np
import pytest

interpret_glassbox = pytest.importorskip("interpret.glassbox")

import kexplain as kx  # noqa: E402
from kexplain.star import StarExplainer, as_star_model  # noqa: E402


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(250, 4))
    y = X[:, 0] * X[:, 1] + np.sin(X[:, 2]) + 0.1 * rng.normal(size=250)
    return X, y


def _fit(cls, X, y, **kw):
    return cls(interactions=2, outer_bags=1, max_rounds=150, random_state=0, n_jobs=1, **kw).fit(X, y)


def test_regressor_terms_reproduce_the_ebm(data):
    X, y = data
    ebm = _fit(interpret_glassbox.ExplainableBoostingRegressor, X, y)
    star = as_star_model(ebm)
    assert any(t.size == 2 for t in star.terms)
    rng = np.random.default_rng(1)
    Xt = rng.normal(size=(60, 4))
    Xt[:20, 0] = ebm.bins_[0][0][:20]  # values exactly at cut points
    Xt[20:25] = 50.0  # beyond the last cut
    np.testing.assert_allclose(star.predict(Xt), ebm.predict(Xt), atol=1e-12)
    per_term = ebm.eval_terms(Xt)
    for t, term in enumerate(star.terms):
        np.testing.assert_allclose(term(Xt[:, list(term.features)]), per_term[:, t], atol=1e-12)


def test_explanations_match_enumeration_on_ebm_predict(data):
    X, y = data
    ebm = _fit(interpret_glassbox.ExplainableBoostingRegressor, X, y)
    Z, Xe = X[:12], X[100:103]
    ex = StarExplainer(ebm, Z).explain(Xe, interactions=True)

    def vf(S):
        return np.array(
            [ebm.predict(np.where(s, Xe[:, None, :], Z[None]).reshape(-1, 4)).reshape(3, 12).mean(1) for s in S]
        )

    ref = kx.exact_shapley(vf, 4)
    np.testing.assert_allclose(ex.values, ref.values, atol=1e-10)
    np.testing.assert_allclose(ex.predictions, ebm.predict(Xe), atol=1e-10)
    assert ex.output == "predict of ExplainableBoostingRegressor"


def test_classifier_explains_the_logit(data):
    X, y = data
    clf = _fit(interpret_glassbox.ExplainableBoostingClassifier, X, (y > 0).astype(int))
    ex = StarExplainer(clf, X[:10]).explain(X[:5])
    assert ex.values.ndim == 2
    assert ex.output == "decision_function (logit) of ExplainableBoostingClassifier"
    np.testing.assert_allclose(ex.predictions, clf.decision_function(X[:5]), atol=1e-10)


def test_unfitted_ebm_is_refused():
    with pytest.raises(kx.UnsupportedModelError, match="not fitted"):
        as_star_model(interpret_glassbox.ExplainableBoostingRegressor())

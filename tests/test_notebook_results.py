"""Results where users look: notebook HTML, shap-style indexing, interactions through to_shap."""

from __future__ import annotations

from html.parser import HTMLParser

import numpy as np
import pytest

import kexplain as kx


class _Checker(HTMLParser):
    """Collects text and checks that every opened tag is closed in order (well-formed HTML)."""

    VOID = {"br", "hr", "img", "meta", "input"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.text: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append(tag)
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-1:]}"
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parse(html: str) -> _Checker:
    checker = _Checker()
    checker.feed(html)
    checker.close()
    assert checker.stack == [], f"unclosed tags {checker.stack}"
    return checker


@pytest.fixture(scope="module")
def explained():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 4))
    y = X[:, 0] + X[:, 1] * X[:, 2]
    from sklearn.svm import SVR

    model = SVR(C=10.0, gamma=0.3).fit(X, y)
    names = ["<b>x</b>", "bmi", "age", "bp"]
    ex = kx.ProductKernelExplainer(model, background=X[:15], feature_names=names).explain(X[:6], interactions=True)
    return model, X, ex


def test_explanation_html_is_well_formed_and_escapes_names(explained):
    _, _, ex = explained
    html = ex._repr_html_()
    checker = _parse(html)
    assert "b" not in checker.tags, "a feature name was rendered as markup"
    assert "&lt;b&gt;x&lt;/b&gt;" in html
    text = " ".join(checker.text)
    assert "interventional" in text and "efficiency check" in text
    # the listed features are the largest by mean |value|, in that order
    order = np.argsort(-np.abs(ex.values).mean(axis=0), kind="stable")
    listed = [t for t in checker.text if t in ex.feature_names]
    assert listed == [ex.feature_names[j] for j in order]


def test_global_attribution_html_is_well_formed_and_escapes_names():
    g = kx.GlobalAttribution([0.75, 0.25], 1.0, ["<script>alert(1)</script>", "b"], "variance", p_values=[0.01, 0.4])
    html = g._repr_html_()
    checker = _parse(html)
    assert "script" not in checker.tags
    assert "&lt;script&gt;" in html
    assert "75.0%" in html and "p-value" in html


def test_indexing_matches_slicing_the_arrays(explained):
    _, _, ex = explained
    one = ex[:, "bmi"]
    np.testing.assert_array_equal(one.values[:, 0], ex.values[:, 1])
    assert one.feature_names == ["bmi"]
    pick = ex[1:4, ["age", "<b>x</b>"]]
    np.testing.assert_array_equal(pick.values, ex.values[1:4][:, [2, 0]])
    np.testing.assert_array_equal(pick.interactions, ex.interactions[1:4][:, [2, 0]][:, :, [2, 0]])
    np.testing.assert_array_equal(pick.base_values, ex.base_values[1:4])
    np.testing.assert_array_equal(pick.data, np.asarray(ex.data)[1:4][:, [2, 0]])
    mask = np.array([True, False, True, False])
    np.testing.assert_array_equal(ex[:, mask].values, ex.values[:, mask])
    np.testing.assert_array_equal(ex[2, 1:3].values, ex.values[2:3, 1:3])
    np.testing.assert_array_equal(ex[:, -1].values[:, 0], ex.values[:, -1])
    # the full set of features still sums to the prediction; a subset refuses to pretend it does
    np.testing.assert_allclose(ex[:, :].predictions, ex.predictions)
    with pytest.raises(ValueError, match="only some of the features"):
        _ = pick.predictions


def test_indexing_errors_name_what_is_accepted(explained):
    _, _, ex = explained
    with pytest.raises(IndexError, match=r"'weight' is not a feature name \(features: "):
        ex[:, "weight"]
    with pytest.raises(IndexError, match="feature index 7 is out of range for 4 features"):
        ex[:, 7]
    with pytest.raises(IndexError, match=r"boolean feature mask must have shape \(4,\)"):
        ex[:, np.array([True, False])]
    with pytest.raises(IndexError, match="single output"):
        ex[:, :, 0]


def test_multi_output_indexing_by_feature_and_output():
    values = np.arange(24.0).reshape(2, 3, 4)
    ex = kx.Explanation(values, np.zeros((2, 4)), feature_names=["a", "b", "c"], output_names=list("pqrs"))
    np.testing.assert_array_equal(ex[:, "b", "r"].values[:, 0], values[:, 1, 2])
    np.testing.assert_array_equal(ex[:, ["c", "a"], 1].values, values[:, [2, 0], 1])
    np.testing.assert_array_equal(ex[:, :, "s"].values, values[:, :, 3])
    np.testing.assert_array_equal(ex[:, "q"].values, values[:, :, 1])  # a name of an output picks it
    np.testing.assert_array_equal(ex[:, "a"].values, values[:, :1, :])  # a feature's name picks the feature


def test_to_shap_feature_and_interactions(explained):
    shap = pytest.importorskip("shap")
    _, _, ex = explained
    sh = ex[:, "bmi"].to_shap()
    assert isinstance(sh, shap.Explanation) and sh.values.shape == (len(ex),)
    np.testing.assert_array_equal(sh.values, ex.values[:, 1])
    np.testing.assert_array_equal(ex.to_shap()[:, "bmi"].values, sh.values)  # same as slicing shap's
    inter = ex.to_shap(interactions=True)
    assert inter.values.shape == ex.interactions.shape
    np.testing.assert_array_equal(inter.values, ex.interactions)
    # shap TreeExplainer's layout: each row of the interaction matrix sums to the Shapley value
    np.testing.assert_allclose(inter.values.sum(axis=2), ex.values, atol=1e-10)
    plain = kx.Explanation(ex.values, ex.base_values)
    with pytest.raises(ValueError, match="no interactions"):
        plain.to_shap(interactions=True)

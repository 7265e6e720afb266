"""kx.plots: the global-importance comparison chart (the one plot shap has no equivalent of)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import kexplain as kx  # noqa: E402
from kexplain.plots import compare_importance, global_importance  # noqa: E402


@pytest.fixture(scope="module")
def two():
    rng = np.random.default_rng(5)
    X_ref = rng.normal(size=(20, 6))
    model = kx.KernelExpansion(X_ref, rng.normal(size=20), kx.kernels.RBF(lengthscale=1.5))
    X = rng.normal(size=(9, 6))
    return kx.ProductKernelExplainer(model).explain(X), kx.ProductKernelExplainer(model, X_ref[:8]).explain(X)


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def _bars(ax):
    return sorted(ax.patches, key=lambda p: (p.get_facecolor(), -p.get_y()))


def test_bar_lengths_are_mean_abs_values_ordered_by_first(two):
    ex_f, ex_i = two
    ax = compare_importance({"functional": ex_f, "interventional": ex_i})
    assert len(ax.patches) == 2 * 6
    order = np.argsort(-np.abs(ex_f.values).mean(axis=0), kind="stable")
    labels = [t.get_text() for t in ax.get_yticklabels()]
    y = ax.get_yticks()
    # top tick (largest y) is the most important feature of the first explanation
    assert [labels[i] for i in np.argsort(-y)] == [ex_f.feature_names[j] for j in order]
    for e, ex in enumerate((ex_f, ex_i)):
        color = ax.patches[e * 6].get_facecolor()
        widths = [p.get_width() for p in ax.patches if p.get_facecolor() == color]
        # bars are drawn top to bottom in the first explanation's order
        np.testing.assert_allclose(widths, np.abs(ex.values).mean(axis=0)[order], rtol=1e-12)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["functional", "interventional"]


def test_max_display_sums_the_rest(two):
    ex_f, ex_i = two
    ax = compare_importance({"f": ex_f, "i": ex_i}, max_display=3)
    assert len(ax.patches) == 2 * 4
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert "sum of 3 other features" in labels
    order = np.argsort(-np.abs(ex_f.values).mean(axis=0), kind="stable")
    first_widths = [p.get_width() for p in ax.patches[:4]]
    assert first_widths[-1] == pytest.approx(np.abs(ex_f.values).mean(axis=0)[order[3:]].sum())


def test_draws_into_given_axes(two):
    fig, ax = plt.subplots()
    assert compare_importance({"a": two[0], "b": two[1]}, ax=ax) is ax


def test_global_importance_outputs():
    rng = np.random.default_rng(6)
    model = kx.KernelExpansion(rng.normal(size=(8, 3)), rng.normal(size=(8, 2)), kx.kernels.RBF(1.0))
    ex = kx.ProductKernelExplainer(model).explain(rng.normal(size=(5, 3)))
    np.testing.assert_allclose(global_importance(ex), np.abs(ex.values).mean(axis=(0, 2)))
    np.testing.assert_allclose(global_importance(ex, output=1), np.abs(ex.values[:, :, 1]).mean(axis=0))
    with pytest.raises(ValueError, match="several outputs"):
        global_importance(ex[:, 0], output=0)


def test_bad_input(two):
    ex_f, ex_i = two
    with pytest.raises(ValueError, match="at least two"):
        compare_importance({"only": ex_f})
    with pytest.raises(ValueError, match="at least two"):
        compare_importance([ex_f, ex_i])
    with pytest.raises(ValueError, match="max_display must be a positive integer"):
        compare_importance({"a": ex_f, "b": ex_i}, max_display=0)
    other = kx.Explanation(ex_i.values, ex_i.base_values, feature_names=list("uvwxyz"))
    with pytest.raises(ValueError, match="explanations\\['b'\\] has features"):
        compare_importance({"a": ex_f, "b": other})
    with pytest.raises(TypeError, match="must be a kexplain.Explanation"):
        compare_importance({"a": ex_f, "b": ex_i.values})
    with pytest.raises(TypeError, match="must be a kexplain.Explanation"):
        global_importance(ex_f.values)

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


# -- shap's plots with output, game and a true base-value label (kx.plots.waterfall/bar/beeswarm) --
def _texts(fig):
    out = [t.get_text() for t in fig.findobj(lambda o: hasattr(o, "get_text"))]
    for ax in fig.axes:
        out += [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels()]
    return out


@pytest.mark.parametrize(
    "game,label", [("functional", "v(\\emptyset)"), ("baseline", "f(\\mathrm{baseline})"), ("anova", "f_0")]
)
def test_waterfall_relabels_the_base_value_where_it_is_not_a_mean(two, game, label):
    ex = kx.Explanation(two[0].values, two[0].base_values, data=two[0].data, game=game, output="predict")
    fig = kx.plots.waterfall(ex, row=2, max_display=4)
    texts = _texts(fig)
    assert fig.get_suptitle() == f"predict — {game} game"
    assert any(label in t for t in texts)
    assert not any("E[f(X)]" in t for t in texts)
    fig.canvas.draw()  # the new label survives drawing
    assert not any("E[f(X)]" in t for t in _texts(fig))


def test_waterfall_keeps_shaps_label_for_the_interventional_game(two):
    fig = kx.plots.waterfall(two[1], row=0)
    assert any("E[f(X)]" in t for t in _texts(fig))
    assert "interventional game" in fig.get_suptitle()


def _title_clear_of_everything(fig):
    """The suptitle lies inside the figure, above every axes' extent (tick labels such as shap's
    f(x) included), and every axes lies inside the figure."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    title = fig._suptitle.get_window_extent(renderer)
    assert title.y1 <= fig.bbox.height and title.x0 >= 0 and title.x1 <= fig.bbox.width
    for ax in fig.axes:
        box = ax.get_tightbbox(renderer)
        assert box.y1 < title.y0, (box, title)
        assert box.y0 >= 0 and box.x0 >= 0 and box.x1 <= fig.bbox.width


@pytest.mark.slow
@pytest.mark.parametrize("n_features,max_display", [(4, 10), (12, 12), (12, 3)])
def test_waterfall_title_never_overlaps_the_plot(n_features, max_display):
    rng = np.random.default_rng(n_features)
    ex = kx.Explanation(
        rng.normal(size=(2, n_features)) * 3,
        0.5,
        data=rng.normal(size=(2, n_features)),
        game="functional",
        output="predict of Pipeline(StandardScaler, SVR)",
    )
    fig = kx.plots.waterfall(ex, row=1, max_display=max_display)
    assert any("f(x)" in t for t in _texts(fig))
    _title_clear_of_everything(fig)
    plt.close(fig)


@pytest.mark.slow
def test_bar_and_beeswarm_titles_are_clear(two):
    for fig in (kx.plots.bar(two[1]), kx.plots.beeswarm(two[1])):
        _title_clear_of_everything(fig)
        plt.close(fig)


def test_bar_and_beeswarm_are_titled_and_pick_an_output():
    rng = np.random.default_rng(6)
    model = kx.KernelExpansion(rng.normal(size=(8, 3)), rng.normal(size=(8, 2)), kx.kernels.RBF(1.0))
    ex = kx.ProductKernelExplainer(model).explain(rng.normal(size=(5, 3)))
    with pytest.raises(ValueError, match="pick one with output"):
        kx.plots.bar(ex)
    fig = kx.plots.bar(ex, output=1)
    assert "functional game" in fig.get_suptitle()
    assert len(fig.axes[0].patches) >= 3
    fig = kx.plots.bar(ex, row=0, output=ex.output_names[0])
    assert "(" + ex.output_names[0] + ")" in fig.get_suptitle()
    fig = kx.plots.beeswarm(ex[:, 0])
    assert fig.get_suptitle().endswith("functional game")
    with pytest.raises(ValueError, match="row must be an integer"):
        kx.plots.waterfall(ex[:, 0], row=5)
    with pytest.raises(ValueError, match="max_display"):
        kx.plots.waterfall(ex[:, 0], max_display=0)


# -- plots of uncertain values ----------------------------------------------------------------
@pytest.fixture(scope="module")
def uncertain():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(30, 5))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2] + 0.1 * rng.normal(size=30)
    gp = kx.gp.OAKRegressor(max_interaction_order=2, max_iter=5).fit(X, y)
    return kx.gp.OAKExplainer(gp, X[:6]).explain(X[:12], uncertainty=True)


def test_bar_intervals_draws_values_and_credible_intervals(uncertain):
    ex = uncertain
    ax = kx.plots.bar_intervals(ex, row=3, level=0.9, max_display=3)
    order = np.argsort(-np.abs(ex.values[3]), kind="stable")
    widths = [p.get_width() for p in ax.patches]
    np.testing.assert_allclose(widths[:2], ex.values[3, order[:2]])
    rest = order[2:]
    assert widths[2] == pytest.approx(ex.values[3, rest].sum())
    # error bars: half-widths z * sd; the summed bar's variance is 1' C_rest 1 (covariances included)
    z = 1.6448536269514722
    segs = ax.collections[0].get_segments()
    half = np.array([(s[1][0] - s[0][0]) / 2 for s in segs])
    var_rest = ex.covariance[3][np.ix_(rest, rest)].sum()
    np.testing.assert_allclose(half, z * np.sqrt(np.r_[np.diag(ex.covariance[3])[order[:2]], var_rest]), rtol=1e-10)
    assert [t.get_text() for t in ax.get_yticklabels()][-1] == "sum of 3 other features"


def test_waterfall_intervals_steps_from_base_to_prediction(uncertain):
    ex = uncertain
    ax = kx.plots.waterfall_intervals(ex, row=1)
    bars = ax.patches
    ends = [p.get_x() + p.get_width() for p in bars]
    assert bars[0].get_x() == pytest.approx(ex.base_values[1])
    assert ends[-1] == pytest.approx(ex.predictions[1])
    notes = [t.get_text() for t in ax.texts]
    z = 1.959963984540054
    assert any(f"± {z * np.sqrt(ex.prediction_variance[1]):.3g}" in t and "f(x)" in t for t in notes)
    assert any("E[f(X)]" in t and f"± {z * np.sqrt(ex.base_variance[1]):.3g}" in t for t in notes)


def test_correlation_heatmap_is_the_correlation_of_the_covariance(uncertain):
    ex = uncertain
    ax = kx.plots.correlation(ex, row=2)
    C = ex.covariance[2]
    sd = np.sqrt(np.diag(C))
    np.testing.assert_allclose(np.asarray(ax.images[0].get_array()), C / np.outer(sd, sd), atol=1e-12)
    np.testing.assert_allclose(kx.plots.correlation_matrix(ex, 2), C / np.outer(sd, sd), atol=1e-12)


def test_excludes_zero_and_distinguishable_summary(uncertain):
    ex = uncertain
    lower, upper = ex.interval(0.95)
    sign = kx.plots.excludes_zero(ex)
    np.testing.assert_array_equal(sign, (lower > 0).astype(int) - (upper < 0).astype(int))
    ax = kx.plots.distinguishable(ex, max_display=5)
    frac = np.abs(sign).mean(axis=0)
    order = np.argsort(-frac, kind="stable")
    totals = {}
    for p in ax.patches:
        totals[p.get_y()] = max(totals.get(p.get_y(), 0.0), p.get_x() + p.get_width())
    np.testing.assert_allclose(sorted(totals.values(), reverse=True), frac[order], atol=1e-12)


def test_uncertainty_plots_need_a_covariance(two):
    with pytest.raises(ValueError, match="uncertainty=True"):
        kx.plots.bar_intervals(two[0])
    with pytest.raises(ValueError, match="uncertainty=True"):
        kx.plots.excludes_zero(two[0])
    ex = kx.Explanation(np.ones((1, 2)), 0.0, covariance=np.eye(2)[None])
    with pytest.raises(ValueError, match="level must be in"):
        kx.plots.excludes_zero(ex, level=1.5)


def test_wrappers_take_a_single_row_explanation(two):
    one = two[0][3]  # what the report passes: one row, as ``ex[row]`` gives it
    fig = kx.plots.waterfall(one)
    assert any("v(\\emptyset)" in t for t in _texts(fig))
    assert kx.plots.bar(one).get_suptitle().endswith("functional game")

"""Explanation: slicing, to_frame, to_shap and shap's plots."""

import matplotlib
import numpy as np
import pandas as pd
import pytest

import kexplain as kx
from kexplain.kernels import RBF, Categorical, ProductKernel

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def single():
    rng = np.random.default_rng(0)
    em = kx.KernelExpansion(
        rng.normal(size=(6, 3)), rng.normal(size=6), RBF([1.0, 2.0, 0.5]), intercept=0.3, feature_names=["a", "b", "c"]
    )
    X = rng.normal(size=(5, 3))
    return em, X, kx.ProductKernelExplainer(em).explain(X, interactions=True)


@pytest.fixture(scope="module")
def multi():
    rng = np.random.default_rng(1)
    em = kx.KernelExpansion(
        rng.normal(size=(6, 3)), rng.normal(size=(6, 2)), RBF(1.0), intercept=[1.0, -1.0], output_names=["up", "down"]
    )
    X = rng.normal(size=(4, 3))
    return em, X, kx.ProductKernelExplainer(em, background=X[:2]).explain(X, interactions=True)


def test_shapes_and_metadata(single, multi):
    _, _, ex = single
    assert ex.values.shape == (5, 3) and ex.base_values.shape == (5,) and ex.interactions.shape == (5, 3, 3)
    assert ex.feature_names == ["a", "b", "c"] and ex.output_names == ["f(x)"] and ex.n_outputs == 1
    assert len(ex) == 5 and ex.shape == (5, 3)
    _, _, exm = multi
    assert exm.values.shape == (4, 3, 2) and exm.base_values.shape == (4, 2)
    assert exm.interactions.shape == (4, 3, 3, 2)
    assert exm.output_names == ["up", "down"] and exm.feature_names == ["x0", "x1", "x2"]
    assert "interventional" in repr(exm) and "interactions" in repr(exm)


def test_predictions_and_mean_abs(single):
    em, X, ex = single
    np.testing.assert_allclose(ex.predictions, em.predict(X), rtol=1e-12)
    np.testing.assert_allclose(ex.mean_abs(), np.abs(ex.values).mean(axis=0))


def test_slicing_by_rows(single):
    _, X, ex = single
    sub = ex[1:3]
    assert sub.values.shape == (2, 3)
    np.testing.assert_array_equal(sub.values, ex.values[1:3])
    np.testing.assert_array_equal(sub.base_values, ex.base_values[1:3])
    np.testing.assert_array_equal(sub.data, X[1:3])
    np.testing.assert_array_equal(sub.interactions, ex.interactions[1:3])
    picked = ex[[4, 0]]
    np.testing.assert_array_equal(picked.values, ex.values[[4, 0]])
    masked = ex[ex.values[:, 0] > 0]
    assert len(masked) == int((ex.values[:, 0] > 0).sum())
    row = ex[2]
    assert row.values.shape == (1, 3)
    np.testing.assert_array_equal(row.values[0], ex.values[2])
    np.testing.assert_array_equal(ex[-1].values[0], ex.values[-1])
    assert sub.feature_names == ex.feature_names and sub.game == ex.game
    np.testing.assert_array_equal(sub.v_full, ex.v_full[1:3])


def test_slicing_by_output(multi):
    _, _, ex = multi
    for o, name in enumerate(["up", "down"]):
        for key in (name, o):
            sub = ex[:, key]
            assert sub.values.shape == (4, 3) and sub.output_names == [name]
            np.testing.assert_array_equal(sub.values, ex.values[:, :, o])
            np.testing.assert_array_equal(sub.base_values, ex.base_values[:, o])
            np.testing.assert_array_equal(sub.interactions, ex.interactions[..., o])
    both = ex[1:3, "down"]
    np.testing.assert_array_equal(both.values, ex.values[1:3, :, 1])
    with pytest.raises(KeyError, match=r"output 'sideways' is not one of \['up', 'down'\]"):
        ex[:, "sideways"]
    with pytest.raises(IndexError, match="output index 2 is out of range"):
        ex[:, 2]
    with pytest.raises(IndexError, match="output index 3 is out of range"):
        ex[1, 2, 3]
    with pytest.raises(IndexError, match=r"rows, \(rows, features\) or \(rows, features, output\)"):
        ex[1, 2, 3, 4]


def test_single_output_cannot_be_sliced_by_output(single):
    _, _, ex = single
    with pytest.raises(IndexError, match="single output"):
        ex[:, "f(x)"]


def test_to_frame_wide_and_long_single(single):
    _, X, ex = single
    wide = ex.to_frame()
    assert list(wide.columns) == ["a", "b", "c", "base_value"]
    np.testing.assert_array_equal(wide[["a", "b", "c"]].to_numpy(), ex.values)
    np.testing.assert_array_equal(wide["base_value"].to_numpy(), ex.base_values)
    long = ex.to_frame("long")
    assert list(long.columns) == ["row", "output", "feature", "value", "feature_value"]
    assert len(long) == 5 * 3
    r = long[(long.row == 3) & (long.feature == "b")]
    assert r["value"].item() == ex.values[3, 1] and r["feature_value"].item() == X[3, 1]
    with pytest.raises(ValueError, match="kind must be 'wide' or 'long'"):
        ex.to_frame("tall")


def test_to_frame_multi_output(multi):
    _, _, ex = multi
    wide = ex.to_frame()
    assert isinstance(wide.columns, pd.MultiIndex)
    np.testing.assert_array_equal(wide[("down", "x1")].to_numpy(), ex.values[:, 1, 1])
    np.testing.assert_array_equal(wide[("up", "base_value")].to_numpy(), ex.base_values[:, 0])
    long = ex.to_frame(kind="long")
    assert len(long) == 4 * 3 * 2
    r = long[(long.row == 2) & (long.output == "down") & (long.feature == "x0")]
    assert r["value"].item() == ex.values[2, 0, 1]
    # wide and long carry the same numbers
    pivot = long.pivot_table(index="row", columns=["output", "feature"], values="value")
    np.testing.assert_allclose(pivot[("up", "x2")].to_numpy(), ex.values[:, 2, 0])


def test_to_shap_single_output(single):
    shap = pytest.importorskip("shap")
    _, X, ex = single
    sh = ex.to_shap()
    assert isinstance(sh, shap.Explanation)
    np.testing.assert_array_equal(sh.values, ex.values)
    np.testing.assert_array_equal(sh.base_values, ex.base_values)
    np.testing.assert_array_equal(sh.data, X)
    assert list(sh.feature_names) == ["a", "b", "c"]
    one = ex[0].to_shap()
    assert one.values.shape == (3,)


def test_to_shap_multi_output(multi):
    shap = pytest.importorskip("shap")
    _, _, ex = multi
    sh = ex.to_shap()
    assert sh.values.shape == (4, 3, 2)
    assert list(sh.output_names) == ["up", "down"]
    down = ex.to_shap(output="down")
    np.testing.assert_array_equal(down.values, ex.values[:, :, 1])
    np.testing.assert_array_equal(down.base_values, ex.base_values[:, 1])
    assert isinstance(down, shap.Explanation)


def test_shap_plots_accept_to_shap(single, multi):
    shap = pytest.importorskip("shap")
    import matplotlib.pyplot as plt

    def labels() -> set[str]:  # the feature names shap drew on the y axis
        return {t.get_text() for ax in plt.gcf().axes for t in ax.get_yticklabels()}

    _, _, ex = single
    names = set(ex.feature_names)
    shap.plots.bar(ex.to_shap(), show=False)
    assert names <= labels()
    plt.close("all")
    shap.plots.beeswarm(ex.to_shap(), show=False)
    assert names <= labels()
    plt.close("all")
    shap.plots.waterfall(ex[0].to_shap(), show=False)
    assert any(n in label for n in names for label in labels())
    plt.close("all")
    _, _, exm = multi
    shap.plots.bar(exm.to_shap(output="up"), show=False)
    assert set(exm.feature_names) <= labels()
    plt.close("all")
    shap.plots.waterfall(exm[1, "down"].to_shap(), show=False)
    assert any(n in label for n in exm.feature_names for label in labels())
    plt.close("all")


def test_categorical_data_survive_conversions():
    Xr = np.array([[0.0, "a"], [1.0, "b"], [0.5, "a"]], dtype=object)
    em = kx.KernelExpansion(
        Xr, [1.0, -0.5, 2.0], ProductKernel([RBF(1.0), Categorical(0.2)]), feature_names=["num", "cat"]
    )
    X = np.array([[0.2, "b"], [0.9, "a"]], dtype=object)
    ex = kx.ProductKernelExplainer(em).explain(X)
    long = ex.to_frame("long")
    assert set(long["feature_value"]) >= {"a", "b"}
    pytest.importorskip("shap")
    sh = ex.to_shap()
    assert sh.data[0, 1] == "b"


def test_explanation_constructor_checks():
    with pytest.raises(ValueError, match=r"values must have shape \(N, d\)"):
        kx.Explanation(np.zeros(3), np.zeros(3))
    with pytest.raises(ValueError, match="feature_names has 1 names for 2 features"):
        kx.Explanation(np.zeros((3, 2)), np.zeros(3), feature_names=["a"])
    with pytest.raises(ValueError, match="base_values"):
        kx.Explanation(np.zeros((3, 2)), np.zeros(4))
    # one shared base value is spread over the rows
    np.testing.assert_array_equal(kx.Explanation(np.zeros((3, 2)), 1.5).base_values, [1.5] * 3)
    np.testing.assert_array_equal(kx.Explanation(np.zeros((3, 2, 2)), [1.0, 2.0]).base_values, [[1.0, 2.0]] * 3)
    with pytest.raises(ValueError, match="interactions must have shape"):
        kx.Explanation(np.zeros((3, 2)), np.zeros(3), interactions=np.zeros((3, 2)))
    with pytest.raises(ValueError, match="output_names has 1 names for 2 outputs"):
        kx.Explanation(np.zeros((3, 2, 2)), np.zeros((3, 2)), output_names=["a"])


@pytest.mark.parametrize(
    "bad,word",
    [
        (np.array([[np.nan, 1.0]]), "NaN"),
        (np.array([[np.inf, 1.0]]), "NaN or infinite"),
        (np.array([[1 + 2j, 1.0]]), "complex"),
        ([[1.0, 2.0], [3.0]], "ragged"),
        ([["a", "b"]], "real numbers"),
        (None, "real numbers"),
    ],
)
def test_results_refuse_values_that_are_not_finite_real_numbers(bad, word):
    with pytest.raises(ValueError, match=f"values.*{word}|{word}.*values|values must"):
        kx.Explanation(bad, 0.0)
    with pytest.raises(ValueError, match="values"):
        kx.GlobalAttribution(np.ravel(np.asarray(bad, dtype=object)) if bad is not None else None, 1.0)


@pytest.mark.parametrize("bad", [np.nan, np.inf, 1 + 1j, "x", None, [1.0, 2.0]])
def test_results_refuse_a_base_value_or_total_that_is_not_one_finite_number(bad):
    with pytest.raises(ValueError, match="base_values"):
        kx.Explanation(np.zeros((1, 2)), bad if not isinstance(bad, list) else [[1.0, 2.0, 3.0]])
    with pytest.raises(ValueError, match="total"):
        kx.GlobalAttribution([0.5, 0.5], bad)


def test_to_frame_keeps_a_feature_named_base_value():
    # issue 11 #4: a feature called "base_value" was overwritten by the base-value column
    ex = kx.Explanation(np.array([[1.0, 2.0]]), 10.0, feature_names=["base_value", "age"])
    frame = ex.to_frame()
    assert list(frame.columns) == ["base_value", "age", "base_value_"]
    assert frame["base_value"].iloc[0] == 1.0 and frame["base_value_"].iloc[0] == 10.0
    long = ex.to_frame(kind="long")
    assert list(long["value"]) == [1.0, 2.0]


def _uncertain(N=3, d=2, seed=0):
    rng = np.random.default_rng(seed)
    M = rng.normal(size=(N * d, N * d))
    J = (M @ M.T).reshape(N, d, N, d)
    return kx.Explanation(
        rng.normal(size=(N, d)),
        1.0,
        feature_names=["a", "b"],
        joint_covariance=J,
        base_variance=0.5,
        prediction_variance=np.arange(1.0, N + 1),
        index=["r0", "r1", "r2"],
    )


def test_uncertainty_fields_follow_slicing_and_concatenation():
    ex = _uncertain()
    np.testing.assert_allclose(ex.covariance[1], ex.joint_covariance[1, :, 1, :])  # diagonal blocks
    np.testing.assert_allclose(ex.std, np.sqrt(np.diagonal(ex.covariance, axis1=1, axis2=2)))
    assert ex.base_variance.shape == (3,) and ex.base_variance[2] == 0.5
    sub = ex[[2, 0]]
    np.testing.assert_allclose(sub.joint_covariance[0, :, 1, :], ex.joint_covariance[2, :, 0, :])
    np.testing.assert_allclose(sub.prediction_variance, [3.0, 1.0])
    one = ex[1]
    assert one.joint_covariance.shape == (1, 2, 1, 2) and one.index == ["r1"]
    both = kx.Explanation.concatenate([ex[:2], ex[2:]])
    assert both.joint_covariance is None  # the covariance across parts is unknown
    np.testing.assert_allclose(both.covariance, ex.covariance)
    np.testing.assert_allclose(both.prediction_variance, ex.prediction_variance)
    long = ex.to_frame("long")
    assert list(long.columns) == ["row", "output", "feature", "value", "std"]
    assert long[(long.row == "r2") & (long.feature == "b")]["std"].item() == ex.std[2, 1]


def test_interval_and_sample():
    ex = _uncertain()
    lo, hi = ex.interval(0.95)
    np.testing.assert_allclose(ex.values - lo, 1.959963984540054 * ex.std, rtol=1e-12)
    np.testing.assert_allclose(hi - ex.values, 1.959963984540054 * ex.std, rtol=1e-12)
    draws = ex.sample(3000, random_state=1)
    assert len(draws) == 3000 and draws[0].covariance is None and draws[0].index == ["r0", "r1", "r2"]
    vals = np.stack([e.values.reshape(-1) for e in draws])
    J = ex.joint_covariance.reshape(6, 6)
    assert np.abs(np.cov(vals.T) - J).max() < 0.15 * np.abs(J).max()
    # without the joint covariance, points are drawn independently: no covariance across points
    indep = kx.Explanation(ex.values, 1.0, covariance=ex.covariance)
    vals = np.stack([e.values.reshape(-1) for e in indep.sample(3000, random_state=2)])
    cross = np.cov(vals.T)[:2, 2:4]
    assert np.abs(cross).max() < 0.15 * np.abs(J).max()
    assert ex.sample(2, random_state=5)[1].values[0, 0] == ex.sample(2, random_state=5)[1].values[0, 0]


def test_uncertainty_errors():
    plain = kx.Explanation(np.zeros((2, 2)), 0.0)
    with pytest.raises(ValueError, match="uncertainty=True"):
        _ = plain.std
    with pytest.raises(ValueError, match="uncertainty=True"):
        plain.interval()
    ex = _uncertain()
    with pytest.raises(ValueError, match="level must be in"):
        ex.interval(1.5)
    with pytest.raises(ValueError, match="positive integer"):
        ex.sample(0)
    with pytest.raises(ValueError, match="joint_covariance must have shape"):
        kx.Explanation(np.zeros((2, 2)), 0.0, joint_covariance=np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match="base_variance must have shape"):
        kx.Explanation(np.zeros((2, 2)), 0.0, base_variance=np.zeros(3))
    with pytest.raises(ValueError, match="single-output"):
        _ = kx.Explanation(np.zeros((2, 2, 2)), 0.0, covariance=np.zeros((2, 2, 2, 2))).std

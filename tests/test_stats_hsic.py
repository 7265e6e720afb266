"""HSIC attributions (to X, to Y, to both) and the independence test against slow references."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import kexplain as kx
from kexplain.stats import hsic, hsic_shapley, hsic_test


def dense_hsic(K, L, estimator):
    n = len(K)
    if estimator == "biased":
        H = np.eye(n) - 1.0 / n
        return np.trace(K @ H @ L @ H) / (n - 1) ** 2
    Kt, Lt = K - np.diag(np.diag(K)), L - np.diag(np.diag(L))
    return (np.trace(Kt @ Lt) + Kt.sum() * Lt.sum() / ((n - 1) * (n - 2)) - 2.0 / (n - 2) * Kt.sum(0) @ Lt.sum(1)) / (
        n * (n - 3)
    )


def restricted_value_function(kernel, A, L_other, estimator, a_first=True):
    """v(S) = HSIC with A's kernel restricted to S and the other Gram matrix whole."""
    F = kernel.feature_values(A, A)
    amp = kernel.diag_value()

    def vf(coalitions):
        out = []
        for S in coalitions:
            KS = amp * np.prod(F[:, :, S], axis=-1)
            out.append(dense_hsic(KS, L_other, estimator) if a_first else dense_hsic(L_other, KS, estimator))
        return np.array(out)

    return vf


@pytest.fixture
def data(rng):
    n = 11
    X = rng.normal(size=(n, 4))
    Y = np.c_[np.sin(X[:, 0]) + 0.2 * rng.normal(size=n), X[:, 2] ** 2 + 0.3 * rng.normal(size=n), rng.normal(size=n)]
    return X, Y


@pytest.mark.parametrize("estimator", ["biased", "unbiased"])
def test_hsic_shapley_both_sides_match_enumeration(data, estimator):
    X, Y = data
    att = hsic_shapley(X, Y, attribute="both", estimator=estimator)
    att_x, att_y = att
    K, L = att_x.kernel(X, X), att_y.kernel(Y, Y)
    total = dense_hsic(K, L, estimator)
    ref_x = kx.exact_shapley(restricted_value_function(att_x.kernel, X, L, estimator), 4)
    ref_y = kx.exact_shapley(restricted_value_function(att_y.kernel, Y, K, estimator, a_first=False), 3)
    np.testing.assert_allclose(att_x.values, ref_x.values, rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose(att_y.values, ref_y.values, rtol=1e-10, atol=1e-15)
    assert ref_x.v_empty == pytest.approx(0.0, abs=1e-15) and ref_y.v_empty == pytest.approx(0.0, abs=1e-15)
    for side in att:
        assert side.total == pytest.approx(total, rel=1e-10)
        assert side.values.sum() == pytest.approx(total, rel=1e-10)
    assert hsic(X, Y, estimator=estimator) == pytest.approx(total, rel=1e-10)


def test_roles_swapped_give_the_same_games(data):
    X, Y = data
    both_x, both_y = hsic_shapley(X, Y, attribute="both")
    swapped_x, swapped_y = hsic_shapley(Y, X, attribute="both")
    np.testing.assert_allclose(swapped_x.values, both_y.values, rtol=1e-12)
    np.testing.assert_allclose(swapped_y.values, both_x.values, rtol=1e-12)
    np.testing.assert_allclose(hsic_shapley(Y, X, attribute="y").values, both_x.values, rtol=1e-12)
    assert hsic(Y, X) == pytest.approx(hsic(X, Y), rel=1e-12)


def test_univariate_target_with_1d_kernel_and_class_labels(rng):
    X = rng.normal(size=(12, 3))
    y = X[:, 1] + 0.1 * rng.normal(size=12)
    ky = kx.kernels.RBF(lengthscale=0.8)
    att = hsic_shapley(X, y, kernel_y=ky)
    L = ky(y[:, None], y[:, None])
    ref = kx.exact_shapley(restricted_value_function(att.kernel, X, L, "biased"), 3)
    np.testing.assert_allclose(att.values, ref.values, rtol=1e-10, atol=1e-15)
    assert np.argmax(att.values) == 1
    labels = np.where(X[:, 0] > 0, "pos", "neg")
    att_c = hsic_shapley(X, labels)  # text labels: delta kernel by default
    Lc = (labels[:, None] == labels[None, :]).astype(float)
    ref_c = kx.exact_shapley(restricted_value_function(att_c.kernel, X, Lc, "biased"), 3)
    np.testing.assert_allclose(att_c.values, ref_c.values, rtol=1e-10, atol=1e-15)
    att_i = hsic_shapley(X, (X[:, 0] > 0).astype(int), kernel_y=kx.kernels.Categorical(mismatch=0))
    np.testing.assert_allclose(att_i.values, att_c.values, rtol=1e-12)
    assert np.argmax(att_c.values) == 0


@pytest.mark.slow
@given(
    n=st.integers(4, 8),
    d=st.integers(1, 4),
    seed=st.integers(0, 2**16),
    estimator=st.sampled_from(["biased", "unbiased"]),
)
def test_property_efficiency_and_feature_order(n, d, seed, estimator):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = X.sum(axis=1) + rng.normal(size=n)
    att = hsic_shapley(X, y, estimator=estimator)
    assert att.values.sum() == pytest.approx(att.total, rel=1e-9, abs=1e-13)
    assert att.total == pytest.approx(hsic(X, y, estimator=estimator), rel=1e-9, abs=1e-13)
    perm = rng.permutation(d)
    np.testing.assert_allclose(
        hsic_shapley(X[:, perm], y, estimator=estimator).values, att.values[perm], rtol=1e-9, atol=1e-13
    )
    rows = rng.permutation(n)  # the statistic does not depend on the row order
    np.testing.assert_allclose(
        hsic_shapley(X[rows], y[rows], estimator=estimator).values, att.values, rtol=1e-9, atol=1e-13
    )


def test_incomplete_hsic_estimate(rng):
    X = rng.normal(size=(40, 3))
    y = X[:, 0] + 0.3 * rng.normal(size=40)
    exact = hsic_shapley(X, y)
    est = hsic_shapley(X, y, n_pairs=30000, random_state=1)
    assert est.values.sum() == pytest.approx(est.total, rel=1e-10)
    assert np.all(est.standard_errors > 0)
    assert np.all(np.abs(est.values - exact.values) < 5 * est.standard_errors)
    assert abs(est.total - exact.total) < 5 * est.total_standard_error


def test_hsic_test_replays_its_permutations(rng):
    X = rng.normal(size=(8, 2))
    Y = np.c_[X[:, 0] + rng.normal(size=8), rng.normal(size=8)]
    res = hsic_test(X, Y, attribute="both", n_permutations=20, random_state=5)
    att_x, att_y = hsic_shapley(X, Y, attribute="both")
    np.testing.assert_allclose(res.attribution[0].values, att_x.values, rtol=1e-10)
    np.testing.assert_allclose(res.attribution[1].values, att_y.values, rtol=1e-10)
    r = np.random.default_rng(5)  # random_state=5 seeds this Generator
    kx_, ky_ = att_x.kernel, att_y.kernel
    for p in range(3):
        perm = r.permutation(8)
        ax_x, ax_y = hsic_shapley(X, Y[perm], kernel_x=kx_, kernel_y=ky_, attribute="both")
        assert res.null_distribution[p] == pytest.approx(ax_x.total, rel=1e-9, abs=1e-15)
        np.testing.assert_allclose(res.null_attributions[0][p], ax_x.values, rtol=1e-9, atol=1e-15)
        np.testing.assert_allclose(res.null_attributions[1][p], ax_y.values, rtol=1e-9, atol=1e-15)
    frame = res.to_frame()
    assert frame.shape == (4, 2)


def test_hsic_test_detects_dependence_and_the_feature(rng):
    X = rng.normal(size=(40, 3))
    y = np.cos(2 * X[:, 2]) + 0.2 * rng.normal(size=40)
    # the permutation p-value of these data is about 0.011; 999 permutations estimate it to +-0.003
    # (with 99, whether it lands at or below 0.02 depends on the draw of the permutations)
    res = hsic_test(X, y, n_permutations=999, random_state=0, estimator="unbiased")
    assert res.p_value <= 0.02
    assert np.argmin(res.feature_p_values) == 2


@pytest.mark.slow
def test_hsic_permutation_test_is_calibrated_under_the_null():
    rng = np.random.default_rng(7)
    pvals = np.array(
        [
            hsic_test(rng.normal(size=(10, 2)), rng.normal(size=10), n_permutations=39, random_state=r).p_value
            for r in range(200)
        ]
    )
    for a in (0.1, 0.25, 0.5):
        assert np.mean(pvals <= a) <= a + 0.07
        assert np.mean(pvals <= a) >= a - 0.1


def test_results_are_global_attributions_with_p_values(data):
    X, Y = data
    att = hsic_shapley(X, Y)
    assert isinstance(att, kx.GlobalAttribution)
    assert att.quantity == "HSIC" and att.estimator == "biased"
    assert att.standard_errors is None and att.p_values is None
    assert att.feature_names == ["x0", "x1", "x2", "x3"]
    att_x, att_y = hsic_shapley(X, Y, attribute="both")
    assert isinstance(att_x, kx.GlobalAttribution) and isinstance(att_y, kx.GlobalAttribution)
    assert att_y.feature_names == ["y0", "y1", "y2"] and att_y.info["side"] == "y"
    assert att_x.total == pytest.approx(att_y.total, rel=1e-10)
    res = hsic_test(X, Y, attribute="both", n_permutations=19, random_state=0)
    assert isinstance(res, kx.PermutationTestResult) and isinstance(res.attribution, tuple)
    for side, d in zip(res.attribution, (4, 3)):
        assert side.p_values.shape == (d,) and side.p_value == res.p_value
        assert side.quantity == "HSIC"
    np.testing.assert_array_equal(res.feature_p_values[1], res.attribution[1].p_values)
    single = hsic_test(X, Y, attribute="y", n_permutations=19, random_state=0)
    np.testing.assert_allclose(single.attribution.values, att_y.values, rtol=1e-10)
    np.testing.assert_array_equal(single.feature_p_values, res.attribution[1].p_values)


def test_incomplete_hsic_is_deterministic_given_the_seed(rng):
    X = rng.normal(size=(30, 3))
    y = X[:, 0] + 0.3 * rng.normal(size=30)
    a = hsic_shapley(X, y, n_pairs=500, random_state=3)
    b = hsic_shapley(X, y, n_pairs=500, random_state=np.random.default_rng(3))
    np.testing.assert_array_equal(a.values, b.values)
    assert a.standard_errors.shape == (3,) and a.total_standard_error > 0
    assert a.info["incomplete"] is True

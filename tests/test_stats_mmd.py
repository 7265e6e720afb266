"""MMD^2 attributions and the two-sample permutation test against slow references.

The reference evaluates the statistic with the kernel restricted to every coalition from dense
Gram matrices and hands the values to the enumeration solver (kx.exact_shapley) and, as an
independent check, to shapiq's ExactComputer.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from kernel_conformance import stationary_classes

import kexplain as kx
from kexplain.stats import mmd, mmd_shapley, mmd_test


def dense_mmd(Kxx, Kzz, Kxz, estimator):
    n, m = len(Kxx), len(Kzz)
    if estimator == "unbiased":
        return (
            (Kxx.sum() - np.trace(Kxx)) / (n * (n - 1)) + (Kzz.sum() - np.trace(Kzz)) / (m * (m - 1)) - 2 * Kxz.mean()
        )
    return Kxx.mean() + Kzz.mean() - 2 * Kxz.mean()


def restricted_value_function(kernel, X, Z, estimator):
    """v(S): the MMD^2 with the kernel's factors outside S set to one (amplitude kept)."""
    fxx, fzz, fxz = (kernel.feature_values(P, Q) for P, Q in ((X, X), (Z, Z), (X, Z)))
    amp = kernel.diag_value()

    def vf(coalitions):
        out = []
        for S in coalitions:
            Ks = [amp * np.prod(f[:, :, S], axis=-1) for f in (fxx, fzz, fxz)]
            out.append(dense_mmd(*Ks, estimator))
        return np.array(out)

    return vf


@pytest.fixture
def samples(rng):
    X = rng.normal(size=(9, 4))
    Z = rng.normal(size=(7, 4)) * [1.0, 1.5, 1.0, 1.0] + [0.8, 0.0, 0.0, 0.0]
    return X, Z


@pytest.mark.parametrize("estimator", ["unbiased", "biased"])
@pytest.mark.parametrize("bandwidth", ["median", "median_per_feature"])
def test_mmd_shapley_matches_enumeration(samples, estimator, bandwidth):
    X, Z = samples
    att = mmd_shapley(X, Z, estimator=estimator, bandwidth=bandwidth)
    ref = kx.exact_shapley(restricted_value_function(att.kernel, X, Z, estimator), X.shape[1])
    np.testing.assert_allclose(att.values, ref.values, rtol=1e-10, atol=1e-14)
    assert ref.v_empty == pytest.approx(0.0, abs=1e-14)
    # efficiency: the values sum to the statistic, which is also computed without the game
    assert att.values.sum() == pytest.approx(att.total, rel=1e-12, abs=1e-15)
    assert att.total == pytest.approx(mmd(X, Z, estimator=estimator, bandwidth=bandwidth), rel=1e-12)
    assert att.total == pytest.approx(ref.v_full, rel=1e-12)


def test_mmd_shapley_with_product_kernel_and_amplitude_matches_shapiq(samples):
    shapiq = pytest.importorskip("shapiq")
    X, Z = samples
    # every registered stationary family in turn (RBF, Laplacian, Cauchy, RBF, ...)
    families = stationary_classes()
    kernel = kx.kernels.ProductKernel(
        [families[j % len(families)](ls) for j, ls in enumerate([0.7, 1.3, 0.9, 2.0])], amplitude=2.5
    )
    att = mmd_shapley(X, Z, kernel=kernel)
    vf = restricted_value_function(kernel, X, Z, "unbiased")
    iv = shapiq.ExactComputer(game=lambda C: vf(np.asarray(C, bool)), n_players=4)("SV", order=1)
    ref = np.array([iv.dict_values[(j,)] for j in range(4)])
    np.testing.assert_allclose(att.values, ref, rtol=1e-9, atol=1e-14)
    assert att.values.sum() == pytest.approx(mmd(X, Z, kernel=kernel), rel=1e-12)


def test_categorical_features_in_mmd(rng):
    X = np.c_[rng.normal(size=8), rng.integers(0, 3, 8)].astype(object)
    Z = np.c_[rng.normal(size=6), rng.integers(1, 3, 6)].astype(object)
    kernel = kx.kernels.ProductKernel([kx.kernels.RBF(1.0), kx.kernels.Categorical(mismatch=0.2)])
    att = mmd_shapley(X, Z, kernel=kernel)
    Xf, Zf = X.astype(float), Z.astype(float)
    ref = kx.exact_shapley(restricted_value_function(kernel, Xf, Zf, "unbiased"), 2)
    np.testing.assert_allclose(att.values, ref.values, rtol=1e-10, atol=1e-14)


@given(
    n=st.integers(2, 6),
    m=st.integers(2, 6),
    d=st.integers(1, 5),
    seed=st.integers(0, 2**16),
    estimator=st.sampled_from(["unbiased", "biased"]),
)
def test_property_efficiency_symmetry_and_feature_order(n, m, d, seed, estimator):
    rng = np.random.default_rng(seed)
    X, Z = rng.normal(size=(n, d)), rng.normal(size=(m, d)) + rng.normal(size=d)
    att = mmd_shapley(X, Z, estimator=estimator)
    assert np.all(np.isfinite(att.values))
    assert att.values.sum() == pytest.approx(att.total, rel=1e-9, abs=1e-12)
    assert att.total == pytest.approx(mmd(X, Z, estimator=estimator), rel=1e-9, abs=1e-12)
    # MMD is symmetric in the two samples, and the game does not care about row order
    swapped = mmd_shapley(Z[::-1], X, estimator=estimator)
    np.testing.assert_allclose(swapped.values, att.values, rtol=1e-9, atol=1e-12)
    # permuting the features permutes the values
    perm = rng.permutation(d)
    permuted = mmd_shapley(X[:, perm], Z[:, perm], estimator=estimator)
    np.testing.assert_allclose(permuted.values, att.values[perm], rtol=1e-9, atol=1e-12)


def test_identical_columns_get_equal_values_and_constant_column_gets_zero(rng):
    x = rng.normal(size=(10, 1))
    z = rng.normal(size=(8, 1)) + 0.5
    X = np.c_[x, x, np.full(10, 3.0), rng.normal(size=10)]
    Z = np.c_[z, z, np.full(8, 3.0), rng.normal(size=8)]
    for bandwidth in ("median", "median_per_feature"):
        att = mmd_shapley(X, Z, bandwidth=bandwidth)
        assert att.values[0] == pytest.approx(att.values[1], rel=1e-12)
        assert att.values[2] == 0.0  # a null player: its factor is always 1
        assert att.values.sum() == pytest.approx(att.total, rel=1e-12)


def test_blocks_do_not_change_the_result(samples):
    X, Z = samples
    big = mmd_shapley(X, Z)
    small = mmd_shapley(X, Z, max_block_bytes=1)  # 64 pairs per block
    np.testing.assert_allclose(small.values, big.values, rtol=1e-12, atol=1e-15)


def test_shifted_feature_gets_the_largest_share(rng):
    X = rng.normal(size=(60, 5))
    Z = rng.normal(size=(60, 5))
    Z[:, 3] += 1.5
    att = mmd_shapley(X, Z)
    assert np.argmax(att.values) == 3
    assert att.values[3] > 0


def test_incomplete_statistic_is_close_and_reports_standard_errors(rng):
    X = rng.normal(size=(40, 3))
    Z = rng.normal(size=(40, 3)) + [0.7, 0.0, 0.0]
    exact = mmd_shapley(X, Z)
    est = mmd_shapley(X, Z, n_pairs=20000, random_state=0)
    assert est.values.sum() == pytest.approx(est.total, rel=1e-10)  # efficiency for the estimate
    assert est.standard_errors.shape == (3,) and np.all(est.standard_errors > 0)
    assert np.all(np.abs(est.values - exact.values) < 5 * est.standard_errors + 1e-12)
    assert abs(est.total - exact.total) < 5 * est.total_standard_error
    again = mmd_shapley(X, Z, n_pairs=20000, random_state=0)
    np.testing.assert_array_equal(again.values, est.values)  # deterministic given the seed
    assert mmd_shapley(X, Z, n_pairs=20000, random_state=0, estimator="biased").total == pytest.approx(
        mmd(X, Z, estimator="biased"), abs=5 * est.total_standard_error
    )


def test_mmd_test_matches_direct_recomputation_under_its_permutations(rng):
    X = rng.normal(size=(7, 3))
    Z = rng.normal(size=(6, 3)) + [1.0, 0.0, 0.0]
    res = mmd_test(X, Z, n_permutations=30, random_state=3)
    att = mmd_shapley(X, Z)
    np.testing.assert_allclose(res.attribution.values, att.values, rtol=1e-10)
    assert res.statistic == pytest.approx(att.total, rel=1e-10)
    # replay the permutations: the same Generator sequence of label shuffles (random_state=3)
    r = np.random.default_rng(3)
    W = np.r_[X, Z]
    labels = np.r_[np.ones(7, bool), np.zeros(6, bool)]
    for p in range(3):
        lab = r.permutation(labels)
        perm_att = mmd_shapley(W[lab], W[~lab], kernel=att.kernel)
        np.testing.assert_allclose(res.null_attributions[p], perm_att.values, rtol=1e-9, atol=1e-14)
        assert res.null_distribution[p] == pytest.approx(perm_att.total, rel=1e-9, abs=1e-14)
    expected = (1 + np.sum(res.null_distribution >= res.statistic - 1e-12)) / 31
    assert res.p_value == pytest.approx(expected)
    assert res.feature_p_values.shape == (3,)
    assert np.all((res.feature_p_values > 0) & (res.feature_p_values <= 1))


def test_mmd_test_detects_a_difference_and_the_feature(rng):
    X = rng.normal(size=(30, 3))
    Z = rng.normal(size=(30, 3)) + [0.0, 1.5, 0.0]
    res = mmd_test(X, Z, n_permutations=99, random_state=0)
    assert res.p_value <= 0.02
    assert np.argmin(res.feature_p_values) == 1 and res.feature_p_values[1] <= 0.02
    frame = res.to_frame()
    assert list(frame.columns) == ["value", "p_value"]


@pytest.mark.slow
def test_mmd_permutation_test_is_calibrated_under_the_null():
    rng = np.random.default_rng(123)
    pvals = []
    for rep in range(200):
        X, Z = rng.normal(size=(8, 2)), rng.normal(size=(8, 2))
        pvals.append(mmd_test(X, Z, n_permutations=39, random_state=rep).p_value)
    pvals = np.array(pvals)
    # under H0 the permutation p-value is (super-)uniform: P(p <= a) <= a, and not far below
    for a in (0.1, 0.25, 0.5):
        assert np.mean(pvals <= a) <= a + 0.07
        assert np.mean(pvals <= a) >= a - 0.1


def test_result_objects_frame_and_plot(samples):
    pd = pytest.importorskip("pandas")
    X, Z = samples
    Xdf = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    att = mmd_shapley(Xdf, Z)
    assert att.feature_names == ["a", "b", "c", "d"]
    frame = att.to_frame()
    assert list(frame.index) == ["a", "b", "c", "d"]
    np.testing.assert_allclose(frame["value"].to_numpy(), att.values)
    ax = att.plot()
    assert len(ax.patches) == 4
    est = mmd_shapley(X, Z, n_pairs=400, random_state=0)
    assert "standard_error" in est.to_frame().columns


def test_results_are_global_attributions_with_p_values(samples):
    X, Z = samples
    att = mmd_shapley(X, Z, estimator="biased")
    assert isinstance(att, kx.GlobalAttribution)
    assert att.quantity == "MMD^2" and att.estimator == "biased" and att.kernel is not None
    assert att.standard_errors is None and att.p_values is None and att.info["incomplete"] is False
    res = mmd_test(X, Z, n_permutations=19, random_state=0)
    assert isinstance(res, kx.PermutationTestResult) and res.name == "MMD^2"
    assert res.attribution.quantity == "MMD^2"
    assert res.attribution.p_value == res.p_value
    np.testing.assert_array_equal(res.attribution.p_values, res.feature_p_values)
    assert res.null_attributions.shape == (19, 4) and res.null_distribution.shape == (19,)
    np.testing.assert_array_equal(
        mmd_test(X, Z, n_permutations=19, random_state=np.random.default_rng(0)).null_distribution,
        res.null_distribution,
    )


def test_per_pair_contributions_at_large_d_match_a_cancellation_free_esp_reference(rng):
    """phi_j = (a_j - 1) sum_q mu(q) e_q(a_-j), with e_q from the recurrence e_q += a_k e_{q-1}:
    only additions of non-negative terms for factors in [0, 1], so accurate at any d."""
    from math import factorial

    from kexplain.stats._pairs import pair_contributions

    d, r = 40, 30
    a = rng.uniform(0.05, 1.0, size=(r, d))
    a[0, 3] = 1.0
    a[1, :] = 1e-9  # product 1e-360 underflows: the safe path
    P = np.sqrt(-2.0 * np.log(a))  # RBF(1) pair factors: exp(-P^2 / 2) = a
    psi, kval = pair_contributions(kx.kernels.RBF(1.0), P, np.zeros_like(P))
    mu = np.array([factorial(q) * factorial(d - q - 1) / factorial(d) for q in range(d)])
    ref = np.zeros((r, d))
    for row in range(r):
        for j in range(d):
            e = np.zeros(d)
            e[0] = 1.0
            for k in np.delete(np.arange(d), j):
                e[1:] = e[1:] + a[row, k] * e[:-1]
            ref[row, j] = (a[row, j] - 1.0) * (mu @ e)
    np.testing.assert_allclose(psi, ref, rtol=1e-11, atol=1e-300)
    np.testing.assert_allclose(kval, np.prod(a, axis=1), rtol=1e-12)
    np.testing.assert_allclose(psi.sum(axis=1), kval - 1.0, rtol=1e-12, atol=1e-15)

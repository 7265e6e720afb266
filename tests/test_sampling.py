"""The generic solvers (enumeration and sampled KernelSHAP) against the product-game engine."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import kexplain as kx
from kexplain.shapley import product_game_block, sampled_shapley, shapley_kernel_moment
from kexplain.shapley.enumeration import all_coalitions
from kexplain.shapley.sampling import min_pairs_for_standard_errors


def product_game(rng, N=3, r=5, d=6, o=1):
    """A random product game and its value function, evaluated densely coalition by coalition."""
    a = rng.uniform(0.1, 1.5, size=(N, r, d))
    b = rng.uniform(0.1, 1.5, size=(N, r, d))
    c = rng.normal(size=(r, o))

    def vf(coalitions):
        # v(S) = sum_r c_r prod_{j in S} a_rj prod_{j not in S} b_rj, for every point
        f = np.where(coalitions[:, None, None, :], a[None], b[None]).prod(axis=-1)  # (C, N, r)
        out = f @ c
        return out[..., 0] if o == 1 else out

    phi, v_full, v_empty = product_game_block(a, b, c)
    exact = phi[..., 0] if o == 1 else phi
    return vf, exact


def test_enumeration_matches_engine(rng):
    vf, exact = product_game(rng, o=2)
    res = kx.exact_shapley(vf, 6)
    np.testing.assert_allclose(res.values, exact, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_sampled_within_four_standard_errors(seed):
    vf, exact = product_game(np.random.default_rng(100 + seed))
    res = sampled_shapley(vf, 6, 2000, random_state=seed)
    assert res.values.shape == exact.shape == res.standard_errors.shape
    assert np.all(res.standard_errors > 0)
    z = np.abs(res.values - exact) / res.standard_errors
    assert z.max() < 4.0, z


def test_standard_errors_are_calibrated():
    """Across seeds, (estimate - exact) / standard error has unit spread and no visible bias."""
    vf, exact = product_game(np.random.default_rng(7), N=2, d=7)
    z = np.array(
        [
            (r.values - exact) / r.standard_errors
            for r in (sampled_shapley(vf, 7, 400, random_state=s) for s in range(60))
        ]
    )
    assert 0.8 < z.std() < 1.25, z.std()
    assert np.abs(z.mean(axis=0)).max() < 0.6


def test_standard_errors_shrink_like_inverse_sqrt_budget(rng):
    vf, exact = product_game(rng, d=8)
    small = sampled_shapley(vf, 8, 402, random_state=1).standard_errors
    large = sampled_shapley(vf, 8, 6402, random_state=1).standard_errors
    ratio = np.median(small / large)  # budget x16 -> standard errors / 4
    assert 3.0 < ratio < 5.3, ratio
    # and the estimate really is closer to the truth
    err_large = np.abs(sampled_shapley(vf, 8, 6402, random_state=1).values - exact).mean()
    err_small = np.abs(sampled_shapley(vf, 8, 402, random_state=1).values - exact).mean()
    assert err_large < err_small


def test_efficiency_exact_and_shapes(rng):
    vf, exact = product_game(rng, N=4, d=5, o=3)
    res = sampled_shapley(vf, 5, 80, random_state=0)
    assert res.values.shape == (4, 5, 3)
    np.testing.assert_allclose(res.values.sum(axis=1), res.v_full - res.v_empty, atol=1e-12)
    assert res.n_evaluations <= 80


def test_scalar_game_and_determinism():
    def vf(S):
        return S.astype(float) @ np.array([1.0, 2.0, 3.0]) + 0.5 * S[:, 0] * S[:, 1]

    r1 = sampled_shapley(vf, 3, 80, random_state=3)
    r2 = sampled_shapley(vf, 3, 80, random_state=3)
    assert r1.values.shape == (3,)
    np.testing.assert_array_equal(r1.values, r2.values)
    np.testing.assert_allclose(r1.values, [1.25, 2.25, 3.0], atol=6 * r1.standard_errors.max() + 1e-12)


def test_additive_game_has_zero_error():
    beta = np.array([1.0, -2.0, 0.5, 4.0])
    res = sampled_shapley(lambda S: S.astype(float) @ beta, 4, 70, random_state=0)
    np.testing.assert_allclose(res.values, beta, atol=1e-12)
    np.testing.assert_allclose(res.standard_errors, 0.0, atol=1e-12)


def test_early_stop_on_tolerance(rng):
    vf, _ = product_game(rng)
    res = sampled_shapley(vf, 6, 100_000, random_state=0, tol=0.05, batch_size=16)
    assert res.n_evaluations < 100_000
    assert res.standard_errors.max() < 0.05


def test_few_pairs_report_infinite_standard_errors_and_warn():
    """Issue 11, #1: 8 pairs for 10 players gave 5.43 where 2 is right, with standard error 8e-14."""
    with pytest.warns(UserWarning, match="8 pairs of coalitions for d=10 players.*infinite"):
        res = kx.sampled_shapley(lambda S: S @ np.arange(1.0, 11), 10, 18, random_state=1)
    assert np.all(np.isinf(res.standard_errors))
    np.testing.assert_allclose(res.values.sum(), 55.0)  # efficiency still holds


def test_tol_never_stops_before_the_minimum_number_of_pairs():
    """Issue 11, #1: at d = 100, tol=0.01 stopped after 130 evaluations with error 1.48."""
    d = 100
    beta = np.random.default_rng(0).normal(size=d)
    truth = beta.copy()
    truth[:2] += 1.5

    def vf(S):
        return S @ beta + 3.0 * S[:, 0] * S[:, 1]

    res = sampled_shapley(vf, d, 100_000, random_state=0, tol=0.01, batch_size=32)
    assert res.n_evaluations >= 2 + 2 * min_pairs_for_standard_errors(d)
    assert res.standard_errors.max() < 0.01
    assert np.abs(res.values - truth).max() < 0.05


def test_standard_errors_do_not_collapse_just_above_the_minimum():
    """With the fit close to interpolating, the sandwich estimate reported 1e-13; the jackknife does not."""
    vf, exact = product_game(np.random.default_rng(5), N=1, d=12)
    m = min_pairs_for_standard_errors(12)
    res = sampled_shapley(vf, 12, 2 + 2 * m, random_state=2)
    err = np.abs(res.values - exact)
    assert np.all(res.standard_errors > 1e-6)
    assert np.all(err <= 4 * res.standard_errors)


def test_values_do_not_depend_on_batch_size():
    """Issue 11, #14: the same seed and another batch_size gave values 0.29 apart."""
    vf, _ = product_game(np.random.default_rng(3), N=2, d=7)
    runs = [sampled_shapley(vf, 7, 301, random_state=4, batch_size=bs) for bs in (1, 7, 64, 256, 1000)]
    for r in runs[1:]:
        np.testing.assert_allclose(r.values, runs[0].values, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(r.standard_errors, runs[0].standard_errors, rtol=1e-10, atol=1e-13)
        assert r.n_evaluations == runs[0].n_evaluations
    # and with tol: the same stopping point whatever the batch size
    stops = [sampled_shapley(vf, 7, 20_000, random_state=4, tol=0.02, batch_size=bs) for bs in (5, 256)]
    assert stops[0].n_evaluations == stops[1].n_evaluations < 20_000
    np.testing.assert_allclose(stops[0].values, stops[1].values, rtol=1e-12, atol=1e-13)


def test_budgets_share_their_first_coalitions():
    """The k-th pair is the same for every budget and batch size: a larger budget only adds pairs."""

    def drawn(budget, batch_size):
        seen = []

        def vf(S):
            seen.append(S[: len(S) // 2].copy())  # the coalitions; their complements follow
            return S.sum(axis=1).astype(float)

        sampled_shapley(vf, 5, budget, random_state=9, batch_size=batch_size)
        return np.concatenate(seen[1:])  # the first call evaluates the empty and full coalitions

    small, large = drawn(82, 3), drawn(402, 50)
    assert small.shape == (40, 5) and large.shape == (200, 5)
    np.testing.assert_array_equal(large[:40], small)


def test_one_player():
    res = sampled_shapley(lambda S: 2.0 * S[:, 0] + 1.0, 1, 2)
    np.testing.assert_allclose(res.values, [2.0])


def test_kernel_moment_matches_enumeration():
    d = 5
    Z = all_coalitions(d)[1:-1]
    s = Z.sum(1)
    from math import comb

    w = (d - 1) / (np.array([comb(d, k) for k in s]) * s * (d - s))
    A = (Z.T * (w / w.sum())) @ Z
    np.testing.assert_allclose(shapley_kernel_moment(d), A, rtol=1e-12)


@pytest.mark.filterwarnings("ignore:sampled_shapley drew")
@given(st.integers(2, 6), st.integers(0, 10_000))
def test_property_efficiency(d, seed):
    W = np.random.default_rng(seed).normal(size=2**d)
    powers = 1 << np.arange(d)

    def vf(S):
        return W[(S * powers).sum(axis=1)]

    res = sampled_shapley(vf, d, 2 * d + 20, random_state=seed)
    np.testing.assert_allclose(res.values.sum(), W[-1] - W[0], atol=1e-10)
    assert np.all(np.isfinite(res.values))


# -- bad input -------------------------------------------------------------------------------------
def test_budget_too_small():
    with pytest.raises(ValueError, match="budget must be at least d \\+ 1 = 5"):
        sampled_shapley(lambda S: S.sum(1), 4, 4)
    with pytest.raises(TypeError, match="budget"):
        sampled_shapley(lambda S: S.sum(1), 4, 10.5)


def test_wrong_shape_value_function():
    with pytest.raises(ValueError, match="one entry per coalition"):
        sampled_shapley(lambda S: np.zeros(3), 4, 20)
    with pytest.raises(ValueError, match="one entry per coalition"):
        sampled_shapley(lambda S: 1.0, 4, 20)


def test_nan_value_function():
    def vf(S):
        out = S.sum(1).astype(float)
        out[S.sum(1) == 2] = np.nan
        return out

    with pytest.raises(ValueError, match="NaN"):
        sampled_shapley(vf, 4, 50, random_state=0)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(d=0), "d must be a positive integer"),
        (dict(tol=-1.0), "tol must be a positive number"),
        (dict(batch_size=0), "batch_size must be a positive integer"),
    ],
)
def test_bad_arguments(kwargs, match):
    args = dict(value_function=lambda S: S.sum(1), d=3, budget=20)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        sampled_shapley(**args)


def test_not_callable():
    with pytest.raises(TypeError, match="callable"):
        sampled_shapley(np.zeros(4), 3, 20)


def test_lazy_top_level_name():
    assert kx.sampled_shapley is sampled_shapley

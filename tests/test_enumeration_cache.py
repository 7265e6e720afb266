"""The enumeration solver's coefficients, built once per d (cached), are those of the definition."""

from itertools import combinations
from math import factorial

import numpy as np
import pytest

from kexplain.shapley import enumeration as en
from kexplain.shapley import exact_shapley


def _naive_shapley(v, d):
    """phi_j = sum over S not containing j of |S|!(d-|S|-1)!/d! (v(S + j) - v(S)), coalitions as sets."""
    phi = np.zeros(d)
    for j in range(d):
        others = [k for k in range(d) if k != j]
        for size in range(d):
            for S in combinations(others, size):
                w = factorial(size) * factorial(d - size - 1) / factorial(d)
                phi[j] += w * (v(set(S) | {j}) - v(set(S)))
    return phi


@pytest.mark.parametrize("d", [1, 2, 5, 9])
def test_cached_solver_matches_the_definition_on_repeated_calls(d):
    rng = np.random.default_rng(d)
    W = rng.normal(size=d)
    v_set = lambda S: float(np.tanh(sum(W[k] for k in S)) + 0.3 * len(S) ** 2)  # noqa: E731
    v_arr = lambda S: np.tanh(S.astype(float) @ W) + 0.3 * S.sum(axis=1) ** 2  # noqa: E731
    ref = _naive_shapley(v_set, d)
    first = exact_shapley(v_arr, d).values
    second = exact_shapley(v_arr, d).values  # from the cache
    np.testing.assert_allclose(first, ref, rtol=1e-12, atol=1e-13)
    assert np.array_equal(first, second)
    first.fill(0.0)  # results are the caller's own arrays, not the cache's
    np.testing.assert_allclose(exact_shapley(v_arr, d).values, ref, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("index", ["sii", "stii"])
def test_cached_coefficients_equal_freshly_built_ones_and_are_read_only(index):
    d, start, stop = 6, 0, 64
    w = en.shapley_weights(d)
    S, s, coef = en._batch_coefficients(d, start, stop, w)
    S2, s2, coef2 = en._build_batch_coefficients(d, start, stop, w)
    assert np.array_equal(S, S2) and np.array_equal(s, s2) and np.array_equal(coef, coef2)
    assert not coef.flags.writeable and not S.flags.writeable
    w2 = en.interaction_weights(d, index)
    c2 = en._batch_interaction_coefficients(d, start, stop, index, S, s, w2)
    assert np.array_equal(c2, en._build_interaction_coefficients(d, S, s, w2))
    with pytest.raises(ValueError):
        coef[0, 0] = 1.0


def test_batches_of_a_large_game_agree_with_one_batch():
    d = 11
    rng = np.random.default_rng(0)
    W = rng.normal(size=(d, 2))
    v = lambda S: np.sin(S.astype(float) @ W)  # noqa: E731
    one = exact_shapley(v, d, interactions=True)
    many = exact_shapley(v, d, interactions=True, batch_size=300)
    np.testing.assert_allclose(many.values, one.values, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(many.interactions, one.interactions, rtol=1e-12, atol=1e-14)

"""Coverage of the sampled solver's standard errors (issue 11, #1).

Over 200 random games with known Shapley values, the reported 95% intervals (value +- 1.96 standard
errors) must cover the truth at least 90% of the time at every budget: the smallest budget that
reports standard errors, 4 times and 16 times as many pairs.  The games are sums of unanimity
games of random orders 1 to 4 (Shapley values in closed form: each dividend split equally among
its players) and bounded product games (kernel-like factors in [0.3, 1], solved exactly by the
product engine).  Games of order at most 2 are not used: paired sampling solves them exactly.
"""

import numpy as np
import pytest

from kexplain.shapley import product_game_block, sampled_shapley
from kexplain.shapley.sampling import min_pairs_for_standard_errors

N_GAMES = 200
DIMENSIONS = (3, 5, 8, 12, 20, 40)


def unanimity_game(rng, d):
    """v(S) = sum_T g_T [T subset of S]; phi_j = sum_{T containing j} g_T / |T|."""
    n_terms = 2 * d
    sizes = rng.integers(1, min(4, d) + 1, size=n_terms)
    members = np.zeros((n_terms, d), dtype=np.int64)
    for i, s in enumerate(sizes):
        members[i, rng.choice(d, s, replace=False)] = 1
    g = rng.normal(size=n_terms)

    def vf(S):
        return (S.astype(np.int64) @ members.T == sizes).astype(float) @ g

    return vf, (members * (g / sizes)[:, None]).sum(axis=0)


def product_game(rng, d):
    r = int(rng.integers(1, 6))
    a = rng.uniform(0.3, 1.0, size=(1, r, d))
    b = rng.uniform(0.3, 1.0, size=(1, r, d))
    c = rng.normal(size=(r, 1))

    def vf(S):
        return np.where(S[:, None, :], a[0][None], b[0][None]).prod(axis=-1) @ c[:, 0]

    return vf, product_game_block(a, b, c)[0][0, :, 0]


def coverage(multiple):
    hits = total = 0
    for i in range(N_GAMES):
        rng = np.random.default_rng(1000 + i)
        d = DIMENSIONS[i % len(DIMENSIONS)]
        vf, exact = (product_game if (i // len(DIMENSIONS)) % 2 else unanimity_game)(rng, d)
        n_pairs = multiple * min_pairs_for_standard_errors(d)
        res = sampled_shapley(vf, d, 2 + 2 * n_pairs, random_state=i)
        assert np.all(np.isfinite(res.standard_errors))
        hits += int(np.sum(np.abs(res.values - exact) <= 1.96 * res.standard_errors))
        total += d
    return hits / total


@pytest.mark.slow
@pytest.mark.parametrize("multiple", [1, 4, 16], ids=["small", "medium", "large"])
def test_95_percent_intervals_cover_the_truth_at_every_budget(multiple):
    assert coverage(multiple) >= 0.90

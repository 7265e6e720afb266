"""Arguments of the enumeration solver (issue 11, #14): only True/False for flags, clear messages."""

import numpy as np
import pytest

import kexplain as kx


def game(S):
    return S.astype(float) @ np.array([1.0, 2.0, 3.0]) + S[:, 0] * S[:, 1]


@pytest.mark.parametrize("bad", ["yes", "no", 1, 0, None, [True]])
def test_interactions_must_be_true_or_false(bad):
    with pytest.raises(TypeError, match="interactions must be True or False"):
        kx.exact_shapley(game, 3, interactions=bad)


def test_numpy_bool_interactions_accepted():
    res = kx.exact_shapley(game, 3, interactions=np.True_)
    np.testing.assert_allclose(res.values, [1.5, 2.5, 3.0])
    assert res.interactions is not None and res.interactions[0, 1] == pytest.approx(1.0)
    assert kx.exact_shapley(game, 3, interactions=np.False_).interactions is None


@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_batch_size_must_be_a_positive_integer(bad):
    with pytest.raises(ValueError, match="batch_size must be a positive integer"):
        kx.exact_shapley(game, 3, batch_size=bad)


@pytest.mark.parametrize("bad", [0, -2, 3.0, True, 21])
def test_bad_number_of_players(bad):
    with pytest.raises(ValueError, match="d"):
        kx.exact_shapley(game, bad)

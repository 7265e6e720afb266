"""Arguments of the enumeration solver (issue 11, #14): only True/False for flags, clear messages."""

import numpy as np
import pytest

import kexplain as kx


def game(S):
    return S.astype(float) @ np.array([1.0, 2.0, 3.0]) + S[:, 0] * S[:, 1]


@pytest.mark.parametrize("bad", ["yes", "no", "shap", 1, 0, [True]])
def test_interactions_must_be_a_flag_or_an_index_name(bad):
    with pytest.raises(TypeError, match=r"interactions must be True or False, or the name of an index: 'sii'"):
        kx.exact_shapley(game, 3, interactions=bad)


def test_numpy_bool_interactions_accepted():
    res = kx.exact_shapley(game, 3, interactions=np.True_)
    np.testing.assert_allclose(res.values, [1.5, 2.5, 3.0])
    # shap's layout: half the pair's index (1) off the diagonal, rows summing to the values
    assert res.interactions is not None and res.interactions[0, 1] == pytest.approx(0.5)
    np.testing.assert_allclose(res.interactions.sum(axis=1), res.values)
    assert res.interaction_index == "sii"
    assert kx.exact_shapley(game, 3, interactions=np.False_).interactions is None
    # None (what check_explain_options returns for "no interactions") means none
    assert kx.exact_shapley(game, 3, interactions=None).interactions is None


@pytest.mark.parametrize("spelling", ["stii", "STII"])
def test_stii_by_name(spelling):
    res = kx.exact_shapley(game, 3, interactions=spelling)
    assert res.interaction_index == "stii"
    # STII's diagonal is the main effect v({j}) - v(empty set)
    np.testing.assert_allclose(np.diag(res.interactions), [1.0, 2.0, 3.0])
    np.testing.assert_allclose(res.interactions.sum(axis=1), res.values)


@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_batch_size_must_be_a_positive_integer(bad):
    with pytest.raises(ValueError, match="batch_size must be a positive integer"):
        kx.exact_shapley(game, 3, batch_size=bad)


@pytest.mark.parametrize("bad", [0, -2, 3.0, True, 21])
def test_bad_number_of_players(bad):
    with pytest.raises(ValueError, match="d"):
        kx.exact_shapley(game, bad)

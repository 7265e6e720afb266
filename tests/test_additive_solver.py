"""The additive-game solver against enumeration of all coalitions."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kexplain as kx
from kexplain.shapley import ShapleyValues
from kexplain.shapley.additive import (
    DenseAdditiveGame,
    additive_block_values,
    additive_game_block,
    additive_shapley,
    elementary_symmetric,
    leave_one_out_esp,
    solve_additive_game,
)


def _brute_value(z, c, w, S):
    """v(S) = sum_r c_r sum_{T subset S} w_|T| prod_{j in T} z_rj, by listing the subsets T."""
    idx = np.nonzero(S)[0]
    tot = np.zeros(z.shape[:-1])
    for q in range(min(len(idx), len(w) - 1) + 1):
        for T in itertools.combinations(idx, q):
            tot = tot + w[q] * np.prod(z[..., list(T)], axis=-1)
    return tot @ c


def _enumerated(z, c, w):
    d = z.shape[-1]
    return kx.exact_shapley(lambda coal: np.stack([_brute_value(z, c, w, s) for s in coal]), d)


def _enumerated_with_absent(z, b, c, w):
    """v(S) = sum_r c_r sum_q w_q e_q(y^S), y^S = z on S and b off S: every subset T of all players."""
    d = z.shape[-1]

    def v(coal):
        out = []
        for s in coal:
            y = np.where(s, z, b)
            out.append(_brute_value(y, c, w, np.ones(d, dtype=bool)))
        return np.stack(out)

    return kx.exact_shapley(v, d)


@pytest.mark.parametrize("d", [1, 2, 3, 5, 8])
def test_matches_enumeration_all_orders(d):
    rng = np.random.default_rng(d)
    z = rng.normal(size=(3, 4, d))
    c = rng.normal(size=(4, 2))
    w = rng.normal(size=d + 1)
    res = additive_shapley(z, c, w)
    ref = _enumerated(z, c, w)
    np.testing.assert_allclose(res.values, ref.values, atol=1e-11)
    np.testing.assert_allclose(res.v_full, ref.v_full, atol=1e-11)
    np.testing.assert_allclose(res.v_empty, ref.v_empty, atol=1e-12)


@pytest.mark.parametrize("Q", [1, 2, 4])
def test_truncated_order_matches_enumeration(Q):
    rng = np.random.default_rng(10 + Q)
    d = 6
    z = rng.uniform(-2, 2, size=(2, 5, d))
    c = rng.normal(size=5)
    w = rng.uniform(0.1, 2.0, size=Q + 1)
    res = additive_shapley(z, c, w)
    ref = _enumerated(z, c[:, None], w)
    np.testing.assert_allclose(res.values, ref.values[..., 0], atol=1e-11)


@settings(max_examples=25, deadline=None)
@given(
    d=st.integers(1, 5),
    r=st.integers(1, 4),
    seed=st.integers(0, 2**31 - 1),
    Q=st.integers(0, 5),
    zeros=st.booleans(),
)
def test_property_enumeration_and_efficiency(d, r, seed, Q, zeros):
    rng = np.random.default_rng(seed)
    z = rng.normal(scale=3.0, size=(1, r, d))
    if zeros:  # exact zeros must not break the (division-free) recursion
        z[rng.random(z.shape) < 0.4] = 0.0
    c = rng.normal(size=(r, 1))
    w = rng.normal(size=Q + 1)
    res = additive_shapley(z, c, w)
    ref = _enumerated(z, c, w)
    np.testing.assert_allclose(res.values, ref.values, atol=1e-9 * (1 + np.abs(ref.values).max()))
    np.testing.assert_allclose(
        res.values.sum(axis=1), res.v_full - res.v_empty, atol=1e-9 * (1 + np.abs(res.v_full).max())
    )


def test_total_index_is_sum_over_supersets():
    rng = np.random.default_rng(3)
    d = 5
    z = rng.normal(size=(1, 3, d))
    c = rng.normal(size=(3, 1))
    w = rng.normal(size=d + 1)
    phi, _, _ = additive_game_block(z, c, w, index="total")
    ref = np.zeros(d)
    for q in range(1, d + 1):
        for T in itertools.combinations(range(d), q):
            term = w[q] * (np.prod(z[0][:, list(T)], axis=-1) @ c[:, 0])
            for j in T:
                ref[j] += term
    np.testing.assert_allclose(phi[0, :, 0], ref, atol=1e-12)


def test_y_replaces_leading_factor_as_a_derivative():
    # with y = dz/dt along one player, phi_j is d v(D) / dt: check against finite differences
    rng = np.random.default_rng(4)
    d = 4
    z = rng.normal(size=(1, 6, d))
    dz = rng.normal(size=(1, 6, d))
    c = rng.normal(size=(6, 1))
    w = rng.normal(size=d + 1)
    phi, _, _ = additive_game_block(z, c, w, y=dz, index="total")
    h = 1e-6
    for j in range(d):
        e = np.zeros(d)
        e[j] = 1.0
        vp = additive_game_block(z + h * dz * e, c, w)[1]
        vm = additive_game_block(z - h * dz * e, c, w)[1]
        assert phi[0, j, 0] == pytest.approx(((vp - vm) / (2 * h))[0, 0], rel=1e-6, abs=1e-8)


def test_elementary_symmetric_and_leave_one_out():
    rng = np.random.default_rng(5)
    z = rng.normal(size=(3, 6))
    e = elementary_symmetric(z, 4)
    for q in range(5):
        ref = sum(np.prod(z[:, list(T)], axis=1) for T in itertools.combinations(range(6), q))
        np.testing.assert_allclose(e[:, q], ref, atol=1e-12)
    loo = leave_one_out_esp(z, 4)
    for j in range(6):
        np.testing.assert_allclose(loo[:, j], elementary_symmetric(np.delete(z, j, axis=1), 4), atol=1e-12)


def test_chunking_does_not_change_values():
    rng = np.random.default_rng(6)
    z = rng.normal(size=(7, 50, 5))
    c = rng.normal(size=(50, 2))
    w = rng.normal(size=6)
    big = solve_additive_game(DenseAdditiveGame(z, c, w))
    small = solve_additive_game(DenseAdditiveGame(z, c, w), max_block_bytes=2000)
    np.testing.assert_allclose(big.values, small.values, atol=1e-12)
    np.testing.assert_allclose(big.v_full, small.v_full, atol=1e-12)


def test_dummy_player_gets_zero_and_symmetry():
    rng = np.random.default_rng(7)
    z = rng.normal(size=(4, 4))
    z[:, 1] = 0.0  # player 1 never interacts
    z[:, 3] = z[:, 2]  # players 2 and 3 are interchangeable
    res = additive_shapley(z, rng.normal(size=4), [0.3, 1.0, 2.0, 0.5])
    assert res.values[1] == 0.0
    assert res.values[2] == pytest.approx(res.values[3], abs=1e-14)


def test_bad_input_is_rejected():
    z = np.ones((2, 3))
    with pytest.raises(ValueError, match="NaN"):
        additive_shapley(np.array([[np.nan, 1.0]]), [1.0], [0.0, 1.0])
    with pytest.raises(ValueError, match="one entry per row"):
        additive_shapley(z, [1.0, 2.0, 3.0], [0.0, 1.0])
    with pytest.raises(ValueError, match="weights"):
        additive_shapley(z, [1.0, 2.0], [[0.0, 1.0]])
    with pytest.raises(ValueError, match="index"):
        additive_shapley(z, [1.0, 2.0], [0.0, 1.0], index="banzhaf")
    with pytest.raises(ValueError, match="NaN"):
        additive_shapley(z, [1.0, 2.0], [0.0, np.nan])


@pytest.mark.parametrize("d,Q", [(1, 1), (2, 2), (3, 3), (5, 2), (6, 6), (7, 4)])
def test_absent_values_match_enumeration(d, Q):
    rng = np.random.default_rng(20 + d + Q)
    z = rng.normal(size=(3, 4, d))
    b = rng.normal(size=(4, d))
    c = rng.normal(size=(4, 2))
    w = rng.normal(size=Q + 1)
    res = additive_shapley(z, c, w, absent=b)
    assert isinstance(res, ShapleyValues)
    ref = _enumerated_with_absent(z, np.broadcast_to(b, z.shape), c, w)
    np.testing.assert_allclose(res.values, ref.values, atol=1e-10)
    np.testing.assert_allclose(res.v_full, ref.v_full, atol=1e-10)
    np.testing.assert_allclose(res.v_empty, ref.v_empty, atol=1e-10)
    # efficiency
    np.testing.assert_allclose(res.values.sum(axis=1), res.v_full - res.v_empty, atol=1e-10)


def test_absent_values_per_point_and_zero_absent_is_the_plain_game():
    rng = np.random.default_rng(30)
    z = rng.normal(size=(2, 3, 5))
    b = rng.normal(size=(2, 3, 5))
    c = rng.normal(size=3)
    w = rng.normal(size=6)
    res = additive_shapley(z, c, w, absent=b)
    ref = _enumerated_with_absent(z, b, c[:, None], w)
    np.testing.assert_allclose(res.values, ref.values[..., 0], atol=1e-10)
    plain = additive_shapley(z, c, w)
    np.testing.assert_allclose(additive_shapley(z, c, w, absent=np.zeros((3, 5))).values, plain.values, atol=1e-12)


def test_block_values_share_one_pass_for_several_indices():
    rng = np.random.default_rng(8)
    z = rng.normal(size=(2, 6, 4))
    c = rng.normal(size=(6, 1))
    w = rng.normal(size=5)
    (phi, total), orders = additive_block_values(z, c, w, indices=("shapley", "total"))
    np.testing.assert_allclose(phi, additive_game_block(z, c, w)[0], atol=1e-13)
    np.testing.assert_allclose(total, additive_game_block(z, c, w, index="total")[0], atol=1e-13)
    np.testing.assert_allclose(orders[..., 0], elementary_symmetric(z, 4).transpose(0, 2, 1) @ c[:, 0], atol=1e-12)
    zt = np.ascontiguousarray(np.moveaxis(z, -1, 0))
    (phi_t,), _ = additive_block_values(zt, c, w, players_first=True)
    np.testing.assert_array_equal(phi_t, phi)
    with pytest.raises(ValueError, match="shapley"):
        additive_block_values(z, c, w, indices=("total",), absent=np.zeros((6, 4)))
    with pytest.raises(ValueError, match="absent"):
        additive_block_values(z, c, w, y=z, absent=np.zeros((6, 4)))
    with pytest.raises(ValueError, match="shape"):
        additive_block_values(z, c, w, absent=np.zeros((5, 4)))


def test_values_of_a_point_do_not_depend_on_the_batch():
    rng = np.random.default_rng(9)
    z = rng.normal(size=(9, 40, 5))
    c = rng.normal(size=(40, 1))
    w = rng.normal(size=6)
    b = rng.normal(size=(40, 5))
    for absent in (None, b):
        full = additive_game_block(z, c, w, absent=absent)[0]
        np.testing.assert_array_equal(full[3:6], additive_game_block(z[3:6], c, w, absent=absent)[0])

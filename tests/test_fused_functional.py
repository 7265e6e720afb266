"""The engine's fused functional kernel (one RBF or Laplacian kernel, factors computed inside the
compiled quadrature kernel: ``product._stationary_pairs_block``) against the path it replaces
(the game's (points, rows, d) factor blocks through ``product_game_block``) and against
enumeration of coalitions."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import kexplain as kx
from kexplain.explainers.product_games import FunctionalGame
from kexplain.shapley import _product_functional as functional
from kexplain.shapley import product as engine
from kexplain.shapley import solve_product_game
from kexplain.shapley.quadrature import _ladder_sizes, nodes_for_degree

pytestmark = pytest.mark.skipif(
    engine._stationary_kernel() is None or kx.kernels.RBF(1.0).compiled_factor_spec(2) is None,
    reason="the fused kernel needs numba",
)


class BlockGame(FunctionalGame):
    """The same game without the fused route: factor blocks through ``block``."""

    def stationary_block(self, points, rows):
        return None


def _model(d, n, kernel, seed=0, n_out=1):
    rng = np.random.default_rng(seed)
    coef = rng.normal(size=(n, n_out)) if n_out > 1 else rng.normal(size=n)
    return kx.KernelExpansion(rng.normal(size=(n, d)), coef, kernel)


def _solve(game_cls, em, X, **kw):
    return solve_product_game(game_cls(em, X), **kw)


def _fused_calls(monkeypatch):
    calls = []
    real = engine._stationary_pairs_block

    def spy(*args):
        calls.append(args[0].shape)
        return real(*args)

    monkeypatch.setattr(engine, "_stationary_pairs_block", spy)
    return calls


KERNELS = [
    lambda d: kx.kernels.RBF(1.3),
    lambda d: kx.kernels.RBF(np.linspace(0.5, 2.0, d), amplitude=1.7),
    lambda d: kx.kernels.Laplacian(2.0),
    lambda d: kx.kernels.Laplacian(np.linspace(1.0, 3.0, d)),
]


@pytest.mark.parametrize("kernel", range(len(KERNELS)))
@pytest.mark.parametrize(("d", "n"), [(1, 5), (2, 4), (3, 7), (5, 9), (8, 13), (9, 2), (20, 41)])
def test_exact_rule_is_the_block_path_bit_for_bit(monkeypatch, kernel, d, n):
    """Every row count mod 4 (padding), d mod 4 and d mod 8 (the factor lanes' tails), ARD and
    amplitude: the fused route's values are the block path's, bit for bit."""
    em = _model(d, n, KERNELS[kernel](d), seed=d + n)
    X = np.random.default_rng(1).normal(size=(6, d))
    calls = _fused_calls(monkeypatch)
    got = _solve(FunctionalGame, em, X, nodes="exact")
    assert calls  # the fused route ran
    ref = _solve(BlockGame, em, X, nodes="exact")
    for name in ("values", "v_full", "v_empty"):
        np.testing.assert_array_equal(getattr(got, name), getattr(ref, name))


@pytest.mark.parametrize("d", [31, 40, 64])
def test_certified_counts_are_the_separate_pass_bit_for_bit(monkeypatch, d):
    """From 16 exact nodes the block path certifies too (a pass over the factor array); the fused
    kernel's counts, from the factors in cache, are the same and so are the values."""
    em = _model(d, 23, kx.kernels.RBF(np.sqrt(d)), seed=d, n_out=2)
    X = np.random.default_rng(2).normal(size=(9, d))
    X[:4] *= 0.2
    calls = _fused_calls(monkeypatch)
    got = _solve(FunctionalGame, em, X)
    assert calls
    ref = _solve(BlockGame, em, X)
    for name in ("values", "v_full", "v_empty"):
        np.testing.assert_array_equal(getattr(got, name), getattr(ref, name))


def test_certified_counts_are_really_fewer():
    """At d = 20 the fused kernel certifies fewer nodes than the exact rule for points near the data."""
    d = 20
    em = _model(d, 30, kx.kernels.RBF(np.sqrt(d)), seed=3)
    X = 0.3 * np.random.default_rng(4).normal(size=(4, d))
    fused = FunctionalGame(em, X).stationary_block(slice(0, 4), slice(0, 30))
    Xb, Y, ls, lap, c = fused
    r = Y.shape[0]
    Y4 = engine._rows_in_lanes(Y)
    exact = nodes_for_degree(d - 1)
    T, W, sizes = engine._rule_table(exact)
    counts = np.empty(4, dtype=np.int64)
    engine._stationary_kernel()(
        np.ascontiguousarray(Xb),
        Y4,
        np.repeat(ls, 4),
        lap,
        r,
        T,
        W,
        sizes,
        np.ascontiguousarray(engine.node_limits(d)),
        np.empty((4 * r, d)),
        np.empty((4 * r, exact), dtype=bool),
        np.empty(4 * r),
        counts,
    )
    assert counts.max() < exact
    # the counts the separate pass gives on the same factors
    a, _ = em.row_factors(Xb, slice(0, r))
    old = engine._point_counts_numpy(a.reshape(-1, d), None, np.ones((1, d)), engine.node_limits(d), 4, r)
    np.testing.assert_array_equal(counts, old)


def _enumerate(em, X):
    """phi[p, j] by the Shapley formula over all 2^d coalitions of the functional game."""
    a, c = em.row_factors(X, slice(0, em.n_rows))
    p, r, d = a.shape
    masks = np.array(list(itertools.product([0, 1], repeat=d)), dtype=bool)
    sizes = masks.sum(axis=1)
    weight = np.array([math.factorial(s) * math.factorial(d - s - 1) / math.factorial(d) for s in range(d)])
    phi = np.zeros((p, d, c.shape[1]))
    for pi in range(p):
        v = np.prod(np.where(masks[:, None, :], a[pi][None], 1.0), axis=2) @ c
        for j in range(d):
            out = ~masks[:, j]
            with_j = masks[out].copy()
            with_j[:, j] = True
            idx = with_j @ (1 << np.arange(d - 1, -1, -1))
            phi[pi, j] = weight[sizes[out]] @ (v[idx] - v[out])
    return phi


@pytest.mark.parametrize("d", [11, 12, 13])
@pytest.mark.parametrize("kernel", [kx.kernels.RBF, kx.kernels.Laplacian])
def test_certified_equals_enumeration_and_exact_rule(d, kernel):
    """From d = 11 the fused kernel certifies counts below the exact rule: within 1e-14 of it and of
    enumeration."""
    em = _model(d, 10, kernel(2.0 * np.sqrt(d)), seed=d, n_out=2)
    X = 0.3 * np.random.default_rng(5).normal(size=(3, d))
    got = _solve(FunctionalGame, em, X)
    exact = _solve(FunctionalGame, em, X, nodes="exact")
    scale = np.abs(exact.values).max()
    assert np.abs(got.values - exact.values).max() <= 1e-14 * scale
    np.testing.assert_array_equal(got.v_full, exact.v_full)
    ref = _enumerate(em, X)
    assert np.abs(got.values - ref).max() <= 1e-12 * np.abs(ref).max()


@pytest.mark.parametrize("nodes", ["exact", "certified"])
@pytest.mark.parametrize("d", [12, 40])
def test_log_space_entries_are_the_block_path(nodes, d):
    """A narrow kernel: products of tiny factors near underflow, finished in log space (after the
    exact-rule redo of the certified points) from the pairs' factors recomputed: the block path's
    numbers.  At d = 12 the block path takes the exact rule, so the certified values are compared
    at 1e-14; at d = 40 both certify, bit for bit."""
    rng = np.random.default_rng(d)
    S = rng.normal(size=(9, d))
    em = kx.KernelExpansion(S, rng.normal(size=9), kx.kernels.RBF(0.08))
    X = np.concatenate([S[:2] + 1e-3 * rng.normal(size=(2, d)), rng.normal(size=(3, d))])
    got = _solve(FunctionalGame, em, X, nodes=nodes)
    ref = _solve(BlockGame, em, X, nodes=nodes)
    np.testing.assert_array_equal(got.v_full, ref.v_full)
    if nodes == "certified" and d < 31:
        scale = np.abs(ref.values).max()
        assert np.abs(got.values - ref.values).max() <= 1e-14 * scale
    else:
        np.testing.assert_array_equal(got.values, ref.values)


def test_other_kernels_and_backends_keep_the_block_path(monkeypatch):
    """Cauchy (no compiled exponential), sums of kernels and backend="numpy" take the factor blocks."""
    calls = _fused_calls(monkeypatch)
    X = np.random.default_rng(0).normal(size=(3, 4))
    for kernel in (kx.kernels.Cauchy(1.0), kx.kernels.RBF(1.0) + kx.kernels.Laplacian(2.0)):
        _solve(FunctionalGame, _model(4, 6, kernel), X)
    _solve(FunctionalGame, _model(4, 6, kx.kernels.RBF(1.0)), X, backend="numpy")
    assert not calls


def test_explainer_takes_the_fused_route(monkeypatch):
    """ProductKernelExplainer's default game on an RBF SVR runs the fused kernel, values as enumeration."""
    from sklearn.svm import SVR

    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 6))
    model = SVR(kernel="rbf", C=10.0, epsilon=0.01).fit(X, np.sin(X[:, 0]) + X[:, 1])
    calls = _fused_calls(monkeypatch)
    ex = kx.ProductKernelExplainer(model).explain(X[:3])
    assert calls
    em = kx.ProductKernelExplainer(model).expansion
    ref = _enumerate(em, X[:3])[:, :, 0]
    assert np.abs(ex.values - ref).max() <= 1e-12 * np.abs(ref).max()


def test_certified_points_near_underflow_are_redone_at_the_exact_rule(monkeypatch):
    """d = 400, factors near 0.18: the spread certifies fewer nodes, but the node products come near
    underflow, so the point is redone at the exact rule and its flagged entries finished in log
    space: the block path's numbers bit for bit (the other points keep their certified counts)."""
    d = 400
    rng = np.random.default_rng(0)
    S = 0.01 * rng.normal(size=(5, d))
    em = kx.KernelExpansion(S, rng.normal(size=5), kx.kernels.RBF(1.0))
    X = np.vstack([1.85 + 0.01 * rng.normal(size=(1, d)), 0.3 * rng.normal(size=(2, d))])
    real = engine._stationary_kernel()
    counts_seen = []

    def kernel(*args):
        real(*args)
        counts_seen.append(args[-1].copy())

    monkeypatch.setattr(functional, "_stationary_kernel", lambda: kernel)  # its home: the caller
    # every rule of d = 400 built first: no run again for a rule built on first use (tested in
    # test_quadrature_first_call.py), whichever tests ran before
    table = functional._lazy_rule_table(nodes_for_degree(d - 1))
    table.build(range(1, table.sizes.size))
    got = _solve(FunctionalGame, em, X)
    assert len(counts_seen) == 2  # the block, then the redo of point 0
    assert counts_seen[0].max() < nodes_for_degree(d - 1)
    ref = _solve(BlockGame, em, X)
    for name in ("values", "v_full", "v_empty"):
        np.testing.assert_array_equal(getattr(got, name), getattr(ref, name))


def test_rule_table_holds_the_ladder_of_rules(monkeypatch):
    """One row per count ``certified_nodes`` can give (every count up to 64 nodes, then rungs at
    most 9/8 apart up to the exact rule: O(log n) rules), each the Gauss-Legendre rule of its row
    (the table of every rule from 1 to n nodes took 7.6 s to build at d = 1,000 and would take
    hours and 1.6 GB at d = 20,000)."""
    seen = []
    real = functional.gauss_legendre_01
    monkeypatch.setattr(functional, "gauss_legendre_01", lambda m: seen.append(m) or real(m))
    table = functional._LazyRuleTable(600)
    table.build(range(1, table.sizes.size))
    T, W, sizes = table.T, table.W, table.sizes
    np.testing.assert_array_equal(sizes[1:], _ladder_sizes(600))
    assert sizes[0] == 0 and seen == sizes[1:].tolist() and T.shape == W.shape == (sizes.size, 600)
    assert sizes.size < 90
    for i in (1, 64, sizes.size - 2, sizes.size - 1):
        t, w = real(int(sizes[i]))
        np.testing.assert_array_equal(T[i, : sizes[i]], t)
        np.testing.assert_array_equal(W[i, : sizes[i]], w)
        assert not T[i, sizes[i] :].any()


def test_certified_counts_above_64_take_the_next_rung():
    """d = 300: the bound asks for 71-75 nodes per point; the fused kernel and the separate pass
    both take the ladder's next rung (72 or 81 nodes), the same numbers bit for bit, within 1e-14
    of the exact rule (150 nodes)."""
    d = 300
    rng = np.random.default_rng(3)
    em = kx.KernelExpansion(rng.normal(size=(12, d)), rng.normal(size=12), kx.kernels.RBF(1.0))
    X = rng.normal(size=(4, d))
    Xb, Y, ls, lap, c = FunctionalGame(em, X).stationary_block(slice(0, 4), slice(0, 12))
    a, _ = em.row_factors(Xb, slice(0, 12))
    old = engine._point_counts_numpy(a.reshape(-1, d), None, np.ones((1, d)), engine.node_limits(d), 4, 12)
    assert set(old.tolist()) == {72, 81}  # rungs: the bound alone asks for 71-75
    T, W, sizes = engine._rule_table(nodes_for_degree(d - 1))
    counts = np.empty(4, dtype=np.int64)
    engine._stationary_kernel()(
        np.ascontiguousarray(Xb),
        engine._rows_in_lanes(Y),
        np.repeat(ls, 4),
        lap,
        12,
        T,
        W,
        sizes,
        engine.node_limits(d)[sizes[1:-1] - 1],
        np.empty((48, d)),
        np.empty((48, 150), dtype=bool),
        np.empty(48),
        counts,
    )
    np.testing.assert_array_equal(counts, old)
    got = _solve(FunctionalGame, em, X)
    ref = _solve(BlockGame, em, X)
    for name in ("values", "v_full", "v_empty"):
        np.testing.assert_array_equal(getattr(got, name), getattr(ref, name))
    exact = _solve(FunctionalGame, em, X, nodes="exact")
    assert np.abs(got.values - exact.values).max() <= 1e-14 * np.abs(exact.values).max()

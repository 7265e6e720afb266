"""The engine's leave-one-out pass (compiled and numpy) against a plain numpy reference (issue 26).

The reference multiplies out prod_{i != j} g_ki(t_l) for every pair, node and feature, with no
prefix products, no reassociation, no chunks of nodes and no log space, and sums over the
Gauss-Legendre nodes; the engine must equal it to 1e-13 (relative to the largest value) for
factors in [0, 1], with exact zeros, negative, above 1, and for d from 1 to 300 (node chunks and
their padding included).  The rows form (a's row of pair k given by an index, as the
interventional game pairs one row of present factors with every background row) must give the
numbers of the copied rows.
"""

from __future__ import annotations

import numpy as np
import pytest

from kexplain.shapley.product import _numba_kernel, _weighted_loo_integrals, product_game_block
from kexplain.shapley.quadrature import gauss_legendre_01, nodes_for_degree

try:
    import numba  # noqa: F401

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover
    HAVE_NUMBA = False

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.skipif(not HAVE_NUMBA, reason="numba not installed"))]
KINDS = ["unit", "zeros", "negative", "above_one", "narrow"]


def _reference(a, b, t, w):
    """psi[k, j] = (a - b)_kj sum_l w_l prod_{i != j} (b_ki + t_l (a - b)_ki), multiplied out."""
    K, d = a.shape
    bm = b[np.arange(K) % b.shape[0]]
    diff = a - bm
    g = bm[:, None, :] + t[None, :, None] * diff[:, None, :]  # (K, m, d)
    out = np.empty((K, d))
    with np.errstate(under="ignore"):
        for j in range(d):
            loo = np.prod(np.delete(g, j, axis=2), axis=2)  # (K, m)
            out[:, j] = diff[:, j] * (loo @ w)
    return out


def _factors(kind, K, nb, d, rng):
    if kind == "unit":
        a, b = rng.random((K, d)), rng.random((nb, d))
    elif kind == "zeros":
        a, b = rng.random((K, d)), rng.random((nb, d))
        a[rng.random(a.shape) < 0.15] = 0.0
        b[rng.random(b.shape) < 0.15] = 0.0
    elif kind == "negative":
        a, b = rng.uniform(-1.0, 1.0, (K, d)), rng.uniform(-1.0, 1.0, (nb, d))
    elif kind == "above_one":  # the division scheme of the compiled kernel
        a, b = rng.uniform(-1.5, 1.5, (K, d)), rng.uniform(0.5, 1.5, (nb, d))
    else:  # kernel values near underflow: the flagged entries finished in log space
        a, b = np.exp(-rng.exponential(4.0, (K, d))), np.exp(-rng.exponential(4.0, (nb, d)))
    if d >= 2:
        a[0] = 1.0  # a row of ones: psi = (1 - b) times products of b (values of order one)
    return a, b


def _kernel(backend):
    return _numba_kernel() if backend == "numba" else None


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("d", [1, 2, 5, 11, 23, 24, 60, 300])
def test_leave_one_out_pass_equals_plain_reference(backend, kind, d):
    rng = np.random.default_rng(1000 * d + KINDS.index(kind))
    K, nb = (6, 3) if d >= 200 else (45, 7)
    a, b = _factors(kind, K, nb, d, rng)
    t, w = gauss_legendre_01(nodes_for_degree(d - 1))
    psi, pa = _weighted_loo_integrals(a, b, t, w, _kernel(backend))
    ref = _reference(a, b, t, w)
    scale = max(np.abs(ref).max(), 1e-300)
    np.testing.assert_allclose(psi, ref, rtol=1e-13, atol=1e-13 * scale)
    with np.errstate(under="ignore"):
        np.testing.assert_array_equal(pa, np.prod(a, axis=1))
    # efficiency of each one-row game: sum_j psi_kj = prod a_k - prod b_k
    with np.errstate(under="ignore"):
        gap = psi.sum(axis=1) - (np.prod(a, axis=1) - np.prod(b[np.arange(K) % nb], axis=1))
    assert np.abs(gap).max() <= 1e-13 * max(1.0, np.abs(psi).max())


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("d", [1, 3, 24, 90])
def test_rows_form_equals_copied_rows(backend, d):
    """Pairs given as (row index of a, b's row k % len(b)) equal the same pairs with a's rows copied."""
    rng = np.random.default_rng(d)
    a_rows = rng.uniform(-1.0, 1.0, (5, d))
    a_rows[1, 0] = 0.0
    b = np.exp(-rng.exponential(1.0, (8, d)))
    ia = rng.integers(0, 5, size=24)  # three rounds of b's 8 rows
    t, w = gauss_legendre_01(nodes_for_degree(d - 1))
    got, pa = _weighted_loo_integrals(a_rows, b, t, w, _kernel(backend), ia)
    ref, pa_ref = _weighted_loo_integrals(np.ascontiguousarray(a_rows[ia]), b, t, w, _kernel(backend))
    np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(pa, pa_ref)


@pytest.mark.parametrize("d", [2, 30, 160])
def test_block_with_one_absent_row_equals_full_absent_rows(d):
    """A scalar b (the functional game) and the same b given for every row give the same numbers."""
    rng = np.random.default_rng(d)
    a = rng.random((3, 11, d))
    c = rng.normal(size=(11, 2))
    for b in (1.0, 0.7):
        one = product_game_block(a, b, c)
        full = product_game_block(a, np.full((11, d), b), c)
        for x, y in zip(one, full):
            np.testing.assert_allclose(x, y, rtol=1e-15, atol=1e-15 * np.abs(y).max())


@pytest.mark.skipif(not HAVE_NUMBA, reason="numba not installed")
@pytest.mark.parametrize("d", [1, 4, 7, 8, 9, 11])
def test_compiled_subset_kernel_equals_numpy(d):
    """The subset route's compiled kernel (players split in two halves from d = 8 on) against the
    numpy doubling, with per-point row weights, several outputs, zeros and negative factors."""
    from kexplain.shapley import subsets

    rng = np.random.default_rng(d)
    P, R, nb = 3, 13, 5
    factors = rng.uniform(-1.0, 1.5, size=(nb, R, d))
    factors[rng.random(factors.shape) < 0.1] = 0.0
    bw = rng.dirichlet(np.ones(nb))
    B = subsets.absent_set_table(factors, bw, backend="numba")
    np.testing.assert_allclose(B, subsets.absent_set_table(factors, bw, backend="numpy"), rtol=1e-13, atol=1e-15)
    coef = rng.normal(size=(R, 2))
    a = rng.uniform(-1.0, 1.5, size=(P, R, d))
    a[rng.random(a.shape) < 0.1] = 0.0
    W = rng.uniform(0.5, 2.0, size=(P, R))
    got = subsets.SubsetGame(B, coef, backend="numba").values(a, W)
    ref = subsets.SubsetGame(B, coef, backend="numpy").values(a, W)
    np.testing.assert_allclose(got, ref, rtol=1e-13, atol=1e-13 * np.abs(ref).max())


@pytest.mark.parametrize("kept", [True, False])
@pytest.mark.parametrize("block_rows", [4, 9, 1000])
def test_interventional_rows_form_equals_copied_blocks(kept, block_rows):
    """The interventional game's rows form (present factors by index, background products kept
    once) equals the copied blocks of ``block``, also for row blocks that split a support vector's
    background rows and for background factors recomputed per block."""
    import kexplain as kx
    from kexplain.explainers.product_games import BackgroundFactors, InterventionalGame
    from kexplain.shapley import solve_product_game

    rng = np.random.default_rng(block_rows)
    d = 5
    em = kx.KernelExpansion(rng.normal(size=(7, d)), rng.normal(size=7), kx.kernels.RBF(1.3))
    Z, X = rng.normal(size=(9, d)), rng.normal(size=(3, d))
    bg = BackgroundFactors(em, Z, np.full(9, 1 / 9), max_bytes=2**25 if kept else 1)
    assert (bg.factors is not None) is kept
    game = InterventionalGame(em, X, bg)
    rows_form = solve_product_game(game, max_block_bytes=8 * 6 * d * block_rows)

    class Copied:  # the same game without its rows form
        n_points, n_rows, n_features, n_outputs = game.n_points, game.n_rows, game.n_features, game.n_outputs
        row_alignment = game.row_alignment
        block = staticmethod(game.block)

    copied = solve_product_game(Copied(), max_block_bytes=8 * 6 * d * block_rows)
    for x, y in (
        (rows_form.values, copied.values),
        (rows_form.v_full, copied.v_full),
        (rows_form.v_empty, copied.v_empty),
    ):
        np.testing.assert_allclose(x, y, rtol=1e-14, atol=1e-15)

"""The one-point path of the interventional quadrature route: the same numbers and objects as the general steps.

A loop of one-point calls takes shortcuts around the fused kernel: the solver's one block without
its loop (``_product_interventional._solve_one_block``), the laid kernel's own finiteness check
and per-row products, the present factors' compiled pass kept with the background
(``_interventional_game._present_factors_kept``), ``_check_X``'s first step of ``check_data`` and
the one-point Explanation (``ProductKernelBase._one_point_explanation``).  Each is compared here,
bit for bit, with the general steps it stands for, and bad input gets the same errors.
"""

from __future__ import annotations

import numpy as np
import pytest

import kexplain as kx
import kexplain.explainers.product_kernel_base as pk_base
from kexplain._validation import check_data
from kexplain.explainers import _interventional_game
from kexplain.explainers.product_games import BackgroundFactors, InterventionalGame, present_factors
from kexplain.shapley import _product_interventional as fused_route
from kexplain.shapley import product as engine

pytest.importorskip("numba")


def _model(d, n_ref, rng, kernel=None):
    kernel = kx.kernels.RBF(rng.uniform(0.6, 2.0, size=d)) if kernel is None else kernel
    return kx.KernelExpansion(rng.normal(size=(n_ref, d)), rng.normal(size=n_ref), kernel, intercept=0.3)


def _explainer(monkeypatch, em, Z):
    monkeypatch.setattr(pk_base, "choose_route", lambda *a, **k: "quadrature")
    explainer = kx.ProductKernelExplainer(em, background=Z)
    assert explainer.route == "quadrature"
    return explainer


def _same_explanations(x, y):
    for name in ("values", "base_values", "data", "v_full", "feature_names", "output_names", "game", "output"):
        a, b = getattr(x, name), getattr(y, name)
        if isinstance(a, np.ndarray):
            assert a.shape == b.shape and a.dtype == b.dtype, name
            np.testing.assert_array_equal(a, b, err_msg=name)
        else:
            assert a == b, name
    assert x.efficiency_error == y.efficiency_error and dict(x.info) == dict(y.info)
    assert x.interactions is None and y.interactions is None and x.index == y.index


@pytest.mark.parametrize(
    ("d", "n_ref", "nb", "n_points"), [(3, 13, 7, 1), (10, 11, 6, 1), (10, 11, 6, 3), (6, 5, 50, 2)]
)
def test_one_block_equals_the_solvers_loop_bit_for_bit(d, n_ref, nb, n_points, monkeypatch):
    rng = np.random.default_rng(d + nb)
    em = _model(d, n_ref, rng)
    game = InterventionalGame(
        em, rng.normal(size=(n_points, d)), BackgroundFactors(em, rng.normal(size=(nb, d)), np.full(nb, 1 / nb))
    )
    calls = []
    real = fused_route._solve_one_block
    monkeypatch.setattr(fused_route, "_solve_one_block", lambda *a: calls.append(1) or real(*a))
    monkeypatch.setattr(engine, "_solve_one_block", fused_route._solve_one_block)
    one = engine.solve_product_game(game)
    assert calls
    monkeypatch.setattr(engine, "_solve_one_block", lambda *a: None)
    loop = engine.solve_product_game(game)
    for name in ("values", "v_full", "v_empty"):
        a, b = getattr(one, name), getattr(loop, name)
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    assert one.interactions is None and one.interaction_index is None


def test_one_block_takes_the_unfused_kernel_for_factors_above_one(monkeypatch):
    """A Cauchy-free way to a factor above 1: a present factor scaled by hand in the game's block."""
    rng = np.random.default_rng(4)
    em = _model(5, 6, rng)
    game = InterventionalGame(
        em, rng.normal(size=(1, 5)), BackgroundFactors(em, rng.normal(size=(4, 5)), np.full(4, 0.25))
    )
    real = game.pair_block

    def scaled(points, rows):
        a2, ia, b2, c, pb = real(points, rows)
        a2 = a2.copy()
        a2[2, 1] = 1.25
        return a2, ia, b2, c, pb

    game.pair_block = scaled
    one = fused_route._solve_one_block(game, engine._numba_kernel(), engine.DEFAULT_BLOCK_BYTES, engine.block_shape)
    monkeypatch.setattr(engine, "_solve_one_block", lambda *a: None)
    loop = engine.solve_product_game(game)
    np.testing.assert_array_equal(one.values, loop.values)
    np.testing.assert_array_equal(one.v_full, loop.v_full)
    np.testing.assert_array_equal(one.v_empty, loop.v_empty)


def test_one_block_is_not_taken_where_it_does_not_apply():
    rng = np.random.default_rng(6)
    em = _model(4, 9, rng)
    bg = BackgroundFactors(em, rng.normal(size=(5, 4)), np.full(5, 0.2))
    kernel = engine._numba_kernel()
    # rows in several blocks, numba missing, another game
    assert (
        fused_route._solve_one_block(
            InterventionalGame(em, rng.normal(size=(2, 4)), bg), kernel, 8 * 6 * 4 * 10, engine.block_shape
        )
        is None
    )
    assert (
        fused_route._solve_one_block(
            InterventionalGame(em, rng.normal(size=(2, 4)), bg), None, 2**25, engine.block_shape
        )
        is None
    )
    functional = kx.explainers.product_games.FunctionalGame(em, rng.normal(size=(1, 4)))
    assert fused_route._solve_one_block(functional, kernel, 2**25, engine.block_shape) is None


def test_laid_kernel_reports_finite_values_and_non_finite_phi():
    rng = np.random.default_rng(8)
    em = _model(4, 5, rng)
    game = InterventionalGame(
        em, rng.normal(size=(1, 4)), BackgroundFactors(em, rng.normal(size=(8, 4)), np.full(8, 1 / 8))
    )
    rows = slice(0, game.n_rows)
    a2, ia, b2, c, pb = game.pair_block(slice(0, 1), rows)
    laid = game.pair_layout(slice(0, 1), rows)
    out = fused_route._fused_pairs_checked(a2, ia, b2, c, 1, n_nodes=None, pb=pb, b_laid=laid)
    assert out[3] is True and np.isfinite(out[0]).all()
    gathered = fused_route._fused_pairs_checked(a2, ia, b2, c, 1, n_nodes=None, pb=pb)
    assert gathered[3] is False  # the gathered kernel checks v(all) only
    # weights near the largest float: phi overflows while v(all) (a present factor of 1e-300) does not
    tiny_a = a2.copy()
    tiny_a[:, 3] = 1e-300
    huge = np.full_like(c, 1e308)
    with np.errstate(over="ignore"):  # v(no feature) = pb @ c overflows too
        out = fused_route._fused_pairs_checked(tiny_a, ia, b2, huge, 1, n_nodes=None, pb=pb, b_laid=laid)
    assert out[3] is False and not np.isfinite(out[0]).all() and np.isfinite(out[1]).all()


def test_kept_present_factors_are_present_factors_bit_for_bit():
    rng = np.random.default_rng(9)
    for kernel in (kx.kernels.RBF(1.3), kx.kernels.Laplacian(rng.uniform(0.5, 2.0, size=7)), kx.kernels.Cauchy(1.0)):
        em = _model(7, 12, rng, kernel=kernel)
        bg = BackgroundFactors(em, rng.normal(size=(3, 7)), np.full(3, 1 / 3))
        X = rng.normal(size=(2, 7))
        for lo, hi in ((0, 12), (3, 8)):
            kept = _interventional_game._present_factors_kept(bg, em, X, lo, hi)
            np.testing.assert_array_equal(kept, present_factors(em, X, slice(lo, hi)))
    # a new lengthscale (a new object) is read again
    em = _model(3, 4, rng, kernel=kx.kernels.RBF(1.0))
    bg = BackgroundFactors(em, rng.normal(size=(2, 3)), np.full(2, 0.5))
    X = rng.normal(size=(1, 3))
    _interventional_game._present_factors_kept(bg, em, X, 0, 4)
    em.terms[0].lengthscale = 2.0
    np.testing.assert_array_equal(
        _interventional_game._present_factors_kept(bg, em, X, 0, 4), present_factors(em, X, slice(0, 4))
    )


@pytest.mark.parametrize(
    ("n_points", "game"),
    [(1, "interventional"), (3, "interventional"), (1, "functional"), (1, "baseline"), (1, "subsets")],
)
def test_one_point_explanation_equals_the_general_one(n_points, game, monkeypatch):
    rng = np.random.default_rng(12)
    em = _model(6, 9, rng)
    if game == "interventional":
        explainer = _explainer(monkeypatch, em, rng.normal(size=(7, 6)))
    elif game == "subsets":
        monkeypatch.setattr(pk_base, "choose_route", lambda *a, **k: "subsets")
        explainer = kx.ProductKernelExplainer(em, background=rng.normal(size=(7, 6)))
        assert explainer.route == "subsets"
    else:
        explainer = kx.ProductKernelExplainer(em, **({"baseline": rng.normal(size=6)} if game == "baseline" else {}))
    assert explainer.game == game or game == "subsets"
    X = rng.normal(size=(n_points, 6))
    fast = explainer.explain(X)
    monkeypatch.setattr(pk_base.ProductKernelBase, "_one_point_explanation", lambda *a: None)
    monkeypatch.setattr(engine, "_solve_one_block", lambda *a: None)
    _same_explanations(fast, explainer.explain(X))
    explainer.explain(X[:1])  # the general steps still run for one point


def test_check_x_first_step_is_check_datas(monkeypatch):
    rng = np.random.default_rng(13)
    explainer = _explainer(monkeypatch, _model(4, 5, rng), rng.normal(size=(3, 4)))
    huge = rng.normal(size=(1, 4)) * 1e200  # squares overflow: check_data reads these itself
    for X in (
        rng.normal(size=(2, 4)),
        np.asfortranarray(rng.normal(size=(3, 4))),
        rng.normal(size=(5, 8))[:, ::2],
        huge,
    ):
        mine, theirs = explainer._check_X(X), check_data(X, name="X", n_features=4)
        assert mine is not X and mine.flags.c_contiguous == theirs.flags.c_contiguous
        np.testing.assert_array_equal(mine, theirs)
    bad = rng.normal(size=(2, 4))
    bad[1, 2] = np.nan
    with pytest.raises(ValueError, match=r"X contains NaN or infinite values at \(row 1, column 2\)"):
        explainer.explain(bad)
    with pytest.raises(ValueError, match="X has 5 features, but the model expects 4"):
        explainer.explain(rng.normal(size=(1, 5)))

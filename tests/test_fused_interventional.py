"""The fused interventional quadrature kernel (``kexplain.shapley._product_fused_numba``).

It weights and sums each point's pair integrals inside the kernel instead of writing them out for
a matrix product; it must give the unfused engine's values to rounding (its sums are in another
order), the enumeration of all coalitions with the model's own predictions, the same numbers
for a point whatever other points share its call, and hand the rare cases (factors above 1,
products near underflow, several outputs) to the unfused kernel.
"""

from __future__ import annotations

import math
from unittest import mock

import numpy as np
import pytest

import kexplain as kx
import kexplain.explainers.product_kernel_base as pk_base
from kexplain.explainers.product_games import BackgroundFactors, InterventionalGame, _lay_out_rows
from kexplain.shapley import _product_interventional as fused_route
from kexplain.shapley import product as engine

pytest.importorskip("numba")


def _forced_quadrature(monkeypatch):
    monkeypatch.setattr(pk_base, "choose_route", lambda *a, **k: "quadrature")


def _unfused():
    return mock.patch.multiple(fused_route, _fused_kernel=lambda: None, _fused_kernel_laid=lambda: None)


def _model(d, n_ref, rng, n_outputs=1):
    coef = rng.normal(size=(n_ref, n_outputs)) if n_outputs > 1 else rng.normal(size=n_ref)
    return kx.KernelExpansion(rng.normal(size=(n_ref, d)), coef, kx.kernels.RBF(rng.uniform(0.6, 2.0, size=d)))


def _enumerated(em, Z, x):
    d = x.shape[0]

    def v(S):
        rows = np.where(S[:, None, :], x[None, None, :], Z[None, :, :])
        return em.predict(rows.reshape(-1, d)).reshape(S.shape[0], -1).mean(axis=1)

    return kx.shapley.exact_shapley(v, d, batch_size=256).values


@pytest.mark.parametrize(("d", "n_ref", "nb"), [(3, 13, 7), (5, 9, 4), (10, 11, 6), (17, 5, 3)])
def test_fused_equals_unfused_and_enumeration(d, n_ref, nb, monkeypatch):
    """Row counts that are no multiple of 4 (padded lanes), blocks of 4 pairs across two support
    vectors (gathered rows), and node counts of 2 to 9."""
    _forced_quadrature(monkeypatch)
    rng = np.random.default_rng(d)
    em = _model(d, n_ref, rng)
    Z, X = rng.normal(size=(nb, d)), rng.normal(size=(5, d))
    explainer = kx.ProductKernelExplainer(em, background=Z)
    assert explainer.route == "quadrature"
    calls = []
    laid = engine._fused_kernel_laid()
    monkeypatch.setattr(fused_route, "_fused_kernel_laid", lambda: lambda *a: calls.append(1) or laid(*a))
    fused = explainer.explain(X)
    assert calls, "the fused kernel did not run"
    with _unfused():
        plain = explainer.explain(X)
    scale = np.abs(plain.values).max()
    np.testing.assert_allclose(fused.values, plain.values, rtol=0, atol=1e-14 * scale * max(1, n_ref * nb / 16))
    np.testing.assert_array_equal(fused.base_values, plain.base_values)
    np.testing.assert_allclose(fused.v_full, plain.v_full, rtol=1e-14, atol=1e-15)
    if d <= 10:
        for i in range(2):
            np.testing.assert_allclose(fused.values[i], _enumerated(em, Z, X[i]), rtol=1e-10, atol=1e-12)


def test_a_point_gets_the_same_numbers_in_any_call(monkeypatch):
    _forced_quadrature(monkeypatch)
    rng = np.random.default_rng(3)
    em = _model(6, 7, rng)
    explainer = kx.ProductKernelExplainer(em, background=rng.normal(size=(5, 6)))
    X = rng.normal(size=(6, 6))
    both = explainer.explain(X)
    one = np.concatenate([explainer.explain(X[i : i + 1]).values for i in range(6)])
    np.testing.assert_array_equal(one, both.values)


def _rows_form(d, n_ref, nb, rng, scale=1.0):
    em = _model(d, n_ref, rng)
    Z, X = rng.normal(size=(nb, d)), rng.normal(size=(3, d))
    bg = BackgroundFactors(em, Z, np.full(nb, 1.0 / nb))
    game = InterventionalGame(em, X, bg)
    rows = slice(0, game.n_rows)
    a2, ia, b2, c, pb = game.pair_block(slice(0, 3), rows)
    return game, (a2 * scale, ia, b2, c, pb), game.pair_layout(slice(0, 3), rows)


@pytest.mark.parametrize("d", [7, 9, 10])
def test_laid_out_and_gathered_kernels_agree_bit_for_bit(d):
    """d = 7: 4 nodes (the shared passes); d = 9, 10: 5 nodes (the laid kernel's own pass, acc
    in registers); the layout's bound found once (read-only, kept) or tested in every block."""
    game, (a2, ia, b2, c, pb), laid = _rows_form(d, 9, 5, np.random.default_rng(8))
    assert laid.shape == (-(-len(c) // 4), d, 4)
    assert not laid.flags.writeable and fused_route._laid_bounded(laid)
    gathered = engine._fused_pairs_block(a2, ia, b2, c, 3, n_nodes=None, pb=pb)
    in_place = engine._fused_pairs_block(a2, ia, b2, c, 3, n_nodes=None, pb=pb, b_laid=laid)
    tested = engine._fused_pairs_block(a2, ia, b2, c, 3, n_nodes=None, pb=pb, b_laid=laid.copy())
    for x, y, z in zip(gathered, in_place, tested):
        assert x.tobytes() == y.tobytes() == z.tobytes()  # -0.0 and 0.0 told apart too
    r = len(c)
    t, w = engine.gauss_legendre_01(engine.nodes_for_degree(d - 1))
    kernel = fused_route._fused_kernel_laid()
    for bounded in (False, True):
        for five in (None, True):
            phi, vfull = np.zeros((3, d)), np.zeros(3)
            status = kernel(a2, ia, laid, t, w, c.reshape(r), r, phi, vfull, bounded, five)
            if five and len(t) != 5:  # the 5-node pass asked at another node count: handed on
                assert status == 0
                continue
            assert status == 1
            assert phi.tobytes() == gathered[0][:, :, 0].tobytes()


def test_a_layout_is_bounded_once_and_only_when_kept():
    """Only read-only arrays that own their data are remembered (by identity, while alive); a
    background factor above 1 in a kept layout still hands the block to the unfused kernel."""
    _, (a2, ia, b2, c, pb), laid = _rows_form(10, 6, 5, np.random.default_rng(2))
    big = laid.copy()
    big[1, 4, 2] = -1.5
    assert not fused_route._laid_bounded(big)  # writeable: the kernel tests its blocks
    big.flags.writeable = False
    assert not fused_route._laid_bounded(big) and id(big) in fused_route._BOUNDED
    assert engine._fused_pairs_block(a2, ia, b2, c, 3, n_nodes=None, pb=pb, b_laid=big) is None
    view = laid[:]
    assert view.base is laid and not fused_route._laid_bounded(view)
    key = id(big)
    del big
    assert key not in fused_route._BOUNDED


def test_fused_sums_are_closer_to_the_exact_sum_than_the_matrix_product():
    """The two-level lane sums against math.fsum of the same weighted integrals."""
    _, (a2, ia, b2, c, pb), laid = _rows_form(3, 60, 40, np.random.default_rng(1))
    r = len(c)
    phi = engine._fused_pairs_block(a2, ia, b2, c, 3, n_nodes=None, pb=pb, b_laid=laid)[0][:, :, 0]
    t, w = engine.gauss_legendre_01(engine.nodes_for_degree(2))
    psi, _ = engine._weighted_loo_integrals(a2, b2, t, w, engine._numba_kernel(), ia)
    terms = psi.reshape(3, r, 3) * c[None, :, :]
    exact = np.array([[math.fsum(terms[p, :, j]) for j in range(3)] for p in range(3)])
    bound = 4 * np.finfo(float).eps * np.abs(terms).sum(axis=1)
    assert np.all(np.abs(phi - exact) <= bound)


@pytest.mark.parametrize("case", ["above_one", "underflow", "nan"])
def test_rare_cases_go_to_the_unfused_kernel(case):
    rng = np.random.default_rng(5)
    game, (a2, ia, b2, c, pb), laid = _rows_form(10, 6, 5, rng)
    a2 = a2.copy()
    if case == "above_one":
        a2[1, 3] = 1.5
    elif case == "underflow":  # products of 10 factors near 1e-400 at every node
        a2[:] = 1e-40
        b2 = np.full_like(b2, 2e-40)
        laid = _lay_out_rows(b2)
    else:
        a2[0, 0] = np.nan
    for bl in (None, laid):
        assert engine._fused_pairs_block(a2, ia, b2, c, 3, n_nodes=None, pb=pb, b_laid=bl) is None
    if case == "nan":
        with pytest.raises(ValueError, match="a contains NaN"):
            engine._pairs_block(a2, ia, b2, c, 3, n_nodes=None, kernel=engine._numba_kernel(), pb=pb, check_a=True)


def test_several_outputs_take_the_unfused_kernel(monkeypatch):
    _forced_quadrature(monkeypatch)
    rng = np.random.default_rng(11)
    em = _model(5, 8, rng, n_outputs=2)
    Z, X = rng.normal(size=(6, 5)), rng.normal(size=(3, 5))
    explainer = kx.ProductKernelExplainer(em, background=Z)
    monkeypatch.setattr(fused_route, "_fused_kernel_laid", lambda: pytest.fail("fused kernel for 2 outputs"))
    ex = explainer.explain(X)
    ref = _enumerated(kx.KernelExpansion(em.X_ref, em.coef[:, 1], em.kernel), Z, X[0])
    np.testing.assert_allclose(np.asarray(ex.values)[0, :, 1], ref, rtol=1e-10, atol=1e-12)


def test_background_keeps_its_row_blocks_laid_out_within_its_bound():
    rng = np.random.default_rng(2)
    em = _model(4, 10, rng)
    bg = BackgroundFactors(em, rng.normal(size=(6, 4)), np.full(6, 1 / 6))
    first = bg.pair_layout(slice(0, 30))
    assert bg.pair_layout(slice(0, 30)) is first and not first.flags.writeable
    np.testing.assert_array_equal(first.transpose(0, 2, 1).reshape(-1, 4)[:30], bg.factors.reshape(-1, 4)[:30])
    np.testing.assert_array_equal(first.transpose(0, 2, 1).reshape(-1, 4)[30:], 1.0)
    bg._max_bytes = first.nbytes  # a second block does not fit next to the first: the cache starts again
    bg.pair_layout(slice(30, 60))
    assert list(bg._layouts) == [(30, 60)]
    unkept = BackgroundFactors(em, rng.normal(size=(6, 4)), np.full(6, 1 / 6), max_bytes=0)
    assert unkept.pair_layout(slice(0, 6)) is None

"""The product-game engine against enumeration of all coalitions, its stability and memory bounds.

The reference is kx.exact_shapley on v(S) = sum_r c_r prod_{j in S} a_rj prod_{j not in S} b_rj,
evaluated coalition by coalition: it shares no code with the quadrature engine.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import kexplain as kx
from kexplain.explainers.product_games import (
    BackgroundFactors,
    FunctionalGame,
    InterventionalGame,
    present_factors,
    subset_game,
)
from kexplain.shapley import product as engine
from kexplain.shapley import subsets
from kexplain.shapley.interactions import interaction_layout, interaction_values
from kexplain.shapley.product import (
    block_shape,
    product_game_block,
    solve_product_game,
)
from kexplain.shapley.routes import choose_route

try:
    import numba  # noqa: F401

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover
    HAVE_NUMBA = False

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.skipif(not HAVE_NUMBA, reason="numba not installed"))]


def enumerate_game(a, b, c, interactions=False):
    """Shapley values of the product game by enumerating its 2^d coalitions."""
    a = np.asarray(a, float)
    b = np.broadcast_to(np.asarray(b, float), a.shape)
    c = np.asarray(c, float).reshape(a.shape[1], -1)

    def vf(S):
        return np.stack([np.prod(np.where(s, a, b), axis=-1) @ c for s in S])  # (C, p, o)

    return kx.exact_shapley(vf, a.shape[-1], interactions=interactions)


def random_game(rng, p, r, d, o, *, b_kind="general", low=-1.5, high=1.5):
    a = rng.uniform(low, high, (p, r, d))
    b = 1.0 if b_kind == "one" else rng.uniform(low, high, (p, r, d))
    c = rng.normal(size=(r, o))
    c[0] = -np.abs(c[0]) - 0.5  # negative weights
    return a, b, c


def efficiency_error(phi, v_full, v_empty):
    """|sum_j phi_j - (v_full - v_empty)| relative to the scale of the numbers involved.

    The scale is max(|v_full|, |v_empty|, sum_j |phi_j|, smallest normal double): the identity is
    a difference of these quantities, so rounding errors are relative to the largest of them (not
    to v_full - v_empty, which may cancel to nearly 0), and results below the smallest normal
    double have no relative precision left (products of 1,000 tiny kernel values underflow to
    exactly 0, which is correct double arithmetic).
    """
    scale = np.maximum.reduce(
        [np.abs(v_full), np.abs(v_empty), np.abs(phi).sum(axis=1), np.full(v_full.shape, np.finfo(float).tiny)]
    )
    return np.max(np.abs(phi.sum(axis=1) - (v_full - v_empty)) / scale)


class ArrayGame:
    """A product game given by full arrays, for the solver's chunking tests."""

    def __init__(self, a, b, c, row_alignment=1):
        self.a, self.b, self.c = a, np.broadcast_to(np.asarray(b, float), a.shape), c
        self.n_points, self.n_rows, self.n_features = a.shape
        self.n_outputs = c.shape[1]
        self.row_alignment = row_alignment
        self.blocks = []

    def block(self, points, rows):
        self.blocks.append((points.stop - points.start, rows.stop - rows.start, rows.start))
        return self.a[points, rows], self.b[points, rows], self.c[rows]


# ----------------------------------------------------------------------------- against enumeration


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("d", [1, 2, 3, 6, 10])
@pytest.mark.parametrize("b_kind", ["one", "general"])
def test_block_matches_enumeration(backend, d, b_kind):
    rng = np.random.default_rng(d)
    a, b, c = random_game(rng, 3, 5, d, 2, b_kind=b_kind)
    a[0, 0, 0] = 0.0  # exact zeros in a ...
    a[1, 2, :] = 0.0
    if b_kind == "general":
        b[0, 0, 0] = 0.0  # ... in b, and in both at once
        b[2, 1, -1] = 0.0
        a[2, 1, -1] = 0.0
    phi, v_full, v_empty = product_game_block(a, b, c, backend=backend)
    ref = enumerate_game(a, b, c)
    assert phi.shape == (3, d, 2)
    np.testing.assert_allclose(phi, ref.values, rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(v_full, ref.v_full, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(v_empty, ref.v_empty, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("d", [2, 3, 5, 9])
@pytest.mark.parametrize("b_kind", ["one", "general"])
@pytest.mark.parametrize("index", ["sii", "stii"])
def test_interactions_match_enumeration(backend, d, b_kind, index):
    rng = np.random.default_rng(10 + d)
    a, b, c = random_game(rng, 2, 4, d, 3, b_kind=b_kind, low=0.0, high=1.0)
    a[0, 1, 0] = 0.0
    phi, _, _, inter = product_game_block(a, b, c, interactions=index, backend=backend)
    ref = enumerate_game(a, b, c, interactions=index)
    assert inter.shape == (2, d, d, 3)
    # the block gives the raw index; enumeration (as the explainers) gives shap's layout
    np.testing.assert_allclose(interaction_layout(phi, inter), ref.interactions, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(inter, np.swapaxes(inter, 1, 2), rtol=0, atol=0)
    assert np.all(inter[:, np.arange(d), np.arange(d)] == 0.0)
    # shap's convention: each row of the matrix sums to the feature's Shapley value
    full = interaction_values(np.moveaxis(phi, 2, 1), np.moveaxis(inter, 3, 1))
    np.testing.assert_allclose(full.sum(axis=-1), np.moveaxis(phi, 2, 1), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("backend", BACKENDS)
def test_zero_factors_on_quadrature_nodes_and_tiny_factors(backend):
    """g_j(t) = b + t (a - b) is exactly 0 at the node t = 1/2 when a = -b; factors of 1e-300 push
    the full product out of range while leaving-one-out products stay representable: both go
    through the log-space path and must still match enumeration."""
    rng = np.random.default_rng(3)
    d = 5  # 3 nodes, the middle one is t = 1/2
    a, b, c = random_game(rng, 2, 3, d, 1, low=0.1, high=0.9)
    a[0, 0, 2], b[0, 0, 2] = 0.6, -0.6
    a[1, 1, 0], b[1, 1, 0] = 2.0, -2.0  # |a| > 1: the division path of the numba kernel
    a[1, 2, 3], b[1, 2, 3] = 1e-300, 3e-300
    a[0, 2, 1], b[0, 2, 1] = 1e-300, 1.0
    phi, v_full, v_empty = product_game_block(a, b, c, backend=backend)
    ref = enumerate_game(a, b, c)
    np.testing.assert_allclose(phi, ref.values, rtol=1e-11, atol=1e-14)


def test_backends_agree_beyond_enumeration():
    if not HAVE_NUMBA:
        pytest.skip("numba not installed")
    rng = np.random.default_rng(7)
    for low, high, b in [(0.0, 1.0, 1.0), (0.0, 1.0, None), (-2.0, 2.0, None)]:
        a = rng.uniform(low, high, (3, 20, 40))
        bb = rng.uniform(low, high, a.shape) if b is None else b
        c = rng.normal(size=(20, 2))
        x = product_game_block(a, bb, c, backend="numpy")[0]
        y = product_game_block(a, bb, c, backend="numba")[0]
        np.testing.assert_allclose(x, y, rtol=1e-10, atol=1e-12 * np.abs(x).max())


def test_property_efficiency_symmetry_null_player():
    hyp = pytest.importorskip("hypothesis")
    from hypothesis import given
    from hypothesis import strategies as st
    from hypothesis.extra.numpy import arrays

    floats = st.floats(-2.0, 2.0, allow_nan=False, allow_infinity=False)

    @given(st.integers(2, 7), st.integers(1, 4), st.data())
    def check(d, r, data):
        a = data.draw(arrays(np.float64, (2, r, d), elements=floats))
        b = data.draw(arrays(np.float64, (2, r, d), elements=floats))
        c = data.draw(arrays(np.float64, (r, 1), elements=floats))
        # feature 0 is a null player (a = b), features d-1 and d-2 are symmetric copies
        b[..., 0] = a[..., 0]
        a[..., -1], b[..., -1] = a[..., -2], b[..., -2]
        phi, vf, ve = product_game_block(a, b, c)
        assert efficiency_error(phi, vf, ve) < 1e-9
        assert np.all(phi[:, 0] == 0.0)
        if d >= 3:
            np.testing.assert_allclose(phi[:, -1], phi[:, -2], rtol=1e-9, atol=1e-9 * (1 + np.abs(phi).max()))

    assert hyp is not None
    check()


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("where", ["a", "b", "c"])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_input_raises(where, bad):
    rng = np.random.default_rng(0)
    a, b, c = random_game(rng, 2, 3, 4, 1)
    {"a": a, "b": b, "c": c}[where][{"a": (1, 2, 0), "b": (0, 1, 3), "c": (2, 0)}[where]] = bad
    with pytest.raises(ValueError, match=f"^{where} contains NaN or infinite"):
        product_game_block(a, b, c)
    with pytest.raises(ValueError, match=f"^{where} contains NaN or infinite"):
        solve_product_game(ArrayGame(a, b, c))


class RowsGame(ArrayGame):
    """ArrayGame that also gives its blocks in the rows form (``pair_block``): no copy of a's rows,
    b the same for every point, as the explainers' games do."""

    def pair_block(self, points, rows):
        p, r, d = self.a[points, rows].shape
        a2 = np.ascontiguousarray(self.a[points, rows]).reshape(p * r, d)
        return a2, np.arange(p * r), np.ascontiguousarray(self.b[0, rows]), self.c[rows], None


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("zero_too", [False, True])
def test_non_finite_factors_of_the_rows_form_raise(backend, bad, zero_too):
    """The rows form checks a's finiteness after the integrals, through each pair's product of
    factors: a NaN or an infinity must still be refused, also beside a zero (inf x 0 is NaN) and
    with the certified count (d >= 31), naming the entry as the up-front check did."""
    rng = np.random.default_rng(1)
    for d in (5, 40):
        a, b, c = random_game(rng, 3, 4, d, 2, b_kind="general")
        a, b = np.abs(a) + 0.1, np.abs(b[:1]) + 0.1  # positive factors, b the same for every point
        good = solve_product_game(RowsGame(a, b, c), backend=backend)
        np.testing.assert_allclose(
            good.values, solve_product_game(ArrayGame(a, b, c), backend=backend).values, rtol=1e-13
        )
        a[2, 1, 3] = bad
        if zero_too:
            a[2, 1, 0] = 0.0
        with pytest.raises(ValueError, match=r"^a contains NaN or infinite values \(first at index \(9, 3\)\)"):
            solve_product_game(RowsGame(a, b, c), backend=backend)
    # finite factors whose products overflow are not refused as non-finite input: the values
    # overflow, which the solver reports as such
    big = np.full((1, 2, 40), 1e10)
    with pytest.raises(FloatingPointError, match="non-finite Shapley values"):
        solve_product_game(RowsGame(big, np.ones((1, 2, 40)), np.ones((2, 1))), backend=backend)


def test_bad_shapes_and_backend():
    a = np.ones((2, 3, 4))
    with pytest.raises(ValueError, match="a must have shape"):
        product_game_block(a[0], 1.0, np.ones((3, 1)))
    with pytest.raises(ValueError, match="b must be a scalar or broadcastable"):
        product_game_block(a, np.ones(3), np.ones((3, 1)))
    with pytest.raises(ValueError, match="c must have shape"):
        product_game_block(a, 1.0, np.ones((4, 1)))
    with pytest.raises(ValueError, match="backend must be one of"):
        product_game_block(a, 1.0, np.ones((3, 1)), backend="gpu")


# ----------------------------------------------------------------------------- stability at d = 1,000


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "a_range, b_range",
    [
        ((1e-3, 1e-1), None),  # tiny kernel values, b = 1 (functional baseline)
        ((1e-3, 1e-1), (1e-3, 1e-1)),  # everything tiny: products underflow to exactly 0
        ((1e-3, 1e-1), (1 - 1e-12, 1.0)),  # present tiny, absent near 1
        ((1 - 1e-12, 1.0), None),  # near 1: a - b ~ 1e-12, heavy cancellation
        ((1 - 1e-12, 1.0), (1 - 1e-12, 1.0)),
    ],
)
def test_stability_d1000(backend, a_range, b_range):
    rng = np.random.default_rng(42)
    d, r = 1000, 3
    a = rng.uniform(*a_range, size=(1, r, d))
    b = 1.0 if b_range is None else rng.uniform(*b_range, size=(1, r, d))
    c = np.array([[1.0], [-0.7], [2.5]])
    phi, vf, ve = product_game_block(a, b, c, backend=backend)
    assert np.all(np.isfinite(phi)) and np.all(np.isfinite(vf)) and np.all(np.isfinite(ve))
    assert efficiency_error(phi, vf, ve) <= 1e-9
    if b_range is None and a_range[0] > 0.5:
        # near 1, phi_j ~ c (a_j - 1) to first order: the values are resolved, not rounded away
        approx = (a[0] - 1.0).T @ c
        np.testing.assert_allclose(phi[0], approx, rtol=1e-6)


def test_stability_d1000_interactions_efficiency():
    rng = np.random.default_rng(5)
    d = 300
    a = rng.uniform(1e-3, 1e-1, size=(1, 2, d))
    c = np.array([[1.0], [-2.0]])
    phi, vf, ve, inter = product_game_block(a, 1.0, c, interactions=True)
    assert np.all(np.isfinite(inter))
    full = interaction_values(np.moveaxis(phi, 2, 1), np.moveaxis(inter, 3, 1))
    np.testing.assert_allclose(full.sum(axis=-1), np.moveaxis(phi, 2, 1), atol=1e-15)


# ----------------------------------------------------------------------------- chunking and memory


@pytest.mark.parametrize("interactions", [False, True])
def test_chunking_invariance(interactions):
    """Any block size gives the same numbers (rows are summed in another order across blocks, so
    agreement is to rounding; point chunking alone is bit-identical)."""
    rng = np.random.default_rng(11)
    a, b, c = random_game(rng, 7, 23, 6, 2, low=0.0, high=1.0)
    whole = solve_product_game(ArrayGame(a, b, c), interactions=interactions, max_block_bytes=2**30)
    ref = enumerate_game(a, b, c, interactions=interactions)
    np.testing.assert_allclose(whole.values, ref.values, rtol=1e-11, atol=1e-13)
    for max_bytes in [1, 8 * 6 * 6 * 5, 8 * 6 * 6 * 23, 8 * 6 * 6 * 23 * 3, 8 * 6 * 6 * 50]:
        game = ArrayGame(a, b, c)
        res = solve_product_game(game, interactions=interactions, max_block_bytes=max_bytes)
        assert len(game.blocks) > 1
        np.testing.assert_allclose(res.values, whole.values, rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(res.v_full, whole.v_full, rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(res.v_empty, whole.v_empty, rtol=1e-13, atol=1e-15)
        if interactions:
            np.testing.assert_allclose(res.interactions, whole.interactions, rtol=1e-12, atol=1e-15)
    # whole row blocks: chunking over points only is bit-identical
    game = ArrayGame(a, b, c)
    res = solve_product_game(game, max_block_bytes=8 * 6 * 6 * 23 * 2)
    assert {blk[1] for blk in game.blocks} == {23}
    np.testing.assert_array_equal(res.values, solve_product_game(ArrayGame(a, b, c)).values)


def test_block_shape_is_bounded_and_aligned():
    for n, R, d, mb in [
        (10_000, 5_000, 50, engine.DEFAULT_BLOCK_BYTES),
        (10_000, 250_000, 50, 2**26),
        (3, 7, 1000, 2**20),
        (1, 1, 10, 1),
    ]:
        p, r = block_shape(n, R, d, mb)
        assert 1 <= p <= n and 1 <= r <= R
        assert p * r * d * 8 * engine._BLOCK_ARRAYS <= max(mb, d * 8 * engine._BLOCK_ARRAYS)
    p, r = block_shape(100, 50 * 40, 10, 8 * 10 * 6 * 130, row_alignment=50)
    assert r == 100 and p == 1
    game = ArrayGame(*random_game(np.random.default_rng(0), 2, 12, 3, 1), row_alignment=4)
    solve_product_game(game, max_block_bytes=8 * 3 * 6 * 6)
    assert all(start % 4 == 0 and rows % 4 == 0 for _, rows, start in game.blocks)


def test_peak_memory_of_a_block_is_bounded():
    """tracemalloc sees numpy's allocations: the solver's peak stays near max_block_bytes plus the
    results, whatever the size of the game (the numba kernel's scratch is a (d, nodes) array)."""
    rng = np.random.default_rng(0)
    n, n_ref, d = 150, 300, 50
    X_ref = rng.normal(size=(n_ref, d))
    em = kx.KernelExpansion(X_ref, rng.normal(size=n_ref), kx.kernels.RBF(np.sqrt(d)))
    X = em.check_input(rng.normal(size=(n, d)))
    max_bytes = 2 * 2**20  # the whole game would need 8 * n * n_ref * d * 6 = 108 MB
    results = 8 * n * d + 16 * n
    for backend in ["numpy"] + (["numba"] if HAVE_NUMBA else []):
        solve_product_game(FunctionalGame(em, X[:2]), backend=backend, max_block_bytes=max_bytes)  # warm up
        tracemalloc.start()
        try:
            solve_product_game(FunctionalGame(em, X), backend=backend, max_block_bytes=max_bytes)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak <= 1.25 * max_bytes + results + engine._WORK_BYTES * 2 + 2**20, (backend, peak)


def test_interventional_game_blocks_align_with_background():
    rng = np.random.default_rng(2)
    d, n_ref, nb = 4, 9, 5
    em = kx.KernelExpansion(rng.normal(size=(n_ref, d)), rng.normal(size=n_ref), kx.kernels.RBF(1.3))
    X, Z = rng.normal(size=(3, d)), rng.normal(size=(nb, d))
    w = np.full(nb, 1 / nb)
    whole = solve_product_game(InterventionalGame(em, X, BackgroundFactors(em, Z, w)), max_block_bytes=2**30)

    # reference: enumeration of v(S) = sum_z w_z f(x_S, z_notS) through the model's own predict
    def vf(S):
        H = np.where(S[:, None, None, :], X[None, :, None, :], Z[None, None, :, :])  # (C, N, nb, d)
        return (em.predict(H.reshape(-1, d)).reshape(len(S), 3, nb) - em.intercept[0]) @ w

    ref = kx.exact_shapley(vf, d)
    np.testing.assert_allclose(whole.values[..., 0], ref.values, rtol=1e-11, atol=1e-13)
    for max_bytes in [8 * d * 6 * 5, 8 * d * 6 * 12, 8 * d * 6 * 23]:
        game = InterventionalGame(em, X, BackgroundFactors(em, Z, w))
        res = solve_product_game(game, max_block_bytes=max_bytes)
        np.testing.assert_allclose(res.values, whole.values, rtol=1e-13, atol=1e-15)


def test_progress_bar_runs(capsys):
    rng = np.random.default_rng(0)
    a, b, c = random_game(rng, 3, 4, 3, 1)
    res = solve_product_game(ArrayGame(a, b, c), progress=True, max_block_bytes=1)
    np.testing.assert_allclose(res.values, enumerate_game(a, b, c).values, rtol=1e-11, atol=1e-13)


# ----------------------------------------------------------------------------- interventional subset route


@pytest.mark.parametrize(
    "d, n_outputs, interactions", [(1, 1, False), (3, 2, True), (5, 1, True), (8, 3, False), (4, 2, "stii")]
)
def test_interventional_subset_route_matches_quadrature_and_enumeration(d, n_outputs, interactions):
    """Few features, many background rows: the explainer's cost model picks the factorised subset
    route; it must give the quadrature's numbers (and enumeration's through the model's predict)."""
    rng = np.random.default_rng(d)
    n_ref, nb, N = 7, 30, 5
    coef = rng.normal(size=(n_ref, n_outputs)) if n_outputs > 1 else rng.normal(size=n_ref)
    if d >= 2:  # mixed per-feature kernels
        parts = [kx.kernels.RBF(1.1), kx.kernels.Laplacian(0.8)] * (d // 2) + [kx.kernels.RBF(0.9)] * (d % 2)
        kern = kx.kernels.ProductKernel(parts)
    else:  # with an amplitude
        kern = 2.0 * kx.kernels.RBF(1.1)
    em = kx.KernelExpansion(rng.normal(size=(n_ref, d)), coef, kern, intercept=0.3)
    X, Z = rng.normal(size=(N, d)), rng.normal(size=(nb, d))
    w = rng.uniform(0.5, 1.5, nb)
    w /= w.sum()
    if d == 3:
        for compiled in (True, False):
            assert (
                choose_route(d, n_ref, nb, n_outputs, max_block_bytes=engine.DEFAULT_BLOCK_BYTES, compiled=compiled)
                == "subsets"
            )
            # one point's table must fit
            assert (
                choose_route(d, n_ref, nb, n_outputs, max_block_bytes=16 * n_ref * 2**d - 1, compiled=compiled)
                == "quadrature"
            )
    game = subset_game(em, Z, w, max_block_bytes=2**16)

    def present(pts):
        return em.row_factors(X[pts], slice(0, em.n_rows))[0]

    sub = game.solve(present, n_points=N, interactions=interactions, max_block_bytes=2**16)  # several point chunks
    sub_np = subset_game(em, Z, w, max_block_bytes=2**20, backend="numpy").solve(
        present(slice(0, N)), interactions=interactions, progress=True
    )
    quad = solve_product_game(
        InterventionalGame(em, X, BackgroundFactors(em, Z, w)), interactions=interactions, backend="numpy"
    )
    explainer = kx.ProductKernelExplainer(em, background=Z, background_weights=w)
    assert explainer.route == "subsets"
    auto = explainer.explain(X, interactions=interactions)
    for res in (sub, sub_np):
        np.testing.assert_allclose(res.values, quad.values, rtol=1e-11, atol=1e-13)
        np.testing.assert_allclose(res.v_full, quad.v_full, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(res.v_empty, quad.v_empty, rtol=1e-12, atol=1e-13)
        if interactions:
            np.testing.assert_allclose(res.interactions, quad.interactions, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(auto.values.reshape(N, d, -1), quad.values, rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(auto.base_values.reshape(N, -1), quad.v_empty + em.intercept, rtol=1e-12, atol=1e-13)
    if interactions:
        # every solver returns shap's layout: each row sums to the feature's Shapley value
        np.testing.assert_allclose(quad.interactions.sum(axis=2), quad.values, rtol=1e-10, atol=1e-13)
        np.testing.assert_allclose(auto.interactions.reshape(N, d, d, -1), quad.interactions, rtol=1e-10, atol=1e-13)

    def vf(S):
        H = np.where(S[:, None, None, :], X[None, :, None, :], Z[None, None, :, :])  # (C, N, nb, d)
        f = em.predict(H.reshape(-1, d)).reshape(len(S), N, nb, -1)
        return np.einsum("cnzo,z->cno", f - em.intercept, w)

    ref = kx.exact_shapley(vf, d)
    np.testing.assert_allclose(sub.values, np.asarray(ref.values).reshape(N, d, -1), rtol=1e-11, atol=1e-13)


@pytest.mark.parametrize("backend", ["numba", "numpy"])
def test_subset_game_with_per_point_row_weights_matches_enumeration(backend):
    """v_p(S) = sum_i w_pi coef_i prod_{j in S} a_pij B_i(not S): row weights that depend on the
    explained point (PREF-SHAP's context games) go through the same solver, both backends."""
    if backend == "numba" and not subsets.compiled_available():
        pytest.skip("numba is not installed")
    rng = np.random.default_rng(11)
    P, R, d = 4, 5, 4
    B = rng.uniform(0.2, 1.5, size=(R, 2**d))
    coef, a, W = rng.normal(size=R), rng.uniform(0.2, 1.5, size=(P, R, d)), rng.uniform(0.5, 2.0, size=(P, R))
    game = subsets.SubsetGame(B, coef, backend=backend)
    res = game.solve(lambda pts: (a[pts], W[pts]), n_points=P, interactions="stii", max_block_bytes=1)
    bits = 1 << np.arange(d)
    for p in range(P):

        def v(S, p=p):
            present = np.prod(np.where(S[:, None, :], a[p][None], 1.0), axis=-1)  # (n, R)
            return (present * B[:, (2**d - 1) ^ (S.astype(int) @ bits)].T) @ (W[p] * coef)

        ref = kx.exact_shapley(v, d, interactions="stii")
        np.testing.assert_allclose(res.values[p, :, 0], ref.values, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(res.interactions[p, :, :, 0], ref.interactions, rtol=1e-11, atol=1e-13)
        np.testing.assert_allclose(res.v_full[p, 0], v(np.ones((1, d), bool))[0], rtol=1e-12)
    with pytest.raises(ValueError, match=r"weights must have shape \(4, 5\)"):
        game.values(a, W[:, :3])


def test_subset_game_argument_checks():
    with pytest.raises(ValueError, match="2\\*\\*d columns"):
        subsets.SubsetGame(np.ones((2, 3)), np.ones(2))
    with pytest.raises(ValueError, match="same rows"):
        subsets.SubsetGame(np.ones((2, 4)), np.ones(3))
    with pytest.raises(ValueError, match="finite"):
        subsets.SubsetGame(np.full((1, 4), np.nan), np.ones(1))
    game = subsets.SubsetGame(np.ones((2, 4)), np.ones(2))
    with pytest.raises(ValueError, match=r"present must have shape \(points, 2, 2\)"):
        game.solve(np.ones((1, 3, 2)))
    with pytest.raises(ValueError, match="n_points is required"):
        game.solve(lambda pts: np.ones((1, 2, 2)))


@pytest.mark.parametrize("backend", ["numba", "numpy"])
@pytest.mark.parametrize("d", [3, 10])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_subset_game_refuses_non_finite_game_values(backend, d, bad):
    """A NaN or infinity in the present factors, or a product that overflows, raises, on both
    backends (the compiled kernel reports finiteness itself; numpy's values are checked after)."""
    if backend == "numba" and not subsets.compiled_available():
        pytest.skip("numba is not installed")
    rng = np.random.default_rng(d)
    game = subsets.SubsetGame(rng.uniform(0.5, 1.5, size=(3, 2**d)), rng.normal(size=(3, 2)), backend=backend)
    a = rng.uniform(0.5, 1.5, size=(2, 3, d))
    assert np.isfinite(game.values(a)).all()
    a[1, 2, d - 1] = bad  # one factor of the last point, last row, last player: a few coalitions only
    with np.errstate(over="ignore", invalid="ignore"):  # numpy's own warnings on the way
        with pytest.raises(FloatingPointError, match="non-finite game values"):
            game.values(a)
        with pytest.raises(FloatingPointError, match="non-finite game values"):
            game.solve(a)
        with pytest.raises(FloatingPointError, match="non-finite game values"):
            game.values(np.full((1, 3, d), 1e200))  # finite factors whose products overflow


def test_subset_kernel_reports_finiteness():
    """The compiled kernel's return value: True exactly when every value it wrote is finite."""
    if not subsets.compiled_available():
        pytest.skip("numba is not installed")
    from kexplain.shapley._product_numba import subset_table_layout, subset_values

    rng = np.random.default_rng(3)
    for d in (1, 4, 9):
        a, w = rng.uniform(0.5, 1.5, size=(2, 4, d)), np.ones((2, 4))
        table = subset_table_layout(rng.normal(size=(1, 4, 2**d)))
        v = np.empty((2**d, 2, 1))
        assert subset_values(a, table, v, w) is True and np.isfinite(v).all()
        a[0, 1, 0] = np.nan
        assert subset_values(a, table, v, w) is False and not np.isfinite(v).all()


def test_present_factors_are_row_factors_bit_for_bit():
    """present_factors (one kernel term: the kernel's factors directly) gives row_factors' array,
    for one term and several, all rows and a slice."""
    rng = np.random.default_rng(5)
    X_ref, X = rng.normal(size=(6, 3)), rng.normal(size=(4, 3))
    kernels = [
        kx.kernels.RBF(np.array([0.7, 1.3, 2.0])),
        kx.kernels.Laplacian(1.1),
        kx.kernels.SumKernel([kx.kernels.RBF(0.9), kx.kernels.Laplacian(2.0)]),
    ]
    for kernel in kernels:
        em = kx.KernelExpansion(X_ref, rng.normal(size=(6, 2)), kernel)
        for rows in (None, slice(0, em.n_rows), slice(2, 5), slice(em.n_rows - 1, em.n_rows)):
            got = present_factors(em, X, rows)
            ref = em.row_factors(X, slice(0, em.n_rows) if rows is None else rows)[0]
            assert got.shape == ref.shape and np.array_equal(got, ref)


def test_without_the_compiled_kernel_numpy_takes_over(monkeypatch, request):
    """No numba (or a broken one): "auto" falls back to numpy with the same numbers, an explicit
    backend="numba" says why it cannot run."""
    import sys

    rng = np.random.default_rng(8)
    a, b, c = random_game(rng, 2, 5, 7, 2, low=0.0, high=1.0)
    ref = enumerate_game(a, b, c)
    compiled = subsets.SubsetGame(np.abs(c[:, :1]) * np.ones((5, 2**7)), c).values(a)
    monkeypatch.setitem(sys.modules, "kexplain.shapley._product_numba", None)  # import now fails
    engine._numba_kernel.cache_clear()  # the loader is cached: forget the kernel, here and after
    request.addfinalizer(engine._numba_kernel.cache_clear)
    assert engine._numba_kernel() is None
    assert subsets._subset_kernel() is subsets._subset_values_numpy
    assert not subsets.compiled_available()
    np.testing.assert_allclose(product_game_block(a, b, c)[0], ref.values, rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(
        subsets.SubsetGame(np.abs(c[:, :1]) * np.ones((5, 2**7)), c).values(a), compiled, rtol=1e-12, atol=1e-14
    )
    with pytest.raises(ImportError, match="numba"):
        product_game_block(a, b, c, backend="numba")
    with pytest.raises(ImportError, match="numba"):
        subsets.SubsetGame(np.ones((5, 2**7)), c, backend="numba")


@pytest.mark.parametrize("backend", BACKENDS)
def test_absent_set_table_matches_its_definition(backend):
    rng = np.random.default_rng(4)
    nb, R, d = 6, 5, 4
    b = rng.uniform(-1.0, 1.5, (nb, R, d))
    w = rng.uniform(0.1, 1.0, nb)
    table = subsets.absent_set_table(b, w, backend=backend)
    S = kx.shapley.all_coalitions(d)
    ref = np.stack([np.einsum("z,zi->i", w, np.prod(np.where(s, b, 1.0), axis=-1)) for s in S], axis=1)
    assert table.shape == (R, 2**d)
    np.testing.assert_allclose(table, ref, rtol=1e-13, atol=1e-15)

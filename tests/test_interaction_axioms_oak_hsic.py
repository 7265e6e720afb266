"""Hypothesis checks of the axioms of every interaction index on OAK's games and the HSIC/MMD games.

The games: OAK's functional-ANOVA and interventional games (``OAKExplainer.explain(X,
interactions=...)``), its global variance game (``OAKRegressor.global_interactions``), and the
global HSIC and MMD^2 games (``kx.stats.hsic_interactions``, ``kx.stats.mmd_interactions``); and
the closed form all three OAK games share (``gp._interactions.additive_interactions``) on bare
random games.  The axioms, each where the index has it:

- symmetry: two features with identical columns and lengthscales (identical factors) get equal
  interactions, set for set;
- dummy (null player): a feature that does not change the game (its present factor equals its
  absent one; a background column equal to the explained value; a constant column in the data of
  a statistic) gets zero interactions of every order containing it, for every index here;
- efficiency: SV, k-SII, STII and FSII of any order, and the Möbius coefficients of every order,
  sum to v(D) - v(empty), with v(D) and v(empty) evaluated outside the interaction code (the
  model's predict and components, ``kx.stats.hsic``, ``kx.stats.mmd``, the component variances
  written out in tests/test_interactions_oak_hsic.py, or the game's sum written out by subsets);
- linearity: in the model's output weights (OAK's ``alpha_`` for the local games), in the order
  weights sigma_q^4 of the variance game, in the row weights of the statistics' pair games, and
  in the kernels' amplitude.

Enumeration of every game against the definitions is in tests/test_interactions_oak_hsic.py and
tests/test_interactions_any_order.py; this file adds the indices the MMD^2 check there leaves out,
and bad input through every one of these entry points.
"""

from __future__ import annotations

import copy
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_interactions_any_order import _assert_close, _reference, _table
from test_interactions_oak_hsic import _variance_game

import kexplain as kx
from kexplain.gp._interactions import additive_interactions
from kexplain.shapley.higher_order import EFFICIENT_INDICES, INDICES, combinations_array

_floats = st.floats(-2.0, 2.0, allow_nan=False, width=64)
_coords = st.floats(-2.5, 2.5, allow_nan=False, width=64)
_amplitudes = st.floats(0.1, 3.0, allow_nan=False, width=64)


def _order(index, d, draw_k):
    """The order to ask for: 1 for values, d for Möbius (efficient only there), else the drawn one."""
    return 1 if index in ("SV", "BV") else (d if index == "Moebius" else min(draw_k, d))


def _check_symmetry(vals, i, j, tol, what):
    """Features i and j exchangeable: I(T) = I(T with i replaced by j) for every T holding i but not j."""
    checked = 0
    for T, val in vals.items():
        if i in T and j not in T:
            U = tuple(sorted(j if f == i else f for f in T))
            assert abs(val - vals[U]) <= tol, f"{what}: I{T} = {val!r} but I{U} = {vals[U]!r}"
            checked += 1
    assert checked


def _check_dummy(vals, j, tol, what):
    bad = {T: val for T, val in vals.items() if j in T and abs(val) > tol}
    assert not bad, f"{what}: feature {j} is a dummy, yet {sorted(bad.items())[:3]}"


def _check_efficiency(vals, index, v_full, v_empty, tol, what):
    if index not in EFFICIENT_INDICES:
        return
    total = sum(val for T, val in vals.items() if T)
    assert abs(total - (v_full - v_empty)) <= tol, f"{what}: sum {total!r}, v(D) - v(empty) {v_full - v_empty!r}"


def _check_empty(vals, index, v_empty, tol, what):
    """The entry of the empty set is v(empty) for the indices built on the game's Möbius transform at
    the empty set (SII and BII give it their own weighted sum of the game instead)."""
    if index in ("SV", "k-SII", "STII", "FSII", "Moebius"):
        assert abs(vals[()] - v_empty) <= tol, f"{what}: I(empty) = {vals[()]!r}, v(empty) = {v_empty!r}"


def _tol(*values):
    return 1e-9 * max(1.0, *(float(np.abs(np.asarray(v)).max()) for v in values))


# -- the closed form behind the three OAK games ------------------------------------------------------
@st.composite
def additive_games(draw, d=5, r=3):
    """(z, b or None, c, w): v(S) = sum_r c_r sum_{|U| <= Q} w_|U| prod_{j in U} (z_rj if j in S else b_rj)."""
    arr = np.array(draw(st.lists(_floats, min_size=2 * r * d + r, max_size=2 * r * d + r)))
    z = arr[: r * d].reshape(1, r, d)
    b = arr[r * d : 2 * r * d].reshape(1, r, d) if draw(st.booleans()) else None
    Q = draw(st.integers(1, d))
    w = np.array(draw(st.lists(st.floats(0.0, 2.0, allow_nan=False), min_size=Q + 1, max_size=Q + 1)))
    return z, b, arr[2 * r * d :].reshape(r, 1), w


def _additive_value(z, b, c, w, S):
    """The game at coalition S, by the sum over the subsets U it is defined by (no symmetric polynomials)."""
    d = z.shape[2]
    y = np.where(S[None, :], z[0], 0.0 if b is None else b[0])
    total = 0.0
    for q in range(len(w)):
        for U in itertools.combinations(range(d), q):
            total += w[q] * float(c[:, 0] @ y[:, list(U)].prod(axis=1))
    return total


def _additive_dense(z, b, c, w, index, k):
    out = additive_interactions(z, b, c, w, index, k, backend="numpy")
    d = z.shape[2]
    return {tuple(T): out[t][n, 0, 0] for t in range(k + 1) for n, T in enumerate(combinations_array(d, t).tolist())}


@settings(max_examples=30, deadline=None)
@given(additive_games(), st.sampled_from(INDICES), st.integers(1, 5))
def test_additive_closed_form_axioms(game, index, draw_k):
    z, b, c, w = game
    d = z.shape[2]
    k = _order(index, d, draw_k)
    # every term is a row weight times an order weight times a product of at most d factors
    big = 1.0 + max(float(np.abs(z).max()), 0.0 if b is None else float(np.abs(b).max()))
    tol = 1e-9 * max(1.0, float(np.abs(c).sum() * w.sum()) * big**d)
    # dummy: feature 4's present factor equals its absent one (0 in the functional-ANOVA game)
    zd = z.copy()
    zd[..., 4] = 0.0 if b is None else b[..., 4]
    _check_dummy(_additive_dense(zd, b, c, w, index, k), 4, tol, f"additive {index} k={k}")
    # symmetry: features 0 and 1 with the same factors present and absent
    zs = z.copy()
    zs[..., 1] = zs[..., 0]
    bs = None if b is None else b.copy()
    if bs is not None:
        bs[..., 1] = bs[..., 0]
    _check_symmetry(_additive_dense(zs, bs, c, w, index, k), 0, 1, tol, f"additive {index} k={k}")
    # linearity in the row weights and in the order weights
    whole = _additive_dense(z, b, c, w, index, k)
    rows = [
        _additive_dense(z[:, s], None if b is None else b[:, s], c[s], w, index, k)
        for s in (slice(0, 1), slice(1, None))
    ]
    w1 = w * np.linspace(0.2, 0.9, len(w))
    orders = [_additive_dense(z, b, c, ww, index, k) for ww in (w1, w - w1)]
    for T in whole:
        assert abs(whole[T] - rows[0][T] - rows[1][T]) <= tol, f"rows {T}"
        assert abs(whole[T] - orders[0][T] - orders[1][T]) <= tol, f"order weights {T}"
    # efficiency against the game's own sum over subsets
    full, empty = (_additive_value(z, b, c, w, np.full(d, flag)) for flag in (True, False))
    _check_empty(whole, index, empty, tol, f"additive {index} k={k}")
    _check_efficiency(whole, index, full, empty, tol, f"additive {index} k={k}")


# -- OAK models --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def oak_sym():
    """An OAK model whose features 0 and 1 are identical columns (so identical bases and lengthscales)."""
    rng = np.random.default_rng(12)
    X = rng.normal(size=(14, 4))
    X[:, 1] = X[:, 0]
    y = X[:, 0] * X[:, 1] + np.sin(X[:, 2]) + X[:, 0] * X[:, 2] * X[:, 3]
    gp = kx.gp.OAKRegressor(max_interaction_order=3, max_iter=3).fit(X, y)
    assert gp.lengthscales_[0] == gp.lengthscales_[1]
    return gp


@settings(max_examples=12, deadline=None)
@given(
    st.lists(_coords, min_size=3, max_size=3),
    st.lists(_coords, min_size=9, max_size=9),
    st.sampled_from(INDICES),
    st.integers(1, 4),
)
def test_oak_local_axioms(oak_sym, point, bg, index, draw_k):
    """Both local games: symmetry of features 0 and 1 at x_0 = x_1; in the interventional game,
    feature 3 is a dummy when its background column holds x_3; efficiency against predict."""
    gp = oak_sym
    d = 4
    k = _order(index, d, draw_k)
    x = np.array([[point[0], point[0], point[1], point[2]]])
    B = np.array(bg).reshape(3, 3)
    B = np.c_[B[:, 0], B[:, 0], B[:, 1], np.full(3, x[0, 3])]
    w = np.array([0.5, 0.3, 0.2])
    spec = {"index": index, "max_order": k}
    f_x = float(gp.predict(x)[0])
    for game, explainer, v_empty in (
        ("anova", kx.gp.OAKExplainer(gp), float(gp.component([], x)[0])),
        ("interventional", kx.gp.OAKExplainer(gp, B, background_weights=w), float(w @ gp.predict(B))),
    ):
        vals = explainer.explain(x, interactions=spec).interaction_values(0)
        tol = _tol(list(vals.values()), f_x, v_empty)
        what = f"OAK {game} {index} k={k}"
        _check_symmetry(vals, 0, 1, tol, what)
        if game == "interventional":
            _check_dummy(vals, 3, tol, what)
        _check_empty(vals, index, v_empty, tol, what)
        _check_efficiency(vals, index, f_x, v_empty, tol, what)


@settings(max_examples=10, deadline=None)
@given(
    st.lists(st.floats(-1.0, 1.0, allow_nan=False), min_size=28, max_size=28),
    st.lists(_coords, min_size=4, max_size=4),
    st.sampled_from(INDICES),
    st.integers(1, 4),
)
def test_oak_local_linear_in_output_weights(oak_sym, weights, point, index, draw_k):
    """Both local games are linear in the model's weights alpha (with the constant y_mean set to 0)."""
    d = 4
    k = _order(index, d, draw_k)
    m = len(oak_sym.alpha_)
    a1, a2 = np.array(weights[:m]), np.array(weights[m : 2 * m])
    models = []
    for alpha in (a1, a2, a1 + a2):
        gp = copy.copy(oak_sym)
        gp.alpha_, gp.y_mean_ = alpha, 0.0
        models.append(gp)
    x = np.array([point])
    spec = {"index": index, "max_order": k}
    for bg in (None, np.random.default_rng(3).normal(size=(3, 4))):
        vals = [kx.gp.OAKExplainer(gp, bg).explain(x, interactions=spec).interaction_values(0) for gp in models]
        tol = _tol(*(list(v.values()) for v in vals))
        for T in vals[2]:
            assert abs(vals[2][T] - vals[0][T] - vals[1][T]) <= tol, f"OAK {index} k={k} {T}"


@settings(max_examples=12, deadline=None)
@given(
    st.lists(st.floats(0.0, 2.0, allow_nan=False), min_size=6, max_size=6),
    st.sampled_from(INDICES),
    st.integers(1, 4),
)
def test_oak_global_axioms(oak_sym, order_weights, index, draw_k):
    """The variance game: symmetry of features 0 and 1, efficiency against the variances of the
    components written out, linearity in the order weights w_q = sigma_q^4."""
    d = 4
    k = _order(index, d, draw_k)
    w1, w2 = np.array(order_weights[:3]), np.array(order_weights[3:])
    spec = {"index": index, "max_order": k}
    models, vals = [], []
    for w in (w1, w2, w1 + w2):
        gp = copy.copy(oak_sym)
        gp.order_variances_ = np.r_[oak_sym.order_variances_[0], np.sqrt(w)]
        models.append(gp)
        vals.append(gp.global_interactions(spec).interaction_values(0))
    v_full = _table(_variance_game(models[2]), d)[-1]
    tol = _tol(*(list(v.values()) for v in vals), v_full)
    for T in vals[2]:
        assert abs(vals[2][T] - vals[0][T] - vals[1][T]) <= tol, f"OAK variance {index} k={k} {T}"
    what = f"OAK variance {index} k={k}"
    _check_symmetry(vals[2], 0, 1, tol, what)
    _check_empty(vals[2], index, 0.0, tol, what)
    _check_efficiency(vals[2], index, v_full, 0.0, tol, what)
    assert abs(v_full - models[2].global_importance().total) <= tol


def test_oak_global_dummy_of_the_variance_game():
    """The variance game of a feature whose constrained kernel vanishes on the support (Gamma_j = 0)
    is a dummy: with z = Gamma's entries in the additive form, set feature 3's to 0."""
    rng = np.random.default_rng(2)
    d, r = 4, 6
    z, c = rng.normal(size=(1, r, d)), rng.normal(size=(r, 1))
    z[..., 3] = 0.0
    w = np.array([0.0, 0.7, 0.4, 0.2])
    for index in INDICES:
        k = _order(index, d, 3)
        vals = _additive_dense(z, None, c, w, index, k)
        _check_dummy(vals, 3, 1e-12, index)


# -- HSIC and MMD^2 ----------------------------------------------------------------------------------
def _stat_data(draw_x, n, const=0.4):
    """Columns (u, u, v, const): features 0 and 1 identical, feature 3 constant (a dummy)."""
    A = np.array(draw_x).reshape(n, 2)
    return np.c_[A[:, 0], A[:, 0], A[:, 1], np.full(n, const)]


@settings(max_examples=15, deadline=None)
@given(
    st.lists(_coords, min_size=16, max_size=16),
    st.lists(_coords, min_size=16, max_size=16),
    st.lists(_coords, min_size=8, max_size=8),
    st.sampled_from(INDICES),
    st.integers(1, 4),
    st.sampled_from(["biased", "unbiased"]),
    _amplitudes,
)
def test_hsic_axioms(xs, ys, ys2, index, draw_k, estimator, amp):
    from kexplain.shapley.higher_order import check_interaction_spec, solve_product_interactions
    from kexplain.stats.hsic import _CentredWeights
    from kexplain.stats.interactions import _HSICPairGame, _RowsGame

    n, d = 8, 4
    k = _order(index, d, draw_k)
    X = _stat_data(xs, n)
    Y1, Y2 = np.array(ys).reshape(n, 2), np.c_[np.array(ys2)]
    kxk, ky1, ky2 = kx.kernels.RBF(1.1), kx.kernels.RBF(0.9, amplitude=amp), kx.kernels.RBF(1.3)
    spec = {"index": index, "max_order": k}

    def run(Y, ky, kxx=kxk):
        return kx.stats.hsic_interactions(X, Y, interactions=spec, kernel_x=kxx, kernel_y=ky, estimator=estimator)

    vals = run(Y1, ky1).interaction_values(0)
    v_full = kx.stats.hsic(X, Y1, kernel_x=kxk, kernel_y=ky1, estimator=estimator)
    tol = _tol(list(vals.values()), v_full)
    what = f"HSIC {estimator} {index} k={k}"
    _check_symmetry(vals, 0, 1, tol, what)
    _check_dummy(vals, 3, tol, what)
    _check_empty(vals, index, 0.0, tol, what)
    _check_efficiency(vals, index, v_full, 0.0, tol, what)
    # linearity: the HSIC is linear in each side's Gram matrix (amplitudes), and the interactions are
    # linear in the other side's centred weights (the sum of the games of Y1 and Y2 through the engine)
    unit = run(Y1, kx.kernels.RBF(0.9)).interaction_values(0)
    scaled = run(Y1, ky1, kx.kernels.RBF(1.1, amplitude=2.0)).interaction_values(0)
    other = run(Y2, ky2).interaction_values(0)
    g1 = _HSICPairGame(X, kxk, _CentredWeights(ky1, Y1, estimator))
    g2 = _HSICPairGame(X, kxk, _CentredWeights(ky2, Y2, estimator))
    table = solve_product_interactions(_RowsGame(g1.a, g1.c + g2.c), check_interaction_spec(spec, d))
    both = table.as_dict(0)
    for T in vals:
        assert abs(vals[T] - amp * unit[T]) <= tol, f"{what}: amplitude of kernel_y, {T}"
        assert abs(scaled[T] - 2.0 * vals[T]) <= 2 * tol, f"{what}: amplitude of kernel_x, {T}"
        assert abs(both[T] - vals[T] - other[T]) <= _tol(tol, list(other.values())), f"{what}: sum of games, {T}"


@settings(max_examples=15, deadline=None)
@given(
    st.lists(_coords, min_size=14, max_size=14),
    st.lists(_coords, min_size=12, max_size=12),
    st.sampled_from(INDICES),
    st.integers(1, 4),
    st.sampled_from(["biased", "unbiased"]),
    _amplitudes,
)
def test_mmd_axioms(xs, zs, index, draw_k, estimator, amp):
    from kexplain.shapley.higher_order import check_interaction_spec, solve_product_interactions
    from kexplain.stats.interactions import _PairGame, _RowsGame

    d = 4
    k = _order(index, d, draw_k)
    X, Z = _stat_data(xs, 7), _stat_data(zs, 6)
    kern = kx.kernels.RBF(1.2, amplitude=amp)
    spec = {"index": index, "max_order": k}
    vals = kx.stats.mmd_interactions(X, Z, interactions=spec, kernel=kern, estimator=estimator).interaction_values(0)
    v_full = kx.stats.mmd(X, Z, kernel=kern, estimator=estimator)
    tol = _tol(list(vals.values()), v_full)
    what = f"MMD^2 {estimator} {index} k={k}"
    _check_symmetry(vals, 0, 1, tol, what)
    _check_dummy(vals, 3, tol, what)
    _check_empty(vals, index, 0.0, tol, what)
    _check_efficiency(vals, index, v_full, 0.0, tol, what)
    # linearity: in the kernel's amplitude, and in the rows of the pair game (halves solved apart)
    unit = kx.stats.mmd_interactions(X, Z, interactions=spec, kernel=kx.kernels.RBF(1.2), estimator=estimator)
    game = _PairGame(kern, X, Z, estimator)
    h = game.n_rows // 2
    cs = check_interaction_spec(spec, d)
    halves = [
        solve_product_interactions(_RowsGame(game.a[s], game.c[s]), cs).as_dict(0)
        for s in (slice(0, h), slice(h, None))
    ]
    unit_vals = unit.interaction_values(0)
    for T in vals:
        assert abs(vals[T] - amp * unit_vals[T]) <= tol, f"{what}: amplitude, {T}"
        assert abs(vals[T] - halves[0][T] - halves[1][T]) <= tol, f"{what}: rows, {T}"


@pytest.mark.parametrize(("index", "k"), [("SV", 1), ("BV", 1), ("FSII", 2), ("FSII", 3), ("BII", 3), ("SII", 4)])
def test_mmd_interactions_remaining_indices_against_enumeration(index, k):
    """The indices tests/test_interactions_any_order.py leaves out for the MMD^2 game, from its definition."""
    rng = np.random.default_rng(9)
    X = rng.normal(size=(9, 4))
    Z = rng.normal(size=(8, 4)) + [0.0, 0.4, 0.0, 0.0]
    Z[:, 2] = Z[:, 3] * rng.choice([-1.0, 1.0], size=8)
    kern = kx.kernels.RBF([0.8, 1.0, 1.3, 0.9], amplitude=1.5)
    F = [kern.feature_values(P, Q) for P, Q in ((X, X), (Z, Z), (X, Z))]

    def v(S):
        kxx, kzz, kxz = (1.5 * f[..., S].prod(axis=-1) for f in F)
        n, m = len(X), len(Z)
        return (
            (kxx.sum() - np.trace(kxx)) / (n * (n - 1)) + (kzz.sum() - np.trace(kzz)) / (m * (m - 1)) - 2 * kxz.mean()
        )

    vt = _table(v, 4)
    assert abs(vt[0]) < 1e-12  # the empty coalition's kernel is constant: no discrepancy
    ex = kx.stats.mmd_interactions(X, Z, interactions={"index": index, "max_order": k}, kernel=kern)
    _assert_close(ex.interaction_values(0), _reference(vt, 4, index, k), float(np.abs(vt).max()), f"MMD^2 {index}")
    if index == "BV":
        ref = _reference(vt, 4, "BV", 1)
        np.testing.assert_allclose(ex.values[0], [ref[(j,)] for j in range(4)], rtol=0, atol=1e-12)


# -- bad input through every entry point ---------------------------------------------------------------
def _entry_points(gp):
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(10, 4)), rng.normal(size=(10, 1))
    return {
        "OAK anova": lambda spec: kx.gp.OAKExplainer(gp).explain(X[:1], interactions=spec),
        "OAK interventional": lambda spec: kx.gp.OAKExplainer(gp, X[:3]).explain(X[:1], interactions=spec),
        "OAK.explain": lambda spec: gp.explain(X[:1], interactions=spec),
        "OAK variance": lambda spec: gp.global_interactions(spec),
        "HSIC": lambda spec: kx.stats.hsic_interactions(X, Y, interactions=spec),
        "MMD^2": lambda spec: kx.stats.mmd_interactions(X, X[::-1] + 0.5, interactions=spec),
    }


BAD_SPECS = [
    ({"index": "nope", "max_order": 2}, ValueError, r"interactions\['index'\] must be one of \['SV', 'BV', 'SII'"),
    ({"index": "Shapley-Taylor", "max_order": 2}, ValueError, r"interactions\['index'\] must be one of"),
    ({"index": 3, "max_order": 2}, ValueError, r"interactions\['index'\] must be one of .*got 3"),
    ({"index": "SII", "max_order": 0}, ValueError, r"interactions\['max_order'\] must be a positive integer"),
    ({"index": "k-SII", "max_order": -1}, ValueError, r"interactions\['max_order'\] must be a positive integer"),
    ({"index": "SII", "max_order": 2.5}, ValueError, r"interactions\['max_order'\] must be a positive integer"),
    ({"index": "STII", "max_order": 5}, ValueError, r"interactions\['max_order'\] must be at most .* d = 4, got 5"),
    ({"index": "SII", "max_order": 2, "top_k": 0}, ValueError, r"interactions\['top_k'\] must be a positive integer"),
    ({"index": "SII", "max_order": 2, "top_k": -3}, ValueError, r"interactions\['top_k'\] must be a positive integer"),
    ({"index": "SII", "max_order": 2, "top_k": 1.5}, ValueError, r"interactions\['top_k'\] must be a positive integer"),
    ({"index": "SII", "threshold": -0.1}, ValueError, r"interactions\['threshold'\] must be a finite number >= 0"),
    ({"index": "BV", "max_order": 2}, ValueError, r"interactions\['max_order'\] must be 1 for index 'BV'"),
    ({"max_order": 2}, ValueError, r"interactions needs an 'index'"),
    ({"index": "SII", "order": 2}, ValueError, r"interactions has unknown keys \['order'\]"),
]


@pytest.fixture(scope="module")
def entry_points(oak_sym):
    return _entry_points(oak_sym)


@pytest.mark.parametrize("where", ["OAK anova", "OAK interventional", "OAK.explain", "OAK variance", "HSIC", "MMD^2"])
@pytest.mark.parametrize(("spec", "exc", "match"), BAD_SPECS)
def test_bad_interaction_specs_name_the_argument(entry_points, where, spec, exc, match):
    with pytest.raises(exc, match=match):
        entry_points[where](spec)

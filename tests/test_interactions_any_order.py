"""Interaction indices of every order (kexplain.shapley.higher_order, InteractionExplanation).

The reference is written from the definitions: I(T) = sum over S outside T of the index's weight
of |S| times the discrete derivative of v at S along T, over a table of v on every coalition
(v from the model's own predict where there is a model); FSII as the constrained weighted least
squares problem that defines it (Tsai, Yeh & Ravikumar, 2023); k-SII against shapiq's
ExactComputer.  Axioms with hypothesis on random product games.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kexplain as kx
from kexplain.shapley.higher_order import (
    EFFICIENT_INDICES,
    INDICES,
    check_interaction_spec,
    combinations_array,
    product_interactions,
)

TOL = 1e-10


# -- the reference ---------------------------------------------------------------------------------
def _table(v, d):
    """v on every coalition, indexed by bitmask (bit j = player j)."""
    S = ((np.arange(2**d)[:, None] >> np.arange(d)[None, :]) & 1).astype(bool)
    return np.array([v(row) for row in S], dtype=np.float64)


def _weight(index, d, t, s, k):
    if index in ("SII", "SV"):
        return math.factorial(s) * math.factorial(d - s - t) / math.factorial(d - t + 1)
    if index in ("BII", "BV"):
        return 0.5 ** (d - t)
    if index == "Moebius" or (index == "STII" and t < k):
        return 1.0 if s == 0 else 0.0
    if index == "STII":
        return k / d / math.comb(d - 1, s)
    raise AssertionError(index)


def _definition(vt, d, index, k):
    """{T: I(T)} for 1 <= |T| <= k, from the definition (weights times discrete derivatives)."""
    out = {}
    for t in range(1, k + 1):
        for T in itertools.combinations(range(d), t):
            tmask = sum(1 << j for j in T)
            rest = [j for j in range(d) if j not in T]
            total = 0.0
            for s in range(len(rest) + 1):
                w = _weight(index, d, t, s, k)
                if w == 0.0:
                    continue
                for S in itertools.combinations(rest, s):
                    smask = sum(1 << j for j in S)
                    delta = 0.0
                    for l in range(t + 1):
                        for L in itertools.combinations(T, l):
                            delta += (-1) ** (t - l) * vt[smask | sum(1 << j for j in L)]
                    total += w * delta
            out[T] = total
    del tmask
    return out


def _fsii_least_squares(vt, d, k):
    """FSII by its definition: argmin sum_S mu(S) (v(S) - sum_{T in S, |T| <= k} e(T))^2 with the
    Shapley-kernel weights mu, subject to e(empty) = v(empty) and the sum of all e = v(D)."""
    sets = [T for t in range(k + 1) for T in itertools.combinations(range(d), t)]
    masks = np.array([sum(1 << j for j in T) for T in sets])
    A, y, wts = [], [], []
    for m in range(1, 2**d - 1):
        s = bin(m).count("1")
        A.append([(mk & m) == mk for mk in masks])
        y.append(vt[m])
        wts.append((d - 1) / (math.comb(d, s) * s * (d - s)))
    A, y, W = np.array(A, float), np.array(y), np.diag(wts)
    C = np.vstack([np.eye(len(sets))[0], np.ones(len(sets))])
    c = np.array([vt[0], vt[-1]])
    K = np.block([[2 * A.T @ W @ A, C.T], [C, np.zeros((2, 2))]])
    sol = np.linalg.solve(K, np.concatenate([2 * A.T @ W @ y, c]))
    return {T: sol[i] for i, T in enumerate(sets) if T}


def _shapiq_exact(vt, d, index, k):
    shapiq = pytest.importorskip("shapiq")

    def game(S):
        return vt[(np.asarray(S, bool) * (1 << np.arange(d))).sum(axis=1)]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        iv = shapiq.ExactComputer(game, n_players=d)(index, k)
    return {T: iv[T] for t in range(1, k + 1) for T in itertools.combinations(range(d), t)}


def _reference(vt, d, index, k):
    if index == "FSII":
        return _fsii_least_squares(vt, d, k)
    if index == "k-SII":
        return _shapiq_exact(vt, d, index, k)
    return _definition(vt, d, index, k)


def _assert_close(got: dict, ref: dict, scale: float, what: str):
    missing = set(ref) - set(got)
    assert not missing, f"{what}: sets missing {sorted(missing)[:3]}"
    err = max(abs(got[T] - ref[T]) for T in ref)
    assert err <= TOL * max(scale, 1.0), f"{what}: largest error {err:.3g} (scale {scale:.3g})"


CASES = [("SV", 1), ("BV", 1)] + [(i, k) for i in ("SII", "k-SII", "STII", "FSII", "BII", "Moebius") for k in (1, 2, 3)]
CASES += [("Moebius", 5), ("SII", 5), ("BII", 5)]


# -- games with a model ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def svr():
    from sklearn.svm import SVR

    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 5))
    y = X[:, 0] * X[:, 1] - X[:, 2] * X[:, 3] * X[:, 4] + np.sin(X[:, 2])
    model = SVR(kernel="rbf", gamma=0.4, C=3.0).fit(X, y)
    return model, X


def _hybrid(model, x, Z, w):
    def v(S):
        H = np.where(S[None, :], x[None, :], Z)
        return float(w @ model.predict(H))

    return v


def _functional(model, x):
    sv, alpha, g = model.support_vectors_, model.dual_coef_[0], model.gamma

    def v(S):
        return float(alpha @ np.exp(-g * ((x[S] - sv[:, S]) ** 2).sum(axis=1)) + model.intercept_[0])

    return v


@pytest.mark.parametrize(("index", "k"), CASES)
@pytest.mark.parametrize("game", ["functional", "interventional", "baseline"])
def test_product_kernel_explainer_against_definition(svr, game, index, k):
    model, X = svr
    d = X.shape[1]
    x = X[:2] + 0.3
    if game == "functional":
        explainer = kx.ProductKernelExplainer(model)
        vs = [_functional(model, xi) for xi in x]
    elif game == "interventional":
        w = np.random.default_rng(1).uniform(size=6)
        w /= w.sum()
        explainer = kx.ProductKernelExplainer(model, background=X[:6], background_weights=w)
        vs = [_hybrid(model, xi, X[:6], w) for xi in x]
    else:
        explainer = kx.ProductKernelExplainer(model, baseline=X[7])
        vs = [_hybrid(model, xi, X[7:8], np.ones(1)) for xi in x]
    ex = explainer.explain(x, interactions={"index": index, "max_order": k})
    assert isinstance(ex, kx.InteractionExplanation)
    assert ex.interaction_index == index and ex.max_order == k
    for i, v in enumerate(vs):
        vt = _table(v, d)
        scale = float(np.abs(vt).max())
        got = ex.interaction_values(i)
        _assert_close(got, _reference(vt, d, index, k), scale, f"{game} {index} k={k} row {i}")
        if index in ("SV", "k-SII", "STII", "FSII", "Moebius"):
            assert abs(got[()] - vt[0]) <= TOL * scale
        if index in EFFICIENT_INDICES and (index != "Moebius" or k == d):
            total = sum(val for T, val in got.items() if T)
            assert abs(total - (vt[-1] - vt[0])) <= TOL * scale
    if index == "BV":  # Banzhaf values replace the Shapley values
        ref = _definition(_table(vs[0], d), d, "BV", 1)
        assert np.abs(ex.values[0] - [ref[(j,)] for j in range(d)]).max() <= TOL * scale
    else:  # the Shapley values are the usual ones
        plain = explainer.explain(x)
        assert np.abs(ex.values - plain.values).max() <= 1e-12 * max(scale, 1.0)
    if index in EFFICIENT_INDICES and (index != "Moebius" or k == d):
        assert ex.efficiency_error < 1e-12


@pytest.mark.parametrize(("index", "k"), CASES)
def test_random_product_games_against_definition(index, k):
    """Bare (a, b, c) games with signs and exact zeros: the engine against the definition."""
    rng = np.random.default_rng(7)
    d, r = 5, 4
    a = rng.uniform(-1.5, 1.5, (1, r, d))
    b = rng.uniform(-1.0, 1.0, (1, r, d))
    a[0, 1, 2] = 0.0
    b[0, 2, 4] = 0.0
    c = rng.normal(size=r)

    def v(S):
        return float(c @ np.prod(np.where(S[None, :], a[0], b[0]), axis=1))

    vt = _table(v, d)
    out = product_interactions(a, b, c, index, k)
    got = {tuple(T): out[t][n, 0, 0] for t in range(1, k + 1) for n, T in enumerate(combinations_array(d, t).tolist())}
    _assert_close(got, _reference(vt, d, index, k), float(np.abs(vt).max()), f"{index} k={k}")


@pytest.mark.parametrize("index", ["SII", "STII", "FSII", "BII", "Moebius", "k-SII", "BV", "SV"])
def test_shapiq_exact_computer_agrees(index):
    """The same game through shapiq's ExactComputer: every order 0..k where it computes the same index."""
    rng = np.random.default_rng(3)
    d, r = 7, 5
    a, b, c = rng.uniform(0, 1, (1, r, d)), rng.uniform(0, 1, (1, r, d)), rng.normal(size=r)

    def v(S):
        return float(c @ np.prod(np.where(S[None, :], a[0], b[0]), axis=1))

    vt = _table(v, d)
    k = 1 if index in ("SV", "BV") else 3
    ref = _shapiq_exact(vt, d, index, k)
    out = product_interactions(a, b, c, index, k)
    got = {tuple(T): out[t][n, 0, 0] for t in range(1, k + 1) for n, T in enumerate(combinations_array(d, t).tolist())}
    # shapiq solves FSII by least squares in floating point: agreement to its own rounding
    tol = 1e-8 if index == "FSII" else TOL
    err = max(abs(got[T] - ref[T]) for T in ref)
    assert err <= tol * max(1.0, float(np.abs(vt).max()))


@pytest.mark.parametrize(
    ("index", "k"), [("SII", 2), ("k-SII", 3), ("FSII", 2), ("STII", 3), ("Moebius", 6), ("BV", 1)]
)
def test_exact_shapley_any_game(index, k):
    """kx.exact_shapley(interactions={...}) on a game that is no product game, with points and outputs."""
    rng = np.random.default_rng(5)
    d = 6
    W = rng.normal(size=(d, d))

    def v(S):
        f = S.astype(float)
        base = np.tanh(f @ W @ f.T).diagonal() if f.ndim == 2 else np.tanh(f @ W @ f)
        return np.stack([np.stack([base, 2 * base + f.sum(axis=1)], axis=-1)] * 2, axis=1)  # (n, 2, 2)

    res = kx.exact_shapley(v, d, interactions={"index": index, "max_order": k})
    tab = res.interactions
    assert res.interaction_index == index and tab.n_points == 2 and tab.n_outputs == 2
    for o in range(2):
        vt = _table(lambda S, o=o: v(S[None, :])[0, 0, o], d)
        got = tab.as_dict(1, o)
        _assert_close(got, _reference(vt, d, index, k), float(np.abs(vt).max()), f"{index} output {o}")
    plain = kx.exact_shapley(v, d)
    assert np.abs(res.values - plain.values).max() < 1e-12


def test_top_k_and_threshold_select_the_largest(svr):
    model, X = svr
    explainer = kx.ProductKernelExplainer(model, background=X[:5])
    full = explainer.explain(X[:2], interactions={"index": "k-SII", "max_order": 3})
    top = explainer.explain(X[:2], interactions={"index": "k-SII", "max_order": 3, "top_k": 4})
    thr = explainer.explain(X[:2], interactions={"index": "k-SII", "max_order": 3, "threshold": 0.05})
    assert top.sparse and not full.sparse
    for i in range(2):
        all_vals = full.interaction_values(i)
        kept = top.interaction_values(i)
        for t in (1, 2, 3):
            ranked = sorted((abs(val) for T, val in all_vals.items() if len(T) == t), reverse=True)
            got = sorted((abs(val) for T, val in kept.items() if len(T) == t), reverse=True)
            assert np.allclose(got, ranked[:4], rtol=0, atol=1e-14)
        for T, val in kept.items():
            assert val == all_vals[T]
        assert {T for T, val in thr.interaction_values(i).items() if T} == {
            T for T, val in all_vals.items() if T and abs(val) >= 0.05
        }
    # the efficiency check is taken before the selection
    assert top.efficiency_error < 1e-12


@pytest.mark.slow
def test_preference_games_against_definition():
    from test_preference_explainer import D_ITEM, _explainer, _hybrid_value, _setup

    for level, context in (("item", False), ("joint", True)):
        pe, Z, U, Xl, Xr, C = _setup("general", context, seed=4)
        D = D_ITEM + (2 if level == "joint" else 0)
        for route in ("subsets", "quadrature"):
            explainer = _explainer(pe, level, Z, U, route=route)
            for index, k in (("k-SII", 3), ("FSII", 2), ("Moebius", D), ("BII", 2)):
                ex = explainer.explain(
                    Xl[:2],
                    Xr[:2],
                    None if C is None else C[:2],
                    interactions={"index": index, "max_order": k},
                    y=[1, 0],
                )
                for i, sign in ((0, 1.0), (1, -1.0)):
                    c = None if C is None else C[i]
                    vt = sign * _table(
                        lambda S, i=i, c=c, pe=pe, lv=level, Z=Z, U=U, Xl=Xl, Xr=Xr: _hybrid_value(
                            pe, lv, Z, U, Xl[i], Xr[i], c, list(np.flatnonzero(S))
                        ),
                        D,
                    )
                    _assert_close(
                        ex.interaction_values(i),
                        _reference(vt, D, index, k),
                        float(np.abs(vt).max()),
                        f"{level} {index}",
                    )


def test_observational_preference_game_by_enumeration():
    from test_preference_explainer import _setup

    from kexplain.preference.explainer import PrefShapExplainer

    pe, Z, _, Xl, Xr, _ = _setup("general", False, seed=2)
    explainer = PrefShapExplainer(pe, Z, game="observational", cme_regularization=0.05)
    ex = explainer.explain(Xl[:2], Xr[:2], interactions={"index": "STII", "max_order": 2})
    v = explainer._observational.value_function(Xl[:2], Xr[:2], None)
    res = kx.exact_shapley(v, 3, interactions={"index": "STII", "max_order": 2})
    assert ex.interaction_values(1) == res.interactions.as_dict(1)
    assert ex.efficiency_error < 1e-12


# -- axioms ------------------------------------------------------------------------------------------
_floats = st.floats(-2.0, 2.0, allow_nan=False, width=64)


@st.composite
def product_games(draw, d=5, r=3):
    vals = draw(st.lists(_floats, min_size=2 * r * d + r, max_size=2 * r * d + r))
    arr = np.array(vals)
    a = arr[: r * d].reshape(1, r, d)
    b = arr[r * d : 2 * r * d].reshape(1, r, d)
    return a, b, arr[2 * r * d :]


def _dense(a, b, c, index, k):
    out = product_interactions(a, b, c, index, k)
    d = a.shape[2]
    return {tuple(T): out[t][n, 0, 0] for t in range(0, k + 1) for n, T in enumerate(combinations_array(d, t).tolist())}


def _scale(a, b, c):
    return max(1.0, float(np.abs(c).sum() * np.prod(np.maximum(np.abs(a), np.abs(b)).max(axis=1) + 1.0)))


@settings(max_examples=25, deadline=None)
@given(product_games(), st.sampled_from(INDICES))
def test_axioms_null_player_symmetry_linearity_efficiency(game, index):
    a, b, c = game
    k = 1 if index in ("SV", "BV") else 3
    d = a.shape[2]
    tol = 1e-9 * _scale(a, b, c)
    # null player: feature 4 has the same factor present and absent
    an = a.copy()
    an[..., 4] = b[..., 4]
    out = _dense(an, b, c, index, k)
    assert all(abs(val) <= tol for T, val in out.items() if 4 in T)
    # symmetry: features 0 and 1 exchangeable
    asym, bsym = a.copy(), b.copy()
    asym[..., 1], bsym[..., 1] = asym[..., 0], bsym[..., 0]
    out = _dense(asym, bsym, c, index, k)
    for T, val in out.items():
        if 0 in T and 1 not in T:
            U = tuple(sorted(1 if j == 0 else j for j in T))
            assert abs(val - out[U]) <= tol
    # linearity: the game of rows 0..2 is the sum of the game of row 0 and that of rows 1..2
    whole = _dense(a, b, c, index, k)
    part1 = _dense(a[:, :1], b[:, :1], c[:1], index, k)
    part2 = _dense(a[:, 1:], b[:, 1:], c[1:], index, k)
    assert all(abs(whole[T] - part1[T] - part2[T]) <= tol for T in whole)
    # efficiency where the index has it
    if index in EFFICIENT_INDICES:
        kk = d if index == "Moebius" else k
        out = _dense(a, b, c, index, kk)
        v_full = float(c @ np.prod(a[0], axis=1))
        v_empty = float(c @ np.prod(b[0], axis=1))
        assert abs(sum(val for T, val in out.items() if T) - (v_full - v_empty)) <= tol


# -- shapiq ------------------------------------------------------------------------------------------
def test_to_shapiq_round_trip_and_plots(svr):
    shapiq = pytest.importorskip("shapiq")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    model, X = svr
    explainer = kx.ProductKernelExplainer(model, background=X[:5])
    for index, k in (("k-SII", 2), ("FSII", 3), ("Moebius", 5), ("BV", 1)):
        ex = explainer.explain(X[:2], interactions={"index": index, "max_order": k})
        iv = ex.to_shapiq(1)
        assert isinstance(iv, shapiq.InteractionValues)
        assert (iv.index, iv.max_order, iv.min_order, iv.n_players) == (index, k, 0, 5)
        assert iv.baseline_value == pytest.approx(ex.base_values[1], abs=1e-12)
        for T, val in ex.interaction_values(1).items():
            assert iv[T] == pytest.approx(val, abs=1e-14)
    ex = explainer.explain(X[:1], interactions={"index": "k-SII", "max_order": 2})
    iv = ex.to_shapiq(0)
    shapiq.network_plot(iv, feature_names=ex.feature_names)
    shapiq.force_plot(iv, feature_names=np.array(ex.feature_names), show=False)
    plt.close("all")


def test_getitem_and_frame(svr):
    model, X = svr
    ex = kx.ProductKernelExplainer(model, background=X[:5]).explain(
        X[:3], interactions={"index": "SII", "max_order": 2}
    )
    sub = ex[1:]
    assert isinstance(sub, kx.InteractionExplanation) and len(sub) == 2
    assert sub.interaction_values(0) == ex.interaction_values(1)
    frame = ex.interactions_frame()
    assert len(frame) == 3 * (5 + 10)
    both = kx.InteractionExplanation.concatenate([ex[:1], ex[1:]])
    assert both.interaction_values(2) == ex.interaction_values(2)


# -- bad input ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ({"index": "XYZ"}, r"interactions\['index'\] must be one of"),
        ({"index": "SII", "max_order": 0}, r"interactions\['max_order'\] must be a positive integer"),
        ({"index": "SII", "max_order": 6}, r"interactions\['max_order'\] must be at most .* d = 5"),
        ({"index": "SII", "top_k": 0}, r"interactions\['top_k'\] must be a positive integer"),
        ({"index": "SII", "threshold": -1.0}, r"interactions\['threshold'\]"),
        ({"index": "BV", "max_order": 2}, r"interactions\['max_order'\] must be 1"),
        ({"max_order": 2}, r"needs an 'index'"),
        ({"index": "SII", "order": 2}, r"unknown keys \['order'\]"),
    ],
)
def test_bad_specs_name_the_argument(svr, spec, match):
    model, X = svr
    with pytest.raises(ValueError, match=match):
        kx.ProductKernelExplainer(model).explain(X[:1], interactions=spec)


def test_moebius_of_a_callable_game_beyond_enumeration():
    with pytest.raises(ValueError, match=r"interactions=.*d <= 20, got d=25"):
        kx.exact_shapley(lambda S: S.sum(axis=1), 25, interactions={"index": "Moebius", "max_order": 2})


def test_unsupported_explainer_names_the_supported_ones():
    with pytest.raises(ValueError, match="ProductKernelExplainer, PrefShapExplainer"):
        check = kx.base.check_explain_options
        check({"index": "SII"}, False, None)


def test_spec_defaults():
    assert check_interaction_spec({"index": "stii"}).max_order == 2
    assert check_interaction_spec({"index": "banzhaf"}) == check_interaction_spec({"index": "BV", "max_order": 1})


@pytest.mark.parametrize("kw", [{}, {"background": 5}, {"baseline": 7}])
def test_shapiq_game_values_and_exact_values(svr, kw):
    shapiq = pytest.importorskip("shapiq")
    model, X = svr
    kwargs = {"background": X[:5]} if "background" in kw else ({"baseline": X[7]} if "baseline" in kw else {})
    explainer = kx.ProductKernelExplainer(model, **kwargs)
    game = kx.ProductShapiqGame.from_explainer(explainer, X[9])
    assert isinstance(game, shapiq.Game) and game.n_players == 5
    S = np.random.default_rng(0).uniform(size=(16, 5)) < 0.5
    if kwargs:
        Z = X[:5] if "background" in kwargs else X[7:8]
        ref = np.array([_hybrid(model, X[9], Z, np.full(len(Z), 1 / len(Z)))(s) for s in S])
    else:
        ref = np.array([_functional(model, X[9])(s) for s in S])
    assert np.abs(game(S) + game.normalization_value - ref).max() < 1e-12
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        computer = shapiq.ExactComputer(game, n_players=5)
        for index, k in (("k-SII", 3), ("STII", 2), ("SII", 2), ("BII", 2), ("Moebius", 5)):
            exact, theirs = game.exact_values(index, k), computer(index, k)
            assert exact.index == index and not exact.estimated
            assert max(abs(exact[T] - theirs[T]) for T in theirs.interaction_lookup) < 1e-12


@pytest.mark.parametrize("scale", [1e-100, 1e100])
@pytest.mark.parametrize("index", INDICES)
def test_products_near_the_ends_of_float64(index, scale):
    """Every value is linear in the game: scaling three features' factors by s scales every index by
    s^3 (1e-300 or 1e300, outside the fast route's range for the full product), which the log-space route keeps
    exact while the fast route handles the unscaled game."""
    rng = np.random.default_rng(11)
    d, r = 6, 3
    a, b, c = rng.uniform(0.2, 1.5, (1, r, d)), rng.uniform(-1.0, 1.0, (1, r, d)), rng.normal(size=r)
    k = 1 if index in ("SV", "BV") else 3
    ref = product_interactions(a, b, c, index, k)
    s = np.ones(d)
    s[[0, 2, 5]] = scale
    # c absorbs the scale so the game is the same: the factors themselves leave the safe range
    got = product_interactions(a * s, b * s, c / scale**3, index, k)
    for t in range(k + 1):
        assert np.allclose(got[t], ref[t], rtol=1e-10, atol=1e-12 * np.abs(ref[t]).max())


@pytest.mark.parametrize("index", INDICES)
def test_subset_and_quadrature_routes_agree(svr, index, monkeypatch):
    """Few features pick the subset route (2^d values, Möbius); the quadrature route gives the same."""
    from kexplain.explainers.product_games import BackgroundFactors

    model, X = svr
    k = 1 if index in ("SV", "BV") else 3
    spec = {"index": index, "max_order": k}
    for kwargs in ({"background": X[:6]}, {"baseline": X[7]}):
        subsets = kx.ProductKernelExplainer(model, **kwargs)
        quadrature = kx.ProductKernelExplainer(model, **kwargs)
        # force the other route (as the explainer does when the cost model picks it)
        quadrature._subset_game = None
        quadrature._background_factors = BackgroundFactors(quadrature.expansion, quadrature._Z, quadrature._w)
        assert subsets._subset_game is not None or "baseline" in kwargs
        a = subsets.explain(X[:2], interactions=spec)
        with monkeypatch.context() as m:
            m.setattr("kexplain.explainers.product_kernel_interactions.MAX_INTERACTION_SUBSET_FEATURES", 0)
            b = quadrature.explain(X[:2], interactions=spec)
        assert getattr(quadrature, "_interactions_subsets", None) is None
        for i in range(2):
            va, vb = a.interaction_values(i), b.interaction_values(i)
            assert va.keys() == vb.keys()
            assert max(abs(va[T] - vb[T]) for T in va) < 1e-12
        assert np.abs(a.values - b.values).max() < 1e-12


def test_several_outputs():
    rng = np.random.default_rng(0)
    em = kx.KernelExpansion(
        rng.normal(size=(5, 4)), rng.normal(size=(5, 2)), kx.kernels.RBF(1.0), output_names=["a", "b"]
    )
    B, X = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    ex = kx.ProductKernelExplainer(em, background=B).explain(X, interactions={"index": "STII", "max_order": 3})
    assert ex.efficiency_error < 1e-12
    for o, name in enumerate(["a", "b"]):

        def v(S, o=o, x=X[1]):
            H = np.where(S[None, :], x, B)
            return float(em.predict(H)[:, o].mean())

        vt = _table(v, 4)
        _assert_close(
            ex.interaction_values(1, output=name), _definition(vt, 4, "STII", 3), float(np.abs(vt).max()), name
        )
    sub = ex[1:, "b"]
    assert sub.values.shape == (2, 4) and sub.interaction_values(0) == ex.interaction_values(1, output="b")
    sub3 = ex[1:, :, "b"]  # shap's explicit (rows, features, output) form picks the same
    assert sub3.interaction_values(0) == sub.interaction_values(0)
    np.testing.assert_array_equal(sub3.values, sub.values)
    # the table holds sets of every feature: a feature key is refused, not half applied
    for key in [(slice(None), "x1"), (slice(None), [0, 1], "b"), (0, 1, 2, 3)]:
        with pytest.raises(IndexError, match="rows and one output only|index with rows"):
            ex[key]
    with pytest.raises(ValueError, match="pick one with output="):
        ex.interaction_values(0)


@pytest.mark.parametrize("estimator", ["unbiased", "biased"])
def test_mmd_interactions_against_definition(estimator):
    from kexplain.stats import mmd_shapley
    from kexplain.stats.interactions import mmd_interactions

    rng = np.random.default_rng(2)
    X = rng.normal(size=(12, 4))
    Z = rng.normal(size=(9, 4)) + [0.0, 0.5, 0.0, 0.0]
    Z[:, 2] = Z[:, 3] * rng.choice([-1.0, 1.0], size=9)
    base = mmd_shapley(X, Z, estimator=estimator)
    kern = base.kernel
    Fxx, Fzz, Fxz = kern.feature_values(X, X), kern.feature_values(Z, Z), kern.feature_values(X, Z)
    amp = kern.amplitude if hasattr(kern, "amplitude") else 1.0

    def v(S):
        kxx, kzz, kxz = (amp * F[..., S].prod(axis=-1) for F in (Fxx, Fzz, Fxz))
        if estimator == "unbiased":
            n, m = len(X), len(Z)
            sxx = (kxx.sum() - np.trace(kxx)) / (n * (n - 1))
            szz = (kzz.sum() - np.trace(kzz)) / (m * (m - 1))
            return sxx + szz - 2 * kxz.mean()
        return kxx.mean() + kzz.mean() - 2 * kxz.mean()

    vt = _table(v, 4)
    assert abs(vt[-1] - base.total) < 1e-12
    for index, k in (("SII", 2), ("k-SII", 3), ("Moebius", 4), ("STII", 2)):
        ex = mmd_interactions(X, Z, interactions={"index": index, "max_order": k}, estimator=estimator)
        assert np.abs(ex.values[0] - base.values).max() < 1e-12
        _assert_close(ex.interaction_values(0), _reference(vt, 4, index, k), float(np.abs(vt).max()), index)


def test_k_sii_at_large_d_keeps_efficiency():
    """d = 70 (binomials beyond int64 in a full Pascal table): k-SII of order 3 sums to v(D) - v(empty)."""
    rng = np.random.default_rng(4)
    d, r = 70, 3
    a, b, c = rng.uniform(0.5, 1.0, (1, r, d)), rng.uniform(0.5, 1.0, (1, r, d)), rng.normal(size=r)
    out = product_interactions(a, b, c, "k-SII", 3)
    total = sum(out[t].sum() for t in (1, 2, 3))
    v_full, v_empty = c @ a[0].prod(axis=1), c @ b[0].prod(axis=1)
    assert abs(total - (v_full - v_empty)) < 1e-12 * max(1.0, abs(v_full), abs(v_empty))
    sii = product_interactions(a, b, c, "SII", 3)
    assert np.abs(out[3] - sii[3]).max() == 0.0

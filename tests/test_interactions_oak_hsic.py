"""Interactions of any order of the HSIC game and of OAK's games, against enumeration.

The references evaluate each game on every coalition from its own definition (the HSIC of the
variables in S through kx.stats.hsic; the OAK model's ANOVA components, its predict on hybrid
rows, the variances of its components) and compute every index from the definitions in
tests/test_interactions_any_order.py (weights times discrete derivatives, FSII by least squares,
k-SII by shapiq's ExactComputer).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_interactions_any_order import TOL, _assert_close, _reference, _table

import kexplain as kx

INDEX_CASES = [("SV", 1), ("BV", 1), ("SII", 2), ("k-SII", 3), ("STII", 2), ("FSII", 2), ("BII", 3), ("Moebius", 4)]


# -- HSIC --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def hsic_data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(14, 4))
    y = np.c_[np.sign(X[:, 0] * X[:, 1]) + 0.2 * rng.normal(size=14), rng.normal(size=14)]
    return X, y


@pytest.mark.parametrize("estimator", ["biased", "unbiased"])
@pytest.mark.parametrize("side", ["x", "y"])
def test_hsic_interactions_against_enumeration(hsic_data, estimator, side):
    X, Y = hsic_data
    kxk, kyk = kx.kernels.RBF(1.3), kx.kernels.RBF(0.8)
    A, B, ka, kb = (X, Y, kxk, kyk) if side == "x" else (Y, X, kyk, kxk)
    d = A.shape[1]

    def v(S):
        if not S.any():
            return 0.0
        return kx.stats.hsic(A[:, S], B, kernel_x=ka, kernel_y=kb, estimator=estimator)

    vt = _table(v, d)
    scale = float(np.abs(vt).max())
    base = kx.stats.hsic_shapley(X, Y, kernel_x=kxk, kernel_y=kyk, attribute=side, estimator=estimator)
    for index, k in INDEX_CASES:
        k = min(k, d)
        ex = kx.stats.hsic_interactions(
            X,
            Y,
            interactions={"index": index, "max_order": k},
            kernel_x=kxk,
            kernel_y=kyk,
            attribute=side,
            estimator=estimator,
        )
        assert isinstance(ex, kx.InteractionExplanation) and ex.game == "HSIC"
        got = ex.interaction_values(0)
        _assert_close(got, _reference(vt, d, index, k), scale, f"HSIC {side} {estimator} {index} k={k}")
        if index != "BV":
            assert np.abs(ex.values[0] - base.values).max() <= TOL * scale
        assert abs(ex.v_full[0] - vt[-1]) <= TOL * scale
        if index in ("SV", "k-SII", "STII", "FSII", "Moebius"):
            assert abs(got[()]) <= TOL * scale  # v(empty set) = 0
            if index != "Moebius" or k == d:
                assert ex.efficiency_error < 1e-10


def test_hsic_interactions_both_sides_and_selection(hsic_data):
    X, Y = hsic_data
    ex_x, ex_y = kx.stats.hsic_interactions(X, Y, interactions={"index": "k-SII", "max_order": 2}, attribute="both")
    assert ex_x.feature_names == ["x0", "x1", "x2", "x3"] and ex_y.feature_names == ["y0", "y1"]
    assert np.isclose(ex_x.values.sum(), ex_y.values.sum(), rtol=1e-12)  # both sum to the same HSIC
    full = kx.stats.hsic_interactions(X, Y, interactions={"index": "Moebius", "max_order": 2}).interaction_values(0)
    top = kx.stats.hsic_interactions(X, Y, interactions={"index": "Moebius", "max_order": 2, "top_k": 1})
    pairs = {T: val for T, val in top.interaction_values(0).items() if len(T) == 2}
    best = max((T for T in full if len(T) == 2), key=lambda T: abs(full[T]))
    assert pairs == {best: full[best]}


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"interactions": {"index": "nope"}}, r"interactions\['index'\]"),
        ({"interactions": {"index": "SII", "max_order": 0}}, r"interactions\['max_order'\]"),
        ({"interactions": {"index": "SII", "max_order": 5}}, r"interactions\['max_order'\]"),
        ({"interactions": {"index": "SII", "top_k": 0}}, r"interactions\['top_k'\]"),
        ({"interactions": "sii"}, "interactions must be a mapping"),
        ({"interactions": {"index": "SII"}, "attribute": "z"}, "attribute"),
        ({"interactions": {"index": "SII"}, "estimator": "fast"}, "estimator"),
    ],
)
def test_hsic_interactions_bad_input(hsic_data, kwargs, match):
    X, Y = hsic_data
    with pytest.raises((ValueError, TypeError), match=match):
        kx.stats.hsic_interactions(X, Y, **kwargs)


# -- OAK ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module", params=[2, 4], ids=["Q2", "Q4"])
def oak(request):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(36, 4))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2] + X[:, 0] * X[:, 2] * X[:, 3]
    gp = kx.gp.OAKRegressor(max_interaction_order=request.param, max_iter=5).fit(X, y)
    return gp, X


def _anova_game(gp, x):
    """v(S) = sum_{T subset S} f_T(x) from the model's own components (f_empty = the constant)."""
    d = x.shape[0]
    comps = {}
    for m in range(2**d):
        T = [j for j in range(d) if m >> j & 1]
        comps[m] = float(gp.component(T, x[None, :])[0])
    return lambda S: sum(val for m, val in comps.items() if all(S[j] for j in range(d) if m >> j & 1))


def _hybrid_game(gp, x, B, w):
    return lambda S: float(w @ gp.predict(np.where(S[None, :], x[None, :], B)))


@pytest.mark.parametrize("game", ["anova", "interventional"])
def test_oak_local_interactions_against_enumeration(oak, game):
    gp, X = oak
    d = X.shape[1]
    x = X[:2] + 0.3
    if game == "anova":
        explainer = kx.gp.OAKExplainer(gp)
        vs = [_anova_game(gp, xi) for xi in x]
    else:
        w = np.random.default_rng(1).uniform(size=5)
        w /= w.sum()
        explainer = kx.gp.OAKExplainer(gp, X[:5], background_weights=w)
        vs = [_hybrid_game(gp, xi, X[:5], w) for xi in x]
    tables = [_table(v, d) for v in vs]
    plain = explainer.explain(x)
    for index, k in INDEX_CASES + [("STII", 3), ("FSII", 3), ("SII", 4)]:
        ex = explainer.explain(x, interactions={"index": index, "max_order": k})
        assert isinstance(ex, kx.InteractionExplanation) and ex.game == game
        for i, vt in enumerate(tables):
            scale = float(np.abs(vt).max())
            got = ex.interaction_values(i)
            _assert_close(got, _reference(vt, d, index, k), scale, f"OAK {game} {index} k={k} row {i}")
            assert abs(ex.v_full[i] - vt[-1]) <= TOL * scale
            if index in ("SV", "k-SII", "STII", "FSII", "Moebius"):
                assert abs(got[()] - vt[0]) <= TOL * scale
        if index == "BV":
            ref = [_reference(vt, d, "BV", 1) for vt in tables]
            np.testing.assert_allclose(ex.values, [[r[(j,)] for j in range(d)] for r in ref], rtol=0, atol=1e-10)
        else:
            np.testing.assert_allclose(ex.values, plain.values, rtol=0, atol=1e-12)
        if index in ("SV", "k-SII", "STII", "FSII") or (index == "Moebius" and k == d):
            assert ex.efficiency_error < 1e-10


def test_oak_anova_moebius_are_the_components(oak):
    """The Möbius coefficients of the functional-ANOVA game are the fitted components f_T(x)."""
    gp, X = oak
    ex = gp.explain(X[:3], interactions={"index": "Moebius", "max_order": 4})
    for i in range(3):
        got = ex.interaction_values(i)
        for T, val in got.items():
            ref = gp.component(list(T), X[i : i + 1])[0]
            assert abs(val - ref) <= 1e-12 * max(1.0, abs(ref)), T
        if gp.max_order_ < 4:
            assert all(got[T] == 0.0 for T in got if len(T) > gp.max_order_)


def _variance_game(gp):
    """v(S) = sum_{T subset S} Var f_T with Var f_T = y_std^2 sigma_|T|^4 alpha' (prod_{j in T} Gamma_j) alpha."""
    S, ls, a = gp.support_, gp._ls, gp.alpha_
    d = S.shape[1]
    gam = [b.gamma(S[:, j], S[:, j], ls[j]) for j, b in enumerate(gp.bases_)]
    var = {}
    for m in range(1, 2**d):
        T = [j for j in range(d) if m >> j & 1]
        if len(T) > gp.max_order_:
            continue
        G = np.prod([gam[j] for j in T], axis=0)
        var[m] = gp.y_std_**2 * gp.order_variances_[len(T)] ** 2 * (a @ G @ a)
    return lambda Sm: sum(val for m, val in var.items() if all(Sm[j] for j in range(d) if m >> j & 1))


@pytest.mark.parametrize("measure", ["gaussian", "empirical"])
def test_oak_global_interactions_against_enumeration(measure):
    rng = np.random.default_rng(6)
    X = rng.normal(size=(30, 4))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2] + X[:, 0] * X[:, 2] * X[:, 3]
    gp = kx.gp.OAKRegressor(max_interaction_order=3, max_iter=5, input_measure=measure).fit(X, y)
    d = 4
    vt = _table(_variance_game(gp), d)
    scale = float(np.abs(vt).max())
    gi = gp.global_importance()
    assert abs(vt[-1] - gi.total) <= 1e-10 * scale
    for index, k in INDEX_CASES:
        ex = gp.global_interactions({"index": index, "max_order": k})
        assert ex.game == "variance" and len(ex) == 1
        got = ex.interaction_values(0)
        _assert_close(got, _reference(vt, d, index, k), scale, f"OAK variance {measure} {index} k={k}")
        if index != "BV":
            np.testing.assert_allclose(ex.values[0], gi.values, rtol=0, atol=1e-12 * scale)
        if index == "Moebius":  # the Möbius coefficients are the component variances, summed by order
            cv = gi.info["component_variance"]
            for q in range(1, d + 1):
                by_order = sum(v for T, v in got.items() if len(T) == q)
                assert abs(by_order - (cv[q] if q < len(cv) else 0.0)) <= 1e-10 * scale


def test_oak_interactions_bad_input(oak):
    gp, X = oak
    explainer = kx.gp.OAKExplainer(gp)
    with pytest.raises(ValueError, match=r"interactions\['index'\]"):
        explainer.explain(X[:2], interactions={"index": "Shapley-Taylor"})
    with pytest.raises(ValueError, match=r"interactions\['max_order'\]"):
        explainer.explain(X[:2], interactions={"index": "SII", "max_order": 5})
    with pytest.raises(ValueError, match=r"interactions\['max_order'\]"):
        gp.global_interactions({"index": "SII", "max_order": 0})
    with pytest.raises(ValueError, match=r"interactions\['top_k'\]"):
        explainer.explain(X[:2], interactions={"index": "SII", "top_k": -1})
    with pytest.raises(ValueError, match="uncertainty"):
        explainer.explain(X[:2], interactions={"index": "SII"}, uncertainty=True)
    with pytest.raises(ValueError, match="interactions"):
        explainer.explain(X[:2], interactions=True)
    with pytest.raises(TypeError, match="interactions must be a mapping"):
        gp.global_interactions("sii")
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        kx.gp.OAKRegressor().global_interactions({"index": "SII"})


def test_oak_interactions_selection(oak):
    gp, X = oak
    full = gp.explain(X[:2], interactions={"index": "k-SII", "max_order": 3})
    top = gp.explain(X[:2], interactions={"index": "k-SII", "max_order": 3, "top_k": 2})
    assert top.sparse and abs(top.efficiency_error - full.efficiency_error) < 1e-12
    for i in range(2):
        f, s = full.interaction_values(i), top.interaction_values(i)
        for t in (1, 2, 3):
            kept = {T: v for T, v in s.items() if len(T) == t}
            best = sorted((T for T in f if len(T) == t), key=lambda T: -abs(f[T]))[:2]
            assert set(kept) == set(best) and all(kept[T] == f[T] for T in kept)


@pytest.mark.parametrize("absent", [False, True])
def test_oak_compiled_and_numpy_routes_agree(absent):
    """The compiled loop and the vectorised numpy recursion give the same interactions (signs, zeros)."""
    from kexplain.gp._interactions import _compiled, additive_interactions
    from kexplain.shapley.higher_order import INDICES

    if _compiled() is None:
        pytest.skip("numba is not installed: only the numpy route runs")
    rng = np.random.default_rng(8)
    d, r = 6, 7
    z = rng.uniform(-1.5, 1.5, (1, r, d))
    z[0, 2, 3] = 0.0
    b = rng.uniform(-1.0, 1.0, (1, r, d)) if absent else None
    c = rng.normal(size=(r, 2))
    w = np.array([0.3, 1.0, 0.7, 0.4, 0.2])  # Q = 4 < d
    for index in INDICES:
        k = 1 if index in ("SV", "BV") else 3
        fast = additive_interactions(z, b, c, w, index, k)
        slow = additive_interactions(z, b, c, w, index, k, backend="numpy")
        scale = max(float(np.abs(slow[t]).max()) for t in slow)
        for t in slow:
            np.testing.assert_allclose(fast[t], slow[t], rtol=0, atol=1e-13 * scale, err_msg=f"{index} t={t}")


def test_to_shapiq_from_oak_and_hsic(oak, hsic_data):
    shapiq = pytest.importorskip("shapiq")
    gp, X = oak
    X2, Y2 = hsic_data
    results = [
        gp.explain(X[:2], interactions={"index": "k-SII", "max_order": 2}),
        kx.gp.OAKExplainer(gp, X[:4]).explain(X[:2], interactions={"index": "FSII", "max_order": 3}),
        gp.global_interactions({"index": "Moebius", "max_order": 4}),
        kx.stats.hsic_interactions(X2, Y2, interactions={"index": "STII", "max_order": 2}),
    ]
    for ex in results:
        row = len(ex) - 1
        iv = ex.to_shapiq(row)
        assert isinstance(iv, shapiq.InteractionValues)
        assert (iv.index, iv.max_order, iv.n_players) == (ex.interaction_index, ex.max_order, 4)
        for T, val in ex.interaction_values(row).items():
            assert iv[T] == pytest.approx(val, abs=1e-14)

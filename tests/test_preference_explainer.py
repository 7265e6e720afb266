"""PREF-SHAP (kexplain.preference.explainer): every game against brute force over hybrid duels.

The brute force here is written plainly: the game value of a coalition S is the model's logit
averaged over hybrid duels (kept features from the explained duel, the others from background
rows, drawn independently for the left item, the right item and the context), and the Shapley
values and interaction indices come from the textbook sums over all coalitions.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from kexplain import ProductKernelExplainer
from kexplain.kernels import RBF, Laplacian, ProductKernel
from kexplain.models import KernelExpansion
from kexplain.preference import PreferenceExpansion
from kexplain.preference.explainer import PrefShapExplainer

D_ITEM, D_CTX, M, NB, NC, N = 3, 2, 5, 4, 3, 3


def _setup(kind: str, context: bool, seed: int = 0):
    rng = np.random.default_rng(seed)
    L, R = rng.normal(size=(M, D_ITEM)), rng.normal(size=(M, D_ITEM))
    k = ProductKernel([RBF(1.3), Laplacian(0.8), RBF(0.7)])
    kw = {}
    if context:
        kw = dict(context=rng.normal(size=(M, D_CTX)), context_kernel=ProductKernel([RBF(0.9), Laplacian(1.5)]))
    pe = PreferenceExpansion(L, R, rng.normal(size=M), k, kind=kind, **kw)
    Z, U = rng.normal(size=(NB, D_ITEM)), rng.normal(size=(NC, D_CTX))
    Xl, Xr = rng.normal(size=(N, D_ITEM)), rng.normal(size=(N, D_ITEM))
    C = rng.normal(size=(N, D_CTX)) if context else None
    return pe, Z, U, Xl, Xr, C


def _hybrid_value(pe, level, Z, U, xl, xr, c, S):
    """v(S): the logit averaged over every hybrid duel (independent background rows per side)."""
    d = D_ITEM
    items_out = level in ("item", "joint")
    ctx_out = level in ("context", "joint")
    S_item = [j for j in S if j < d] if items_out else []
    S_ctx = [j - (d if items_out else 0) for j in S if not items_out or j >= d] if ctx_out else []
    # every combination (left background row, right background row, context background row)
    b, b2, bc = np.meshgrid(
        np.arange(NB) if items_out else [0], np.arange(NB) if items_out else [0], np.arange(NC) if ctx_out else [0]
    )
    b, b2, bc = b.ravel(), b2.ravel(), bc.ravel()
    left, right = np.tile(xl, (b.size, 1)), np.tile(xr, (b.size, 1))
    if items_out:
        left, right = Z[b], Z[b2]
        left[:, S_item], right[:, S_item] = xl[S_item], xr[S_item]
    u = None if c is None else np.tile(c, (b.size, 1))
    if ctx_out:
        u = U[bc]
        u[:, S_ctx] = c[S_ctx]
    return float(pe.decision_function(left, right, u).mean())


def _brute_force(pe, level, Z, U, Xl, Xr, C, n_players, interactions=False, index="sii"):
    """Shapley values (and SII or STII interaction indices) by the textbook sums over all coalitions."""
    out = np.zeros((len(Xl), n_players))
    inter = np.zeros((len(Xl), n_players, n_players))
    base = np.zeros(len(Xl))
    fact = math.factorial
    for n in range(len(Xl)):
        c = None if C is None else C[n]
        cache = {}

        def v(S, cache=cache, xl=Xl[n], xr=Xr[n], c=c):
            key = tuple(sorted(S))
            if key not in cache:
                cache[key] = _hybrid_value(pe, level, Z, U, xl, xr, c, list(key))
            return cache[key]

        base[n] = v(())
        for j in range(n_players):
            others = [i for i in range(n_players) if i != j]
            for s in range(n_players):
                for T in itertools.combinations(others, s):
                    w = fact(s) * fact(n_players - s - 1) / fact(n_players)
                    out[n, j] += w * (v(T + (j,)) - v(T))
        if interactions:
            for j, k in itertools.combinations(range(n_players), 2):
                others = [i for i in range(n_players) if i not in (j, k)]
                for s in range(n_players - 1):
                    for T in itertools.combinations(others, s):
                        if index == "sii":
                            w = fact(s) * fact(n_players - s - 2) / fact(n_players - 1)
                        else:  # Shapley-Taylor of order 2: (2 / d) / C(d - 1, s)
                            w = 2.0 / n_players / math.comb(n_players - 1, s)
                        delta = v(T + (j, k)) - v(T + (j,)) - v(T + (k,)) + v(T)
                        inter[n, j, k] += w * delta
                        inter[n, k, j] += w * delta
    return out, base, inter


def _players(level):
    return {"item": D_ITEM, "context": D_CTX, "joint": D_ITEM + D_CTX}[level]


def _explainer(pe, level, Z, U, **kw):
    if level in ("item", "joint"):
        kw["background"] = Z
    if level in ("context", "joint"):
        kw["context_background"] = U
    return PrefShapExplainer(pe, level=level, **kw)


@pytest.mark.parametrize("route", ["subsets", "quadrature"])
@pytest.mark.parametrize("kind", ["general", "utility"])
@pytest.mark.parametrize(("level", "context"), [("item", False), ("item", True), ("context", True), ("joint", True)])
def test_interventional_games_equal_enumeration_over_hybrid_duels(level, context, kind, route):
    pe, Z, U, Xl, Xr, C = _setup(kind, context)
    ex = _explainer(pe, level, Z, U, route=route).explain(Xl, Xr, C)
    phi, base, _ = _brute_force(pe, level, Z, U, Xl, Xr, C, _players(level))
    assert ex.info["route"] == route
    assert np.abs(ex.values - phi).max() < 1e-10
    assert np.abs(ex.base_values - base).max() < 1e-10
    g = pe.decision_function(Xl, Xr, C)
    assert np.abs(ex.base_values + ex.values.sum(axis=1) - g).max() < 1e-10
    if level != "context":  # v(empty) = 0: the values sum to the logit
        assert np.abs(ex.base_values).max() < 1e-12


@pytest.mark.parametrize("index", ["sii", "stii"])
@pytest.mark.parametrize("route", ["subsets", "quadrature"])
@pytest.mark.parametrize(("level", "context"), [("item", False), ("item", True), ("joint", True)])
def test_interactions_equal_enumeration(level, context, route, index):
    pe, Z, U, Xl, Xr, C = _setup("general", context, seed=3)
    C2 = None if C is None else C[:2]
    ex = _explainer(pe, level, Z, U, route=route).explain(Xl[:2], Xr[:2], C2, interactions=index)
    phi, _, inter = _brute_force(pe, level, Z, U, Xl[:2], Xr[:2], C2, _players(level), True, index)
    D = _players(level)
    off = ~np.eye(D, dtype=bool)
    assert np.abs(ex.interactions[:, off] - inter[:, off] / 2).max() < 1e-10
    assert np.abs(ex.interactions.sum(axis=2) - phi).max() < 1e-10


@pytest.mark.parametrize(("level", "context"), [("item", False), ("item", True), ("context", True), ("joint", True)])
def test_skew_symmetry(level, context):
    pe, Z, U, Xl, Xr, C = _setup("general", context, seed=1)
    explainer = _explainer(pe, level, Z, U)
    a, b = explainer.explain(Xl, Xr, C), explainer.explain(Xr, Xl, C)
    assert np.abs(a.values + b.values).max() < 1e-12
    assert np.abs(a.base_values + b.base_values).max() < 1e-12


def test_utility_model_equals_difference_of_shap_values_of_the_utility():
    pe, Z, _, Xl, Xr, _ = _setup("utility", False, seed=2)
    ex = PrefShapExplainer(pe, Z).explain(Xl, Xr)
    # g = f(x^l) - f(x^r) with f = sum_i coef_i (k(., L_i) - k(., R_i))
    f = KernelExpansion(np.vstack([pe.left, pe.right]), np.concatenate([pe.coef, -pe.coef]), pe.item_kernel)
    shap_f = ProductKernelExplainer(f, Z)
    diff = shap_f.explain(Xl).values - shap_f.explain(Xr).values
    assert np.abs(ex.values - diff).max() < 1e-12


def _dense_observational(pe, pool, eta, Xl, Xr):
    """Corrected Proposition 7.3.3, written out densely: v(S) for every coalition, then enumeration."""
    d, n, m = D_ITEM, pool.shape[0], pe.n_support
    F = lambda A, B: pe.item_kernel.feature_values(A, B)  # noqa: E731
    out = np.zeros((len(Xl), d))
    fact = math.factorial

    def G(S, u, x):
        Sc = [j for j in range(d) if j not in S]
        kS = np.prod(F(u, x)[:, :, S], axis=-1)  # (|u|, 1)
        if not Sc:
            return kS
        if not S:
            return np.prod(F(u, pool), axis=-1).mean(axis=1, keepdims=True)
        K = np.prod(F(pool, pool)[:, :, S], axis=-1) + n * eta * np.eye(n)
        beta = np.linalg.solve(K, np.prod(F(pool, x)[:, :, S], axis=-1))
        return kS * (np.prod(F(u, pool)[:, :, Sc], axis=-1) @ beta)

    for q in range(len(Xl)):
        xl, xr = Xl[q : q + 1], Xr[q : q + 1]

        def v(S, xl=xl, xr=xr):
            S = list(S)
            a = G(S, pe.left, xl) * G(S, pe.right, xr) - G(S, pe.right, xl) * G(S, pe.left, xr)
            return float(pe.coef @ a[:, 0])

        for j in range(d):
            others = [i for i in range(d) if i != j]
            for s in range(d):
                for T in itertools.combinations(others, s):
                    w = fact(s) * fact(d - s - 1) / fact(d)
                    out[q, j] += w * (v(T + (j,)) - v(T))
    assert m == len(pe.coef)
    return out


def test_observational_item_game_equals_dense_proposition_7_3_3():
    pe, _, _, Xl, Xr, _ = _setup("general", False, seed=4)
    pool = np.random.default_rng(5).normal(size=(12, D_ITEM))
    ex = PrefShapExplainer(pe, pool, game="observational", cme_regularization=0.05).explain(Xl, Xr)
    dense = _dense_observational(pe, pool, 0.05, Xl, Xr)
    assert ex.info["route"] == "enumeration"
    assert np.abs(ex.values - dense).max() < 1e-10
    assert np.abs(ex.values.sum(axis=1) - pe.decision_function(Xl, Xr)).max() < 1e-10
    assert np.abs(ex.base_values).max() < 1e-12


def test_observational_close_to_interventional_for_independent_features():
    rng = np.random.default_rng(6)
    pe = PreferenceExpansion(
        rng.normal(size=(8, 3)), rng.normal(size=(8, 3)), rng.normal(size=8), RBF(np.array([1.0, 1.5, 2.0]))
    )
    pool = rng.normal(size=(200, 3))  # independent features: conditioning changes nothing
    Xl, Xr = rng.normal(size=(4, 3)) * 0.7, rng.normal(size=(4, 3)) * 0.7
    obs = PrefShapExplainer(pe, pool, game="observational", cme_regularization=1e-3).explain(Xl, Xr)
    itv = PrefShapExplainer(pe, pool).explain(Xl, Xr)
    scale = np.abs(itv.values).max()
    assert np.abs(obs.values - itv.values).max() < 0.1 * scale


def test_observational_context_game_sums_to_logit_and_is_skew_symmetric():
    pe, _, U, Xl, Xr, C = _setup("general", True, seed=7)
    explainer = PrefShapExplainer(pe, level="context", game="observational", context_background=U)
    a, b = explainer.explain(Xl, Xr, C), explainer.explain(Xr, Xl, C)
    g = pe.decision_function(Xl, Xr, C)
    assert np.abs(a.base_values + a.values.sum(axis=1) - g).max() < 1e-12
    assert np.abs(a.values + b.values).max() < 1e-12
    # v(empty) is the logit averaged over the context pool, as in the interventional game
    itv = PrefShapExplainer(pe, level="context", context_background=U).explain(Xl, Xr, C)
    assert np.abs(a.base_values - itv.base_values).max() < 1e-12


def test_sampled_observational_game_beyond_twelve_features():
    rng = np.random.default_rng(8)
    d = 13
    pe = PreferenceExpansion(rng.normal(size=(3, d)), rng.normal(size=(3, d)), rng.normal(size=3), RBF(3.0))
    explainer = PrefShapExplainer(pe, rng.normal(size=(10, d)), game="observational")
    Xl, Xr = rng.normal(size=(2, d)), rng.normal(size=(2, d))
    ex = explainer.explain(Xl, Xr, budget=200, random_state=0)
    assert ex.info["route"] == "sampling" and ex.standard_errors is not None
    assert np.all(np.isfinite(ex.standard_errors))
    assert np.abs(ex.values.sum(axis=1) - pe.decision_function(Xl, Xr)).max() < 1e-10
    again = explainer.explain(Xl, Xr, budget=200, random_state=0, n_jobs=2)
    assert np.abs(ex.values - again.values).max() < 1e-12  # the same coalitions in every block
    with pytest.raises(ValueError, match="interactions need an exact game"):
        explainer.explain(Xl, Xr, interactions=True)


@pytest.mark.parametrize("value", ["interventional", "observational"])
def test_n_jobs_gives_the_same_values(value):
    pe, Z, _, Xl, Xr, C = _setup("general", True, seed=9)
    explainer = PrefShapExplainer(pe, Z, game=value)
    one, two = explainer.explain(Xl, Xr, C, n_jobs=1), explainer.explain(Xl, Xr, C, n_jobs=2)
    # blocks of different sizes: the same numbers up to rounding
    assert np.abs(one.values - two.values).max() < 1e-13
    assert np.abs(one.base_values - two.base_values).max() < 1e-13
    assert np.abs(one.base_values + one.values.sum(axis=1) - pe.decision_function(Xl, Xr, C)).max() < 1e-12


def test_outcomes_orient_duels_winner_vs_loser():
    pe, Z, _, Xl, Xr, _ = _setup("general", False, seed=10)
    explainer = PrefShapExplainer(pe, Z)
    plain = explainer.explain(Xl, Xr)
    y = np.array([1, 0, 1])
    won = explainer.explain(Xl, Xr, y=y)
    s = np.array([1.0, -1.0, 1.0])
    assert np.allclose(won.values, plain.values * s[:, None], atol=1e-15)
    assert np.allclose(won.data, (Xl - Xr) * s[:, None])
    assert np.allclose(plain.data, Xl - Xr)
    assert np.array_equal(explainer.explain(Xl, Xr, y=[True, False, True]).values, won.values)
    with pytest.raises(ValueError, match="y must be"):
        explainer.explain(Xl, Xr, y=[2, 0, 1])
    with pytest.raises(ValueError, match="one outcome per duel"):
        explainer.explain(Xl, Xr, y=[1, 0])


def test_default_background_and_names():
    pe, _, _, Xl, Xr, C = _setup("general", True, seed=11)
    ex = PrefShapExplainer(pe, level="joint").explain(Xl, Xr, C)
    assert ex.feature_names == ["x0", "x1", "x2", "c0", "c1"]
    assert ex.game == "preferential joint (interventional)" and "logit" in ex.output
    assert np.abs(ex.values.sum(axis=1) - pe.decision_function(Xl, Xr, C)).max() < 1e-10
    assert np.array_equal(PrefShapExplainer(pe, level="joint")(Xl, Xr, C).values, ex.values)  # __call__
    named = PrefShapExplainer(pe, level="context", feature_names=["surface", "year"]).explain(Xl, Xr, C)
    assert named.feature_names == ["surface", "year"] and np.allclose(named.data, C)


def test_fitted_preference_classifier_is_explained():
    from kexplain.preference import PreferenceClassifier

    rng = np.random.default_rng(12)
    L, R = rng.normal(size=(120, 3)), rng.normal(size=(120, 3))
    y = (L[:, 0] > R[:, 0]).astype(int)
    model = PreferenceClassifier(lengthscale=1.0, C=10.0, n_components=20, random_state=0).fit(L, R, y)
    ex = PrefShapExplainer(model, L[:15]).explain(L[:4], R[:4])
    assert np.abs(ex.values.sum(axis=1) - model.decision_function(L[:4], R[:4])).max() < 1e-10
    assert np.all(np.abs(ex.values[:, 0]) >= np.abs(ex.values[:, 1:]).max(axis=1))


def test_bad_input():
    pe, Z, U, Xl, Xr, C = _setup("general", True, seed=13)
    plain, *_ = _setup("general", False, seed=13)
    explainer = PrefShapExplainer(pe, Z)
    with pytest.raises(ValueError, match="features"):
        explainer.explain(Xl, Xr[:, :2], C)
    with pytest.raises(ValueError, match="context is required"):
        explainer.explain(Xl, Xr)
    with pytest.raises(ValueError, match="fitted without a context"):
        PrefShapExplainer(plain, Z).explain(Xl, Xr, C)
    bad = Xl.copy()
    bad[1, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        explainer.explain(bad, Xr, C)
    Zbad = Z.copy()
    Zbad[0, 0] = np.inf
    with pytest.raises(ValueError, match="NaN or infinite"):
        PrefShapExplainer(pe, Zbad)
    with pytest.raises(ValueError, match="level must be one of"):
        PrefShapExplainer(pe, Z, level="items")
    with pytest.raises(ValueError, match="game must be one of"):
        PrefShapExplainer(pe, Z, game="conditional")
    with pytest.warns(FutureWarning, match=r"PrefShapExplainer\(value=\.\.\.\) is deprecated.*game='observational'"):
        old = PrefShapExplainer(pe, Z, value="observational")
    assert old.game == PrefShapExplainer(pe, Z, game="observational").game == "preferential item (observational)"
    with pytest.raises(TypeError, match="both game='observational' and value='observational'"):
        PrefShapExplainer(pe, Z, game="observational", value="observational")
    with pytest.warns(FutureWarning, match="pass cme_regularization=0.05 instead"):
        old_eta = PrefShapExplainer(pe, Z, game="observational", regularization=0.05).explain(Xl, Xr, C)
    new_eta = PrefShapExplainer(pe, Z, game="observational", cme_regularization=0.05).explain(Xl, Xr, C)
    np.testing.assert_array_equal(old_eta.values, new_eta.values)
    with pytest.raises(TypeError, match="both cme_regularization=0.05 and regularization=0.05"):
        PrefShapExplainer(pe, Z, game="observational", cme_regularization=0.05, regularization=0.05)
    with pytest.raises(ValueError, match="fitted without a context"):
        PrefShapExplainer(plain, level="context")
    with pytest.raises(ValueError, match="observational"):
        PrefShapExplainer(pe, Z, level="joint", game="observational")
    with pytest.raises(ValueError, match="context_background"):
        PrefShapExplainer(pe, Z, level="context")
    with pytest.raises(ValueError, match="features"):
        PrefShapExplainer(pe, Z[:, :2])
    with pytest.raises(ValueError, match="feature_names"):
        PrefShapExplainer(pe, Z, feature_names=["a", "b"])
    with pytest.raises(ValueError, match="route"):
        PrefShapExplainer(pe, Z, route="fast")
    with pytest.raises(ValueError, match="budget"):
        explainer.explain(Xl, Xr, C, budget=100)
    with pytest.raises(TypeError, match="PreferenceExpansion"):
        PrefShapExplainer(object())


@pytest.mark.slow  # shap and matplotlib imports
def test_grouped_and_global_plots():
    pytest.importorskip("shap")
    plt = pytest.importorskip("matplotlib.pyplot")
    from kexplain.preference.plots import duel_groups, group_importance, plot_global, plot_grouped

    pe, Z, _, Xl, Xr, _ = _setup("general", False, seed=14)
    rng = np.random.default_rng(14)
    Xl, Xr = rng.normal(size=(12, D_ITEM)), rng.normal(size=(12, D_ITEM))
    ex = PrefShapExplainer(pe, Z).explain(Xl, Xr, y=rng.integers(2, size=12))
    groups = duel_groups(np.array(list("ABCA" * 3)), np.array(list("BACC" * 3)))
    assert set(groups.tolist()) == {"A vs B", "A vs C", "C vs C"}
    labels, imp = group_importance(ex, groups)
    assert labels == ["A vs B", "A vs C", "C vs C"] and imp.shape == (3, D_ITEM)
    assert np.allclose(imp[0], np.abs(ex.values[groups == "A vs B"]).mean(axis=0))
    for kind in ("bar", "beeswarm"):
        plt.close(plot_grouped(ex, groups, kind=kind))
        plt.close(plot_global(ex, kind=kind))
    with pytest.raises(ValueError, match="kind"):
        plot_grouped(ex, groups, kind="pie")
    with pytest.raises(ValueError, match="one label per explained duel"):
        plot_grouped(ex, groups[:3])


def test_many_features_take_the_quadrature_route_with_a_capped_default_background():
    rng = np.random.default_rng(15)
    d = 13
    pe = PreferenceExpansion(rng.normal(size=(30, d)), rng.normal(size=(30, d)), rng.normal(size=30), RBF(3.0))
    explainer = PrefShapExplainer(pe)
    assert explainer.route == "quadrature" and explainer._interventional.wz.shape == (32,)
    Xl, Xr = rng.normal(size=(2, d)), rng.normal(size=(2, d))
    ex = explainer.explain(Xl, Xr)
    assert np.abs(ex.values.sum(axis=1) - pe.decision_function(Xl, Xr)).max() < 1e-10
    assert np.abs(ex.base_values).max() < 1e-12


@pytest.mark.parametrize("level", ["item", "context", "joint"])
def test_duels_are_one_input_and_give_the_values_of_the_shorthand(level):
    """explain(X) keeps the explainer contract's shape: X is a Duels (or a DuelData); the
    shorthand explain(X_left, X_right, context) gives the same values, bit for bit."""
    import inspect

    from kexplain.base import Explainer
    from kexplain.preference import DuelData, Duels

    pe, Z, U, Xl, Xr, C = _setup("general", True, seed=5)
    explainer = PrefShapExplainer(pe, None if level == "context" else Z, level=level, context_background=None)
    old = explainer.explain(Xl, Xr, C, interactions=True)
    new = explainer.explain(Duels(Xl, Xr, C), interactions=True)
    np.testing.assert_array_equal(new.values, old.values)
    np.testing.assert_array_equal(new.interactions, old.interactions)
    y = np.where(np.arange(len(Xl)) % 2 == 0, 1, 0)
    data = DuelData(Xl, Xr, y, context=C)
    np.testing.assert_array_equal(explainer(data, y=y).values, explainer.explain(Xl, Xr, C, y=y).values)
    params = list(inspect.signature(PrefShapExplainer.explain).parameters)
    assert params[:2] == list(inspect.signature(Explainer.explain).parameters)[:2] == ["self", "X"]
    with pytest.raises(TypeError, match="inside Duels"):
        explainer.explain(Duels(Xl, Xr), Xr)
    with pytest.raises(TypeError, match="X must be Duels"):
        explainer.explain(Xl)

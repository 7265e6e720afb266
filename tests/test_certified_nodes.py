"""Certified node counts of the quadrature engine (issue 26): fewer Gauss-Legendre nodes only where
a bound certifies them.

``quadrature.certified_nodes`` bounds the truncation error of every leave-one-out integral of a
pair of positive factor rows by (32/15) exp(kappa_rho S) rho^(-2m) / (1 - rho^-2), S the pair's
spread sum_k |a_k - b_k| / max(a_k, b_k) and kappa_rho = max(c_rho, 1 + log(c_rho + 1/2)).
Checked here: kappa_rho against the supremum of h_rho(u) / u in 50-digit arithmetic; the bound
against an extended-precision reference (mpmath, the integrals of the multiplied-out polynomials)
for every node count, on random and adversarial factors (wide ratios included) at d 2-60; the
engine's certified values against brute-force enumeration of coalitions and against the exact rule
(1e-14 relative) where fewer nodes are actually used; per-pair counts (values bit-identical
however points and rows are split); the fallbacks and ``nodes="exact"`` bit for bit; both compiled
kernel modes (fewer than 12 nodes and more) with node counts below ceil(d/2) against the numpy pass.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from kexplain.shapley import _product_nodes
from kexplain.shapley import product as _engine
from kexplain.shapley.product import (
    _block_nodes,
    _numba_kernel,
    _point_counts_numpy,
    _weighted_loo_integrals,
    product_game_block,
    solve_product_game,
)
from kexplain.shapley.quadrature import (
    _RHO,
    _RHO_C,
    _RHO_CONST,
    _RHO_SPREAD,
    LADDER_FROM,
    _ladder_sizes,
    certified_nodes,
    gauss_legendre_01,
    node_limits,
    nodes_for_degree,
    spread_limit,
)

try:
    import numba  # noqa: F401

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover
    HAVE_NUMBA = False

#: the engine's default, before the fixture below lowers it
_DEFAULT_CERTIFY_FROM = _engine.CERTIFY_FROM_NODES

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.skipif(not HAVE_NUMBA, reason="numba not installed"))]


@pytest.fixture(autouse=True)
def _certify_at_every_d(monkeypatch):
    """Seek certified counts at every d here (the engine does from 12 exact nodes on), so the small
    cases these tests can enumerate exercise fewer nodes; the default is tested on its own below."""
    # the constant's one home (read at call time there; ``product`` re-exports it)
    from kexplain.shapley import _product_nodes

    monkeypatch.setattr(_product_nodes, "CERTIFY_FROM_NODES", 1)


def _spread(a, b):
    return float(np.sum(np.abs(a - b) / np.maximum(a, b)))


def _bound(s, m):
    """The theorem's bound on the relative error with m nodes, minimised over the rho grid."""
    return float(np.exp(np.min(_RHO_CONST + _RHO_SPREAD * s - 2.0 * m * np.log(_RHO))))


def _mp_integrals(a, b):
    """int_0^1 prod_{k != j} (b_k + t (a_k - b_k)) dt for every j, in 40-digit arithmetic."""
    mp = pytest.importorskip("mpmath")
    with mp.workdps(40):
        out = []
        for j in range(len(a)):
            poly = [mp.mpf(1)]
            for k in range(len(a)):
                if k != j:
                    bk, dk = mp.mpf(float(b[k])), mp.mpf(float(a[k])) - mp.mpf(float(b[k]))
                    new = [mp.mpf(0)] * (len(poly) + 1)
                    for i, cf in enumerate(poly):
                        new[i] += cf * bk
                        new[i + 1] += cf * dk
                    poly = new
            out.append(sum(cf / (i + 1) for i, cf in enumerate(poly)))
        return out


def test_kappa_is_the_supremum_of_h_over_u():
    """kappa_rho = max(c_rho, 1 + log(c_rho + 1/2)) bounds h_rho(u) / u on (0, 1] (checked in 50-digit
    arithmetic on a grid dense near both ends), and is attained there: the bound is not loose."""
    mp = pytest.importorskip("mpmath")
    with mp.workdps(50):
        us = [mp.mpf(10) ** -k for k in range(1, 30, 2)] + [mp.mpf(i) / 64 for i in range(1, 64)]
        us += [1 - mp.mpf(10) ** -k for k in range(2, 30, 3)] + [mp.mpf(1)]
        for i in range(0, len(_RHO), 7):
            c = mp.mpf(float(_RHO_C[i]))
            worst = mp.mpf(0)
            for u in us:
                # h(u) = log M - log L for max = 1, min = 1 - u (the Jensen bound's log L exactly)
                r = 1 - u
                log_l = (r * mp.log(r) / (r - 1) - 1) if r > 0 else mp.mpf(-1)
                h = mp.log((1 + r) / 2 + c * u) - log_l
                worst = max(worst, h / u)
            assert worst <= _RHO_SPREAD[i], (i, float(worst), _RHO_SPREAD[i])
            assert float(worst) >= _RHO_SPREAD[i] * (1 - 1e-9), (i, float(worst), _RHO_SPREAD[i])


def test_node_limits_match_the_bound():
    """The table the engine's pass compares with gives the smallest m whose bound is <= tol, up to
    64 nodes; above, the smallest rung of the ladder (``_ladder_sizes``: ratio 9/8) whose bound is."""
    tol = 2.0**-53
    rng = np.random.default_rng(1)
    for d in (10, 20, 40, 160, 1000):
        exact = nodes_for_degree(d - 1)
        limits = node_limits(d)
        rungs = _ladder_sizes(exact)
        assert limits.shape == (exact - 1,) and np.all(np.diff(limits[:LADDER_FROM]) > 0)
        assert np.all(np.diff(limits) >= 0) and np.all(np.diff(limits[rungs[:-1] - 1]) > 0)
        for s in np.concatenate([rng.uniform(0, 1.2 * spread_limit(d) + 0.1, 200), limits[limits >= 0], [0.0]]):
            m = certified_nodes(s, d)
            assert m in rungs
            if m < exact:
                assert _bound(s, m) <= tol * (1 + 1e-6)
            if 1 < m <= exact:  # the rung below is not certified
                assert _bound(s, int(rungs[np.searchsorted(rungs, m) - 1])) > tol * (1 - 1e-6)


def test_ladder_of_node_counts():
    """Every count up to 64, then rungs at most 9/8 apart up to the exact rule: O(log n) rules."""
    np.testing.assert_array_equal(_ladder_sizes(40), np.arange(1, 41))
    for n in (65, 66, 150, 600, 10_000):
        sizes = _ladder_sizes(n)
        np.testing.assert_array_equal(sizes[:LADDER_FROM], np.arange(1, LADDER_FROM + 1))
        assert sizes[-1] == n and np.all(np.diff(sizes) > 0)
        assert np.all(sizes[LADDER_FROM:] <= np.ceil(sizes[LADDER_FROM - 1 : -1] * 9 / 8))
    assert _ladder_sizes(10_000).size < 110


def _mp_integrals_gauss(a, b):
    """The same integrals by the exact Gauss-Legendre rule (ceil(d/2) nodes, exact for degree d - 2)
    with nodes polished by Newton's method in 50-digit arithmetic, and prefix / suffix products:
    O(d^2) digits-heavy operations instead of the multiplied-out polynomials' O(d^3), for larger d."""
    mp = pytest.importorskip("mpmath")
    d = len(a)
    n = nodes_for_degree(d - 1)
    with mp.workdps(50):
        nodes, weights = [], []
        for t0 in gauss_legendre_01(n)[0]:
            x = mp.mpf(2 * float(t0) - 1)
            for _ in range(8):
                p0, p1 = mp.mpf(1), x  # P_0, P_1, then the recurrence to P_n and P_{n-1}
                for k in range(2, n + 1):
                    p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
                dp = n * (x * p1 - p0) / (x * x - 1) if n > 1 else mp.mpf(1)
                if n == 1:
                    x = mp.mpf(0)
                    break
                x -= p1 / dp
            p0, p1 = mp.mpf(1), x
            for k in range(2, n + 1):
                p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
            dp = n * (x * p1 - p0) / (x * x - 1) if n > 1 else mp.mpf(1)
            nodes.append((x + 1) / 2)
            weights.append(1 / ((1 - x * x) * dp * dp) if n > 1 else mp.mpf(1))
        A = [mp.mpf(float(v)) for v in a]
        B = [mp.mpf(float(v)) for v in b]
        out = [mp.mpf(0)] * d
        for t, w in zip(nodes, weights):
            g = [B[k] + t * (A[k] - B[k]) for k in range(d)]
            pre = [mp.mpf(1)] * (d + 1)
            for k in range(d):
                pre[k + 1] = pre[k] * g[k]
            suf = mp.mpf(1)
            for j in range(d - 1, -1, -1):
                out[j] += w * pre[j] * suf
                suf *= g[j]
        return out


def test_the_two_references_agree():
    """The multiplied-out polynomials and the exact rule in 50 digits give the same integrals."""
    rng = np.random.default_rng(17)
    for d in (1, 2, 5, 12):
        for kind in ("close", "wide"):
            a, b = _case(kind, d, rng)
            for x, y in zip(_mp_integrals(a, b), _mp_integrals_gauss(a, b)):
                assert abs(float((x - y) / x)) < 1e-30


def _case(kind, d, rng):
    if kind == "close":  # RBF-like: ratios exp(small)
        return np.exp(rng.normal(0, 0.05, d)), np.exp(rng.normal(0, 0.05, d))
    if kind == "functional":  # b = 1, wider spread
        return np.exp(-rng.exponential(0.3, d)), np.ones(d)
    if kind == "spread":  # unrelated factors in (0.01, 1): large S, mostly the exact rule
        return rng.uniform(0.01, 1.0, d), rng.uniform(0.01, 1.0, d)
    if kind == "wide":  # ratios up to e^8 both ways: the terms the earlier spread let grow unbounded
        return np.exp(rng.uniform(-8, 0, d)), np.exp(rng.uniform(-8, 0, d))
    if kind == "few-far":  # close factors but for a few far ones (b = 1, a near 0)
        a = np.exp(rng.normal(0, 0.01, d))
        a[rng.choice(d, max(1, d // 8), replace=False)] = 1e-3
        return a, np.ones(d)
    a, b = np.exp(rng.normal(0, 0.01, d)), np.ones(d)  # "outlier": one ratio of 50 among close ones
    a[rng.integers(d)] = 50.0
    return a, b


@pytest.mark.parametrize("kind", ["close", "functional", "spread", "outlier", "wide", "few-far"])
@pytest.mark.parametrize("d", [2, 6, 13, 22, 41, 60])
def test_bound_holds_at_every_node_count(kind, d):
    """Observed relative error <= the bound (plus float64 rounding), for every m up to the exact rule."""
    rng = np.random.default_rng(7 * d + len(kind))
    a, b = _case(kind, d, rng)
    s = _spread(a, b)
    ref = _mp_integrals(a, b) if d <= 22 else _mp_integrals_gauss(a, b)
    for m in range(1, nodes_for_degree(d - 1) + 1):
        t, w = gauss_legendre_01(m)
        g = b + t[:, None] * (a - b)
        for j in range(d):
            q = float(w @ np.prod(np.delete(g, j, axis=1), axis=1))
            err = abs(q - float(ref[j])) / float(ref[j])
            assert err <= _bound(s, m) + 2e-15, (m, j, err, _bound(s, m))


@pytest.mark.parametrize("tol", [1e-3, 1e-8, 1e-12, 2.0**-53])
def test_certified_count_meets_its_tolerance(tol):
    rng = np.random.default_rng(3)
    for d in (12, 20, 30):
        for kind in ("close", "functional", "outlier"):
            a, b = _case(kind, d, rng)
            m = certified_nodes(_spread(a, b), d, tol)
            ref = _mp_integrals(a, b)
            t, w = gauss_legendre_01(m)
            g = b + t[:, None] * (a - b)
            for j in range(d):
                q = float(w @ np.prod(np.delete(g, j, axis=1), axis=1))
                assert abs(q - float(ref[j])) / float(ref[j]) <= tol + 2e-15


def test_certified_nodes_properties():
    exact = nodes_for_degree(999)
    counts = [certified_nodes(s, 1000) for s in np.linspace(0.0, 2000.0, 400)]
    assert counts == sorted(counts) and counts[0] >= 1 and counts[-1] == exact
    assert certified_nodes(2.0, 1000) <= 10  # the usual spread of an RBF model: far below 500
    for bad in (np.inf, np.nan, -1.0):
        assert certified_nodes(bad, 1000) == exact
    for d in (1, 2, 9, 10, 20, 160):
        s = spread_limit(d)
        assert certified_nodes(s * (1 + 1e-9) + 1e-300, d) == nodes_for_degree(d - 1)
    with pytest.raises(ValueError, match="tol"):
        certified_nodes(1.0, 10, tol=0.0)
    with pytest.raises(ValueError, match="d"):
        certified_nodes(1.0, 0)
    for bad_tol in (0.0, 1.0, 2.0, float("nan")):
        with pytest.raises(ValueError, match="tol"):
            node_limits(10, tol=bad_tol)
    with pytest.raises(ValueError, match="d"):
        node_limits(0)


def _enumerate_shapley(a, b, c):
    """phi[p, j, o] by the Shapley formula over all 2^d coalitions (a (p, r, d), b (r, d), c (r, o))."""
    p, r, d = a.shape
    masks = np.array(list(itertools.product([0, 1], repeat=d)), dtype=bool)  # (2^d, d)
    sizes = masks.sum(axis=1)
    weight = np.array([math.factorial(s) * math.factorial(d - s - 1) / math.factorial(d) for s in range(d)])
    phi = np.zeros((p, d, c.shape[1]))
    for pi in range(p):
        v = np.prod(np.where(masks[:, None, :], a[pi][None], b[None]), axis=2) @ c  # (2^d, o)
        for j in range(d):
            out = ~masks[:, j]
            with_j = masks[out].copy()
            with_j[:, j] = True
            idx = with_j @ (1 << np.arange(d - 1, -1, -1))
            phi[pi, j] = weight[sizes[out]] @ (v[idx] - v[out])
    return phi


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("d", "far"), [(12, False), (14, False), (16, False), (16, True)])
def test_certified_equals_enumeration_and_exact_rule(backend, d, far):
    """``far``: one factor per pair 1,000 times below its partner, where the earlier spread
    (sum |a - b| / min(a, b) > 999) gave the exact rule and the present one (about 1.1) certifies 7 of
    8 nodes (efficiency then relative to v(none): v(all) is 1,000 times smaller)."""
    rng = np.random.default_rng(d)
    a = np.exp(rng.normal(0, 0.01, (2, 5, d)))
    b = np.exp(rng.normal(0, 0.01, (5, d)))
    if far:
        a[:, :, 3] = 1e-3 * b[:, 3]
    c = rng.normal(size=(5, 2))
    b2 = np.ascontiguousarray(np.broadcast_to(b, a.shape)).reshape(-1, d)
    assert _block_nodes(a.reshape(-1, d), None, b2) < nodes_for_degree(d - 1)  # fewer nodes really used
    phi, v_full, v_empty = product_game_block(a, b, c, backend=backend)
    phi_exact, vf, ve = product_game_block(a, b, c, backend=backend, nodes="exact")
    scale = np.abs(phi_exact).max()
    assert np.abs(phi - phi_exact).max() <= 1e-14 * scale
    np.testing.assert_array_equal(v_full, vf)
    np.testing.assert_array_equal(v_empty, ve)
    ref = _enumerate_shapley(a, b, c)
    assert np.abs(phi - ref).max() <= 1e-12 * np.abs(ref).max()
    # efficiency to rounding
    scale = max(np.abs(v_full).max(), np.abs(v_empty).max()) if far else np.abs(v_full).max()
    assert np.abs(phi.sum(axis=1) - (v_full - v_empty)).max() <= 1e-13 * scale


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", ["zero", "negative", "wide"])
def test_fallbacks_give_the_exact_rule_bit_for_bit(backend, case):
    rng = np.random.default_rng(5)
    d = 30
    a = np.exp(rng.normal(0, 0.01, (2, 4, d)))
    b = np.ones((4, d))
    c = rng.normal(size=(4, 1))
    if case == "zero":
        a[1, 2, 7] = 0.0
    elif case == "negative":
        b[3, 0] = -0.5
    else:  # unrelated factors: the spread is past the limit, where the certificate is the exact rule
        a = rng.uniform(0.01, 1.0, (2, 4, d))
    got = product_game_block(a, b, c, backend=backend)
    want = product_game_block(a, b, c, backend=backend, n_nodes=nodes_for_degree(d - 1))
    if case == "zero":
        # counts are per point: the point with the zero factor takes the exact rule, bit for bit;
        # the other one its certified count, equal to the exact rule to rounding
        for x, y in zip(got, want):
            np.testing.assert_array_equal(x[1], y[1])
            np.testing.assert_allclose(x[0], y[0], rtol=0, atol=1e-14 * np.abs(y).max())
        from kexplain.shapley import product as engine

        counts = engine._point_nodes(a.reshape(-1, d), None, b, 2, 4)
        assert counts[0] < counts[1] == nodes_for_degree(d - 1)  # point 0 really took fewer nodes
        return
    for x, y in zip(got, want):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("backend", BACKENDS)
def test_exact_switch_is_todays_rule_bit_for_bit(backend):
    import kexplain as kx
    from kexplain.explainers.product_games import FunctionalGame

    rng = np.random.default_rng(0)
    d = 40
    em = kx.KernelExpansion(rng.normal(size=(30, d)), rng.normal(size=30), kx.kernels.RBF(np.sqrt(d / 2)))
    game = FunctionalGame(em, rng.normal(size=(3, d)))
    ex = solve_product_game(game, backend=backend, nodes="exact")
    a, b, c = game.block(slice(0, 3), slice(0, 30))
    phi = product_game_block(a, b, c, backend=backend, n_nodes=nodes_for_degree(d - 1))[0]
    np.testing.assert_array_equal(ex.values, phi)
    ce = solve_product_game(game, backend=backend)
    assert np.abs(ce.values - ex.values).max() <= 1e-14 * np.abs(ex.values).max()
    np.testing.assert_array_equal(ce.v_full, ex.v_full)


def test_rows_form_interventional_certified_equals_exact():
    """The interventional game's rows form (a's rows shared by background rows) in several blocks."""
    import kexplain as kx
    from kexplain.explainers.product_games import BackgroundFactors, InterventionalGame

    rng = np.random.default_rng(2)
    d = 40
    em = kx.KernelExpansion(
        rng.normal(size=(20, d)), rng.normal(size=20), kx.kernels.RBF(np.sqrt(d / 2))
    )  # gamma="scale"
    X, B = rng.normal(size=(3, d)), rng.normal(size=(6, d))
    game = InterventionalGame(em, X, BackgroundFactors(em, B, np.full(6, 1 / 6)))
    a2, ia, b2, _, _ = game.pair_block(slice(0, 3), slice(0, 120))
    assert _block_nodes(a2, ia, b2) < nodes_for_degree(d - 1)
    ce = solve_product_game(game, max_block_bytes=40_000)
    ex = solve_product_game(game, max_block_bytes=40_000, nodes="exact")
    assert np.abs(ce.values - ex.values).max() <= 1e-14 * np.abs(ex.values).max()


def test_bad_nodes_value_is_refused():
    a = np.full((1, 2, 3), 0.5)
    with pytest.raises(ValueError, match=r"nodes must be one of \('certified', 'exact'\)"):
        product_game_block(a, 1.0, np.ones(2), nodes="fast")
    with pytest.raises(ValueError, match="nodes must be one of"):
        solve_product_game(object(), nodes=None)


@pytest.mark.skipif(not HAVE_NUMBA, reason="numba not installed")
def test_compiled_and_numpy_counts_agree():
    """The compiled pass and numpy's give every point the count of its pairs' largest spread."""
    from kexplain.shapley._product_numba import point_node_counts

    rng = np.random.default_rng(4)
    d, p, r = 37, 10, 6
    a = np.exp(rng.normal(0, 1.0, (12, d)) * rng.uniform(0.001, 0.3, (12, 1)))
    b = np.exp(rng.normal(0, 0.05, (3, d)))
    ia = rng.integers(0, 12, p * r)
    a[ia[4], 5] = 0.0  # point 0: a zero factor
    b[2, 7] = -0.5  # every point's pairs 2 and 5: a negative one
    limits = node_limits(d)
    for bb, rows in ((b, ia), (np.abs(b), ia), (np.abs(b), np.where(ia == ia[4], (ia[4] + 1) % 12, ia))):
        got = np.empty(p, dtype=np.int64)
        point_node_counts(a, rows, bb, limits, r, got)
        want = []
        for i in range(p):
            s = []
            for k in range(i * r, i * r + r):
                x, y = a[rows[k]], bb[k % 3]
                s.append(_spread(x, y) if min(x.min(), y.min()) > 0 else np.inf)
            want.append(certified_nodes(max(s), d))
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(_point_counts_numpy(a, rows, bb, limits, p, r), want)
    assert len(set(want)) >= 3 and want[0] < nodes_for_degree(d - 1)


@pytest.mark.skipif(not HAVE_NUMBA, reason="numba not installed")
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, 0.0, -0.0, -1e-300])
@pytest.mark.parametrize("d", [33, 64, 203])
def test_compiled_counts_send_a_point_with_a_bad_factor_to_the_exact_rule(d, bad):
    """The compiled pass counts factors <= 0 (a sum, so that its loop vectorises) and relies on S
    turning NaN for NaN and infinite ones: whatever the feature's place in the vector lanes or
    the remainder, only the point holding such a factor takes the exact rule, as numpy's pass
    and the per-pair reference say."""
    from kexplain.shapley._product_numba import point_node_counts

    rng = np.random.default_rng(d)
    p, r = 4, 5
    a = np.exp(-rng.uniform(0.0, 2.0, (p * r, d)) / d)
    b = np.exp(-rng.uniform(0.0, 2.0, (2, d)) / d)
    limits = node_limits(d)
    exact = len(limits) + 1
    rows = np.arange(p * r)
    for j in (0, d // 2 + 1, d - 1):  # a lane of the first vector, the middle, the last (remainder) feature
        for where in ("a", "b"):
            aa, bb = a.copy(), b.copy()
            if where == "a":
                aa[2 * r + 3, j] = bad  # point 2's fourth pair
            else:
                bb[1, j] = bad  # every point's pairs of odd index
            got = np.empty(p, dtype=np.int64)
            point_node_counts(aa, rows, bb, limits, r, got)
            want = []
            with np.errstate(invalid="ignore", divide="ignore"):  # inf / inf: S is NaN, as in the pass
                for i in range(p):
                    s = [
                        _spread(aa[k], bb[k % 2]) if min(aa[k].min(), bb[k % 2].min()) > 0 else np.inf
                        for k in range(i * r, i * r + r)
                    ]
                    want.append(certified_nodes(np.inf if np.isnan(s).any() else max(s), d))
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(_point_counts_numpy(aa, rows, bb, limits, p, r), want)
            if where == "a":
                assert got[2] == exact and (got[[0, 1, 3]] < exact).all()
            else:
                assert (got == exact).all()


@pytest.mark.skipif(not HAVE_NUMBA, reason="numba not installed")
@pytest.mark.parametrize("d", [9, 25, 60, 131])
def test_compiled_kernel_modes_with_fewer_nodes_than_exact(d):
    """Both compiled modes (< 12 nodes: 4 pairs per vector; >= 12: 16 nodes per block) at every
    node count below ceil(d/2) they can meet equal the numpy pass."""
    rng = np.random.default_rng(d)
    a_rows = np.exp(rng.normal(0, 0.05, (7, d)))
    a_rows[2] = rng.uniform(0.5, 1.5, d)  # some factors above 1: the division scheme
    b = np.exp(-rng.exponential(0.05, (5, d)))
    ia = rng.integers(0, 7, 23)  # 23 pairs: a partial block of 4
    for m in sorted({1, 2, 3, 4, 5, 7, 11, 12, 13, 16, 17, 20, 33} & set(range(1, nodes_for_degree(d - 1)))):
        t, w = gauss_legendre_01(m)
        got, pa = _weighted_loo_integrals(a_rows, b, t, w, _numba_kernel(), ia)
        ref, pa_ref = _weighted_loo_integrals(a_rows, b, t, w, None, ia)
        assert np.abs(got - ref).max() <= 1e-14 * np.abs(ref).max(), m
        np.testing.assert_array_equal(pa, pa_ref)


def test_array_api_certified_equals_exact():
    xps = pytest.importorskip("array_api_strict")
    rng = np.random.default_rng(6)
    d = 40
    a = np.exp(rng.normal(0, 0.01, (2, 6, d)))
    b = np.exp(rng.normal(0, 0.01, (6, d)))
    c = rng.normal(size=(6, 1))
    ce = product_game_block(xps.asarray(a), xps.asarray(b), xps.asarray(c))
    ex = product_game_block(xps.asarray(a), xps.asarray(b), xps.asarray(c), nodes="exact")
    ref = product_game_block(a, b, c, nodes="exact")[0]
    assert np.abs(np.asarray(ce[0]) - ref).max() <= 1e-14 * np.abs(ref).max()
    np.testing.assert_array_equal(
        np.asarray(ex[0]),
        np.asarray(
            product_game_block(xps.asarray(a), xps.asarray(b), xps.asarray(c), n_nodes=nodes_for_degree(d - 1))[0]
        ),
    )


def test_property_certified_equals_exact_rule():
    """Random positive factors of any spread: certified values equal the exact rule's to 1e-14."""
    hyp = pytest.importorskip("hypothesis")
    st = hyp.strategies

    @hyp.settings(max_examples=40, deadline=None)
    @hyp.given(
        d=st.integers(10, 48),
        sigma=st.sampled_from([1e-4, 1e-2, 0.05, 0.2, 1.0]),
        seed=st.integers(0, 2**31 - 1),
        shared_b=st.booleans(),
    )
    def check(d, sigma, seed, shared_b):
        rng = np.random.default_rng(seed)
        a = np.exp(rng.normal(0, sigma, (2, 3, d)))
        b = 1.0 if shared_b else np.exp(rng.normal(0, sigma, (3, d)))
        c = np.eye(3)  # one output per row: each pair's values on their own scale
        got = product_game_block(a, b, c)[0]
        want = product_game_block(a, b, c, nodes="exact")[0]
        scale = np.abs(want).max(axis=1, keepdims=True)  # (points, 1, rows)
        assert np.all(np.abs(got - want) <= 1e-14 * scale)

    check()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("scale", [30.0, 0.031])
def test_log_space_entries_give_the_exact_rule_bit_for_bit(backend, scale):
    """A block with products near over- or underflow (finished in log space) is redone with the
    exact rule: the log-space sums of d logarithms round to ~1e-13 relative at these magnitudes,
    and with a few nodes (6 here) those errors average out less than with ceil(d/2)."""
    rng = np.random.default_rng(9)
    d = 200
    a = scale * np.exp(rng.normal(0, 1e-3, (1, 4, d)))  # products near 1e294 or 1e-300: flagged
    b = scale * np.exp(rng.normal(0, 1e-3, (4, d)))
    c = np.eye(4)
    b2 = np.ascontiguousarray(np.broadcast_to(b, a.shape)).reshape(-1, d)
    assert _block_nodes(a.reshape(-1, d), None, b2) < 10
    got = product_game_block(a, b, c, backend=backend)
    want = product_game_block(a, b, c, backend=backend, nodes="exact")
    for x, y in zip(got, want):
        np.testing.assert_array_equal(x, y)


def test_block_nodes_without_numba_take_the_numpy_spread_pass(monkeypatch):
    """With the compiled spread pass unavailable the block's count comes from numpy's pass: the same count."""

    rng = np.random.default_rng(5)
    d = 40
    a2 = np.exp(rng.normal(0.0, 0.02, (30, d)))
    b2 = np.exp(rng.normal(0.0, 0.02, (6, d)))
    with_numba = _block_nodes(a2, None, b2)
    monkeypatch.setattr(_product_nodes, "_spread_pass", lambda: None)
    assert _block_nodes(a2, None, b2) == with_numba < nodes_for_degree(d - 1)


@pytest.mark.parametrize("point_b", [False, True])
def test_each_point_takes_its_own_count_whatever_the_block(point_b):
    """Node counts are per point: a block mixing points of small and large spread gives every point
    the values it gets alone (bit for bit), and all agree with the exact rule to rounding."""
    from kexplain.shapley import product as engine

    rng = np.random.default_rng(11)
    p, r, d = 6, 5, 40
    scale = np.array([0.005, 0.5, 0.005, 0.02, 2.0, 0.005])[:, None, None]  # 3 distinct counts or more
    a = np.exp(rng.normal(0.0, 1.0, (p, r, d)) * scale)
    b = np.exp(rng.normal(0.0, 0.005, (p, r, d) if point_b else (r, d)))
    c = rng.normal(size=(r, 2))
    b2 = b.reshape(-1, d) if point_b else b
    counts = engine._point_nodes(a.reshape(-1, d), None, b2, p, r)
    assert len(set(counts.tolist())) >= 2 and counts.min() < nodes_for_degree(d - 1)
    phi = product_game_block(a, b if point_b else b[None], c)[0]
    exact = product_game_block(a, b if point_b else b[None], c, nodes="exact")[0]
    np.testing.assert_allclose(phi, exact, rtol=0, atol=1e-14 * np.abs(exact).max())
    for i in range(p):
        alone = product_game_block(a[i : i + 1], b[i : i + 1] if point_b else b[None], c)[0]
        np.testing.assert_array_equal(alone[0], phi[i])


def test_explanations_do_not_depend_on_how_the_rows_are_split():
    """The functional game's values are bit-identical explained at once or in parts (Dask's row
    blocks), although the points' certified node counts differ."""
    import kexplain as kx

    rng = np.random.default_rng(0)
    d = 60
    S = rng.normal(size=(300, d))
    X = rng.normal(size=(40, d))
    X[:20] *= 0.2
    em = kx.KernelExpansion(S, rng.normal(size=300), kx.kernels.RBF(np.sqrt(d)))
    ex = kx.ProductKernelExplainer(em)
    whole = ex.explain(X).values
    parts = np.concatenate([ex.explain(X[i : i + 7]).values for i in range(0, 40, 7)])
    np.testing.assert_array_equal(whole, parts)


def test_below_sixteen_exact_nodes_no_spread_pass_runs(monkeypatch):
    """By default a point of d < 31 takes the exact rule without the spread pass (it cannot pay there)."""
    from kexplain.shapley import product as engine

    monkeypatch.setattr(_product_nodes, "CERTIFY_FROM_NODES", 16)

    def no_pass():
        raise AssertionError("the spread pass ran")

    monkeypatch.setattr(_product_nodes, "_spread_pass", no_pass)
    rng = np.random.default_rng(3)
    for d in (20, 24, 30):
        a2 = np.exp(rng.normal(0.0, 0.01, (12, d)))
        b2 = np.ones((1, d))
        assert engine._point_nodes(a2, None, b2, 3, 4).tolist() == [nodes_for_degree(d - 1)] * 3
    monkeypatch.setattr(_product_nodes, "_spread_pass", lambda: None)  # d = 31: sought (numpy pass)
    a2 = np.exp(rng.normal(0.0, 0.01, (12, 31)))
    assert engine._point_nodes(a2, None, np.ones((1, 31)), 3, 4).max() < nodes_for_degree(30)


def test_default_certify_from_sixteen_nodes():
    """The engine's default, read when this module was imported (the fixture above lowers it for the
    other tests)."""
    assert _DEFAULT_CERTIFY_FROM == 16


@pytest.mark.parametrize("backend", BACKENDS)
def test_log_space_redo_is_per_point(backend):
    """Only the points with products near under- or overflow are redone with the exact rule; the
    others keep their certified values, bit for bit those they get explained alone."""
    rng = np.random.default_rng(13)
    p, r, d = 3, 4, 200
    level = np.array([1.0, 0.031, 1.0])[:, None, None]  # point 1's products near 1e-300: log space
    a = level * np.exp(rng.normal(0, 1e-3, (p, r, d)))
    b = level * np.exp(rng.normal(0, 1e-3, (p, r, d)))  # absent factors of each point's own level
    c = np.eye(r)
    got = product_game_block(a, b, c, backend=backend)
    exact = product_game_block(a, b, c, backend=backend, nodes="exact")
    for x, y in zip(got, exact):
        np.testing.assert_array_equal(x[1], y[1])  # the log-space point: the exact rule
    for i in range(p):
        alone = product_game_block(a[i : i + 1], b[i : i + 1], c, backend=backend)
        for x, y in zip(got, alone):
            np.testing.assert_array_equal(x[i], y[0])
    from kexplain.shapley import product as engine

    counts = engine._point_nodes(a.reshape(-1, d), None, b.reshape(-1, d), p, r)
    assert counts[0] < nodes_for_degree(d - 1)  # the others really took fewer nodes

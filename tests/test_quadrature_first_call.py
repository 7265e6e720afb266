"""The compiled Legendre recurrence (``shapley._legendre_numba``) against the numpy loop it replaces.

A first call at large d builds O(log d) Gauss-Legendre rules of up to ceil(d/2) nodes; the numpy
recurrence ran n Python steps per Newton step (2.9 s of rules at d = 4,000).  The compiled one must
give the same rules bit for bit, and the rule table of one d must not take the numpy loop.
"""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest

from kexplain.shapley import _product_functional as pf
from kexplain.shapley import quadrature as q

pytest.importorskip("numba")


def _numpy_rule(n):
    with mock.patch.object(q, "_compiled_recurrence", lambda: None):
        return q.gauss_legendre_01.__wrapped__(n)


@pytest.mark.parametrize("n", [*range(1, 70), 72, 81, 127, 128, 500, 1001, 2000, 4321])
def test_compiled_rule_equals_numpy_rule_bit_for_bit(n):
    assert q._compiled_recurrence() is not None
    t, w = q.gauss_legendre_01.__wrapped__(n)
    t0, w0 = _numpy_rule(n)
    np.testing.assert_array_equal(t, t0)
    np.testing.assert_array_equal(w, w0)


def test_compiled_recurrence_equals_numpy_halves():
    """Both halves of the recurrence (near the ends and in the middle) on random angles."""
    rng = np.random.default_rng(0)
    theta = np.sort(rng.uniform(1e-4, np.pi / 2, size=257))
    for n in (24, 25, 300):
        with mock.patch.object(q, "_compiled_recurrence", lambda: None):
            p0, q0 = q._legendre_pair(n, theta)
        p1, q1 = q._legendre_pair(n, theta)
        np.testing.assert_array_equal(p1, p0)
        np.testing.assert_array_equal(q1, q0)


def test_rule_table_of_a_large_d_takes_the_compiled_recurrence():
    """The work bound: every rule of at least COMPILED_FROM_NODES nodes in the table of d = 4,000
    (2,000 exact nodes) runs the compiled recurrence, none the n-step numpy loop."""
    calls = {"compiled": 0}
    real = q._compiled_recurrence()

    def counting(n, y, x):
        assert n >= q.COMPILED_FROM_NODES
        calls["compiled"] += 1
        return real(n, y, x)

    numpy_steps = {"n": 0}
    real_pair = q._legendre_pair

    def pair(n, theta):
        if n < q.COMPILED_FROM_NODES:
            numpy_steps["n"] += n
        return real_pair(n, theta)

    q.gauss_legendre_01.cache_clear()
    pf._lazy_rule_table.cache_clear()
    try:
        with (
            mock.patch.object(q, "_compiled_recurrence", lambda: counting),
            mock.patch.object(q, "_legendre_pair", pair),
        ):
            T, W, sizes = pf._rule_table(2000)
    finally:
        q.gauss_legendre_01.cache_clear()
        pf._lazy_rule_table.cache_clear()
    big = int(np.sum(sizes >= q.COMPILED_FROM_NODES))
    assert big > 30 and calls["compiled"] >= big  # at least one Newton step per large rule
    # the numpy loop ran only for the small rules: fewer than 23 * 24 / 2 steps per Newton step
    assert numpy_steps["n"] <= q._MAX_NEWTON_STEPS * 23 * 24 // 2
    # and the table holds the same rules as the numpy path
    for i in (1, 30, sizes.size - 1):
        m = int(sizes[i])
        t0, w0 = _numpy_rule(m)
        np.testing.assert_array_equal(T[i, :m], t0)
        np.testing.assert_array_equal(W[i, :m], w0)


def test_import_kexplain_loads_neither_scikit_learn_nor_scipy_special_nor_linalg():
    """``import kexplain`` took 2.8 s, 1.8 s of it scikit-learn (with scipy.stats and pandas, for one
    ``is_classifier`` call on an estimator that has loaded scikit-learn itself), scipy.special
    (for the mixture kernels' Matern profile) and scipy.linalg (for the sampled values' Cholesky
    solve); each is imported where it is used."""
    import subprocess
    import sys

    heavy = ("sklearn", "scipy.special", "scipy.linalg", "pandas", "numba")
    code = f"import sys, kexplain; print(sorted(m for m in {heavy!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_kexplain_imports_and_explains_without_numba():
    """numba is an optional extra: with it unimportable, ``import kexplain`` works and the
    interventional and functional games take the numpy path, with the same values as the compiled
    one to rounding (a module-level import of the compiled exponential once broke this)."""
    import json
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['numba'] = None\n"
        "import json, numpy as np, kexplain as kx\n"
        "rng = np.random.default_rng(0)\n"
        "em = kx.KernelExpansion(rng.normal(size=(9, 6)), rng.normal(size=9), kx.kernels.RBF(1.5))\n"
        "X = rng.normal(size=(2, 6))\n"
        "for opts in ({}, {'background': rng.normal(size=(5, 6))}):\n"
        "    print(json.dumps(kx.ProductKernelExplainer(em, **opts).explain(X).values.tolist()))\n"
        "print('numba' in sys.modules and sys.modules['numba'] is not None)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    *values, loaded = out.stdout.strip().splitlines()
    assert loaded == "False"
    import kexplain as kx

    rng = np.random.default_rng(0)
    em = kx.KernelExpansion(rng.normal(size=(9, 6)), rng.normal(size=9), kx.kernels.RBF(1.5))
    X = rng.normal(size=(2, 6))
    for opts, line in zip(({}, {"background": rng.normal(size=(5, 6))}), values):
        ref = kx.ProductKernelExplainer(em, **opts).explain(X).values
        np.testing.assert_allclose(np.array(json.loads(line)), ref, rtol=0, atol=1e-13 * np.abs(ref).max())


def _fused_case(d, n_sv, scales, seed=0):
    """(X, Y, ls, laplacian, c): points at several distances from the support points, so that they
    take certified counts at and above 64 nodes, and (the farthest) the exact rule."""
    import kexplain as kx
    from kexplain.explainers.product_games import FunctionalGame

    rng = np.random.default_rng(seed)
    em = kx.KernelExpansion(rng.normal(size=(n_sv, d)), rng.normal(size=n_sv), kx.kernels.RBF(np.sqrt(d)))
    X = np.concatenate([s * rng.normal(size=(2, d)) for s in scales])
    return FunctionalGame(em, X).stationary_block(slice(0, X.shape[0]), slice(0, n_sv))


_LAZY = pf._lazy_rule_table  # the cached loader, also while a test replaces it


def _full_table(n):
    table = pf._LazyRuleTable(n)
    table.build(range(1, table.sizes.size))
    return table


@pytest.mark.parametrize("d, scales", [(300, (0.3, 1.0, 6.0, 1e3)), (1000, (0.1, 1.0, 2.0, 30.0)), (41, (0.5, 20.0))])
def test_lazy_rule_table_gives_the_full_tables_values(monkeypatch, d, scales):
    """The fused kernel with rules built on first use equals it with every rule built first, bit for
    bit, on points that take small, laddered and exact counts (a fresh table: all rows missing)."""
    if pf._stationary_kernel() is None:
        pytest.skip("the fused kernel needs numba")
    Xb, Y, ls, lap, c = _fused_case(d, 12, scales)
    exact = q.nodes_for_degree(d - 1)
    _LAZY.cache_clear()
    try:
        lazy = pf._stationary_pairs_block(Xb, Y, ls, lap, c, None)
        built = _LAZY(exact).built
        monkeypatch.setattr(pf, "_lazy_rule_table", _full_table)
        full = pf._stationary_pairs_block(Xb, Y, ls, lap, c, None)
    finally:
        _LAZY.cache_clear()
    for got, ref in zip(lazy, full):
        np.testing.assert_array_equal(got, ref)
    if d > 2 * q.LADDER_FROM:
        assert 0 < int(built.sum()) < built.size  # some rules were never built


def test_a_first_call_at_large_d_builds_only_the_rules_it_takes(monkeypatch):
    """The work bound: at d = 4,000 (exact rule 2,000 nodes, 94 rules in the table) points near the
    support points build the rules up to 64 nodes and none of the large ones; the values equal
    those of the full table."""
    if pf._stationary_kernel() is None:
        pytest.skip("the fused kernel needs numba")
    d = 4000
    Xb, Y, ls, lap, c = _fused_case(d, 8, (0.2,))
    seen = []
    real = pf.gauss_legendre_01
    monkeypatch.setattr(pf, "gauss_legendre_01", lambda m: seen.append(m) or real(m))
    _LAZY.cache_clear()
    try:
        lazy = pf._stationary_pairs_block(Xb, Y, ls, lap, c, None)
        assert max(seen) <= q.LADDER_FROM and len(seen) == q.LADDER_FROM
        monkeypatch.setattr(pf, "_lazy_rule_table", _full_table)
        full = pf._stationary_pairs_block(Xb, Y, ls, lap, c, None)
    finally:
        _LAZY.cache_clear()
    for got, ref in zip(lazy, full):
        np.testing.assert_array_equal(got, ref)

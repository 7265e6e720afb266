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
    pf._rule_table.cache_clear()
    try:
        with (
            mock.patch.object(q, "_compiled_recurrence", lambda: counting),
            mock.patch.object(q, "_legendre_pair", pair),
        ):
            T, W, sizes = pf._rule_table(2000)
    finally:
        q.gauss_legendre_01.cache_clear()
        pf._rule_table.cache_clear()
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


def test_import_kexplain_loads_neither_scikit_learn_nor_scipy_special():
    """``import kexplain`` took 2.8 s, 1.8 s of it scikit-learn (with scipy.stats and pandas, for one
    ``is_classifier`` call on an estimator that has loaded scikit-learn itself) and scipy.special
    (for the mixture kernels' Matern profile); both are imported where they are used."""
    import subprocess
    import sys

    code = "import sys, kexplain; print(sorted(m for m in ('sklearn', 'scipy.special', 'pandas') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

"""Gauss-Legendre rules on [0, 1]: accurate at large node counts, so "exact" values stay exact at large d."""

from fractions import Fraction
from math import factorial

import numpy as np
import pytest

from kexplain.shapley import product_game_block
from kexplain.shapley.quadrature import gauss_legendre_01, nodes_for_degree

EXTENDED = np.finfo(np.longdouble).eps < 1e-18


def _reference_rule(n):
    """The positive half of the rule by Newton on the Legendre recurrence in np.longdouble (80-bit
    on x86): an independent computation in x (not the angle), refined from numpy's nodes."""
    x = np.polynomial.legendre.leggauss(n)[0][n - n // 2 :].astype(np.longdouble)
    one = np.longdouble(1)
    for _ in range(3):  # numpy's nodes are right to ~1e-16: Newton doubles the digits per step
        p0, p1 = np.ones_like(x), x.copy()
        for k in range(2, n + 1):
            p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
        dp = n * (p0 - x * p1) / ((one - x) * (one + x))
        x = x - p1 / dp
    w = one / ((one - x) * (one + x) * dp * dp)  # half of 2 / ((1 - x^2) P_n'(x)^2)
    return (one + x) / 2, (one - x) / 2, w


@pytest.mark.skipif(not EXTENDED, reason="needs an extended-precision np.longdouble for the reference")
@pytest.mark.parametrize("n", [5, 64, 251, pytest.param(800, marks=pytest.mark.slow)])
def test_rule_matches_extended_precision_reference(n):
    t, w = gauss_legendre_01(n)
    t_hi, t_lo, w_ref = _reference_rule(n)
    h = n // 2
    # upper half: absolute error of a rounding; lower half (small nodes): relative error of a rounding
    np.testing.assert_allclose(t[n - h :], t_hi[-h:].astype(float), rtol=0, atol=3e-16)
    np.testing.assert_allclose(t[:h][::-1], t_lo[-h:].astype(float), rtol=2e-12, atol=0)
    rel_w = np.abs(w[n - h :] - w_ref[-h:].astype(float)) / w_ref[-h:].astype(float)
    assert rel_w.max() < 5e-14, rel_w.max()


def test_outer_weights_are_accurate_where_leggauss_is_not():
    """numpy's leggauss is off by 1e-8 relative on its outermost weights at 1,000 nodes."""
    n = 1000
    t, w = gauss_legendre_01(n)
    # exactness on the highest degree, for polynomials concentrated at either end:
    # int_0^1 (1 - t)^(2n - 1) dt = int_0^1 t^(2n - 1) dt = 1 / (2n)
    assert abs(np.sum(w * (1.0 - t) ** (2 * n - 1)) * (2 * n) - 1.0) < 1e-13
    assert abs(np.sum(w * t ** (2 * n - 1)) * (2 * n) - 1.0) < 1e-13


@pytest.mark.parametrize("n", [14087, 30001])
def test_rules_of_tens_of_thousands_of_nodes_converge_and_are_exact(n):
    """Newton stalls at the rounding level there (it refused n = 14,087, needed near d = 28,000)."""
    t, w = gauss_legendre_01(n)
    assert np.all(np.diff(t) > 0) and np.all(w > 0)
    assert abs(w.sum() - 1.0) < 1e-13
    for k in (1, 7, 2 * n - 1):  # int_0^1 t^k dt = 1 / (k + 1), exact up to degree 2n - 1
        assert abs(np.sum(w * t**k) * (k + 1) - 1.0) < 1e-12, k


@pytest.mark.parametrize("n", [1, 2, 3, 10, 101, 1000])
def test_rule_shape_order_symmetry(n):
    t, w = gauss_legendre_01(n)
    assert t.shape == w.shape == (n,)
    assert np.all(np.diff(t) > 0) and 0 < t[0] and t[-1] < 1
    assert np.all(w > 0)
    assert abs(w.sum() - 1.0) < 1e-15
    np.testing.assert_array_equal(w, w[::-1])
    np.testing.assert_allclose(t + t[::-1], 1.0, atol=2.3e-16)


@pytest.mark.parametrize("d", [7, 60, 400, 2001])
def test_shapley_weights_integrated_exactly(d):
    """int_0^1 t^s (1 - t)^(d-1-s) dt = s! (d-1-s)! / d!, the Shapley weights, for every size s."""
    t, w = gauss_legendre_01(nodes_for_degree(d - 1))
    s = np.unique(np.linspace(0, d - 1, 9).astype(int))
    exact = np.array([float(Fraction(factorial(k) * factorial(d - 1 - k), factorial(d))) for k in s])
    with np.errstate(under="ignore"):
        quad = np.array([np.sum(w * t**k * (1.0 - t) ** (d - 1 - k)) for k in s])
    keep = exact > 1e-290  # both ends of the range are representable
    rel = np.abs(quad[keep] - exact[keep]) / exact[keep]
    assert rel.max() < 1e-12, rel.max()


def test_rules_are_cached_and_read_only():
    t1, w1 = gauss_legendre_01(300)
    t2, w2 = gauss_legendre_01(300)
    assert t1 is t2 and w1 is w2
    with pytest.raises(ValueError):
        t1[0] = 0.0


@pytest.mark.parametrize("bad", [0, -3, 2.5, True, "4"])
def test_bad_node_count(bad):
    with pytest.raises(ValueError, match="n_nodes must be a positive integer"):
        gauss_legendre_01(bad)


def _game(kind, d, rng, r=4):
    if kind == "functional":  # kernel values below 1 against b = 1, as the functional baseline
        return np.exp(-rng.uniform(0.0, 0.01, (1, r, d))), 1.0
    if kind == "near-one":
        return 1.0 + rng.uniform(0.0, 0.02, (1, r, d)), 1.0 - rng.uniform(0.0, 0.02, (1, r, d))
    # integrand growing by 60 orders of magnitude across [0, 1]: the outer nodes carry the integral
    return np.exp(rng.uniform(0.0, 0.1, (1, r, d))), np.exp(-rng.uniform(0.0, 0.1, (1, r, d)))


@pytest.mark.parametrize("kind", ["functional", "near-one", "steep"])
@pytest.mark.parametrize("d, backend", [(1000, "auto"), (2000, "auto"), (5000, "auto"), (5000, "numpy")])
def test_product_game_efficiency_holds_to_1e13_at_large_d(d, backend, kind):
    """sum_j phi_j = v(full) - v(empty), known exactly from the products; with leggauss the relative
    error was 1e-12 (d = 1,000), 9e-12 (2,000) and 3e-11 (5,000) on the steep game."""
    rng = np.random.default_rng(d)
    a, b = _game(kind, d, rng)
    c = np.abs(rng.normal(size=(a.shape[1], 1)))  # same-sign terms: no cancellation in the check
    phi, v_full, v_empty = product_game_block(a, b, c, backend=backend)
    delta = float((v_full - v_empty).sum())
    assert abs(phi.sum() - delta) / abs(delta) < 1e-13

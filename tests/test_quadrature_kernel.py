"""The compiled quadrature kernel's own paths against the multiplied-out reference (issue 26).

The kernel takes pairs 4 at a time (one per vector lane; a last block of 1-3 pairs goes through
a scalar gather), features 4 at a time where the arrays are in C order (the last d mod 4, and
every feature of arrays in other orders, one vector built from scalars), and nodes in passes of
3, 4 or 5 (a lone node where 1 or 2 remain); the functional game's single row of absent factors
is broadcast.  Every combination must give the plain reference's numbers, at any node count (the
certified rule uses counts other than ceil(d/2)), and a pair's numbers must not depend on the
pairs it shares a block with nor on how its nodes are grouped into passes.
"""

from __future__ import annotations

import numpy as np
import pytest

from kexplain.shapley.product import _numba_kernel
from kexplain.shapley.quadrature import gauss_legendre_01

pytest.importorskip("numba")


def _reference(a, ia, b, t, w):
    """out[k, j] = (a - b)_kj sum_l w_l prod_{i != j} (b_ki + t_l (a - b)_ki), multiplied out."""
    K = ia.shape[0]
    bm = b[np.arange(K) % b.shape[0]]
    diff = a[ia] - bm
    g = bm[:, None, :] + t[None, :, None] * diff[:, None, :]  # (K, m, d)
    out = np.empty(diff.shape)
    for j in range(diff.shape[1]):
        out[:, j] = diff[:, j] * (np.prod(np.delete(g, j, axis=2), axis=2) @ w)
    return out


def _run(a, ia, b, t, w):
    kernel = _numba_kernel()
    if kernel is None:
        pytest.skip("numba is installed but unusable here")
    K, d = ia.shape[0], a.shape[1]
    out = np.full((K, d), np.nan)
    bad = np.ones((K, t.shape[0]), dtype=bool)
    pa = np.full(K, np.nan)
    kernel(a, ia, b, np.asarray(t), np.asarray(w), out, bad, pa)
    return out, bad, pa


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("nb", [1, 3])
@pytest.mark.parametrize("d", [1, 3, 4, 7, 8, 10, 13])
def test_every_node_count_layout_and_block_tail_equals_reference(d, nb, order):
    rng = np.random.default_rng(100 * d + nb)
    a = np.asarray(np.exp(-rng.uniform(0.0, 2.0 / d, (6, d))), order=order)
    b = np.asarray(np.exp(-rng.uniform(0.0, 2.0 / d, (nb, d))), order=order)
    ia = rng.integers(0, 6, size=11)  # two blocks of 4 and a tail of 3
    for m in [*range(1, 13), 15, 20]:
        t, w = (np.asarray(x) for x in gauss_legendre_01(m))
        out, bad, pa = _run(a, ia, b, t, w)
        assert not bad.any()
        np.testing.assert_allclose(out, _reference(a, ia, b, t, w), rtol=1e-13, atol=1e-16, err_msg=f"m = {m}")
        np.testing.assert_array_equal(pa, np.prod(a[ia], axis=1))


def test_a_pairs_numbers_do_not_depend_on_its_block():
    """Each pair alone (a block of one, the scalar gather) gives its numbers in a full block bit for bit."""
    rng = np.random.default_rng(7)
    d = 11
    a = np.exp(-rng.uniform(0.0, 0.3, (9, d)))
    b = np.exp(-rng.uniform(0.0, 0.3, (9, d)))
    ia = np.arange(9)
    for m in (3, 5, 6, 7, 10, 14):
        t, w = (np.asarray(x) for x in gauss_legendre_01(m))
        out, _, pa = _run(a, ia, b, t, w)
        for k in range(9):
            one, _, pa_one = _run(a, ia[k : k + 1], b[k : k + 1], t, w)
            np.testing.assert_array_equal(one[0], out[k])
            assert pa_one[0] == pa[k]


def test_above_one_and_near_underflow_pairs_in_a_block():
    """A pair with a factor above 1 (the division scheme) or a product near underflow (flagged for
    the log-space path) among ordinary ones: the others keep their numbers, the flags are exact."""
    rng = np.random.default_rng(3)
    d = 12
    a = np.exp(-rng.uniform(0.0, 0.2, (8, d)))
    b = np.exp(-rng.uniform(0.0, 0.2, (8, d)))
    a[2, 5] = 1.5  # division scheme for pair 2
    # pair 5: g ~ 1e-23 t, prod ~ 1e-276 t^12: below the kernel's bound 2^-1022 1e16 at the
    # smallest node only (t = 0.034 of 6)
    a[5], b[5] = 1e-23, 1e-30
    ia = np.arange(8)
    t, w = (np.asarray(x) for x in gauss_legendre_01(6))
    out, bad, _ = _run(a, ia, b, t, w)
    ref = _reference(a, ia, b, t, w)
    ok = np.ones(8, dtype=bool)
    ok[5] = False
    np.testing.assert_allclose(out[ok], ref[ok], rtol=1e-13, atol=1e-16)
    assert not bad[ok].any()
    g = b[5] + t[:, None] * (a[5] - b[5])  # (m, d)
    expect = ~(np.abs(np.prod(g, axis=1)) > np.finfo(float).tiny * 1e16)
    np.testing.assert_array_equal(bad[5], expect)
    assert expect.any() and not expect.all()

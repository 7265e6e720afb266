"""The fast routes of interactions from 2^d values and of Banzhaf values (issue 24, order 2 at d = 12).

The Möbius and superset-sum butterflies (compiled with numba when present, numpy passes on a
transposed table otherwise) must give the plain loop's numbers bit for bit; the Banzhaf values on
their one node must match the definition (enumeration of every coalition) and the subset route.
"""

from __future__ import annotations

from itertools import product
from unittest import mock

import numpy as np
import pytest

import kexplain as kx
from kexplain.shapley import higher_order as ho
from kexplain.shapley import higher_order_banzhaf as hob  # the Banzhaf pass and its loader live here


def _plain(values, d, subtract):
    """The transform as the module wrote it before the fast paths: d numpy passes, j = 0..d-1."""
    x = np.array(values, dtype=np.float64, copy=True)
    trailing = x.shape[1:]
    for j in range(d):
        view = x.reshape((2 ** (d - j - 1), 2, 2**j) + trailing)
        if subtract:
            view[:, 1] -= view[:, 0]
        else:
            view[:, 0] += view[:, 1]
    return x


@pytest.mark.parametrize("compiled", [True, False])
def test_butterflies_equal_the_plain_passes_bit_for_bit(compiled):
    rng = np.random.default_rng(0)
    if compiled and ho._compiled_butterfly() is None:
        pytest.skip("numba is not installed")
    patch = mock.patch.object(ho, "_compiled_butterfly", lambda: None) if not compiled else mock.MagicMock()
    with patch:
        for d, shape in product(range(1, 13), [(), (1, 1), (3,), (2, 3)]):
            v = rng.normal(size=(2**d,) + shape) + 2.0
            assert np.array_equal(ho.moebius_transform(v, d), _plain(v, d, True)), (d, shape)
            assert np.array_equal(ho._superset_sums(v, d), _plain(v, d, False)), (d, shape)


def test_moebius_transform_against_its_definition():
    rng = np.random.default_rng(1)
    d = 6
    v = rng.normal(size=2**d)
    m = ho.moebius_transform(v, d)
    for S in range(2**d):
        ref = sum((-1) ** (bin(S).count("1") - bin(L).count("1")) * v[L] for L in range(2**d) if L & S == L)
        assert abs(m[S] - ref) <= 1e-12 * np.abs(v).sum()


@pytest.mark.parametrize("index", ho.INDICES)
def test_interactions_from_values_same_numbers_with_and_without_numba(index):
    if ho._compiled_butterfly() is None:
        pytest.skip("numba is not installed")
    rng = np.random.default_rng(2)
    d = 9
    v = rng.normal(size=(2**d, 2, 2)) + 1.0
    spec = ho.check_interaction_spec({"index": index, "max_order": 1 if index in ("SV", "BV") else 3})
    tab, phi = ho.interactions_and_shapley_from_values(v, spec)
    with mock.patch.object(ho, "_compiled_butterfly", lambda: None):
        tab2, phi2 = ho.interactions_and_shapley_from_values(v, spec)
    assert np.array_equal(phi, phi2)
    for p, o in product(range(2), range(2)):
        assert tab.as_dict(p, o) == tab2.as_dict(p, o)


def _banzhaf_by_enumeration(a, c, F, w):
    """BV_j = 2^-(d - 1) sum_{S without j} v(S + j) - v(S), v from its definition, one point."""
    d = a.shape[-1]
    S = ((np.arange(2**d)[:, None] >> np.arange(d)) & 1).astype(bool)  # (2^d, d)
    # v(S) = sum_i c_i sum_z w_z prod_{j in S} a_ij prod_{j not in S} F_izj
    rows = np.where(S[:, None, None, :], a[0][None, :, None, :], F[None]).prod(axis=-1)  # (2^d, r, n_b)
    v = np.einsum("mrz,z,ro->mo", rows, w, c)
    bv = np.zeros((d, c.shape[1]))
    for j in range(d):
        without = ~S[:, j]
        bv[j] = (v[np.flatnonzero(without) + (1 << j)] - v[without]).sum(axis=0) / 2 ** (d - 1)
    return bv, v


def test_banzhaf_interventional_against_enumeration_with_signs_and_zeros():
    rng = np.random.default_rng(3)
    d, r, nb, o = 7, 4, 3, 2
    a = rng.uniform(-1.5, 1.5, (1, r, d))
    F = rng.uniform(-1.0, 1.0, (r, nb, d))
    a[0, 1, 2] = 0.0
    F[2, 1, 4] = 0.0
    F[3, 0, 5] = -a[0, 3, 5]  # a zero mixed factor (a + F) / 2
    c = rng.normal(size=(r, o))
    w = np.array([0.5, 0.3, 0.2])
    got = ho.banzhaf_interventional(a, c, F, w)
    assert got is not None
    bv, mean, v_full, v_empty = got
    ref, v = _banzhaf_by_enumeration(a, c, F, w)
    scale = np.abs(v).max()
    assert np.abs(bv[0] - ref).max() <= 1e-13 * scale
    assert np.abs(mean[0] - v.mean(axis=0)).max() <= 1e-13 * scale  # every coalition weighs 2^-d
    assert np.abs(v_full[0] - v[-1]).max() <= 1e-13 * scale
    assert np.abs(v_empty[0] - v[0]).max() <= 1e-13 * scale


def test_banzhaf_interventional_refuses_products_out_of_range():
    a = np.full((1, 1, 40), 1e20)
    assert ho.banzhaf_interventional(a, np.ones((1, 1)), np.full((1, 1, 40), 1e20), np.ones(1)) is None


def test_explain_banzhaf_values_on_one_node_equal_the_subset_route():
    """d = 10 with 4 background rows takes the one-node route; its values, empty set, base and
    full values equal the subset route's (the Möbius transform of the 2^d values)."""
    rng = np.random.default_rng(4)
    d = 10
    X = rng.normal(size=(40, d))
    em = kx.KernelExpansion(X[:15], rng.normal(size=15), kx.kernels.RBF(np.sqrt(d)), intercept=0.3)
    explainer = kx.ProductKernelExplainer(em, background=X[20:24])
    assert ho.banzhaf_cheaper_than_subsets(d, 4)
    x = X[30:33]
    ex = explainer.explain(x, interactions={"index": "BV"})
    sub = explainer._interaction_subset_game()
    assert sub is not None
    ref = explainer._any_order_from_subsets(x, sub, ho.check_interaction_spec({"index": "BV"}))
    scale = np.abs(ref.values).max()
    assert np.abs(ex.values - ref.values).max() <= 1e-13 * scale
    for i in range(len(x)):
        got, want = ex.interaction_values(i), ref.interaction_values(i)
        assert got.keys() == want.keys()
        assert max(abs(got[T] - want[T]) for T in got) <= 1e-13 * max(abs(val) for val in want.values())
    assert np.abs(np.asarray(ex.base_values) - np.asarray(ref.base_values)).max() <= 1e-13
    assert np.abs(np.asarray(ex.v_full) - np.asarray(ref.v_full)).max() <= 1e-13
    assert ex.efficiency_error is None  # no Shapley values were computed: Banzhaf values are not efficient


def test_banzhaf_compiled_pass_equals_the_numpy_passes_bit_for_bit():
    """The fused compiled pass does numpy's operations in numpy's order: the same numbers, also with
    zeros, signs and products that leave float64's range (both then refuse alike)."""
    if ho._compiled_banzhaf() is None:
        pytest.skip("numba is not installed")
    rng = np.random.default_rng(5)
    for d, p, r, nb, o in [(1, 1, 1, 1, 1), (2, 3, 2, 1, 2), (7, 2, 5, 3, 1), (12, 1, 30, 4, 3)]:
        a = rng.uniform(-1.5, 1.5, (p, r, d))
        F = rng.uniform(-1.0, 1.0, (r, nb, d))
        a.flat[0] = 0.0
        c, w = rng.normal(size=(r, o)), rng.dirichlet(np.ones(nb))
        got = ho.banzhaf_interventional(a, c, F, w)
        with mock.patch.object(hob, "_compiled_banzhaf", lambda: None):
            want = ho.banzhaf_interventional(a, c, F, w)
        assert got is not None and want is not None
        for g, h in zip(got, want):
            assert np.array_equal(g, h), (d, p, r, nb, o)
    big = np.full((1, 1, 40), 1e20)
    with mock.patch.object(hob, "_compiled_banzhaf", lambda: None):
        assert ho.banzhaf_interventional(big, np.ones((1, 1)), big, np.ones(1)) is None
    assert ho.banzhaf_interventional(big, np.ones((1, 1)), big, np.ones(1)) is None

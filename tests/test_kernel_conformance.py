"""Every registered kernel (tests/kernel_conformance.py) against its formula and the package's contracts.

Per case: the Gram matrix against the direct formula, symmetry and positive semi-definiteness,
``feature_values`` times the amplitude equal to the Gram matrix, ``rescaled`` equal to the kernel on
affinely mapped inputs, pickling and repr, the explainer's values against enumeration of all
coalitions (d <= 5, interventional and functional games, with the formula as the model), and the
statistics' pair factors (compiled and numpy paths) and MMD^2 attribution against the formula.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from conftest import assert_rel_close
from kernel_conformance import CASES, KernelCase

import kexplain as kx
from kexplain.kernels import SumKernel, kernel_terms

IDS = [c.name for c in CASES]
PRODUCT = [c for c in CASES if c.product]


def _rows(case: KernelCase, d: int, n: int, seed: int) -> np.ndarray:
    return case.data(n, d, np.random.default_rng(seed))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_gram_matches_the_formula(case):
    for d in case.d_values:
        k = case.make(d)
        X, Y = _rows(case, d, 6, 1), _rows(case, d, 4, 2)
        assert_rel_close(k(X, Y), case.direct(X, Y), rtol=case.rtol, atol_scale=case.rtol / 100)
        assert_rel_close(k(X), case.direct(X, X), rtol=case.rtol, atol_scale=case.rtol / 100)
        assert_rel_close(k.gram(X, Y, check_input=True), k(X, Y), rtol=0, atol_scale=0)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_gram_is_symmetric_and_positive_semidefinite(case):
    d = max(case.d_values)
    k = case.make(d)
    X = _rows(case, d, 30, 3)
    K = k(X)
    np.testing.assert_allclose(K, K.T, rtol=1e-14, atol=0)
    np.testing.assert_allclose(np.diag(K), k.diag_value(), rtol=1e-14)
    eig = np.linalg.eigvalsh((K + K.T) / 2)
    assert eig.min() >= -1e-10 * eig.max()


@pytest.mark.parametrize("case", PRODUCT, ids=[c.name for c in PRODUCT])
def test_feature_values_times_amplitude_is_the_gram_matrix(case):
    for d in case.d_values:
        k = case.make(d)
        X, Y = _rows(case, d, 5, 4), _rows(case, d, 3, 5)
        F = k.feature_values(X, Y)
        assert F.shape == (5, 3, d)
        assert_rel_close(F, case.direct_factors(X, Y), rtol=case.rtol / 10, atol_scale=case.rtol / 100)
        assert_rel_close(k.diag_value() * F.prod(axis=-1), k(X, Y), rtol=1e-13, atol_scale=1e-15)
        assert k.diag_value() == pytest.approx(case.amplitude(d), rel=1e-15)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_rescaled_is_the_kernel_on_affinely_mapped_inputs(case):
    d = max(case.d_values)
    k = case.make(d)
    labels = case.labels(d)
    X, Y = _rows(case, d, 5, 6), _rows(case, d, 4, 7)
    scale = np.linspace(0.5, 3.0, d) * np.where(np.arange(d) % 2, -1.0, 1.0)
    shift = np.linspace(-1.0, 2.0, d)
    if case.positive:  # a kernel of non-negative inputs sees only positive scalings
        scale, shift = np.abs(scale), np.zeros(d)

    def mapped(A):
        out = A.copy()
        for j in np.flatnonzero(~labels):
            out[:, j] = scale[j] * A[:, j].astype(np.float64) + shift[j]
        return out

    assert_rel_close(k.rescaled(scale)(X, Y), k(mapped(X), mapped(Y)), rtol=1e-12, atol_scale=1e-15)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_pickles_and_repr(case):
    d = max(case.d_values)
    k = case.make(d)
    X = _rows(case, d, 4, 8)
    k2 = pickle.loads(pickle.dumps(k))
    assert type(k2) is type(k)
    np.testing.assert_array_equal(k2(X), k(X))
    text = repr(k)
    assert text == repr(k2)
    assert "object at 0x" not in text
    for t in kernel_terms(k):  # every term names its class
        for name in {type(f).__name__ for f in getattr(t, "factors", [t])}:
            assert name in text


@pytest.mark.parametrize("game", ["interventional", "functional"])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_explainer_values_match_enumeration_with_the_formula_as_model(case, game):
    d = min(max(case.d_values), 5)
    k = case.make(d)
    rng = np.random.default_rng(9)
    X_ref, X, B = _rows(case, d, 4, 10), _rows(case, d, 3, 11), _rows(case, d, 3, 12)
    coef = rng.normal(size=4)
    em = kx.KernelExpansion(X_ref, coef, k, intercept=0.25)

    def formula_model(H):  # the model from the reference formula, not from kexplain's kernels
        return case.direct(H, X_ref) @ coef + 0.25

    if game == "interventional":
        ex = kx.ProductKernelExplainer(em, background=B).explain(X)

        def v(coalitions):
            out = np.empty((len(coalitions), len(X)))
            for c, S in enumerate(coalitions):
                H = np.where(S[None, None, :], X[:, None, :], B[None, :, :]).reshape(-1, d)
                out[c] = formula_model(H).reshape(len(X), len(B)).mean(axis=1)
            return out
    else:
        ex = kx.ProductKernelExplainer(em).explain(X)

        def v(coalitions):  # absent features drop out of the kernel (a factor 1 for a product)
            return np.array([case.direct(X, X_ref, S) @ coef + 0.25 for S in coalitions])

    assert ex.game == game
    ref = kx.exact_shapley(v, d)
    tol = max(1e-10, 1e3 * case.rtol)
    assert_rel_close(ex.values, ref.values, rtol=tol, atol_scale=tol / 100)
    assert_rel_close(ex.base_values, ref.v_empty, rtol=tol, atol_scale=tol / 100)
    assert_rel_close(ex.base_values + ex.values.sum(axis=1), formula_model(X), rtol=tol, atol_scale=tol / 100)


@pytest.mark.parametrize("case", PRODUCT, ids=[c.name for c in PRODUCT])
def test_statistics_pair_factors_match_the_formula_on_both_paths(case):
    from kexplain.stats import _pairs

    d = max(case.d_values)
    k = case.make(d)
    P = _rows(case, d, 40, 13)
    i, j = _pairs.within_pairs(len(P), np.arange(_pairs.n_within_pairs(len(P))))
    want = np.array([[case.terms(d)[0][1](P[a, f], P[b, f], f) for f in range(d)] for a, b in zip(i, j)])
    numpy_path = _pairs.factors(k, P, i, P, j, None)
    assert_rel_close(numpy_path, want, rtol=1e-14, atol_scale=1e-15)
    fd = _pairs.factor_data(k, P)
    if _pairs._factor_kernel() is not None:
        assert (fd is not None) == case.compiled, "the kernel should name its compiled pair-loop code"
    if fd is not None:
        assert_rel_close(_pairs.factors(k, P, i, P, j, (fd, fd)), want, rtol=1e-14, atol_scale=1e-15)


@pytest.mark.parametrize("case", PRODUCT, ids=[c.name for c in PRODUCT])
def test_mmd_attribution_matches_enumeration_with_the_formula(case):
    d = min(max(case.d_values), 4)
    k = case.make(d)
    X, Z = _rows(case, d, 7, 14), _rows(case, d, 6, 15)
    res = kx.stats.mmd_shapley(X, Z, kernel=k)

    def mmd2(S):  # the unbiased MMD^2 with the kernel restricted to S (absent factors 1)
        Kx, Kz, Kxz = case.direct(X, X, S), case.direct(Z, Z, S), case.direct(X, Z, S)
        n, m = len(X), len(Z)
        return (Kx.sum() - np.trace(Kx)) / (n * (n - 1)) + (Kz.sum() - np.trace(Kz)) / (m * (m - 1)) - 2.0 * Kxz.mean()

    ref = kx.exact_shapley(lambda C: np.array([mmd2(S) for S in C]), d)
    assert_rel_close(res.values, ref.values, rtol=1e-10, atol_scale=1e-12)
    assert res.total == pytest.approx(mmd2(np.ones(d, dtype=bool)), rel=1e-10, abs=1e-13)


def test_statistics_refuse_registered_sums_with_a_clear_message():
    for case in (c for c in CASES if not c.product):
        k = case.make(2)
        assert isinstance(k, SumKernel)
        with pytest.raises(TypeError, match="SumKernel"):
            kx.stats.mmd_shapley(np.zeros((4, 2)), np.ones((4, 2)), kernel=k)


def test_registry_names_every_public_kernel_class():
    """A kernel class exported by kexplain.kernels but never registered is a conformance gap."""
    import kexplain.kernels as kk

    # the product-kernel family (Kernel and SumKernel subclasses); kernels of other structure (the
    # polynomial ones) have suites of their own
    exported = {
        c
        for c in (getattr(kk, n) for n in kk.__all__)
        if isinstance(c, type) and issubclass(c, (kk.Kernel, kk.SumKernel)) and c is not kk.Kernel
    }
    seen: set[type] = set()
    for case in CASES:
        k = case.make(3)
        stack = [k]
        while stack:
            t = stack.pop()
            seen.add(type(t))
            stack.extend(getattr(t, "terms", []))
            stack.extend(getattr(t, "factors", []))
            stack.extend(p for p, _ in getattr(t, "parts", []))
    missing = sorted(c.__name__ for c in exported - seen)
    assert not missing, f"register these kernels in tests/kernel_conformance.py: {missing}"


def test_kernel_algebra_matches_scikit_learn_kernel_algebra():
    from sklearn.gaussian_process import kernels as sk

    from kexplain.kernels import RBF, Laplacian, PointwiseProduct

    rng = np.random.default_rng(16)
    X, Y = rng.normal(size=(6, 3)), rng.normal(size=(4, 3))
    ls = np.array([0.7, 1.3, 2.0])
    ours = 1.5 * RBF(ls) * RBF(1.1) + 0.5 * RBF(0.8)
    theirs = sk.ConstantKernel(1.5) * sk.RBF(ls) * sk.RBF(1.1) + sk.ConstantKernel(0.5) * sk.RBF(0.8)
    np.testing.assert_allclose(ours(X, Y), theirs(X, Y), rtol=1e-13)
    assert isinstance(RBF(1.0) * Laplacian(1.0), PointwiseProduct)
    # a product with a sum is multiplied out into a sum of products (still a sum of product kernels)
    k = (RBF(1.0) + Laplacian(2.0)) * (RBF(0.5) + 2.0 * Laplacian(1.0))
    assert isinstance(k, SumKernel) and len(k.terms) == 4
    np.testing.assert_allclose(
        k(X, Y), (RBF(1.0)(X, Y) + Laplacian(2.0)(X, Y)) * (RBF(0.5)(X, Y) + 2.0 * Laplacian(1.0)(X, Y)), rtol=1e-13
    )
    s = RBF(1.0) + (Laplacian(1.0) + RBF(2.0))
    assert len(s.terms) == 3  # sums are flattened


@pytest.mark.parametrize("bad", ["rbf", None, [1.0], np.array([1.0, 2.0]), True])
def test_kernel_algebra_refuses_what_is_not_a_kernel_or_a_number(bad):
    from kexplain.kernels import RBF

    with pytest.raises(TypeError):
        RBF(1.0) * bad
    with pytest.raises(TypeError):
        RBF(1.0) + bad
    with pytest.raises(TypeError):
        (RBF(1.0) + RBF(2.0)) * bad


def test_pointwise_product_checks_its_factors():
    from kexplain.kernels import RBF, PointwiseProduct

    with pytest.raises(TypeError, match="factors"):
        PointwiseProduct([])
    with pytest.raises(TypeError, match="factors"):
        PointwiseProduct([RBF(1.0), RBF(1.0) + RBF(2.0)])
    with pytest.raises(ValueError, match="disagree on the number of features"):
        PointwiseProduct([RBF([1.0, 2.0]), RBF([1.0, 2.0, 3.0])])
    with pytest.raises(ValueError, match="amplitude"):
        PointwiseProduct([RBF(1.0)], amplitude=-1.0)
    with pytest.raises(ValueError, match="amplitude"):
        RBF(1.0) * Laplacian_of(1.0) * 0.0


def Laplacian_of(ls):
    from kexplain.kernels import Laplacian

    return Laplacian(ls)

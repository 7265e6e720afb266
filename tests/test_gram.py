"""Gram matrices from distances agree with the per-feature product definition (issue 15, item 4).

The reference everywhere is ``amplitude * prod_j k_j(x_j, y_j)`` from ``feature_values``, the
(n, m, d) factor tensor that the Gram path no longer builds.
"""

import tracemalloc

import numpy as np
import pytest
from kernel_conformance import CASES, cases, stationary_classes
from sklearn.metrics.pairwise import laplacian_kernel, rbf_kernel

import kexplain as kx
from kexplain.kernels import RBF, Categorical, Cauchy, Laplacian, ProductKernel, SumKernel
from kexplain.kernels._gram import GRAM_BLOCK_ELEMS
from kexplain.kernels.base import kernel_terms, term_amplitude

#: entries below this are (near-)subnormal, where relative accuracy has no meaning
TINY = 1e-290


def reference(kernel, X, Y):
    """sum over terms of amplitude * prod_j k_j(X_pj, Y_rj), through the factor tensor."""
    return sum(term_amplitude(t) * np.prod(t.feature_values(X, Y), axis=-1) for t in kernel_terms(kernel))


def assert_matches_reference(K, R, rtol=1e-12):
    assert K.shape == R.shape
    big = np.abs(R) > TINY
    np.testing.assert_allclose(K[big], R[big], rtol=rtol, atol=0)
    assert np.all(np.abs(K[~big]) <= 1e-280)


def regimes(rng):
    """(name, X, Y, lengthscale) pairs that stress the squared-distance expansion."""
    A = rng.normal(size=(60, 6))
    return [
        ("standard", rng.normal(size=(60, 6)), rng.normal(size=(45, 6)), 1.0),
        ("wide lengthscale", rng.normal(size=(60, 6)), rng.normal(size=(45, 6)), 50.0),
        ("small lengthscale", rng.normal(size=(60, 6)), rng.normal(size=(45, 6)), 0.05),
        ("far from the origin", 1e4 + rng.normal(size=(60, 6)), 1e4 + rng.normal(size=(45, 6)), 1.0),
        ("large spread", 40 * rng.normal(size=(60, 6)), 40 * rng.normal(size=(45, 6)), 1.0),
        ("near-identical points", A, A[:45] + 1e-9 * rng.normal(size=(45, 6)), 0.7),
        ("ARD", rng.normal(size=(60, 6)), rng.normal(size=(45, 6)), np.array([0.3, 0.8, 1.0, 2.0, 5.0, 0.1])),
    ]


@pytest.mark.parametrize("cls", stationary_classes())
def test_stationary_gram_matches_per_feature_product_in_every_regime(cls, rng):
    for name, X, Y, ls in regimes(rng):
        k = cls(ls, amplitude=1.7)
        assert_matches_reference(k(X, Y), reference(k, X, Y)), name
        assert_matches_reference(k(X), reference(k, X, X)), name


@pytest.mark.parametrize("cls", stationary_classes())
def test_gram_is_exactly_the_amplitude_on_the_diagonal_and_for_equal_rows(cls, rng):
    for _, X, _, ls in regimes(rng):
        k = cls(ls, amplitude=2.5)
        assert np.all(np.diag(k(X)) == 2.5)
        Y = np.concatenate([X[5:9], rng.normal(size=(3, X.shape[1]))])
        K = k(X, Y)
        assert np.all(K[np.arange(5, 9), np.arange(4)] == 2.5)  # same rows given twice
        assert np.all(K <= 2.5)


def test_rbf_gram_of_a_translated_copy_is_symmetric_and_exact_on_duplicates(rng):
    X = 1e6 + rng.normal(size=(40, 4))
    K = RBF(0.5)(X)
    np.testing.assert_array_equal(K, K.T)
    assert np.all(np.diag(K) == 1.0)


def test_gram_matches_sklearn_pairwise_on_scaled_inputs(rng):
    X, Y = rng.normal(size=(50, 5)), rng.normal(size=(40, 5))
    ls = np.array([0.5, 1.0, 2.0, 3.0, 0.7])
    np.testing.assert_allclose(RBF(ls)(X, Y), rbf_kernel(X / ls, Y / ls, gamma=0.5), rtol=1e-13)
    np.testing.assert_allclose(Laplacian(ls)(X, Y), laplacian_kernel(X / ls, Y / ls, gamma=1.0), rtol=1e-13)


def test_categorical_gram_counts_differing_labels(rng):
    X = rng.choice(np.array(["a", "b", "c"]), size=(30, 4))
    Y = rng.choice(np.array(["a", "b", "d"]), size=(20, 4))
    for mismatch in (0.0, 0.3):
        k = Categorical(mismatch, amplitude=2.0)
        np.testing.assert_allclose(k(X, Y), reference(k, X, Y), rtol=1e-14)
        np.testing.assert_array_equal(np.diag(k(X)), 2.0)
    # labels of mixed types, and unhashable ones, as object arrays
    Xo = np.array([[1, "a"], [2.0, "b"], [(1, 2), "a"]], dtype=object)
    Xo[2, 0] = [1, 2]
    k = Categorical(0.25)
    np.testing.assert_array_equal(k(Xo), reference(k, Xo, Xo))
    ints = rng.integers(0, 3, size=(25, 3))
    np.testing.assert_array_equal(k(ints, ints[:7] * 1.0), reference(k, ints, ints[:7] * 1.0))


def test_product_kernel_gram_merges_parts_of_one_kind(rng):
    n, m = 40, 30
    num = rng.normal(size=(n + m, 5))
    lab = rng.choice(np.array(["x", "y", "z"]), size=(n + m, 2))
    data = np.empty((n + m, 7), dtype=object)
    data[:, [0, 2, 3, 5, 6]] = num
    data[:, [1, 4]] = lab
    X, Y = data[:n], data[n:]
    k = ProductKernel(
        [
            (RBF(0.8, amplitude=2.0), [0]),
            (Categorical(0.3), [1]),
            (Laplacian([1.0, 2.0]), [2, 3]),
            (Categorical(0.6), [4]),
            (RBF(1.5), [5]),
            (Cauchy(0.9), [6]),
        ],
        amplitude=1.5,
    )
    Xf, Yf = X.copy(), Y.copy()
    assert_matches_reference(k(X, Y), reference(k, Xf, Yf))
    assert np.all(np.diag(k(X)) == pytest.approx(3.0, abs=0))
    single = ProductKernel([RBF(0.5), RBF(1.0), RBF(2.0)])
    Xn = rng.normal(size=(20, 3))
    assert_matches_reference(single(Xn), reference(single, Xn, Xn))


def test_sum_kernel_gram_is_sum_of_terms(rng):
    X, Y = rng.normal(size=(35, 3)), rng.normal(size=(25, 3))
    k = SumKernel([RBF(0.5, amplitude=2.0), Laplacian([1.0, 2.0, 3.0]), Cauchy(1.5), Categorical(0.5)])
    assert_matches_reference(k(X, Y), reference(k, X, Y))
    np.testing.assert_array_equal(np.diag(k(X)), k.diag_value())


@pytest.mark.slow
def test_gram_blocks_bound_memory(rng):
    """A Gram matrix costs its output plus blocks, never the (n, m, d) factor tensor."""
    n, d = 1500, 40
    X = rng.normal(size=(n, d))
    output = n * n * 8
    block = GRAM_BLOCK_ELEMS * 8
    kernels = [RBF(6.0), Laplacian(30.0), Cauchy(6.0), Categorical(0.5)] + [c.make(d) for c in cases(numeric=True)]
    flags = [False] * 4 + [c.positive for c in cases(numeric=True)]
    for k, pos in zip(kernels, flags):
        data = X if k.numeric_mask(d).all() else (X > 0).astype(np.int64)
        data = np.abs(data) + 0.1 if pos else data
        tracemalloc.start()
        k(data)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < output + 6 * block, (k, peak / 2**20)
        assert peak < output * d / 10  # the factor tensor would be d times the output


@pytest.mark.slow
def test_gram_blocks_do_not_change_results(rng, monkeypatch):
    import kexplain.kernels._gram as gram

    X, Y = 3 * rng.normal(size=(70, 4)), 3 * rng.normal(size=(50, 4))
    kernels = [RBF(0.4), Laplacian(1.0), Cauchy(0.7), ProductKernel([RBF(1.0), Categorical(0.5), RBF([1.0, 2.0])])]
    kernels += [c.make(4) for c in cases(numeric=True)]  # every registered numeric kernel
    flags = [False] * 4 + [c.positive for c in cases(numeric=True)]  # chi-squared kernels take x >= 0
    inputs = [(np.abs(X) + 0.1, np.abs(Y) + 0.1) if pos else (X, Y) for pos in flags]
    full = [k(A, B) for k, (A, B) in zip(kernels, inputs)]
    monkeypatch.setattr(gram, "GRAM_BLOCK_ELEMS", 7)
    for k, K, (A, B) in zip(kernels, full, inputs):  # BLAS may sum a row block in another order: rounding only
        np.testing.assert_allclose(k(A, B), K, rtol=1e-13, atol=0)
        np.testing.assert_allclose(k(A), k(A, A), rtol=1e-13, atol=0)


def test_gram_without_validation_equals_validated(rng):
    X, Y = rng.normal(size=(12, 3)), rng.normal(size=(9, 3))
    for k in (RBF(1.0), SumKernel([RBF(1.0), Cauchy(2.0)])):
        np.testing.assert_array_equal(k.gram(X, Y, check_input=False), k(X, Y))
        np.testing.assert_array_equal(k.gram(X, check_input=False), k(X))


def test_empty_inputs_give_empty_gram():
    for k in [c.make(2) for c in CASES]:  # every registered kernel
        assert k(np.zeros((0, 2)), np.zeros((3, 2))).shape == (0, 3)
        assert k(np.zeros((3, 2)), np.zeros((0, 2))).shape == (3, 0)


# -- KernelExpansion.predict through the Gram path ----------------------------------------------


def expansion_reference(em, X):
    out = np.tile(em.intercept, (len(X), 1))
    for t, amp in zip(em.terms, em.amplitudes):
        out += amp * np.prod(t.feature_values(X, em.X_ref), axis=-1) @ em.coef
    return out[:, 0] if em.single_output else out


@pytest.mark.parametrize(
    "kernel",
    [
        RBF(0.9, amplitude=1.3),
        RBF(np.array([0.5, 1.0, 2.0, 0.8])),
        Laplacian(1.5),
        Cauchy([1.0, 0.5, 2.0, 1.0]),
        SumKernel([RBF(1.0, amplitude=2.0), Laplacian(2.0), Cauchy(0.7)]),
        ProductKernel([RBF(1.0), Laplacian(0.5), Cauchy(2.0), RBF(0.3)], amplitude=0.5),
    ]
    + [c.make(4) for c in cases(numeric=True)],  # every registered numeric kernel
)
@pytest.mark.parametrize("n_outputs", [None, 3])
def test_kernel_expansion_predict_matches_per_feature_definition(kernel, n_outputs, rng):
    # chi-squared kernels take non-negative inputs: shift the data for kernels that are not
    # translation invariant (the others do not care)
    shift = 0.0 if getattr(kernel, "translation_invariant", True) else 4.0
    X_ref = np.abs(rng.normal(size=(80, 4))) + shift if shift else rng.normal(size=(80, 4))
    coef = rng.normal(size=80 if n_outputs is None else (80, n_outputs))
    intercept = 0.7 if n_outputs is None else rng.normal(size=n_outputs)
    em = kx.KernelExpansion(X_ref, coef, kernel, intercept=intercept)
    X = np.abs(rng.normal(size=(150, 4))) + shift if shift else rng.normal(size=(150, 4))
    pred = em.predict(X)
    np.testing.assert_allclose(pred, expansion_reference(em, X), rtol=1e-12, atol=1e-12 * np.abs(coef).sum())
    assert pred.shape == ((150,) if n_outputs is None else (150, n_outputs))
    # small blocks (2 reference points x 64 points) give the same numbers
    np.testing.assert_allclose(em.predict(X, max_block_bytes=4096), pred, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(em.predict(X_ref[:3]), expansion_reference(em, X_ref[:3]), rtol=1e-12)


def test_kernel_expansion_predict_with_label_features(rng):
    X_ref = np.empty((30, 3), dtype=object)
    X_ref[:, 0] = rng.normal(size=30)
    X_ref[:, 1] = rng.choice(["a", "b", "c"], size=30)
    X_ref[:, 2] = rng.normal(size=30)
    k = ProductKernel([RBF(1.0), Categorical(0.4), Laplacian(2.0)])
    em = kx.KernelExpansion(X_ref, rng.normal(size=30), k, intercept=-1.0)
    np.testing.assert_allclose(em.predict(X_ref[:10]), expansion_reference(em, X_ref[:10]), rtol=1e-12)


def test_kernel_expansion_without_reference_points_is_its_intercept():
    em = kx.KernelExpansion(np.zeros((0, 2)), np.zeros((0, 2)), RBF(1.0), intercept=[1.0, 2.0])
    np.testing.assert_array_equal(em.predict(np.ones((3, 2))), [[1.0, 2.0]] * 3)


def test_rbf_gram_with_exact_path_entries_is_symmetric(rng):
    """Entries recomputed from exact differences (large spread) keep k(X) exactly symmetric."""
    X = 40 * rng.normal(size=(50, 6))
    k = RBF(1.0)
    K = k(X)
    np.testing.assert_array_equal(K, K.T)
    assert_matches_reference(K, reference(k, X, X))


@pytest.mark.parametrize("block", [None, 997])
def test_rbf_compiled_pass_equals_the_numpy_passes_bit_for_bit(rng, monkeypatch, block):
    """Issue 26: the compiled elementwise pass of the RBF Gram path (forced here on small matrices,
    and over many blocks with ``block``) gives exactly the numpy path's numbers in every regime,
    exact-difference entries, ties and overflowing rows included."""
    from kexplain.kernels import _gram

    if _gram._compiled_rbf_pass() is None:
        pytest.skip("numba is not usable here")
    A = rng.normal(size=(60, 6))
    extra = [
        ("duplicated rows", np.repeat(A[:20], 3, axis=0), A[:45], 0.7),
        ("huge", 1e200 * rng.normal(size=(60, 6)), 1e200 * rng.normal(size=(45, 6)), 1e200),
        ("overflowing norms", 1e160 * rng.normal(size=(60, 6)), 1e160 * rng.normal(size=(45, 6)), 1.0),
    ]
    if block is not None:
        monkeypatch.setattr(_gram, "GRAM_BLOCK_ELEMS", block)
    for name, X, Y, ls in regimes(rng) + extra:
        k = RBF(ls, amplitude=1.3)
        monkeypatch.setattr(_gram, "RBF_COMPILED_MIN_ELEMS", 2**62)
        before_xy, before_xx = k(X, Y), k(X)
        monkeypatch.setattr(_gram, "RBF_COMPILED_MIN_ELEMS", 0)
        after_xy, after_xx = k(X, Y), k(X)
        assert np.array_equal(after_xy, before_xy), name
        assert np.array_equal(after_xx, before_xx), name
        assert np.array_equal(after_xx, after_xx.T) and np.all(np.diag(after_xx) == 1.3), name
        assert_matches_reference(after_xy, reference(k, X, Y)), name

"""Kernels against direct formulas and against scikit-learn."""

import numpy as np
import pytest
from kernel_conformance import STATIONARY, stationary_classes
from sklearn.gaussian_process import kernels as sk
from sklearn.metrics.pairwise import laplacian_kernel, rbf_kernel

import kexplain as kx
from kexplain.kernels import RBF, Categorical, Cauchy, Laplacian, ProductKernel, SumKernel, from_sklearn


@pytest.fixture
def XY(rng):
    return rng.normal(size=(7, 3)), rng.normal(size=(5, 3))


def direct(X, Y, profile, ls, amp=1.0):
    """amp * prod_j profile((x_j - y_j) / l_j), one pair at a time."""
    ls = np.broadcast_to(np.asarray(ls, float), (X.shape[1],))
    K = np.empty((len(X), len(Y)))
    for p in range(len(X)):
        for r in range(len(Y)):
            K[p, r] = amp * np.prod([profile((X[p, j] - Y[r, j]) / ls[j]) for j in range(X.shape[1])])
    return K


#: the registered stationary kernels and their reference profiles (tests/kernel_conformance.py)
PROFILES = STATIONARY


@pytest.mark.parametrize("cls", stationary_classes())
@pytest.mark.parametrize("ls", [0.7, [0.5, 1.3, 2.0]])
@pytest.mark.parametrize("amp", [1.0, 2.5])
def test_stationary_kernels_match_direct_formula(cls, ls, amp, XY):
    X, Y = XY
    k = cls(lengthscale=ls, amplitude=amp)
    np.testing.assert_allclose(k(X, Y), direct(X, Y, PROFILES[cls], ls, amp), rtol=1e-14)
    F = k.feature_values(X, Y)
    assert F.shape == (7, 5, 3)
    np.testing.assert_allclose(amp * F.prod(axis=-1), k(X, Y), rtol=1e-14)
    np.testing.assert_allclose(k(X), k(X, X))
    assert k.diag_value() == amp
    np.testing.assert_allclose(np.diag(k(X)), amp)


def test_rbf_and_laplacian_match_sklearn_pairwise(XY):
    X, Y = XY
    for l in (0.3, 1.0, 4.0):
        np.testing.assert_allclose(RBF(l)(X, Y), rbf_kernel(X, Y, gamma=1 / (2 * l * l)), rtol=1e-13)
        np.testing.assert_allclose(Laplacian(l)(X, Y), laplacian_kernel(X, Y, gamma=1 / l), rtol=1e-13)


def test_ard_rbf_matches_sklearn_gp_rbf(XY):
    X, Y = XY
    ls = np.array([0.4, 1.1, 3.0])
    np.testing.assert_allclose(RBF(ls)(X, Y), sk.RBF(ls)(X, Y), rtol=1e-13)


def test_categorical_values():
    X = np.array([["a", 1], ["b", 2]], dtype=object)
    Y = np.array([["a", 2], ["c", 1], ["b", 2]], dtype=object)
    k = Categorical(mismatch=0.25, amplitude=2.0)
    F = k.feature_values(X, Y)
    expected = np.where(X[:, None, :] == Y[None, :, :], 1.0, 0.25)
    np.testing.assert_array_equal(F, expected)
    np.testing.assert_allclose(k(X, Y), 2.0 * expected.prod(-1))
    assert k.numeric is False
    assert Categorical().feature_values(X, Y)[0, 0, 0] == 1.0 and Categorical().feature_values(X, Y)[0, 1, 0] == 0.0


def test_product_kernel_mixes_kernels_and_string_columns():
    X = np.array([[0.1, "red", -1.0, 2.0], [0.5, "blue", 0.3, 1.0]], dtype=object)
    Y = np.array([[0.0, "red", 0.0, 0.0], [1.0, "green", 1.0, 3.0], [0.2, "blue", 0.1, 1.5]], dtype=object)
    k = ProductKernel([RBF(0.5), Categorical(0.3), Laplacian([0.7, 2.0])], amplitude=3.0)
    assert k.n_features == 4
    np.testing.assert_array_equal(k.numeric_mask(4), [True, False, True, True])
    Xn, Yn = X[:, [0, 2, 3]].astype(float), Y[:, [0, 2, 3]].astype(float)
    expected = (
        3.0
        * direct(Xn[:, :1], Yn[:, :1], PROFILES[RBF], 0.5)
        * np.where(X[:, None, 1] == Y[None, :, 1], 1.0, 0.3)
        * direct(Xn[:, 1:], Yn[:, 1:], PROFILES[Laplacian], [0.7, 2.0])
    )
    np.testing.assert_allclose(k(X, Y), expected, rtol=1e-14)


def test_product_kernel_explicit_features_and_part_amplitudes(XY):
    X, Y = XY
    k = ProductKernel([(Cauchy(0.8, amplitude=2.0), [2]), (RBF([1.0, 0.5]), [0, 1])], amplitude=1.5)
    expected = (
        3.0 * direct(X[:, 2:], Y[:, 2:], PROFILES[Cauchy], 0.8) * direct(X[:, :2], Y[:, :2], PROFILES[RBF], [1.0, 0.5])
    )
    np.testing.assert_allclose(k(X, Y), expected, rtol=1e-14)
    assert k.diag_value() == pytest.approx(3.0)


def test_overall_amplitude_by_multiplication(XY):
    X, Y = XY
    base = RBF(0.9)
    for k in (2.0 * base, base * 2.0, 2 * base):
        np.testing.assert_allclose(k(X, Y), 2.0 * base(X, Y))
        assert k.amplitude == 2.0
    assert base.amplitude == 1.0  # multiplication makes a copy
    pk = 0.5 * ProductKernel([RBF(1.0), Laplacian(2.0), Cauchy(1.0)])
    expected = (
        0.5 * RBF(1.0)(X[:, :1], Y[:, :1]) * Laplacian(2.0)(X[:, 1:2], Y[:, 1:2]) * Cauchy(1.0)(X[:, 2:], Y[:, 2:])
    )
    np.testing.assert_allclose(pk(X, Y), expected, rtol=1e-14)
    assert pk.diag_value() == 0.5
    sk_ = 3.0 * SumKernel([RBF(1.0), Laplacian(2.0)])
    np.testing.assert_allclose(sk_(X, Y), 3.0 * (RBF(1.0)(X, Y) + Laplacian(2.0)(X, Y)))
    with pytest.raises(ValueError, match="amplitude"):
        base * 0.0
    with pytest.raises(ValueError, match="amplitude"):
        base * -1.0


def test_sum_kernel_is_sum_of_terms(XY):
    X, Y = XY
    terms = [RBF(0.5, amplitude=2.0), Laplacian([1.0, 2.0, 3.0]), Cauchy(1.5)]
    k = SumKernel(terms)
    np.testing.assert_allclose(k(X, Y), sum(t(X, Y) for t in terms), rtol=1e-14)
    assert k.diag_value() == pytest.approx(4.0)
    assert k.n_features == 3
    with pytest.raises(ValueError, match="disagree"):
        _ = SumKernel([RBF([1.0, 2.0]), RBF([1.0, 2.0, 3.0])]).n_features
    with pytest.raises(TypeError, match="terms"):
        SumKernel([])
    with pytest.raises(TypeError, match="terms"):
        SumKernel([RBF(1.0), "rbf"])


@pytest.mark.parametrize("cls", stationary_classes())
def test_rescaled_equals_kernel_on_affinely_mapped_inputs(cls, XY):
    X, Y = XY
    scale, shift = np.array([2.0, -0.5, 10.0]), np.array([1.0, 3.0, -2.0])
    k = cls([0.7, 1.2, 3.0], amplitude=1.7)
    np.testing.assert_allclose(k.rescaled(scale)(X, Y), k(scale * X + shift, scale * Y + shift), rtol=1e-13)
    iso = cls(0.9)
    np.testing.assert_allclose(iso.rescaled(scale)(X, Y), iso(scale * X + shift, scale * Y + shift), rtol=1e-13)


def test_rescaled_product_kernel_leaves_categorical_alone():
    X = np.array([[0.1, "a"], [2.0, "b"]], dtype=object)
    Y = np.array([[0.3, "a"], [-1.0, "c"]], dtype=object)
    k = ProductKernel([RBF(1.0), Categorical(0.5)], amplitude=2.0)
    r = k.rescaled(np.array([3.0, 1.0]))
    Xs = X.copy()
    Ys = Y.copy()
    Xs[:, 0] = 3.0 * X[:, 0].astype(float) + 1.0
    Ys[:, 0] = 3.0 * Y[:, 0].astype(float) + 1.0
    np.testing.assert_allclose(r(X, Y), k(Xs, Ys), rtol=1e-13)


@pytest.mark.parametrize("bad", [0.0, -1.0, np.nan, np.inf, [1.0, 0.0], [[1.0]], [], "wide", None, True])
@pytest.mark.parametrize("cls", stationary_classes())
def test_bad_lengthscale_is_rejected_with_a_clear_message(cls, bad):
    with pytest.raises(ValueError, match="lengthscale must be a positive finite number"):
        cls(lengthscale=bad)


@pytest.mark.parametrize("bad", [0.0, -2.0, np.nan, np.inf, "big", True])
def test_bad_amplitude(bad):
    with pytest.raises(ValueError, match="amplitude must be a positive finite number"):
        RBF(1.0, amplitude=bad)
    with pytest.raises(ValueError, match="amplitude must be a positive finite number"):
        ProductKernel([RBF(1.0)], amplitude=bad)


@pytest.mark.parametrize("bad", [-0.1, 1.0, 1.5, np.nan, "x", True, None])
def test_bad_mismatch(bad):
    with pytest.raises(ValueError, match=r"mismatch must be a number in \[0, 1\)"):
        Categorical(mismatch=bad)


def test_product_kernel_structure_errors():
    with pytest.raises(ValueError, match="cover 0..d-1 exactly once"):
        ProductKernel([(RBF(1.0), [0]), (RBF(1.0), [0])])
    with pytest.raises(ValueError, match="cover 0..d-1 exactly once"):
        ProductKernel([(RBF(1.0), [0]), (RBF(1.0), [2])])
    with pytest.raises(ValueError, match="one style"):
        ProductKernel([RBF(1.0), (RBF(1.0), [1])])
    with pytest.raises(TypeError, match="per-feature kernel"):
        ProductKernel([ProductKernel([RBF(1.0)])])
    with pytest.raises(TypeError, match="list of kernels"):
        ProductKernel(RBF(1.0))
    with pytest.raises(ValueError, match="must not be empty"):
        ProductKernel([])
    with pytest.raises(ValueError, match="defined on 2 features but given 1"):
        ProductKernel([(RBF([1.0, 2.0]), [0])])


def test_kernel_call_checks_feature_count(rng):
    X = rng.normal(size=(3, 2))
    with pytest.raises(ValueError, match="2 features.*3 features"):
        RBF([1.0, 1.0, 1.0])(X)
    with pytest.raises(ValueError, match="2 features.*3 features"):
        ProductKernel([RBF(1.0), RBF(1.0), RBF(1.0)])(X)
    with pytest.raises(ValueError, match="same number of features"):
        RBF(1.0)(X, rng.normal(size=(3, 3)))


# -- scikit-learn Gaussian-process kernels ------------------------------------------------------


def _sk_value(kernel, X, Y):
    """What a fitted GP uses between a new point and a training point (Y given: no white noise)."""
    return kernel(X, Y)


def _kx_value(kernel, X, Y):
    k, const = from_sklearn(kernel, X.shape[1])
    return (0.0 if k is None else k(X, Y)) + const


SK_KERNELS = {
    "rbf": sk.RBF(0.8),
    "ard": sk.RBF([0.5, 1.0, 2.0]),
    "constant*rbf+white": sk.ConstantKernel(2.3) * sk.RBF([0.5, 1.0, 2.0]) + sk.WhiteKernel(0.1),
    "rbf*constant": sk.RBF(1.3) * sk.ConstantKernel(0.4),
    "sum of rbfs": sk.RBF(0.3) + sk.ConstantKernel(1.5) * sk.RBF([1.0, 2.0, 0.5]),
    "product of rbfs": sk.RBF([0.5, 1.0, 2.0]) * sk.RBF(0.7),
    "constant+rbf": sk.ConstantKernel(0.7) + sk.RBF(1.0),
    "(c+rbf)*(c+rbf)": (sk.ConstantKernel(0.5) + sk.RBF(0.6)) * (sk.ConstantKernel(2.0) + sk.RBF([1.0, 3.0, 1.0])),
    "sum with white": sk.RBF(1.0) + sk.WhiteKernel(1.0) + sk.RBF(2.0),
    "power of a product": (sk.ConstantKernel(1.5) * sk.RBF([0.5, 1.0, 2.0])) ** 2.5,
    "integer power of a sum": (sk.ConstantKernel(0.5) + sk.RBF(0.8)) ** 3,
}


@pytest.mark.parametrize("name", list(SK_KERNELS))
def test_from_sklearn_matches_sklearn_kernel(name, XY):
    X, Y = XY
    kernel = SK_KERNELS[name]
    np.testing.assert_allclose(_kx_value(kernel, X, Y), _sk_value(kernel, X, Y), rtol=1e-13, atol=1e-15)


def test_from_sklearn_structure():
    k, c = from_sklearn(sk.ConstantKernel(2.0) * sk.RBF([1.0, 2.0]) + sk.WhiteKernel(0.5), 2)
    assert isinstance(k, RBF) and c == 0.0 and k.amplitude == 2.0
    np.testing.assert_allclose(k.lengthscale, [1.0, 2.0])
    k, c = from_sklearn(sk.RBF(1.0) * sk.RBF(1.0), 3)
    assert isinstance(k, RBF) and k.lengthscale == pytest.approx(1 / np.sqrt(2))  # 1/l^2 add up
    k, c = from_sklearn(sk.RBF(1.0) + sk.RBF(2.0), 3)
    assert isinstance(k, SumKernel) and len(k.terms) == 2
    k, c = from_sklearn(sk.ConstantKernel(3.0) + sk.WhiteKernel(1.0), 3)
    assert k is None and c == 3.0


@pytest.mark.parametrize(
    "kernel",
    [
        sk.DotProduct(),
        sk.ExpSineSquared(),
        sk.ConstantKernel(1.0) * sk.ExpSineSquared(),
        sk.RBF(1.0) + sk.DotProduct(),
        sk.Matern() * sk.ExpSineSquared(),
        sk.Matern() ** 1.5,
        (sk.RBF(1.0) + sk.RBF(2.0)) ** 0.5,
        sk.PairwiseKernel(metric="rbf"),
    ],
)
def test_from_sklearn_rejects_kernels_without_product_form(kernel):
    with pytest.raises(kx.UnsupportedModelError, match="Supported scikit-learn kernels: sums and products of RBF"):
        from_sklearn(kernel, 2)
    msg = str(pytest.raises(kx.UnsupportedModelError, from_sklearn, kernel, 2).value)
    assert "kx.RKHSExplainer(model, game='interventional')" in msg and "exact up to 12 features" in msg
    assert "exact_shapley" not in msg


def test_from_sklearn_advice_for_other_kernels_works():
    # the route the refusal names explains a fitted cosine-kernel GP exactly: values + base = prediction
    from sklearn.gaussian_process import GaussianProcessRegressor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 3))
    model = GaussianProcessRegressor(sk.PairwiseKernel(metric="cosine"), alpha=0.1, optimizer=None).fit(
        X, X[:, 0] + X[:, 1] ** 2
    )
    with pytest.raises(kx.UnsupportedModelError):
        from_sklearn(model.kernel_, 3)
    ex = kx.RKHSExplainer(model, X[:8], game="interventional").explain(X[:3])
    assert ex.game == "interventional"
    np.testing.assert_allclose(ex.values.sum(axis=1) + ex.base_values, model.predict(X[:3]), atol=1e-10)

    # interventional values by enumeration: v(S) = mean over background rows of f(x_S, b_notS)
    def value(S, x=X[0], B=X[:8]):
        Z = B.copy()
        Z[:, S] = x[S]
        return model.predict(Z).mean()

    from itertools import combinations
    from math import factorial

    phi = np.zeros(3)
    for j in range(3):
        rest = [i for i in range(3) if i != j]
        for size in range(3):
            for S in combinations(rest, size):
                w = factorial(size) * factorial(3 - size - 1) / factorial(3)
                phi[j] += w * (value(list(S) + [j]) - value(list(S)))
    np.testing.assert_allclose(ex.values[0], phi, atol=1e-10)


def test_from_sklearn_lengthscale_count_mismatch():
    with pytest.raises(kx.UnsupportedModelError, match="3 entries but the model has 2 features"):
        from_sklearn(sk.RBF([1.0, 1.0, 1.0]), 2)


def test_kernel_terms_rejects_foreign_kernels():
    with pytest.raises(TypeError, match="from_sklearn"):
        kx.kernels.kernel_terms(sk.RBF(1.0))


# -- bad inputs (issue 11, defects 6, 8 and 12) ---------------------------------------------------


def test_kernel_messages_name_columns_by_feature_name():
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame({"age": [1.0, 2.0, 3.0], "bmi": [0.5, np.nan, 1.0]})
    with pytest.raises(ValueError, match=r"X contains NaN or infinite values at \(row 1, column 'bmi'\)"):
        RBF(1.0)(X)
    with pytest.raises(ValueError, match=r"Y contains NaN or infinite values at \(row 1, column 'bmi'\)"):
        RBF(1.0).gram(X.fillna(0.0), X)
    with pytest.raises(ValueError, match=r"X contains NaN or infinite values at \(row 1, column 'b'\)"):
        RBF(1.0).gram(X.to_numpy(), feature_names=["a", "b"])
    mixed = pd.DataFrame({"age": [1.0, 2.0], "city": ["Paris", None]})
    k = ProductKernel([RBF(1.0), Categorical(0.5)])
    with pytest.raises(ValueError, match=r"X contains missing labels at \(row 1, column 'city'\)"):
        k(mixed)
    with pytest.raises(ValueError, match=r"X has non-numeric values in column\(s\) \['city'\].*Categorical"):
        RBF(1.0)(mixed)
    with pytest.raises(ValueError, match=r"X has non-numeric values in column\(s\) \['city'\].*Categorical"):
        k(mixed[["city", "age"]])
    # names of the wrong length are ignored rather than misattributing the column
    with pytest.raises(ValueError, match=r"\(row 1, column 1\)"):
        RBF(1.0).gram(X.to_numpy(), feature_names=["only_one"])
    with pytest.raises(ValueError, match=r"arrays\[0\].*NaN or infinite.*column 'bmi'"):
        kx.kernels.median_heuristic(X)
    with pytest.raises(ValueError, match=r"arrays\[0\].*NaN or infinite.*column 'b'"):
        kx.kernels.median_heuristic(X.to_numpy(), feature_names=["a", "b"])
    with pytest.raises(ValueError, match=r"arrays\[0\] has non-numeric values in column 'city'.*Categorical"):
        kx.kernels.median_heuristic(mixed.fillna("x"))
    with pytest.raises(ValueError, match=r"arrays\[0\] has non-numeric values in column 1 .*Categorical"):
        kx.kernels.median_heuristic(mixed.fillna("x").to_numpy())


def test_median_heuristic_refuses_nan_and_names_argument_and_column():
    X = np.array([[0.0, 1.0], [1.0, np.nan], [2.0, 3.0]])
    Z = np.zeros((2, 2))
    for per_feature in (False, True):
        with pytest.raises(ValueError, match=r"arrays\[0\].*NaN or infinite.*column 1"):
            kx.kernels.median_heuristic(X, per_feature=per_feature)
    with pytest.raises(ValueError, match=r"arrays\[1\].*column 0"):
        kx.kernels.median_heuristic(Z, np.array([[np.inf, 0.0]]))
    with pytest.raises(ValueError, match=r"arrays\[1\] has 3 features but arrays\[0\] has 2"):
        kx.kernels.median_heuristic(Z, np.zeros((2, 3)))
    with pytest.raises(ValueError, match="at least one array"):
        kx.kernels.median_heuristic()


@pytest.mark.parametrize("cls", stationary_classes())
def test_kernel_call_refuses_nan_and_names_argument_row_and_column(cls, rng):
    X = rng.normal(size=(4, 3))
    X[2, 1] = np.nan
    with pytest.raises(ValueError, match=r"X contains NaN or infinite values at \(row 2, column 1\)"):
        cls(1.0)(X)
    with pytest.raises(ValueError, match=r"Y contains NaN or infinite values at \(row 2, column 1\)"):
        cls(1.0)(rng.normal(size=(2, 3)), X)
    Xinf = rng.normal(size=(4, 3))
    Xinf[0, 2] = -np.inf
    with pytest.raises(ValueError, match=r"X contains NaN or infinite values at \(row 0, column 2\)"):
        SumKernel([cls(1.0), RBF(2.0)])(Xinf)


def test_product_kernel_call_refuses_nan_in_numeric_and_missing_labels():
    X = np.array([[0.1, "a"], [np.nan, "b"]], dtype=object)
    k = ProductKernel([RBF(1.0), Categorical(0.5)])
    with pytest.raises(ValueError, match=r"X contains NaN or infinite values at \(row 1, column 0\)"):
        k(X)
    Xm = np.array([[0.1, "a"], [0.2, None]], dtype=object)
    with pytest.raises(ValueError, match=r"X contains missing labels at \(row 1, column 1\)"):
        k(Xm)
    with pytest.raises(ValueError, match=r"X has non-numeric values in column\(s\) \[0\]"):
        RBF(1.0)(X[:, ::-1])


def test_kernel_call_refuses_ragged_and_complex_inputs():
    with pytest.raises(ValueError, match="X must be a 2-D array.*rows of different lengths"):
        RBF(1.0)([[1.0, 2.0], [3.0]])
    with pytest.raises(ValueError, match="Y has complex values"):
        RBF(1.0)(np.zeros((2, 2)), np.zeros((2, 2)) + 1j)


@pytest.mark.parametrize("bad", [None, 3, RBF(1.0), "rbf"])
def test_sum_kernel_of_non_list_says_what_is_accepted(bad):
    with pytest.raises(TypeError, match=r"terms must be a non-empty list of product kernels.*got"):
        SumKernel(bad)


def test_kernel_expansion_with_zero_features_is_refused_clearly():
    with pytest.raises(ValueError, match=r"X_ref must have at least one feature \(column\), got shape \(3, 0\)"):
        kx.KernelExpansion(np.zeros((3, 0)), np.ones(3), RBF(1.0))


def test_kernel_expansion_accepts_sparse_inputs_as_dense(rng):
    from scipy import sparse

    Xd = rng.normal(size=(6, 3))
    Xd[Xd < 0] = 0.0
    dense = kx.KernelExpansion(Xd, np.arange(6.0), RBF(1.0))
    em = kx.KernelExpansion(sparse.csr_matrix(Xd), np.arange(6.0), RBF(1.0))
    np.testing.assert_array_equal(em.X_ref, Xd)
    np.testing.assert_allclose(em.predict(sparse.csr_matrix(Xd[:2])), dense.predict(Xd[:2]), rtol=1e-15)


def test_kernel_expansion_refuses_ragged_reference_points_and_coefficients():
    with pytest.raises(ValueError, match="X_ref must be a 2-D array.*rows of different lengths"):
        kx.KernelExpansion([[0.0, 1.0], [2.0]], [1.0, 2.0], RBF(1.0))
    with pytest.raises(ValueError, match=r"coef must be .*numbers.*ragged|coef must be .*different lengths"):
        kx.KernelExpansion(np.zeros((2, 2)), [[1.0, 2.0], [3.0]], RBF(1.0))


@pytest.mark.parametrize("bad", ["1.5", ["1.0", "2.0"], [1.0, "x"], [True, False]])
def test_kernel_expansion_refuses_strings_and_booleans_as_coefficients(bad):
    with pytest.raises(ValueError, match=r"coef must be real numbers \(int or float\), got"):
        kx.KernelExpansion(np.zeros((2, 1)), bad if isinstance(bad, list) else [bad, bad], RBF(1.0))


@pytest.mark.parametrize("bad", ["0.5", ["1.0"], True])
def test_kernel_expansion_refuses_strings_and_booleans_as_intercept(bad):
    with pytest.raises(ValueError, match=r"intercept must be a real number \(int or float\) or one per output, got"):
        kx.KernelExpansion(np.zeros((2, 1)), [1.0, 2.0], RBF(1.0), intercept=bad)


def test_kernel_expansion_refuses_complex_coefficients_without_a_complex_warning():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's ComplexWarning would fail here
        with pytest.raises(ValueError, match=r"coef has complex values.*real numbers"):
            kx.KernelExpansion(np.zeros((2, 1)), [1.0 + 1j, 2.0], RBF(1.0))
        with pytest.raises(ValueError, match=r"intercept has complex values.*real number"):
            kx.KernelExpansion(np.zeros((2, 1)), [1.0, 2.0], RBF(1.0), intercept=1j)

"""Bad input gets a clear exception naming the argument and what is accepted; never a silent NaN."""

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.gaussian_process import kernels as sk
from sklearn.svm import SVR

import kexplain as kx
from kexplain.kernels import RBF, Categorical, ProductKernel


@pytest.fixture(scope="module")
def setup():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 3))
    y = X[:, 0] - X[:, 1] ** 2
    svr = SVR().fit(X, y)
    return dict(X=X, y=y, svr=svr, explainer=kx.ProductKernelExplainer(svr))


@pytest.fixture(scope="module")
def named():
    rng = np.random.default_rng(1)
    df = pd.DataFrame(rng.normal(size=(20, 3)), columns=["a", "b", "c"])
    svr = SVR().fit(df, df["a"] * df["b"])
    return dict(df=df, explainer=kx.ProductKernelExplainer(svr))


# -- the explained rows ------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_values_name_rows_and_columns(setup, bad):
    X = setup["X"][:4].copy()
    X[2, 1] = bad
    X[3, 0] = bad
    msg = r"X contains NaN or infinite values at \(row 2, column 1\), \(row 3, column 0\)"
    with pytest.raises(ValueError, match=msg):
        setup["explainer"].explain(X)


def test_non_finite_values_in_a_dataframe_name_columns(named):
    df = named["df"].iloc[:3].copy()
    df.iloc[1, 2] = np.nan
    with pytest.raises(ValueError, match=r"X contains NaN.*row 1, column 'c'"):
        named["explainer"].explain(df)


def test_many_bad_entries_are_summarised(setup):
    X = np.full((10, 3), np.nan)
    with pytest.raises(ValueError, match="and 25 more"):
        setup["explainer"].explain(X)


def test_wrong_number_of_features(setup):
    with pytest.raises(ValueError, match="X has 2 features, but the model expects 3"):
        setup["explainer"].explain(setup["X"][:, :2])


def test_one_dimensional_row_is_refused_with_a_hint(setup):
    with pytest.raises(ValueError, match=r"X must be 2-D.*reshape\(1, -1\)"):
        setup["explainer"].explain(setup["X"][0])
    with pytest.raises(ValueError, match="X must be a 2-D array"):
        setup["explainer"].explain(np.zeros((2, 3, 1)))
    with pytest.raises(ValueError, match="X must be a 2-D array"):
        setup["explainer"].explain(1.0)


def test_empty_input(setup):
    with pytest.raises(ValueError, match="X must have at least 1 row"):
        setup["explainer"].explain(np.zeros((0, 3)))


def test_text_columns_without_categorical_kernel(setup):
    X = setup["X"][:2].astype(object)
    X[0, 1] = "high"
    with pytest.raises(ValueError, match=r"X has non-numeric values in column\(s\) \[1\].*Categorical"):
        setup["explainer"].explain(X)


def test_text_columns_in_dataframe_name_the_column(named):
    df = named["df"].iloc[:2].copy()
    df["b"] = ["low", "high"]
    with pytest.raises(ValueError, match=r"non-numeric values in column\(s\) \['b'\].*Categorical"):
        named["explainer"].explain(df)


def test_dataframe_columns_must_match_the_model(named):
    df = named["df"].iloc[:2]
    with pytest.raises(ValueError, match="different order"):
        named["explainer"].explain(df[["b", "a", "c"]])
    with pytest.raises(
        ValueError,
        match=r"the columns of X do not match the model's: column\(s\) the model was not fitted on: 'z'; "
        r"the model's feature\(s\) 'c' are missing",
    ):
        named["explainer"].explain(df.rename(columns={"c": "z"}))


def test_an_extra_column_is_named_with_the_fix(named):
    df = named["df"].iloc[:2].assign(patient_id=[101, 102])
    with pytest.raises(ValueError) as info:
        named["explainer"].explain(df)
    msg = str(info.value)
    assert "not fitted on: 'patient_id'" in msg and "X.drop(columns=['patient_id'])" in msg
    # the advised call works
    named["explainer"].explain(df.drop(columns=["patient_id"]))
    with pytest.raises(ValueError, match=r"the model's feature\(s\) 'b' are missing.*X\[\['a', 'b', 'c'\]\]"):
        named["explainer"].explain(df[["a", "c"]])


def test_an_array_is_labelled_with_the_models_feature_names(named):
    X = named["df"].to_numpy()[:3].copy()
    X[1, 2] = np.nan
    with pytest.raises(ValueError, match=r"X contains NaN or infinite values at \(row 1, column 'c'\)"):
        named["explainer"].explain(X)


def test_wrong_number_of_dataframe_columns_lists_them(setup):
    df = pd.DataFrame(setup["X"][:2], columns=["p", "q", "r"]).assign(s=1.0)
    with pytest.raises(ValueError, match=r"X has 4 features, but the model expects 3: its columns are 'p', 'q'"):
        setup["explainer"].explain(df)


def test_text_column_advice_for_a_fitted_svr_can_be_followed(named):
    df = named["df"].iloc[:2].copy()
    df["b"] = ["low", "high"]
    with pytest.raises(ValueError) as info:
        named["explainer"].explain(df)
    msg = str(info.value)
    assert "encode these columns exactly as its training data was encoded" in msg
    # following it: the encoded rows are explained
    df["b"] = df["b"].map({"low": -1.0, "high": 1.0})
    assert named["explainer"].explain(df).values.shape == (2, 3)


def test_sparse_input_is_accepted(setup):
    from scipy import sparse

    X = setup["X"][:3]
    a = setup["explainer"].explain(sparse.csr_matrix(X))
    b = setup["explainer"].explain(X)
    np.testing.assert_allclose(a.values, b.values)


def test_lists_are_accepted(setup):
    X = setup["X"][:2]
    np.testing.assert_allclose(setup["explainer"].explain(X.tolist()).values, setup["explainer"].explain(X).values)


# -- background and baseline -------------------------------------------------------------------


def test_empty_background(setup):
    with pytest.raises(ValueError, match="background must have at least 1 row"):
        kx.ProductKernelExplainer(setup["svr"], np.zeros((0, 3))).explain(setup["X"][:2])


def test_background_with_a_different_number_of_features(setup):
    with pytest.raises(ValueError, match="background has 4 features, but the model expects 3"):
        kx.ProductKernelExplainer(setup["svr"], np.zeros((5, 4))).explain(setup["X"][:2])


def test_background_with_nan(setup):
    B = setup["X"][:5].copy()
    B[4, 2] = np.nan
    with pytest.raises(ValueError, match=r"background contains NaN or infinite values at \(row 4, column 2\)"):
        kx.ProductKernelExplainer(setup["svr"], B).explain(setup["X"][:2])


def test_background_one_dimensional(setup):
    with pytest.raises(ValueError, match="background must be"):
        kx.ProductKernelExplainer(setup["svr"], setup["X"][0]).explain(setup["X"][:2])


def test_background_with_other_columns_than_the_model(named):
    df = named["df"]
    with pytest.raises(ValueError, match=r"the columns of background do not match the model's: .*not fitted on: 'A'"):
        kx.ProductKernelExplainer(named["explainer"].model, df.iloc[:5].rename(columns={"a": "A"})).explain(df.iloc[:2])


def test_background_with_other_columns_than_x_for_a_model_without_names(setup):
    X = pd.DataFrame(setup["X"][:2], columns=["u", "v", "w"])
    B = pd.DataFrame(setup["X"][:5], columns=["p", "q", "r"])
    # the background, given first, fixes the column names; X is then checked against them
    msg = r"columns of X do not match .* not fitted on: 'u', 'v', 'w'.*X\[\['p', 'q', 'r'\]\]"
    with pytest.raises(ValueError, match=msg):
        kx.ProductKernelExplainer(setup["svr"], B).explain(X)
    ex = kx.ProductKernelExplainer(setup["svr"], B.set_axis(["u", "v", "w"], axis=1)).explain(X)
    assert ex.feature_names == ["u", "v", "w"]


@pytest.mark.parametrize(
    "weights,match",
    [
        ([1.0, 2.0], r"background_weights must be a 1-D array with one weight per row \(5\)"),
        (np.ones((5, 1)), "one weight per row"),
        ([1, 1, -1, 1, 1], "non-negative"),
        ([1, 1, np.nan, 1, 1], "finite"),
        ([0, 0, 0, 0, 0], "not all zero"),
        (["a"] * 5, "background_weights must be"),
    ],
)
def test_bad_background_weights(setup, weights, match):
    with pytest.raises(ValueError, match=match):
        kx.ProductKernelExplainer(setup["svr"], setup["X"][:5], background_weights=weights).explain(setup["X"][:2])


def test_weights_without_background(setup):
    with pytest.raises(ValueError, match="background_weights needs a background"):
        kx.ProductKernelExplainer(setup["svr"], background_weights=[1.0]).explain(setup["X"][:2])


def test_background_and_baseline_together(setup):
    with pytest.raises(ValueError, match="either background .* or baseline"):
        kx.ProductKernelExplainer(setup["svr"], setup["X"][:5], baseline=setup["X"][0]).explain(setup["X"][:2])


def test_bad_baseline(setup):
    with pytest.raises(ValueError, match=r"baseline must be one row of shape \(d,\) or \(1, d\)"):
        kx.ProductKernelExplainer(setup["svr"], baseline=setup["X"][:2]).explain(setup["X"][:2])
    with pytest.raises(ValueError, match="baseline has 2 features, but the model expects 3"):
        kx.ProductKernelExplainer(setup["svr"], baseline=[0.0, 1.0]).explain(setup["X"][:2])
    with pytest.raises(ValueError, match="baseline contains NaN"):
        kx.ProductKernelExplainer(setup["svr"], baseline=[0.0, np.nan, 1.0]).explain(setup["X"][:2])


# -- flags and options ---------------------------------------------------------------------


@pytest.mark.parametrize("flag", ["yes", 1, "shap", "sti", [True]])
def test_bad_interactions_flag(setup, flag):
    with pytest.raises(TypeError, match="interactions must be True or False, or the name of an index"):
        setup["explainer"].explain(setup["X"][:2], interactions=flag)


def test_interactions_none_means_no_interactions(setup):
    # None is what check_explain_options returns for "no interactions"; passing it is the same as False
    assert setup["explainer"].explain(setup["X"][:2], interactions=None).interactions is None


@pytest.mark.parametrize("flag", ["yes", 2, None])
def test_bad_progress_flag(setup, flag):
    with pytest.raises(TypeError, match="progress must be True or False"):
        setup["explainer"].explain(setup["X"][:2], progress=flag)


@pytest.mark.parametrize("value", [0, 100, 2.5e8, "64MB"])
def test_bad_max_block_bytes(setup, value):
    with pytest.raises(ValueError, match="max_block_bytes must be an integer >= 65536"):
        kx.ProductKernelExplainer(setup["svr"], max_block_bytes=value)


def test_feature_names_of_the_wrong_length(setup):
    with pytest.raises(ValueError, match="feature_names has 2 names for 3 features"):
        kx.ProductKernelExplainer(setup["svr"], feature_names=["a", "b"])


def test_display_feature_names_do_not_constrain_dataframe_columns(named):
    explainer = kx.ProductKernelExplainer(named["explainer"].model, feature_names=["A", "B", "C"])
    ex = explainer.explain(named["df"].iloc[:2])
    assert ex.feature_names == ["A", "B", "C"]


def test_unfitted_model(setup):
    with pytest.raises(NotFittedError):
        kx.ProductKernelExplainer(SVR())


# -- KernelExpansion and kernels -----------------------------------------------------------


def test_kernel_expansion_rejects_foreign_kernels():
    with pytest.raises(kx.UnsupportedModelError, match="kernel must be a kexplain kernel.*from_sklearn"):
        kx.KernelExpansion(np.zeros((2, 2)), [1.0, 2.0], sk.RBF(1.0))
    with pytest.raises(TypeError, match="kernel must be a kexplain kernel"):
        kx.KernelExpansion(np.zeros((2, 2)), [1.0, 2.0], "rbf")


def test_kernel_expansion_argument_errors():
    Xr = np.zeros((3, 2))
    with pytest.raises(ValueError, match=r"coef must have shape \(n_reference_points,\)"):
        kx.KernelExpansion(Xr, [1.0, 2.0], RBF(1.0))
    with pytest.raises(ValueError, match="coef contains NaN"):
        kx.KernelExpansion(Xr, [1.0, np.nan, 0.0], RBF(1.0))
    with pytest.raises(ValueError, match="intercept must be a number or have one entry per output"):
        kx.KernelExpansion(Xr, np.ones((3, 2)), RBF(1.0), intercept=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="intercept contains NaN"):
        kx.KernelExpansion(Xr, np.ones(3), RBF(1.0), intercept=np.nan)
    with pytest.raises(ValueError, match="X_ref must be 2-D"):
        kx.KernelExpansion(np.zeros(3), np.ones(3), RBF(1.0))
    with pytest.raises(ValueError, match="X_ref contains NaN"):
        kx.KernelExpansion(np.array([[0.0, np.nan]]), [1.0], RBF(1.0))
    with pytest.raises(ValueError, match="X_ref has 2 features but the kernel"):
        kx.KernelExpansion(Xr, np.ones(3), RBF([1.0, 1.0, 1.0]))
    with pytest.raises(ValueError, match="feature_names has 1 names for 2 features"):
        kx.KernelExpansion(Xr, np.ones(3), RBF(1.0), feature_names=["a"])
    with pytest.raises(ValueError, match="output_names has 2 names for 1 outputs"):
        kx.KernelExpansion(Xr, np.ones(3), RBF(1.0), output_names=["a", "b"])


def test_categorical_features_with_missing_labels():
    kernel = ProductKernel([RBF(1.0), Categorical(0.5)])
    Xr = np.array([[0.0, "a"], [1.0, "b"]], dtype=object)
    em = kx.KernelExpansion(Xr, [1.0, -1.0], kernel)
    for missing in (None, np.nan, float("nan"), pd.NA):
        X = np.array([[0.5, "a"], [0.2, missing]], dtype=object)
        with pytest.raises(ValueError, match=r"X contains missing labels at \(row 1, column 1\)"):
            kx.ProductKernelExplainer(em).explain(X)
    X = np.array([[np.nan, "a"]], dtype=object)
    with pytest.raises(ValueError, match=r"X contains NaN or infinite values at \(row 0, column 0\)"):
        kx.ProductKernelExplainer(em).explain(X)
    X = np.array([["zero", "a"]], dtype=object)
    with pytest.raises(ValueError, match="column 0 holds text or labels, but the model's kernel takes numbers"):
        kx.ProductKernelExplainer(em).explain(X)


def test_unsupported_model_message_lists_supported(setup):
    with pytest.raises(kx.UnsupportedModelError, match="Supported: SVR, NuSVR, SVC, NuSVC"):
        kx.ProductKernelExplainer(SVR(kernel="sigmoid").fit(setup["X"], setup["y"]))


# -- the enumeration solver ------------------------------------------------------------------


@pytest.mark.parametrize("d", [0, -1, 2.0, True, "3", 21])
def test_exact_shapley_bad_d(d):
    with pytest.raises(ValueError, match="d"):
        kx.exact_shapley(lambda C: C.sum(1), d)


def test_exact_shapley_bad_value_function():
    with pytest.raises(TypeError, match="value_function must be callable"):
        kx.exact_shapley("sum", 2)
    with pytest.raises(ValueError, match="one entry per coalition"):
        kx.exact_shapley(lambda C: np.zeros(3), 2)
    with pytest.raises(ValueError, match="value_function returned NaN"):
        kx.exact_shapley(lambda C: np.full(len(C), np.nan), 2)
    with pytest.raises(ValueError, match="batch_size must be a positive integer"):
        kx.exact_shapley(lambda C: C.sum(1), 2, batch_size=0)


# --- issue 11: weights whose sum overflows, complex weights (defects 5 and 6) -------------------


def test_weights_whose_sum_overflows_are_normalised_exactly():
    from kexplain._validation import check_weights

    w = check_weights([1e308, 1e308, 1e308 / 2], 3)
    np.testing.assert_allclose(w, [0.4, 0.4, 0.2], rtol=1e-15)
    np.testing.assert_allclose(check_weights([5e-324, 5e-324], 2), [0.5, 0.5])


def test_complex_weights_are_refused_by_name():
    from kexplain._validation import check_weights

    with pytest.raises(ValueError, match="background_weights .*complex"):
        check_weights(np.array([1.0 + 1j, 2.0]), 2)
    with pytest.raises(ValueError, match="background_weights .*complex"):
        check_weights([1.0 + 0j, 2.0], 2)


def test_explainers_with_overflowing_weights_equal_normalised_weights():
    import warnings

    rng = np.random.default_rng(3)
    Z = rng.normal(size=(4, 2))
    X = rng.normal(size=(2, 2))
    big = np.array([1e308, 1e308, 5e307, 5e307])
    small = big / 1e308
    terms = [((0, 1), lambda A: A[:, 0] * A[:, 1] + A[:, 0])]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = kx.star.StarExplainer(terms, Z, background_weights=big).explain(X)
    b = kx.star.StarExplainer(terms, Z, background_weights=small).explain(X)
    np.testing.assert_allclose(a.values, b.values, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(a.base_values, b.base_values, rtol=1e-13, atol=1e-15)
    em = kx.KernelExpansion(Z, np.array([1.0, -2.0, 0.5, 1.0]), RBF(1.0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c = kx.ProductKernelExplainer(em, Z, background_weights=big).explain(X)
    e = kx.ProductKernelExplainer(em, Z, background_weights=small).explain(X)
    np.testing.assert_allclose(c.values, e.values, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(c.base_values, e.base_values, rtol=1e-13, atol=1e-15)
    assert np.all(np.abs(c.base_values) > 0)

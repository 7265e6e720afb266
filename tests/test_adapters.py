"""Adapters: the kernel expansion of a fitted scikit-learn model reproduces the model's output."""

import numpy as np
import pandas as pd
import pytest
from conftest import assert_rel_close
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.decomposition import PCA
from sklearn.exceptions import NotFittedError
from sklearn.gaussian_process import GaussianProcessClassifier, GaussianProcessRegressor
from sklearn.gaussian_process import kernels as sk
from sklearn.kernel_ridge import KernelRidge
from sklearn.linear_model import LinearRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import (
    MaxAbsScaler,
    MinMaxScaler,
    PolynomialFeatures,
    QuantileTransformer,
    RobustScaler,
    StandardScaler,
)
from sklearn.svm import SVC, SVR, NuSVC, NuSVR

import kexplain as kx
from kexplain.models import as_kernel_expansion, describe_output, model_output

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(1)
    # features on very different scales, so that folding scalers into the kernel matters
    X = rng.normal(size=(40, 4)) * np.array([1.0, 10.0, 0.1, 3.0]) + np.array([0.0, 50.0, -1.0, 2.0])
    Xt = rng.normal(size=(15, 4)) * np.array([1.0, 10.0, 0.1, 3.0]) + np.array([0.0, 50.0, -1.0, 2.0])
    z = (X - X.mean(0)) / X.std(0)
    y = np.sin(z[:, 0]) + z[:, 1] * z[:, 2] + 0.1 * rng.normal(size=40)
    y2 = np.column_stack([y, np.cos(z[:, 3]) - z[:, 0]])
    yc = (z[:, 0] + z[:, 1] > 0).astype(int)
    y3 = np.digitize(z[:, 0] + 0.5 * z[:, 3], [-0.5, 0.5])  # 3 classes
    y4 = np.array(["ant", "bee", "cat", "dog"])[np.digitize(z[:, 0] - z[:, 1], [-0.8, 0.0, 0.8])]
    return dict(X=X, Xt=Xt, y=y, y2=y2, yc=yc, y3=y3, y4=y4, z=z)


def _check(model, X, expected, rtol=1e-10):
    em = as_kernel_expansion(model)
    assert isinstance(em, kx.KernelExpansion)
    assert_rel_close(em.predict(X), expected, rtol=rtol)
    return em


def _scaled(est):
    return make_pipeline(StandardScaler(), est)


# -- support vector machines ---------------------------------------------------------------------


@pytest.mark.parametrize("est", [SVR(C=3.0), SVR(gamma=0.3, epsilon=0.05), NuSVR(nu=0.4, gamma="auto")])
def test_svr(est, data):
    m = _scaled(est).fit(data["X"], data["y"])
    _check(m, data["Xt"], m.predict(data["Xt"]))


@pytest.mark.parametrize("est", [SVC(C=2.0), NuSVC(nu=0.3, gamma=0.2)])
def test_binary_svc_decision_function(est, data):
    m = _scaled(est).fit(data["X"], data["yc"])
    em = _check(m, data["Xt"], m.decision_function(data["Xt"]))
    assert em.n_outputs == 1


@pytest.mark.parametrize(
    "est", [SVC(C=2.0, decision_function_shape="ovo"), NuSVC(nu=0.2, decision_function_shape="ovo")]
)
@pytest.mark.parametrize("target", ["y3", "y4"])
def test_multiclass_svc_one_output_per_pair(est, target, data):
    m = _scaled(est).fit(data["X"], data[target])
    classes = list(m.classes_)
    em = _check(m, data["Xt"], m.decision_function(data["Xt"]))
    pairs = [(a, b) for i, a in enumerate(classes) for b in classes[i + 1 :]]
    assert em.output_names == [f"{a} vs {b}" for a, b in pairs]
    assert_rel_close(em.predict(data["Xt"]), model_output(m, data["Xt"]))


@pytest.mark.parametrize("est", [SVC(C=2.0), NuSVC(nu=0.2), SVC(decision_function_shape="ovr")])
def test_multiclass_svc_with_ovr_shape_is_refused_with_both_routes(est, data):
    m = _scaled(est).fit(data["X"], data["y3"])
    for call in (lambda: as_kernel_expansion(m), lambda: kx.ProductKernelExplainer(m)):
        with pytest.raises(kx.UnsupportedModelError) as info:
            call()
        msg = str(info.value)
        assert "decision_function_shape='ovr'" in msg and "not a kernel expansion" in msg
        # the pipeline's parameter name, ready to paste
        step = m.steps[-1][0]
        assert f"model.set_params({step}__decision_function_shape='ovo')" in msg
        assert "kx.RKHSExplainer(model.decision_function, background=B, game='interventional')" in msg
    # the first advised call works and needs no refit
    m.set_params(**{f"{m.steps[-1][0]}__decision_function_shape": "ovo"})
    _check(m, data["Xt"], m.decision_function(data["Xt"]))


def test_svm_on_sparse_input(data):
    from scipy import sparse

    m = SVR(gamma=0.05).fit(sparse.csr_matrix(data["X"]), data["y"])
    _check(m, data["Xt"], m.predict(data["Xt"]))


# -- kernel ridge ----------------------------------------------------------------------------------


@pytest.mark.parametrize("kernel,gamma", [("rbf", None), ("rbf", 0.2), ("laplacian", None), ("laplacian", 0.5)])
@pytest.mark.parametrize("target", ["y", "y2"])
def test_kernel_ridge(kernel, gamma, target, data):
    m = _scaled(KernelRidge(alpha=0.1, kernel=kernel, gamma=gamma)).fit(data["X"], data[target])
    em = _check(m, data["Xt"], m.predict(data["Xt"]))
    assert em.n_outputs == (2 if target == "y2" else 1)


def test_kernel_ridge_ignores_kernel_params_for_string_kernels(data):
    # scikit-learn passes gamma (not kernel_params) to string kernels
    m = KernelRidge(kernel="rbf", gamma=0.01, kernel_params={"gamma": 5.0}).fit(data["X"], data["y"])
    _check(m, data["Xt"], m.predict(data["Xt"]))


def test_kernel_ridge_with_gp_kernel(data):
    k = sk.ConstantKernel(2.0) * sk.RBF([1.0, 2.0, 0.5, 1.5]) + sk.ConstantKernel(0.3) + sk.WhiteKernel(0.2)
    m = _scaled(KernelRidge(alpha=0.5, kernel=k)).fit(data["X"], data["y2"])
    _check(m, data["Xt"], m.predict(data["Xt"]))


# -- Gaussian processes -------------------------------------------------------------------------

GPR_KERNELS = {
    "iso": sk.RBF(1.0),
    "ard": sk.RBF([1.0, 1.0, 1.0, 1.0]),
    "c*ard+white": sk.ConstantKernel(1.0) * sk.RBF([1.0, 1.0, 1.0, 1.0]) + sk.WhiteKernel(0.1),
    "c+c*rbf": sk.ConstantKernel(0.5) + sk.ConstantKernel(1.0) * sk.RBF(1.0),
    "sum of rbfs": sk.RBF(0.5) + sk.ConstantKernel(0.5) * sk.RBF(3.0) + sk.WhiteKernel(0.1),
    "product of rbfs": sk.RBF([1.0, 2.0, 1.0, 2.0]) * sk.RBF(2.0),
}


@pytest.mark.parametrize("name", list(GPR_KERNELS))
@pytest.mark.parametrize("normalize_y", [False, True])
def test_gpr(name, normalize_y, data):
    gp = GaussianProcessRegressor(
        GPR_KERNELS[name],
        normalize_y=normalize_y,
        alpha=1e-3,
        optimizer=None if name == "product of rbfs" else "fmin_l_bfgs_b",
    )
    m = _scaled(gp).fit(data["X"], 3.0 * data["y"] + 10.0)
    _check(m, data["Xt"], m.predict(data["Xt"]))


@pytest.mark.parametrize("normalize_y", [False, True])
def test_gpr_multi_target(normalize_y, data):
    gp = GaussianProcessRegressor(sk.ConstantKernel() * sk.RBF(1.0), normalize_y=normalize_y, alpha=1e-2)
    y2 = data["y2"] * np.array([5.0, 0.2]) + np.array([3.0, -1.0])
    m = _scaled(gp).fit(data["X"], y2)
    em = _check(m, data["Xt"], m.predict(data["Xt"]))
    assert em.n_outputs == 2


def test_gpr_single_column_target(data):
    m = _scaled(GaussianProcessRegressor(sk.RBF(1.0), normalize_y=True)).fit(data["X"], data["y"][:, None])
    em = _check(m, data["Xt"], np.ravel(m.predict(data["Xt"])))
    assert em.n_outputs == 1


def _gpc_latent_mean(gpc, X):
    """sklearn's own latent mean (the Laplace posterior mean, f* = k(X_train, x)' (y - pi))."""
    base = gpc.base_estimator_
    K_star = base.kernel_(base.X_train_, X)
    return K_star.T @ (base.y_train_ - base.pi_)


@pytest.mark.parametrize("kernel", [sk.RBF(1.0), sk.ConstantKernel(2.0) * sk.RBF([1.0, 1.0, 1.0, 1.0])])
def test_binary_gpc_latent_mean(kernel, data):
    m = GaussianProcessClassifier(kernel, random_state=0).fit(data["z"], data["yc"])
    em = _check(m, data["z"][:10], _gpc_latent_mean(m, data["z"][:10]))
    # the latent mean decides the class: positive latent mean <=> class 1 more probable
    proba = m.predict_proba(data["z"][:10])[:, 1]
    np.testing.assert_array_equal(em.predict(data["z"][:10]) > 0, proba > 0.5)


def test_binary_gpc_in_pipeline_laplace_formula(data):
    m = _scaled(GaussianProcessClassifier(sk.RBF(1.0), random_state=0)).fit(data["X"], data["yc"])
    gpc = m[-1]
    Zt = m[0].transform(data["Xt"])
    _check(m, data["Xt"], _gpc_latent_mean(gpc, Zt))


# -- pipelines of scalers --------------------------------------------------------------------------

SCALER_CHAINS = {
    "standard": [StandardScaler()],
    "standard no mean": [StandardScaler(with_mean=False)],
    "standard no std": [StandardScaler(with_std=False)],
    "minmax": [MinMaxScaler(feature_range=(-2, 3))],
    "maxabs": [MaxAbsScaler()],
    "robust": [RobustScaler(quantile_range=(10, 90))],
    "robust no centering": [RobustScaler(with_centering=False)],
    "chain": [MinMaxScaler(), StandardScaler(), MaxAbsScaler(), RobustScaler()],
    "passthrough": ["passthrough", StandardScaler()],
}


@pytest.mark.parametrize("chain", list(SCALER_CHAINS))
@pytest.mark.parametrize(
    "est",
    [
        SVR(C=2.0),
        KernelRidge(alpha=0.3, kernel="laplacian", gamma=0.3),
        GaussianProcessRegressor(sk.RBF([1.0] * 4), alpha=1e-2, optimizer=None),
    ],
)
def test_pipelines_of_scalers_are_folded_into_the_kernel(chain, est, data):
    from sklearn.pipeline import Pipeline

    steps = [(f"s{i}", clone(s) if s != "passthrough" else s) for i, s in enumerate(SCALER_CHAINS[chain])]
    m = Pipeline(steps + [("est", clone(est))]).fit(data["X"], data["y"])
    em = _check(m, data["Xt"], m.predict(data["Xt"]))
    # the reference points live on the original feature scale
    assert np.abs(em.X_ref[:, 1]).mean() > 10


def test_feature_names_from_dataframe_flow_to_explanation(data):
    cols = ["age", "income", "ratio", "score"]
    df = pd.DataFrame(data["X"], columns=cols)
    m = _scaled(SVR()).fit(df, data["y"])
    em = as_kernel_expansion(m)
    assert em.feature_names == cols
    ex = kx.ProductKernelExplainer(m).explain(pd.DataFrame(data["Xt"][:3], columns=cols))
    assert ex.feature_names == cols
    # also when explaining a plain array
    ex = kx.ProductKernelExplainer(m).explain(data["Xt"][:3])
    assert ex.feature_names == cols
    assert_rel_close(ex.predictions, m.predict(pd.DataFrame(data["Xt"][:3], columns=cols)))


def test_kernel_expansion_passes_through(data):
    em = kx.KernelExpansion(data["X"][:5], np.arange(5.0), kx.kernels.RBF(2.0), intercept=1.0)
    assert as_kernel_expansion(em) is em


# -- unsupported models ------------------------------------------------------------------------

UNSUPPORTED = {
    "svr poly": lambda: SVR(kernel="poly"),
    "svr sigmoid": lambda: SVR(kernel="sigmoid"),
    "svr linear": lambda: SVR(kernel="linear"),
    "svc poly": lambda: SVC(kernel="poly"),
    "kr linear": lambda: KernelRidge(kernel="linear"),
    "kr poly": lambda: KernelRidge(kernel="polynomial"),
    "kr expsine": lambda: KernelRidge(kernel=sk.ExpSineSquared(periodicity=7.0), alpha=0.1),
    "gpr cosine": lambda: GaussianProcessRegressor(sk.PairwiseKernel(metric="cosine"), alpha=0.1, optimizer=None),
    "gpr dot": lambda: GaussianProcessRegressor(sk.DotProduct() + sk.WhiteKernel()),
    "gpr rbf+cosine": lambda: GaussianProcessRegressor(
        sk.RBF() + sk.PairwiseKernel(metric="cosine"), alpha=0.1, optimizer=None
    ),
    "gpr matern^1.5": lambda: GaussianProcessRegressor(sk.Matern() ** 1.5, optimizer=None),
    "linear regression": lambda: LinearRegression(),
    "pca pipeline": lambda: make_pipeline(PCA(n_components=3), SVR()),
    "poly features pipeline": lambda: make_pipeline(PolynomialFeatures(2), SVR()),
    "quantile pipeline": lambda: make_pipeline(QuantileTransformer(n_quantiles=10), SVR()),
    "column transformer": lambda: make_pipeline(
        ColumnTransformer([("s", StandardScaler(), [0, 1])], remainder="passthrough"), SVR()
    ),
    "minmax clip": lambda: make_pipeline(MinMaxScaler(clip=True), SVR()),
}


#: no KernelExpansion, but ProductKernelExplainer explains them exactly by its polynomial route
#: (tests/test_polynomial_kernels.py checks the values)
POLYNOMIAL_ROUTE = {"svr poly", "svr linear", "svc poly", "kr linear", "kr poly", "gpr dot"}


@pytest.mark.parametrize("name", list(UNSUPPORTED))
def test_unsupported_models_raise_with_what_is_supported(name, data):
    est = UNSUPPORTED[name]()
    m = est.fit(data["X"], data["yc"] if name.startswith("svc") else data["y"])
    with pytest.raises(kx.UnsupportedModelError, match="Supported") as info:
        as_kernel_expansion(m)
    assert "SVR" in str(info.value) and "RBF" in str(info.value)
    if name in POLYNOMIAL_ROUTE:
        assert "ProductKernelExplainer" in str(info.value)
        ex = kx.ProductKernelExplainer(m, background=data["X"][:3]).explain(data["X"][:2])
        assert ex.info["route"] in ("polynomial", "monomials")
    else:
        with pytest.raises(kx.UnsupportedModelError):
            kx.ProductKernelExplainer(m)


def test_svc_precomputed_is_unsupported(data):
    K = kx.kernels.RBF(3.0)(data["X"])
    m = SVC(kernel="precomputed").fit(K, data["yc"])
    with pytest.raises(kx.UnsupportedModelError, match="precomputed"):
        as_kernel_expansion(m)


def test_unknown_objects_are_unsupported():
    for obj in (object(), "svr", None, np.eye(3)):
        with pytest.raises(kx.UnsupportedModelError, match="Supported"):
            as_kernel_expansion(obj)


def test_unsupported_error_is_type_and_value_error():
    assert issubclass(kx.UnsupportedModelError, TypeError)
    assert issubclass(kx.UnsupportedModelError, ValueError)


@pytest.mark.parametrize(
    "model",
    [
        SVR(),
        SVC(),
        NuSVR(),
        NuSVC(),
        KernelRidge(kernel="rbf"),
        GaussianProcessRegressor(),
        GaussianProcessClassifier(),
        make_pipeline(StandardScaler(), SVR()),
    ],
)
def test_unfitted_models_raise_not_fitted(model):
    with pytest.raises(NotFittedError):
        as_kernel_expansion(model)
    with pytest.raises(NotFittedError):
        kx.ProductKernelExplainer(model)


def test_pipeline_with_unfitted_scaler_but_fitted_estimator(data):
    svr = SVR().fit(data["X"], data["y"])
    from sklearn.pipeline import Pipeline

    m = Pipeline([("s", StandardScaler()), ("svr", svr)])
    with pytest.raises(NotFittedError):
        as_kernel_expansion(m)


def test_multiclass_gpc_one_vs_rest_latent_means(data):
    m = GaussianProcessClassifier(sk.RBF(1.0), optimizer=None).fit(data["z"], data["y3"])
    em = as_kernel_expansion(m)
    assert em.output_names == [f"class {c}" for c in m.classes_]
    assert not em.per_output_kernels  # one kernel shared by the classes
    Xt = data["z"][:8]
    for k, base in enumerate(m.base_estimator_.estimators_):
        expected = base.kernel_(base.X_train_, Xt).T @ (base.y_train_ - base.pi_)
        assert_rel_close(em.predict(Xt)[:, k], expected)
    assert_rel_close(em.predict(Xt), model_output(m, Xt))


def test_multiclass_gpc_with_learned_kernels_has_one_kernel_per_class(data):
    m = GaussianProcessClassifier(sk.RBF(1.0), random_state=0).fit(data["z"], data["y3"])
    kernels = {repr(b.kernel_) for b in m.base_estimator_.estimators_}
    assert len(kernels) == 3  # learned hyperparameters differ between the classes
    em = as_kernel_expansion(m)
    assert em.per_output_kernels and em.output_names == [f"class {c}" for c in m.classes_]
    Xt = data["z"][:8]
    assert_rel_close(em.predict(Xt), model_output(m, Xt))
    assert "each with its own kernel" in describe_output(m)


def test_nested_pipelines_are_flattened(data):
    from sklearn.pipeline import Pipeline

    inner = Pipeline([("a", MinMaxScaler()), ("skip", "passthrough"), ("b", StandardScaler())])
    m = Pipeline([("pre", inner), ("none", None), ("model", make_pipeline(RobustScaler(), SVR(C=3.0)))])
    m.fit(data["X"], data["y"])
    _check(m, data["Xt"], m.predict(data["Xt"]))
    assert_rel_close(model_output(m, data["Xt"]), m.predict(data["Xt"]))


def test_kernel_expansion_predict_is_the_kernel_sum(rng):
    from kexplain.kernels import RBF, Laplacian, SumKernel

    X_ref, X = rng.normal(size=(9, 3)), rng.normal(size=(4, 3))
    kernel = SumKernel([RBF([1.0, 2.0, 0.5], amplitude=2.0), Laplacian(1.5)])
    coef = rng.normal(size=(9, 2))
    em = kx.KernelExpansion(X_ref, coef, kernel, intercept=[1.0, -2.0])
    direct = np.array(
        [
            [
                sum(
                    coef[i, o]
                    * (
                        2.0 * np.exp(-0.5 * np.sum(((x - X_ref[i]) / [1.0, 2.0, 0.5]) ** 2))
                        + np.exp(-np.sum(np.abs(x - X_ref[i])) / 1.5)
                    )
                    for i in range(9)
                )
                for o in range(2)
            ]
            for x in X
        ]
    ) + np.array([1.0, -2.0])
    assert_rel_close(em.predict(X), direct, rtol=1e-13)
    assert_rel_close(em.predict(X, max_block_bytes=8 * 3 * 2 * 64), direct, rtol=1e-13)
    single = kx.KernelExpansion(X_ref, coef[:, 0], kernel, intercept=1.0)
    assert single.predict(X).shape == (4,)
    assert single.n_rows == 18 and em.n_outputs == 2


def test_svr_without_support_vectors_is_a_constant_model(data):
    m = SVR(epsilon=100.0).fit(data["X"], data["y"])
    assert m.support_vectors_.shape[0] == 0
    em = _check(m, data["Xt"], m.predict(data["Xt"]))
    for kwargs in ({}, {"background": data["X"][:3]}, {"baseline": data["X"][0]}):
        ex = kx.ProductKernelExplainer(m, **kwargs).explain(data["Xt"][:3], interactions=True)
        np.testing.assert_array_equal(ex.values, 0.0)
        np.testing.assert_array_equal(ex.interactions, 0.0)
        assert_rel_close(ex.base_values, m.predict(data["Xt"][:3]))
    assert em.n_rows == 0


# -- which output is explained -------------------------------------------------------------------


def test_describe_output_names_the_method_and_the_model(data):
    X, y, yc, y3 = data["X"], data["y"], data["yc"], data["y3"]
    z = data["z"]
    assert describe_output(SVR().fit(X, y)) == "predict of SVR"
    assert describe_output(_scaled(KernelRidge(kernel="rbf")).fit(X, y)) == (
        "predict of Pipeline(StandardScaler, KernelRidge)"
    )
    assert describe_output(SVC().fit(X, yc)) == "decision_function of SVC (> 0 favours class 1)"
    assert describe_output(SVC(decision_function_shape="ovo").fit(z, y3)) == (
        "decision_function of SVC (one-vs-one: one output per class pair; 'a vs b' > 0 favours class a)"
    )
    assert "not a kernel expansion" in describe_output(SVC().fit(z, y3))
    gpc = GaussianProcessClassifier(sk.RBF(1.0), optimizer=None)
    assert describe_output(clone(gpc).fit(z, (y3 > 0).astype(int))) == (
        "latent mean of GaussianProcessClassifier (> 0 favours class 1)"
    )
    assert describe_output(clone(gpc).fit(z, y3)) == (
        "latent mean of GaussianProcessClassifier (one-vs-rest: one output per class; "
        "'class k' > 0 favours class k over the rest)"
    )
    em = kx.KernelExpansion(X[:3], np.ones(3), kx.kernels.RBF(1.0))
    assert describe_output(em) == "KernelExpansion.predict"
    # the explainer reports the same output on its Explanation
    m = SVR().fit(X, y)
    assert kx.ProductKernelExplainer(m).explain(X[:2]).output == describe_output(m)


@pytest.mark.filterwarnings("ignore::FutureWarning")  # scikit-learn 1.9 deprecates probability=True
def test_describe_output_says_svc_with_probability_is_explained_through_decision_function(data):
    X, yc, y3, z = data["X"], data["yc"], data["y3"], data["z"]
    m = SVC(probability=True, random_state=0).fit(X, yc)
    text = describe_output(m)
    assert text.startswith("decision_function of SVC")
    assert "not predict_proba" in text and "Platt" in text
    # the explanation carries the same statement, and it is true: the values add up to decision_function
    ex = kx.ProductKernelExplainer(m).explain(X[:3])
    assert ex.output == text
    assert_rel_close(ex.values.sum(axis=1) + ex.base_values, m.decision_function(X[:3]))
    assert not np.allclose(ex.values.sum(axis=1) + ex.base_values, m.predict_proba(X[:3])[:, 1])
    nu = NuSVC(probability=True, random_state=0, decision_function_shape="ovo")
    multi = describe_output(make_pipeline(StandardScaler(), nu).fit(z, y3))
    assert "one-vs-one" in multi and "not predict_proba" in multi
    # without probability=True there is no predict_proba to confuse it with
    assert "predict_proba" not in describe_output(SVC().fit(X, yc))


# -- refusals whose advice works ------------------------------------------------------------------


def test_cosine_gp_regressor_advice_runs(data):
    z, y = data["z"][:25], data["y"][:25]
    m = GaussianProcessRegressor(sk.PairwiseKernel(metric="cosine"), alpha=0.1, optimizer=None).fit(z, y)
    with pytest.raises(kx.UnsupportedModelError) as info:
        kx.ProductKernelExplainer(m)
    msg = str(info.value)
    assert "PairwiseKernel" in msg and "kx.RKHSExplainer(model, game='interventional')" in msg
    assert "exact_shapley" not in msg  # it takes value functions, not models
    ex = kx.RKHSExplainer(m, game="interventional").explain(z[:2])
    assert_rel_close(ex.base_values + ex.values.sum(axis=1), m.predict(z[:2]))


def test_cosine_gp_classifier_advice_runs(data):
    z, yc = data["z"][:25], data["yc"][:25]
    m = GaussianProcessClassifier(sk.PairwiseKernel(metric="cosine"), optimizer=None, random_state=0).fit(z, yc)
    with pytest.raises(kx.UnsupportedModelError) as info:
        kx.ProductKernelExplainer(m)
    msg = str(info.value)
    assert "kx.RKHSExplainer(lambda X: model.predict_proba(X)[:, 1], background=B, game='interventional')" in msg
    model = m  # the advice, as printed

    ex = kx.RKHSExplainer(lambda X: model.predict_proba(X)[:, 1], background=z[:6], game="interventional").explain(
        z[:2]
    )
    assert_rel_close(ex.base_values + ex.values.sum(axis=1), m.predict_proba(z[:2])[:, 1])


def test_svc_with_another_kernel_advice_runs(data):
    # (a polynomial kernel is explained exactly now: tests/test_polynomial_kernels.py; sigmoid still is not)
    m = SVC(kernel="sigmoid").fit(data["z"], data["yc"])
    with pytest.raises(kx.UnsupportedModelError, match=r"kx.RKHSExplainer\(model.decision_function, background=B"):
        kx.ProductKernelExplainer(m)
    model, B = m, data["z"][:6]
    ex = kx.RKHSExplainer(model.decision_function, background=B, game="interventional").explain(data["z"][:2])
    assert_rel_close(ex.base_values + ex.values.sum(axis=1), m.decision_function(data["z"][:2]))


def test_ovr_refusal_in_a_nested_pipeline_names_the_full_parameter(data):
    from sklearn.pipeline import Pipeline

    m = Pipeline([("pre", StandardScaler()), ("clf", make_pipeline(MinMaxScaler(), SVC()))]).fit(data["X"], data["y3"])
    with pytest.raises(kx.UnsupportedModelError) as info:
        as_kernel_expansion(m)
    assert "model.set_params(clf__svc__decision_function_shape='ovo')" in str(info.value)
    m.set_params(clf__svc__decision_function_shape="ovo")  # the advice, as printed
    _check(m, data["Xt"], m.decision_function(data["Xt"]))

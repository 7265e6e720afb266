"""Multiclass models (issue 12, item 1): what is explained is what the model outputs, or a refusal
whose advice works.

- SVC / NuSVC with scikit-learn's default ``decision_function_shape='ovr'``: the one-vs-rest
  decision_function (votes plus a transform of summed confidences) is not a kernel expansion, so
  the product-kernel route refuses it, naming ``decision_function_shape='ovo'`` and the model-
  agnostic route; both advised calls are run here.
- GaussianProcessClassifier with learned hyperparameters: one output per class, each with the
  kernel its one-vs-rest binary classifier learned.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_wine
from sklearn.gaussian_process import GaussianProcessClassifier
from sklearn.gaussian_process import kernels as sk
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

import kexplain as kx
from kexplain.models import model_output

pytestmark = pytest.mark.filterwarnings(
    "ignore::sklearn.exceptions.ConvergenceWarning", "ignore:X does not have valid feature names:UserWarning"
)


@pytest.fixture(scope="module")
def wine():
    X, y = load_wine(return_X_y=True, as_frame=True)
    return X, y


def test_wine_svc_ovr_is_refused_naming_the_option(wine):
    X, y = wine
    model = make_pipeline(StandardScaler(), SVC()).fit(X, y)  # scikit-learn's defaults: ovr
    with pytest.raises(kx.UnsupportedModelError) as info:
        kx.ProductKernelExplainer(model, background=X.iloc[:20])
    msg = str(info.value)
    assert "decision_function_shape='ovo'" in msg and "svc__decision_function_shape='ovo'" in msg
    assert "kx.RKHSExplainer(model.decision_function, background=B, game='interventional')" in msg


def test_wine_svc_advised_ovo_route_sums_to_decision_function(wine):
    X, y = wine
    model = make_pipeline(StandardScaler(), SVC()).fit(X, y)
    model.set_params(svc__decision_function_shape="ovo")  # the advice: no refit
    explainer = kx.ProductKernelExplainer(model, background=X.iloc[:20])
    ex = explainer.explain(X.iloc[:5])
    decision = model.decision_function(X.iloc[:5])
    assert decision.shape == (5, 3)
    np.testing.assert_allclose(ex.base_values + ex.values.sum(axis=1), decision, rtol=1e-10, atol=1e-10)
    assert ex.output_names == ["0 vs 1", "0 vs 2", "1 vs 2"]
    assert "one-vs-one" in ex.output and ex.output.startswith("decision_function of Pipeline")


def test_wine_svc_ovr_decision_function_through_the_agnostic_route(wine):
    X, y = wine
    cols = list(X.columns[:5])
    model = make_pipeline(StandardScaler(), SVC()).fit(X[cols], y)
    # the advised call, as the refusal prints it
    explainer = kx.RKHSExplainer(model.decision_function, background=X[cols].iloc[:8], game="interventional")
    ex = explainer.explain(X[cols].iloc[:3])
    decision = model.decision_function(X[cols].iloc[:3])  # one-vs-rest, (3, 3)
    np.testing.assert_allclose(ex.base_values + ex.values.sum(axis=1), decision, rtol=1e-10, atol=1e-10)
    assert ex.output.startswith("decision_function") and ex.info["solver"] == "exact"


@pytest.fixture(scope="module")
def gpc():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(36, 3))
    y = np.digitize(X[:, 0] + 0.7 * X[:, 1] * X[:, 2], [-0.5, 0.5])
    model = GaussianProcessClassifier(sk.ConstantKernel(1.0) * sk.RBF(1.0), random_state=0).fit(X, y)
    return model, X


def test_gpc_per_class_kernels_are_learned(gpc):
    model, _ = gpc
    assert len({repr(b.kernel_) for b in model.base_estimator_.estimators_}) == 3


@pytest.mark.parametrize("background", [False, True])
def test_gpc_one_output_per_class_sums_to_the_latent_means(gpc, background):
    model, X = gpc
    explainer = kx.ProductKernelExplainer(model, background=X[:10] if background else None)
    ex = explainer.explain(X[-4:], interactions="stii")
    latent = model_output(model, X[-4:])
    assert latent.shape == (4, 3)
    np.testing.assert_allclose(ex.base_values + ex.values.sum(axis=1), latent, rtol=1e-10, atol=1e-10)
    assert ex.output_names == ["class 0", "class 1", "class 2"]
    assert ex.output.startswith("latent mean of GaussianProcessClassifier") and "own kernel" in ex.output
    np.testing.assert_allclose(ex.interactions.sum(axis=2), ex.values, rtol=1e-10, atol=1e-12)
    # each class on its own: the same numbers as the binary model of that class alone
    for k, binary in enumerate(model.base_estimator_.estimators_):
        alone = kx.KernelExpansion(
            binary.X_train_,
            binary.y_train_ - binary.pi_,
            kx.models.as_kernel_expansion(model).terms[k],
        )
        ref = kx.ProductKernelExplainer(alone, background=X[:10] if background else None).explain(X[-4:])
        np.testing.assert_allclose(ex.values[:, :, k], ref.values, rtol=1e-10, atol=1e-12)


def test_gpc_observational_game_refuses_with_advice_that_works(gpc):
    model, X = gpc
    with pytest.raises(kx.UnsupportedModelError, match=r"kx.ProductKernelExplainer\(model, background=B\)"):
        kx.RKHSExplainer(model, background=X[:10])
    ex = kx.ProductKernelExplainer(model, background=X[:10]).explain(X[:2])
    assert ex.values.shape == (2, 3, 3)
    # the interventional route of RKHSExplainer runs the same exact engine
    itv = kx.RKHSExplainer(model, background=X[:10], game="interventional").explain(X[:2])
    np.testing.assert_allclose(itv.values, ex.values, rtol=1e-12, atol=1e-14)


def test_describe_output_of_every_adapter_names_the_output():
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.kernel_ridge import KernelRidge
    from sklearn.svm import SVR, NuSVR

    from kexplain.models import describe_output

    rng = np.random.default_rng(1)
    X = rng.normal(size=(20, 2))
    y = X[:, 0] - X[:, 1]
    yc = (y > 0).astype(int)
    assert describe_output(SVR().fit(X, y)) == "predict of SVR"
    assert describe_output(NuSVR().fit(X, y)) == "predict of NuSVR"
    assert describe_output(KernelRidge(kernel="rbf").fit(X, y)) == "predict of KernelRidge"
    assert describe_output(GaussianProcessRegressor().fit(X, y)) == "predict of GaussianProcessRegressor"
    assert describe_output(SVC().fit(X, yc)) == "decision_function of SVC (> 0 favours class 1)"

"""What users bring from their other tools: shap maskers, joblib's parallel_config, kexplain's own
models through ``to_kernel_expansion()``, and models of libraries kexplain does not read."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.svm import SVR

import kexplain as kx


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 4))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2]
    return SVR(C=5.0, gamma=0.4).fit(X, y), X


def test_shap_independent_masker_gives_the_values_of_its_data(fitted):
    shap = pytest.importorskip("shap")
    pd = pytest.importorskip("pandas")
    model, X = fitted
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    masker = shap.maskers.Independent(frame, max_samples=25)  # shap keeps 25 sampled rows
    assert masker.data.shape == (25, 4)
    by_masker = kx.ProductKernelExplainer(model, background=masker).explain(X[:5])
    by_rows = kx.ProductKernelExplainer(model, background=masker.data).explain(X[:5])
    np.testing.assert_array_equal(by_masker.values, by_rows.values)
    np.testing.assert_array_equal(by_masker.base_values, by_rows.base_values)
    # and they are shap's own exact values with that masker
    exact = shap.explainers.ExactExplainer(model.predict, masker)(X[:5])
    np.testing.assert_allclose(by_masker.values, exact.values, atol=1e-7)
    rk = kx.RKHSExplainer(model, background=masker, game="interventional").explain(X[:2])
    np.testing.assert_allclose(rk.values, by_rows.values[:2], atol=1e-10)


def test_shap_partition_masker_is_refused_by_name(fitted):
    shap = pytest.importorskip("shap")
    model, X = fitted
    with pytest.raises(TypeError, match=r"background: a shap Partition masker .*Independent"):
        kx.ProductKernelExplainer(model, background=shap.maskers.Partition(X[:20]))


def test_joblib_parallel_config_is_honoured(fitted, monkeypatch):
    joblib = pytest.importorskip("joblib")
    model, X = fitted
    explainer = kx.ProductKernelExplainer(model, background=X[:20])
    rows = np.tile(X, (4, 1))  # enough rows for two blocks
    one = explainer.explain(rows, n_jobs=1)
    calls = []
    real = joblib.Parallel

    class Spy(real):  # type: ignore[misc, valid-type]
        def __init__(self, *args, **kwargs):
            calls.append(kwargs.get("n_jobs"))
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(joblib, "Parallel", Spy)
    with joblib.parallel_config(n_jobs=2):
        two = explainer.explain(rows)  # n_jobs=None: joblib's setting decides
    assert calls == [2]
    np.testing.assert_array_equal(two.values, one.values)
    calls.clear()
    explainer.explain(rows)  # outside the context: one job, joblib not called
    assert calls == []


def test_to_kernel_expansion_models_go_through_the_product_explainer():
    from kexplain.kernels import RBF
    from kexplain.rkhs import ShapleyRegularizedKernelRidge

    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 3))
    y = X[:, 0] - 2 * X[:, 2]
    model = ShapleyRegularizedKernelRidge(kernel=RBF(2.0), alpha=0.1, feature=1, strength=10.0).fit(X, y)
    ex = kx.ProductKernelExplainer(model, background=X[:10]).explain(X[:4])
    np.testing.assert_allclose(ex.predictions, model.predict(X[:4]), atol=1e-10)
    rk = kx.RKHSExplainer(model, background=X[:10], game="interventional").explain(X[:4])
    np.testing.assert_allclose(ex.values, rk.values, atol=1e-10)

    class Broken:
        def to_kernel_expansion(self):
            return "not an expansion"

    with pytest.raises(TypeError, match="to_kernel_expansion\\(\\) must return a kexplain KernelExpansion"):
        kx.ProductKernelExplainer(Broken())


def test_models_of_other_libraries_get_a_kexplain_error_with_a_route():
    torch = pytest.importorskip("torch")
    module = torch.nn.Linear(3, 1).double()
    background = np.zeros((5, 3))
    for make in (
        lambda: kx.ProductKernelExplainer(module, background=background),
        lambda: kx.RKHSExplainer(module, background=background, game="interventional"),
    ):
        with pytest.raises(kx.UnsupportedModelError, match=r"Linear is a torch model.*RKHSExplainer\(f, background"):
            make()
    # the route the message gives works
    f = lambda X: module(torch.as_tensor(X)).detach().numpy().ravel()  # noqa: E731
    ex = kx.RKHSExplainer(f, background=background, game="interventional").explain(np.ones((2, 3)))
    np.testing.assert_allclose(ex.predictions, f(np.ones((2, 3))), atol=1e-12)

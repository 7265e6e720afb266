"""scikit-learn Nystroem pipelines: exact expansions over the landmarks, checked by enumeration of the
pipeline's own predict / decision_function on hybrid points."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.kernel_approximation import Nystroem, RBFSampler
from sklearn.linear_model import LogisticRegression, Ridge, SGDClassifier, SGDRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler, StandardScaler
from sklearn.svm import LinearSVC

import kexplain as kx
from kexplain.exceptions import UnsupportedModelError
from kexplain.models import model_output


def enum_values(f, x, Z):
    d = x.shape[0]
    coalitions = np.array([[(m >> k) & 1 for k in range(d)] for m in range(2**d)], dtype=bool)
    H = np.where(coalitions[:, None, :], x[None, None, :], Z[None, :, :]).reshape(-1, d)
    v = np.asarray(f(H)).reshape(2**d, Z.shape[0], -1).mean(axis=1)
    phi = np.zeros((d, v.shape[1]))
    for s, S in enumerate(coalitions):
        size = int(S.sum())
        for j in range(d):
            if S[j]:
                phi[j] += math.factorial(size - 1) * math.factorial(d - size) / math.factorial(d) * v[s]
            else:
                phi[j] -= math.factorial(size) * math.factorial(d - size - 1) / math.factorial(d) * v[s]
    return phi


def _data(d=4, n=50, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * np.array([1.0, 10.0, 0.1, 3.0])[:d]
    return X, X[:, 0] + np.sin(X[:, 1] / 5) - 10 * X[:, 2]


LINEAR = {
    "ridge": (lambda: Ridge(alpha=0.1), "reg"),
    "sgd_reg": (lambda: SGDRegressor(max_iter=50, tol=None, random_state=0), "reg"),
    "logistic": (lambda: LogisticRegression(max_iter=200), "bin"),
    "linear_svc": (lambda: LinearSVC(), "multi"),
    "sgd_clf": (lambda: SGDClassifier(max_iter=50, tol=None, random_state=0), "bin"),
}


@pytest.mark.parametrize("name", list(LINEAR))
@pytest.mark.parametrize("kernel", ["rbf", "laplacian"])
def test_nystroem_pipeline_equals_enumeration_of_its_own_output(name, kernel):
    X, y = _data()
    make, kind = LINEAR[name]
    target = y if kind == "reg" else (y > np.median(y)).astype(int) if kind == "bin" else np.digitize(y, [-2, 2])
    gamma = None if kernel == "rbf" else 0.3
    model = make_pipeline(
        StandardScaler(), MinMaxScaler(), Nystroem(kernel=kernel, gamma=gamma, n_components=15, random_state=0), make()
    )
    model.fit(X, target)
    Z, Xq = X[:4], X[10:12]
    ex = kx.ProductKernelExplainer(model, background=Z).explain(Xq)
    own = model_output(model, Xq)
    total = ex.base_values + ex.values.sum(axis=1)
    np.testing.assert_allclose(total, own, rtol=1e-8, atol=1e-10)
    for i in range(2):
        ref = enum_values(lambda H: model_output(model, H), Xq[i], Z)
        got = ex.values[i].reshape(ref.shape)
        np.testing.assert_allclose(got, ref, rtol=1e-8, atol=1e-10)
    expected = "predict" if kind == "reg" else "decision_function"
    assert kx.models.describe_output(model).startswith(expected)


def test_rbf_sampler_and_other_steps_refused_with_route():
    X, y = _data()
    model = make_pipeline(RBFSampler(random_state=0, n_components=10), Ridge()).fit(X, y)
    with pytest.raises(UnsupportedModelError, match="RBFSampler.*cosines.*RKHSExplainer"):
        kx.ProductKernelExplainer(model, background=X[:3])
    model = make_pipeline(Nystroem(kernel="poly", n_components=10), Ridge()).fit(X, y)
    with pytest.raises(UnsupportedModelError, match="kernel='poly'"):
        kx.models.as_kernel_expansion(model)

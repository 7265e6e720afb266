"""One default kernel for every ``kernel=None`` in kexplain (issue 20, item 1).

Each place that resolves a missing kernel or lengthscale is asked on the same data, and each must
give ``kx.kernels.default_kernel`` / ``default_lengthscale``: the median heuristic on standardised
features (the design notes, section 5, say why).  The policy itself is checked against a direct
computation, and against the two policies that used to coexist.
"""

from __future__ import annotations

import warnings
from itertools import combinations

import numpy as np
import pytest

import kexplain as kx
from kexplain.kernels import RBF, default_kernel, default_lengthscale


@pytest.fixture
def data():
    # the data set of the issue: three features on very different scales
    return np.random.default_rng(0).normal(size=(200, 3)) * [1.0, 10.0, 0.1]


def test_policy_is_the_standardised_median_computed_directly(data):
    sd = data.std(axis=0)
    Z = data / sd
    dists = [np.linalg.norm(Z[i] - Z[j]) for i, j in combinations(range(len(Z)), 2)]
    np.testing.assert_allclose(default_lengthscale(data), np.median(dists) * sd, rtol=1e-12)
    k = default_kernel(data)
    assert isinstance(k, RBF)
    np.testing.assert_array_equal(k.lengthscale, default_lengthscale(data))
    # the figures of the issue: the kept policy, and the per-feature one it replaced elsewhere
    np.testing.assert_allclose(default_lengthscale(data), [2.217, 21.839, 0.213], atol=1e-3)
    np.testing.assert_allclose(kx.kernels.median_heuristic(data, per_feature=True), [0.956, 9.346, 0.095], atol=1e-3)
    # the options map onto the other policies
    np.testing.assert_allclose(
        default_lengthscale(data, per_feature=True), kx.kernels.median_heuristic(data, per_feature=True)
    )
    assert default_lengthscale(data, standardize=False) == kx.kernels.median_heuristic(data)


def test_policy_is_unit_free_and_agrees_with_the_per_feature_median_for_one_feature(data):
    np.testing.assert_allclose(default_lengthscale(data * [3.0, 0.5, 7.0]), default_lengthscale(data) * [3.0, 0.5, 7.0])
    col = data[:, :1]
    np.testing.assert_allclose(default_lengthscale(col), kx.kernels.median_heuristic(col, per_feature=True))


def test_policy_refuses_bad_input_naming_the_array():
    with pytest.raises(ValueError, match=r"arrays\[0\].*NaN"):
        default_lengthscale(np.array([[0.0, np.nan], [1.0, 2.0]]))
    with pytest.raises(ValueError, match="at least one array"):
        default_kernel()


def test_every_kernel_none_in_the_package_resolves_to_the_default(data):
    want = default_lengthscale(data)
    y = data[:, 0] + np.sin(data[:, 2] * 10)
    Y2 = np.column_stack([y, data[:, 1]])
    seen = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # statistics: the pooled samples
        res = kx.stats.mmd_shapley(data[:100], data[100:])
        seen["stats.mmd_shapley"] = (res.kernel.lengthscale, default_lengthscale(data[:100], data[100:]))
        # embeddings: the kernel on X and the target kernel on Y
        cme = kx.embeddings.ConditionalMeanEmbedding(regularization=0.1).fit(data, Y2)
        seen["embeddings.ConditionalMeanEmbedding.kernel"] = (cme.kernel_.lengthscale, want)
        seen["embeddings.ConditionalMeanEmbedding.target_kernel"] = (
            cme.target_kernel_.lengthscale,
            default_lengthscale(Y2),
        )
        bcme = kx.embeddings.BayesianCME(regularization=0.1).fit(data, Y2)
        seen["embeddings.BayesianCME.kernel"] = (bcme.kernel_.lengthscale, want)
        seen["embeddings.BayesianCME.lengthscale"] = (bcme.lengthscale_, default_lengthscale(Y2))
        # RKHS-SHAP: the regulariser's kernel and the CME kernel of a callable model
        reg = kx.rkhs.ShapleyRegularizedKernelRidge(feature=0, n_coalitions=4, random_state=0).fit(data[:40], y[:40])
        seen["rkhs.ShapleyRegularizedKernelRidge"] = (reg.kernel_.lengthscale, default_lengthscale(data[:40]))
        ex = kx.RKHSExplainer(lambda H: H[:, 0] * H[:, 1], background=data[:30])
        restricted = ex.explainer._cme.kernel_on(np.array([0, 2]))  # the kernel the CME conditions with
        seen["rkhs.RKHSExplainer (callable model)"] = (restricted.lengthscale, default_lengthscale(data[:30])[[0, 2]])
        # BayesIMP: the treatment and mediator lengthscales
        T = y[:50]
        imp = kx.causal.BayesIMP(method="imp").fit(data[:80, :2], Y2[:80], Y2[80:130], T)
        seen["causal.BayesIMP.lengthscale_x"] = (imp.lengthscale_x_, default_lengthscale(data[:80, :2]))
        seen["causal.BayesIMP.lengthscale_y"] = (
            imp.lengthscale_y_,
            default_lengthscale(np.vstack([Y2[:80], Y2[80:130]])),
        )
        # preference models: the reference lengthscale of the grid
        from kexplain.preference._checks import reference_lengthscale

        seen["preference reference lengthscale"] = (
            reference_lengthscale(data[:100], data[100:]),
            default_lengthscale(data[:100], data[100:]),
        )
    for where, (got, expected) in seen.items():
        np.testing.assert_allclose(np.broadcast_to(got, np.shape(expected)), expected, rtol=1e-12, err_msg=where)

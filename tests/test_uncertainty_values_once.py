"""``uncertainty=True`` leaves the values themselves alone (issue 26, item 1).

The values of the posterior mean are computed once, by the same path as ``uncertainty=False``;
the covariance is added beside them.  Deriving the mean values from the covariance's data factors
instead (phi = scale * Phi^T coef, which looks free) sums the per-training-point games in another
order: on an ill-conditioned GP (|coef| ~ 1e4) that moved the values by 7e-12 to 2e-11 relative
here, and by 3.7e-9 in an earlier attempt, so the values with and without uncertainty would
disagree.  These tests pin the agreement bit for bit, on such a GP, for both explainers.
"""

import warnings

import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF

import kexplain as kx
from kexplain.exceptions import AccuracyWarning


@pytest.fixture(scope="module")
def ill_conditioned():
    """A GP with a 1e-10 nugget and long lengthscales: coefficients of size 1e4."""
    rng = np.random.default_rng(0)
    d = 5
    X = rng.normal(size=(80, d))
    y = np.sin(X[:, 0]) + X[:, 1]
    gpr = GaussianProcessRegressor(RBF(np.full(d, 3.0 * np.sqrt(d))), alpha=1e-10, optimizer=None).fit(X, y)
    assert np.abs(gpr.alpha_).max() > 1e3
    return gpr, X, rng.normal(size=(6, d))


@pytest.mark.parametrize("game", ["interventional", "baseline"])
def test_values_with_uncertainty_equal_those_without_bit_for_bit(ill_conditioned, game):
    gpr, X, P = ill_conditioned
    kwargs = {"background": X[:10]} if game == "interventional" else {"baseline": X[0]}
    explainer = kx.ProductKernelExplainer(gpr, **kwargs)
    plain = explainer.explain(P)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AccuracyWarning)  # the covariance of so ill-conditioned a GP
        stoch = explainer.explain(P, uncertainty=True)
        joint = explainer.explain(P, uncertainty=True, joint=True)
    for ex in (stoch, joint):
        assert np.array_equal(ex.values, plain.values)
        assert np.array_equal(ex.base_values, plain.base_values)
        assert np.array_equal(ex.v_full, plain.v_full)
    # the shortcut that would compute them "once" from the data factors is not the same numbers
    cov = explainer._covariance
    alt = cov.posterior.scale * np.einsum("pnd,n->pd", cov.data_factors(P), cov.posterior.coef)
    np.testing.assert_allclose(alt, plain.values, rtol=1e-6, atol=1e-9)


def test_oak_values_with_uncertainty_equal_those_without_bit_for_bit():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 3))
    y = X[:, 0] + np.sin(X[:, 1]) * X[:, 2]
    m = kx.gp.OAKRegressor(max_iter=0).fit(X, y)
    explainer = kx.gp.OAKExplainer(m)
    plain = explainer.explain(X[:4])
    stoch = explainer.explain(X[:4], uncertainty=True)
    assert np.array_equal(stoch.values, plain.values)
    assert np.array_equal(stoch.base_values, plain.base_values)

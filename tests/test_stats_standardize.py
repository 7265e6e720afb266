"""The median heuristic of MMD and HSIC on standardised features by default (issue 12, item 8).

On raw features the one median lengthscale is set by the features with the largest units (areas
in the hundreds next to ratios below one), and those features take almost all of the statistic.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

import kexplain as kx
from kexplain.kernels.heuristics import median_heuristic
from kexplain.stats import hsic, hsic_shapley, mmd, mmd_shapley, mmd_test


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    rows = np.concatenate([np.flatnonzero(y == 0)[:70], np.flatnonzero(y == 1)[:70]])
    return X.iloc[rows], y.iloc[rows].to_numpy()


def _share(att, name):
    return att.values[att.feature_names.index(name)] / att.total


def test_area_features_no_longer_take_the_whole_mmd(cancer):
    X, y = cancer
    raw = mmd_shapley(X[y == 0], X[y == 1], standardize=False)
    std = mmd_shapley(X[y == 0], X[y == 1])
    # raw units: the two area features (hundreds to thousands) take nearly all of MMD^2
    assert _share(raw, "mean area") + _share(raw, "worst area") > 0.9
    # standardised: no feature takes more than a fifth; mean area a small share
    assert _share(std, "mean area") < 0.1
    assert np.max(std.values / std.total) < 0.2
    assert np.isclose(std.values.sum(), std.total)


def test_hsic_standardizes_too(cancer):
    X, y = cancer
    raw = hsic_shapley(X, y.astype(float), standardize=False)
    std = hsic_shapley(X, y.astype(float))
    assert _share(raw, "mean area") + _share(raw, "worst area") > 0.9
    assert _share(std, "mean area") < 0.1


def test_standardize_false_is_the_old_kernel_and_true_is_scale_free():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3)) * [1.0, 100.0, 0.01]
    Z = rng.normal(size=(30, 3)) * [1.0, 100.0, 0.01] + [0.5, 0.0, 0.0]
    old = mmd_shapley(X, Z, standardize=False)
    ell = median_heuristic(X, Z)
    np.testing.assert_allclose(old.kernel.lengthscale, ell)
    assert old.total == pytest.approx(mmd(X, Z, kernel=kx.kernels.RBF(ell)), rel=1e-12)
    # standardised: the same as the old default on standardised data, in the original units
    new = mmd_shapley(X, Z)
    W = np.concatenate([X, Z])
    sd = W.std(axis=0)
    ref = mmd_shapley(X / sd, Z / sd, standardize=False)
    np.testing.assert_allclose(new.values, ref.values, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(np.asarray(new.kernel.lengthscale), ref.kernel.lengthscale * sd, rtol=1e-12)
    # rescaling a feature changes nothing
    scaled = mmd_shapley(X * [1.0, 1e3, 1.0], Z * [1.0, 1e3, 1.0])
    np.testing.assert_allclose(scaled.values, new.values, rtol=1e-9, atol=1e-14)
    assert mmd(X, Z) == pytest.approx(new.total, rel=1e-12)
    assert hsic(X, Z[:, 0]) == pytest.approx(hsic(X * [1.0, 1e3, 1.0], Z[:, 0]), rel=1e-9)


def test_standardize_must_be_a_flag():
    X = np.random.default_rng(1).normal(size=(10, 2))
    with pytest.raises(TypeError, match="standardize must be True or False"):
        mmd(X, X + 1.0, standardize="yes")
    with pytest.raises(TypeError, match="standardize must be True or False"):
        hsic(X, X[:, 0], standardize=1)
    res = mmd_test(X, X + 1.0, standardize=False, n_permutations=9, random_state=0)
    assert res.attribution.total == pytest.approx(mmd(X, X + 1.0, standardize=False))

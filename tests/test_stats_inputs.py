"""Bad input to kexplain.stats: clear exceptions that name the argument."""

from __future__ import annotations

import numpy as np
import pytest

import kexplain as kx
from kexplain.stats import hsic, hsic_shapley, hsic_test, median_heuristic, mmd, mmd_shapley, mmd_test


@pytest.fixture
def XZ(rng):
    return rng.normal(size=(6, 3)), rng.normal(size=(5, 3))


@pytest.mark.parametrize("fn", [mmd, mmd_shapley, mmd_test])
def test_two_sample_bad_inputs(fn, XZ):
    X, Z = XZ
    with pytest.raises(ValueError, match="X has 3 features but Z has 2"):
        fn(X, Z[:, :2])
    with pytest.raises(ValueError, match="X must have at least 2 row"):
        fn(X[:1], Z)
    with pytest.raises(ValueError, match="Z must have at least 2 row"):
        fn(X, Z[:1])
    Xn = X.copy()
    Xn[2, 1] = np.nan
    with pytest.raises(ValueError, match=r"X contains NaN or infinite values at \(row 2, column 1\)"):
        fn(Xn, Z)
    with pytest.raises(ValueError, match="estimator must be"):
        fn(X, Z, estimator="plugin")
    with pytest.raises(ValueError, match="bandwidth must be one of"):
        fn(X, Z, bandwidth="silverman")
    with pytest.raises(TypeError, match="SumKernel"):
        fn(X, Z, kernel=kx.kernels.SumKernel([kx.kernels.RBF(1.0), kx.kernels.Laplacian(1.0)]))
    with pytest.raises(TypeError, match="kernel must be a kexplain product kernel"):
        fn(X, Z, kernel="rbf")
    with pytest.raises(ValueError, match="defined on 2 features"):
        fn(X, Z, kernel=kx.kernels.RBF([1.0, 2.0]))
    with pytest.raises(ValueError, match="2-D"):
        fn(np.zeros((2, 2, 2)), Z)


def test_bad_counts(XZ):
    X, Z = XZ
    with pytest.raises(ValueError, match="n_pairs must be None"):
        mmd_shapley(X, Z, n_pairs=3)
    with pytest.raises(ValueError, match="n_permutations must be a positive integer"):
        mmd_test(X, Z, n_permutations=0)
    with pytest.raises(ValueError, match="n_permutations must be a positive integer"):
        hsic_test(X, X[:, 0], n_permutations=2.5)


@pytest.mark.parametrize("fn", [hsic, hsic_shapley, hsic_test])
def test_independence_bad_inputs(fn, rng):
    X, y = rng.normal(size=(6, 3)), rng.normal(size=6)
    with pytest.raises(ValueError, match="same number of rows"):
        fn(X, y[:5])
    with pytest.raises(ValueError, match="X must have at least 2 row"):
        fn(X[:1], y[:1])
    with pytest.raises(ValueError, match="at least 4 rows"):
        fn(X[:3], y[:3], estimator="unbiased")
    yn = y.copy()
    yn[4] = np.inf
    with pytest.raises(ValueError, match=r"Y contains NaN or infinite values at \(row 4, column 0\)"):
        fn(X, yn)
    with pytest.raises(TypeError, match="kernel_y must be a kexplain product kernel"):
        fn(X, y, kernel_y=lambda a, b: a)
    with pytest.raises(ValueError, match="non-numeric"):
        fn(X, np.array(["a", "b"] * 3, dtype=object), kernel_y=kx.kernels.RBF(1.0))


def test_bad_attribute(rng):
    with pytest.raises(ValueError, match="attribute must be 'x', 'y' or 'both'"):
        hsic_shapley(rng.normal(size=(5, 2)), rng.normal(size=5), attribute="z")


def test_constant_feature_gets_documented_safe_bandwidth(rng):
    X = np.c_[rng.normal(size=20), np.full(20, 4.0)]
    ls = median_heuristic(X, per_feature=True)
    assert ls[1] == 1.0 and ls[0] > 0
    assert median_heuristic(np.ones((5, 2))) == 1.0
    # mostly tied binary feature: median of the nonzero distances
    b = np.r_[np.zeros(18), np.ones(2)][:, None]
    assert median_heuristic(b, per_feature=True)[0] == 1.0
    att = mmd_shapley(X[:10], X[10:] + [0.5, 0.0], bandwidth="median_per_feature")
    assert np.all(np.isfinite(att.values)) and att.values[1] == 0.0
    # all features constant in both samples: the statistic and every value are exactly zero
    att0 = mmd_shapley(np.ones((4, 2)), np.ones((3, 2)))
    assert att0.total == pytest.approx(0.0, abs=1e-15) and np.all(att0.values == 0.0)
    h = hsic_shapley(np.c_[rng.normal(size=8), np.zeros(8)], rng.normal(size=8))
    assert h.values[1] == 0.0


def test_dataframe_columns_must_agree(rng):
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame(rng.normal(size=(5, 2)), columns=["a", "b"])
    Z = pd.DataFrame(rng.normal(size=(5, 2)), columns=["b", "a"])
    with pytest.raises(ValueError, match="columns of Z"):
        mmd_shapley(X, Z)


@pytest.mark.parametrize("fn", [mmd_shapley, mmd_test, hsic_shapley, hsic_test])
def test_shared_options_are_validated(fn, XZ):
    X, Z = XZ
    with pytest.raises(ValueError, match="random_state must be None, a non-negative integer"):
        fn(X, Z[:, 0] if fn in (hsic_shapley, hsic_test) else Z, random_state=-1)
    with pytest.raises(ValueError, match="random_state"):
        fn(X, Z[:, 0] if fn in (hsic_shapley, hsic_test) else Z, random_state="seed")
    with pytest.raises(TypeError, match="progress must be True or False"):
        fn(X, Z[:, 0] if fn in (hsic_shapley, hsic_test) else Z, progress="yes")
    with pytest.raises(ValueError, match="max_block_bytes must be a positive integer"):
        fn(X, Z[:, 0] if fn in (hsic_shapley, hsic_test) else Z, max_block_bytes=0)
    with pytest.raises(TypeError):
        fn(X, Z, None)  # options are keyword-only

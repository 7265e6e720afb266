"""The per-call fast paths of issue 26 give the numbers of the general code they bypass, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from kexplain._real import _real
from kexplain._validation import check_bool, check_n_jobs
from kexplain.kernels import RBF, Cauchy, Laplacian
from kexplain.shapley.enumeration import exact_shapley
from kexplain.shapley.subsets import SubsetGame, _TableLookup, absent_set_table


@pytest.mark.parametrize("kind", [RBF, Laplacian, Cauchy])
@pytest.mark.parametrize("lengthscale", [0.7, [0.3, 1.0, 2.5, 1e-3, 40.0]])
def test_stationary_factors_in_place_equal_the_profile(kind, lengthscale):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6, 5)) * np.array([1.0, 1e-3, 10.0, 1.0, 1e3])
    Y = rng.normal(size=(4, 5))
    k = kind(lengthscale=lengthscale)
    u = (X[:, None, :] - Y[None, :, :]) / k.lengthscale
    assert np.array_equal(k.feature_values(X, Y), k._profile(u))


@pytest.mark.parametrize("d", [1, 3, 7, 12])
@pytest.mark.parametrize("outputs", [1, 3])
def test_subset_route_values_equal_enumeration(d, outputs):
    rng = np.random.default_rng(d)
    rows, nb, points = 4, 3, 5
    b = rng.uniform(0.1, 1.0, size=(nb, rows, d))
    game = SubsetGame(absent_set_table(b, np.full(nb, 1.0 / nb)), rng.normal(size=(rows, outputs)))
    a = rng.uniform(0.1, 1.0, size=(points, rows, d))
    res = game.solve(a)
    v = game.values(a)
    ref = exact_shapley(_TableLookup(v, 1 << np.arange(d)), d)
    assert np.array_equal(res.values, np.asarray(ref.values).reshape(points, d, outputs))
    assert np.array_equal(res.v_full, v[-1]) and np.array_equal(res.v_empty, v[0])


def test_fast_checks_refuse_what_the_general_checks_refuse():
    assert check_bool(True, "x") is True and check_bool(np.False_, "x") is False
    assert check_n_jobs(None) == 1 and check_n_jobs(2) == 2
    for bad in (0, -0.5, 1.5, True, "2"):
        with pytest.raises(ValueError, match="n_jobs"):
            check_n_jobs(bad)
    with pytest.raises(TypeError, match="progress"):
        check_bool(1, "progress")
    arr = np.ones((2, 2))
    assert _real(arr, "values") is arr
    arr[0, 1] = np.nan
    with pytest.raises(ValueError, match="values contains NaN"):
        _real(arr, "values")
    assert _real(arr, "standard_errors", allow_nan=True) is arr

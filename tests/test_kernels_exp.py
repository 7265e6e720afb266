"""The vectorised exponential of the per-feature kernel factors (kexplain/_exp_numba.py, shared with the statistics).

References: numpy's exp (libm, correctly rounded in nearly every case) on a large random sample,
mpmath at 120 bits on a smaller one, IEEE special values, and the numpy path of
``feature_values`` (the same argument bit for bit, so the factors differ by at most 1 ulp).
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from kexplain._exp_numba import exp_inplace, stationary_factors  # noqa: E402
from kexplain.kernels import RBF, Laplacian  # noqa: E402
from kexplain.kernels import stationary as kstationary  # noqa: E402


def _ulps(x, y):
    """|x - y| in units in the last place (same-sign finite doubles: the integer distance)."""
    return np.abs(x.view(np.int64) - y.view(np.int64))


@pytest.mark.parametrize("lo, hi", [(-745.0, 0.0), (-1.0, 0.0), (-50.0, 50.0), (-709.0, 709.7), (-745.2, -700.0)])
def test_exp_within_one_ulp_of_numpy(lo, hi):
    x = np.random.default_rng(0).uniform(lo, hi, size=200_003)  # odd length: the tail path too
    y = x.copy()
    exp_inplace(y)
    ref = np.exp(x)
    assert _ulps(y, ref).max() <= 1
    # nearly every value is numpy's, bit for bit
    assert np.mean(y != ref) < 0.03


def test_exp_within_one_ulp_of_mpmath():
    mpmath = pytest.importorskip("mpmath")
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.uniform(-745.0, 0.0, 1500), rng.uniform(-0.5, 0.5, 1500), rng.uniform(0, 709.0, 500)])
    y = x.copy()
    exp_inplace(y)
    with mpmath.workprec(120):
        worst = max(abs(float((mpmath.mpf(yi) - mpmath.exp(mpmath.mpf(xi))) / np.spacing(yi))) for xi, yi in zip(x, y))
    assert worst < 0.8  # measured 0.72; numpy's libm is at 0.5


def test_exp_special_values():
    x = np.array(
        [-np.inf, np.inf, np.nan, 0.0, -0.0, -745.13, -745.14, -746.0, -1e308, 709.78, 709.79, 1e308, -708.39, 5e-324]
    )
    y = x.copy()
    exp_inplace(y)
    with np.errstate(over="ignore"):
        ref = np.exp(x)
    assert np.array_equal(y, ref, equal_nan=True)
    assert y[0] == 0.0 and y[1] == np.inf and np.isnan(y[2])
    # subnormal results: one rounding, like libm's
    z = np.linspace(-745.1, -708.5, 10_001)
    w = z.copy()
    exp_inplace(w)
    assert _ulps(w, np.exp(z)).max() <= 1


@pytest.mark.parametrize("n", [0, 1, 3, 4, 5, 15, 16, 17, 33])
def test_exp_every_length(n):
    x = -np.arange(n, dtype=np.float64) * 0.37
    y = x.copy()
    exp_inplace(y)
    assert _ulps(y, np.exp(x)).max(initial=0) <= 1


@pytest.mark.parametrize("kernel", [RBF(lengthscale=0.7), RBF(lengthscale=[0.5, 1.0, 2.0, 3.0, 0.1]), Laplacian(1.3)])
def test_feature_values_match_numpy_path(kernel, monkeypatch):
    rng = np.random.default_rng(2)
    X, Y = rng.normal(size=(7, 5)) * 3, rng.normal(size=(11, 5))
    X[0, 0] = Y[0, 0]  # a factor of exactly 1
    fast = kernel.feature_values(X, Y)
    # the module whose _exp_numba reads the cache (kernels.base re-exports the name only)
    monkeypatch.setattr(kstationary, "_EXP_NUMBA", [None])  # numpy's exp on every path
    slow = kernel.feature_values(X, Y)
    assert fast.shape == slow.shape == (7, 11, 5)
    assert _ulps(fast, slow).max() <= 1
    assert fast[0, 0, 0] == 1.0


def test_stationary_factors_argument_is_numpys():
    """exp(log(factor)) aside, the argument is numpy's: with exp replaced by the identity the
    compiled pass would give numpy's -u^2/2; checked through a factor whose exp is exact."""
    X = np.array([[0.0, 1.0]])
    Y = np.array([[0.0, 1.0], [2.0, 1.0]])
    out = np.empty((1, 2, 2))
    stationary_factors(X, Y, np.array([1.0, 1.0]), False, out)
    assert out[0, 0].tolist() == [1.0, 1.0]
    assert out[0, 1, 0] == np.exp(-2.0) and out[0, 1, 1] == 1.0


def test_feature_values_bad_lengthscale_length_raises():
    k = RBF(lengthscale=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError):
        k.feature_values(np.zeros((2, 4)), np.zeros((3, 4)))


def test_short_path_gives_the_general_paths_numbers():
    """A group of lanes all in [-707, 709] takes the short path (2^n through the exponent bits), a
    group with one lane outside the clamped one: the same values either way, bit for bit."""
    rng = np.random.default_rng(4)
    x = np.concatenate([rng.uniform(-707.0, 709.0, 4000), rng.uniform(-1.0, 0.0, 4000), [-707.0, 709.0, 0.0, -0.0]])
    short = x.copy()
    exp_inplace(short)
    mixed = np.empty(2 * x.size)
    mixed[0::2], mixed[1::2] = x, -800.0  # every group of 4 or 8 now holds an out-of-range lane
    exp_inplace(mixed)
    assert np.array_equal(mixed[0::2], short)
    assert np.all(mixed[1::2] == 0.0)
    assert _ulps(short, np.exp(x)).max() <= 1


def test_short_path_boundaries():
    """Arguments at and just beyond the short path's ends, as one group and mixed with others."""
    lo, hi = -707.0, 709.0
    edges = np.array([lo, np.nextafter(lo, -1e3), hi, np.nextafter(hi, 1e3), -708.0, 709.5, -706.9, 708.9])
    for x in (edges, np.repeat(edges, 8), np.tile(edges, 9)[:-3]):
        y = x.copy()
        exp_inplace(y)
        assert _ulps(y, np.exp(x)).max() <= 1


@pytest.mark.parametrize("d", [1, 3, 4, 8, 9, 20])
@pytest.mark.parametrize("laplacian", [False, True])
def test_stationary_factors_equal_exp_of_numpys_argument(d, laplacian):
    """The fused pass (argument and exponential in registers, four features at a time, the last d
    mod 4 through a buffer) equals exp_inplace of numpy's argument bit for bit, NaN and infinities
    included."""
    rng = np.random.default_rng(d)
    X, Y = rng.normal(size=(6, d)) * 4, rng.normal(size=(13, d))
    ls = rng.uniform(0.2, 3.0, d)
    X[0, 0] = Y[0, 0]  # a factor of exactly 1
    X[1, -1], Y[2, 0], X[3, 0] = np.nan, np.inf, 40.0  # NaN, exp(-inf) = 0, far below the short path
    out = np.empty((6, 13, d))
    stationary_factors(X, Y, ls, laplacian, out)
    u = (X[:, None, :] - Y[None, :, :]) / ls
    z = np.negative(np.abs(u)) if laplacian else (u * u) * -0.5
    ref = z.copy()
    exp_inplace(ref.reshape(-1))
    assert np.array_equal(out, ref, equal_nan=True)
    with np.errstate(invalid="ignore"):
        assert _ulps(out[np.isfinite(out)], np.exp(z)[np.isfinite(out)]).max() <= 1


def test_feature_values_with_numba_jit_disabled():
    # the fused pass's intrinsics cannot run as Python: without the JIT numpy's passes stand in
    import os
    import subprocess
    import sys

    code = (
        "import numpy as np\n"
        "from kexplain.kernels import RBF, Laplacian\n"
        "rng = np.random.default_rng(0)\n"
        "X, Y = rng.normal(size=(3, 9)), rng.normal(size=(4, 9))\n"
        "print(repr([k.feature_values(X, Y).tolist() for k in (RBF(0.8), Laplacian(1.5))]))\n"
    )
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(3, 9)), rng.normal(size=(4, 9))
    for got, kernel in zip(eval(out.stdout), (RBF(0.8), Laplacian(1.5))):
        assert _ulps(np.array(got), kernel.feature_values(X, Y)).max() <= 1

"""Orthogonal (constrained) base kernels: zero integrals, Gamma matrices and derivatives."""

import numpy as np
import pytest

from kexplain.gp.kernels import (
    MAX_MEASURE_POINTS,
    ConstrainedCategorical,
    ConstrainedEmpiricalRBF,
    ConstrainedGaussianRBF,
)


def _gauss_hermite(mu, delta, n=160):
    x, w = np.polynomial.hermite_e.hermegauss(n)
    return mu + delta * x, w / w.sum()


@pytest.mark.parametrize("mu,delta,l", [(0.0, 1.0, 0.5), (0.7, 2.0, 1.3), (-1.0, 0.5, 3.0)])
def test_gaussian_constrained_kernel_integrates_to_zero(mu, delta, l):
    k = ConstrainedGaussianRBF(mu, delta)
    xs, wq = _gauss_hermite(mu, delta)
    y = np.linspace(mu - 3 * delta, mu + 3 * delta, 9)
    integral = wq @ k.k(xs, y, l)
    # the unconstrained base kernel does not integrate to zero: the check can fail
    assert np.abs(wq @ np.exp(-((xs[:, None] - y[None, :]) ** 2) / (2 * l * l))).max() > 0.1
    np.testing.assert_allclose(integral, 0.0, atol=1e-10)


def test_empirical_and_categorical_kernels_integrate_to_zero():
    rng = np.random.default_rng(0)
    e = ConstrainedEmpiricalRBF(rng.gamma(2.0, size=40))
    y = np.linspace(-1, 8, 7)
    np.testing.assert_allclose(e.weights @ e.at_measure(y, 0.8), 0.0, atol=1e-13)
    c = ConstrainedCategorical([0.2, 0.5, 0.3])
    np.testing.assert_allclose(c.probs @ c.k(np.arange(3), np.array([0, 1, 2, -1])), 0.0, atol=1e-14)


def test_gaussian_gamma_matches_quadrature():
    k = ConstrainedGaussianRBF(0.3, 1.4)
    xs, wq = _gauss_hermite(0.3, 1.4)
    a = np.array([-1.0, 0.2, 2.5])
    b = np.array([0.1, -3.0, 1.0, 0.3])
    ref = (k.k(xs, a, 0.7) * wq[:, None]).T @ k.k(xs, b, 0.7)
    np.testing.assert_allclose(k.gamma(a, b, 0.7), ref, atol=1e-12)


def test_empirical_and_categorical_gamma_match_definition():
    rng = np.random.default_rng(1)
    pts = rng.normal(size=30)
    e = ConstrainedEmpiricalRBF(pts)
    a, b = rng.normal(size=4), rng.normal(size=5)
    ref = np.mean([np.outer(e.k([s], a, 0.6)[0], e.k([s], b, 0.6)[0]) for s in pts], axis=0)
    np.testing.assert_allclose(e.gamma(a, b, 0.6), ref, atol=1e-13)
    c = ConstrainedCategorical([0.25, 0.75])
    ref = sum(p * np.outer(c.k([s], [0, 1])[0], c.k([s], [1, 0, 1])[0]) for s, p in zip([0, 1], c.probs))
    np.testing.assert_allclose(c.gamma(np.array([0, 1]), np.array([1, 0, 1])), ref, atol=1e-14)


@pytest.mark.parametrize(
    "kernel", [ConstrainedGaussianRBF(0.2, 1.1), ConstrainedEmpiricalRBF(np.linspace(-2, 2, 25) ** 3)]
)
def test_lengthscale_derivative_matches_finite_differences(kernel):
    a = np.array([-1.0, 0.0, 0.4, 2.0])
    b = np.array([0.5, -2.0, 1.0])
    l, h = 0.9, 1e-6
    fd = (kernel.k(a, b, l * np.exp(h)) - kernel.k(a, b, l * np.exp(-h))) / (2 * h)
    np.testing.assert_allclose(kernel.dk_dlog_l(a, b, l), fd, atol=1e-8)
    np.testing.assert_allclose(np.diag(kernel.k(a, a, l)), kernel.diag(a, l), atol=1e-14)


def test_constrained_kernels_are_positive_semidefinite():
    x = np.linspace(-3, 3, 40)
    for k in (ConstrainedGaussianRBF(0.0, 1.0), ConstrainedEmpiricalRBF(x[::3])):
        assert np.linalg.eigvalsh(k.k(x, x, 0.7)).min() > -1e-10


def test_large_empirical_measure_is_compressed_exactly_weighted():
    pts = np.random.default_rng(2).normal(size=5 * MAX_MEASURE_POINTS)
    e = ConstrainedEmpiricalRBF(pts)
    assert e.points.shape[0] <= MAX_MEASURE_POINTS
    assert e.weights.sum() == pytest.approx(1.0)
    assert e.points @ e.weights == pytest.approx(pts.mean(), abs=1e-12)  # groups keep the mean
    np.testing.assert_allclose(e.weights @ e.at_measure(np.array([0.0, 1.0]), 0.5), 0.0, atol=1e-13)


def test_bad_measures_are_rejected():
    with pytest.raises(ValueError, match="positive scale"):
        ConstrainedGaussianRBF(0.0, 0.0)
    with pytest.raises(ValueError, match="probability"):
        ConstrainedCategorical([0.5, 0.6])


def test_constrained_categorical_is_not_the_product_kernel_categorical():
    import kexplain as kx

    # one name, one class: the OAK base kernel has its own name
    assert not hasattr(kx.gp, "Categorical")
    assert kx.gp.ConstrainedCategorical is not kx.kernels.Categorical
    assert "ConstrainedCategorical" in kx.gp.__all__


def test_empirical_kernel_rows_do_not_depend_on_the_batch():
    # a row's kernel values are the same whether it is evaluated alone or with others (n_jobs)
    rng = np.random.default_rng(3)
    e = ConstrainedEmpiricalRBF(rng.normal(size=200))
    x, y = rng.normal(size=9), rng.normal(size=30)
    full = e.k(x, y, 0.7)
    np.testing.assert_array_equal(full[3:6], e.k(x[3:6], y, 0.7))


@pytest.mark.parametrize(
    "args,match",
    [
        (([0.0, 1.0], [0.0, 0.0]), "weights must hold one finite, non-negative weight per point"),  # was NaN
        (([0.0, 1.0], [1.0, -0.5]), "weights must hold"),  # was a kernel of a signed measure
        (([0.0, 1.0, 2.0], [1.0, 1.0]), "weights must hold one .* per point \\(3\\)"),  # was a broadcast error
        (([0.0, 1.0], [1.0, np.nan]), "weights must hold"),
        (([],), "points must be a non-empty 1-D array of finite numbers"),  # was NaN
        (([0.0, np.nan],), "points must be a non-empty"),  # was NaN
        (([[0.0, 1.0]],), "points must be a non-empty 1-D"),
        ((["a", "b"],), "points must be a 1-D array of numbers"),
        (([0.0, 1.0], None, 0), "max_points"),
    ],
)
def test_empirical_measures_that_are_no_probability_measure_are_named(args, match):
    """Each gave NaN kernel values, a signed measure or numpy's own error before, none naming the argument."""
    with pytest.raises(ValueError, match=match):
        ConstrainedEmpiricalRBF(*args)


@pytest.mark.parametrize("l", [0.0, -1.0, np.nan, np.inf])
@pytest.mark.parametrize("kernel", [ConstrainedGaussianRBF(0.0, 1.0), ConstrainedEmpiricalRBF([0.0, 1.0, 3.0])])
def test_lengthscales_that_are_not_positive_and_finite_are_named(kernel, l):
    """Zero, NaN and infinity gave NaN kernel values; -1 the values of +1; all without an error."""
    x = np.array([0.0, 1.0])
    for call in (kernel.k, kernel.dk_dlog_l, kernel.gamma):
        with pytest.raises(ValueError, match="the lengthscale l must be a positive finite number"):
            call(x, x, l)
    with pytest.raises(ValueError, match="the lengthscale l must be a positive finite number"):
        kernel.diag(x, l)

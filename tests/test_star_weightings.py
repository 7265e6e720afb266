"""RKHS Weighting closed forms (RWSign, RWRelu, RWStumps, STAR versions) against Monte Carlo."""

from itertools import combinations
from math import comb

import numpy as np
import pytest

from kexplain.star import (
    RKHSWeighting,
    RWRelu,
    RWSign,
    RWStumps,
    Sequences,
    SequencesUpTo,
    UniformSubsets,
    UniformUpTo,
    gamma_from_c,
)

N_MC = 200_000


def _mc_check(estimates, closed, n_se=4.0):
    """Each closed-form value lies within n_se standard errors of its Monte Carlo mean."""
    mean = estimates.mean(axis=0)
    se = estimates.std(axis=0, ddof=1) / np.sqrt(estimates.shape[0])
    assert np.all(se > 0)
    z = np.abs(mean - closed) / se
    assert np.all(z < n_se), f"closed form off by {z.max():.1f} standard errors"


@pytest.mark.parametrize("cls", [RWSign, RWRelu])
@pytest.mark.parametrize("sigma,gamma", [(1.0, 1.0), (0.7, 2.5), (2.0, 0.6)])
def test_sign_and_relu_closed_forms_match_monte_carlo(cls, sigma, gamma):
    rng = np.random.default_rng([len(cls.__name__), int(sigma * 10), int(gamma * 10)])
    n = 3
    inst = cls(sigma=sigma, gamma=gamma)
    U = rng.normal(size=(2, n))  # two parameters u_t
    X = rng.normal(size=(3, n))  # three inputs
    closed = inst.expectation(U, X)  # (3, 2)
    W = rng.normal(scale=sigma, size=(N_MC, n))  # w ~ p
    K = inst.kernel(W, U)  # (N, 2)
    phi = inst.base_predictor(W, X)  # (3, N)
    samples = K[:, None, :] * phi.T[:, :, None]  # (N, 3, 2)
    _mc_check(samples.reshape(N_MC, -1), closed.reshape(-1))


@pytest.mark.parametrize("sigma,gamma", [(1.0, 1.0), (0.5, 0.3), (2.0, 1.5)])
def test_stumps_closed_form_matches_monte_carlo(sigma, gamma):
    rng = np.random.default_rng(int(sigma * 100 + gamma * 10))
    n = 4
    inst = RWStumps(sigma=sigma, gamma=gamma)
    weighting = RKHSWeighting(inst, n).set_parameters([(1,), (3,)], [[0.4], [-0.8]])
    X = rng.normal(size=(3, n))
    closed = weighting.design_matrix(X)  # includes p(j) = 1/n
    # (j, theta) ~ U{0..n-1} x N(0, sigma^2); K = 1[j = j_t] exp(-(theta - theta_t)^2 / 2 gamma^2)
    j = rng.integers(0, n, size=N_MC)
    theta = rng.normal(scale=sigma, size=N_MC)
    samples = np.empty((N_MC, 3, 2))
    for t, (jt, th) in enumerate([(1, 0.4), (3, -0.8)]):
        K = (j == jt) * np.exp(-((theta - th) ** 2) / (2 * gamma**2))
        samples[:, :, t] = K[:, None] * np.sign(X[:, j].T - theta[:, None])
    _mc_check(samples.reshape(N_MC, -1), closed.reshape(-1))


@pytest.mark.parametrize("cls", [RWSign, RWRelu])
def test_star_version_matches_joint_monte_carlo(cls):
    # E_{(w, I) ~ p}[K((w_t, I_t), (w, I)) phi(<w_I, x_I>)] with p = N(0, s^2 I_|I|) x uniform size-2
    rng = np.random.default_rng(7)
    n, sigma, gamma = 4, 1.0, 1.2
    inst = cls(sigma=sigma, gamma=gamma)
    dist = UniformSubsets(n, 2)
    subsets = [(0, 2), (1, 3)]
    Wt = [np.array([0.5, -1.0]), np.array([1.5, 0.2])]
    weighting = RKHSWeighting(inst, n, dist).set_parameters(subsets, Wt)
    X = rng.normal(size=(3, n))
    closed = weighting.design_matrix(X)
    pairs = list(combinations(range(n), 2))
    which = rng.integers(0, len(pairs), size=N_MC)
    W = rng.normal(scale=sigma, size=(N_MC, 2))
    samples = np.zeros((N_MC, 3, 2))
    for t, (I, wt) in enumerate(zip(subsets, Wt)):
        hit = which == pairs.index(I)
        K = hit * np.exp(-((W - wt) ** 2).sum(1) / (2 * gamma**2))
        phi = inst.base_predictor(W, X[:, list(I)])  # (3, N)
        samples[:, :, t] = K[:, None] * phi.T
    _mc_check(samples.reshape(N_MC, -1), closed.reshape(-1))


def test_relu_matches_theorem_4_1_as_printed():
    # Dubé & Marchand, Theorem 4.1 (equation 25) written out literally
    from scipy.special import erf

    rng = np.random.default_rng(1)
    n, sigma, gamma = 5, 0.8, 1.7
    u, x = rng.normal(size=n), rng.normal(size=n)
    zeta = np.sqrt(1.0 / (1.0 / gamma**2 + 1.0 / sigma**2))
    up = u / (1 + gamma**2 / sigma**2)
    nx = np.linalg.norm(x)
    ux = up @ x
    front = (1 + sigma**2 / gamma**2) ** (-n / 2) * np.exp(-u @ u / (2 * sigma**2 + 2 * gamma**2))
    eq25 = (
        front
        / (2 * np.sqrt(np.pi))
        * (
            np.sqrt(2) * zeta * np.exp(-(ux**2) / (2 * zeta**2 * nx**2))
            + np.sqrt(np.pi) * ux / nx * (1 + erf(ux / (np.sqrt(2) * zeta * nx)))
        )
        * nx
    )
    np.testing.assert_allclose(RWRelu(sigma=sigma, gamma=gamma).expectation(u[None], x[None])[0, 0], eq25, rtol=1e-12)


def test_zero_input_gives_zero_and_no_nan():
    for cls in (RWSign, RWRelu):
        v = cls(sigma=1.0, gamma=1.0).expectation(np.ones((2, 3)), np.zeros((4, 3)))
        assert np.all(v == 0.0)


def test_gamma_from_c_equation_65():
    for c, sigma, dim in [(0.1, 1.0, 10), (0.5, 0.3, 3), (0.9, 2.0, 1)]:
        g = gamma_from_c(c, sigma, dim)
        np.testing.assert_allclose((1 + 2 * sigma**2 / g**2) ** (-dim / 2), c**2, rtol=1e-12)
    with pytest.raises(ValueError, match="c must lie"):
        gamma_from_c(1.5, 1.0, 3)
    with pytest.raises(ValueError, match="gamma"):
        RWRelu(sigma=1.0)


def test_theta_bound_lemma_c2_by_monte_carlo():
    # E_u E_w K(u, w) = (1 + 2 sigma^2 / gamma^2)^(-n/2) = c^2 when gamma comes from c
    rng = np.random.default_rng(3)
    n, sigma, c = 3, 1.3, 0.5
    g = gamma_from_c(c, sigma, n)
    U, W = rng.normal(scale=sigma, size=(2, N_MC, n))
    samples = np.exp(-((U - W) ** 2).sum(1) / (2 * g * g))
    _mc_check(samples[:, None], np.array([c**2]))


@pytest.mark.parametrize("dist", [UniformSubsets(5, 2), UniformUpTo(5, 3), Sequences(6, 3), SequencesUpTo(6, 3)])
def test_subset_distributions_are_normalised_and_match_their_samples(dist):
    n = dist.n_features
    all_subsets = [s for k in range(1, n + 1) for s in combinations(range(n), k)]
    probs = np.array([dist.probability(s) for s in all_subsets])
    np.testing.assert_allclose(probs.sum(), 1.0, rtol=1e-12)
    draws = dist.sample(20_000, np.random.default_rng(0))
    assert all(dist.probability(s) > 0 for s in draws)
    freq = {s: 0 for s in all_subsets}
    for s in draws:
        freq[s] += 1
    emp = np.array([freq[s] for s in all_subsets]) / len(draws)
    se = np.sqrt(probs * (1 - probs) / len(draws)) + 1e-12
    assert np.all(np.abs(emp - probs) < 4.5 * se + 1e-9)


def test_uniform_probability_formula():
    assert UniformSubsets(10, 3).probability((1, 4, 7)) == 1 / comb(10, 3)
    assert Sequences(10, 3).probability((1, 2, 4)) == 0.0
    with pytest.raises(ValueError, match="exceeds"):
        UniformSubsets(3, 4)


def test_gram_is_block_diagonal_by_subset_and_psd():
    rng = np.random.default_rng(0)
    w = RKHSWeighting(RWRelu(sigma=1.0, c=0.5), 5, UniformUpTo(5, 2)).sample(40, rng)
    G = w.gram()
    same = np.array([[a == b for b in w.subsets_] for a in w.subsets_])
    assert np.all(G[~same] == 0.0) and np.allclose(np.diag(G), 1.0)
    assert np.linalg.eigvalsh(G).min() > -1e-10
    with pytest.raises(ValueError, match="RWStumps is already additive"):
        RKHSWeighting(RWStumps(sigma=1.0, gamma=1.0), 5, UniformSubsets(5, 2))

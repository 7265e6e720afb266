"""Exact posterior covariance of OAK's local Shapley values (``explain(X, uncertainty=True)``).

Checked against brute force: the Shapley operator applied on both sides to k_post evaluated at
every coalition's rows (all coalition pairs), with the expectations of the functional-ANOVA game
summed over the (discrete) empirical input measure and those of the interventional game over
the background rows; and against a Monte Carlo over posterior function draws.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import linalg

import kexplain as kx
from kexplain.gp._fitting import additive_kernel


def _shapley_operator(d):
    subsets = [frozenset(c) for r in range(d + 1) for c in itertools.combinations(range(d), r)]
    pos = {s: i for i, s in enumerate(subsets)}
    A = np.zeros((d, len(subsets)))
    for j in range(d):
        for s in subsets:
            if j not in s:
                w = math.factorial(len(s)) * math.factorial(d - len(s) - 1) / math.factorial(d)
                A[j, pos[s | {j}]] += w
                A[j, pos[s]] -= w
    return subsets, A


def _k_post(m, A, C):
    """Posterior covariance of the standardised latent f between encoded rows (exact or sparse)."""
    S, ls, s2 = m.support_, m._ls, m.order_variances_
    K = additive_kernel(m.bases_, A, C, ls, s2)
    KA, KC = additive_kernel(m.bases_, S, A, ls, s2), additive_kernel(m.bases_, S, C, ls, s2)
    f = m._factors
    P = linalg.cho_solve((f[0], True), np.eye(S.shape[0]))
    if len(f) == 2:
        P = P - m.noise_variance_ * linalg.cho_solve((f[1], True), np.eye(S.shape[0]))
    return K - KA.T @ P @ KC


def _measure(base):
    """Points and weights of a discrete input measure (empirical or categorical)."""
    if hasattr(base, "points"):
        return base.points, base.weights
    return base.levels(), base.probs


def _anova_rows(m, x, s):
    """Rows (x_S, X_notS) over the product of the discrete input measures of the absent features, weighted."""
    absent = [j for j in range(len(x)) if j not in s]
    grid = itertools.product(*[range(len(_measure(m.bases_[j])[0])) for j in absent])
    rows, wts = [], []
    for ii in grid:
        r = x.copy()
        w = 1.0
        for k, j in zip(ii, absent):
            pts, wt = _measure(m.bases_[j])
            r[j] = pts[k]
            w *= wt[k]
        rows.append(r)
        wts.append(w)
    return np.array(rows), np.array(wts)


def _interventional_rows(x, s, Zb, w):
    R = Zb.copy()
    R[:, list(s)] = x[list(s)]
    return R, w


def _enumerated_covariance(m, x, xp, rows):
    """(phi (x) phi)[k_post] by all coalition pairs, in target units."""
    subsets, A = _shapley_operator(len(x))

    def stacked(z):
        parts = [rows(z, s) for s in subsets]
        W = np.zeros((sum(len(w) for _, w in parts), len(parts)))  # coalition weights, block by block
        at = 0
        for c, (_, w) in enumerate(parts):
            W[at : at + len(w), c] = w
            at += len(w)
        return np.vstack([r for r, _ in parts]), W

    (R, W), (Rp, Wp) = stacked(x), stacked(xp)
    V = W.T @ _k_post(m, R, Rp) @ Wp  # V(S, S') for all coalition pairs
    return A @ V @ A.T * m.y_std_**2


def _data(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = 3.0 * (np.sin(X[:, 0]) + X[:, 1] * X[:, 2 % d]) + 5.0
    return X, y


@pytest.fixture(scope="module", params=["exact", "sparse"])
def small(request):
    X, y = _data(7, 3, 0)
    m = kx.gp.OAKRegressor(
        input_measure="empirical",
        max_iter=3,
        n_inducing=5 if request.param == "sparse" else None,
        random_state=0,
    ).fit(X, y)
    return m, X


def _rel(a, b):
    return np.abs(a - b).max() / np.abs(b).max()


def test_anova_covariance_equals_enumeration_of_coalition_pairs(small):
    m, X = small
    ex = kx.gp.OAKExplainer(m).explain(X[:3], uncertainty=True, joint=True)
    Z = m._encode(X[:3])
    rows = lambda x, s: _anova_rows(m, x, s)  # noqa: E731
    for a in range(2):
        assert _rel(ex.covariance[a], _enumerated_covariance(m, Z[a], Z[a], rows)) < 1e-10
    assert _rel(ex.joint_covariance[0, :, 2, :], _enumerated_covariance(m, Z[0], Z[2], rows)) < 1e-10


def test_anova_covariance_d4_with_a_categorical_feature():
    X, y = _data(5, 4, 7)
    X[:, 3] = [0, 1, 1, 2, 0]
    m = kx.gp.OAKRegressor(input_measure="empirical", categorical_features=[3], max_iter=0).fit(X, y)
    ex = kx.gp.OAKExplainer(m).explain(X[:2], uncertainty=True, joint=True)
    Z = m._encode(X[:2])
    rows = lambda x, s: _anova_rows(m, x, s)  # noqa: E731
    assert _rel(ex.covariance[1], _enumerated_covariance(m, Z[1], Z[1], rows)) < 1e-10
    assert _rel(ex.joint_covariance[0, :, 1, :], _enumerated_covariance(m, Z[0], Z[1], rows)) < 1e-10


@pytest.mark.parametrize("d,order", [(3, 3), (4, 3), (6, 6)])
def test_interventional_covariance_equals_enumeration_of_coalition_pairs(d, order):
    X, y = _data(12, d, 1)
    if d == 6:
        X[:, 5] = np.arange(12) % 3  # a categorical feature
    m = kx.gp.OAKRegressor(max_interaction_order=order, max_iter=3, categorical_features=[5] if d == 6 else None)
    m.fit(X, y)
    rng = np.random.default_rng(2)
    bg, w = X[:4], rng.random(4) + 0.1
    ex = kx.gp.OAKExplainer(m, bg, background_weights=w).explain(X[5:8], uncertainty=True, joint=True)
    Z, Zb = m._encode(X[5:8]), m._encode(bg)
    rows = lambda x, s: _interventional_rows(x, s, Zb, w / w.sum())  # noqa: E731
    assert _rel(ex.covariance[0], _enumerated_covariance(m, Z[0], Z[0], rows)) < 1e-10
    assert _rel(ex.joint_covariance[1, :, 2, :], _enumerated_covariance(m, Z[1], Z[2], rows)) < 1e-10


def _game_variances(m, x, game, Zb=None, w=None):
    """Var f(x), Var v(empty) and Var(f(x) - v(empty)) from k_post directly (target units)."""
    if game == "anova":  # v(empty) = f_0 = E_p f: the product of the empirical measures
        R, wr = _anova_rows(m, x, frozenset())
    else:
        R, wr = Zb, w
    fx = _k_post(m, x[None], x[None])[0, 0]
    cross = (_k_post(m, x[None], R) @ wr)[0]
    v0 = wr @ _k_post(m, R, R) @ wr
    s = m.y_std_**2
    return s * fx, s * v0, s * (fx - 2 * cross + v0)


@pytest.mark.parametrize("game", ["anova", "interventional"])
def test_efficiency_in_distribution_and_variances(small, game):
    m, X = small
    bg = X[:4] if game == "interventional" else None
    w = np.full(4, 0.25)
    ex = kx.gp.OAKExplainer(m, bg).explain(X[2:5], uncertainty=True)
    Z = m._encode(X[2:5])
    Zb = None if bg is None else m._encode(bg)
    for a in range(3):
        fx, v0, diff = _game_variances(m, Z[a], game, Zb, w)
        # the covariance of the summed values is that of f(x) - v(empty)
        assert ex.covariance[a].sum() == pytest.approx(diff, rel=1e-9, abs=1e-12)
        assert ex.prediction_variance[a] == pytest.approx(fx, rel=1e-9)
        assert ex.base_variance[a] == pytest.approx(v0, rel=1e-9, abs=1e-14)
    _, std = m.predict(X[2:5], return_std=True)
    np.testing.assert_allclose(ex.prediction_variance, std**2, rtol=1e-9)


def test_covariances_are_symmetric_and_positive_semidefinite():
    X, y = _data(40, 5, 3)
    m = kx.gp.OAKRegressor(max_interaction_order=3, max_iter=5).fit(X, y)
    for bg in (None, X[:6]):
        ex = kx.gp.OAKExplainer(m, bg).explain(X[:5], uncertainty=True, joint=True)
        N, d = ex.values.shape
        J = ex.joint_covariance.reshape(N * d, N * d)
        np.testing.assert_array_equal(J, J.T)
        assert np.linalg.eigvalsh(J).min() > -1e-10 * np.abs(J).max()
        for a in range(N):
            np.testing.assert_allclose(ex.joint_covariance[a, :, a, :], ex.covariance[a], rtol=1e-10, atol=1e-14)
            assert np.linalg.eigvalsh(ex.covariance[a]).min() > -1e-10 * np.abs(ex.covariance[a]).max()


def test_monte_carlo_over_posterior_draws():
    """Shapley values of posterior function draws: their mean and covariance agree within sampling error."""
    X, y = _data(15, 3, 4)
    m = kx.gp.OAKRegressor(max_iter=5).fit(X, y)
    bg = X[:3]
    x = X[6:7]
    ex = kx.gp.OAKExplainer(m, bg).explain(x, uncertainty=True)
    Z, Zb = m._encode(x)[0], m._encode(bg)
    subsets, A = _shapley_operator(3)
    R = np.vstack([_interventional_rows(Z, s, Zb, None)[0] for s in subsets])  # (8 * 3, d)
    mean = m._mean_encoded(R)
    C = _k_post(m, R, R) * m.y_std_**2
    draws = np.random.default_rng(0).multivariate_normal(mean, C, size=20_000, method="eigh")
    v = draws.reshape(-1, len(subsets), 3).mean(axis=2)  # v(S) of each draw: mean over background rows
    phi = v @ A.T
    assert np.all(np.abs(phi.mean(axis=0) - ex.values[0]) < 5 * np.sqrt(np.diag(ex.covariance[0]) / 20_000))
    emp = np.cov(phi.T)
    sd = np.sqrt(np.outer(np.diag(ex.covariance[0]), np.diag(ex.covariance[0])))
    # standard error of a sample covariance is at most sqrt(2 / n) sigma_j sigma_l
    assert np.all(np.abs(emp - ex.covariance[0]) < 5 * np.sqrt(2 / 20_000) * sd + 1e-12)


@pytest.mark.parametrize("background", [False, True])
def test_n_jobs_gives_identical_covariances(background):
    X, y = _data(40, 4, 5)
    m = kx.gp.OAKRegressor(max_interaction_order=2, max_iter=3).fit(X, y)
    expl = kx.gp.OAKExplainer(m, X[:5] if background else None)
    a = expl.explain(X[:20], uncertainty=True)
    b = expl.explain(X[:20], uncertainty=True, n_jobs=2)
    np.testing.assert_allclose(a.covariance, b.covariance, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(a.prediction_variance, b.prediction_variance, rtol=1e-12)
    assert a.joint_covariance is None


def test_options_and_errors():
    X, y = _data(20, 3, 6)
    m = kx.gp.OAKRegressor(max_iter=0).fit(X, y)
    with pytest.raises(ValueError, match="needs uncertainty=True"):
        kx.gp.OAKExplainer(m).explain(X[:2], joint=True)
    with pytest.raises(TypeError, match="uncertainty"):
        kx.gp.OAKExplainer(m).explain(X[:2], uncertainty="yes")
    ex = m.explain(X[:2], uncertainty=True)  # the estimator's shortcut passes the option on
    assert ex.covariance.shape == (2, 3, 3)
    plain = m.explain(X[:2])
    np.testing.assert_array_equal(plain.values, ex.values)
    assert plain.covariance is None

"""Sampled Shapley values of any game: KernelSHAP's weighted least squares over paired coalitions.

Shapley values solve (Lundberg & Lee 2017; Covert & Lee 2021)

    min_phi  E_{z ~ mu} [ (v(z) - v(0) - z^T phi)^2 ]   subject to  1^T phi = v(1) - v(0),

where z ranges over the non-empty proper coalitions with the Shapley kernel weight
mu(z) ∝ (d - 1) / (C(d, |z|) |z| (d - |z|)).  With A = E[z z^T] (known in closed form) and
b = E[z (v(z) - v(0))] the solution is

    phi = A^-1 (b - 1 (1^T A^-1 b - (v(1) - v(0))) / (1^T A^-1 1)).

Both A and b are estimated from the same draws (KernelSHAP's ratio estimator, which Covert & Lee
2021 found far more accurate than the unbiased variant with the exact A), and draws are paired
(z with its complement 1 - z), which cancels most of the variance.  Standard errors are the
sandwich (delta-method) estimate: phi - phi_true ~ C mean_k (b_k - A_k phi) with C the
constrained inverse, so they come from the sample covariance of the per-pair residual terms.
Additive games have zero residuals and come out exact.  Efficiency holds exactly for every
budget.
"""

from __future__ import annotations

from collections.abc import Callable
from numbers import Integral, Real

import numpy as np

from .enumeration import _evaluate, _to_points_first
from .result import ShapleyValues

#: pairs drawn before the standard errors are trusted for the early stop
_MIN_PAIRS_FOR_STOP = 32


def _size_distribution(d: int) -> np.ndarray:
    """P(|z| = s) for s = 1..d-1 under the Shapley kernel: proportional to 1 / (s (d - s))."""
    s = np.arange(1, d)
    p = 1.0 / (s * (d - s))
    return p / p.sum()


def shapley_kernel_moment(d: int) -> np.ndarray:
    """A = E[z z^T] under the Shapley kernel distribution over non-empty proper coalitions.

    Examples
    --------
    >>> from kexplain.shapley import shapley_kernel_moment
    >>> shapley_kernel_moment(3).round(3)
    array([[0.5  , 0.167, 0.167],
           [0.167, 0.5  , 0.167],
           [0.167, 0.167, 0.5  ]])
    """
    p = _size_distribution(d)
    s = np.arange(1, d)
    diag = float(np.sum(p * s / d))  # = 1/2 by the symmetry s <-> d - s
    off = float(np.sum(p * s * (s - 1) / (d * (d - 1)))) if d > 1 else 0.0
    A = np.full((d, d), off)
    np.fill_diagonal(A, diag)
    return A


def _draw_coalitions(rng, d: int, n: int, size_p: np.ndarray) -> np.ndarray:
    sizes = rng.choice(np.arange(1, d), size=n, p=size_p)
    # a uniform subset of each size: rank random keys and keep the smallest `size`
    keys = rng.random((n, d))
    ranks = np.argsort(np.argsort(keys, axis=1), axis=1)
    return ranks < sizes[:, None]


def _check_budget(budget, d):
    if isinstance(budget, (bool, np.bool_)) or not isinstance(budget, Integral):
        raise TypeError(f"budget must be an integer number of coalition evaluations, got {budget!r}.")
    if budget < d + 1:
        raise ValueError(
            f"budget must be at least d + 1 = {d + 1} coalition evaluations (the empty and full "
            f"coalitions plus enough pairs to identify {d} values), got {budget}."
        )
    return int(budget)


def _as_rng(random_state):
    """numpy Generator or RandomState from None, a seed, or either object (scikit-learn's
    convention, without importing scikit-learn into the solver layer)."""
    if isinstance(random_state, (np.random.Generator, np.random.RandomState)):
        return random_state
    if random_state is None:
        return np.random.mtrand._rand
    if isinstance(random_state, (Integral, np.integer)) and not isinstance(random_state, bool):
        return np.random.RandomState(int(random_state))
    raise ValueError(f"random_state must be None, an integer, a numpy Generator or RandomState, got {random_state!r}.")


def sampled_shapley(
    value_function: Callable[[np.ndarray], np.ndarray],
    d: int,
    budget: int,
    random_state: int | np.random.Generator | np.random.RandomState | None = None,
    *,
    tol: float | None = None,
    batch_size: int = 256,
) -> ShapleyValues:
    """Shapley values of the game ``value_function`` estimated from sampled coalitions.

    Parameters
    ----------
    value_function : callable
        Same convention as :func:`kx.exact_shapley`: takes a boolean array of coalitions, shape
        (n_coalitions, d), and returns values of shape (n_coalitions,), (n_coalitions, N) or
        (n_coalitions, N, n_outputs).
    d : int
        Number of players (at least 2; with one player the value is v(1) - v(0) exactly).
    budget : int
        Largest number of coalition evaluations, the empty and full coalitions included; at least
        d + 1.  Coalitions are drawn in complementary pairs.
    random_state : None, int or numpy Generator/RandomState
        Makes the draws reproducible.
    tol : float, optional
        Stop early once the largest standard error (over features, points and outputs) falls
        below ``tol``.
    batch_size : int
        Pairs evaluated per call of ``value_function``.

    Returns
    -------
    ShapleyValues with ``values`` (feature axis after the points axis, as for exact_shapley),
    ``standard_errors`` of the same shape, ``v_empty``, ``v_full`` and ``n_evaluations``.
    The values satisfy efficiency exactly: they sum to v_full - v_empty.

    Examples
    --------
    An additive game comes out exact, with zero standard errors.

    >>> import numpy as np
    >>> from kexplain.shapley import sampled_shapley
    >>> res = sampled_shapley(lambda S: S @ np.array([1.0, -2.0, 0.5]), 3, budget=64, random_state=0)
    >>> np.round(res.values, 6), res.n_evaluations
    (array([ 1. , -2. ,  0.5]), 64)
    """
    if isinstance(d, (bool, np.bool_)) or not isinstance(d, Integral) or d < 1:
        raise ValueError(f"d must be a positive integer (the number of players), got {d!r}.")
    d = int(d)
    if not callable(value_function):
        raise TypeError(f"value_function must be callable, got {type(value_function).__name__}.")
    budget = _check_budget(budget, d)
    if tol is not None and (isinstance(tol, bool) or not isinstance(tol, Real) or not tol > 0):
        raise ValueError(f"tol must be a positive number or None, got {tol!r}.")
    if isinstance(batch_size, bool) or not isinstance(batch_size, Integral) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}.")
    rng = _as_rng(random_state)

    ends = np.zeros((2, d), dtype=bool)
    ends[1] = True
    v_ends = _evaluate(value_function, ends, d)
    v_empty, v_full = v_ends[0], v_ends[1]
    trailing = v_empty.shape
    T = int(np.prod(trailing, dtype=np.int64))
    delta = (v_full - v_empty).reshape(T)

    if d == 1:
        values = _to_points_first(delta.reshape((1,) + trailing))
        return _result(values, np.zeros_like(values), v_empty, v_full, 2)

    max_pairs = (budget - 2) // 2
    size_p = _size_distribution(d)
    Zs, Va, Vb = [], [], []
    n_pairs = 0
    phi = se = None
    while n_pairs < max_pairs:
        m = min(batch_size, max_pairs - n_pairs)
        z = _draw_coalitions(rng, d, m, size_p)
        vals = _evaluate(value_function, np.concatenate([z, ~z]), d).reshape(2 * m, T)
        Zs.append(z)
        Va.append(vals[:m])
        Vb.append(vals[m:])
        n_pairs += m
        if tol is not None and n_pairs >= _MIN_PAIRS_FOR_STOP:
            phi, se = _estimate(np.concatenate(Zs), np.concatenate(Va), np.concatenate(Vb), v_empty.reshape(T), delta)
            if np.max(se) < tol:
                break
            phi = None
    if n_pairs and phi is None:
        phi, se = _estimate(np.concatenate(Zs), np.concatenate(Va), np.concatenate(Vb), v_empty.reshape(T), delta)
    if phi is None:
        # budget d + 1 with d = 2 leaves no room for a pair: efficiency alone splits v(1) - v(0)
        phi = np.outer(np.full(d, 1.0 / d), delta)
        se = np.full_like(phi, np.inf)
    values = _to_points_first(phi.reshape((d,) + trailing))
    ses = _to_points_first(se.reshape((d,) + trailing))
    return _result(values, ses, v_empty, v_full, 2 + 2 * n_pairs)


def _estimate(Z, Va, Vb, v0, delta, chunk=256):
    """Constrained weighted least squares over M pairs (coalitions Z and complements) and the
    sandwich standard errors.  Returns phi and se, both (d, T)."""
    M, d = Z.shape
    Zf, Zc = Z.astype(np.float64), (~Z).astype(np.float64)
    ya, yb = Va - v0, Vb - v0  # (M, T)
    A = (Zf.T @ Zf + Zc.T @ Zc) / (2 * M)
    b = (Zf.T @ ya + Zc.T @ yb) / (2 * M)  # (d, T)
    # KKT system of min phi^T A phi - 2 b^T phi subject to 1^T phi = delta; pinv copes with a
    # singular A when few pairs were drawn
    kkt = np.zeros((d + 1, d + 1))
    kkt[:d, :d] = A
    kkt[:d, d] = kkt[d, :d] = 1.0
    kinv = np.linalg.pinv(kkt)
    phi = kinv[:d, :d] @ b + np.outer(kinv[:d, d], delta)  # (d, T)
    C = kinv[:d, :d]  # d phi / d b, with C 1 = 0
    if M < 2:
        return phi, np.full_like(phi, np.inf)
    # influence of pair k: r_k = b_k - A_k phi (zero for additive games, which come out exact)
    T = phi.shape[1]
    s1 = np.zeros((T, d))
    s2 = np.zeros((T, d, d))
    for lo in range(0, M, chunk):
        za, zb = Zf[lo : lo + chunk], Zc[lo : lo + chunk]
        ra = ya[lo : lo + chunk] - za @ phi  # (m, T)
        rb = yb[lo : lo + chunk] - zb @ phi
        r = 0.5 * (ra[:, :, None] * za[:, None, :] + rb[:, :, None] * zb[:, None, :])  # (m, T, d)
        s1 += r.sum(axis=0)
        s2 += np.einsum("mtj,mtk->tjk", r, r)
    mean = s1 / M
    cov = (s2 - M * np.einsum("tj,tk->tjk", mean, mean)) / (M - 1)
    var = np.einsum("jk,tkl,jl->jt", C, cov, C) / M
    return phi, np.sqrt(np.maximum(var, 0.0))


def _result(values, ses, v_empty, v_full, n_eval):
    return ShapleyValues(
        values=values,
        v_full=np.asarray(v_full),
        v_empty=np.asarray(v_empty),
        standard_errors=ses,
        n_evaluations=int(n_eval),
    )

"""Sampled Shapley values of any game: KernelSHAP's weighted least squares over paired coalitions.

Shapley values solve (Lundberg & Lee 2017; Covert & Lee 2021)

    min_phi  E_{z ~ mu} [ (v(z) - v(0) - z^T phi)^2 ]   subject to  1^T phi = v(1) - v(0),

where z ranges over the non-empty proper coalitions with the Shapley kernel weight
mu(z) ∝ (d - 1) / (C(d, |z|) |z| (d - |z|)).  With A = E[z z^T] (known in closed form) and
b = E[z (v(z) - v(0))] the solution is

    phi = A^-1 (b - 1 (1^T A^-1 b - (v(1) - v(0))) / (1^T A^-1 1)).

Both A and b are estimated from the same draws (KernelSHAP's ratio estimator, which Covert & Lee
2021 found far more accurate than the unbiased variant with the exact A), and draws are paired
(z with its complement 1 - z), which cancels most of the variance.  Efficiency holds exactly for
every budget.

Standard errors.  The sandwich (delta-method) estimate of Covert & Lee (2021, section 4) is
computed from the residuals of the fit, and with d or fewer pairs the fit interpolates the sampled
coalitions: the residuals vanish and the sandwich reports standard errors of 1e-13 on values that
are wrong by whole units; just above d pairs it still under-reports.  Here the pairs are dealt, in
the order they are drawn, into ``_N_GROUPS`` groups and the standard errors are the delete-a-group
jackknife (Efron & Stein, 1981): the spread of the estimates that leave one group out.  It needs
no residuals, cannot vanish unless the leave-one-out estimates agree (they do for additive games,
which the sampled coalitions then identify exactly), and errs on the side of too large.  Before
``_MIN_PAIRS_PER_PLAYER * d`` pairs (and at least ``_MIN_PAIRS`` pairs) no standard error is
reported: they are infinite, a warning says why, and ``tol`` cannot stop the sampling.

The coalitions are drawn in chunks of a fixed size, whatever ``batch_size`` is, and the stopping
rule is checked at fixed numbers of pairs, so ``batch_size`` (how many coalitions go to one call
of the value function) changes neither the values nor where sampling stops.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from numbers import Integral

import numpy as np

from .._params import Integer, Real, check_param
from .._validation import check_random_state
from .enumeration import _evaluate, _to_points_first
from .result import ShapleyValues

#: pairs drawn from the random stream at a time, independent of ``batch_size``
_DRAW_CHUNK = 64

#: groups of pairs of the delete-a-group jackknife (pair k goes to group k mod _N_GROUPS)
_N_GROUPS = 32

#: standard errors are reported (and ``tol`` may stop) from this many pairs per player on ...
_MIN_PAIRS_PER_PLAYER = 2

#: ... and never below this many pairs
_MIN_PAIRS = _N_GROUPS

#: a Cholesky factor whose diagonal spans more than this ratio (condition > 1e12) is not used
_CHOLESKY_RTOL = 1e-6

#: after the first check, ``tol`` is checked each time the number of pairs has grown by this factor
_CHECK_GROWTH = 1.25


def min_pairs_for_standard_errors(d: int) -> int:
    """Pairs of coalitions needed before ``sampled_shapley`` reports finite standard errors.

    Below this the least-squares fit comes close to interpolating the sampled coalitions and no
    variance estimate from the draws themselves can be trusted (module docstring).  A budget of
    ``2 + 2 * min_pairs_for_standard_errors(d)`` evaluations is enough.

    Parameters
    ----------
    d : int
        Number of players.

    Returns
    -------
    int

    Examples
    --------
    >>> from kexplain.shapley.sampling import min_pairs_for_standard_errors
    >>> min_pairs_for_standard_errors(10), min_pairs_for_standard_errors(100)
    (32, 200)
    """
    return max(_MIN_PAIRS, _MIN_PAIRS_PER_PLAYER * int(d))


def _size_distribution(d: int) -> np.ndarray:
    """P(|z| = s) for s = 1..d-1 under the Shapley kernel: proportional to 1 / (s (d - s))."""
    s = np.arange(1, d)
    p = 1.0 / (s * (d - s))
    return p / p.sum()


def shapley_kernel_moment(d: int) -> np.ndarray:
    """A = E[z z^T] under the Shapley kernel distribution over non-empty proper coalitions.

    Parameters
    ----------
    d : int
        Number of players (at least 2).

    Returns
    -------
    ndarray of shape (d, d)
        The moment matrix A = E[z z^T].

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


class _CoalitionStream:
    """Coalitions drawn from ``rng`` in chunks of ``_DRAW_CHUNK``: the k-th coalition is the same
    whichever sizes the caller takes them in."""

    def __init__(self, rng: np.random.Generator, d: int) -> None:
        self.rng, self.d = rng, d
        self.cdf = np.cumsum(_size_distribution(d))
        self.cdf[-1] = 1.0
        self.buffer = np.zeros((0, d), dtype=bool)

    def _chunk(self) -> np.ndarray:
        sizes = 1 + np.searchsorted(self.cdf, self.rng.random(_DRAW_CHUNK), side="right")
        sizes = np.minimum(sizes, self.d - 1)
        # a uniform subset of each size: rank random keys and keep the smallest `size`
        keys = self.rng.random((_DRAW_CHUNK, self.d))
        ranks = np.argsort(np.argsort(keys, axis=1), axis=1)
        return ranks < sizes[:, None]

    def take(self, m: int) -> np.ndarray:
        while self.buffer.shape[0] < m:
            self.buffer = np.concatenate([self.buffer, self._chunk()])
        out, self.buffer = self.buffer[:m], self.buffer[m:]
        return out


class _Accumulator:
    """Per-group sums of z z^T + z' z'^T and z y + z' y' over pairs (z, z' = 1 - z)."""

    def __init__(self, d: int, T: int) -> None:
        self.SA = np.zeros((_N_GROUPS, d, d))
        self.Sb = np.zeros((_N_GROUPS, d, T))
        self.counts = np.zeros(_N_GROUPS, dtype=np.int64)
        self.n_pairs = 0

    def add(self, Z: np.ndarray, ya: np.ndarray, yb: np.ndarray) -> None:
        groups = (self.n_pairs + np.arange(Z.shape[0])) % _N_GROUPS
        Zf, Zc = Z.astype(np.float64), (~Z).astype(np.float64)
        for g in np.unique(groups):
            sel = groups == g
            za, zb = Zf[sel], Zc[sel]
            self.SA[g] += za.T @ za + zb.T @ zb
            self.Sb[g] += za.T @ ya[sel] + zb.T @ yb[sel]
            self.counts[g] += int(sel.sum())
        self.n_pairs += Z.shape[0]


def _constrained_solve(SA: np.ndarray, Sb: np.ndarray, M: int, delta: np.ndarray) -> np.ndarray:
    """argmin phi^T A phi - 2 b^T phi subject to 1^T phi = delta, A = SA / 2M and b = Sb / 2M:
    (d, T).  By a Cholesky factor of A when it is well conditioned, else by a pseudo-inverse of
    the KKT system (too few pairs to identify every player)."""
    from scipy.linalg import cho_factor, cho_solve  # here: at the top, a third of ``import kexplain``

    d = SA.shape[0]
    A, b = SA / (2 * M), Sb / (2 * M)
    try:
        cho = cho_factor(A, lower=True, check_finite=False)
        diag = np.abs(np.diag(cho[0]))
        if diag.min() < _CHOLESKY_RTOL * diag.max():
            raise np.linalg.LinAlgError
    except np.linalg.LinAlgError:
        kkt = np.zeros((d + 1, d + 1))
        kkt[:d, :d] = A
        kkt[:d, d] = kkt[d, :d] = 1.0
        return (np.linalg.pinv(kkt) @ np.concatenate([b, delta[None, :]]))[:d]
    sol = cho_solve(cho, np.column_stack([b, np.ones(d)]), check_finite=False)
    Ab, A1 = sol[:, :-1], sol[:, -1]
    lam = (Ab.sum(axis=0) - delta) / A1.sum()  # the multiplier that restores efficiency
    return Ab - np.outer(A1, lam)


def _estimate(acc: _Accumulator, delta: np.ndarray, with_se: bool) -> tuple[np.ndarray, np.ndarray]:
    """The estimate (d, T) and its delete-a-group jackknife standard errors (d, T)."""
    M = acc.n_pairs
    SA, Sb = acc.SA.sum(axis=0), acc.Sb.sum(axis=0)
    phi = _constrained_solve(SA, Sb, M, delta)
    if not with_se:
        return phi, np.full_like(phi, np.inf)
    used = np.flatnonzero(acc.counts)
    G = used.size
    loo = np.stack([_constrained_solve(SA - acc.SA[g], Sb - acc.Sb[g], M - int(acc.counts[g]), delta) for g in used])
    var = (G - 1) / G * np.sum((loo - loo.mean(axis=0)) ** 2, axis=0)
    return phi, np.sqrt(var)


def _check_budget(budget: object, d: int) -> int:
    if isinstance(budget, (bool, np.bool_)) or not isinstance(budget, Integral):
        raise TypeError(f"budget must be an integer number of coalition evaluations, got {budget!r}.")
    if budget < d + 1:
        raise ValueError(
            f"budget must be at least d + 1 = {d + 1} coalition evaluations (the empty and full "
            f"coalitions plus enough pairs to identify {d} values), got {budget}."
        )
    return int(budget)


def _checkpoints(first: int, last: int) -> list[int]:
    """Pair counts at which ``tol`` is checked: ``first``, then growing by ``_CHECK_GROWTH``."""
    out = []
    m = first
    while m < last:
        out.append(m)
        m = max(m + 1, int(np.ceil(m * _CHECK_GROWTH)))
    return out


def sampled_shapley(
    value_function: Callable[[np.ndarray], np.ndarray],
    d: int,
    budget: int,
    random_state: int | np.random.Generator | np.random.RandomState | np.random.SeedSequence | None = None,
    *,
    tol: float | None = None,
    batch_size: int = 256,
) -> ShapleyValues:
    """Shapley values of the game ``value_function`` estimated from sampled coalitions.

    KernelSHAP's paired, constrained least squares (Lundberg & Lee, 2017; Covert & Lee, 2021),
    with jackknife standard errors (module docstring).

    Parameters
    ----------
    value_function : callable
        Same convention as :func:`kx.exact_shapley`: takes a boolean array of coalitions, shape
        (n_coalitions, d), and returns values of shape (n_coalitions,), (n_coalitions, N) or
        (n_coalitions, N, n_outputs).
    d : int
        Number of players (with one player the value is v(1) - v(0) exactly).
    budget : int
        Largest number of coalition evaluations, the empty and full coalitions included; at least
        d + 1.  Coalitions are drawn in complementary pairs.  Standard errors need at least
        ``2 + 2 * min_pairs_for_standard_errors(d)`` (``max(66, 4 d + 2)``).
    random_state : None, int, SeedSequence, numpy Generator or RandomState
        Makes the draws reproducible.
    tol : float, optional
        Stop early once the largest standard error (over features, points and outputs) falls
        below ``tol``.  Checked once ``min_pairs_for_standard_errors(d)`` pairs are drawn, then
        each time the number of pairs has grown by 25%.
    batch_size : int
        Pairs evaluated per call of ``value_function`` (memory only: it changes no result).

    Returns
    -------
    ShapleyValues
        ``values`` (feature axis after the points axis, as for exact_shapley),
        ``standard_errors`` of the same shape, ``v_empty``, ``v_full`` and ``n_evaluations``.
        The values satisfy efficiency exactly: they sum to v_full - v_empty.  With fewer pairs
        than ``min_pairs_for_standard_errors(d)`` the standard errors are infinite and a
        ``UserWarning`` says so.

    Notes
    -----
    An additive game v(S) = v(0) + sum_{j in S} beta_j comes out exact, with zero standard errors,
    once the sampled coalitions identify every player (the sampled moment matrix is non-singular
    on the efficiency constraint); with fewer pairs than players they cannot, and the values are
    not exact.

    Examples
    --------
    An additive game comes out exact, with zero standard errors.

    >>> import numpy as np
    >>> from kexplain.shapley import sampled_shapley
    >>> res = sampled_shapley(lambda S: S @ np.array([1.0, -2.0, 0.5]), 3, budget=100, random_state=0)
    >>> np.round(res.values, 6), float(res.standard_errors.max()) < 1e-9, res.n_evaluations
    (array([ 1. , -2. ,  0.5]), True, 100)
    """
    check_param(d, "d", Integer(1), note="the number of players")
    d = int(d)
    if not callable(value_function):
        raise TypeError(f"value_function must be callable, got {type(value_function).__name__}.")
    budget = _check_budget(budget, d)
    check_param(tol, "tol", Real(0, closed="neither", finite=False), None)
    check_param(batch_size, "batch_size", Integer(1))
    rng = check_random_state(random_state)

    ends = np.zeros((2, d), dtype=bool)
    ends[1] = True
    v_ends = _evaluate(value_function, ends, d)
    v_empty, v_full = v_ends[0], v_ends[1]
    trailing = v_empty.shape
    T = int(np.prod(trailing, dtype=np.int64))
    delta = (v_full - v_empty).reshape(T)
    v0 = v_empty.reshape(T)

    if d == 1:
        values = _to_points_first(delta.reshape((1,) + trailing))
        return _result(values, np.zeros_like(values), v_empty, v_full, 2)

    max_pairs = (budget - 2) // 2
    min_pairs = min_pairs_for_standard_errors(d)
    stops = _checkpoints(min_pairs, max_pairs) if tol is not None else []
    stream = _CoalitionStream(rng, d)
    acc = _Accumulator(d, T)
    phi = se = None
    while acc.n_pairs < max_pairs:
        target = next((s for s in stops if s > acc.n_pairs), max_pairs)
        while acc.n_pairs < target:
            m = min(batch_size, target - acc.n_pairs)
            z = stream.take(m)
            vals = _evaluate(value_function, np.concatenate([z, ~z]), d).reshape(2 * m, T)
            acc.add(z, vals[:m] - v0, vals[m:] - v0)
        if tol is not None and acc.n_pairs in stops:
            phi, se = _estimate(acc, delta, with_se=True)
            if np.max(se) < tol:
                break
            phi = None
    if acc.n_pairs == 0:
        # budget d + 1 with d = 2 leaves no room for a pair: efficiency alone splits v(1) - v(0)
        phi = np.outer(np.full(d, 1.0 / d), delta)
        se = np.full_like(phi, np.inf)
    elif phi is None:
        phi, se = _estimate(acc, delta, with_se=acc.n_pairs >= min_pairs)
    assert phi is not None and se is not None
    if acc.n_pairs < min_pairs:
        warnings.warn(
            f"sampled_shapley drew {acc.n_pairs} pairs of coalitions for d={d} players; standard errors "
            f"need at least {min_pairs} pairs (a budget of {2 + 2 * min_pairs} evaluations), so they are "
            "reported as infinite and the values may be far from the Shapley values.",
            UserWarning,
            stacklevel=2,
        )
    values = _to_points_first(phi.reshape((d,) + trailing))
    ses = _to_points_first(se.reshape((d,) + trailing))
    return _result(values, ses, v_empty, v_full, 2 + 2 * acc.n_pairs)


def _result(values: np.ndarray, ses: np.ndarray, v_empty: np.ndarray, v_full: np.ndarray, n_eval: int) -> ShapleyValues:
    return ShapleyValues(
        values=values,
        v_full=np.asarray(v_full),
        v_empty=np.asarray(v_empty),
        standard_errors=ses,
        n_evaluations=int(n_eval),
    )

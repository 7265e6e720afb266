"""How many Gauss-Legendre nodes a product game's integrals take: the exact count for a degree
(:func:`nodes_for_degree`) and the fewer nodes a bound certifies for a pair's factors
(:func:`certified_nodes` and the engine's table of it, :func:`node_limits`), on a ladder of counts
above ``LADDER_FROM``.  The rules themselves are ``quadrature``'s, which re-exports every name here
(moved out of it: the rules and their counts are separate ideas).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from .._params import Integer, Real, check_param


def nodes_for_degree(degree: int) -> int:
    """Smallest number of Gauss-Legendre nodes that integrates a polynomial of ``degree`` exactly.

    Parameters
    ----------
    degree : int
        Degree of the polynomial (negative degrees are treated as 0).

    Returns
    -------
    int
        ``max(1, ceil((degree + 1) / 2))``.

    Examples
    --------
    >>> from kexplain.shapley.quadrature import nodes_for_degree
    >>> nodes_for_degree(9)                             # d = 10 players: degree d - 1
    5
    """
    return max(1, (int(degree) + 2) // 2)


#: Bernstein-ellipse parameters rho tried by :func:`certified_nodes` (a geometric grid: the best
#: rho is near 1 for large spreads S and large for small ones; 400 points cost microseconds)
_RHO = np.geomspace(1.01, 1e4, 400)
#: c_rho = (rho + 1/rho) / 4: the bound on |t - 1/2| over the image of the ellipse on [0, 1]
_RHO_C = (_RHO + 1.0 / _RHO) / 4.0
#: kappa_rho = max(c_rho, 1 + log(c_rho + 1/2)): log(M / I) <= kappa_rho S per pair
#: (:func:`certified_nodes`), with a relative margin far above the rounding of the logarithm
_RHO_SPREAD = np.maximum(_RHO_C, 1.0 + np.log(_RHO_C + 0.5)) * (1.0 + 1e-12)
#: log(32/15) - log(1 - rho^-2): the theorem's constant on [0, 1]
_RHO_CONST = np.log(32.0 / 15.0) - np.log1p(-(_RHO**-2.0))
_TWO_LOG_RHO = 2.0 * np.log(_RHO)

#: the default relative truncation error of :func:`certified_nodes`: the unit roundoff of float64,
#: below the rounding of the exact rule itself
CERTIFIED_TOL = 2.0**-53

#: counts up to this many nodes are certified one by one; above it :func:`certified_nodes` rounds up
#: to the next rung of a geometric ladder (ratio 9/8: at most 12.5% more nodes than the bound asks),
#: so that one d needs O(log d) distinct rules, each O(m^2) to compute (the compiled functional
#: kernel holds them all in one table: every count from 1 to ceil(d/2) took 7.6 s to build at
#: d = 1,000 and would have taken hours and 1.6 GB at d = 20,000)
LADDER_FROM = 64


def _ladder_sizes(n: int) -> np.ndarray:
    """The node counts :func:`certified_nodes` can return when the exact rule has n nodes:
    1 .. min(n, ``LADDER_FROM``), then ceil(9/8 of the previous) up to n, always the last."""
    sizes = list(range(1, min(n, LADDER_FROM) + 1))
    while sizes[-1] < n:
        sizes.append(min(n, -(-sizes[-1] * 9 // 8)))
    return np.array(sizes, dtype=np.int64)


def certified_nodes(s_max: float, d: int, tol: float = CERTIFIED_TOL) -> int:
    """Gauss-Legendre nodes that integrate every leave-one-out product of a pair to ``tol``.

    For positive factors a_k, b_k (k = 1..d) the engine integrates
    f_j(t) = prod_{k != j} g_k(t), g_k(t) = (1 - t) b_k + t a_k, over [0, 1].  The rule of
    ``nodes_for_degree(d - 1)`` nodes is exact; when the factors are close to each other f_j is
    smooth and far fewer nodes give the same value to rounding.  This returns the fewest nodes
    for which a rigorous bound certifies that, capped at the exact rule.

    The bound.  Gauss-Legendre with m nodes on [-1, 1] for f analytic in the Bernstein ellipse
    E_rho, |f| <= M there, errs by at most (64/15) M rho^(2 - 2m) / (rho^2 - 1) (Trefethen,
    *Approximation Theory and Approximation Practice*, Thm 19.3, whose I_n has n + 1 nodes);
    on [0, 1] the constant halves, so the error is at most (32/15) M rho^(-2m) / (1 - rho^-2).
    Polynomials are entire, so any rho > 1 may be used.  On the image of E_rho,
    |t - 1/2| <= c_rho = (rho + 1/rho) / 4, so |g_k| <= M_k = (a_k + b_k) / 2 + c_rho |a_k - b_k|.
    The integral is bounded below by Jensen's inequality (exp is convex):
    int f_j >= exp(sum_{k != j} int_0^1 log g_k) = prod_{k != j} L_k, with
    log L_k = (a_k log a_k - b_k log b_k) / (a_k - b_k) - 1 (log a_k when a_k = b_k).  Both M_k and
    L_k are homogeneous of degree 1 in (a_k, b_k), and M_k >= max g_k >= L_k, so with
    u_k = |a_k - b_k| / max(a_k, b_k) in [0, 1),

        log(M / I) <= sum_k h_rho(u_k),  h_rho(u) = log(1 + (c_rho - 1/2) u) + B(u),
        B(u) = 1 + (1 - u) log(1 - u) / u = sum_{n >= 2} u^(n-1) / (n (n-1)).

    h_rho(u) / u is convex on (0, 1]: log(1 + x u) / u = x int_0^1 ds / (1 + s x u) is, and so is
    B(u) / u, a power series with positive coefficients; its supremum is therefore the larger of
    its limits at the ends, kappa_rho = max(c_rho, 1 + log(c_rho + 1/2)) (c_rho - 1/2 + 1/2 as
    u -> 0, log(c_rho + 1/2) + B(1) at u = 1).  With the spread S = sum_k u_k, every f_j's
    truncation error relative to its own integral is at most

        (32/15) exp(kappa_rho S) rho^(-2m) / (1 - rho^-2).

    The node count is the smallest m for which that is <= ``tol`` at some rho of a geometric
    grid from 1.01 to 1e4; above 64 nodes (``LADDER_FROM``), the smallest rung of a ladder
    growing by 9/8 (at most 12.5% more nodes, still certified: the bound falls with m), so
    that the counts of one d take O(log d) distinct rules.  The count grows with S, so any
    larger S (several pairs' largest, or the earlier spread sum_k |a_k - b_k| / min(a_k, b_k),
    which is never smaller) also certifies.
    Compared with the bound by prod_k min(a_k, b_k) below and (1/2 + c_rho) |a_k - b_k| / min
    above, a factor far from its partner adds at most kappa_rho instead of growing without bound.

    Parameters
    ----------
    s_max : float
        The spread S (for several pairs the largest).  NaN, infinity or a negative number (what
        the engine passes when a factor is zero or negative: no certificate) give the exact rule.
    d : int
        Number of players (features), at least 1.
    tol : float
        Relative error allowed for each integral, in (0, 1); default 2^-53.

    Returns
    -------
    int
        Between 1 and ``nodes_for_degree(d - 1)``; the latter (the exact rule, bit for bit) when
        no smaller count is certified.

    Examples
    --------
    >>> from kexplain.shapley.quadrature import certified_nodes, nodes_for_degree
    >>> certified_nodes(2.0, 1000), nodes_for_degree(999)   # factors within a few % of each other
    (8, 500)
    >>> certified_nodes(float("inf"), 1000)                 # a zero or negative factor: exact rule
    500
    """
    d = check_param(d, "d", Integer(1))
    tol = check_param(tol, "tol", Real(0, 1, closed="neither"))
    return block_node_count(s_max, d, tol)


def block_node_count(s_max: float, d: int, tol: float = CERTIFIED_TOL) -> int:
    """:func:`certified_nodes` without the checks of its arguments (the engine's call per block).

    Parameters
    ----------
    s_max : float
    d : int
    tol : float
        As in :func:`certified_nodes`, already valid.

    Returns
    -------
    int

    Examples
    --------
    >>> from kexplain.shapley.quadrature import block_node_count
    >>> block_node_count(2.0, 1000)
    8
    """
    s = float(s_max)
    exact = nodes_for_degree(d - 1)
    if not s >= 0.0:  # NaN or negative: no certificate
        return exact
    limits = node_limits(d, tol)
    # the smallest m whose limit is >= s (limits[m - 1] for m nodes); past the last, the exact rule
    return int(np.searchsorted(limits, s, side="left")) + 1


@lru_cache(maxsize=256)
def node_limits(d: int, tol: float = CERTIFIED_TOL) -> np.ndarray:
    """The largest spread S that :func:`certified_nodes` certifies with m nodes, m = 1 .. ceil(d/2) - 1.

    ``limits[m - 1] = max_rho (2 m log rho - log(32/15) + log(1 - rho^-2) + log(tol)) / kappa_rho``,
    lowered by a relative 1e-9 and 1e-12 so rounding never certifies one node too few; negative
    where m nodes are not certified even for S = 0.  Above 64 nodes an m between two rungs of
    :func:`certified_nodes`'s ladder holds the limit of the rung below it, so that every search
    lands on a rung.  The engine's pass compares each pair's S with this table (one search, no
    logarithms): the pair's count is the smallest m with S <= limits[m - 1], the exact rule past
    the last.

    Parameters
    ----------
    d : int
        Number of players, at least 1.
    tol : float
        As in :func:`certified_nodes`.

    Returns
    -------
    ndarray of shape (nodes_for_degree(d - 1) - 1,)
        Non-decreasing (increasing up to 64 nodes), read-only.

    Examples
    --------
    >>> from kexplain.shapley.quadrature import node_limits
    >>> [round(float(s), 2) for s in node_limits(20)[-3:]]   # the largest S that 7, 8, 9 of 10 nodes certify
    [1.41, 2.26, 3.29]
    """
    d = check_param(d, "d", Integer(1))
    tol = check_param(tol, "tol", Real(0, 1, closed="neither"))
    exact = nodes_for_degree(d - 1)
    m = np.arange(1, exact, dtype=np.float64)[:, None]
    best = np.max((m * _TWO_LOG_RHO - _RHO_CONST + math.log(tol)) / _RHO_SPREAD, axis=1) if exact > 1 else m[:, 0]
    limits = best - 1e-9 * np.abs(best) - 1e-12
    if exact > LADDER_FROM + 1:  # each m takes the limit of the largest rung <= m
        sizes = _ladder_sizes(exact)
        limits = limits[sizes[np.searchsorted(sizes, m[:, 0], side="right") - 1] - 1]
    limits.setflags(write=False)
    return limits


def spread_limit(d: int, tol: float = CERTIFIED_TOL) -> float:
    """The spread S above which :func:`certified_nodes` gives the exact rule (for early exits).

    Any S above the returned value gives ``nodes_for_degree(d - 1)`` nodes, so a pass computing
    the largest S of a block may stop as soon as one pair exceeds it; 0 when no S certifies fewer.

    Parameters
    ----------
    d : int
        Number of players, at least 1.
    tol : float
        As in :func:`certified_nodes`.

    Returns
    -------
    float

    Examples
    --------
    >>> from kexplain.shapley.quadrature import certified_nodes, spread_limit
    >>> s = spread_limit(20)
    >>> certified_nodes(s * 1.001, 20), certified_nodes(s * 0.99, 20) < 10
    (10, True)
    """
    limits = node_limits(d, tol)
    return max(0.0, float(limits[-1])) if limits.size else 0.0

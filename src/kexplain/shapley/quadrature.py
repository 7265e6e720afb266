"""Gauss-Legendre rules on [0, 1], cached.

The Shapley weight s!(d-s-1)!/d! equals the Beta integral of t^s (1-t)^(d-1-s) over [0, 1], so
every product-game Shapley value is the integral of a polynomial in t; an m-node Gauss-Legendre
rule integrates polynomials of degree 2m - 1 exactly.

The rule is computed here rather than by ``numpy.polynomial.legendre.leggauss``, whose weights
lose accuracy as the number of nodes grows (relative errors of 3e-11 at 250 nodes and 1e-8 at
1,000 nodes for the outermost weights, which gave "exact" product-game values a relative error
of 8e-11 at d = 2,000).  The nodes are the roots of P_n(cos theta), found by Newton's method in
the angle theta from Tricomi's initial guess (as in Hale & Townsend, 2013, SIAM J. Sci. Comput.
35(2), section 2, with the three-term recurrence instead of asymptotic formulas), and the
weights are 2 / (d P_n / d theta)^2 at the roots.  Near the ends of the interval the recurrence
is written in y = 1 - cos(theta) = 2 sin^2(theta / 2) (Reinsch's modification), so the nodes
next to 0 and 1 keep full relative accuracy; both ends are filled from the same half of the
roots, so the rule is exactly symmetric.  Measured against the same computation in extended
precision, the nodes are correct to about one unit in the last place and the weights to a
relative 2e-14 at 2,500 nodes (d = 5,000); the cost is O(n^2) operations, once per node count.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .._optional import compiled_or_none
from .._params import Integer, check_param
from ._node_counts import (  # noqa: F401  (the node counts, re-exported: quadrature.certified_nodes ...)
    _RHO,
    _RHO_C,
    _RHO_CONST,
    _RHO_SPREAD,
    CERTIFIED_TOL,
    LADDER_FROM,
    _ladder_sizes,
    block_node_count,
    certified_nodes,
    node_limits,
    nodes_for_degree,
    spread_limit,
)

#: angles below this use the recurrence in y = 1 - cos(theta); the others the plain recurrence
_SPLIT_ANGLE = np.pi / 3

#: Newton stops once every relative step in theta is below this (quadratic convergence: one more
#: step would move the nodes by far less than a rounding error)
_NEWTON_RTOL = 1e-15

#: ... or once they stall below this: for n in the tens of thousands P_n's recurrence near x = 1
#: rounds to a few 1e-15 in theta, so Newton wanders at that level without reaching _NEWTON_RTOL
#: (n = 14,087, needed at d of about 28,000, stalled at 3.5e-15 and was refused)
_ROUNDING_PLATEAU = 1e-13

_MAX_NEWTON_STEPS = 20

#: rules of at least this many nodes run the recurrence compiled where numba loads
#: (``_legendre_numba``: the same numbers; the numpy loop costs n Python steps per Newton step,
#: 2.9 s for the rules of one d = 4,000 call).  Below it numpy is as fast, and a caller that builds
#: only small rules does not load numba for them.
COMPILED_FROM_NODES = 24


def _legendre_pair(n: int, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """P_n(cos theta) and P_{n-1}(cos theta) for angles theta in (0, pi/2], n >= 2.

    Angles below ``_SPLIT_ANGLE`` run the recurrence on y = 1 - x through the differences
    D_k = P_k - P_{k-1}, which keeps relative accuracy as x -> 1:
    D_k = ((k - 1) D_{k-1} - (2k - 1) y P_{k-1}) / k.  The others use
    P_k = ((2k - 1) x P_{k-1} - (k - 1) P_{k-2}) / k.
    """
    near = theta < _SPLIT_ANGLE
    y = 2.0 * np.sin(0.5 * theta[near]) ** 2
    x = np.cos(theta[~near])
    compiled = _compiled_recurrence() if n >= COMPILED_FROM_NODES else None
    if compiled is not None:  # the same operations in the same order, without n Python steps
        a, a_prev, b, b_prev = compiled(n, y, x)
        return _merge(near, theta, a, a_prev, b, b_prev)
    a_prev, a = np.ones_like(y), 1.0 - y  # P_0, P_1 near the end
    diff = -y
    b_prev, b = np.ones_like(x), x.copy()  # P_0, P_1 in the middle
    for k in range(2, n + 1):
        diff = ((k - 1) * diff - (2 * k - 1) * y * a) / k
        a_prev, a = a, a + diff
        b_prev, b = b, ((2 * k - 1) * x * b - (k - 1) * b_prev) / k
    return _merge(near, theta, a, a_prev, b, b_prev)


def _merge(near, theta, a, a_prev, b, b_prev):
    """(P_n, P_{n-1}) at every angle from the two halves of :func:`_legendre_pair`."""
    p = np.empty_like(theta)
    q = np.empty_like(theta)
    p[near], q[near] = a, a_prev
    p[~near], q[~near] = b, b_prev
    return p, q


@compiled_or_none
def _compiled_recurrence():
    """The recurrence of :func:`_legendre_pair`, compiled (``_legendre_numba``), or None."""
    from ._legendre_numba import legendre_pair_split

    return legendre_pair_split


def _positive_roots(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Angles theta_k in (0, pi/2) of the roots cos(theta_k) > 0 of P_n, and their weights on [0, 1]."""
    h = n // 2
    k = np.arange(1, h + 1)
    # Tricomi's approximation of the k-th root, accurate to O(n^-4): Newton then converges in ~3 steps
    guess = (4 * k - 1) * np.pi / (4 * n + 2)
    theta = np.arccos((1.0 - (n - 1) / (8.0 * n**3)) * np.cos(guess))
    previous = np.inf
    for _ in range(_MAX_NEWTON_STEPS):
        p, q = _legendre_pair(n, theta)
        x = np.cos(theta)
        # dP_n/dtheta = -n (P_{n-1} - x P_n) / sin(theta)
        dp = n * (q - x * p)
        step = p * np.sin(theta) / dp
        theta = theta + step
        rel = float(np.max(np.abs(step) / theta))
        # converged, or at the rounding plateau: a quadratic step no longer halves the change
        if rel < _NEWTON_RTOL or (rel < _ROUNDING_PLATEAU and rel > previous / 2):
            break
        previous = rel
    else:  # pragma: no cover - Newton from Tricomi's guess converges in a handful of steps
        raise FloatingPointError(f"Gauss-Legendre nodes did not converge for n_nodes={n}.")
    # the weight 2 / (dP_n/dtheta)^2, halved for [0, 1], from the values at the last iterate (the
    # last step changed theta by less than _NEWTON_RTOL relative, or by rounding only at the
    # plateau, so the weight by less than that)
    weights = (np.sin(theta) / dp) ** 2
    return theta, weights


def _middle_weight(n: int) -> float:
    """Weight on [0, 1] of the node t = 1/2 for odd n: 1 / (n P_{n-1}(0))^2."""
    m = (n - 1) // 2
    c = 1.0  # |P_{2m}(0)| = prod_{j<=m} (2j - 1) / (2j)
    for j in range(1, m + 1):
        c *= (2 * j - 1) / (2 * j)
    return float(1.0 / (n * c) ** 2)


@lru_cache(maxsize=256)
def gauss_legendre_01(n_nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of the ``n_nodes``-point Gauss-Legendre rule on [0, 1] (read-only arrays).

    Accurate to rounding at any node count (module docstring): the nodes to about one unit in
    the last place, relative to their distance from the nearer end, and the weights to a relative
    2e-14 at 2,500 nodes.  Rules are cached per node count.

    Parameters
    ----------
    n_nodes : int
        Number of nodes, at least 1.

    Returns
    -------
    t : ndarray of shape (n_nodes,)
        Nodes in (0, 1), increasing, symmetric about 1/2.
    w : ndarray of shape (n_nodes,)
        Positive weights summing to 1.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley.quadrature import gauss_legendre_01
    >>> t, w = gauss_legendre_01(2)
    >>> print(f"{np.sum(w * t**3):.6f}")                 # integral of t^3 over [0, 1], exact
    0.250000
    >>> t, w = gauss_legendre_01(1000)                  # exact for degree 1999: int t^1999 = 1/2000
    >>> bool(abs(np.sum(w * t**1999) * 2000 - 1) < 1e-13)   # numpy's leggauss: 9e-11
    True
    """
    check_param(n_nodes, "n_nodes", Integer(1))
    n = int(n_nodes)
    if n == 1:
        t, w = np.array([0.5]), np.array([1.0])
    else:
        theta, wk = _positive_roots(n)
        low = np.sin(0.5 * theta) ** 2  # (1 - cos(theta)) / 2: the mirrored root -cos(theta) on [0, 1]
        high = np.cos(0.5 * theta) ** 2  # (1 + cos(theta)) / 2
        mid_t = [0.5] if n % 2 else []
        mid_w = [_middle_weight(n)] if n % 2 else []
        t = np.concatenate([low, mid_t, high[::-1]])
        w = np.concatenate([wk, mid_w, wk[::-1]])
    t.setflags(write=False)
    w.setflags(write=False)
    return t, w

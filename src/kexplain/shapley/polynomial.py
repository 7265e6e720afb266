"""Exact Shapley values and pairwise interaction indices of polynomial-of-sum games.

A polynomial-of-sum game over d players, for one explained point, is

    v(S) = sum_r c_r * P(sum_{j in S} a_rj + sum_{j not in S} b_rj)

with P a polynomial of degree p.  It is the game of every kernel k(x, y) = P(sum_j h_j(x_j, y_j))
(the linear and polynomial kernels, (gamma <x, y> + coef0)^p, scikit-learn's ``DotProduct`` and
its powers, the additive chi-squared kernel) in the functional game (a_rj = h_j(x_j, X_rj),
b_rj = 0: the kernel restricted to the present features), the interventional game (rows (i, z),
b_rj = h_j(z_j, X_ij)) and the baseline game.

Derivation.  Write the Shapley weight s!(d-s-1)!/d! as the Beta integral of t^s (1-t)^(d-1-s):
phi_j is the integral over t in [0, 1] of E[v(S + j) - v(S)] where every other player joins S
independently with probability t.  With B_r = sum_k b_rk and delta_rk = a_rk - b_rk, the
coalition value of row r is P(B_r + V) with V = sum_{k in S} delta_rk, a sum of independent
two-point variables, so

    phi_j = sum_r c_r int_0^1 E[P(B_r + delta_rj + V_-j) - P(B_r + V_-j)] dt.

Taylor-expanding P at B_r, P(B_r + y) = sum_n T_n y^n, and expanding (delta + V)^n binomially,

    E[P(B + delta + V) - P(B + V)] = sum_n T_n sum_{m < n} C(n, m) E[V^m] delta^(n - m),

which needs only the moments E[V_-j^m], m < p, and no difference of two large numbers.  The
moments come from the exponential generating function E[e^(sV)] = prod_k (1 + t (e^(s delta_k) - 1)),
a product of d truncated power series in s (order p - 1), whose leave-one-out products are
prefix times suffix products: O(d p^2) per row and node.  The coefficient of s^m has degree
at most min(m, d - 1) in t (each factor contributes t only through its s-terms), so the
integrand has degree at most min(p - 1, d - 1) in t and ceil(p / 2) Gauss-Legendre nodes
integrate it exactly: the cost does not grow with d beyond the factor d of the prefix products.

The pairwise indices follow with two players removed: the Shapley interaction index (SII,
weight s!(d-s-2)!/(d-1)! = int t^s (1-t)^(d-2-s) dt) and the Shapley-Taylor index of order 2
(STII, the extra weight 2 (1 - t)) integrate

    E[Delta_jk P] = sum_n T_n sum_{m <= n - 2} C(n, m) E[V_-jk^m] sum_{a, b >= 1, a + b = n - m}
                    C(n - m, a) delta_j^a delta_k^b,

again without cancellation; leave-two-out products cost O(d^2 p^2) per row and node (the
output itself has d^2 entries).  Values are reported in shap's layout
(:func:`kexplain.shapley.interactions.interaction_layout`).

The polynomial P is given as a sum of products of linear factors,
P(u) = sum_q A_q prod_f (u + e_qf) (``terms = [(A_q, [e_q1, ...]), ...]``), the form in which
kernels hold it: (gamma <x, y> + coef0)^p is one term with p equal offsets; its Taylor
coefficients at any point are then exact products, with no expansion of (u + coef0)^p into
powers of u.

Every name is imported from here; the code lives by idea in four modules:

- ``polynomial_terms``: the polynomial itself (:data:`PolynomialTerms`,
  :func:`check_polynomial`, :func:`polynomial_degree`, :func:`taylor_coefficients`);
- ``_polynomial_series``: the truncated power series of the generating functions and their
  prefix and suffix products;
- ``_polynomial_pairs``: the pairwise indices of one block;
- this module: the game protocol :class:`PolynomialGame`, the values of one block
  (:func:`polynomial_game_block`, with its backend choice) and the memory-bounded blocked solver
  :func:`solve_polynomial_game`.
"""

from __future__ import annotations

from math import comb, factorial
from typing import Any, Protocol

import numpy as np

from .._validation import check_interactions
from ._polynomial_pairs import _pair_indices
from ._polynomial_series import _prefix_suffix, _times_factor, _times_series  # noqa: F401  (names before the split)
from .interactions import interaction_layout
from .polynomial_terms import PolynomialTerms, check_polynomial, polynomial_degree, taylor_coefficients
from .product import DEFAULT_BLOCK_BYTES
from .quadrature import gauss_legendre_01, nodes_for_degree
from .result import ShapleyValues


class PolynomialGame(Protocol):
    """What :func:`solve_polynomial_game` needs from a game.

    ``n_points`` explained points, ``n_rows`` rows, ``n_features`` players, ``n_outputs``
    outputs, the polynomial ``terms`` (see :func:`check_polynomial`) and blocks on demand.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley.polynomial import solve_polynomial_game
    >>> class Square:                        # v(S) = (sum_{j in S} 1)^2, three players
    ...     n_points, n_rows, n_features, n_outputs = 1, 1, 3, 1
    ...     terms = [(1.0, [0.0, 0.0])]
    ...     def block(self, points, rows):
    ...         return np.ones((1, 1, 3)), 0.0, np.ones((1, 1))
    >>> solve_polynomial_game(Square()).values[0, :, 0].round(3)
    array([3., 3., 3.])
    """

    n_points: int
    n_rows: int
    n_features: int
    n_outputs: int
    terms: PolynomialTerms

    def block(self, points: slice, rows: slice) -> tuple[np.ndarray, np.ndarray | float, np.ndarray]:
        """(a, b, c) for these points and rows: a (p, r, d), b broadcastable to it, c (r, o)."""
        ...


def polynomial_game_block(
    a: Any,
    b: Any,
    c: Any,
    terms: PolynomialTerms,
    *,
    interactions: bool | str | None = False,
    backend: str = "auto",
) -> tuple[Any, ...]:
    """Exact values of one block of a polynomial-of-sum game (module docstring).

    Parameters
    ----------
    a : array of shape (n_points, n_rows, d)
        Per-feature terms when the feature is present.
    b : array broadcastable to a's shape
        Per-feature terms when it is absent (0 for the functional game).
    c : array of shape (n_rows, n_outputs)
        Row weights.
    terms : sequence of (float, sequence of float)
        The polynomial P (see :func:`check_polynomial`).
    interactions : bool or {"sii", "stii"}
        Also return the raw pairwise index I_jk (not yet in shap's layout).
    backend : {"auto", "numba", "numpy"}
        The values' loop compiled (numba, when installed: extra ``fast``) or in numpy; the same
        numbers up to rounding.  The pairwise indices always run in numpy.

    Returns
    -------
    phi : ndarray (n_points, d, n_outputs)
    v_full, v_empty : ndarray (n_points, n_outputs)
    inter : ndarray (n_points, d, d, n_outputs), only with ``interactions``

    Examples
    --------
    v(S) = (1 + |S|)^2 for two players: phi = (v({0, 1}) - v({})) / 2 = 4 each.

    >>> import numpy as np
    >>> from kexplain.shapley.polynomial import polynomial_game_block
    >>> phi, v_full, v_empty = polynomial_game_block(np.ones((1, 1, 2)), 0.0, np.ones((1, 1)),
    ...                                              [(1.0, [1.0, 1.0])])
    >>> phi[0, :, 0], v_full[0, 0], v_empty[0, 0]
    (array([4., 4.]), np.float64(9.0), np.float64(1.0))
    """
    index = check_interactions(interactions)
    kernel = _resolve_backend(backend)
    a = np.asarray(a, dtype=np.float64)
    b = np.broadcast_to(np.asarray(b, dtype=np.float64), a.shape)
    c = np.asarray(c, dtype=np.float64)
    n, r, d = a.shape
    o = c.shape[1]
    p = polynomial_degree(terms)
    B = b.sum(axis=-1)  # (n, r): every feature absent
    T = np.moveaxis(taylor_coefficients(terms, B, p), -1, 0)  # (p + 1, n, r)
    v_empty = T[0] @ c
    v_full = taylor_coefficients(terms, a.sum(axis=-1), p)[..., 0] @ c
    phi = np.zeros((n, d, o))
    inter = np.zeros((n, d, d, o)) if index else None
    if p == 0 or d == 0:
        return (phi, v_full, v_empty, inter) if index else (phi, v_full, v_empty)
    if kernel is not None:
        t_nodes, t_weights = gauss_legendre_01(nodes_for_degree(min(p - 1, d - 1)))
        fact = np.array([float(factorial(m)) for m in range(p + 1)])
        binom = np.array([[float(comb(i, j)) for j in range(p + 1)] for i in range(p + 1)])
        kernel(
            np.ascontiguousarray(a - b),
            np.ascontiguousarray(np.moveaxis(T, 0, -1)),
            np.ascontiguousarray(c),
            t_nodes,
            t_weights,
            fact,
            binom,
            phi,
        )
        if not (index and p >= 2 and d >= 2):
            return (phi, v_full, v_empty, inter) if index else (phi, v_full, v_empty)
    delta = np.ascontiguousarray(np.moveaxis(a - b, -1, 0))  # (d, n, r)
    # powers delta^q, q = 0..p, and the generating function's coefficients delta^m / m!
    powers = np.empty((p + 1,) + delta.shape)
    powers[0] = 1.0
    for q in range(1, p + 1):
        powers[q] = powers[q - 1] * delta
    egf = powers / np.array([factorial(m) for m in range(p + 1)])[:, None, None, None]
    # values: order p - 1, degree <= min(p - 1, d - 1) in t
    K = p - 1
    t_nodes, t_weights = gauss_legendre_01(nodes_for_degree(min(K, d - 1)))
    for t, w in zip(t_nodes, t_weights) if kernel is None else ():
        pre, suf = _prefix_suffix(egf, float(t), K)
        moments = _times_series(pre[:, :d], suf[:, 1:])  # (K + 1, d, n, r): E[V_-j^m] / m!
        for m in range(K + 1):
            moments[m] *= factorial(m)
        integrand = np.zeros((d, n, r))
        for nn in range(1, p + 1):
            acc = np.zeros((d, n, r))
            for m in range(nn):
                acc += comb(nn, m) * moments[m] * powers[nn - m]
            integrand += T[nn] * acc
        phi += w * np.einsum("dnr,ro->ndo", integrand, c)
    if index and p >= 2 and d >= 2:
        inter = _pair_indices(T, powers, egf, c, p, d, index)
    if index:
        assert inter is not None
        return phi, v_full, v_empty, inter
    return phi, v_full, v_empty


def _resolve_backend(backend: str) -> Any:
    """The compiled values kernel, or None for numpy."""
    if backend not in ("auto", "numba", "numpy"):
        raise ValueError(f"backend must be 'auto', 'numba' or 'numpy', got {backend!r}.")
    if backend == "numpy":
        return None
    try:
        from ._polynomial_numba import polynomial_values
    except Exception:  # numba missing or unusable here: numpy gives the same numbers
        if backend == "numba":
            from .._optional import require

            require("numba", "backend='numba' of the polynomial-game solver")
            raise ImportError(
                "numba is installed but kexplain's compiled polynomial kernel failed to import."
            ) from None
        return None
    return polynomial_values


def solve_polynomial_game(
    game: PolynomialGame,
    *,
    interactions: bool | str | None = False,
    max_block_bytes: int = DEFAULT_BLOCK_BYTES,
    progress: bool = False,
    backend: str = "auto",
) -> ShapleyValues:
    """Exact Shapley values of a polynomial-of-sum game, in memory-bounded blocks.

    Parameters
    ----------
    game : PolynomialGame
    interactions : bool or {"sii", "stii"}
        Also the pairwise interaction values, in shap's layout.
    max_block_bytes : int
        Bound on the bytes of the largest temporary arrays of one block (about (2 p + 6) arrays of
        shape (points, rows, d) for degree p).
    progress : bool
        Show a progress bar over blocks of points.
    backend : {"auto", "numba", "numpy"}
        As in :func:`polynomial_game_block`.

    Returns
    -------
    ShapleyValues
        values (n_points, d, n_outputs), v_full and v_empty (n_points, n_outputs).

    Examples
    --------
    A linear game has additive values: v(S) = sum_{j in S} a_j.

    >>> import numpy as np
    >>> from kexplain.shapley.polynomial import solve_polynomial_game
    >>> class Linear:
    ...     n_points, n_rows, n_features, n_outputs = 1, 1, 3, 1
    ...     terms = [(1.0, [0.0])]
    ...     def block(self, points, rows):
    ...         return np.array([[[1.0, 2.0, 3.0]]]), 0.0, np.ones((1, 1))
    >>> solve_polynomial_game(Linear()).values[0, :, 0]
    array([1., 2., 3.])
    """
    index = check_interactions(interactions)
    _resolve_backend(backend)
    terms = check_polynomial(game.terms)
    p = polynomial_degree(terms)
    n, R, d, o = int(game.n_points), int(game.n_rows), int(game.n_features), int(game.n_outputs)
    # arrays of shape (points, rows, d) alive at once: a, b, delta, powers, egf (p + 1 each), prefix,
    # suffix and moments (p each, d + 1 wide)
    per_pair = 8 * max(1, d + 1) * (6 + 6 * (p + 1))
    pairs = max(1, int(max_block_bytes) // per_pair)
    rows = int(min(max(R, 1), pairs))
    pts = int(min(max(n, 1), max(1, pairs // rows)))
    values = np.zeros((n, d, o))
    v_full = np.zeros((n, o))
    v_empty = np.zeros((n, o))
    inter = np.zeros((n, d, d, o)) if index else None
    starts = range(0, n, pts)
    if progress:
        from tqdm.auto import tqdm

        starts = tqdm(starts, desc="points", unit="block")
    for p0 in starts:
        ps = slice(p0, min(n, p0 + pts))
        for r0 in range(0, R, rows):
            rs = slice(r0, min(R, r0 + rows))
            a, b, c = game.block(ps, rs)
            out = polynomial_game_block(a, b, c, terms, interactions=index, backend=backend)
            values[ps] += out[0]
            v_full[ps] += out[1]
            v_empty[ps] += out[2]
            if index:
                assert inter is not None
                inter[ps] += out[3]
    if index:
        assert inter is not None
        inter = interaction_layout(values, inter, index)
    return ShapleyValues(values=values, v_full=v_full, v_empty=v_empty, interactions=inter, interaction_index=index)

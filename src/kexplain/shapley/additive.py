"""Exact Shapley values of additive (elementary-symmetric-polynomial) games.

An additive game over d players, for one explained point, is

    v(S) = sum_r c_r * sum_{T subset of S} w_|T| * prod_{j in T} z_rj,

the game of a model built from an additive kernel sum_q w_q e_q(k_1, ..., k_d): the orthogonal
additive Gaussian processes of "Exact Shapley Value for Local and Global Explanation of Additive
Gaussian Processes" (section 3, Lemma 1, and section 4, Theorem 1).  Each term w_|T| prod_T z is a
pure interaction of the players in T, and the Shapley value splits it equally among them, so

    phi_j = sum_r c_r z_rj * sum_{q >= 0} (w_{q+1} / (q + 1)) * e_q(z_r without j),

with e_q the elementary symmetric polynomials.  Efficiency holds exactly:
sum_j phi_j = v(D) - v(empty), with v(empty) = w_0 sum_r c_r.

Leave-one-out polynomials e_q(z without j) come from a prefix table e_a(z_1..z_{j-1}) and a suffix
table e_b(z_{j+1}..z_d): e_q(z without j) = sum_{a+b=q} prefix_a * suffix_b.  Both tables are built by
the stable recursion e_q <- e_q + z_k e_{q-1} (additions and products only; no Newton identities,
no division by z_j).  Because only the weighted sum over q is needed, the suffix table is contracted
with the weights while it is built (U_k[a] = sum_b beta_{a+b} e_b(z_k..z_d) obeys
U_k[a] = U_{k+1}[a] + z_k U_{k+1}[a+1]); pairing it with the prefix table then costs O(Q) per player
instead of O(Q^2), so one row costs O(d Q) with Q the highest interaction order.

``index="total"`` gives sum over T containing j of w_|T| prod_T z (no 1/|T| split): the total
effect of j, e.g. the total Sobol index when the game is a variance decomposition.

**Absent values.**  The game above gives an absent player the factor 0.  More generally an absent
player j of row r contributes a factor b_rj of its own (``absent=``):

    v(S) = sum_r c_r * sum_q w_q e_q(y_r^S),   y_rj^S = z_rj if j in S else b_rj,

which is, for instance, the interventional game of an additive GP with background rows (each row r
then pairs a support point with a background row).  Its multilinear extension along the diagonal
gives

    phi_j = sum_r c_r (z_rj - b_rj) int_0^1 sum_{q >= 1} w_q e_{q-1}(y_r,-j(t)) dt,
    y_rk(t) = b_rk + t (z_rk - b_rk),

a polynomial of degree at most Q - 1 in t, so ceil(Q / 2) Gauss-Legendre nodes
(:mod:`kexplain.shapley.quadrature`) integrate it exactly; at each node the leave-one-out sums come
from the same prefix/suffix tables.  With b = 0 the integral is sum_q w_q / q e_{q-1}(z without j),
the formula above.

Every name is imported from here; the code lives by idea in three modules:

- ``additive_polynomials``: :func:`elementary_symmetric` and :func:`leave_one_out_esp`, the
  polynomials and their leave-one-out tables by the prefix/suffix recursion;
- ``additive_block``: the pass over one dense block (:func:`additive_block_values`,
  :func:`additive_game_block`): the contracted suffix tables, the quadrature of absent values, the
  checks of the weights and of the block's layout;
- this module: the game protocol :class:`AdditiveGame`, the memory-bounded blocked solver
  :func:`solve_additive_game`, :class:`DenseAdditiveGame` and :func:`additive_shapley`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import numpy as np

from .additive_block import (  # noqa: F401  (the names of the module before the split)
    _INDICES,
    _as_players_first,
    _block_core,
    _check_weights,
    _contract,
    _order_coefficients,
    _order_sums,
    additive_block_values,
    additive_game_block,
)
from .additive_polynomials import elementary_symmetric, leave_one_out_esp  # noqa: F401
from .result import ShapleyValues

#: default bound, in bytes, for the temporaries of one block
DEFAULT_BLOCK_BYTES = 64 * 2**20


class AdditiveGame(Protocol):
    """What :func:`solve_additive_game` needs: sizes, the order weights and dense blocks on demand.

    ``block(points, rows)`` returns ``(z, c)`` for these points and rows, z of shape (p, r, d) and
    c of shape (r, o), or ``(z, c, options)`` with ``options`` a dict of keyword arguments of
    :func:`additive_game_block` for the block (``y`` or ``absent``).

    Parameters
    ----------
    *args, **kwargs
        Not used: a protocol is not instantiated; any class with these attributes and ``block``
        is an AdditiveGame.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley import DenseAdditiveGame, solve_additive_game
    >>> game = DenseAdditiveGame(np.ones((1, 2, 3)), np.ones((2, 1)), [0.0, 1.0])
    >>> solve_additive_game(game).values[0, :, 0]
    array([2., 2., 2.])
    """

    n_points: int
    n_rows: int
    n_features: int
    n_outputs: int
    weights: np.ndarray

    def block(self, points: slice, rows: slice) -> tuple[Any, ...]:
        """(z, c) or (z, c, options) for these points and rows.

        Parameters
        ----------
        points : slice
            The block of explained points.
        rows : slice
            The block of rows of the game.
        """
        ...


def _chunks(n_points: int, n_rows: int, d: int, Q: int, max_bytes: int, absent: bool) -> tuple[int, int]:
    per = 8 * (d + 1) * (Q + 1) + 8 * 3 * d + 8 * (Q + 2) + (8 * 3 * d if absent else 0)
    budget = max(1, max_bytes // per)
    rows = int(min(n_rows, budget))
    points = int(min(n_points, max(1, budget // rows)))
    return points, rows


def solve_additive_game(
    game: AdditiveGame,
    *,
    index: str = "shapley",
    max_block_bytes: int = DEFAULT_BLOCK_BYTES,
    progress: bool = False,
) -> ShapleyValues:
    """Exact Shapley values (or total indices) of an additive game in memory-bounded blocks.

    Parameters
    ----------
    game : AdditiveGame
        Sizes, weights and ``block(points, rows)``.
    index : {"shapley", "total"}
    max_block_bytes : int
        Bound for the temporaries of one block.
    progress : bool
        Show a tqdm bar over the explained points.

    Returns
    -------
    ShapleyValues
        ``values`` (n_points, d, o), ``v_full`` and ``v_empty`` (n_points, o).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley import DenseAdditiveGame, solve_additive_game
    >>> z = np.array([[[1.0, 2.0], [3.0, 0.5]]])           # one point, two rows, two players
    >>> res = solve_additive_game(DenseAdditiveGame(z, np.array([[1.0], [-1.0]]), [0.0, 1.0, 1.0]))
    >>> np.round(res.values[0, :, 0], 3), np.round(res.v_full[0, 0], 3)
    (array([-1.75,  1.75]), np.float64(0.0))
    """
    n, R, d, o = game.n_points, game.n_rows, game.n_features, game.n_outputs
    w = _check_weights(game.weights)
    Q = min(w.shape[0] - 1, d)
    absent = bool(getattr(game, "has_absent", False))
    pc, rc = _chunks(n, R, d, Q, max_block_bytes, absent)
    values = np.zeros((n, d, o))
    v_full = np.zeros((n, o))
    v_empty = np.zeros((n, o))
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=n, desc="kexplain", unit="pt")
    for p0 in range(0, n, pc):
        ps = slice(p0, min(n, p0 + pc))
        for r0 in range(0, R, rc):
            rs = slice(r0, min(R, r0 + rc))
            blk = game.block(ps, rs)
            options: Mapping[str, Any] = blk[2] if len(blk) > 2 else {}
            phi, vf, ve = additive_game_block(blk[0], blk[1], w, index=index, **options)
            values[ps] += phi
            v_full[ps] += vf
            v_empty[ps] += ve
        if bar is not None:
            bar.update(ps.stop - ps.start)
    if bar is not None:
        bar.close()
    if not (np.all(np.isfinite(values)) and np.all(np.isfinite(v_full))):
        raise FloatingPointError(
            "non-finite values in the additive game: check the coefficients, weights and kernel "
            "values for NaN or overflow."
        )
    return ShapleyValues(values, v_full, v_empty)


class DenseAdditiveGame:
    """An additive game held as dense arrays.

    Parameters
    ----------
    z : ndarray of shape (p, r, d)
        Factor of player j in row r, for each of p points.
    c : ndarray of shape (r, o)
        Row weights for each of o outputs.
    weights : array-like of shape (Q + 1,)
        w_q, the weight of every interaction of order q (w_0 is the constant term).
    y : ndarray of shape (p, r, d), optional
        Leading factors (see :func:`additive_game_block`).
    absent : ndarray of shape (p, r, d) or (r, d), optional
        Factors of absent players (default 0).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley import DenseAdditiveGame, solve_additive_game
    >>> game = DenseAdditiveGame(np.full((1, 1, 2), 2.0), np.ones((1, 1)), [0.0, 1.0, 1.0],
    ...                          absent=np.ones((1, 2)))
    >>> res = solve_additive_game(game)
    >>> res.values[0, :, 0], res.v_full[0, 0] - res.v_empty[0, 0]
    (array([2.5, 2.5]), np.float64(5.0))
    """

    def __init__(
        self,
        z: np.ndarray,
        c: np.ndarray,
        weights: Any,
        y: np.ndarray | None = None,
        absent: np.ndarray | None = None,
    ) -> None:
        self.z = z
        self.c = c
        self.y = y
        self.absent = absent
        self.has_absent = absent is not None
        self.weights = np.asarray(weights, dtype=np.float64)
        self.n_points, self.n_rows, self.n_features = z.shape
        self.n_outputs = c.shape[1]

    def block(self, points: slice, rows: slice) -> tuple[Any, ...]:
        """(z, c, options) for these points and rows.

        Parameters
        ----------
        points : slice
            The block of explained points.
        rows : slice
            The block of rows of the game.

        Returns
        -------
        tuple
            (z, c, options): the arrays of :func:`additive_game_block` for the block, and its
            keyword arguments.
        """
        options: dict[str, np.ndarray] = {}
        if self.y is not None:
            options["y"] = self.y[points, rows]
        if self.absent is not None:
            options["absent"] = self.absent[rows] if self.absent.ndim == 2 else self.absent[points, rows]
        return self.z[points, rows], self.c[rows], options


def additive_shapley(
    z: Any,
    c: Any,
    weights: Any,
    *,
    index: str = "shapley",
    absent: Any = None,
    max_block_bytes: int = DEFAULT_BLOCK_BYTES,
) -> ShapleyValues:
    """Shapley values of the additive game given as dense arrays.

    Parameters
    ----------
    z : array-like of shape (r, d) for one point or (p, r, d)
        Factors of present players.
    c : array-like of shape (r,) or (r, o)
        Row weights.
    weights : array-like of shape (Q + 1,)
        w_0..w_Q, the weight of each interaction order.
    index : {"shapley", "total"}
    absent : array-like of shape (r, d) or (p, r, d), optional
        Factors of absent players (default 0): v(S) = sum_r c_r sum_q w_q e_q(y^S) with
        y^S = z on S and ``absent`` off S.
    max_block_bytes : int
        Bound on the memory of one block of the solver's arrays.

    Returns
    -------
    ShapleyValues
        ``values`` is (d,), (p, d) or (p, d, o) following the input.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley import additive_shapley
    >>> res = additive_shapley(np.array([[1.0, 2.0, 3.0]]), [1.0], [0.0, 1.0, 1.0, 1.0])
    >>> np.round(res.values, 3), float(res.v_full)          # v(D) = 6 + 11 + 6
    (array([5.5, 8. , 9.5]), 23.0)
    """
    z = np.asarray(z, dtype=np.float64)
    single = z.ndim == 2
    if single:
        z = z[None]
    if z.ndim != 3:
        raise ValueError(f"z must have shape (rows, players) or (points, rows, players), got {z.shape}.")
    if not np.all(np.isfinite(z)):
        raise ValueError("z contains NaN or infinite values.")
    c = np.asarray(c, dtype=np.float64)
    one_output = c.ndim == 1
    if one_output:
        c = c[:, None]
    if c.ndim != 2 or c.shape[0] != z.shape[1]:
        raise ValueError(f"c must have one entry per row ({z.shape[1]}), got shape {c.shape}.")
    if not np.all(np.isfinite(c)):
        raise ValueError("c contains NaN or infinite values.")
    b = None
    if absent is not None:
        b = np.asarray(absent, dtype=np.float64)
        if b.shape not in (z.shape[1:], z.shape):
            raise ValueError(f"absent must have shape {z.shape[1:]} or {z.shape}, got {b.shape}.")
        if not np.all(np.isfinite(b)):
            raise ValueError("absent contains NaN or infinite values.")
    res = solve_additive_game(DenseAdditiveGame(z, c, weights, absent=b), index=index, max_block_bytes=max_block_bytes)
    if one_output:
        res = ShapleyValues(res.values[..., 0], res.v_full[..., 0], res.v_empty[..., 0])
    if single:
        res = ShapleyValues(res.values[0], res.v_full[0], res.v_empty[0])
    return res

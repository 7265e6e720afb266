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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import numpy as np

from .quadrature import gauss_legendre_01, nodes_for_degree
from .result import ShapleyValues

#: default bound, in bytes, for the temporaries of one block
DEFAULT_BLOCK_BYTES = 64 * 2**20

_INDICES = ("shapley", "total")


def _check_weights(weights: Any) -> np.ndarray:
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 1 or w.shape[0] < 1:
        raise ValueError(
            "weights must be a 1-D array (w_0, w_1, ..., w_Q) with one weight per interaction order, "
            f"got shape {w.shape}."
        )
    if not np.all(np.isfinite(w)):
        raise ValueError("weights contains NaN or infinite values.")
    return w


def _order_coefficients(w: np.ndarray, d: int, index: str) -> np.ndarray:
    """beta_q, q = 0..Q-1, the weight of e_q(z without j) in the value of j (Q <= d)."""
    if index not in _INDICES:
        raise ValueError(f"index must be one of {_INDICES}, got {index!r}.")
    higher = w[1 : d + 1]  # orders above d have no coalition
    if index == "total":
        return higher.copy()
    return higher / np.arange(1, higher.shape[0] + 1)


def elementary_symmetric(z: Any, max_order: int) -> np.ndarray:
    """Elementary symmetric polynomials e_0..e_Q of the last axis, by the stable recursion.

    Parameters
    ----------
    z : array-like of shape (..., d)
    max_order : int
        Q, the highest order returned.

    Returns
    -------
    ndarray of shape (..., max_order + 1)
        ``e[..., q]`` is the sum over all q-subsets of the last axis of the product of their entries.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley.additive import elementary_symmetric
    >>> elementary_symmetric(np.array([1.0, 2.0, 3.0]), 3)   # 1, 1+2+3, 2+3+6, 6
    array([ 1.,  6., 11.,  6.])
    """
    z = np.asarray(z, dtype=np.float64)
    zt = np.moveaxis(z, -1, 0)
    e = np.zeros((max_order + 1,) + z.shape[:-1])  # order-leading: contiguous updates
    e[0] = 1.0
    for k in range(z.shape[-1]):
        # the right side is evaluated first: the simultaneous update e_q <- e_q + z_k e_{q-1} for all q
        e[1:] += zt[k] * e[:-1]
    return np.moveaxis(e, 0, -1)


def leave_one_out_esp(z: Any, max_order: int) -> np.ndarray:
    """e_q(z without j) for every j and q = 0..max_order, from prefix and suffix tables.

    O(d Q^2) per row, without division.  (The solver needs only a weighted sum over q and uses
    the contracted form described in the module docstring.)

    Parameters
    ----------
    z : array-like of shape (..., d)
    max_order : int

    Returns
    -------
    ndarray of shape (..., d, max_order + 1)

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley.additive import leave_one_out_esp
    >>> leave_one_out_esp(np.array([1.0, 2.0, 3.0]), 2)[0]   # e_q(2, 3)
    array([1., 5., 6.])
    """
    z = np.asarray(z, dtype=np.float64)
    d = z.shape[-1]
    Q = max_order
    lead = z.shape[:-1]
    pre = np.zeros(lead + (d + 1, Q + 1))
    suf = np.zeros(lead + (d + 1, Q + 1))
    pre[..., 0, 0] = 1.0
    suf[..., d, 0] = 1.0
    for k in range(d):
        pre[..., k + 1, :] = pre[..., k, :]
        pre[..., k + 1, 1:] += z[..., k, None] * pre[..., k, :-1]
    for k in range(d - 1, -1, -1):
        suf[..., k, :] = suf[..., k + 1, :]
        suf[..., k, 1:] += z[..., k, None] * suf[..., k + 1, :-1]
    out = np.zeros(lead + (d, Q + 1))
    for a in range(Q + 1):
        # e_q(without j) = sum_a pre[j, a] * suf[j + 1, q - a]
        out[..., a:] += pre[..., :d, a, None] * suf[..., 1:, : Q + 1 - a]
    return out


def _block_core(
    zt: np.ndarray,
    c: np.ndarray,
    w: np.ndarray,
    betas: Sequence[np.ndarray],
    yt: np.ndarray | None = None,
) -> tuple[list[np.ndarray], np.ndarray]:
    """Shared pass for several coefficient vectors ``betas`` over one block.

    zt (d, p, r) feature-leading; returns the list of phi (p, d, o), one per beta, and the order
    sums sum_r c_r e_q(z_r), shape (p, Q + 1, o).  Feature- and order-leading layouts keep every
    update a contiguous (p, r) operation.
    """
    d, p, r = zt.shape
    Qf = min(w.shape[0] - 1, d)
    Us = []
    for beta in betas:
        Qb = beta.shape[0]
        # U[k, a] = sum_b beta[a + b] e_b(z_k..z_{d-1}); built from the right
        U = np.empty((d + 1, max(Qb, 1), p, r))
        U[d] = beta.reshape(-1, 1, 1) if Qb else 0.0
        for k in range(d - 1, -1, -1):
            U[k, -1] = U[k + 1, -1]
            if Qb > 1:
                np.multiply(zt[k], U[k + 1, 1:], out=U[k, :-1])
                U[k, :-1] += U[k + 1, :-1]
        Us.append((Qb, U, np.empty((d, p, r))))
    # forward pass: prefix e_a(z_0..z_{j-1}) paired with each U[j + 1]
    n_pre = max([Qf] + [Qb for Qb, _, _ in Us]) + 1
    pre = np.zeros((n_pre, p, r))
    pre[0] = 1.0
    for j in range(d):
        for Qb, U, g in Us:
            if Qb:
                np.einsum("apr,apr->pr", pre[:Qb], U[j + 1], out=g[j])
            else:
                g[j] = 0.0
        pre[1:] += zt[j] * pre[:-1]
    lead = zt if yt is None else yt
    phis = []
    for _, _, g in Us:
        g *= lead
        phis.append(_contract(g, c))
    return phis, _contract(pre[: Qf + 1], c)


def _contract(g: np.ndarray, c: np.ndarray) -> np.ndarray:
    """sum_r g[k, p, r] c[r, o] as (p, k, o), a row-wise sum for each point.

    A stacked product, one (k, r) @ (r, o) per point, rather than one large product whose BLAS
    blocking depends on the number of points: each point's value must not (explaining rows in
    parallel blocks gives identical numbers).
    """
    return np.matmul(g.transpose(1, 0, 2), c)  # one matrix product per point


def _order_sums(zt: np.ndarray, c: np.ndarray, Qf: int) -> np.ndarray:
    """sum_r c_r e_q(z_r) for q = 0..Qf, zt (d, p, r) feature-leading: shape (p, Qf + 1, o)."""
    d, p, r = zt.shape
    pre = np.zeros((Qf + 1, p, r))
    pre[0] = 1.0
    for j in range(d):
        pre[1:] += zt[j] * pre[:-1]
    return _contract(pre, c)


def _as_players_first(a: Any, name: str, shape: tuple[int, int, int], players_first: bool) -> np.ndarray:
    """A contiguous (d, p, r) view or copy of a (p, r, d) array (or (r, d), broadcast over points)."""
    a = np.asarray(a, dtype=np.float64)
    d, p, r = shape
    if players_first:
        if a.ndim == 2:
            a = a[:, None, :]
        ok = a.ndim == 3 and a.shape[0] == d and a.shape[2] == r and a.shape[1] in (1, p)
    else:
        if a.ndim == 2:
            a = a[None]
        ok = a.ndim == 3 and a.shape[2] == d and a.shape[1] == r and a.shape[0] in (1, p)
        if ok:
            a = np.moveaxis(a, -1, 0)
    if not ok:
        expected = f"({d}, {p}, {r}) or ({d}, {r})" if players_first else f"({p}, {r}, {d}) or ({r}, {d})"
        raise ValueError(f"{name} must have shape {expected} to match z, got {np.shape(a)}.")
    # one contiguous copy in feature-leading layout is cheaper than ~3 d Q strided passes
    return np.ascontiguousarray(a)


def additive_block_values(
    z: Any,
    c: Any,
    weights: Any,
    *,
    indices: Sequence[str] = ("shapley",),
    y: Any = None,
    absent: Any = None,
    players_first: bool = False,
) -> tuple[list[np.ndarray], np.ndarray]:
    """One pass over a dense block of an additive game: values for several indices and order sums.

    The entry for callers that need more than one index of the same block (a variance
    decomposition wants Shapley values and total effects together) or the per-order sums
    ``sum_r c_r e_q(z_r)`` (the value of each interaction order).  The prefix/suffix tables are
    built once and shared by every index.

    Parameters
    ----------
    z : array-like of shape (p, r, d), or (d, p, r) with ``players_first=True``
        Factor of player j in row r, for each of p explained points.
    c : array-like of shape (r,) or (r, o)
        Row weights for each of o outputs.
    weights : array-like of shape (Q + 1,)
        w_q, the weight of every interaction of order q (w_0 is the constant term).
    indices : sequence of {"shapley", "total"}
        The indices to compute: Shapley values (each interaction split equally among its
        players) or total effects (each interaction counted in full for each of its players).
    y : array-like like ``z``, optional
        Replaces the leading z_rj in phi_j.  With y = dz/dtheta_j and ``indices=("total",)`` this
        is the derivative of v(D) in a parameter that moves ``z[..., j]`` only (gradients of a marginal
        likelihood).
    absent : array-like like ``z``, or of shape (r, d) (``(d, r)`` with ``players_first``), optional
        Factors b_rj of absent players (default 0): the game v(S) = sum_r c_r sum_q w_q e_q(y^S)
        with y^S_j = z_j on S and b_j off S.  Shapley values only; solved exactly by Gauss-Legendre
        quadrature of the multilinear extension (module docstring).
    players_first : bool
        ``z`` (and ``y``, ``absent``) are given player-leading, (d, p, r), and contiguous: the
        solver's own layout, which then needs no copy.

    Returns
    -------
    values : list of ndarray of shape (p, d, o)
        One array per entry of ``indices``.
    order_sums : ndarray of shape (p, Q + 1, o)
        ``sum_r c_r e_q(z_r)`` for q = 0..Q (with Q capped at d); ``weights @ order_sums`` is v(D).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley.additive import additive_block_values
    >>> z = np.array([[[1.0, 2.0]]])            # one point, one row, two players
    >>> (phi, total), orders = additive_block_values(z, [1.0], [0.0, 1.0, 1.0], indices=("shapley", "total"))
    >>> phi[0, :, 0], total[0, :, 0], orders[0, :, 0]     # v = z1 + z2 + z1 z2
    (array([2., 3.]), array([3., 4.]), array([1., 3., 2.]))
    """
    w = _check_weights(weights)
    c = np.asarray(c, dtype=np.float64)
    if c.ndim == 1:
        c = c[:, None]
    z = np.asarray(z, dtype=np.float64)
    if z.ndim != 3:
        layout = "(players, points, rows)" if players_first else "(points, rows, players)"
        raise ValueError(f"z must have shape {layout}, got {z.shape}.")
    d, p, r = z.shape if players_first else (z.shape[2], z.shape[0], z.shape[1])
    if c.ndim != 2 or c.shape[0] != r:
        raise ValueError(f"c has {c.shape[0]} rows but z has {r}.")
    zt = _as_players_first(z, "z", (d, p, r), players_first)
    if zt.shape[1] != p:
        zt = np.ascontiguousarray(np.broadcast_to(zt, (d, p, r)))
    yt = None if y is None else _as_players_first(y, "y", (d, p, r), players_first)
    for index in indices:
        if index not in _INDICES:
            raise ValueError(f"index must be one of {_INDICES}, got {index!r}.")
    betas = [_order_coefficients(w, d, index) for index in indices]
    if absent is None:
        return _block_core(zt, c, w, betas, yt)
    if y is not None:
        raise ValueError("absent and y cannot be combined: with absent values the leading factor is z - absent.")
    if any(index != "shapley" for index in indices):
        raise ValueError("with absent values only index='shapley' is available.")
    bt = _as_players_first(absent, "absent", (d, p, r), players_first)
    Qf = min(w.shape[0] - 1, d)
    lead = zt - bt
    beta = _order_coefficients(w, d, "total")  # coefficient of e_{q-1}: w_q
    phi = np.zeros((p, d, c.shape[1]))
    t_nodes, t_weights = gauss_legendre_01(nodes_for_degree(max(Qf - 1, 0)))
    for t, wt in zip(t_nodes, t_weights):
        yt_node = bt + t * lead
        (ph,), _ = _block_core(yt_node, c, w, [beta], lead)
        phi += wt * ph
    return [phi.copy() for _ in indices], _order_sums(zt, c, Qf)


def additive_game_block(
    z: Any,
    c: Any,
    weights: Any,
    *,
    y: Any = None,
    absent: Any = None,
    index: str = "shapley",
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Values of one dense block of an additive game, with the values of its full and empty coalitions.

    Parameters
    ----------
    z : array-like of shape (p, r, d)
        Factor of player j in row r, for each of p explained points.
    c : array-like of shape (r,) or (r, o)
        Row weights for each of o outputs.
    weights : array-like of shape (Q + 1,)
        w_q, the weight of every interaction of order q (w_0 is the constant term).
    y : array-like of shape (p, r, d), optional
        Replaces the leading z_rj in phi_j (default z).  With y = dz/dtheta_j this is the derivative
        of v(D) with respect to a parameter that moves ``z[..., j]`` only, which the GP uses for gradients.
    absent : array-like of shape (p, r, d) or (r, d), optional
        Factors of absent players (default 0); see :func:`additive_block_values`.
    index : {"shapley", "total"}

    Returns
    -------
    phi : ndarray of shape (p, d, o)
        The values of every point (for the index ``index``).
    v_full, v_empty : ndarray of shape (p, o)
        The values of the full and of the empty coalition.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley import additive_game_block
    >>> z = np.array([[[1.0, 2.0]]])
    >>> phi, v_full, v_empty = additive_game_block(z, [1.0], [0.5, 1.0, 1.0])
    >>> phi[0, :, 0], v_full[0, 0], v_empty[0, 0]
    (array([2., 3.]), np.float64(5.5), np.float64(0.5))
    >>> phi, v_full, v_empty = additive_game_block(z, [1.0], [0.5, 1.0, 1.0], absent=[[1.0, 1.0]])
    >>> phi[0, :, 0], v_empty[0, 0]                       # v(empty) = 0.5 + 1 + 1 + 1
    (array([0., 2.]), np.float64(3.5))
    """
    z = np.asarray(z, dtype=np.float64)
    if z.ndim != 3:
        raise ValueError(f"z must have shape (points, rows, players), got {z.shape}.")
    p, r, d = z.shape
    c = np.asarray(c, dtype=np.float64)
    if c.ndim == 1:
        c = c[:, None]
    if c.shape[0] != r:
        raise ValueError(f"c has {c.shape[0]} rows but z has {r}.")
    w = _check_weights(weights)
    (phi,), order_sums = additive_block_values(z, c, w, indices=(index,), y=y, absent=absent)
    Qf = min(w.shape[0] - 1, d)
    v_full = np.einsum("q,pqo->po", w[: Qf + 1], order_sums)
    if absent is None:
        v_empty = np.broadcast_to(w[0] * c.sum(axis=0), (p, c.shape[1])).copy()
    else:
        bt = _as_players_first(absent, "absent", (d, p, r), False)
        v_empty = np.broadcast_to(np.einsum("q,pqo->po", w[: Qf + 1], _order_sums(bt, c, Qf)), (p, c.shape[1]))
        v_empty = v_empty.copy()
    return phi, v_full, v_empty


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

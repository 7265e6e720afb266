"""One dense block of an additive game: the values of several indices in one pass, and the order sums.

The pass of :mod:`kexplain.shapley.additive` (where the formulas are derived) over one block of
explained points and rows: the suffix table contracted with each index's order coefficients while
it is built, paired with one prefix table (``_block_core``), so one row costs O(d Q); with absent
values, the same pass at each Gauss-Legendre node of the multilinear extension.
:func:`additive_block_values` gives the values of several indices and the order sums
``sum_r c_r e_q(z_r)`` of one block, :func:`additive_game_block` the values of one index with the
values of the full and empty coalitions; the blocked solver drives the latter.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .quadrature import gauss_legendre_01, nodes_for_degree

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
        quadrature of the multilinear extension (:mod:`kexplain.shapley.additive`).
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

"""Exact Shapley values of additive (elementary-symmetric-polynomial) games.

An additive game over d players, for one explained point, is

    v(S) = sum_r c_r * sum_{T subset of S} w_|T| * prod_{j in T} z_rj,

the game of a model built from an additive kernel sum_q w_q e_q(k_1, ..., k_d) (orthogonal
additive GPs, seed 001 Lemma 1 and Theorem 1).  Each term w_|T| prod_T z is a pure interaction of
the players in T, and the Shapley value splits it equally among them, so

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
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

#: default bound, in bytes, for the temporaries of one block
DEFAULT_BLOCK_BYTES = 64 * 2**20

_INDICES = ("shapley", "total")


def _check_weights(weights) -> np.ndarray:
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
    higher = w[1 : d + 1]                     # orders above d have no coalition
    if index == "total":
        return higher.copy()
    return higher / np.arange(1, higher.shape[0] + 1)


def elementary_symmetric(z: np.ndarray, max_order: int) -> np.ndarray:
    """e_q(z[..., :]) for q = 0..max_order, shape (..., max_order + 1), by the stable recursion."""
    z = np.asarray(z, dtype=np.float64)
    zt = np.moveaxis(z, -1, 0)
    e = np.zeros((max_order + 1,) + z.shape[:-1])          # order-leading: contiguous updates
    e[0] = 1.0
    for k in range(z.shape[-1]):
        # the right side is evaluated first: the simultaneous update e_q <- e_q + z_k e_{q-1} for all q
        e[1:] += zt[k] * e[:-1]
    return np.moveaxis(e, 0, -1)


def leave_one_out_esp(z: np.ndarray, max_order: int) -> np.ndarray:
    """e_q(z without j) for every j and q = 0..max_order: shape (..., d, max_order + 1).

    From prefix and suffix tables, O(d Q^2) per row, without division.  (The solver needs only a
    weighted sum over q and uses the contracted form described in the module docstring.)
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


def _block_core(zt, c, w, betas, yt=None):
    """Shared pass for several coefficient vectors ``betas`` over one block.

    zt (d, p, r) feature-leading; returns the list of phi (p, d, o), one per beta, and the order
    sums sum_r c_r e_q(z_r), shape (p, Q + 1, o).  Feature- and order-leading layouts keep every
    update a contiguous (p, r) operation.
    """
    d, p, r = zt.shape
    Qf = min(w.shape[0] - 1, d)
    phis = []
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
    for _, _, g in Us:
        g *= lead
        phis.append(np.einsum("dpr,ro->pdo", g, c))
    order_sums = np.einsum("qpr,ro->pqo", pre[: Qf + 1], c)
    return phis, order_sums


def additive_game_block(
    z: np.ndarray,
    c: np.ndarray,
    weights,
    *,
    y: np.ndarray | None = None,
    index: str = "shapley",
):
    """Values of one dense block of an additive game.

    Parameters
    ----------
    z : array (p, r, d)
        Factor of player j in row r, for each of p explained points.
    c : array (r,) or (r, o)
        Row weights for each of o outputs.
    weights : array (Q + 1,)
        w_q, the weight of every interaction of order q (w_0 is the constant term).
    y : array (p, r, d), optional
        Replaces the leading z_rj in phi_j (default z).  With y = dz/dtheta_j this is the derivative
        of v(D) with respect to a parameter that moves z_.j only, which the GP uses for gradients.
    index : "shapley" or "total"

    Returns
    -------
    phi : (p, d, o); v_full, v_empty : (p, o)
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
    yt = None if y is None else np.moveaxis(np.asarray(y, dtype=np.float64), -1, 0)
    # one contiguous copy in feature-leading layout is cheaper than ~3 d Q strided passes
    zt = np.ascontiguousarray(np.moveaxis(z, -1, 0))
    (phi,), order_sums = _block_core(zt, c, w, [_order_coefficients(w, d, index)], yt)
    Qf = min(w.shape[0] - 1, d)
    v_full = np.einsum("q,pqo->po", w[: Qf + 1], order_sums)
    v_empty = np.broadcast_to(w[0] * c.sum(axis=0), (p, c.shape[1])).copy()
    return phi, v_full, v_empty


class AdditiveGame(Protocol):
    """What ``solve_additive_game`` needs: sizes, the order weights and dense blocks on demand."""

    n_points: int
    n_rows: int
    n_features: int
    n_outputs: int
    weights: np.ndarray

    def block(self, points: slice, rows: slice):
        """Return (z, c) for these points and rows: z (p, r, d), c (r, o); optionally a third
        array y like z (see ``additive_game_block``)."""
        ...


@dataclass
class AdditiveGameResult:
    values: np.ndarray          # (n_points, d, o)
    v_full: np.ndarray          # (n_points, o)
    v_empty: np.ndarray         # (n_points, o)


def _chunks(n_points, n_rows, d, Q, max_bytes):
    per = 8 * (d + 1) * (Q + 1) + 8 * 3 * d + 8 * (Q + 2)
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
) -> AdditiveGameResult:
    """Exact Shapley values (or total indices) of an additive game in memory-bounded blocks."""
    n, R, d, o = game.n_points, game.n_rows, game.n_features, game.n_outputs
    w = _check_weights(game.weights)
    Q = min(w.shape[0] - 1, d)
    pc, rc = _chunks(n, R, d, Q, max_block_bytes)
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
            z, c = blk[0], blk[1]
            y = blk[2] if len(blk) > 2 else None
            phi, vf, ve = additive_game_block(z, c, w, y=y, index=index)
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
    return AdditiveGameResult(values, v_full, v_empty)


class DenseAdditiveGame:
    """An additive game held as dense arrays z (p, r, d), c (r, o) and optionally y like z."""

    def __init__(self, z, c, weights, y=None):
        self.z = z
        self.c = c
        self.y = y
        self.weights = weights
        self.n_points, self.n_rows, self.n_features = z.shape
        self.n_outputs = c.shape[1]

    def block(self, points, rows):
        if self.y is None:
            return self.z[points, rows], self.c[rows]
        return self.z[points, rows], self.c[rows], self.y[points, rows]


def additive_shapley(z, c, weights, *, index: str = "shapley", max_block_bytes: int = DEFAULT_BLOCK_BYTES):
    """Shapley values of the additive game given as dense arrays.

    ``z`` (r, d) for one point or (p, r, d); ``c`` (r,) or (r, o); ``weights`` (w_0..w_Q).
    Returns an ``AdditiveGameResult``; ``values`` is (d,), (p, d) or (p, d, o) following the input.
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
    res = solve_additive_game(DenseAdditiveGame(z, c, weights), index=index, max_block_bytes=max_block_bytes)
    if one_output:
        res = AdditiveGameResult(res.values[..., 0], res.v_full[..., 0], res.v_empty[..., 0])
    if single:
        res = AdditiveGameResult(res.values[0], res.v_full[0], res.v_empty[0])
    return res

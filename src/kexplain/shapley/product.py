"""Exact Shapley values and pairwise interaction indices of product games.

A product game over d players, for one explained point, is

    v(S) = sum_r c_r * prod_{j in S} a_rj * prod_{j not in S} b_rj.

Writing g_rj(t) = (1 - t) b_rj + t a_rj, the Shapley value is (shared/DESIGN.md section 1)

    phi_j = sum_r c_r (a_rj - b_rj) * int_0^1 prod_{k != j} g_rk(t) dt,

and the pairwise Shapley interaction index is

    I_jk = sum_r c_r (a_rj - b_rj)(a_rk - b_rk) * int_0^1 prod_{l != j, k} g_rl(t) dt.

Both integrands are polynomials of degree <= d - 1, so ceil(d/2) Gauss-Legendre nodes are exact.

This module holds the single engine every explainer uses.  ``product_game_block`` is the dense
kernel for one block of (points, rows); ``solve_product_game`` drives it over a game object in
memory-bounded chunks and accumulates.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from .quadrature import gauss_legendre_01, nodes_for_degree

# Products with a magnitude below this are recomputed in log space, which also handles zeros.
_TINY = np.finfo(np.float64).tiny * 1e16
_HUGE = np.finfo(np.float64).max * 1e-16

#: default bound, in bytes, for the largest temporary of one block (the (p, r, m, d) array)
DEFAULT_BLOCK_BYTES = 64 * 2**20


def _loo_products_safe(g: np.ndarray) -> np.ndarray:
    """prod_{k != j} g[..., k] for every j, exact with zeros and free of under/overflow in between.

    Works in log space with a count of exact zeros: the leave-one-out product is nonzero only
    when every zero factor is the left-out one.
    """
    zero = g == 0.0
    absg = np.where(zero, 1.0, np.abs(g))
    lg = np.log(absg)
    neg = (g < 0.0)
    total_log = lg.sum(axis=-1, keepdims=True)
    n_zero = zero.sum(axis=-1, keepdims=True)
    n_neg = neg.sum(axis=-1, keepdims=True)
    loo_zero = n_zero - zero
    loo_neg = n_neg - neg
    sign = np.where(loo_neg % 2 == 1, -1.0, 1.0)
    out = sign * np.exp(total_log - lg)
    out[loo_zero > 0] = 0.0
    return out


def _loo2_products_safe(g: np.ndarray) -> np.ndarray:
    """prod_{l != j, k} g[..., l] for every pair (j, k); shape (..., d, d). Diagonal is meaningless."""
    zero = g == 0.0
    absg = np.where(zero, 1.0, np.abs(g))
    lg = np.log(absg)
    neg = g < 0.0
    total_log = lg.sum(axis=-1)[..., None, None]
    n_zero = zero.sum(axis=-1)[..., None, None]
    n_neg = neg.sum(axis=-1)[..., None, None]
    zj = zero[..., :, None].astype(np.int64) + zero[..., None, :]
    nj = neg[..., :, None].astype(np.int64) + neg[..., None, :]
    out = np.exp(total_log - lg[..., :, None] - lg[..., None, :])
    out = np.where((n_neg - nj) % 2 == 1, -out, out)
    out[(n_zero - zj) > 0] = 0.0
    return out


def product_game_block(
    a: np.ndarray,
    b: np.ndarray | float,
    c: np.ndarray,
    *,
    interactions: bool = False,
    n_nodes: int | None = None,
):
    """Shapley values (and optionally interaction indices) of one dense block of a product game.

    Parameters
    ----------
    a : array of shape (p, r, d)
        Factor of feature j in row r when j is present, for each of p explained points.
    b : array broadcastable to (p, r, d), or a scalar
        Factor when j is absent (1 for the functional-baseline game).
    c : array of shape (r, o)
        Row weights for each of o outputs.
    interactions : bool
        Also return pairwise Shapley interaction indices.

    Returns
    -------
    phi : array (p, d, o)
    v_full, v_empty : arrays (p, o)
        v(all features) and v(no feature); sum_j phi_j = v_full - v_empty exactly up to rounding.
    inter : array (p, d, d, o), only when ``interactions``; I_jk off the diagonal, zeros on it.
    """
    a = np.asarray(a, dtype=np.float64)
    p, r, d = a.shape
    b = np.broadcast_to(np.asarray(b, dtype=np.float64), a.shape)
    c = np.asarray(c, dtype=np.float64)
    if c.ndim == 1:
        c = c[:, None]
    diff = a - b                                     # (p, r, d)
    prod_a = np.prod(a, axis=-1)                     # (p, r)
    prod_b = np.prod(b, axis=-1)
    v_full = prod_a @ c                              # (p, o)
    v_empty = prod_b @ c
    if n_nodes is None:
        n_nodes = nodes_for_degree(d - 1)
    t, w = gauss_legendre_01(n_nodes)
    # g[p, r, l, j] = b + t_l (a - b)
    g = b[:, :, None, :] + t[None, None, :, None] * diff[:, :, None, :]
    prod_g = np.prod(g, axis=-1)                      # (p, r, m)
    ok = (np.abs(prod_g) > _TINY) & (np.abs(prod_g) < _HUGE)
    with np.errstate(divide="ignore", invalid="ignore"):
        loo = prod_g[..., None] / g                   # prod_{k != j} g_k
    if not ok.all():
        bad = ~ok
        loo[bad] = _loo_products_safe(g[bad])
    # int_0^1 prod_{k != j} g_k dt, by quadrature: (p, r, d)
    integral = np.einsum("prld,l->prd", loo, w)
    phi = np.einsum("prd,prd,ro->pdo", diff, integral, c)
    if not interactions:
        return phi, v_full, v_empty
    if d < 2:
        return phi, v_full, v_empty, np.zeros((p, d, d, c.shape[1]))
    # prod_{l != j,k} g_l = prod_g / (g_j g_k) on well-conditioned entries
    with np.errstate(divide="ignore", invalid="ignore"):
        u = diff[:, :, None, :] / g                   # (p, r, m, d): (a_j - b_j) / g_j
    inter = np.empty((p, d, d, c.shape[1]))
    for pi in range(p):
        okp = ok[pi]                                  # (r, m)
        s = (prod_g[pi] * w[None, :])                 # (r, m)
        up = u[pi]                                    # (r, m, d)
        for o in range(c.shape[1]):
            weights = np.where(okp, s * c[:, o][:, None], 0.0)   # (r, m)
            uo = up[okp]                                          # (K, d)
            acc = (uo * weights[okp][:, None]).T @ uo
            if not okp.all():
                bad = ~okp
                loo2 = _loo2_products_safe(g[pi][bad])            # (B, d, d)
                rows = np.nonzero(bad)[0]
                wb = (w[None, :] * np.ones_like(s))[bad] * c[rows, o]
                dr = diff[pi][rows]                               # (B, d)
                acc = acc + np.einsum("b,bj,bk,bjk->jk", wb, dr, dr, loo2)
            np.fill_diagonal(acc, 0.0)
            inter[pi, :, :, o] = acc
    return phi, v_full, v_empty, inter


class ProductGame(Protocol):
    """What ``solve_product_game`` needs from a game.

    A game has ``n_points`` explained points, ``n_rows`` rows, ``n_features`` players and
    ``n_outputs`` outputs, and produces dense blocks on demand so memory stays bounded.
    """

    n_points: int
    n_rows: int
    n_features: int
    n_outputs: int

    def block(self, points: slice, rows: slice):
        """Return (a, b, c) for these points and rows: a (p, r, d), b broadcastable, c (r, o)."""
        ...


@dataclass
class ProductGameResult:
    values: np.ndarray          # (n_points, d, o)
    v_full: np.ndarray          # (n_points, o)
    v_empty: np.ndarray         # (n_points, o)
    interactions: np.ndarray | None = None   # (n_points, d, d, o), I_jk, zero diagonal


def _chunk_sizes(n_points, n_rows, d, n_nodes, interactions, max_bytes):
    per_row_point = 8 * n_nodes * d * (4 if interactions else 3)
    budget_elems = max(1, max_bytes // per_row_point)
    rows = int(min(n_rows, max(1, budget_elems)))
    points = int(min(n_points, max(1, budget_elems // rows)))
    return points, rows


def solve_product_game(
    game: ProductGame,
    *,
    interactions: bool = False,
    max_block_bytes: int = DEFAULT_BLOCK_BYTES,
    progress: bool = False,
) -> ProductGameResult:
    """Exact Shapley values of a product game, in memory-bounded blocks of points and rows."""
    n, R, d, o = game.n_points, game.n_rows, game.n_features, game.n_outputs
    n_nodes = nodes_for_degree(d - 1)
    p_chunk, r_chunk = _chunk_sizes(n, R, d, n_nodes, interactions, max_block_bytes)
    values = np.zeros((n, d, o))
    v_full = np.zeros((n, o))
    v_empty = np.zeros((n, o))
    inter = np.zeros((n, d, d, o)) if interactions else None
    point_starts = range(0, n, p_chunk)
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=n, desc="kexplain", unit="pt")
    for p0 in point_starts:
        ps = slice(p0, min(n, p0 + p_chunk))
        for r0 in range(0, R, r_chunk):
            rs = slice(r0, min(R, r0 + r_chunk))
            a, b, c = game.block(ps, rs)
            out = product_game_block(a, b, c, interactions=interactions, n_nodes=n_nodes)
            values[ps] += out[0]
            v_full[ps] += out[1]
            v_empty[ps] += out[2]
            if interactions:
                inter[ps] += out[3]
        if bar is not None:
            bar.update(ps.stop - ps.start)
    if bar is not None:
        bar.close()
    for name, arr in (("Shapley values", values), ("game values", v_full)):
        if not np.all(np.isfinite(arr)):
            raise FloatingPointError(
                f"non-finite {name} in the product game: check the model coefficients and "
                "kernel values for NaN or overflow."
            )
    return ProductGameResult(values, v_full, v_empty, inter)


def interaction_values(phi: np.ndarray, inter: np.ndarray) -> np.ndarray:
    """shap's convention: Phi_jk = I_jk / 2 off the diagonal, Phi_jj = phi_j - sum_{k!=j} Phi_jk.

    ``phi`` (..., d) and ``inter`` (..., d, d) with the outputs axis, if any, moved before the
    feature axes by the caller.
    """
    out = 0.5 * np.array(inter, dtype=np.float64, copy=True)
    d = out.shape[-1]
    idx = np.arange(d)
    out[..., idx, idx] = 0.0
    out[..., idx, idx] = phi - out.sum(axis=-1)
    return out

"""Interactions of every order of a product game, by quadrature: no enumeration of coalitions.

For a product game ``v(S) = sum_r c_r prod_{j in S} a_rj prod_{j not in S} b_rj`` each index of
:mod:`kexplain.shapley.higher_order` (whose docstring derives it) is

    I(T) = sum_r c_r prod_{j in T} (a_rj - b_rj) * int prod_{l not in T} g_rl(u) dmu(u),
    g_rl(u) = (1 - u) b_rl + u a_rl,

with the index's measure mu (:func:`_measure`, :func:`_rule`), or for FSII a sum over the roots
of unity of the size-stratified polynomial (:func:`_size_weighted`).  :func:`product_interactions`
evaluates it on one dense block: a matrix product per prefix of T where every partial product
stays in float64's range (:func:`_integrate_block`, :func:`_contract`), log space with a count
of exact zeros for the other (point, row) pairs (``_higher_order_logspace``).
:func:`solve_product_interactions` drives it over a :class:`kexplain.shapley.product.ProductGame`,
one point at a time, and stores the selection in an
:class:`~kexplain.shapley.higher_order_table.InteractionTable`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations
from math import comb
from typing import Any

import numpy as np

from ._higher_order_logspace import (  # noqa: F401  (_WORK_BYTES, _log_parts, _sets_chunk: names before the split)
    _WORK_BYTES,
    _leave_out_integrals,
    _log_parts,
    _sets_chunk,
    _size_weighted,
)
from .higher_order_indices import (
    EFFICIENT_INDICES,
    INDICES,
    InteractionSpec,
    _is_int,
    combinations_array,
    fsii_weights,
    ksii_from_sii,
)
from .higher_order_table import InteractionTable, table_from_dense
from .quadrature import gauss_legendre_01, nodes_for_degree


def _measure(index: str, d: int, t: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of the measure mu of sets of order t (module docstring)."""
    zero = (np.zeros(1), np.ones(1))
    if index == "Moebius":
        return zero
    if index in ("BII", "BV"):
        return np.full(1, 0.5), np.ones(1)
    if index in ("SII", "SV", "k-SII"):
        if t == 0 and index != "SII":
            return zero
        return gauss_legendre_01(nodes_for_degree(d - t))
    if index == "STII":
        if t < k:
            return zero
        u, w = gauss_legendre_01(nodes_for_degree(d - 1))
        return u, w * k * (1.0 - u) ** (k - 1)
    raise ValueError(f"no measure for index {index!r}")  # FSII goes through _size_weighted


def product_interactions(a: Any, b: Any, c: Any, index: str, max_order: int) -> dict[int, np.ndarray]:
    """Every interaction of orders 0..max_order of one dense block of a product game.

    Parameters
    ----------
    a : array of shape (p, r, d)
        Factor of feature j in row r when j is present, for each of p points.
    b : array broadcastable to (p, r, d), or a scalar
        Factor when j is absent.
    c : array of shape (r, o) or (r,)
        Row weights.
    index : str
        One of :data:`INDICES` (validated by :func:`check_interaction_spec`).
    max_order : int
        Highest order, 1..d.

    Returns
    -------
    dict
        Order t -> array (C(d, t), p, o), the sets in the order of :func:`combinations_array`;
        order 0 (one set, the empty set) holds the module's convention for the empty set.
        Additive over blocks of rows.

    Examples
    --------
    v(S) = 2 * [0 and 1 in S], as a product game with one row (a = 1, b = 0 for players 0, 1).

    >>> import numpy as np
    >>> from kexplain.shapley.higher_order import product_interactions
    >>> out = product_interactions(np.ones((1, 1, 3)), np.array([0.0, 0.0, 1.0]), [2.0], "Moebius", 2)
    >>> out[2][:, 0, 0]                               # pairs (0, 1), (0, 2), (1, 2)
    array([2., 0., 0.])
    >>> product_interactions(np.ones((1, 1, 3)), np.array([0.0, 0.0, 1.0]), [2.0], "SV", 1)[1][:, 0, 0]
    array([1., 1., 0.])
    """
    a = np.asarray(a, dtype=np.float64)
    if a.ndim != 3:
        raise ValueError(f"a must have shape (points, rows, features), got shape {a.shape}.")
    p, r, d = a.shape
    b = np.ascontiguousarray(np.broadcast_to(np.asarray(b, dtype=np.float64), a.shape))
    c = np.asarray(c, dtype=np.float64)
    if c.ndim == 1:
        c = c[:, None]
    if c.ndim != 2 or c.shape[0] != r:
        raise ValueError(f"c must have shape (rows, outputs) with rows = {r}, got shape {c.shape}.")
    for arr, nm in ((a, "a"), (b, "b"), (c, "c")):
        if not np.all(np.isfinite(arr)):
            raise ValueError(
                f"{nm} contains NaN or infinite values; the product-game engine accepts finite numbers only."
            )
    if index not in INDICES:
        raise ValueError(f"index must be one of {list(INDICES)}, got {index!r}.")
    if not _is_int(max_order) or not 1 <= max_order <= d:
        raise ValueError(f"max_order must be an integer in 1..{d}, got {max_order!r}.")
    k = int(max_order)
    rules = {t: _rule(index, d, t, k) for t in range(0, k + 1)}
    out = _integrate_block(a, b, c, rules, d)
    if index == "k-SII" and k > 1:
        out.update(ksii_from_sii({t: out[t] for t in range(1, k + 1)}, d, k))
    return out


@dataclass(frozen=True)
class _Rule:
    """How sets of one order are integrated: nodes (real on [0, 1], or complex roots of unity for
    the size-weighted sums) shared by the orders of the same ``key``, and this order's weights."""

    key: str
    nodes: np.ndarray
    weights: np.ndarray
    h: np.ndarray | None = None  # the size weights, for the log-space fallback of complex rules


def _rule(index: str, d: int, t: int, k: int) -> _Rule:
    if index == "FSII":
        h = fsii_weights(d, k, t)
        if t == 0:
            return _Rule("zero", np.zeros(1), np.ones(1))
        n = d + 1  # more roots of unity than the degree d - t of every order's polynomial
        q = np.arange(n)
        z = np.exp(2j * np.pi * q / n)
        omega = (np.exp(-2j * np.pi * np.outer(q, np.arange(len(h))) / n) @ h) / n
        return _Rule("roots", z, omega, h)
    base = "SII" if index == "k-SII" and t else index
    u, w = _measure(base, d, t, k)
    if len(u) == 1:
        return _Rule(f"point{u[0]}", u, w)
    if base == "STII":
        return _Rule("gl", *_stii_on_common_nodes(d, k))
    # SII-type orders share one rule with enough nodes for the highest degree (d, the empty set)
    uu, ww = gauss_legendre_01(nodes_for_degree(d))
    return _Rule("gl", uu, ww)


def _stii_on_common_nodes(d: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    u, w = gauss_legendre_01(nodes_for_degree(d))
    return u, w * k * (1.0 - u) ** (k - 1)


#: the fast route keeps every partial product of a (point, row) pair within these magnitudes
_SAFE_LOG_HI = np.log(1e290)
_SAFE_LOG_LO = np.log(1e-290)


def _integrate_block(
    a: np.ndarray, b: np.ndarray, c: np.ndarray, rules: Mapping[int, _Rule], d: int
) -> dict[int, np.ndarray]:
    """sum_r c_r prod_T (a - b) sum_q w_q prod_{l not in T} g_rl(u_q), every T of each order.

    Fast route: prod_{l not in T} g = G / prod_{l in T} g with G the full product, so the value
    of T is sum_K W_K prod_{l in T} U_Kl over K = (row, node) with U = (a - b) / g and
    W = c w G: a matrix product per prefix of T (``_contract``).  (point, row) pairs with a zero
    factor, or whose products could leave float64's range, go through the log-space route.
    """
    p, r, _ = a.shape
    o = c.shape[1]
    diff = a - b
    out = {t: np.zeros((comb(d, t), p, o)) for t in rules}
    by_key: dict[str, list[int]] = {}
    for t, rule in rules.items():
        by_key.setdefault(rule.key, []).append(t)
    for orders in by_key.values():
        u = rules[orders[0]].nodes
        kmax = max(orders)
        if np.iscomplexobj(u):
            g = b[:, :, None, :] + u[None, None, :, None] * diff[:, :, None, :]
        else:
            g = (1.0 - u)[None, None, :, None] * b[:, :, None, :] + u[None, None, :, None] * a[:, :, None, :]
        absg = np.abs(g)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
            logg = np.log(absg)
            logG = logg.sum(axis=-1)  # (p, r, Q)
            U = np.where(absg > 0, diff[:, :, None, :] / np.where(absg > 0, g, 1.0), 0.0)
            logU = np.log(np.abs(U))
        finite_U = np.isfinite(logU)
        umax = np.where(finite_U, logU, -np.inf).max(axis=(2, 3))
        umin = np.where(finite_U, logU, np.inf).min(axis=(2, 3))
        safe = (
            (absg > 0).all(axis=(2, 3))
            & (logG.max(axis=2) + kmax * np.maximum(umax, 0.0) < _SAFE_LOG_HI)
            & (logG.min(axis=2) + kmax * np.minimum(np.where(np.isfinite(umin), umin, 0.0), 0.0) > _SAFE_LOG_LO)
        )
        with np.errstate(under="ignore", over="ignore"):
            G = np.prod(g, axis=-1)  # (p, r, Q)
        for t in orders:
            rule = rules[t]
            for pi in range(p):
                rows = safe[pi]
                if rows.any():
                    Up = U[pi, rows].reshape(-1, d)
                    Wp = (c[rows][:, None, :] * (rule.weights[None, :] * G[pi, rows])[:, :, None]).reshape(-1, o)
                    res = _contract(Up, Wp, d, t)
                    out[t][:, pi] += res.real if np.iscomplexobj(res) else res
                if not rows.all():
                    bad = ~rows
                    sets = combinations_array(d, t)
                    ab, bb, cb = a[pi : pi + 1, bad], b[pi : pi + 1, bad], c[bad]
                    if rule.h is not None:
                        out[t][:, pi] += _size_weighted(ab, bb, cb, sets, rule.h)[:, 0]
                    else:
                        out[t][:, pi] += _leave_out_integrals(ab, bb, cb, sets, rule.nodes, rule.weights)[:, 0]
    return out


def _contract(U: np.ndarray, W: np.ndarray, d: int, t: int) -> np.ndarray:
    """sum_K W_Ko prod_{l in T} U_Kl for every T of size t (lexicographic), shape (C(d, t), o).

    Sets sharing their first t - 2 elements P come from one matrix product
    (U_{>max P} * W prod_P U)^T U_{>max P}, whose strict upper triangle lists the last two
    elements in lexicographic order: cost about K d^t / t! multiply-adds, done by BLAS.
    """
    o = W.shape[1]
    if t == 0:
        return W.sum(axis=0)[None, :]
    if t == 1:
        return U.T @ W
    out = np.empty((comb(d, t), o), dtype=np.result_type(U, W))
    for oi in range(o):
        pos = 0
        for P in combinations(range(d), t - 2):
            m = P[-1] + 1 if P else 0
            if d - m < 2:
                continue
            wp = W[:, oi] * np.prod(U[:, list(P)], axis=1) if P else W[:, oi]
            Us = U[:, m:]
            M = (Us * wp[:, None]).T @ Us
            iu = np.triu_indices(d - m, 1)
            n = len(iu[0])
            out[pos : pos + n, oi] = M[iu]
            pos += n
    return out


def _rows_per_block(d: int, n_nodes: int, max_bytes: int) -> int:
    return int(max(1, max_bytes // (8 * 4 * max(1, n_nodes) * max(1, d))))


def solve_product_interactions(
    game: Any, spec: InteractionSpec, *, max_block_bytes: int = 64 * 2**20, progress: bool = False
) -> InteractionTable:
    """Interactions of every order of a product game (a :class:`kexplain.shapley.product.ProductGame`).

    One point at a time (the dense arrays of one point, sum_t C(d, t) * n_outputs numbers, are
    reduced to the selection of ``spec`` before the next point), rows in blocks whose work arrays
    stay near ``max_block_bytes``.  The cost per point is O(rows * nodes * sum_t C(d, t) * t).

    Parameters
    ----------
    game : ProductGame
        Gives dense blocks (a, b, c) of points and rows, in numpy.
    spec : InteractionSpec
        From :func:`check_interaction_spec`.
    max_block_bytes : int
        Bound on the work arrays of one block of rows.
    progress : bool
        Show a progress bar over points (tqdm).

    Returns
    -------
    InteractionTable
        The interactions of orders 1..max_order of every point.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley.higher_order import check_interaction_spec, solve_product_interactions
    >>> class Unanimity:                      # v(S) = 1 when S holds players 0, 1 and 2
    ...     n_points, n_rows, n_features, n_outputs = 1, 1, 4, 1
    ...     def block(self, points, rows):
    ...         return np.ones((1, 1, 4)), np.array([0.0, 0.0, 0.0, 1.0]), np.ones((1, 1))
    >>> tab = solve_product_interactions(Unanimity(), check_interaction_spec({"index": "k-SII", "max_order": 3}))
    >>> {T: round(v, 3) for T, v in tab.as_dict(0).items() if abs(v) > 1e-12}
    {(0, 1, 2): 1.0}
    """
    n, R, d, o = game.n_points, game.n_rows, game.n_features, game.n_outputs
    if spec.max_order > d:
        raise ValueError(
            f"interactions['max_order'] must be at most the number of features d = {d}, got {spec.max_order}."
        )
    rows = _rows_per_block(d, nodes_for_degree(d), max_block_bytes)
    v_full = np.zeros((n, o))
    v_empty = np.zeros((n, o))
    entries: list[dict[int, tuple[np.ndarray, np.ndarray]]] = []
    empty = np.zeros((n, o))
    gap = np.zeros((n, o)) if spec.index in EFFICIENT_INDICES else None
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=n, desc="kexplain interactions", unit="pt")
    for i in range(n):
        acc: dict[int, np.ndarray] | None = None
        for r0 in range(0, R, rows):
            a, b, c = game.block(slice(i, i + 1), slice(r0, min(R, r0 + rows)))
            a = np.asarray(a, dtype=np.float64)
            bb = np.broadcast_to(np.asarray(b, dtype=np.float64), a.shape)
            c2 = np.asarray(c, dtype=np.float64).reshape(a.shape[1], -1)
            with np.errstate(under="ignore", over="ignore"):
                v_full[i] += np.prod(a, axis=-1)[0] @ c2
                v_empty[i] += np.prod(bb, axis=-1)[0] @ c2
            out = product_interactions(a, bb, c2, spec.index, spec.max_order)
            acc = out if acc is None else {t: acc[t] + out[t] for t in acc}
        if acc is None:  # no rows: the zero game
            acc = {t: np.zeros((comb(d, t), 1, o)) for t in range(spec.max_order + 1)}
        tab = table_from_dense(acc, spec, d, v_full[i : i + 1], v_empty[i : i + 1])
        entries.append(tab.entries[0])
        empty[i] = tab.empty[0]
        if gap is not None and tab.efficiency_gap is not None:
            gap[i] = tab.efficiency_gap[0]
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    for name, arr in (("interaction values", empty), ("game values", v_full)):
        if not np.all(np.isfinite(arr)):
            raise FloatingPointError(f"non-finite {name} in the product game: check the model for NaN or overflow.")
    return InteractionTable(spec.index, spec.max_order, d, entries, empty, v_full, v_empty, gap, spec.sparse)

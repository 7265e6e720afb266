"""Exact Shapley values of product games whose rows each have few players.

A product game over d players is a sum of rows, v(S) = sum_r c_r prod_{j in S} a_rj prod_{j not in S} b_rj.
A feature j with a_rj = b_rj is a null player of row r: it multiplies every coalition's value by the
same factor, so it gets nothing from that row and leaves the others' values as they are without it
(the Shapley value's null-player and linearity properties).  When each row has only a few players
(the features where a and b differ: with sparse inputs, the non-zeros of the explained row, the
support point and the background row), a row costs O(k^2) for its k players instead of O(d^2),
and the null players' common factor goes into its weight c_r.

:func:`solve_sparse_rows` takes such rows in a CSR-like layout (``indptr``, ``columns``, ``a``,
``b``) and solves them with the engine's leave-one-out pass
(:func:`kexplain.shapley.product.leave_one_out_integrals`): rows of similar widths are padded with
null players (a = b = 1, which change neither the products nor the exactness of the quadrature)
into dense blocks, so the compiled kernel runs on full blocks.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._optional import compiled_or_none
from .product import DEFAULT_BLOCK_BYTES, leave_one_out_integrals
from .quadrature import gauss_legendre_01, nodes_for_degree

#: rows whose widths differ by at most this factor share one padded block
_WIDTH_SLACK = 1.25


def solve_sparse_rows(
    indptr: ArrayLike,
    columns: ArrayLike,
    a: ArrayLike,
    b: ArrayLike | None,
    weights: ArrayLike,
    n_features: int,
    *,
    max_block_bytes: int = DEFAULT_BLOCK_BYTES,
    backend: str = "auto",
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Shapley values of a product game given by its rows' players only.

    Row r has the players ``columns[indptr[r]:indptr[r + 1]]`` (distinct features) with present
    factors ``a`` and absent factors ``b`` at the same positions; every other feature is a null
    player of the row (equal factors, already multiplied into ``weights[r]``).  The game is
    v(S) = sum_r weights[r] prod_{j in S, j player of r} a_rj prod_{j not in S} b_rj.

    Parameters
    ----------
    indptr : array-like of int, shape (n_rows + 1,)
        Row r's players are at positions indptr[r] to indptr[r + 1] of the other arrays.
    columns : array-like of int, shape (nnz,)
        The feature of each position, in [0, n_features).
    a : array-like of shape (nnz,)
        Present factors, finite.
    b : array-like of shape (nnz,), optional
        Absent factors; None means 1 (the functional game).
    weights : array-like of shape (n_rows, n_outputs) or (n_rows,)
        Row weights (the null players' factors included).
    n_features : int
        The number of players d.
    max_block_bytes : int
        Bound on one padded block's arrays.
    backend : {"auto", "numba", "numpy"}
        The engine's backend.

    Returns
    -------
    phi : ndarray of shape (n_features, n_outputs)
        The Shapley values.
    v_full : ndarray of shape (n_outputs,)
        v(all players).
    v_empty : ndarray of shape (n_outputs,)
        v(no player).

    Examples
    --------
    Two rows over 5 features: row 0 plays on features 1 and 3, row 1 on feature 4 only.

    >>> import numpy as np
    >>> from kexplain.shapley.sparse import solve_sparse_rows
    >>> phi, v_full, v_empty = solve_sparse_rows([0, 2, 3], [1, 3, 4], [2.0, 3.0, 0.5], None, [1.0, 2.0], 5)
    >>> phi[:, 0], v_full, v_empty
    (array([ 0.,  2.,  0.,  3., -1.]), array([7.]), array([3.]))

    The values sum to v_full - v_empty, and features 0 and 2 (no row's player) get 0.
    """
    indptr = np.asarray(indptr, dtype=np.int64)
    columns = np.asarray(columns, dtype=np.int64)
    a = np.asarray(a, dtype=np.float64)
    b = None if b is None else np.asarray(b, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    if weights.ndim == 1:
        weights = weights[:, None]
    n_rows = indptr.shape[0] - 1
    if weights.shape[0] != n_rows or weights.ndim != 2:
        raise ValueError(f"weights must have shape ({n_rows}, n_outputs), got {weights.shape}.")
    if columns.shape != a.shape or (b is not None and b.shape != a.shape) or indptr[-1] != a.shape[0]:
        raise ValueError("columns, a (and b) must have one entry per position indptr[-1].")
    o = weights.shape[1]
    phi = np.zeros((n_features, o))
    v_full = np.zeros(o)
    v_empty = np.zeros(o)
    widths = np.diff(indptr)
    if n_rows == 0:
        return phi, v_full, v_empty
    order = np.argsort(widths, kind="stable")
    sw = widths[order]
    lo = 0
    while lo < n_rows:
        w0 = int(sw[lo])
        # rows of similar width share a block: padding costs at most _WIDTH_SLACK^2 of the work
        hi = int(np.searchsorted(sw, max(w0, int(w0 * _WIDTH_SLACK) + 2), side="right"))
        W = int(sw[hi - 1])
        rows_per_block = max(1, int(max_block_bytes) // (8 * 6 * max(1, W)))
        hi = min(hi, lo + rows_per_block)
        rows = order[lo:hi]
        _solve_block(rows, W, indptr, columns, a, b, weights, phi, v_full, v_empty, backend)
        lo = hi
    return phi, v_full, v_empty


def _solve_block(
    rows: np.ndarray,
    W: int,
    indptr: np.ndarray,
    columns: np.ndarray,
    a: np.ndarray,
    b: np.ndarray | None,
    weights: np.ndarray,
    phi: np.ndarray,
    v_full: np.ndarray,
    v_empty: np.ndarray,
    backend: Any,
) -> None:
    """Rows ``rows`` padded to width ``W`` with null players, solved, added to the accumulators."""
    wts = weights[rows]
    if W == 0:  # rows without players: constant rows
        v_full += wts.sum(axis=0)
        v_empty += wts.sum(axis=0)
        return
    K = rows.shape[0]
    lens = indptr[rows + 1] - indptr[rows]
    total = int(lens.sum())
    starts = np.repeat(np.cumsum(lens) - lens, lens)
    pos = np.arange(total) - starts  # position of each entry within its row
    src = np.repeat(indptr[rows], lens) + pos
    rpos = np.repeat(np.arange(K), lens)
    A = np.ones((K, W))
    A[rpos, pos] = a[src]
    B = np.ones((K, W))
    if b is not None:
        B[rpos, pos] = b[src]
    psi, pa = leave_one_out_integrals(A, B, backend=backend)
    with np.errstate(under="ignore"):
        pb = np.prod(B, axis=1)
    v_full += pa @ wts
    v_empty += pb @ wts
    cols = columns[src]
    vals = psi[rpos, pos]
    for q in range(wts.shape[1]):
        phi[:, q] += np.bincount(cols, weights=vals * wts[rpos, q], minlength=phi.shape[0])


#: the near-base route computes its products as exponentials of sums of logs and divides by
#: factors; it is used only where those stay far inside float64's range
_LOG_FLOOR = -600.0
_LOG_RATIO_BOUND = 100.0


@compiled_or_none
def _near_base_kernel() -> Any:
    """The compiled near-base loop, or None without numba (the numpy version gives the same numbers)."""
    from ._sparse_numba import near_base_rows

    return near_base_rows


def solve_rows_near_base(
    a0: ArrayLike,
    b0: ArrayLike,
    rows: ArrayLike,
    positions: ArrayLike,
    a: ArrayLike,
    b: ArrayLike,
    weights: ArrayLike,
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Shapley values of a product game whose rows differ from one base row in a few positions.

    Row i has the present factors ``a0`` and absent factors ``b0`` (k players) except at the
    entries e with ``rows[e] = i``, where position ``positions[e]`` has ``a[e]`` and ``b[e]``.
    With g_j(t) = b_j + t (a_j - b_j), G0(t) = prod_j g0_j(t) and R_i(t) = prod_{e of i} g_e(t) /
    g0_{pos(e)}(t), the leave-one-out integral of row i and player j is the base row's
    Q0_j(t) = G0(t) / g0_j(t) times R_i(t) (divided by the entry's ratio where j is one of row i's
    positions).  So the sum over rows is one pass over the base row's k players with
    rho(t) = sum_i weights_i R_i(t), plus a correction per entry: O((k + entries) * nodes) instead
    of O(rows * k * nodes).  This is what makes the interventional game of sparse rows cheap: every
    support point shares the players {j : x_j != z_j} and differs from the base (its factors
    with X_ij = 0) only in its own non-zeros among them.

    Returns None (the caller then solves the rows densely) when some factor is not positive or
    the products come near float64's limits.

    Parameters
    ----------
    a0, b0 : array-like of shape (k,)
        The base row's present and absent factors.
    rows : array-like of int, shape (n_entries,)
        The row of each entry.
    positions : array-like of int, shape (n_entries,)
        The player (in [0, k)) of each entry; at most one entry per (row, player).
    a, b : array-like of shape (n_entries,)
        The entries' present and absent factors.
    weights : array-like of shape (n_rows, n_outputs)
        Row weights.

    Returns
    -------
    tuple of (phi (k, n_outputs), v_full (n_outputs,), v_empty (n_outputs,)), or None

    Examples
    --------
    Three rows on two players; row 1 differs from the base in player 0, row 2 in both.

    >>> import numpy as np
    >>> from kexplain.shapley.sparse import solve_rows_near_base, solve_sparse_rows
    >>> a0, b0, W = np.array([0.9, 0.5]), np.array([0.7, 0.8]), np.array([[1.0], [2.0], [-1.0]])
    >>> rows, pos, a, b = [1, 2, 2], [0, 0, 1], [0.3, 0.6, 0.2], [0.4, 0.9, 0.1]
    >>> phi, v_full, v_empty = solve_rows_near_base(a0, b0, rows, pos, a, b, W)
    >>> A, B = np.tile(a0, (3, 1)), np.tile(b0, (3, 1))
    >>> A[rows, pos], B[rows, pos] = a, b
    >>> dense = solve_sparse_rows(np.arange(0, 7, 2), np.tile([0, 1], 3), A.ravel(), B.ravel(), W, 2)
    >>> bool(np.allclose(phi, dense[0]) and np.allclose(v_full, dense[1]) and np.allclose(v_empty, dense[2]))
    True
    """
    a0, b0 = np.asarray(a0, dtype=np.float64), np.asarray(b0, dtype=np.float64)
    rows, pos = np.asarray(rows, dtype=np.int64), np.asarray(positions, dtype=np.int64)
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    W = np.asarray(weights, dtype=np.float64)
    k, n, o = a0.shape[0], W.shape[0], W.shape[1]
    if k == 0:
        return np.zeros((0, o)), W.sum(axis=0), W.sum(axis=0)
    factors_ok = all(bool(np.all(v > 0) and np.all(np.isfinite(v))) for v in (a0, b0, a, b))
    if not factors_ok:
        return None
    t, wq = gauss_legendre_01(nodes_for_degree(k - 1))
    m = t.shape[0]
    T = np.concatenate([t, [0.0, 1.0]])  # the nodes, then t = 0 (v_empty) and t = 1 (v_full)
    g0 = b0[None, :] + T[:, None] * (a0 - b0)[None, :]  # (m + 2, k), positive
    g0[m], g0[m + 1] = b0, a0  # exactly (b + 1 * (a - b) need not round to a)
    lg0 = np.log(g0)
    lG0 = lg0.sum(axis=1)
    if lG0.min() < _LOG_FLOOR:
        return None
    order = np.argsort(rows, kind="stable")
    rows, pos, a, b = rows[order], pos[order], a[order], b[order]
    kernel = _near_base_kernel()
    if kernel is not None:
        G0 = np.exp(lG0)
        Q0w = np.exp(lG0[:m, None] - lg0[:m]) * wq[:, None]
        ptr = np.searchsorted(rows, np.arange(n + 1))
        phi = np.zeros((k, o))
        rho = np.zeros((m + 2, o))
        if not kernel(T, wq, g0, Q0w, G0[:m] * wq, ptr, pos, a, b, np.ascontiguousarray(W), phi, rho):
            return None
        phi += (Q0w.T @ rho[:m]) * (a0 - b0)[:, None]
        return phi, rho[m + 1] * G0[m + 1], rho[m] * G0[m]
    if 8 * rows.size > n * k:  # without numba, the dense rows are cheaper unless entries are few
        return None
    ge = b[:, None] + T[None, :] * (a - b)[:, None]  # (entries, m + 2)
    ge[:, m], ge[:, m + 1] = b, a
    lr = np.log(ge) - lg0[:, pos].T
    logR = np.zeros((n, m + 2))
    if rows.size:
        starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
        logR[rows[starts]] = np.add.reduceat(lr, starts, axis=0)
    if np.abs(logR).max(initial=0.0) > _LOG_RATIO_BOUND:
        return None
    R = np.exp(logR)
    rho = R.T @ W  # (m + 2, o): sum_i W_i R_i(t)
    G0 = np.exp(lG0)
    v_empty, v_full = rho[m] * G0[m], rho[m + 1] * G0[m + 1]
    Q0w = np.exp(lG0[:m, None] - lg0[:m]) * wq[:, None]  # (m, k): w_l Q0_j(t_l)
    phi = (Q0w.T @ rho[:m]) * (a0 - b0)[:, None]
    if rows.size:
        Rn = R[rows, :m]  # (entries, m)
        own = ((G0[:m] * wq)[None, :] * Rn / ge[:, :m]).sum(axis=1) * (a - b)
        base = (Q0w[:, pos].T * Rn).sum(axis=1) * (a0 - b0)[pos]
        corr = (own - base)[:, None] * W[rows]
        for q in range(o):
            phi[:, q] += np.bincount(pos, weights=corr[:, q], minlength=k)
    return phi, v_full, v_empty

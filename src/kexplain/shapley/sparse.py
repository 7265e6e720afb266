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

from .product import DEFAULT_BLOCK_BYTES, leave_one_out_integrals

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

"""Exact covariance of the Shapley values of a Gaussian process: stochastic Shapley values.

The Shapley value is linear in the explained function f.  When f is a Gaussian process with
posterior mean m and covariance k_post(x, x'), the values of every point and feature are jointly
Gaussian, with mean phi[m] and covariance

    Cov(phi_j(x), phi_l(x')) = (phi_j^x (x) phi_l^x')[k_post],

the Shapley operator of the first argument's game applied to j and that of the second applied
to l (Chau, Muandet & Sejdinovic, 2023, section 3, who estimate it; here it is exact).  For the
interventional game over weighted background rows z_b, v_x(S) = sum_b w_b f(x_S, z_b,not S), and
a posterior k_post(x, x') = k(x, x') - k(x, X) A k(X, x') on a product kernel k it splits into

- a **data term** Phi(x)^T A Phi(x'), where row i of Phi(x) (n x d) holds the Shapley values of
  the game of the function k(., X_i), one product game per training point
  (:func:`row_shapley_values`);
- a **prior term**: the double Shapley sum over two coalitions S (of x) and T (of x') of
  sum_{b, b'} w_b w_b' k(x_S z_b,not S, x'_T z_b',not T).  Write each Shapley weight as a Beta
  integral, |S|! (d - |S| - 1)! / d! = int_0^1 t^|S| (1 - t)^(d - 1 - |S|) dt, in both
  coalitions.  For a product kernel the sums over S and T then factorise per feature k with the
  four tables g11 = kappa_k(x_k, x'_k), g10 = kappa_k(x_k, z_b'k), g01 = kappa_k(z_bk, x'_k),
  g00 = kappa_k(z_bk, z_b'k), into

      h_k(t, u) = t u g11 + t (1 - u) g10 + (1 - t) u g01 + (1 - t)(1 - u) g00,

  and, for j != l,

      C_jl = int int  Dx_j(u) Dy_l(t) prod_{k != j, l} h_k(t, u) dt du,
      Dx_j(u) = u (g11 - g01) + (1 - u)(g10 - g00),   Dy_l(t) = t (g11 - g10) + (1 - t)(g01 - g00),

  and on the diagonal C_jj = int int (g11 - g10 - g01 + g00)_j prod_{k != j} h_k(t, u) dt du.
  Both integrands are polynomials of degree d - 1 in t and in u, so a ceil(d/2) x ceil(d/2)
  Gauss-Legendre grid is exact (:func:`product_covariance`).

The baseline-Shapley game is the case of one background row.  Cost per pair of points: about
2 B^2 ceil(d/2)^2 d^2 ~ B^2 d^4 / 2 operations for B background rows, in blocks of background
pairs whose memory is bounded; the 4^d coalition pairs are never formed.  For a point with itself
the background pairs (b, b') and (b', b) give transposed terms (t and u swapped), so half of them
suffice (``symmetric=True``): B^2 d^4 / 4.

Every name is imported from here.  This module holds the two public functions, the loop over
blocks of background pairs and the choice, per block, between the compiled pass
(``_stochastic_numba``) and the numpy one; ``_stochastic_numpy`` holds the numpy pass and the
log-space finish of the entries near under- or overflow.

These functions know nothing of models: they take per-feature tables and return arrays.  The
explainer (``kx.ProductKernelExplainer(...).explain(X, uncertainty=True)``) builds the tables from
a Gaussian-process posterior and adds the terms.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from threadpoolctl import ThreadpoolController

from .._optional import compiled_or_none
from ._stochastic_numpy import (  # noqa: F401  (the thresholds and _safe_entries: names before the split)
    _HUGE,
    _SMALL,
    _TINY,
    _finish_in_log_space,
    _prior_block_numpy,
    _safe_entries,
)
from .product import DEFAULT_BLOCK_BYTES, _resolve_backend
from .product import _weighted_loo_integrals as _loo_integrals
from .quadrature import gauss_legendre_01, nodes_for_degree

#: arrays of shape (background pairs, nodes, nodes, d) alive at once in a block, with margin
_PRIOR_ARRAYS = 8

_CONTROLLER: list[ThreadpoolController] = []

#: bytes of the X and Y rows of one chunk of the compiled path: within a core's share of the L2 cache
_CHUNK_BYTES = 512 * 2**10


def _one_blas_thread() -> Any:
    """A context limiting BLAS to one thread (the controller, which scans the loaded libraries, is built once)."""
    if not _CONTROLLER:
        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0].limit(limits=1, user_api="blas")


def _as_float(x: Any, name: str, ndim: int) -> np.ndarray:
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D array, got shape {arr.shape}.")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values.")
    return arr


@compiled_or_none
def _prior_kernel() -> Any:
    """The compiled pass of ``_stochastic_numba`` (cached), or None where numba is missing or unusable."""
    from ._stochastic_numba import prior_factors

    return prior_factors


def _prior_block(
    out: np.ndarray,
    diag: np.ndarray,
    g11: np.ndarray,
    G10: np.ndarray,
    G01: np.ndarray,
    G00: np.ndarray,
    cq: np.ndarray,
    t: np.ndarray,
    wt: np.ndarray,
) -> None:
    """Add the terms of q background pairs (b, b') to out (d, d) and diag (d,).

    g11 (d,); per pair G10 = kappa(x, z'_b') (q, d), G01 = kappa(z_b, x') (q, d), G00 =
    kappa(z_b, z'_b') (q, d) and the weight cq (q,).  The grid axes are (alpha: t, beta: u).
    With numba the elementwise work is one compiled pass (``_stochastic_numba``) and the sum over
    the entries one matrix product; without it, numpy (``_prior_block_numpy``).
    """
    kernel = _prior_kernel()
    if kernel is None:
        _prior_block_numpy(out, diag, g11, G10, G01, G00, cq, t, wt)
        return
    d, q, m = g11.shape[0], cq.shape[0], t.shape[0]
    G10, G01, G00 = (np.ascontiguousarray(G) for G in (G10, G01, G00))
    # chunks of entries whose X and Y stay in the core's cache between the pass and the product:
    # several pairs, or one pair's nodes of t in parts (1.8x at d = 50 against 16 pairs at once)
    rows = max(1, _CHUNK_BYTES // (16 * d * m))  # (node of t) rows of m entries each
    pairs, na = (min(q, max(1, rows // m)), m) if rows >= m else (1, rows)
    X = np.empty((d, pairs * na * m))  # transposed: the compiled pass writes along the entries
    Y = np.empty_like(X)
    bad = np.empty(X.shape[1], dtype=np.bool_)
    for q0 in range(0, q, pairs):
        qs = slice(q0, min(q, q0 + pairs))
        for a0 in range(0, m, na):
            a1 = min(m, a0 + na)
            E = (qs.stop - qs.start) * (a1 - a0) * m
            kernel(g11, G10[qs], G01[qs], G00[qs], cq[qs], t, wt, a0, a1, X, Y, diag, bad)
            out += X[:, :E] @ Y[:, :E].T
            be = bad[:E]
            if be.any():
                _finish_in_log_space(
                    out, diag, g11, G10[qs], G01[qs], G00[qs], cq[qs], t, wt, a0, a1, np.nonzero(be)[0]
                )


def product_covariance(
    g11: Any,
    g10: Any,
    g01: Any,
    g00: Any,
    weights: Any,
    weights_prime: Any = None,
    *,
    n_nodes: int | None = None,
    max_block_bytes: int = DEFAULT_BLOCK_BYTES,
    symmetric: bool = False,
) -> np.ndarray:
    """The prior term of the covariance of two points' Shapley values, for a product kernel.

    For each of P pairs of points (x, x') it returns the d x d matrix

        C_jl = sum_{b, b'} w_b w'_b' sum_{S not j} sum_{T not l} omega(S) omega(T)
               Delta_j^S Delta_l^T prod_k kappa_k(. , .)

    of the double Shapley sum of the two-argument product kernel over the interventional games of
    x (coalition S, absent features from z_b) and of x' (coalition T, absent features from z'_b'),
    exactly, through a ceil(d/2) x ceil(d/2) Gauss-Legendre grid (module docstring).  Multiply by
    the kernel's amplitude; sum over the terms of a sum kernel.

    Parameters
    ----------
    g11 : array-like of shape (P, d)
        kappa_k(x_k, x'_k) for each pair.
    g10 : array-like of shape (P, B', d)
        kappa_k(x_k, z'_b'k): x's feature present, x''s absent.
    g01 : array-like of shape (P, B, d)
        kappa_k(z_bk, x'_k).
    g00 : array-like of shape (B, B', d), or a callable
        kappa_k(z_bk, z'_b'k): the same for every pair (compute it once per background).  A
        callable ``g00(rows, cols)`` (two slices) gives one block at a time instead, so a large
        background never needs the whole (B, B', d) table in memory.
    weights : array-like of shape (B,)
        Weights of the background rows of x's game (summing to one for the interventional game).
    weights_prime : array-like of shape (B',), optional
        Weights of the background of x''s game; default ``weights``.
    n_nodes : int, optional
        Gauss-Legendre nodes per axis; default ceil(d/2), the fewest that are exact.
    max_block_bytes : int
        Bound on the work arrays of one block of background pairs.
    symmetric : bool
        Every pair is a point with itself on one background (g01 equals g10, g00 is symmetric in
        its two background axes, one set of weights): the term of the
        background pair (b', b) is the transpose of that of (b, b') with t and u swapped, so only
        the pairs b <= b' are computed (half the work) and the result is symmetrised.

    Returns
    -------
    ndarray of shape (P, d, d)
        C[p, j, l]: row j belongs to the first point of pair p, column l to the second.

    Examples
    --------
    One feature, one background row: Cov = g11 - g10 - g01 + g00 (the second difference).

    >>> import numpy as np
    >>> from kexplain.shapley.stochastic import product_covariance
    >>> C = product_covariance([[1.0]], [[[0.5]]], [[[0.5]]], [[[1.0]]], [1.0])
    >>> C
    array([[[1.]]])
    """
    G11 = _as_float(g11, "g11", 2)
    P, d = G11.shape
    G10 = _as_float(g10, "g10", 3)
    G01 = _as_float(g01, "g01", 3)
    w = _as_float(weights, "weights", 1)
    w2 = w if weights_prime is None else _as_float(weights_prime, "weights_prime", 1)
    B1, B2 = w.shape[0], w2.shape[0]
    if callable(g00):
        g00_block = g00
    else:
        G00 = _as_float(g00, "g00", 3)
        if G00.shape != (B1, B2, d):
            raise ValueError(f"g00 must have shape {(B1, B2, d)}, got {G00.shape}.")

        def g00_block(rs: slice, cs: slice) -> np.ndarray:
            return G00[rs, cs]

    if G10.shape != (P, B2, d) or G01.shape != (P, B1, d):
        raise ValueError(
            f"table shapes disagree: g11 {G11.shape}, g10 {G10.shape} (expected {(P, B2, d)}), g01 {G01.shape} "
            f"(expected {(P, B1, d)})."
        )
    if symmetric and not (B1 == B2 and np.array_equal(w, w2) and np.array_equal(G10, G01)):
        raise ValueError(
            "symmetric=True needs g01 equal to g10 and one set of weights (each pair is a point with itself)."
        )
    m = nodes_for_degree(d - 1) if n_nodes is None else int(n_nodes)
    t, wt = gauss_legendre_01(m)
    per_pair = _PRIOR_ARRAYS * 8 * m * m * d
    n_pairs = max(1, int(max_block_bytes) // per_pair)
    if symmetric:  # square blocks: those below the diagonal are skipped
        rows = cols = min(B1, max(1, int(np.sqrt(n_pairs))))
    else:
        cols = min(B2, n_pairs)
        rows = min(B1, max(1, n_pairs // cols))
    cw = w[:, None] * w2[None, :]
    acc = np.zeros((P, d, d))
    diag = np.zeros((P, d))
    with _one_blas_thread():  # small (d x E) @ (E x d) products: BLAS threads only contend
        _accumulate(acc, diag, G11, G10, G01, g00_block, cw, t, wt, (B1, B2, rows, cols), symmetric)
    idx = np.arange(d)
    acc[:, idx, idx] = diag
    if symmetric:
        acc = 0.5 * (acc + acc.transpose(0, 2, 1))
    return acc


def _accumulate(
    acc: np.ndarray,
    diag: np.ndarray,
    G11: np.ndarray,
    G10: np.ndarray,
    G01: np.ndarray,
    g00_block: Any,
    cw: np.ndarray,
    t: np.ndarray,
    wt: np.ndarray,
    sizes: tuple[int, int, int, int],
    symmetric: bool,
) -> None:
    """The loop over blocks of background pairs and over pairs of points.

    With ``symmetric`` only the pairs b <= b' are summed, b < b' with twice their weight: the
    caller's symmetrisation (C + C^T) / 2 then gives the full sum (module docstring).
    """
    B1, B2, rows, cols = sizes
    P = G11.shape[0]
    for r0 in range(0, B1, rows):
        rs = slice(r0, min(B1, r0 + rows))
        for c0 in range(0, B2, cols):
            cs = slice(c0, min(B2, c0 + cols))
            if symmetric and cs.stop <= rs.start:
                continue  # entirely below the diagonal
            block = _as_float(g00_block(rs, cs), "g00 block", 3)
            grid_i, grid_j = np.meshgrid(np.arange(rs.start, rs.stop), np.arange(cs.start, cs.stop), indexing="ij")
            bi, bj = grid_i.reshape(-1), grid_j.reshape(-1)
            cq = cw[bi, bj]
            if symmetric:
                keep = bi <= bj
                bi, bj, cq = bi[keep], bj[keep], cq[keep] * np.where(bi[keep] < bj[keep], 2.0, 1.0)
            G00 = block[bi - rs.start, bj - cs.start]  # (q, d)
            for p in range(P):
                _prior_block(acc[p], diag[p], G11[p], G10[p, bj], G01[p, bi], G00, cq, t, wt)


def row_shapley_values(
    a: Any,
    b: Any,
    weights: Any,
    *,
    max_block_bytes: int = DEFAULT_BLOCK_BYTES,
) -> np.ndarray:
    """Shapley values of the game of each row of a product expansion, averaged over a background.

    For point p and row i the game is v(S) = sum_b w_b prod_{j in S} a_pij prod_{j not in S} b_ibj
    (the interventional game of the function x -> prod_j a_ij(x_j), e.g. k(x, X_i)); its values
    phi_pij are returned without summing over i: the rows Phi(x) of the data term of
    :func:`product_covariance`'s module.

    Parameters
    ----------
    a : array-like of shape (p, n, d)
        Present factors.
    b : array-like of shape (n, B, d)
        Absent factors of each row against each background row.
    weights : array-like of shape (B,)
        Weight of each background row.
    max_block_bytes : int
        Bound on the work arrays of one block.

    Returns
    -------
    ndarray of shape (p, n, d)
        The Shapley values of every (point, row) game.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley.stochastic import row_shapley_values
    >>> phi = row_shapley_values(np.array([[[2.0, 3.0]]]), np.ones((1, 1, 2)), [1.0])
    >>> phi[0, 0]                      # v(S) = prod_{j in S} a_j: (2 - 1)(1 + 3)/2, (3 - 1)(1 + 2)/2
    array([2., 3.])
    """
    A = _as_float(a, "a", 3)
    Bf = _as_float(b, "b", 3)
    w = _as_float(weights, "weights", 1)
    p, n, d = A.shape
    nb = w.shape[0]
    if Bf.shape != (n, nb, d):
        raise ValueError(f"b must have shape {(n, nb, d)}, got {Bf.shape}.")
    kernel = _resolve_backend("auto")
    t, wt = gauss_legendre_01(nodes_for_degree(d - 1))
    out = np.empty((p, n, d))
    per_row = 8 * 6 * nb * d
    rows = max(1, min(n, int(max_block_bytes) // per_row))
    for i0 in range(0, n, rows):
        rs = slice(i0, min(n, i0 + rows))
        r = rs.stop - rs.start
        b2 = np.ascontiguousarray(Bf[rs]).reshape(r * nb, d)
        for q in range(p):
            a2 = np.ascontiguousarray(np.broadcast_to(A[q, rs, None, :], (r, nb, d))).reshape(r * nb, d)
            psi, _ = _loo_integrals(a2, b2, t, wt, kernel)  # (r * nb, d)
            out[q, rs] = np.einsum("rbd,b->rd", psi.reshape(r, nb, d), w)
    return out

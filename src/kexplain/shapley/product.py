"""Exact Shapley values and pairwise interaction indices of product games.

A product game over d players, for one explained point, is

    v(S) = sum_r c_r * prod_{j in S} a_rj * prod_{j not in S} b_rj.

Writing g_rj(t) = (1 - t) b_rj + t a_rj, the Shapley value is (the recursion of Mohammadi, Chau &
Muandet, 2025, section 3.2, written as an integral: the Shapley weight s! (d-s-1)! / d! is the Beta
integral of t^s (1-t)^(d-1-s) over [0, 1])

    phi_j = sum_r c_r (a_rj - b_rj) * int_0^1 prod_{k != j} g_rk(t) dt,

and the pairwise Shapley interaction index (SII; Grabisch & Roubens, 1999), whose weight
s! (d-s-2)! / (d-1)! is the Beta integral of t^s (1-t)^(d-2-s), is

    I_jk = sum_r c_r (a_rj - b_rj)(a_rk - b_rk) * int_0^1 prod_{l != j, k} g_rl(t) dt.

The Shapley-Taylor index of order 2 (STII; Sundararajan, Dhamdhere & Agarwal, 2020, section 3),
I_jk = (2/d) sum_{S not containing j, k} Delta_jk(S) / C(d-1, |S|), has the weight
2 s! (d-1-s)! / d! = int_0^1 2 (1-t) t^s (1-t)^(d-2-s) dt: the same integral with the extra
weight 2 (1 - t),

    I_jk = sum_r c_r (a_rj - b_rj)(a_rk - b_rk) * int_0^1 2 (1 - t) prod_{l != j, k} g_rl(t) dt.

Every integrand is a polynomial of degree <= d - 1, so ceil(d/2) Gauss-Legendre nodes are exact.
For the Shapley values of positive factors that are close to each other (RBF kernels of usual
widths: a / b = exp(small)) the integrands are smooth and far fewer nodes give the same values to
rounding: by default (``nodes="certified"``) each explained point takes the fewest nodes for which
a bound (``quadrature.certified_nodes``, from the largest spread sum_k |a_k - b_k| / max(a_k, b_k)
of its pairs) certifies every integral to 2^-53 relative (per point, so a point's values do not
depend on the other points of its block; the array-API path takes one count per block), and
ceil(d/2) (the exact rule, bit for bit) when a factor is zero or negative, the spread is too large
or a product needs the log-space path below; ``nodes="exact"`` always takes ceil(d/2).
Interaction indices always use their exact rules.

This module holds the single engine every explainer uses.  ``product_game_block`` is the dense
kernel for one block of (points, rows); ``solve_product_game`` drives it over a game object in
memory-bounded chunks and accumulates.

How the leave-one-out integrals are computed (the cost is O(pairs * nodes * d)):

- backend "numba" (when numba is installed): one fused compiled pass per (point, row) pair, with
  prefix/suffix products (no division) when every |a|, |b| <= 1, see ``_product_numba``;
- backend "numpy": the full product divided by the left-out factor, over cache-sized sub-blocks of
  pairs, contracting the node axis with a batched matrix product.

The functional game of one RBF or Laplacian kernel (the default game of most fitted SVMs and GPs)
skips the factor arrays: a game giving ``stationary_block`` hands the engine its points, support
points and lengthscales, and the compiled kernel computes each point's factors into the layout its
node passes read, finds the point's certified count from them while they are in cache, and runs
the same passes (``_stationary_pairs_block``; the same numbers as the factor blocks' path where
both take the same node count).

Both leave out the (pair, node) entries whose products come near under- or overflow (products of
hundreds of small kernel values, exact zeros) and finish those in log space with a count of exact
zeros, so the result is the same to rounding whichever backend and block size is used.

Games whose absent-set values can be tabulated once (the interventional game with few features
and many background rows) have a cheaper exact route in ``kexplain.shapley.subsets``; the caller
(the explainer's cost model) picks the route, this solver only uses what ``ProductGame`` declares.

Where the parts live (every name is still importable from here): the leave-one-out pass and the
backend choice in ``_product_loo``, the certified node counts in ``_product_nodes``, the log-space
path in ``_product_logspace``, one dense block (``product_game_block``, the rows form, the
interaction indices) in ``_product_block``, the fused functional route in ``_product_functional``
and the fused interventional route in ``_product_interventional``.
"""

from __future__ import annotations

from contextlib import nullcontext  # noqa: F401  (names of the module before the split)
from typing import Any, Protocol

import numpy as np

from .._optional import compiled_or_none  # noqa: F401
from .._validation import check_interactions
from ._heap import reuse_heap

# the engine's parts: every name the module defined before the split is still importable from here;
# the solver below calls them directly (no lookup through this module in the per-block loop)
from ._product_block import (  # noqa: F401
    NODE_RULES,
    _check_nodes,
    _interactions_block,
    _pairs_block,
    efficiency_error,
    product_game_block,
)
from ._product_functional import (  # noqa: F401
    CERTIFY_FUSED_FROM_NODES,
    _rows_in_lanes,
    _rule_table,
    _stationary_kernel,
    _stationary_pairs_block,
)
from ._product_interventional import _fused_kernel, _fused_kernel_laid, _fused_pairs_block, _solve_one_block  # noqa: F401
from ._product_logspace import (  # noqa: F401
    _HUGE,
    _TINY,
    _WORK_BYTES,
    _loo2_products_safe,
    _loo_products_safe,
    _safe_kernel,
    _weighted_loo_integrals_safe,
    _weighted_loo_integrals_safe_numpy,
)
from ._product_loo import (  # noqa: F401
    BACKENDS,
    _certified_loo_integrals,
    _check_finite,
    _numba_kernel,
    _resolve_backend,
    _weighted_loo_integrals,
    _weighted_loo_integrals_numpy,
    compiled_available,
    leave_one_out_integrals,
)
from ._product_nodes import CERTIFY_FROM_NODES, _block_nodes, _point_counts_numpy, _point_nodes, _spread_pass  # noqa: F401
from ._product_xp import _product_game_block_xp  # noqa: F401
from .array_api import array_namespace, is_foreign_array, resolve_dtype, to_numpy  # noqa: F401
from .interactions import interaction_layout, interaction_rule  # noqa: F401
from .quadrature import gauss_legendre_01, node_limits, nodes_for_degree, spread_limit  # noqa: F401
from .result import ShapleyValues

#: default bound, in bytes, on the arrays of one block of (points x rows) (about 6 arrays of
#: shape (points, rows, d)); the solver's peak memory is this plus the results plus a few MB.
DEFAULT_BLOCK_BYTES = 32 * 2**20


#: arrays of shape (points, rows, d) alive at once in a block, with margin: the game's a and b (and
#: the kernel's temporaries while it builds them), a contiguous copy of a or b, and the integrals
_BLOCK_ARRAYS = 6


class ProductGame(Protocol):
    """What ``solve_product_game`` needs from a game.

    A game has ``n_points`` explained points, ``n_rows`` rows, ``n_features`` players and
    ``n_outputs`` outputs, and produces dense blocks on demand so memory stays bounded.  It may
    set ``row_alignment`` (an int, 1 when absent): row blocks then start at multiples of it
    where possible.  A game may also give ``pair_block(points, rows)``, returning
    ``(a, ia, b, c, pb)`` or None: the same block as rows of factors without copies, pair k =
    (point k // r, row k % r) having present factors ``a[ia[k]]`` and absent factors ``b[k % len(b)]``
    (b the same for every point and already checked finite: it depends on the game's rows only, so
    the game checks it once; c checked finite too), ``pb`` the products of b's rows (r,) or None;
    the solver uses it for numpy float64 Shapley values and ``block`` otherwise.  With it a game
    may give ``pair_empty(points, rows)``: v(no feature) of those rows (o,), the same for every
    point (``pb @ c``, kept by the game), or None.  Nothing else of the game is used.

    Parameters
    ----------
    *args, **kwargs
        Not used: a protocol is not instantiated; any class with these attributes and ``block``
        is a ProductGame.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley import solve_product_game
    >>> class Unanimity:                      # v(S) = prod_{j in S} a_j, one row, b = 0
    ...     n_points, n_rows, n_features, n_outputs = 1, 1, 3, 1
    ...     def block(self, points, rows):
    ...         return np.ones((1, 1, 3)), 0.0, np.ones((1, 1))
    >>> solve_product_game(Unanimity()).values[0, :, 0].round(3)
    array([0.333, 0.333, 0.333])
    """

    n_points: int
    n_rows: int
    n_features: int
    n_outputs: int

    def block(self, points: slice, rows: slice) -> tuple[np.ndarray, np.ndarray | float, np.ndarray]:
        """Return (a, b, c) for these points and rows: a (p, r, d), b broadcastable, c (r, o).

        Parameters
        ----------
        points : slice
            The block of explained points.
        rows : slice
            The block of rows of the game.
        """
        ...


def block_shape(n_points: int, n_rows: int, d: int, max_bytes: int, *, row_alignment: int = 1) -> tuple[int, int]:
    """(points, rows) per block so that the solver's arrays of shape (points, rows, d) fit in ``max_bytes``.

    Rows first (long row blocks amortise the per-block work), then points; row blocks are a
    multiple of ``row_alignment`` when they can hold one.

    Examples
    --------
    >>> from kexplain.shapley.product import block_shape
    >>> block_shape(1000, 500, 10, 2**20)
    (4, 500)
    """
    pairs = max(1, int(max_bytes) // (8 * _BLOCK_ARRAYS * max(1, d)))
    rows = int(min(n_rows, pairs))
    if row_alignment > 1 and row_alignment <= rows < n_rows:
        rows -= rows % row_alignment
    points = int(min(n_points, max(1, pairs // rows)))
    return points, rows


def solve_product_game(
    game: ProductGame,
    *,
    interactions: bool | str | None = False,
    max_block_bytes: int = DEFAULT_BLOCK_BYTES,
    progress: bool = False,
    backend: str = "auto",
    dtype: str | None = None,
    nodes: str = "certified",
) -> ShapleyValues:
    """Exact Shapley values of a product game, in memory-bounded blocks of points and rows.

    Memory: one block holds about ``max_block_bytes`` (see ``block_shape``), the numpy backend
    adds a few MB of work arrays, and the results take 8 * n_points * d * outputs bytes (times d
    more with interactions).  ``backend``, ``dtype`` and ``nodes`` as in ``product_game_block``
    (with ``nodes="certified"`` each point gets its own certified count in each block of rows).

    The game's blocks may be arrays of any array API namespace (a torch tensor on a GPU, say):
    the work runs there and the results come back in that namespace and on that device, summed
    over row blocks in float64 (then cast to ``dtype``).

    Parameters
    ----------
    game : ProductGame
        Gives dense blocks (a, b, c) of points and rows.
    interactions : bool or {"sii", "stii"}
        Also compute pairwise interaction values: True or "sii" the Shapley interaction index,
        "stii" the Shapley-Taylor index of order 2 (module docstring).
    max_block_bytes : int
        Bound on the arrays of one block.
    progress : bool
        Show a progress bar over points (tqdm).
    backend : {"auto", "numba", "numpy"}
    dtype : {None, "float64", "float32"}
        Precision of the work; None means float64.
    nodes : {"certified", "exact"}
        The Shapley values' node count per point: certified by a bound (default) or ceil(d / 2).

    Returns
    -------
    ShapleyValues
        ``values`` (n_points, d, o), ``v_full`` and ``v_empty`` (n_points, o), and when asked
        ``interactions`` (n_points, d, d, o) in shap's layout (:func:`interaction_layout`: I_jk / 2
        off the diagonal, each row summing to phi_j) with ``interaction_index`` "sii" or "stii",
        as arrays of the game's namespace.

    Examples
    --------
    See :class:`ProductGame` for a game; here the functional baseline of a kernel expansion.

    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.explainers.product_games import FunctionalGame
    >>> em = kx.KernelExpansion(np.zeros((2, 3)), [1.0, -0.5], kx.kernels.RBF(1.0))
    >>> res = kx.shapley.solve_product_game(FunctionalGame(em, np.ones((1, 3))))
    >>> np.round(res.values[0, :, 0], 4), np.round(res.v_full[0, 0] - res.v_empty[0, 0], 4)
    (array([-0.1295, -0.1295, -0.1295]), np.float64(-0.3884))
    """
    if (interactions is False or interactions is None) and dtype is None and nodes == "certified" and not progress:
        one = _solve_one_block(game, _resolve_backend(backend), max_block_bytes, block_shape)
        if one is not None:  # one block of the fused interventional route (a one-point call)
            return one
    kernel = _resolve_backend(backend)
    resolve_dtype(np, dtype)
    _check_nodes(nodes)
    index = check_interactions(interactions)
    interactions = index is not None
    # the rows form of a block (numpy float64 Shapley values; None when blocks are in another namespace)
    pair_block = getattr(game, "pair_block", None) if index is None and dtype in (None, "float64") else None
    pair_empty = getattr(game, "pair_empty", None)
    pair_layout = getattr(game, "pair_layout", None)
    n, R, d, o = game.n_points, game.n_rows, game.n_features, game.n_outputs
    n_nodes = None if nodes == "certified" else nodes_for_degree(d - 1)  # None: per point
    # the functional game of one RBF or Laplacian kernel: factors made in ``_stationary_pairs_block``
    stationary_block = (
        getattr(game, "stationary_block", None)
        if index is None and dtype in (None, "float64") and kernel is not None and _stationary_kernel() is not None
        else None
    )
    rows_in_lanes: dict[tuple[int, int], np.ndarray] = {}  # the support points' layout, per block of rows
    p_chunk, r_chunk = block_shape(n, R, d, max_block_bytes, row_alignment=int(getattr(game, "row_alignment", 1)))
    if n > p_chunk or R > r_chunk:  # several blocks: their freed arrays kept on the heap (no page faults)
        reuse_heap()
    values = np.zeros((n, d, o))
    v_full = np.zeros((n, o))
    v_empty = np.zeros((n, o))
    inter = np.zeros((n, d, d, o)) if interactions else None
    xp: Any = None  # the namespace of the game's blocks, when not numpy float64
    parts: list[list[Any]] = []
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=n, desc="kexplain", unit="pt")
    for p0 in range(0, n, p_chunk):
        ps = slice(p0, min(n, p0 + p_chunk))
        acc: list[Any] | None = None
        for r0 in range(0, R, r_chunk):
            rs = slice(r0, min(R, r0 + r_chunk))
            fused = None if stationary_block is None else stationary_block(ps, rs)
            if fused is not None:
                Xf, Yf, ls, laplacian, cf = fused
                _check_finite(cf, "c")
                if (rs.start, rs.stop) not in rows_in_lanes:
                    rows_in_lanes[rs.start, rs.stop] = _rows_in_lanes(Yf)
                out = _stationary_pairs_block(Xf, Yf, ls, laplacian, cf, n_nodes, rows_in_lanes[rs.start, rs.stop])
                values[ps] += out[0]
                v_full[ps] += out[1]
                v_empty[ps] += out[2]
                continue
            rows_form = None if pair_block is None else pair_block(ps, rs)
            if rows_form is not None:
                a2, ia, b2, c2, pb = rows_form
                np_ = ps.stop - ps.start
                out = None
                if kernel is not None:
                    ve = None if pair_empty is None else pair_empty(ps, rs)
                    bl = None if pair_layout is None else pair_layout(ps, rs)
                    out = _fused_pairs_block(a2, ia, b2, c2, np_, n_nodes=n_nodes, pb=pb, v_empty=ve, b_laid=bl)
                if out is None:
                    out = _pairs_block(a2, ia, b2, c2, np_, n_nodes=n_nodes, kernel=kernel, pb=pb, check_a=True)
                values[ps] += out[0]
                v_full[ps] += out[1]
                v_empty[ps] += out[2]
                continue
            a, b, c = game.block(ps, rs)
            if xp is None and (dtype not in (None, "float64") or is_foreign_array(a) or is_foreign_array(b)):
                xp = array_namespace(a, b, c)
            out = product_game_block(
                a, b, c, interactions=index or False, n_nodes=n_nodes, backend=backend, dtype=dtype, nodes=nodes
            )
            del a, b, c
            if xp is not None:
                out64 = [xp.astype(x, xp.float64) for x in out]
                acc = out64 if acc is None else [s + x for s, x in zip(acc, out64)]
                continue
            values[ps] += out[0]
            v_full[ps] += out[1]
            v_empty[ps] += out[2]
            if inter is not None:
                inter[ps] += out[3]
        if acc is not None:
            parts.append(acc)
        if bar is not None:
            bar.update(ps.stop - ps.start)
    if bar is not None:
        bar.close()
    if xp is not None and parts:
        dt = resolve_dtype(xp, dtype)
        cols = [xp.astype(xp.concat([pt[i] for pt in parts], axis=0), dt) for i in range(len(parts[0]))]
        for name, arr in (("Shapley values", cols[0]), ("game values", cols[1])):
            if not bool(xp.all(xp.isfinite(arr))):
                raise FloatingPointError(
                    f"non-finite {name} in the product game: check the model coefficients and "
                    "kernel values for NaN or overflow."
                )
        return ShapleyValues(
            values=cols[0],
            v_full=cols[1],
            v_empty=cols[2],
            interactions=interaction_layout(cols[0], cols[3]) if interactions else None,
            interaction_index=index,
        )
    for name, arr in (("Shapley values", values), ("game values", v_full)):
        if not np.isfinite(arr).all():  # the method: np.all's dispatch costs more at one point
            raise FloatingPointError(
                f"non-finite {name} in the product game: check the model coefficients and "
                "kernel values for NaN or overflow."
            )
    if inter is not None:
        inter = interaction_layout(values, inter)
    return ShapleyValues(values=values, v_full=v_full, v_empty=v_empty, interactions=inter, interaction_index=index)

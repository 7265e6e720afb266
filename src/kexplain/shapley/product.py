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
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any, Protocol

import numpy as np

from .._optional import compiled_or_none
from .._validation import check_interactions
from ._heap import reuse_heap
from ._product_xp import _product_game_block_xp
from .array_api import array_namespace, is_foreign_array, resolve_dtype, to_numpy
from .interactions import interaction_layout, interaction_rule
from .quadrature import gauss_legendre_01, node_limits, nodes_for_degree, spread_limit
from .result import ShapleyValues

# Products with a magnitude outside [_TINY, _HUGE] are recomputed in log space (which also handles
# exact zeros): far enough from the limits that one more factor or division cannot leave the range.
_TINY = np.finfo(np.float64).tiny * 1e16
_HUGE = np.finfo(np.float64).max * 1e-16

#: default bound, in bytes, on the arrays of one block of (points x rows) (about 6 arrays of
#: shape (points, rows, d)); the solver's peak memory is this plus the results plus a few MB.
DEFAULT_BLOCK_BYTES = 32 * 2**20

#: bytes of the (pairs, nodes, d) work arrays of the numpy backend: small enough to stay in cache
_WORK_BYTES = 2 * 2**20

#: arrays of shape (points, rows, d) alive at once in a block, with margin: the game's a and b (and
#: the kernel's temporaries while it builds them), a contiguous copy of a or b, and the integrals
_BLOCK_ARRAYS = 6

BACKENDS = ("auto", "numba", "numpy")

#: how the Shapley values' node count is chosen: "certified" the fewest nodes that a bound
#: certifies to 2^-53 relative per integral (``quadrature.certified_nodes``), "exact" ceil(d/2)
NODE_RULES = ("certified", "exact")


@compiled_or_none
def _numba_kernel():
    """The compiled quadrature kernel, or None (numba missing or unusable: numpy gives the same numbers)."""
    from ._product_numba import weighted_loo_integrals

    return weighted_loo_integrals


def _resolve_backend(backend):
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}.")
    if backend == "numpy":
        return None
    kernel = _numba_kernel()
    if kernel is None and backend == "numba":
        from .._optional import require

        require("numba", "backend='numba' of the product-game engine")
        raise ImportError("numba is installed but kexplain's compiled kernel failed to import.")
    return kernel


def _check_nodes(nodes):
    if not isinstance(nodes, str) or nodes not in NODE_RULES:
        raise ValueError(f"nodes must be one of {NODE_RULES}, got {nodes!r}.")


def _point_counts_numpy(a, ia, b, limits, p, r):
    """``_product_numba.point_node_counts`` in numpy (without numba): each point's certified count."""
    K = p * r
    d = a.shape[1]
    step = max(1, _WORK_BYTES // (8 * max(1, d)))
    s = np.empty(K)
    for k0 in range(0, K, step):
        k = np.arange(k0, min(K, k0 + step))
        am = a[k] if ia is None else a[ia[k]]
        bm = b[k % b.shape[0]]
        with np.errstate(divide="ignore", invalid="ignore"):
            s[k] = np.sum(np.abs(am - bm) / np.maximum(am, bm), axis=1)
        s[k[~(np.minimum(am, bm).min(axis=1) > 0.0)]] = np.inf  # a zero or negative factor: no certificate
    s_max = s.reshape(p, r).max(axis=1) if r else np.zeros(p)
    return np.searchsorted(limits, s_max, side="left") + 1  # NaN and inf sort past the end


def _block_nodes(a2, ia, b2):
    """The certified node count of a block of pairs taken as one point (``_point_nodes``)."""
    K = a2.shape[0] if ia is None else ia.shape[0]
    return int(_point_nodes(a2, ia, b2, 1, K)[0])


#: the certified count is sought only where the exact rule has at least this many nodes (d >= 31).
#: Below d = 10 no certificate beats the exact rule.  Since the kernel runs one mode at every node
#: count (its time near proportional to the nodes), the spread pass, which reads every factor again,
#: is what decides: on the RBF SVRs of bench_pkex_shapiq.py (gamma = "scale"; 9-10 nodes per point
#: at d = 20-40) certified counts were 1.19x / 1.18x / 1.08x slower per point at d = 20 / 24 / 28,
#: even at d = 32 and 1.12x faster at d = 40 (CPU time, one thread, 3 interleaved, load about 3).
#: The fused functional kernel reads the spreads from factors in cache and certifies from
#: ``CERTIFY_FUSED_FROM_NODES``
CERTIFY_FROM_NODES = 16


def _point_nodes(a2, ia, b2, p, r):
    """Each point's certified node count (``quadrature.certified_nodes``) from the largest spread
    sum_j |a - b|_j / max(a, b)_j of its own r pairs: a point's count, and so its values, do not
    depend on the other points of the block (explanations stay bit-identical however the rows are
    split into calls or blocks)."""
    d = a2.shape[1]
    exact = nodes_for_degree(d - 1)
    if p == 0 or r == 0 or exact < CERTIFY_FROM_NODES or spread_limit(d) <= 0.0:
        return np.full(p, exact, dtype=np.int64)
    limits = node_limits(d)
    pass_ = _spread_pass()
    if pass_ is None:  # numba missing or unusable: the same pass in numpy
        return _point_counts_numpy(a2, ia, b2, limits, p, r)
    counts = np.empty(p, dtype=np.int64)
    pass_(a2, np.arange(p * r) if ia is None else ia, b2, limits, r, counts)
    return counts


def _certified_loo_integrals(a2, ia, b2, p, r, kernel):
    """``_weighted_loo_integrals`` of a block with each point's certified node count: one kernel
    call per distinct count (usually one), the exact rule's count passed for the log-space redo of
    the points that need it."""
    d = a2.shape[1]
    exact = nodes_for_degree(d - 1)
    counts = _point_nodes(a2, ia, b2, p, r)
    first = int(counts[0]) if p else exact
    if p == 0 or bool(np.all(counts == first)):
        t, w = gauss_legendre_01(first)
        return _weighted_loo_integrals(a2, b2, t, w, kernel, ia, (exact, r))
    K = p * r
    psi = np.empty((K, d))
    pa = np.empty(K)
    nb = b2.shape[0]
    for m in np.unique(counts).tolist():
        pts = np.flatnonzero(counts == m)
        k = (pts[:, None] * r + np.arange(r)).ravel()
        # the kernel pairs its j-th pair with b[j % len(b)]: the same row as pair k's when nb divides r
        b_g = b2 if r % nb == 0 else np.ascontiguousarray(b2[k % nb])
        t, w = gauss_legendre_01(m)
        psi[k], pa[k] = _weighted_loo_integrals(a2, b_g, t, w, kernel, k if ia is None else ia[k], (exact, r))
    return psi, pa


@compiled_or_none
def _spread_pass():
    from ._product_numba import point_node_counts

    return point_node_counts


def _check_finite(x, name):
    # one fast pass: a sum propagates NaN and infinities; only if it is not finite (which may also be
    # an overflow of finite values) look element by element
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(np.sum(x)):
            return
    bad = np.argwhere(~np.isfinite(x))
    if bad.size:
        raise ValueError(
            f"{name} contains NaN or infinite values (first at index {tuple(int(i) for i in bad[0])}); "
            "the product-game engine accepts finite numbers only."
        )


def _loo_products_safe(g: np.ndarray) -> np.ndarray:
    """prod_{k != j} g[..., k] for every j, exact with zeros and free of under/overflow in between.

    Works in log space with a count of exact zeros: the leave-one-out product is nonzero only
    when every zero factor is the left-out one.
    """
    zero = g == 0.0
    absg = np.where(zero, 1.0, np.abs(g))
    lg = np.log(absg)
    neg = g < 0.0
    total_log = lg.sum(axis=-1, keepdims=True)
    n_zero = zero.sum(axis=-1, keepdims=True)
    n_neg = neg.sum(axis=-1, keepdims=True)
    loo_zero = n_zero - zero
    loo_neg = n_neg - neg
    sign = np.where(loo_neg % 2 == 1, -1.0, 1.0)
    with np.errstate(under="ignore", over="ignore"):
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
    with np.errstate(under="ignore", over="ignore"):
        out = np.exp(total_log - lg[..., :, None] - lg[..., None, :])
    out = np.where((n_neg - nj) % 2 == 1, -out, out)
    out[(n_zero - zj) > 0] = 0.0
    return out


def _weighted_loo_integrals_numpy(a, b, t, w, out, bad, pa, ia=None):
    """out[k, j] = (a - b)[k, j] sum_l w_l prod_{i != j} g_ki(t_l) for the entries it can do safely,
    with a's row for pair k being a[ia[k]] (a[k] when ``ia`` is None) and b's row b[k % len(b)].

    Entries (k, l) left out are flagged in ``bad``; the numba kernel has the same contract.
    """
    K, d = out.shape
    m = t.shape[0]
    step = max(1, _WORK_BYTES // (8 * m * d))
    for k0 in range(0, K, step):
        sl = slice(k0, min(K, k0 + step))
        am = a[sl] if ia is None else a[ia[sl]]
        bm = b[np.arange(sl.start, sl.stop) % b.shape[0]]
        with np.errstate(under="ignore"):
            pa[sl] = np.prod(am, axis=-1)
        diff = am - bm
        g = np.multiply(diff[:, None, :], t[None, :, None])  # (k, m, d)
        g += bm[:, None, :]
        P = np.prod(g, axis=-1)  # (k, m)
        aP = np.abs(P)
        ok = (aP > _TINY) & (aP < _HUGE)
        bad[sl] = ~ok
        P *= w
        P[~ok] = 0.0
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            np.reciprocal(g, out=g)
            g[~ok] = 0.0  # g may be 0 where P is
            res = np.matmul(P[:, None, :], g)[:, 0, :]  # sum_l w_l P_l / g_lj
        fin = np.isfinite(res).all(axis=1)
        if not fin.all():  # P / g_j overflowed
            res[~fin] = 0.0
            bad[sl][~fin] = True
        res *= diff
        out[sl] = res


def _weighted_loo_integrals_safe(a, b, t, w, out, bad, ia=None):
    """Add the flagged (pair, node) entries to ``out`` in log space, in memory-bounded pieces."""
    kernel = _safe_kernel()  # the compiled loop when numba is there (same numbers; narrow kernels flag most pairs)
    if kernel is None:
        _weighted_loo_integrals_safe_numpy(a, b, t, w, out, bad, ia)
        return
    rows = np.arange(out.shape[0]) if ia is None else ia
    kernel(a, rows, b, np.asarray(t, dtype=np.float64), np.asarray(w, dtype=np.float64), out, bad)


@compiled_or_none
def _safe_kernel():
    """The compiled log-space pass of flagged entries, or None (then the numpy pass)."""
    from ._product_safe_numba import weighted_loo_integrals_rows_safe

    return weighted_loo_integrals_rows_safe


def _weighted_loo_integrals_safe_numpy(a, b, t, w, out, bad, ia=None):
    """:func:`_weighted_loo_integrals_safe` in numpy (without numba)."""
    K, d = out.shape
    kk, ll = np.nonzero(bad)
    step = max(1, _WORK_BYTES // (8 * d * 4))
    for s0 in range(0, kk.size, step):
        k, l = kk[s0 : s0 + step], ll[s0 : s0 + step]
        bm = b[k % b.shape[0]]
        diff = (a[k] if ia is None else a[ia[k]]) - bm
        g = bm + t[l, None] * diff  # (B, d)
        np.add.at(out, k, diff * w[l, None] * _loo_products_safe(g))


def _weighted_loo_integrals(a, b, t, w, kernel, ia=None, exact_nodes=None):
    """(a - b)_kj int_0^1 prod_{i != j} g_ki(t) dt for every pair k and feature j (exact quadrature),
    and prod_j a_kj; pair k has a's row a[ia[k]] (a[k] when ``ia`` is None) and b's row
    b[k % len(b)].

    ``exact_nodes``: (n, r) when the rule ``t, w`` is a certified one with fewer nodes and the
    pairs come r per point: the points with an entry that needs the log-space path are redone
    with n nodes (the exact rule, bit for bit, as their pairs would be in any block): the
    log-space sums of d logarithms round to ~1e-13 relative at large |log|, and with a few
    nodes those errors average out less than with ceil(d/2)."""
    K = a.shape[0] if ia is None else ia.shape[0]
    d = a.shape[1]
    m = t.shape[0]
    out = np.empty((K, d))
    bad = np.empty((K, m), dtype=bool)
    pa = np.empty(K)
    if kernel is not None:
        rows = np.arange(K) if ia is None else ia
        kernel(a, rows, b, np.array(t), np.array(w), out, bad, pa)
    else:
        _weighted_loo_integrals_numpy(a, b, t, w, out, bad, pa, ia)
    if bad.any():
        if exact_nodes is not None and exact_nodes[0] > m:
            n_exact, r = exact_nodes
            te, we = gauss_legendre_01(n_exact)
            pts = np.flatnonzero(bad.reshape(K // r, r * m).any(axis=1))
            if pts.size * r == K:
                return _weighted_loo_integrals(a, b, te, we, kernel, ia)
            k = (pts[:, None] * r + np.arange(r)).ravel()
            # the kernel pairs its j-th pair with b[j % len(b)]: pair k's row when len(b) divides r
            b_k = b if r % b.shape[0] == 0 else np.ascontiguousarray(b[k % b.shape[0]])
            out[k], pa[k] = _weighted_loo_integrals(a, b_k, te, we, kernel, k if ia is None else ia[k])
            return out, pa
        _weighted_loo_integrals_safe(a, b, t, w, out, bad, ia)
    return out, pa


def compiled_available() -> bool:
    """Whether the product-game engine's compiled (numba) kernel can be used here.

    Without it the engine computes the same numbers in numpy.

    Returns
    -------
    bool

    Examples
    --------
    >>> from kexplain.shapley.product import compiled_available
    >>> isinstance(compiled_available(), bool)
    True
    """
    return _numba_kernel() is not None


def leave_one_out_integrals(a: Any, b: Any = None, *, backend: str = "auto") -> tuple[np.ndarray, np.ndarray]:
    """The engine's leave-one-out pass: each row's Shapley values of a one-row product game.

    For rows k of present factors ``a`` and absent factors ``b`` (one row of ``b`` per row of
    ``a``, or a single row shared by all; default: all ones, the functional baseline's b = 1),

        psi[k, j] = (a - b)[k, j] * int_0^1 prod_{i != j} (b_ki + t (a - b)_ki) dt,

    computed by the exact Gauss-Legendre rule of ``ceil(d / 2)`` nodes, with products near under-
    or overflow recomputed in log space.  ``psi[k]`` are the Shapley values of the game
    ``v_k(S) = prod_{j in S} a_kj prod_{j not in S} b_kj``, so ``psi[k].sum() = prod_j a_kj - prod_j b_kj``.
    A weighted sum over rows, ``c @ psi``, is the Shapley values of the game with row weights
    ``c``: how the kernel statistics (HSIC, MMD) serve many weight vectors from one pass.

    Parameters
    ----------
    a : array-like of shape (K, d)
        Present factors, finite float64.
    b : array-like of shape (K, d) or (1, d), optional
        Absent factors; default ones.
    backend : {"auto", "numba", "numpy"}
        The compiled kernel (when numba is installed) or numpy; the same numbers up to rounding.

    Returns
    -------
    psi : ndarray of shape (K, d)
    prod_a : ndarray of shape (K,)
        ``prod_j a_kj``.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley.product import leave_one_out_integrals
    >>> psi, pa = leave_one_out_integrals(np.array([[0.5, 0.8]]))
    >>> np.round(psi, 6), pa
    (array([[-0.45, -0.15]]), array([0.4]))
    >>> bool(np.isclose(psi.sum(), pa[0] - 1.0))
    True
    """
    kernel = _resolve_backend(backend)
    a = np.ascontiguousarray(a, dtype=np.float64)
    if a.ndim != 2:
        raise ValueError(f"a must be a 2-D array of factors (rows, features), got shape {a.shape}.")
    d = a.shape[1]
    b = np.ones((1, d)) if b is None else np.ascontiguousarray(b, dtype=np.float64)
    if b.ndim != 2 or b.shape[1] != d or b.shape[0] not in (1, a.shape[0]):
        raise ValueError(f"b must have shape ({a.shape[0]}, {d}) or (1, {d}) to match a, got shape {b.shape}.")
    _check_finite(a, "a")
    _check_finite(b, "b")
    t, w = gauss_legendre_01(nodes_for_degree(d - 1))
    return _weighted_loo_integrals(a, b, t, w, kernel)


def _interactions_block(bm, diff, c, t, w):
    """I_jk = sum_r c_r diff_rj diff_rk sum_l w_l prod_{i != j,k} g_ri(t_l), one point's rows.

    bm, diff (r, d), c (r, o) -> (d, d, o), with the diagonal left to the caller.  On safe entries
    prod_{i != j,k} g_i = P / (g_j g_k), so the sum is a Gram matrix U^T diag(W) U with
    U = diff / g over (row, node) pairs: one matrix product per output.
    """
    r, d = diff.shape
    m = t.shape[0]
    o = c.shape[1]
    acc = np.zeros((d, d, o))
    step = max(1, _WORK_BYTES // (8 * m * d))
    for r0 in range(0, r, step):
        sl = slice(r0, min(r, r0 + step))
        g = np.multiply(diff[sl, None, :], t[None, :, None])  # (k, m, d)
        g += bm[sl, None, :]
        P = np.prod(g, axis=-1)  # (k, m)
        aP = np.abs(P)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
            gmin = np.abs(g).min(axis=-1)
            ok = (aP > _TINY) & (aP < _HUGE) & (aP < _HUGE * gmin * gmin)
            U = diff[sl, None, :] / g
        U = U.reshape(-1, d)
        okf = ok.reshape(-1)
        Wl = (P * w).reshape(-1)
        U[~okf] = 0.0
        Wl[~okf] = 0.0
        k_of = np.repeat(np.arange(sl.start, sl.stop), m)
        for q in range(o):
            Wq = Wl * c[k_of, q]
            acc[:, :, q] += (U * Wq[:, None]).T @ U
        if not ok.all():
            kb, lb = np.nonzero(~ok)
            kb = kb + sl.start
            gb = bm[kb] + t[lb, None] * diff[kb]  # (B, d)
            loo2 = _loo2_products_safe(gb)  # (B, d, d)
            db = diff[kb]
            acc += np.einsum("bj,bk,bjk,bo->jko", db, db, loo2, w[lb, None] * c[kb])
    return acc


# ----------------------------------------------------------------------------------------------
# The array API path: the same engine written once for any namespace (numpy float32, PyTorch on
# CPU or GPU, CuPy, array-api-strict).  numpy float64 keeps the numpy/numba path above.


def efficiency_error(values: Any, v_full: Any, v_empty: Any) -> float:
    """Largest |sum_j phi_j - (v_full - v_empty)|, relative to max(|v_full|, |v_empty|, 1e-300).

    The Shapley values of an exact solve satisfy efficiency up to rounding: about 1e-15 in
    float64, about 1e-6 in float32.  ``values`` (n, d, o), ``v_full`` and ``v_empty`` (n, o),
    arrays of any namespace.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley.product import efficiency_error, product_game_block
    >>> phi, v_full, v_empty = product_game_block(np.full((1, 2, 3), 0.5), 1.0, np.ones(2))
    >>> efficiency_error(phi, v_full, v_empty) < 1e-15
    True
    """
    values, v_full, v_empty = to_numpy(values), to_numpy(v_full), to_numpy(v_empty)
    gap = np.abs(values.sum(axis=1, dtype=np.float64) - (v_full.astype(np.float64) - v_empty))
    scale = np.maximum(np.maximum(np.abs(v_full), np.abs(v_empty)), 1e-300)
    # the ufunc's reduce: np.max's dispatch costs more than the reduction at a few points
    return float(np.maximum.reduce(gap / scale, axis=None)) if gap.size else 0.0


def _pairs_block(a2, ia, b2, c, p, *, n_nodes, kernel, pb=None, check_a=False):
    """Shapley values, v(all) and v(none) of a numpy float64 block given as rows of factors.

    Pair k = (point k // r, row k % r) of the block's p points and r = len(c) rows has present
    factors ``a2[ia[k]]`` (``a2[k]`` when ``ia`` is None: no copy of rows shared by several pairs)
    and absent factors ``b2[k % len(b2)]``; ``pb`` (r,) may give the products of the absent
    factors of the rows when b2 is the same for every point (computed once by the game).
    ``n_nodes`` None: each point's certified node count (``_point_nodes``).
    ``check_a``: refuse NaN or infinite present factors (``_check_finite``'s error).  Checked after
    the integrals, through the products prod_j a_kj the kernel returns: a pair whose row holds a
    NaN or an infinity has a non-finite product (inf x 0 is NaN), so only when some product is not
    finite (or a finite row's product overflows) are the factors read again; a separate pass over
    a2 cost 1-2% of a functional-game call at d = 20.
    Returns phi (p, d, o), v_full (p, o), v_empty (p, o).
    """
    r, o = c.shape
    d = a2.shape[1]
    if pb is None:
        with np.errstate(under="ignore"):
            pb = np.prod(b2, axis=-1)
    v_empty = np.broadcast_to(pb @ c, (p, o)).copy() if pb.shape[0] == r else pb.reshape(p, r) @ c
    # unchecked factors may hold NaN or infinities, refused below: the numpy path's warnings on
    # them would only come before the error
    with np.errstate(invalid="ignore", over="ignore", divide="ignore") if check_a else nullcontext():
        if n_nodes is not None:
            t, w = gauss_legendre_01(n_nodes)
            psi, pa = _weighted_loo_integrals(a2, b2, t, w, kernel, ia)  # (K, d), (K,)
        else:
            psi, pa = _certified_loo_integrals(a2, ia, b2, p, r, kernel)
    if check_a:
        with np.errstate(over="ignore", invalid="ignore"):
            finite = bool(np.isfinite(np.add.reduce(pa, axis=None)))
        if not finite:
            _check_finite(a2, "a")
    v_full = pa.reshape(p, r) @ c  # (p, o)
    # phi[p, j, o] = sum_r psi[p, r, j] c[r, o]: a batched matrix product over rows
    phi = np.matmul(psi.reshape(p, r, d).transpose(0, 2, 1), c)
    return phi, v_full, v_empty


@compiled_or_none
def _stationary_kernel():
    """The fused functional kernel of RBF and Laplacian factors (``stationary_loo_integrals``), or None."""
    from ._product_numba import stationary_loo_integrals

    return stationary_loo_integrals


def _rows_in_lanes(Y):
    """Y (r, d) in blocks of 4 rows, each transposed to (feature, row), the last padded with
    zeros: the flat (ceil(r / 4) 4 d,) layout ``stationary_loo_integrals`` reads."""
    r, d = Y.shape
    nrb = -(-r // 4)
    Y4 = np.zeros((4 * nrb, d))
    Y4[:r] = Y
    return np.ascontiguousarray(Y4.reshape(nrb, 4, d).transpose(0, 2, 1)).reshape(-1)


def _stationary_pairs_block(X, Y, ls, laplacian, c, n_nodes, Y4=None):
    """``_pairs_block`` of the functional game of one RBF (or Laplacian) kernel, b = 1, with the
    factors a[p, i, j] = profile((X[p, j] - Y[i, j]) / ls[j]) computed inside the compiled kernel
    (``stationary_loo_integrals``) instead of a (points, rows, d) array: the same numbers bit for
    bit at the same node counts (the same factors, passes and matrix products).  Every factor is
    finite in [0, 1], so no finiteness pass is needed.

    ``n_nodes`` None: each point's certified count (``_point_nodes``'s rule, from every d with
    ``CERTIFY_FUSED_FROM_NODES``: the spreads come from the factors in cache, nearly free), the
    points with an entry that needs the log-space path redone with the exact rule, as
    ``_weighted_loo_integrals`` does; the (pair, node) entries flagged at the exact rule are
    finished in log space from those pairs' factors, recomputed.  ``Y4``: ``_rows_in_lanes(Y)``
    when the caller keeps it (the solver, once per block of rows for all blocks of points)."""
    from .._exp_numba import stationary_factors

    p, d = X.shape
    r, o = c.shape
    exact = nodes_for_degree(d - 1) if n_nodes is None else n_nodes
    T, W = _rule_table(exact)
    certify = n_nodes is None and exact >= CERTIFY_FUSED_FROM_NODES and spread_limit(d) > 0.0
    limits = np.ascontiguousarray(node_limits(d)) if certify else np.empty(0)
    if Y4 is None:
        Y4 = _rows_in_lanes(Y)
    ls4 = np.repeat(ls, 4)
    X = np.ascontiguousarray(X)
    kernel = _stationary_kernel()
    K = p * r
    psi = np.empty((K, d))
    bad = np.empty((K, exact), dtype=bool)
    pa = np.empty(K)
    counts = np.empty(p, dtype=np.int64)
    kernel(X, Y4, ls4, bool(laplacian), r, T, W, limits, psi, bad, pa, counts)
    if bad.any():
        if certify:
            # points with a flagged entry at a certified count: the exact rule, as in any block
            pts = np.flatnonzero(bad.reshape(p, r * exact).any(axis=1) & (counts < exact))
            if pts.size:
                k = (pts[:, None] * r + np.arange(r)).ravel()
                sub_psi, sub_bad, sub_pa = (
                    np.empty((k.size, d)),
                    np.empty((k.size, exact), dtype=bool),
                    np.empty(k.size),
                )
                kernel(X[pts], Y4, ls4, bool(laplacian), r, T, W, np.empty(0), sub_psi, sub_bad, sub_pa, counts[pts])
                psi[k], bad[k], pa[k] = sub_psi, sub_bad, sub_pa
        kk = np.flatnonzero(bad.any(axis=1))
        if kk.size:
            a = np.empty((kk.size, d))
            for pt in np.unique(kk // r).tolist():
                sel = kk // r == pt
                fac = np.empty((1, r, d))
                stationary_factors(X[pt : pt + 1], np.ascontiguousarray(Y), ls, bool(laplacian), fac)
                a[sel] = fac[0, kk[sel] % r]
            sub = psi[kk]
            _weighted_loo_integrals_safe(a, np.ones((1, d)), T[exact, :exact], W[exact, :exact], sub, bad[kk])
            psi[kk] = sub
    v_empty = np.broadcast_to(np.ones(r) @ c, (p, o)).copy()
    v_full = pa.reshape(p, r) @ c
    phi = np.matmul(psi.reshape(p, r, d).transpose(0, 2, 1), c)
    return phi, v_full, v_empty


_RULE_TABLES: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def _rule_table(n):
    """(T, W) of shape (n + 1, n): row m holds the m-node Gauss-Legendre rule on [0, 1] (zeros after)."""
    table = _RULE_TABLES.get(n)
    if table is None:
        T, W = np.zeros((n + 1, n)), np.zeros((n + 1, n))
        for m in range(1, n + 1):
            T[m, :m], W[m, :m] = gauss_legendre_01(m)
        table = _RULE_TABLES[n] = (T, W)
    return table


#: the fused functional kernel certifies counts from this many exact nodes (d >= 11): its spreads
#: are read from factors already in cache, so certifying costs little where the pass over a
#: (pairs, d) array did not pay (``CERTIFY_FROM_NODES``).  On bench_pkex_shapiq.py's RBF SVR
#: (520 SVs, 200 points) it made d = 20 1.02-1.03x and d = 28 1.17-1.19x faster (9-10 nodes per
#: point instead of 10 / 14; one run, 5 interleaved, load about 8)
CERTIFY_FUSED_FROM_NODES = 6


@compiled_or_none
def _fused_kernel():
    """The quadrature kernel with the rows' weighting and reduction fused in, or None."""
    from ._product_fused_numba import weighted_loo_phi

    return weighted_loo_phi


@compiled_or_none
def _fused_kernel_laid():
    """``_fused_kernel`` reading the absent factors in the game's layout of groups of 4, or None."""
    from ._product_fused_numba import weighted_loo_phi_laid

    return weighted_loo_phi_laid


def _fused_pairs_block(a2, ia, b2, c, p, *, n_nodes, pb=None, v_empty=None, b_laid=None):
    """``_pairs_block(..., check_a=True)`` of a game's rows form through the fused kernel
    (``_product_fused_numba``): no (pairs, d) array of integrals is written and reduced again.
    One output, the same node count for every point of the block; None where it does not apply
    (the caller then runs ``_pairs_block``): several outputs or node counts, numba missing, or a
    factor above 1 or a product near underflow in the block (the unfused kernel's contract).
    ``v_empty`` (o,): v(no feature) of the rows when the game keeps it (else from ``pb``);
    ``b_laid``: b2's r rows laid out in groups of 4 (``weighted_loo_phi_laid``) when the game
    keeps them so.
    Returns phi (p, d, o), v_full (p, o) and v_empty (p, o) or (o,), the same for every point.

    At one explained point the kernel is about 500 us, so what surrounds it is kept to a few
    numpy calls (each costs several microseconds): no node-count pass below ``CERTIFY_FROM_NODES``
    (``_point_nodes`` gives the exact rule there), the finiteness of v(all) from the kernel."""
    r, o = c.shape
    fused = _fused_kernel() if o == 1 and p > 0 and r > 0 and ia is not None else None
    if fused is None:
        return None
    d = a2.shape[1]
    if n_nodes is None:
        n_nodes = nodes_for_degree(d - 1)
        if n_nodes >= CERTIFY_FROM_NODES:
            counts = _point_nodes(a2, ia, b2, p, r)
            n_nodes = int(counts[0])
            if not bool(np.all(counts == n_nodes)):
                return None
    t, w = gauss_legendre_01(n_nodes)
    phi = np.zeros((p, d))
    v_full = np.zeros(p)
    if b_laid is not None and b2.shape[0] == r:
        status = _fused_kernel_laid()(a2, ia, b_laid, t, w, c.reshape(r), r, phi, v_full)
    else:
        status = fused(a2, ia, b2, t, w, c.reshape(r), r, phi, v_full)
    if status == 0:
        return None
    if status == 2:  # NaN or infinite present factors show in v(all) (as in ``_pairs_block``)
        _check_finite(a2, "a")
    if v_empty is None:
        if pb is None:
            with np.errstate(under="ignore"):
                pb = np.prod(b2, axis=-1)
        v_empty = pb @ c if pb.shape[0] == r else pb.reshape(p, r) @ c
    return phi[:, :, None], v_full[:, None], v_empty


def product_game_block(
    a: Any,
    b: Any,
    c: Any,
    *,
    interactions: bool | str | None = False,
    n_nodes: int | None = None,
    backend: str = "auto",
    dtype: str | None = None,
    nodes: str = "certified",
) -> tuple[Any, ...]:
    """Shapley values (and optionally interaction indices) of one dense block of a product game.

    The arrays may come from any library implementing the array API standard (numpy, PyTorch on
    CPU or GPU, CuPy, array-api-strict): their namespace decides where the work runs and the
    results come back in that namespace, on the device of ``a`` (as scikit-learn's
    ``array_api_dispatch``).  numpy arrays in float64 go through the numpy/numba path; any other
    namespace, or ``dtype="float32"``, through the same algorithm written against the array API
    (``array_api_compat`` needed for non-numpy arrays), with the same log-space treatment of
    products near under- or overflow.

    Parameters
    ----------
    a : array of shape (p, r, d)
        Factor of feature j in row r when j is present, for each of p explained points.
    b : array broadcastable to (p, r, d), or a scalar
        Factor when j is absent (1 for the functional-baseline game).
    c : array of shape (r, o) or (r,)
        Row weights for each of o outputs.
    interactions : bool or {"sii", "stii"}
        Also return pairwise interaction indices: True or "sii" the Shapley interaction index,
        "stii" the Shapley-Taylor index of order 2 (module docstring).
    n_nodes : int, optional
        Gauss-Legendre nodes of the Shapley values, overriding ``nodes``.
    backend : {"auto", "numba", "numpy"}
        For numpy float64 input: "auto" uses the compiled kernel when numba is installed.  Results
        agree to rounding.  Other namespaces and dtypes accept "auto" only.
    dtype : {None, "float64", "float32"}
        Precision of the work and the results; None means float64.  float32 is opt-in (faster
        on GPUs): efficiency then holds to about 1e-6 relative (see :func:`efficiency_error`)
        and values agree with float64 to about 1e-5 of the largest value, or 1e-3 where products
        leave float32's range and are computed in log space (values must fit in float32).
    nodes : {"certified", "exact"}
        How the Shapley values' node count is chosen when ``n_nodes`` is not given: "exact"
        ceil(d / 2), the fewest that are exact for every input; "certified" (default) the fewest
        for which a bound certifies every integral to 2^-53 relative, from the spread of each
        point's factors (:func:`kexplain.shapley.quadrature.certified_nodes`; ceil(d / 2), bit
        for bit the exact rule, when a factor is zero or negative, the spread is large or a
        product comes near under- or overflow).
        Interaction indices always use their exact rule.

    Returns
    -------
    phi : array (p, d, o)
        The Shapley values of every point.
    v_full : array (p, o)
        v(all features); sum_j phi_j = v_full - v_empty exactly up to rounding.
    v_empty : array (p, o)
        v(no feature).
    inter : array (p, d, d, o)
        Only when ``interactions``: the raw index I_jk off the diagonal, zeros on it (additive
        over blocks of rows; ``solve_product_game`` returns shap's layout).

    Raises
    ------
    ValueError
        When a, b or c hold NaN or infinite values (never silently converted).

    Examples
    --------
    One point, one row, two players: v(S) = prod_{j in S} a_j (b = 1).

    >>> import numpy as np
    >>> from kexplain.shapley import product_game_block
    >>> phi, v_full, v_empty = product_game_block(np.array([[[2.0, 3.0]]]), 1.0, np.ones(1))
    >>> phi[0, :, 0], v_full[0, 0], v_empty[0, 0]
    (array([2., 3.]), np.float64(6.0), np.float64(1.0))
    """
    index = check_interactions(interactions)
    _check_nodes(nodes)
    if dtype not in (None, "float64") or is_foreign_array(a) or is_foreign_array(b) or is_foreign_array(c):
        xp = array_namespace(a, b, c)
        if backend not in BACKENDS:
            _resolve_backend(backend)  # raises the usual message
        if backend != "auto":
            raise ValueError(
                f"backend={backend!r} applies to numpy float64 arrays only; use backend='auto' with "
                "other array namespaces or dtypes."
            )
        return _product_game_block_xp(xp, a, b, c, interactions=index, n_nodes=n_nodes, dtype=dtype, nodes=nodes)
    kernel = _resolve_backend(backend)
    a = np.asarray(a, dtype=np.float64)
    if a.ndim != 3:
        raise ValueError(f"a must have shape (points, rows, features), got shape {a.shape}.")
    p, r, d = a.shape
    b = np.asarray(b, dtype=np.float64)
    try:
        bb = np.broadcast_to(b, a.shape)
    except ValueError:
        raise ValueError(f"b must be a scalar or broadcastable to a's shape {a.shape}, got shape {b.shape}.") from None
    c = np.asarray(c, dtype=np.float64)
    if c.ndim == 1:
        c = c[:, None]
    if c.ndim != 2 or c.shape[0] != r:
        raise ValueError(f"c must have shape (rows, outputs) with rows = {r}, got shape {c.shape}.")
    _check_finite(a, "a")
    _check_finite(b, "b")
    _check_finite(c, "c")
    K = p * r
    a2 = np.ascontiguousarray(a).reshape(K, d)
    # b rarely depends on the point (b (r, d), (1, r, d) or a scalar): keep one copy of its rows,
    # one row when it is the same for every row (the functional game's b = 1)
    point_free = bb.strides[0] == 0 or p == 1
    pb = None
    if point_free and bb.strides[1] == 0 and r > 0:
        b2 = np.ascontiguousarray(bb[0, :1])
        with np.errstate(under="ignore"):
            pb = np.full(r, np.prod(b2[0]))
    else:
        b2 = np.ascontiguousarray(bb[0] if point_free else bb).reshape(-1, d)
    if n_nodes is None and nodes == "exact":
        n_nodes = nodes_for_degree(d - 1)
    phi, v_full, v_empty = _pairs_block(a2, None, b2, c, p, n_nodes=n_nodes, kernel=kernel, pb=pb)
    if index is None:
        return phi, v_full, v_empty
    o = c.shape[1]
    inter = np.zeros((p, d, d, o))
    if d >= 2:
        t2, w2 = interaction_rule(d, index)
        idx = np.arange(d)
        for pi in range(p):
            bp = b2[np.arange(pi * r, (pi + 1) * r) % b2.shape[0]]
            acc = _interactions_block(bp, a2[pi * r : (pi + 1) * r] - bp, c, t2, w2)
            acc = 0.5 * (acc + acc.transpose(1, 0, 2))  # exactly symmetric, as I_jk is
            acc[idx, idx] = 0.0
            inter[pi] = acc
    return phi, v_full, v_empty, inter


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
    kernel = _resolve_backend(backend)
    resolve_dtype(np, dtype)
    _check_nodes(nodes)
    index = check_interactions(interactions)
    interactions = index is not None
    # the rows form of a block (no copy of present factors shared by several rows): numpy float64
    # Shapley values only; the game returns None when its blocks live in another namespace
    pair_block = getattr(game, "pair_block", None) if index is None and dtype in (None, "float64") else None
    pair_empty = getattr(game, "pair_empty", None)
    pair_layout = getattr(game, "pair_layout", None)
    n, R, d, o = game.n_points, game.n_rows, game.n_features, game.n_outputs
    n_nodes = None if nodes == "certified" else nodes_for_degree(d - 1)  # None: per point
    # the functional game of one RBF or Laplacian kernel: factors computed inside the compiled
    # kernel (``_stationary_pairs_block``)
    stationary_block = (
        getattr(game, "stationary_block", None)
        if index is None and dtype in (None, "float64") and kernel is not None and _stationary_kernel() is not None
        else None
    )
    rows_in_lanes: dict[tuple[int, int], np.ndarray] = {}  # the support points' layout, per block of rows
    p_chunk, r_chunk = block_shape(n, R, d, max_block_bytes, row_alignment=int(getattr(game, "row_alignment", 1)))
    if n > p_chunk or R > r_chunk:
        # several blocks: keep their freed arrays on the heap instead of a page fault per page per block
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
        # the array's method, not np.all (whose Python dispatch costs more than the test itself
        # on one explained point)
        if not np.isfinite(arr).all():
            raise FloatingPointError(
                f"non-finite {name} in the product game: check the model coefficients and "
                "kernel values for NaN or overflow."
            )
    if inter is not None:
        inter = interaction_layout(values, inter)
    return ShapleyValues(values=values, v_full=v_full, v_empty=v_empty, interactions=inter, interaction_index=index)

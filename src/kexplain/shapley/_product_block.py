"""One dense block of a product game: ``product_game_block`` (arrays (p, r, d) of any array API
namespace), the numpy float64 rows form ``_pairs_block``, the pairwise interaction indices of a
block and ``efficiency_error`` (moved out of ``kexplain.shapley.product``, which re-exports every
name; see its docstring for the maths).
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

import numpy as np

from .._validation import check_interactions
from ._product_logspace import _HUGE, _TINY, _WORK_BYTES, _loo2_products_safe
from ._product_loo import BACKENDS, _certified_loo_integrals, _check_finite, _resolve_backend, _weighted_loo_integrals
from ._product_xp import _product_game_block_xp
from .array_api import array_namespace, is_foreign_array, to_numpy
from .interactions import interaction_rule
from .quadrature import gauss_legendre_01, nodes_for_degree

#: how the Shapley values' node count is chosen: "certified" the fewest nodes that a bound
#: certifies to 2^-53 relative per integral (``quadrature.certified_nodes``), "exact" ceil(d/2)
NODE_RULES = ("certified", "exact")


def _check_nodes(nodes):
    if not isinstance(nodes, str) or nodes not in NODE_RULES:
        raise ValueError(f"nodes must be one of {NODE_RULES}, got {nodes!r}.")


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

"""The product-game engine's leave-one-out pass: the weighted integrals
(a - b)_kj int_0^1 prod_{i != j} g_ki(t) dt of rows of factors, by the compiled kernel
(``_product_numba``) or in numpy, with the log-space redo of flagged entries, at one node count
or each point's certified count; the backend choice and the finiteness check of the inputs
(moved out of ``kexplain.shapley.product``, which re-exports every name).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._optional import compiled_or_none
from ._product_logspace import _HUGE, _TINY, _WORK_BYTES, _weighted_loo_integrals_safe
from ._product_nodes import _point_nodes
from .quadrature import gauss_legendre_01, nodes_for_degree

BACKENDS = ("auto", "numba", "numpy")


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

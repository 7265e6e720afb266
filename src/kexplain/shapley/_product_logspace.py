"""The product-game engine's log-space path: the (pair, node) entries whose products come near
under- or overflow (products of hundreds of small kernel values, exact zeros), finished in log
space with a count of exact zeros (moved out of ``kexplain.shapley.product``, which re-exports
every name).

The quadrature passes flag those entries (``_TINY``, ``_HUGE``) and leave them out; the functions
here add them back, compiled (``_product_safe_numba``) or in numpy.  ``_WORK_BYTES`` bounds the work
arrays of every numpy pass of the engine.
"""

from __future__ import annotations

import numpy as np

from .._optional import compiled_or_none

# Products with a magnitude outside [_TINY, _HUGE] are recomputed in log space (which also handles
# exact zeros): far enough from the limits that one more factor or division cannot leave the range.
_TINY = np.finfo(np.float64).tiny * 1e16


_HUGE = np.finfo(np.float64).max * 1e-16


#: bytes of the (pairs, nodes, d) work arrays of the numpy backend: small enough to stay in cache
_WORK_BYTES = 2 * 2**20


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

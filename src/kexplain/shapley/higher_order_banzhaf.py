"""The Banzhaf values of the interventional product game, on their one quadrature node u = 1/2.

Every coalition weighs 2^-(d - 1) in a Banzhaf value, the point mass at u = 1/2 of
:mod:`kexplain.shapley.higher_order`'s derivation, so the interventional product game's Banzhaf
values need no enumeration of coalitions: one pass of leave-one-out products per (point,
expansion row, background row) (:func:`banzhaf_interventional`, with a compiled twin loaded on
first use), and :func:`banzhaf_cheaper_than_subsets` says when that pass costs less than the
subset route.  Every name is also imported from :mod:`kexplain.shapley.higher_order`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._optional import compiled_or_none


def banzhaf_interventional(
    a: np.ndarray, c: np.ndarray, background: np.ndarray, weights: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """Banzhaf values of the interventional product game, on its one quadrature node u = 1/2.

    ``v_p(S) = sum_i c_i sum_z w_z prod_{j in S} a_pij prod_{j not in S} F_izj``: every coalition
    weighs 2^-(d - 1), so BV_j = sum_iz c_i w_z (a_pij - F_izj) prod_{l != j} (a_pil + F_izl) / 2,
    the leave-one-out products from prefix and suffix products (no division).  The cost is a few
    passes over (points, rows, background rows, d), against 2^d per row for the game's values.

    Parameters
    ----------
    a : ndarray of shape (p, r, d)
        Present factors of each point and expansion row.
    c : ndarray of shape (r, o)
        Row weights.
    background : ndarray of shape (r, n_b, d)
        The background's factors of each expansion row.
    weights : ndarray of shape (n_b,)
        Background weights.

    Returns
    -------
    tuple of ndarray or None
        (BV (p, d, o), weighted mean of the game at u = 1/2 (p, o), v(all) (p, o), v(empty) (p, o)),
        or None when a product leaves float64's range (the caller takes its general route).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley.higher_order import banzhaf_interventional
    >>> bv, mean, v_full, v_empty = banzhaf_interventional(
    ...     np.array([[[1.0, 1.0]]]), np.array([[1.0]]), np.array([[[0.0, 0.0]]]), np.array([1.0]))
    >>> bv[0, :, 0], float(mean[0, 0])               # v(S) = [S holds both]: 1/2 each, mean 1/4
    (array([0.5, 0.5]), 0.25)
    """
    p, r, d = a.shape
    nb = background.shape[1]
    K = r * nb
    cw = (c[:, None, :] * weights[None, :, None]).reshape(K, -1)  # (r * n_b, o)
    kernel = _compiled_banzhaf()
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        if kernel is not None:  # the numpy passes fused per pair: the same numbers
            loo, suf = np.empty((d, p, r, nb)), np.empty((p, r, nb))
            kernel(
                np.ascontiguousarray(a, dtype=np.float64), np.ascontiguousarray(background, dtype=np.float64), loo, suf
            )
        else:
            loo, suf = _banzhaf_loo_numpy(a, background)
        bv = np.moveaxis((loo.reshape(d * p, K) @ cw).reshape(d, p, -1), 0, 1)
        mean = suf.reshape(p, K) @ cw  # suf is the product over every feature
        v_full = np.prod(a, axis=-1) @ c
        v_empty = np.broadcast_to(np.prod(background, axis=-1).reshape(K) @ cw, v_full.shape)
    if not all(np.all(np.isfinite(x)) for x in (bv, mean, v_full, v_empty)):
        return None
    return bv, mean, v_full, np.array(v_empty)


@compiled_or_none
def _compiled_banzhaf() -> Any:
    """The compiled pass of ``_banzhaf_numba`` (the same numbers), or None without numba."""
    from ._banzhaf_numba import banzhaf_loo

    return banzhaf_loo


def _banzhaf_loo_numpy(a: np.ndarray, background: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """banzhaf_interventional's leave-one-out products (d, p, r, n_b) and full products (p, r, n_b)
    as numpy passes (call under ``np.errstate``)."""
    d = a.shape[2]
    # features first: each step of the prefix and suffix products is one pass over p * r * n_b numbers
    A = np.ascontiguousarray(np.moveaxis(a, 2, 0))[:, :, :, None]  # (d, p, r, 1)
    F = np.ascontiguousarray(np.moveaxis(background, 2, 0))[:, None]  # (d, 1, r, n_b)
    g = 0.5 * (A + F)  # (d, p, r, n_b)
    pre = np.empty_like(g)
    pre[0] = 1.0
    for j in range(1, d):
        np.multiply(pre[j - 1], g[j - 1], out=pre[j])
    loo = A - F
    loo *= pre
    suf = np.ones(g.shape[1:])
    for j in range(d - 1, -1, -1):
        loo[j] *= suf
        suf *= g[j]
    return loo, suf


def banzhaf_cheaper_than_subsets(d: int, n_background: int) -> bool:
    """Whether :func:`banzhaf_interventional` (about 12 passes over n_b * d numbers per expansion
    row) costs less than the subset route's 2^d values per row and their two transforms.

    Examples
    --------
    >>> from kexplain.shapley.higher_order import banzhaf_cheaper_than_subsets
    >>> banzhaf_cheaper_than_subsets(12, 20), banzhaf_cheaper_than_subsets(8, 20)
    (True, False)
    """
    return 12 * n_background * d < 2**d

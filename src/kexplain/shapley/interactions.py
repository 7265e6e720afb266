"""Pairwise interaction indices: the quadrature rule of each index and the layout every solver returns.

SII (the Shapley interaction index) and STII (the Shapley-Taylor index of order 2) of a product
game are Beta integrals of the same integrand, STII with the extra weight 2(1 - t);
:func:`interaction_rule` gives the nodes and weights.  Every solver returns shap's layout (half the
index off the diagonal, each row summing to the feature's Shapley value): :func:`interaction_layout`
converts a raw index, :func:`interaction_values` the SII layout of shap's TreeExplainer.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .array_api import array_namespace, device_of, is_foreign_array
from .quadrature import gauss_legendre_01, nodes_for_degree


def interaction_rule(d: int, index: str = "sii") -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights on [0, 1] of the pairwise interaction integral of ``d`` players.

    SII integrates a polynomial of degree d - 2 with weight 1; STII the same polynomial with
    the extra weight 2 (1 - t) (module docstring), degree d - 1.  Both rules are exact.

    Parameters
    ----------
    d : int
        Number of players (at least 2).
    index : {"sii", "stii"}

    Returns
    -------
    t, w : ndarray
        Nodes and weights: sum_l w_l p(t_l) is the index's integral of the polynomial p.

    Examples
    --------
    The weight of the empty set, d = 3: SII 1/2, STII 2 * 0! 2! / 3! = 2/3.

    >>> import numpy as np
    >>> from kexplain.shapley.interactions import interaction_rule
    >>> t, w = interaction_rule(3, "stii")
    >>> print(f"{np.sum(w * (1 - t)):.4f} {np.sum(interaction_rule(3)[1] * (1 - interaction_rule(3)[0])):.4f}")
    0.6667 0.5000
    """
    if index == "stii":
        t, w = gauss_legendre_01(nodes_for_degree(d - 1))
        return t, w * 2.0 * (1.0 - t)
    if index != "sii":
        raise ValueError(f"index must be 'sii' or 'stii', got {index!r}.")
    return gauss_legendre_01(nodes_for_degree(d - 2))


def interaction_layout(values: Any, inter: Any, index: str | None = "sii") -> Any:
    """Pairwise interaction indices in shap's layout, from Shapley values and the raw indices.

    Off the diagonal half the pair's index, I_jk / 2; on the diagonal phi_j minus the row's
    off-diagonal entries, so each row sums to phi_j.  This is shap's ``TreeExplainer`` layout
    for SII and shap's ``ExactExplainer`` layout for STII (whose diagonal, so defined, is
    v({j}) - v(empty set)).  Works on arrays of any array API namespace.

    Parameters
    ----------
    values : array of shape (n, d, o)
        Shapley values.
    inter : array of shape (n, d, d, o)
        The raw index I_jk (the diagonal is ignored).
    index : str or None
        Not used in the arithmetic (both indices share the layout); kept for the caller's record.

    Returns
    -------
    array of shape (n, d, d, o)

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley.interactions import interaction_layout
    >>> out = interaction_layout(np.array([[[0.5], [1.5]]]), np.array([[[[0.0], [1.0]], [[1.0], [0.0]]]]))
    >>> out[0, :, :, 0]
    array([[0. , 0.5],
           [0.5, 1. ]])
    """
    if is_foreign_array(values) or is_foreign_array(inter):
        xp = array_namespace(values, inter)
        d = values.shape[1]
        eye = xp.eye(d, dtype=inter.dtype, device=device_of(inter))
        half = 0.5 * inter * (1.0 - eye)[None, :, :, None]
        diag = values - xp.sum(half, axis=2)
        return half + eye[None, :, :, None] * diag[:, :, None, :]
    out = 0.5 * np.array(inter, dtype=np.float64, copy=True)
    idx = np.arange(out.shape[1])
    out[:, idx, idx, :] = 0.0
    out[:, idx, idx, :] = np.asarray(values, dtype=np.float64) - out.sum(axis=2)
    return out


def interaction_values(phi: np.ndarray, inter: np.ndarray) -> np.ndarray:
    """shap's layout: Phi_jk = I_jk / 2 off the diagonal, Phi_jj = phi_j - sum_{k!=j} Phi_jk.

    The layout of every explainer's ``interactions`` for either index (SII or STII); see
    :func:`interaction_layout` for the same on (n, d, d, o) arrays.

    ``phi`` (..., d) and ``inter`` (..., d, d) with the outputs axis, if any, moved before the
    feature axes by the caller.  Each row of the result sums to the feature's Shapley value.

    Parameters
    ----------
    phi : ndarray of shape (..., d)
        Shapley values.
    inter : ndarray of shape (..., d, d)
        Pairwise interaction indices I_jk (symmetric).

    Returns
    -------
    ndarray of shape (..., d, d)
        The interactions in shap's layout; each row sums to phi_j.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley import interaction_values
    >>> interaction_values(np.array([0.5, 0.5]), np.array([[0.0, 1.0], [1.0, 0.0]]))
    array([[0. , 0.5],
           [0.5, 0. ]])
    """
    out = 0.5 * np.array(inter, dtype=np.float64, copy=True)
    d = out.shape[-1]
    idx = np.arange(d)
    out[..., idx, idx] = 0.0
    out[..., idx, idx] = phi - out.sum(axis=-1)
    return out

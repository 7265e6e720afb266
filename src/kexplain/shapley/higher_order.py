"""Interaction indices of every order: SII, k-SII, STII, FSII, BII, Banzhaf values and Möbius coefficients.

Every index here is a weighted sum of discrete derivatives,
``I(T) = sum_{S subset of D minus T} w_t(|S|) Delta_T v(S)`` with ``t = |T|`` and
``Delta_T v(S) = sum_{L subset of T} (-1)^(t - |L|) v(S + L)``, or a linear map of such sums.

For a product game ``v(S) = sum_r c_r prod_{j in S} a_rj prod_{j not in S} b_rj`` the derivative is
``Delta_T v(S) = sum_r c_r prod_{j in T} (a_rj - b_rj) prod_{l in S} a_rl prod_{l not in S + T} b_rl``.
When the weight is a moment of a measure mu on [0, 1], ``w_t(s) = int t^s (1 - t)^(d - t - s) dmu``,
the sum over S collapses (binomial theorem) to

    I(T) = sum_r c_r prod_{j in T} (a_rj - b_rj) * int prod_{l not in T} g_rl(u) dmu(u),
    g_rl(u) = (1 - u) b_rl + u a_rl,

and every index of the module has such a measure (each checked against enumeration in the tests):

- Möbius coefficient m(T) = Delta_T v(empty set): the point mass at u = 0 (g = b);
- Banzhaf interaction index (BII; Grabisch & Roubens, 1999), w = 2^-(d - t): the point mass at
  u = 1/2; order 1 gives the Banzhaf values (BV);
- Shapley interaction index (SII; Grabisch & Roubens, 1999), w = s! (d - t - s)! / (d - t + 1)!:
  Lebesgue measure (a Beta integral; degree d - t, exact with ceil((d - t + 1) / 2) Gauss-Legendre
  nodes); order 1 gives the Shapley values (SV), order 0 the weighted mean of the game;
- Shapley-Taylor index of order k (STII; Sundararajan, Dhamdhere & Agarwal, 2020), top order
  w = (k / d) / C(d - 1, s): the density k (1 - u)^(k - 1); below order k it is the Möbius
  coefficient;
- k-SII (Bordt & von Luxburg, 2023): SII aggregated with Bernoulli numbers,
  ``k-SII(T) = sum_{S superset of T, |S| <= k} B_{|S| - |T|} SII(S)``;
- Faith-Shap (FSII; Tsai, Yeh & Ravikumar, 2023, theorem 19) from the Möbius transform,
  ``FSII(T) = m(T) + (-1)^(k - t) t / (k + t) C(k, t) sum_{S superset of T, |S| > k}
  C(|S| - 1, k) / C(|S| + k - 1, k + t) m(S)``; its weight on |S| is no moment of a positive
  measure, so it is computed from the size-stratified sums ``sum_{|U| = u} prod_U (a - b)
  prod_{rest} b`` (the coefficients of prod_l (b_l + z (a_l - b_l))) by a discrete Fourier
  transform over the unit circle.

The value of the empty set (order 0) follows shapiq's convention: v(empty set) for SV, k-SII,
STII, FSII and Möbius; the index's own weighted mean of the game for SII, BII and BV.

:func:`product_interactions` evaluates the formulas on one dense block and
:func:`solve_product_interactions` drives it over a product game; :func:`indices_from_moebius`
computes the same indices of any game from its Möbius transform (``kx.exact_shapley`` with
``interactions={...}`` enumerates the 2^d coalitions for it).

Every name is imported from here; the code lives by idea in five modules:

- ``higher_order_indices``: the index names, :func:`check_interaction_spec`, the sets of each
  size in order, the weights (:func:`moebius_weights`, :func:`fsii_weights`) and the k-SII
  aggregation;
- ``higher_order_product``: the product game's quadrature (:func:`product_interactions`,
  :func:`solve_product_interactions`);
- ``higher_order_table``: :class:`InteractionTable` and :func:`table_from_dense`;
- ``higher_order_banzhaf``: the Banzhaf values of the interventional product game on their one
  node (:func:`banzhaf_interventional`, :func:`banzhaf_cheaper_than_subsets`), a pass with a
  compiled twin loaded on first use (``_compiled_banzhaf``);
- this module: any game from its 2^d values (the Möbius and superset-sum transforms,
  :func:`indices_from_moebius`, :func:`interactions_from_values`), the transforms' pass with a
  compiled twin, loaded on first use (``_compiled_butterfly``).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from .._optional import compiled_or_none
from .higher_order_banzhaf import (  # noqa: F401  (the loader and numpy pass: names before the split)
    _banzhaf_loo_numpy,
    _compiled_banzhaf,
    banzhaf_cheaper_than_subsets,
    banzhaf_interventional,
)
from .higher_order_indices import (
    EFFICIENT_INDICES,
    INDICES,
    InteractionSpec,
    _popcount,
    bernoulli_numbers,
    check_interaction_spec,
    combinations_array,
    fsii_weights,
    ksii_from_sii,
    moebius_weights,
)
from .higher_order_product import product_interactions, solve_product_interactions
from .higher_order_table import InteractionTable, table_from_dense

__all__ = [
    "EFFICIENT_INDICES",
    "INDICES",
    "InteractionSpec",
    "InteractionTable",
    "banzhaf_cheaper_than_subsets",
    "banzhaf_interventional",
    "bernoulli_numbers",
    "check_interaction_spec",
    "combinations_array",
    "fsii_weights",
    "indices_from_moebius",
    "interactions_and_shapley_from_values",
    "interactions_from_values",
    "ksii_from_sii",
    "moebius_transform",
    "moebius_weights",
    "product_interactions",
    "shapley_from_moebius",
    "solve_product_interactions",
    "table_from_dense",
]


# ----------------------------------------------------------------------------------------------
# Any game, from all 2^d coalitions


def moebius_transform(values: np.ndarray, d: int) -> np.ndarray:
    """Möbius coefficients m(S) = sum_{L subset of S} (-1)^(|S| - |L|) v(L) of a table over bitmasks.

    ``values`` (2^d, ...) with row m the coalition of the bits of m (as
    :func:`kexplain.shapley.all_coalitions`).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley.higher_order import moebius_transform
    >>> moebius_transform(np.array([0.0, 1.0, 2.0, 5.0]), 2)
    array([0., 1., 2., 2.])
    """
    return _butterfly(values, d, subtract=True)


def _superset_sums(m: np.ndarray, d: int) -> np.ndarray:
    """Z[S] = sum_{U superset of S} m[U] over bitmask tables (on a copy)."""
    return _butterfly(m, d, subtract=False)


@compiled_or_none
def _compiled_butterfly() -> Any:
    """The compiled transform of ``_butterfly_numba`` (the same numbers), or None without numba."""
    from ._butterfly_numba import butterfly

    return butterfly


def _butterfly(values: np.ndarray, d: int, *, subtract: bool, copy: bool = True) -> np.ndarray:
    """The passes j = 0..d-1 of the Möbius (``subtract``: x[S + j] -= x[S]) or superset-sum
    (x[S] += x[S + j]) transform, on a copy of ``values`` (2^d, ...), or in place with ``copy=False``.

    Each pass is elementwise over pairs of halves, so its numbers do not depend on the memory
    layout; the layout only decides how long numpy's innermost loop is.  Bit j's pairs lie 2^j
    rows apart, so the low bits' passes (for small j, thousands of inner loops of a few numbers)
    run on the transposed table, where those bits lie as far apart as the high bits do; the
    passes keep their order j = 0..d-1 (the same roundings as the plain loop).  With numba the
    compiled loop of ``_butterfly_numba`` does the same passes (the same numbers) without numpy's
    per-call overhead, most of the numpy passes' time at d = 12.
    """
    x = np.array(values, dtype=np.float64, copy=True) if copy else values  # copy=False: C-contiguous float64
    shape = x.shape
    x = x.reshape(2**d, -1)
    kernel = _compiled_butterfly()
    if kernel is not None:
        kernel(x, d, subtract)
        return x.reshape(shape)
    c = x.shape[1]
    d_lo = d // 2 if 2**d * c >= 256 else 0  # small tables: one loop, the transposes cost more
    d_hi = d - d_lo

    def passes(y: np.ndarray, bits: range, shift: int) -> None:
        for j in bits:
            view = y.reshape(2 ** (d - j - shift - 1), 2, -1)  # bit j sits at bit j + shift of y's row
            if subtract:
                view[:, 1] -= view[:, 0]
            else:
                view[:, 0] += view[:, 1]

    if d_lo:
        # rows hi * 2^d_lo + lo -> lo * 2^d_hi + hi: bit j < d_lo moves to bit j + d_hi
        y = np.ascontiguousarray(x.reshape(2**d_hi, 2**d_lo, c).transpose(1, 0, 2)).reshape(2**d, c)
        passes(y, range(d_lo), d_hi)
        x = np.ascontiguousarray(y.reshape(2**d_lo, 2**d_hi, c).transpose(1, 0, 2)).reshape(2**d, c)
    passes(x, range(d_lo, d), 0)
    return x.reshape(shape)


def _sets_to_masks(sets: np.ndarray) -> np.ndarray:
    return (np.int64(1) << sets).sum(axis=1) if sets.shape[1] else np.zeros(len(sets), dtype=np.int64)


def indices_from_moebius(m: np.ndarray, d: int, index: str, max_order: int) -> dict[int, np.ndarray]:
    """Every index of orders 0..max_order from the Möbius coefficients ``m`` (2^d, ...) of a game.

    Each index is ``I(T) = sum_{U disjoint of T} h_t(|U|) m(T + U)`` with h from
    :func:`moebius_weights`; k-SII aggregates SII (:func:`ksii_from_sii`).  Returns order -> (C(d, t), ...).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley.higher_order import indices_from_moebius
    >>> indices_from_moebius(np.array([0.0, 1.0, 2.0, 2.0]), 2, "SV", 1)[1]
    array([2., 3.])
    """
    return _indices_from_moebius(m, d, index, int(max_order), shapley=False)[0]


@lru_cache(maxsize=64)
def _moebius_plan(index: str, d: int, k: int) -> tuple[dict[int, float], tuple[int, ...], np.ndarray | None]:
    """The orders whose index is h[0] m(T) (order -> h[0]), and the other orders with their weights
    h[|U| - t] of every coalition U stacked as columns (2^d, orders), or None (cached per call shape)."""
    single: dict[int, float] = {}
    weights: dict[int, np.ndarray] = {}
    for t in range(0, k + 1):
        h = moebius_weights(index, d, t, k)
        if np.count_nonzero(h) == 1 and h[0] != 0.0:  # the Möbius coefficients themselves
            single[t] = float(h[0])
        else:
            weights[t] = np.zeros(d + 1)
            weights[t][t:] = h
    if not weights:
        return single, (), None
    hs = np.stack([weights[t][_popcount(d)] for t in weights], axis=1)
    hs.flags.writeable = False
    return single, tuple(weights), hs


@lru_cache(maxsize=64)
def _masks(d: int, t: int) -> np.ndarray:
    out = _sets_to_masks(combinations_array(d, t))
    out.flags.writeable = False
    return out


def _indices_from_moebius(
    m: np.ndarray, d: int, index: str, k: int, *, shapley: bool
) -> tuple[dict[int, np.ndarray], np.ndarray | None]:
    """:func:`indices_from_moebius`, and with ``shapley`` the Shapley values (d, ...) as
    :func:`shapley_from_moebius` gives them, their superset sums one more column of the orders'
    transform (the same numbers: each column's passes are its own)."""
    single, orders, hs = _moebius_plan(index, d, k)
    out: dict[int, np.ndarray] = {t: h0 * m[_masks(d, t)] for t, h0 in single.items()}
    trailing = m.shape[1:]
    M = m.reshape(2**d, -1)  # (coalitions, points x outputs): 2-d, no broadcasting over unit axes
    n_cols = len(orders) + int(shapley)
    phi = None
    if n_cols:
        # once t is fixed the weight of m(U) in I(T) depends on |U| alone: one superset transform of
        # the weighted tables of these orders (k + 1 columns, not the d + 1 strata of the sizes),
        # and of m(U) / |U| for the Shapley values
        buf = np.empty((2**d, n_cols, M.shape[1]))
        if orders:
            assert hs is not None
            np.multiply(hs[:, :, None], M[:, None, :], out=buf[:, : len(orders)])
        if shapley:
            np.divide(M, np.maximum(_popcount(d), 1)[:, None], out=buf[:, -1])
            buf[0, -1] = 0.0  # the empty coalition has no player to share its coefficient with
        z = _butterfly(buf, d, subtract=False, copy=False)
        for i, t in enumerate(orders):
            out[t] = z[_masks(d, t), i].reshape((-1,) + trailing)
        if shapley:
            phi = z[1 << np.arange(d), -1].reshape((d,) + trailing)
    out = {t: out[t] for t in range(k + 1)}
    if index == "k-SII" and k > 1:
        out.update(ksii_from_sii({t: out[t] for t in range(1, k + 1)}, d, k))
    return out, phi


def shapley_from_moebius(m: np.ndarray, d: int) -> np.ndarray:
    """Shapley values phi_j = sum_{U containing j} m(U) / |U| from Möbius coefficients (2^d, ...).

    Returns (d, ...): one superset transform of m / |U| read at the singletons, O(d 2^d).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley.higher_order import shapley_from_moebius
    >>> shapley_from_moebius(np.array([0.0, 1.0, 2.0, 2.0]), 2)
    array([2., 3.])
    """
    pc = _popcount(d).reshape((-1,) + (1,) * (m.ndim - 1))
    z = _superset_sums(np.where(pc > 0, m / np.maximum(pc, 1), 0.0), d)
    return z[1 << np.arange(d)]


def interactions_from_values(values: Any, spec: InteractionSpec) -> InteractionTable:
    """An :class:`InteractionTable` from the game's value on every coalition, (2^d, points, outputs).

    Row m of ``values`` is the coalition of the bits of m (as
    :func:`kexplain.shapley.all_coalitions`); the indices come from the Möbius transform
    (:func:`indices_from_moebius`), O(d^2 2^d) per point: the route for games whose 2^d values
    are cheap (the subset route of the interventional game with few features).

    Parameters
    ----------
    values : array-like of shape (2**d, points, outputs)
        The game's value on every coalition (row m: the coalition of the bits of m).
    spec : InteractionSpec
        Which index, maximum order and selection.

    Returns
    -------
    InteractionTable
        The interactions of every point.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley.higher_order import check_interaction_spec, interactions_from_values
    >>> v = np.array([0.0, 1.0, 2.0, 5.0]).reshape(4, 1, 1)
    >>> interactions_from_values(v, check_interaction_spec({"index": "Moebius"})).as_dict(0)
    {(): 0.0, (0,): 1.0, (1,): 2.0, (0, 1): 2.0}
    """
    return _from_values(np.asarray(values, dtype=np.float64), spec)[0]


def interactions_and_shapley_from_values(
    values: np.ndarray, spec: InteractionSpec
) -> tuple[InteractionTable, np.ndarray]:
    """:func:`interactions_from_values` and the Shapley values (points, d, outputs) from one Möbius transform.

    Parameters
    ----------
    values : ndarray of shape (2**d, points, outputs)
        The game's value on every coalition (row m: the coalition of the bits of m).
    spec : InteractionSpec
        Which index, maximum order and selection.

    Returns
    -------
    tuple of InteractionTable and ndarray of shape (points, d, outputs)
        The interactions and the Shapley values of every point.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley.higher_order import check_interaction_spec, interactions_and_shapley_from_values
    >>> v = np.array([0.0, 1.0, 2.0, 5.0]).reshape(4, 1, 1)
    >>> tab, phi = interactions_and_shapley_from_values(v, check_interaction_spec({"index": "BV"}))
    >>> tab.as_dict(0), phi[0, :, 0]
    ({(): 2.0, (0,): 2.0, (1,): 3.0}, array([2., 3.]))
    """
    tab, phi = _from_values(np.asarray(values, dtype=np.float64), spec, shapley=True)
    assert phi is not None
    return tab, np.moveaxis(phi, 0, 1)


def _from_values(
    v: np.ndarray, spec: InteractionSpec, *, shapley: bool = False
) -> tuple[InteractionTable, np.ndarray | None]:
    if v.ndim != 3:
        raise ValueError(f"values must have shape (2**d, points, outputs), got shape {v.shape}.")
    d = v.shape[0].bit_length() - 1
    if v.shape[0] != 1 << d or d < 1:
        raise ValueError(f"values must have 2**d rows (one per coalition of d >= 1 players), got {v.shape[0]}.")
    if spec.max_order > d:
        raise ValueError(
            f"interactions['max_order'] must be at most the number of features d = {d}, got {spec.max_order}."
        )
    m = moebius_transform(v, d)
    dense, phi = _indices_from_moebius(m, d, spec.index, spec.max_order, shapley=shapley)
    return table_from_dense(dense, spec, d, v[-1], v[0]), phi

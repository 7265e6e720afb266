"""Exact Shapley values of any game by enumerating all 2^d coalitions.

Slow (O(2^d) value-function evaluations) but obviously correct: it is the reference every fast
solver is tested against, and the generic solver for small d.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache
from math import factorial
from typing import Any

import numpy as np

from .._params import Integer, check_param
from .._validation import check_interactions
from .result import ShapleyValues

#: beyond this many players enumeration is refused (2^20 coalitions is already ~1e6 evaluations)
MAX_ENUMERATION_FEATURES = 20


def all_coalitions(d: int) -> np.ndarray:
    """Every coalition of d players: a boolean array (2^d, d) whose row m has the bits of m.

    Parameters
    ----------
    d : int
        Number of players.

    Returns
    -------
    ndarray of bool, shape (2**d, d)
        Row m holds the bits of m.

    Examples
    --------
    >>> from kexplain.shapley import all_coalitions
    >>> all_coalitions(2)
    array([[False, False],
           [ True, False],
           [False,  True],
           [ True,  True]])
    """
    m = np.arange(2**d, dtype=np.int64)[:, None]
    return ((m >> np.arange(d, dtype=np.int64)[None, :]) & 1).astype(bool)


def shapley_weights(d: int) -> np.ndarray:
    """Shapley weights w[s] = s! (d - s - 1)! / d! for coalitions of size s = 0..d-1.

    Examples
    --------
    >>> from kexplain.shapley.enumeration import shapley_weights
    >>> shapley_weights(3) * 6
    array([2., 1., 2.])
    """
    return np.array([factorial(s) * factorial(d - s - 1) / factorial(d) for s in range(d)])


def interaction_weights(d: int, index: str = "sii") -> np.ndarray:
    """Weights w[t] of Delta_jk(S), |S| = t = 0..d-2, in a pairwise interaction index.

    ``"sii"``, the Shapley interaction index (Grabisch & Roubens, 1999): t! (d - t - 2)! / (d - 1)!;
    ``"stii"``, the Shapley-Taylor index of order 2 (Sundararajan, Dhamdhere & Agarwal, 2020,
    section 3): (2 / d) / C(d - 1, t) = 2 t! (d - t - 1)! / d!.

    Examples
    --------
    >>> from kexplain.shapley.enumeration import interaction_weights
    >>> interaction_weights(3), interaction_weights(3, "stii").round(4)
    (array([0.5, 0.5]), array([0.6667, 0.3333]))
    """
    if index == "stii":
        return np.array([2.0 * factorial(t) * factorial(d - t - 1) / factorial(d) for t in range(d - 1)])
    if index != "sii":
        raise ValueError(f"index must be 'sii' or 'stii', got {index!r}.")
    return np.array([factorial(t) * factorial(d - t - 2) / factorial(d - 1) for t in range(d - 1)])


def _check_d(d) -> int:
    check_param(d, "d", Integer(1), note="the number of players")
    if d > MAX_ENUMERATION_FEATURES:
        raise ValueError(
            f"d={d} is too large for exact enumeration (2^{d} coalitions); it accepts "
            f"d <= {MAX_ENUMERATION_FEATURES}. Use kx.sampled_shapley for larger games, or a "
            "structured explainer (product or additive games) that is exact at any d."
        )
    return int(d)


# The coefficients of a batch of coalitions depend only on (d, batch) and not on the game, so
# solvers that enumerate the same d again and again (the subset route, once per block of points)
# would rebuild them on every call; they are cached here.  The bounds keep the cache small: at most
# 2^16 coalitions (a few MiB of first-order coefficients) and 2^12 for the d x d interaction ones.
_CACHE_MAX_FEATURES = 16
_CACHE_MAX_INTERACTION_FEATURES = 12


def _readonly(*arrays: np.ndarray) -> None:
    for a in arrays:
        a.flags.writeable = False


@lru_cache(maxsize=2 * MAX_ENUMERATION_FEATURES)
def _cached_shapley_weights(d: int) -> np.ndarray:
    w = shapley_weights(d)
    _readonly(w)
    return w


@lru_cache(maxsize=4 * MAX_ENUMERATION_FEATURES)
def _cached_interaction_weights(d: int, index: str) -> np.ndarray:
    w2 = interaction_weights(d, index)
    _readonly(w2)
    return w2


def _build_batch_coefficients(
    d: int, start: int, stop: int, w: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Coalitions ``start..stop-1`` (bit j = player j), their sizes and the coefficient of each
    coalition's value in each phi_j."""
    m = np.arange(start, stop, dtype=np.int64)[:, None]
    S = ((m >> np.arange(d, dtype=np.int64)[None, :]) & 1).astype(bool)
    s = S.sum(axis=1)
    # coefficient of v(S) in phi_j: +w[s-1] if j in S, -w[s] otherwise
    coef = np.where(S, w[np.clip(s - 1, 0, d - 1)][:, None], -w[np.clip(s, 0, d - 1)][:, None])
    coef[(s == d)[:, None] & ~S] = 0.0
    return S, s, coef


@lru_cache(maxsize=64)
def _cached_batch_coefficients(d: int, start: int, stop: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    out = _build_batch_coefficients(d, start, stop, _cached_shapley_weights(d))
    _readonly(*out)
    return out


def _batch_coefficients(d: int, start: int, stop: int, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_build_batch_coefficients`, from the cache when d is small enough (read-only arrays)."""
    if d <= _CACHE_MAX_FEATURES:
        return _cached_batch_coefficients(d, start, stop)
    return _build_batch_coefficients(d, start, stop, w)


def _build_interaction_coefficients(d: int, S: np.ndarray, s: np.ndarray, w2: np.ndarray) -> np.ndarray:
    """Coefficient of each coalition's value in each pair's index, shape (batch, d, d)."""
    Si = S.astype(np.int64)
    n_in = Si[:, :, None] + Si[:, None, :]  # (B, d, d)
    t = s[:, None, None] - n_in
    valid = (t >= 0) & (t <= d - 2)
    return np.where(valid, w2[np.clip(t, 0, d - 2)], 0.0) * np.where(n_in == 1, -1.0, 1.0)


@lru_cache(maxsize=16)
def _cached_interaction_coefficients(d: int, start: int, stop: int, index: str) -> np.ndarray:
    S, s, _ = _cached_batch_coefficients(d, start, stop)
    c2 = _build_interaction_coefficients(d, S, s, _cached_interaction_weights(d, index))
    _readonly(c2)
    return c2


def _batch_interaction_coefficients(
    d: int, start: int, stop: int, index: str, S: np.ndarray, s: np.ndarray, w2: np.ndarray
) -> np.ndarray:
    """:func:`_build_interaction_coefficients`, from the cache when d is small enough."""
    if d <= _CACHE_MAX_INTERACTION_FEATURES:
        return _cached_interaction_coefficients(d, start, stop, index)
    return _build_interaction_coefficients(d, S, s, w2)


def _evaluate(value_function: Callable[[np.ndarray], Any], coalitions: np.ndarray, d: int) -> np.ndarray:
    """``value_function(coalitions)`` as a finite float64 array of shape (n,), (n, N) or (n, N, o).

    Complex, text, ragged, misshapen or non-finite outputs are refused with an error naming
    ``value_function`` (never truncated to their real part or cast silently).
    """
    n = coalitions.shape[0]
    accepted = "shape (n_coalitions,), (n_coalitions, n_points) or (n_coalitions, n_points, n_outputs)"
    out = value_function(coalitions)
    try:
        raw = np.asarray(out)
    except ValueError:  # a ragged sequence
        raise ValueError(
            f"value_function must return an array of real numbers of {accepted}; it returned a ragged "
            f"sequence ({type(out).__name__}) for {n} coalitions."
        ) from None
    if raw.dtype.kind == "c":
        raise ValueError(
            "value_function returned complex values; game values must be real numbers (take .real "
            "yourself if the imaginary part is rounding noise)."
        )
    try:
        vals = raw.astype(np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            f"value_function must return real numbers, got values of dtype {raw.dtype} such as "
            f"{raw.ravel()[0] if raw.size else out!r}."
        ) from None
    if vals.ndim == 0 or vals.ndim > 3 or vals.shape[0] != n:
        raise ValueError(
            f"value_function must return an array of {accepted}, one entry per coalition: given {n} "
            f"coalitions of shape {coalitions.shape}, it returned shape {vals.shape}."
        )
    if not np.all(np.isfinite(vals)):
        raise ValueError("value_function returned NaN or infinite values; game values must be finite.")
    return vals


def _to_points_first(acc: np.ndarray) -> np.ndarray:
    """(d, *trailing) -> (d,) or (N, d) or (N, d, ...): the feature axis after the points axis."""
    if acc.ndim == 1:
        return acc
    return np.moveaxis(acc, 0, 1)


def exact_shapley(
    value_function: Callable[[np.ndarray], np.ndarray],
    d: int,
    *,
    interactions: bool | str | Mapping[str, Any] | None = False,
    batch_size: int = 4096,
) -> ShapleyValues:
    """Exact Shapley values of the game ``value_function`` over ``d`` players.

    Parameters
    ----------
    value_function : callable
        Takes a boolean array of coalitions, shape (n_coalitions, d), and returns the game values,
        shape (n_coalitions,) or (n_coalitions, n_points) or (n_coalitions, n_points, n_outputs).
    d : int
        Number of players, at most ``MAX_ENUMERATION_FEATURES``.
    interactions : bool or {"sii", "stii"}
        Also return pairwise interaction values: True or ``"sii"`` the Shapley interaction index
        (Grabisch & Roubens, 1999), ``"stii"`` the Shapley-Taylor index of order 2 (Sundararajan,
        Dhamdhere & Agarwal, 2020); anything else is a TypeError.  They come in the layout of
        every kexplain explainer (shap's): I_jk / 2 off the diagonal, phi_j minus the row's
        off-diagonal entries on it, so each row sums to phi_j (for STII the diagonal is then
        v({j}) - v(empty set), as in shap's ``ExactExplainer``).  A mapping
        ``{"index": ..., "max_order": k, "top_k": ..., "threshold": ...}`` asks for an index of
        any order instead (SV, BV, SII, k-SII, STII, FSII, BII or Moebius, see
        :mod:`kexplain.shapley.higher_order`): ``interactions`` is then a
        :class:`~kexplain.shapley.higher_order.InteractionTable` (its points are the game's
        points; one point and output for a scalar game) and ``interaction_index`` the index.
    batch_size : int
        Coalitions evaluated per call of ``value_function``.

    Returns
    -------
    ShapleyValues
        With ``values`` of shape (d,), (N, d) or (N, d, o), ``v_empty`` and ``v_full`` (the values
        of the empty and full coalitions) and, when asked, ``interactions`` of shape (d, d),
        (N, d, d) or (N, d, d, o) in the layout above with ``interaction_index``, and
        ``n_evaluations`` = 2^d.

    Examples
    --------
    Unanimity game of players 0 and 2 (worth 1 when both are present): they share the value,
    and the pair's index, 1, is split between the two off-diagonal entries.

    >>> import numpy as np
    >>> from kexplain.shapley import exact_shapley
    >>> res = exact_shapley(lambda S: (S[:, 0] & S[:, 2]).astype(float), 3, interactions=True)
    >>> res.values, res.interactions
    (array([0.5, 0. , 0.5]), array([[0. , 0. , 0.5],
           [0. , 0. , 0. ],
           [0.5, 0. , 0. ]]))
    >>> v = lambda S: np.where(S[:, 0], 1.0, 0.0) + 2.0 * (S[:, 0] & S[:, 1] & S[:, 2])
    >>> np.round(exact_shapley(v, 3, interactions="stii").interactions, 3) + 0.0
    array([[1.   , 0.333, 0.333],
           [0.333, 0.   , 0.333],
           [0.333, 0.333, 0.   ]])

    Any order and index: the Möbius coefficients of the same game.

    >>> res = exact_shapley(v, 3, interactions={"index": "Moebius", "max_order": 3})
    >>> {T: val for T, val in res.interactions.as_dict().items() if val}
    {(0,): 1.0, (0, 1, 2): 2.0}
    """
    if isinstance(interactions, Mapping):
        return _exact_any_order(value_function, d, interactions, batch_size)
    d = _check_d(d)
    if not callable(value_function):
        raise TypeError(f"value_function must be callable, got {type(value_function).__name__}.")
    index = check_interactions(interactions)
    check_param(batch_size, "batch_size", Integer(1))
    w = _cached_shapley_weights(d)
    w2 = _cached_interaction_weights(d, index) if (index is not None and d >= 2) else None
    n_total = 2**d
    acc = None
    acc2 = None
    v_empty = v_full = None
    for start in range(0, n_total, batch_size):
        stop = min(n_total, start + batch_size)
        S, s, coef = _batch_coefficients(d, start, stop, w)
        vals = _evaluate(value_function, S, d)  # (B, *trailing)
        flat = vals.reshape(vals.shape[0], -1)
        contrib = coef.T @ flat  # (d, prod(trailing))
        acc = contrib if acc is None else acc + contrib
        if start == 0:
            v_empty = vals[0]
        if stop == n_total:
            v_full = vals[-1]
        if w2 is not None:
            assert index is not None
            c2 = _batch_interaction_coefficients(d, start, stop, index, S, s, w2)
            contrib2 = np.einsum("bjk,bq->jkq", c2, flat)
            acc2 = contrib2 if acc2 is None else acc2 + contrib2
    assert acc is not None and v_empty is not None and v_full is not None  # 2^d >= 2 coalitions were evaluated
    trailing = v_empty.shape
    values = _to_points_first(acc.reshape((d,) + trailing))
    result = ShapleyValues(values=values, v_full=np.asarray(v_full), v_empty=np.asarray(v_empty), n_evaluations=n_total)
    if index is not None:
        # shap's layout: half the index off the diagonal, phi_j minus the row's rest on it
        half = np.zeros((d, d, acc.shape[1])) if acc2 is None else 0.5 * acc2
        idx = np.arange(d)
        half[idx, idx] = 0.0
        half[idx, idx] = acc - half.sum(axis=1)
        inter = half.reshape((d, d) + trailing)
        result.interaction_index = index
        if inter.ndim > 2:
            inter = np.moveaxis(inter, (0, 1), (1, 2))
        result.interactions = inter
    return result


def _exact_any_order(
    value_function: Callable[[np.ndarray], Any], d: Any, interactions: Mapping[str, Any], batch_size: int
) -> ShapleyValues:
    """``exact_shapley`` with ``interactions`` a mapping: any index of any order, by enumeration."""
    from .higher_order import check_interaction_spec, indices_from_moebius, moebius_transform, table_from_dense

    if _is_positive_int(d) and d > MAX_ENUMERATION_FEATURES:
        raise ValueError(
            f"interactions={dict(interactions)!r} on a game given as a callable enumerates all 2^d coalitions, "
            f"so it accepts d <= {MAX_ENUMERATION_FEATURES}, got d={d}. Product games (ProductKernelExplainer, "
            "PrefShapExplainer, kexplain.shapley.higher_order.solve_product_interactions) are exact at any d."
        )
    d = _check_d(d)
    if not callable(value_function):
        raise TypeError(f"value_function must be callable, got {type(value_function).__name__}.")
    spec = check_interaction_spec(interactions, d)
    check_param(batch_size, "batch_size", Integer(1))
    n_total = 2**d
    parts = []
    for start in range(0, n_total, batch_size):
        m = np.arange(start, min(n_total, start + batch_size), dtype=np.int64)[:, None]
        S = ((m >> np.arange(d, dtype=np.int64)[None, :]) & 1).astype(bool)
        parts.append(_evaluate(value_function, S, d))
    v = np.concatenate(parts, axis=0)
    trailing = v.shape[1:]
    flat = v.reshape(n_total, *((trailing[0],) if trailing else (1,)), -1)  # (2^d, N, o)
    mob = moebius_transform(flat, d)
    dense = indices_from_moebius(mob, d, spec.index, spec.max_order)
    table = table_from_dense(dense, spec, d, flat[-1], flat[0])
    phi = indices_from_moebius(mob, d, "SV", 1)[1]  # (d, N, o)
    values = np.moveaxis(phi, 0, 1).reshape((trailing[0], d) + trailing[1:]) if trailing else phi[:, 0, 0]
    return ShapleyValues(
        values=values,
        v_full=np.asarray(v[-1]),
        v_empty=np.asarray(v[0]),
        interactions=table,
        interaction_index=spec.index,
        n_evaluations=n_total,
    )


def _is_positive_int(d: Any) -> bool:
    return bool(not isinstance(d, (bool, np.bool_)) and isinstance(d, (int, np.integer)) and d >= 1)

"""The interaction indices' definitions: names, the ``interactions={...}`` spec, weights and sets.

What every route of :mod:`kexplain.shapley.higher_order` shares and no route computes with: the
index names (:data:`INDICES`, shapiq's spelling, and which are efficient), the validation of
``interactions={"index": ..., "max_order": ..., "top_k": ..., "threshold": ...}``
(:func:`check_interaction_spec`), the lexicographic order of the sets of each size
(:func:`combinations_array`), each index's weight on the Möbius coefficients of the supersets of a
set (:func:`moebius_weights`, FSII's in :func:`fsii_weights`) and the k-SII aggregation of SII with
Bernoulli numbers (:func:`ksii_from_sii`).  The formulas and their papers are in
:mod:`kexplain.shapley.higher_order`'s docstring.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from math import comb
from typing import Any

import numpy as np

#: the indices, in shapiq's spelling
INDICES = ("SV", "BV", "SII", "k-SII", "STII", "FSII", "BII", "Moebius")

_ALIASES = {
    "sv": "SV",
    "shapley": "SV",
    "bv": "BV",
    "banzhaf": "BV",
    "sii": "SII",
    "k-sii": "k-SII",
    "ksii": "k-SII",
    "k_sii": "k-SII",
    "stii": "STII",
    "fsii": "FSII",
    "faith-shap": "FSII",
    "bii": "BII",
    "moebius": "Moebius",
    "mobius": "Moebius",
    "möbius": "Moebius",
}

#: indices whose orders >= 1 sum to v(D) - v(empty set)
EFFICIENT_INDICES = ("SV", "k-SII", "STII", "FSII", "Moebius")


_SPEC_KEYS = ("index", "max_order", "top_k", "threshold")


@dataclass(frozen=True)
class InteractionSpec:
    """Which interactions an ``explain(..., interactions={...})`` call asks for.

    Attributes
    ----------
    index : str
        One of :data:`INDICES` (shapiq's names).
    max_order : int
        Highest order computed (1 for SV and BV; all of 1..d for Möbius when it equals d).
    top_k : int or None
        Keep only the ``top_k`` largest in absolute value of each order >= 1, per point.
    threshold : float or None
        Keep only the values of orders >= 1 whose absolute value reaches ``threshold``.

    Examples
    --------
    >>> from kexplain.shapley.higher_order import check_interaction_spec
    >>> check_interaction_spec({"index": "k-SII", "max_order": 3}, d=5)
    InteractionSpec(index='k-SII', max_order=3, top_k=None, threshold=None)
    """

    index: str
    max_order: int
    top_k: int | None = None
    threshold: float | None = None

    @property
    def sparse(self) -> bool:
        """Whether a selection (``top_k`` or ``threshold``) drops values."""
        return self.top_k is not None or self.threshold is not None


def _is_int(x: Any) -> bool:
    return not isinstance(x, (bool, np.bool_)) and isinstance(x, (int, np.integer))


def check_interaction_spec(value: Any, d: int | None = None, name: str = "interactions") -> InteractionSpec:
    """Validate ``interactions={"index": ..., "max_order": ..., "top_k": ..., "threshold": ...}``.

    Parameters
    ----------
    value : Mapping
        ``index`` (required): one of ``SV``, ``BV``, ``SII``, ``k-SII``, ``STII``, ``FSII``, ``BII``,
        ``Moebius`` (case ignored); ``max_order`` (default 1 for SV and BV, else 2), an integer in
        1..d; ``top_k`` (a positive integer) and ``threshold`` (a number >= 0), both optional.
    d : int, optional
        Number of players, to check ``max_order <= d``.
    name : str
        The argument's name, used in messages.

    Returns
    -------
    InteractionSpec

    Examples
    --------
    >>> from kexplain.shapley.higher_order import check_interaction_spec
    >>> check_interaction_spec({"index": "moebius", "max_order": 2, "top_k": 5}).index
    'Moebius'
    """
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a mapping such as {{'index': 'k-SII', 'max_order': 3}}, got {value!r}.")
    unknown = [k for k in value if k not in _SPEC_KEYS]
    if unknown:
        raise ValueError(f"{name} has unknown keys {unknown}; it accepts {list(_SPEC_KEYS)}.")
    if "index" not in value:
        raise ValueError(f"{name} needs an 'index', one of {list(INDICES)}.")
    raw = value["index"]
    index = _ALIASES.get(raw.lower()) if isinstance(raw, str) else None
    if index is None:
        raise ValueError(f"{name}['index'] must be one of {list(INDICES)} (case ignored), got {raw!r}.")
    default = 1 if index in ("SV", "BV") else 2
    k = value.get("max_order", default)
    if not _is_int(k) or k < 1:
        raise ValueError(f"{name}['max_order'] must be a positive integer (the highest order), got {k!r}.")
    k = int(k)
    if index in ("SV", "BV") and k != 1:
        raise ValueError(f"{name}['max_order'] must be 1 for index {index!r} (values of single players), got {k}.")
    if d is not None and k > d:
        raise ValueError(f"{name}['max_order'] must be at most the number of features d = {d}, got {k}.")
    top_k = value.get("top_k")
    if top_k is not None and (not _is_int(top_k) or top_k < 1):
        raise ValueError(f"{name}['top_k'] must be a positive integer or None, got {top_k!r}.")
    thr = value.get("threshold")
    if thr is not None:
        if isinstance(thr, (bool, np.bool_)) or not isinstance(thr, (int, float, np.integer, np.floating)):
            raise TypeError(f"{name}['threshold'] must be a number >= 0 or None, got {thr!r}.")
        if not np.isfinite(thr) or thr < 0:
            raise ValueError(f"{name}['threshold'] must be a finite number >= 0, got {thr!r}.")
        thr = float(thr)
    if index in ("SV", "BV") and (top_k is not None or thr is not None):
        raise ValueError(f"{name}: top_k and threshold select interactions; index {index!r} has one value per feature.")
    return InteractionSpec(index, k, None if top_k is None else int(top_k), thr)


def combinations_array(d: int, k: int) -> np.ndarray:
    """All subsets of size ``k`` of ``range(d)`` in lexicographic order, shape (C(d, k), k).

    Examples
    --------
    >>> from kexplain.shapley.higher_order import combinations_array
    >>> combinations_array(3, 2)
    array([[0, 1],
           [0, 2],
           [1, 2]])
    """
    return _combinations_cached(int(d), int(k))


@lru_cache(maxsize=64)
def _combinations_cached(d: int, k: int) -> np.ndarray:
    n = comb(d, k)
    if k == 0:
        out = np.zeros((1, 0), dtype=np.int64)
    else:
        out = np.fromiter((j for T in combinations(range(d), k) for j in T), dtype=np.int64, count=n * k).reshape(n, k)
    out.flags.writeable = False  # shared between calls
    return out


@lru_cache(maxsize=32)
def _popcount(d: int) -> np.ndarray:
    m = np.arange(2**d, dtype=np.int64)
    out = ((m[:, None] >> np.arange(d, dtype=np.int64)[None, :]) & 1).sum(axis=1)
    out.flags.writeable = False
    return out


@lru_cache(maxsize=32)
def _pascal(d: int, k: int) -> np.ndarray:
    """C(n, j) for n = 0..d and j = 0..k (k small: the entries fit in int64)."""
    out = np.zeros((d + 1, k + 1), dtype=np.int64)
    for n in range(d + 1):
        for j in range(min(n, k) + 1):
            out[n, j] = comb(n, j)
    return out


class _Ranker:
    """Position of a sorted subset of size k in :func:`combinations_array` (d, k), vectorised."""

    def __init__(self, d: int, k: int) -> None:
        self.binom = _pascal(d, k)
        self.k = k
        combos = combinations_array(d, k)
        self.pos = np.empty(len(combos), dtype=np.int64)
        self.pos[self._colex(combos)] = np.arange(len(combos))

    def _colex(self, sets: np.ndarray) -> np.ndarray:
        r = np.zeros(sets.shape[0], dtype=np.int64)
        for i in range(self.k):
            r += self.binom[sets[:, i], i + 1]
        return r

    def __call__(self, sets: np.ndarray) -> np.ndarray:
        return self.pos[self._colex(sets)]


def bernoulli_numbers(n: int) -> np.ndarray:
    """B_0..B_n with B_1 = -1/2 (the convention of the k-SII aggregation).

    Examples
    --------
    >>> from kexplain.shapley.higher_order import bernoulli_numbers
    >>> bernoulli_numbers(4).round(4) + 0.0
    array([ 1.    , -0.5   ,  0.1667,  0.    , -0.0333])
    """
    B = np.zeros(n + 1)
    B[0] = 1.0
    for m in range(1, n + 1):
        B[m] = -sum(comb(m + 1, j) * B[j] for j in range(m)) / (m + 1)
    return B


def ksii_from_sii(sii: Mapping[int, np.ndarray], d: int, k: int) -> dict[int, np.ndarray]:
    """k-SII of orders 1..k from SII of orders 1..k (each (C(d, t), ...), lexicographic sets).

    ``k-SII(T) = sum_{S superset of T, |S| <= k} B_{|S| - |T|} SII(S)`` (Bordt & von Luxburg, 2023,
    with the Bernoulli numbers B_1 = -1/2); the top order is SII itself.

    Examples
    --------
    Order 1 of 2-SII is phi_j - (1/2) sum_k SII_jk.

    >>> import numpy as np
    >>> from kexplain.shapley.higher_order import ksii_from_sii
    >>> out = ksii_from_sii({1: np.array([1.0, 2.0]), 2: np.array([0.5])}, 2, 2)
    >>> out[1], out[2]
    (array([0.75, 1.75]), array([0.5]))
    """
    B = bernoulli_numbers(k)
    out = {t: np.array(sii[t], dtype=np.float64, copy=True) for t in range(1, k + 1)}
    for t in range(1, k):
        for s in range(t + 1, k + 1):
            if B[s - t] == 0.0:
                continue
            src = np.asarray(sii[s], dtype=np.float64)
            flat = src.reshape(src.shape[0], -1)
            idx = _subset_positions(d, s, t)  # (C(d, s) * C(s, t),) positions of the t-subsets
            if flat.shape[1] == 0:
                continue
            rep = np.repeat(flat, comb(s, t), axis=0)
            add = np.stack([np.bincount(idx, rep[:, c], minlength=comb(d, t)) for c in range(flat.shape[1])], axis=1)
            out[t] += B[s - t] * add.reshape(out[t].shape)
    return out


@lru_cache(maxsize=64)
def _subset_positions(d: int, s: int, t: int) -> np.ndarray:
    """For each set S of size s (lexicographic) its C(s, t) subsets of size t, as positions in
    :func:`combinations_array` (d, t), S-major: what k-SII's aggregation adds to (cached: the same
    for every call with these sizes)."""
    ranker = _Ranker(d, t)
    S = combinations_array(d, s)
    pos = np.array(list(combinations(range(s), t)), dtype=np.int64)  # (C(s, t), t)
    out = ranker(S[:, pos].reshape(-1, t))
    out.flags.writeable = False
    return out


def fsii_weights(d: int, k: int, t: int) -> np.ndarray:
    """h[u], u = 0..d - t: FSII(T) = sum_{U disjoint of T, |U| = u} h[u] m(T + U) for |T| = t <= k.

    Tsai, Yeh & Ravikumar (2023, theorem 19): h[0] = 1, h[u] = 0 while t + u <= k, and
    (-1)^(k - t) t / (k + t) C(k, t) C(s - 1, k) / C(s + k - 1, k + t) with s = t + u beyond.

    Examples
    --------
    >>> from kexplain.shapley.higher_order import fsii_weights
    >>> fsii_weights(3, 1, 1).round(4)                 # FSII of order 1 is the Shapley value
    array([1.    , 0.5   , 0.3333])
    """
    h = np.zeros(d - t + 1)
    h[0] = 1.0
    if t == 0:
        return h
    lead = (-1.0) ** (k - t) * t / (k + t) * comb(k, t)
    for u in range(1, d - t + 1):
        s = t + u
        if s > k:
            h[u] = lead * comb(s - 1, k) / comb(s + k - 1, k + t)
    return h


def moebius_weights(index: str, d: int, t: int, k: int) -> np.ndarray:
    """h[u], u = 0..d - t: the index of a set T of size t is ``sum_{U disjoint of T} h[|U|] m(T + U)``.

    SII (and SV, and k-SII before its aggregation) 1 / (u + 1), BII and BV 2^-u, STII's top order
    1 / C(u + k, k), Möbius and STII below order k the point u = 0, FSII :func:`fsii_weights`.  The
    empty set (t = 0) follows the module's convention: v(empty set), the point u = 0, except for SII,
    BII and BV (their weighted mean of the game).

    Parameters
    ----------
    index : str
        One of :data:`INDICES`.
    d : int
        Number of players.
    t : int
        Size of the set, 0..k.
    k : int
        The highest order asked for (STII and FSII depend on it).

    Returns
    -------
    ndarray of shape (d - t + 1,)
        The weight of the Möbius coefficients of the supersets T + U by the size of U.

    Examples
    --------
    >>> from kexplain.shapley.higher_order import moebius_weights
    >>> moebius_weights("SII", 3, 1, 2)                 # the Shapley value: 1, 1/2, 1/3
    array([1.        , 0.5       , 0.33333333])
    >>> moebius_weights("BII", 3, 2, 2)
    array([1. , 0.5])
    """
    u = np.arange(d - t + 1)
    if t == 0 and index not in ("SII", "BII", "BV"):
        return (u == 0).astype(float)
    if index in ("SII", "SV", "k-SII"):
        return 1.0 / (u + 1.0)
    if index in ("BII", "BV"):
        return 0.5**u
    if index == "Moebius" or (index == "STII" and t < k):
        return (u == 0).astype(float)
    if index == "STII":
        return np.array([1.0 / comb(x + k, k) for x in u])
    if index == "FSII":
        return fsii_weights(d, k, t)
    raise ValueError(f"index must be one of {list(INDICES)}, got {index!r}.")

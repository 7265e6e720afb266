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
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from math import comb
from typing import Any

import numpy as np

from .quadrature import gauss_legendre_01, nodes_for_degree

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

#: bytes of the (points, rows, nodes, sets) work arrays of one chunk of interaction sets
_WORK_BYTES = 32 * 2**20

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


def _measure(index: str, d: int, t: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of the measure mu of sets of order t (module docstring)."""
    zero = (np.zeros(1), np.ones(1))
    if index == "Moebius":
        return zero
    if index in ("BII", "BV"):
        return np.full(1, 0.5), np.ones(1)
    if index in ("SII", "SV", "k-SII"):
        if t == 0 and index != "SII":
            return zero
        return gauss_legendre_01(nodes_for_degree(d - t))
    if index == "STII":
        if t < k:
            return zero
        u, w = gauss_legendre_01(nodes_for_degree(d - 1))
        return u, w * k * (1.0 - u) ** (k - 1)
    raise ValueError(f"no measure for index {index!r}")  # FSII goes through _size_weighted


def _log_parts(g: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    zero = g == 0.0
    lg = np.log(np.where(zero, 1.0, np.abs(g)))
    return lg, zero.astype(np.int64), (g < 0.0).astype(np.int64)


def _sets_chunk(n_sets: int, per_set: int) -> int:
    return int(max(1, min(n_sets, _WORK_BYTES // (8 * max(1, per_set)))))


def _leave_out_integrals(
    a: np.ndarray, b: np.ndarray, c: np.ndarray, sets: np.ndarray, u: np.ndarray, w: np.ndarray
) -> np.ndarray:
    """sum_r c_r prod_{T} (a - b) sum_q w_q prod_{l not in T} g_rl(u_q) for every T in ``sets``.

    a, b (p, r, d); c (r, o); sets (n, t).  Returns (n, p, o).  The leave-T-out products are
    formed in log space with a count of exact zeros (no division by a small or zero factor).
    """
    p, r, d = a.shape
    n, t = sets.shape
    o = c.shape[1]
    g = (1.0 - u)[None, None, :, None] * b[:, :, None, :] + u[None, None, :, None] * a[:, :, None, :]  # (p, r, Q, d)
    lg, zc, ng = _log_parts(g)
    tot_l, tot_z, tot_n = lg.sum(-1), zc.sum(-1), ng.sum(-1)
    diff = a - b
    out = np.empty((n, p, o))
    Q = len(u)
    chunk = _sets_chunk(n, p * r * Q * 3)
    for s0 in range(0, n, chunk):
        T = sets[s0 : s0 + chunk]  # (m, t)
        if t:
            ll = tot_l[..., None] - lg[..., T].sum(-1)  # (p, r, Q, m)
            zz = tot_z[..., None] - zc[..., T].sum(-1)
            nn = tot_n[..., None] - ng[..., T].sum(-1)
            dprod = diff[..., T].prod(-1)  # (p, r, m)
        else:
            ll, zz, nn = tot_l[..., None], tot_z[..., None], tot_n[..., None]
            dprod = np.ones((p, r, 1))
        with np.errstate(under="ignore", over="ignore"):
            prods = np.where(zz > 0, 0.0, np.where(nn % 2 == 1, -1.0, 1.0) * np.exp(ll))
        integ = np.einsum("prqm,q->prm", prods, w)  # (p, r, m)
        out[s0 : s0 + len(T)] = np.einsum("prm,ro->mpo", integ * dprod, c)
    return out


def _size_weighted(a: np.ndarray, b: np.ndarray, c: np.ndarray, sets: np.ndarray, h: np.ndarray) -> np.ndarray:
    """sum_r c_r prod_T (a - b) sum_{U disjoint of T} h[|U|] prod_U (a - b) prod_{rest} b, every T in ``sets``.

    The inner sum is sum_u h[u] e_u with e_u the coefficients of P(z) = prod_{l not in T}
    (b_l + z (a_l - b_l)), a polynomial of degree m = d - t; with the m + 1 roots of unity
    z_q, e_u = (1 / (m + 1)) sum_q P(z_q) z_q^-u, so the sum is sum_q omega_q P(z_q) with
    omega_q = (1 / (m + 1)) sum_u h[u] z_q^-u, and P(z_q) is the full product over the factors
    of T removed (complex log space, with a count of exact zeros).  Returns (n, p, o).
    """
    p, r, d = a.shape
    n, t = sets.shape
    o = c.shape[1]
    m = d - t
    q = np.arange(m + 1)
    z = np.exp(2j * np.pi * q / (m + 1))
    omega = (np.exp(-2j * np.pi * np.outer(q, np.arange(m + 1)) / (m + 1)) @ h) / (m + 1)  # (Q,)
    diff = a - b
    g = b[:, :, None, :] + z[None, None, :, None] * diff[:, :, None, :]  # (p, r, Q, d) complex
    zero = g == 0
    lg = np.log(np.where(zero, 1.0, g))
    zc = zero.astype(np.int64)
    tot_l, tot_z = lg.sum(-1), zc.sum(-1)
    out = np.empty((n, p, o))
    chunk = _sets_chunk(n, p * r * (m + 1) * 4)
    for s0 in range(0, n, chunk):
        T = sets[s0 : s0 + chunk]
        if t:
            ll = tot_l[..., None] - lg[..., T].sum(-1)
            zz = tot_z[..., None] - zc[..., T].sum(-1)
            dprod = diff[..., T].prod(-1)
        else:
            ll, zz = tot_l[..., None], tot_z[..., None]
            dprod = np.ones((p, r, 1))
        with np.errstate(under="ignore", over="ignore"):
            prods = np.where(zz > 0, 0.0, np.exp(ll))
        integ = np.einsum("prqm,q->prm", prods, omega).real
        out[s0 : s0 + len(T)] = np.einsum("prm,ro->mpo", integ * dprod, c)
    return out


def product_interactions(a: Any, b: Any, c: Any, index: str, max_order: int) -> dict[int, np.ndarray]:
    """Every interaction of orders 0..max_order of one dense block of a product game.

    Parameters
    ----------
    a : array of shape (p, r, d)
        Factor of feature j in row r when j is present, for each of p points.
    b : array broadcastable to (p, r, d), or a scalar
        Factor when j is absent.
    c : array of shape (r, o) or (r,)
        Row weights.
    index : str
        One of :data:`INDICES` (validated by :func:`check_interaction_spec`).
    max_order : int
        Highest order, 1..d.

    Returns
    -------
    dict
        Order t -> array (C(d, t), p, o), the sets in the order of :func:`combinations_array`;
        order 0 (one set, the empty set) holds the module's convention for the empty set.
        Additive over blocks of rows.

    Examples
    --------
    v(S) = 2 * [0 and 1 in S], as a product game with one row (a = 1, b = 0 for players 0, 1).

    >>> import numpy as np
    >>> from kexplain.shapley.higher_order import product_interactions
    >>> out = product_interactions(np.ones((1, 1, 3)), np.array([0.0, 0.0, 1.0]), [2.0], "Moebius", 2)
    >>> out[2][:, 0, 0]                               # pairs (0, 1), (0, 2), (1, 2)
    array([2., 0., 0.])
    >>> product_interactions(np.ones((1, 1, 3)), np.array([0.0, 0.0, 1.0]), [2.0], "SV", 1)[1][:, 0, 0]
    array([1., 1., 0.])
    """
    a = np.asarray(a, dtype=np.float64)
    if a.ndim != 3:
        raise ValueError(f"a must have shape (points, rows, features), got shape {a.shape}.")
    p, r, d = a.shape
    b = np.ascontiguousarray(np.broadcast_to(np.asarray(b, dtype=np.float64), a.shape))
    c = np.asarray(c, dtype=np.float64)
    if c.ndim == 1:
        c = c[:, None]
    if c.ndim != 2 or c.shape[0] != r:
        raise ValueError(f"c must have shape (rows, outputs) with rows = {r}, got shape {c.shape}.")
    for arr, nm in ((a, "a"), (b, "b"), (c, "c")):
        if not np.all(np.isfinite(arr)):
            raise ValueError(
                f"{nm} contains NaN or infinite values; the product-game engine accepts finite numbers only."
            )
    if index not in INDICES:
        raise ValueError(f"index must be one of {list(INDICES)}, got {index!r}.")
    if not _is_int(max_order) or not 1 <= max_order <= d:
        raise ValueError(f"max_order must be an integer in 1..{d}, got {max_order!r}.")
    k = int(max_order)
    rules = {t: _rule(index, d, t, k) for t in range(0, k + 1)}
    out = _integrate_block(a, b, c, rules, d)
    if index == "k-SII" and k > 1:
        out.update(ksii_from_sii({t: out[t] for t in range(1, k + 1)}, d, k))
    return out


@dataclass(frozen=True)
class _Rule:
    """How sets of one order are integrated: nodes (real on [0, 1], or complex roots of unity for
    the size-weighted sums) shared by the orders of the same ``key``, and this order's weights."""

    key: str
    nodes: np.ndarray
    weights: np.ndarray
    h: np.ndarray | None = None  # the size weights, for the log-space fallback of complex rules


def _rule(index: str, d: int, t: int, k: int) -> _Rule:
    if index == "FSII":
        h = fsii_weights(d, k, t)
        if t == 0:
            return _Rule("zero", np.zeros(1), np.ones(1))
        n = d + 1  # more roots of unity than the degree d - t of every order's polynomial
        q = np.arange(n)
        z = np.exp(2j * np.pi * q / n)
        omega = (np.exp(-2j * np.pi * np.outer(q, np.arange(len(h))) / n) @ h) / n
        return _Rule("roots", z, omega, h)
    base = "SII" if index == "k-SII" and t else index
    u, w = _measure(base, d, t, k)
    if len(u) == 1:
        return _Rule(f"point{u[0]}", u, w)
    if base == "STII":
        return _Rule("gl", *_stii_on_common_nodes(d, k))
    # SII-type orders share one rule with enough nodes for the highest degree (d, the empty set)
    uu, ww = gauss_legendre_01(nodes_for_degree(d))
    return _Rule("gl", uu, ww)


def _stii_on_common_nodes(d: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    u, w = gauss_legendre_01(nodes_for_degree(d))
    return u, w * k * (1.0 - u) ** (k - 1)


#: the fast route keeps every partial product of a (point, row) pair within these magnitudes
_SAFE_LOG_HI = np.log(1e290)
_SAFE_LOG_LO = np.log(1e-290)


def _integrate_block(
    a: np.ndarray, b: np.ndarray, c: np.ndarray, rules: Mapping[int, _Rule], d: int
) -> dict[int, np.ndarray]:
    """sum_r c_r prod_T (a - b) sum_q w_q prod_{l not in T} g_rl(u_q), every T of each order.

    Fast route: prod_{l not in T} g = G / prod_{l in T} g with G the full product, so the value
    of T is sum_K W_K prod_{l in T} U_Kl over K = (row, node) with U = (a - b) / g and
    W = c w G: a matrix product per prefix of T (``_contract``).  (point, row) pairs with a zero
    factor, or whose products could leave float64's range, go through the log-space route.
    """
    p, r, _ = a.shape
    o = c.shape[1]
    diff = a - b
    out = {t: np.zeros((comb(d, t), p, o)) for t in rules}
    by_key: dict[str, list[int]] = {}
    for t, rule in rules.items():
        by_key.setdefault(rule.key, []).append(t)
    for orders in by_key.values():
        u = rules[orders[0]].nodes
        kmax = max(orders)
        if np.iscomplexobj(u):
            g = b[:, :, None, :] + u[None, None, :, None] * diff[:, :, None, :]
        else:
            g = (1.0 - u)[None, None, :, None] * b[:, :, None, :] + u[None, None, :, None] * a[:, :, None, :]
        absg = np.abs(g)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
            logg = np.log(absg)
            logG = logg.sum(axis=-1)  # (p, r, Q)
            U = np.where(absg > 0, diff[:, :, None, :] / np.where(absg > 0, g, 1.0), 0.0)
            logU = np.log(np.abs(U))
        finite_U = np.isfinite(logU)
        umax = np.where(finite_U, logU, -np.inf).max(axis=(2, 3))
        umin = np.where(finite_U, logU, np.inf).min(axis=(2, 3))
        safe = (
            (absg > 0).all(axis=(2, 3))
            & (logG.max(axis=2) + kmax * np.maximum(umax, 0.0) < _SAFE_LOG_HI)
            & (logG.min(axis=2) + kmax * np.minimum(np.where(np.isfinite(umin), umin, 0.0), 0.0) > _SAFE_LOG_LO)
        )
        with np.errstate(under="ignore", over="ignore"):
            G = np.prod(g, axis=-1)  # (p, r, Q)
        for t in orders:
            rule = rules[t]
            for pi in range(p):
                rows = safe[pi]
                if rows.any():
                    Up = U[pi, rows].reshape(-1, d)
                    Wp = (c[rows][:, None, :] * (rule.weights[None, :] * G[pi, rows])[:, :, None]).reshape(-1, o)
                    res = _contract(Up, Wp, d, t)
                    out[t][:, pi] += res.real if np.iscomplexobj(res) else res
                if not rows.all():
                    bad = ~rows
                    sets = combinations_array(d, t)
                    ab, bb, cb = a[pi : pi + 1, bad], b[pi : pi + 1, bad], c[bad]
                    if rule.h is not None:
                        out[t][:, pi] += _size_weighted(ab, bb, cb, sets, rule.h)[:, 0]
                    else:
                        out[t][:, pi] += _leave_out_integrals(ab, bb, cb, sets, rule.nodes, rule.weights)[:, 0]
    return out


def _contract(U: np.ndarray, W: np.ndarray, d: int, t: int) -> np.ndarray:
    """sum_K W_Ko prod_{l in T} U_Kl for every T of size t (lexicographic), shape (C(d, t), o).

    Sets sharing their first t - 2 elements P come from one matrix product
    (U_{>max P} * W prod_P U)^T U_{>max P}, whose strict upper triangle lists the last two
    elements in lexicographic order: cost about K d^t / t! multiply-adds, done by BLAS.
    """
    o = W.shape[1]
    if t == 0:
        return W.sum(axis=0)[None, :]
    if t == 1:
        return U.T @ W
    out = np.empty((comb(d, t), o), dtype=np.result_type(U, W))
    for oi in range(o):
        pos = 0
        for P in combinations(range(d), t - 2):
            m = P[-1] + 1 if P else 0
            if d - m < 2:
                continue
            wp = W[:, oi] * np.prod(U[:, list(P)], axis=1) if P else W[:, oi]
            Us = U[:, m:]
            M = (Us * wp[:, None]).T @ Us
            iu = np.triu_indices(d - m, 1)
            n = len(iu[0])
            out[pos : pos + n, oi] = M[iu]
            pos += n
    return out


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


@lru_cache(maxsize=1)
def _compiled_butterfly() -> Any:
    """The compiled transform of ``_butterfly_numba`` (the same numbers), or None without numba."""
    try:
        from ._butterfly_numba import butterfly
    except Exception:  # numba missing or unusable here: the numpy passes give the same numbers
        return None
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


# ----------------------------------------------------------------------------------------------
# Sparse storage and the drivers


@dataclass
class InteractionTable:
    """Interactions of orders 1..max_order of a batch of games, per point, possibly a selection.

    Parameters
    ----------
    index : str
        One of :data:`INDICES`.
    max_order : int
        The highest order of interaction held.
    n_features : int
        Number of players d.
    entries : list of dict
        Per point, order t -> (sets (m, t) int array, values (m, n_outputs)); only the kept sets
        when a selection (``top_k``/``threshold``) was asked for.
    empty : ndarray (n_points, n_outputs)
        The value of the empty set (module docstring).
    v_full, v_empty : ndarray (n_points, n_outputs)
        Values of the full and of the empty coalition.
    efficiency_gap : ndarray (n_points, n_outputs) or None
        For the efficient indices (:data:`EFFICIENT_INDICES`), the sum of every value of orders
        1..max_order minus (v_full - v_empty), taken before any selection; None for the others.
    sparse : bool
        Whether values were dropped by a selection.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley.higher_order import check_interaction_spec, table_from_dense
    >>> dense = {0: np.zeros((1, 1, 1)), 1: np.array([[[1.0]], [[2.0]]]), 2: np.array([[[0.5]]])}
    >>> tab = table_from_dense(dense, check_interaction_spec({"index": "Moebius"}), 2,
    ...                        np.array([[3.5]]), np.zeros((1, 1)))
    >>> tab.as_dict(0)
    {(): 0.0, (0,): 1.0, (1,): 2.0, (0, 1): 0.5}
    >>> float(tab.efficiency_gap[0, 0])
    0.0
    """

    index: str
    max_order: int
    n_features: int
    entries: list[dict[int, tuple[np.ndarray, np.ndarray]]]
    empty: np.ndarray
    v_full: np.ndarray
    v_empty: np.ndarray
    efficiency_gap: np.ndarray | None
    sparse: bool

    @property
    def n_points(self) -> int:
        """Number of points."""
        return len(self.entries)

    @property
    def n_outputs(self) -> int:
        """Number of outputs."""
        return int(self.empty.shape[1])

    def as_dict(self, point: int = 0, output: int = 0) -> dict[tuple[int, ...], float]:
        """{set (tuple of feature positions): value} of one point and output, the empty set first.

        Parameters
        ----------
        point : int, default 0
            Which point.
        output : int, default 0
            Which output.

        Returns
        -------
        dict of tuple of int to float
            The value of every kept set (a tuple of feature positions), the empty set first.
        """
        out: dict[tuple[int, ...], float] = {(): float(self.empty[point, output])}
        for t in sorted(self.entries[point]):
            sets, vals = self.entries[point][t]
            for T, val in zip(sets.tolist(), vals[:, output].tolist()):
                out[tuple(T)] = float(val)
        return out

    def rows(self, idx: Any) -> InteractionTable:
        """The table of the points ``idx`` (an integer array).

        Parameters
        ----------
        idx : int or array-like of int
            Positions of the points to keep, in order.

        Returns
        -------
        InteractionTable
            The table of those points.
        """
        idx = np.atleast_1d(np.asarray(idx))
        return InteractionTable(
            self.index,
            self.max_order,
            self.n_features,
            [self.entries[i] for i in idx.tolist()],
            self.empty[idx],
            self.v_full[idx],
            self.v_empty[idx],
            None if self.efficiency_gap is None else self.efficiency_gap[idx],
            self.sparse,
        )

    def output(self, o: int) -> InteractionTable:
        """The table of output ``o`` alone.

        Parameters
        ----------
        o : int
            Position of the output.

        Returns
        -------
        InteractionTable
            The table of that output, with one output column.
        """
        return InteractionTable(
            self.index,
            self.max_order,
            self.n_features,
            [{t: (sets, vals[:, o : o + 1]) for t, (sets, vals) in e.items()} for e in self.entries],
            self.empty[:, o : o + 1],
            self.v_full[:, o : o + 1],
            self.v_empty[:, o : o + 1],
            None if self.efficiency_gap is None else self.efficiency_gap[:, o : o + 1],
            self.sparse,
        )

    @classmethod
    def concatenate(cls, tables: list[InteractionTable]) -> InteractionTable:
        """Stack tables of the same index, order and features along the points.

        Parameters
        ----------
        tables : list of InteractionTable
            Tables of the same index, maximum order and number of features.
        """
        first = tables[0]
        for tab in tables[1:]:
            if (tab.index, tab.max_order, tab.n_features) != (first.index, first.max_order, first.n_features):
                raise ValueError("tables must share index, max_order and features to be concatenated.")
        gaps = [tab.efficiency_gap for tab in tables]
        return cls(
            first.index,
            first.max_order,
            first.n_features,
            [e for tab in tables for e in tab.entries],
            np.concatenate([tab.empty for tab in tables]),
            np.concatenate([tab.v_full for tab in tables]),
            np.concatenate([tab.v_empty for tab in tables]),
            None if any(g is None for g in gaps) else np.concatenate([g for g in gaps if g is not None]),
            any(tab.sparse for tab in tables),
        )

    def scaled(self, factors: Any) -> InteractionTable:
        """The table of the games ``factors[i] * v_i`` (every value of point i times ``factors[i]``).

        Parameters
        ----------
        factors : array-like of shape (n_points,)
            One factor per point.

        Returns
        -------
        InteractionTable
            The table of the scaled games.
        """
        f = np.asarray(factors, dtype=np.float64).reshape(-1)
        if f.shape[0] != self.n_points:
            raise ValueError(f"factors must hold one number per point ({self.n_points}), got shape {f.shape}.")
        gap = None if self.efficiency_gap is None else self.efficiency_gap * f[:, None]
        return InteractionTable(
            self.index,
            self.max_order,
            self.n_features,
            [{t: (sets, vals * fi) for t, (sets, vals) in e.items()} for e, fi in zip(self.entries, f.tolist())],
            self.empty * f[:, None],
            self.v_full * f[:, None],
            self.v_empty * f[:, None],
            gap,
            self.sparse,
        )

    def shifted(self, shift: Any) -> InteractionTable:
        """The same table with ``shift`` (per output) added to every coalition's value.

        A constant added to the game (an intercept) changes only the empty set's value (the
        weights of each index's empty set sum to 1) and v_full, v_empty.

        Parameters
        ----------
        shift : array-like
            The constant added to every coalition's value, one per output.

        Returns
        -------
        InteractionTable
            The table of the shifted games.
        """
        s = np.asarray(shift, dtype=np.float64).reshape(1, -1)
        return InteractionTable(
            self.index,
            self.max_order,
            self.n_features,
            self.entries,
            self.empty + s,
            self.v_full + s,
            self.v_empty + s,
            self.efficiency_gap,
            self.sparse,
        )


def _select(
    dense_point: Mapping[int, np.ndarray], spec: InteractionSpec, d: int
) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """Order t -> (sets, values) of one point from its dense arrays (C(d, t), o), selected per ``spec``."""
    out: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for t, vals in dense_point.items():
        if t == 0:
            continue
        keep = np.arange(vals.shape[0])
        mag = np.max(np.abs(vals), axis=1) if vals.size else np.zeros(0)
        if spec.threshold is not None:
            keep = keep[mag[keep] >= spec.threshold]
        if spec.top_k is not None and len(keep) > spec.top_k:
            part = np.argpartition(-mag[keep], spec.top_k - 1)[: spec.top_k]
            keep = keep[part]
        if spec.sparse:
            keep = keep[np.argsort(-mag[keep], kind="stable")]
            out[t] = (combinations_array(d, t)[keep], np.ascontiguousarray(vals[keep]))
        else:
            out[t] = (combinations_array(d, t), np.ascontiguousarray(vals))
    return out


def table_from_dense(
    dense: Mapping[int, np.ndarray], spec: InteractionSpec, d: int, v_full: np.ndarray, v_empty: np.ndarray
) -> InteractionTable:
    """An :class:`InteractionTable` from dense arrays order -> (C(d, t), n_points, n_outputs).

    Applies the selection of ``spec`` per point and records the efficiency gap before it.
    """
    v_full = np.asarray(v_full, dtype=np.float64)
    v_empty = np.asarray(v_empty, dtype=np.float64)
    n = v_full.shape[0]
    gap = None
    if spec.index in EFFICIENT_INDICES:
        total = sum(dense[t].sum(axis=0) for t in range(1, spec.max_order + 1))
        gap = total - (v_full - v_empty)
    entries = [_select({t: arr[:, i] for t, arr in dense.items()}, spec, d) for i in range(n)]
    return InteractionTable(
        spec.index, spec.max_order, d, entries, np.asarray(dense[0][0]), v_full, v_empty, gap, spec.sparse
    )


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


@lru_cache(maxsize=1)
def _compiled_banzhaf() -> Any:
    """The compiled pass of ``_banzhaf_numba`` (the same numbers), or None without numba."""
    try:
        from ._banzhaf_numba import banzhaf_loo
    except Exception:  # numba missing or unusable here: the numpy passes give the same numbers
        return None
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


def _rows_per_block(d: int, n_nodes: int, max_bytes: int) -> int:
    return int(max(1, max_bytes // (8 * 4 * max(1, n_nodes) * max(1, d))))


def solve_product_interactions(
    game: Any, spec: InteractionSpec, *, max_block_bytes: int = 64 * 2**20, progress: bool = False
) -> InteractionTable:
    """Interactions of every order of a product game (a :class:`kexplain.shapley.product.ProductGame`).

    One point at a time (the dense arrays of one point, sum_t C(d, t) * n_outputs numbers, are
    reduced to the selection of ``spec`` before the next point), rows in blocks whose work arrays
    stay near ``max_block_bytes``.  The cost per point is O(rows * nodes * sum_t C(d, t) * t).

    Parameters
    ----------
    game : ProductGame
        Gives dense blocks (a, b, c) of points and rows, in numpy.
    spec : InteractionSpec
        From :func:`check_interaction_spec`.
    max_block_bytes : int
        Bound on the work arrays of one block of rows.
    progress : bool
        Show a progress bar over points (tqdm).

    Returns
    -------
    InteractionTable
        The interactions of orders 1..max_order of every point.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley.higher_order import check_interaction_spec, solve_product_interactions
    >>> class Unanimity:                      # v(S) = 1 when S holds players 0, 1 and 2
    ...     n_points, n_rows, n_features, n_outputs = 1, 1, 4, 1
    ...     def block(self, points, rows):
    ...         return np.ones((1, 1, 4)), np.array([0.0, 0.0, 0.0, 1.0]), np.ones((1, 1))
    >>> tab = solve_product_interactions(Unanimity(), check_interaction_spec({"index": "k-SII", "max_order": 3}))
    >>> {T: round(v, 3) for T, v in tab.as_dict(0).items() if abs(v) > 1e-12}
    {(0, 1, 2): 1.0}
    """
    n, R, d, o = game.n_points, game.n_rows, game.n_features, game.n_outputs
    if spec.max_order > d:
        raise ValueError(
            f"interactions['max_order'] must be at most the number of features d = {d}, got {spec.max_order}."
        )
    rows = _rows_per_block(d, nodes_for_degree(d), max_block_bytes)
    v_full = np.zeros((n, o))
    v_empty = np.zeros((n, o))
    entries: list[dict[int, tuple[np.ndarray, np.ndarray]]] = []
    empty = np.zeros((n, o))
    gap = np.zeros((n, o)) if spec.index in EFFICIENT_INDICES else None
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=n, desc="kexplain interactions", unit="pt")
    for i in range(n):
        acc: dict[int, np.ndarray] | None = None
        for r0 in range(0, R, rows):
            a, b, c = game.block(slice(i, i + 1), slice(r0, min(R, r0 + rows)))
            a = np.asarray(a, dtype=np.float64)
            bb = np.broadcast_to(np.asarray(b, dtype=np.float64), a.shape)
            c2 = np.asarray(c, dtype=np.float64).reshape(a.shape[1], -1)
            with np.errstate(under="ignore", over="ignore"):
                v_full[i] += np.prod(a, axis=-1)[0] @ c2
                v_empty[i] += np.prod(bb, axis=-1)[0] @ c2
            out = product_interactions(a, bb, c2, spec.index, spec.max_order)
            acc = out if acc is None else {t: acc[t] + out[t] for t in acc}
        if acc is None:  # no rows: the zero game
            acc = {t: np.zeros((comb(d, t), 1, o)) for t in range(spec.max_order + 1)}
        tab = table_from_dense(acc, spec, d, v_full[i : i + 1], v_empty[i : i + 1])
        entries.append(tab.entries[0])
        empty[i] = tab.empty[0]
        if gap is not None and tab.efficiency_gap is not None:
            gap[i] = tab.efficiency_gap[0]
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    for name, arr in (("interaction values", empty), ("game values", v_full)):
        if not np.all(np.isfinite(arr)):
            raise FloatingPointError(f"non-finite {name} in the product game: check the model for NaN or overflow.")
    return InteractionTable(spec.index, spec.max_order, d, entries, empty, v_full, v_empty, gap, spec.sparse)

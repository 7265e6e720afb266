"""Per-feature kernel tables and their products over a coalition and its complement.

A product kernel's Gram matrix restricted to the features in S is the product of per-feature
tables, k_S(A, B) = prod_{j in S} k_j(A, B).  ``_FeatureProducts`` keeps the tables of one pair of
row sets (when small enough) and forms such products; ``_Prods`` gives the product of a coalition
(or of its complement) from them, or looks it up in those ``_pair_products`` formed along a
depth-first walk over the features, which serves every coalition and its complement at once.
``_wsum`` sums the terms of a kernel with their weights.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: caches of per-feature kernel values larger than this are recomputed per coalition instead
_CACHE_BYTES = 256 * 2**20


class _FeatureProducts:
    """prod_{j in cols} k_j(A_p, B_r) for a per-feature kernel, cached when small enough.

    The cache holds one contiguous (len(A), len(B)) slab per feature, so a product over a subset
    is a handful of streaming multiplies instead of a strided gather.
    """

    def __init__(self, term: Any, A: np.ndarray, B: np.ndarray, *, cache_bytes: int = _CACHE_BYTES) -> None:
        self.term, self.A, self.B = term, A, B
        self.shape = (A.shape[0], B.shape[0])
        d = A.shape[1]
        self.F = None
        if A.shape[0] * B.shape[0] * d * 8 <= cache_bytes:
            self.F = np.ascontiguousarray(np.moveaxis(term.feature_values(A, B), -1, 0))

    def prod(self, cols: np.ndarray) -> np.ndarray:
        if cols.size == 0:
            return np.ones(self.shape)
        if self.F is not None:
            out = self.F[cols[0]].copy()
            for j in cols[1:]:
                out *= self.F[j]
            return out
        out = np.empty(self.shape)
        step = max(1, _CACHE_BYTES // (8 * self.B.shape[0] * self.A.shape[1]))
        for lo in range(0, self.shape[0], step):
            F = self.term.feature_values(self.A[lo : lo + step], self.B)
            out[lo : lo + step] = np.prod(F[:, :, cols], axis=-1)
        return out


def _wsum(weights: np.ndarray, arrays: list[np.ndarray]) -> np.ndarray:
    """sum_t w_t A_t, the same numbers as ``sum(w * A for ...)`` without its extra passes (and no copy
    for one term of weight 1: the arrays are never written to)."""
    if len(arrays) == 1 and weights[0] == 1.0:
        return arrays[0]
    out = weights[0] * arrays[0]
    for w, A in zip(weights[1:], arrays[1:]):
        out += w * A
    return out


class _Prods:
    """prod over the features in S (``side`` True) or not in S of a per-feature table: computed on
    demand, or looked up in ``given`` = (products over S, products over not S) keyed by table id."""

    def __init__(
        self,
        S_idx: np.ndarray,
        Sc_idx: np.ndarray,
        given: tuple[dict[int, np.ndarray | None], dict[int, np.ndarray | None]] | None = None,
    ) -> None:
        self.S_idx, self.Sc_idx, self.given = S_idx, Sc_idx, given

    def __call__(self, f: _FeatureProducts, side: bool) -> np.ndarray:
        if self.given is None:
            return f.prod(self.S_idx if side else self.Sc_idx)
        P = self.given[0 if side else 1][id(f)]
        return np.ones(f.shape) if P is None else P


def _pair_products(
    tables: list[_FeatureProducts], d: int, start: tuple[int, int, Any, Any] | None = None, stop: int | None = None
) -> Any:
    """Yield (mask, products over S, products over not S) for every coalition S without feature d - 1.

    A depth-first walk that puts each feature in S or in its complement, in increasing order, so
    each product is ((F_j1 * F_j2) * F_j3) ... exactly as ``_FeatureProducts.prod`` forms it, at
    the cost of one multiplication per node instead of |S| - 1 per coalition; each leaf serves a
    coalition and its complement.  None stands for the empty product.  ``start`` = (j, mask, PS,
    PSc) resumes the walk from a node; ``stop`` = j yields the nodes at depth j (subtrees for threads).
    """
    end = d if stop is None else stop

    def walk(j: int, mask: int, PS: dict[int, Any], PSc: dict[int, Any]) -> Any:
        if j == end:
            yield (mask, PS, PSc) if stop is None else (j, mask, PS, PSc)
            return
        if j < d - 1:
            yield from walk(j + 1, mask | (1 << j), _times(PS, tables, j), PSc)
        yield from walk(j + 1, mask, PS, _times(PSc, tables, j))

    if start is not None:
        yield from walk(*start)
        return
    empty: dict[int, Any] = {id(t): None for t in tables}
    yield from walk(0, 0, empty, empty)


def _times(P: dict[int, Any], tables: list[_FeatureProducts], j: int) -> dict[int, Any]:
    out: dict[int, Any] = {}
    for t in tables:
        assert t.F is not None
        prev = P[id(t)]
        out[id(t)] = t.F[j].copy() if prev is None else prev * t.F[j]
    return out

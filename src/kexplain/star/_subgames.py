"""STAR-SHAP's sub-games: the terms over one feature set, and their game for a block of points.

A term f_t(x_{I_t}) is a game over I_t alone (every other player is null in it), so
:class:`~kexplain.star.StarExplainer` groups the terms by feature set (:func:`_group_by_subset`)
and solves one sub-game per group: :class:`_Group` holds what depends only on the terms and the
background (the blocks of background rows and v(empty) of each block, computed once at
construction), :class:`_SubsetGame` is v(A) over the group's features for a block of explained
points against one block of background rows, as the enumeration solver calls it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .model import StarTerm, evaluate_term

#: (term, position in the model, column permutation or None) of the terms sharing a sub-game
_Member = tuple[StarTerm, int, "list[int] | None"]


class _Group:
    """The terms over one feature set, with what depends only on them and the background."""

    __slots__ = ("feats", "members", "batch", "per_coalition", "chunks", "empty")

    def __init__(
        self, feats: list[int], members: list[_Member], background: np.ndarray, weights: np.ndarray, max_rows: int
    ) -> None:
        self.feats = feats
        self.members = members
        k = len(feats)
        self.batch = min(2**k, max_rows)
        self.per_coalition = max(1, max_rows // self.batch)
        m = background.shape[0]
        m_chunk = min(m, self.per_coalition)
        self.chunks = [slice(z0, min(m, z0 + m_chunk)) for z0 in range(0, m, m_chunk)]
        ZI = background[:, feats]
        # v(empty) of each background block: sum_z w_z f_I(z_I), shape (o,)
        self.empty = [weights[zs] @ _evaluate_members(members, ZI[zs]) for zs in self.chunks]


def _group_by_subset(terms: Sequence[StarTerm]) -> list[tuple[list[int], list[_Member]]]:
    """Terms over the same feature set share one sub-game: [(sorted features, [(term, index, perm)])].

    ``perm`` reorders the sorted columns into the order the term's function expects.
    """
    groups: dict[tuple[int, ...], list[_Member]] = {}
    for i, t in enumerate(terms):
        key = tuple(sorted(t.features))
        perm = [key.index(j) for j in t.features]
        # None: the term reads the columns in sorted order, so no copy of the rows is needed
        groups.setdefault(key, []).append((t, i, None if perm == sorted(perm) else perm))
    return [(list(key), members) for key, members in groups.items()]


def _evaluate_members(members: Sequence[_Member], rows: np.ndarray) -> np.ndarray:
    """Sum of the members' values on rows over their (sorted) features, (n_rows, o)."""
    total: np.ndarray | None = None
    for term, index, perm in members:
        vals = evaluate_term(term, rows if perm is None else rows[:, perm], index)
        total = vals if total is None else total + vals
    assert total is not None
    return total


class _SubsetGame:
    """The interventional sub-game, over one feature subset I, of the terms on I, for a block of
    explained points against one block of background rows.

    Called by the enumeration solver with coalitions A (B, k); returns v(A) for each point and
    output, (B, p, o): f_I(r_A(z, x)) summed over the terms and averaged over the background block
    with its weights.  ``empty`` is v(empty), precomputed at construction of the explainer.
    """

    def __init__(
        self, members: list[_Member], XI: np.ndarray, ZI: np.ndarray, w: np.ndarray, empty: np.ndarray
    ) -> None:
        self.members = members
        self.XI, self.ZI, self.w = XI, ZI, w
        self.empty = empty

    def __call__(self, S: np.ndarray) -> np.ndarray:
        B, k = S.shape
        p, mz = self.XI.shape[0], self.ZI.shape[0]
        # the empty coalition reads only background rows (precomputed) and the full one only
        # explained rows: evaluate the latter on p rows instead of p * m
        empty, full = ~S.any(axis=1), S.all(axis=1)
        mixed = ~(empty | full)
        parts: dict[str, np.ndarray] = {}
        if empty.any():
            parts["empty"] = self.empty  # (o,)
        if full.any():
            # weighted by this background block's share of the weights (blocks are summed)
            parts["full"] = _evaluate_members(self.members, self.XI) * self.w.sum()  # (p, o)
        if mixed.any():
            Sm = S[mixed]
            rows = np.where(Sm[:, None, None, :], self.XI[None, :, None, :], self.ZI[None, None, :, :])
            vals = _evaluate_members(self.members, rows.reshape(-1, k))
            parts["mixed"] = np.einsum("bpmo,m->bpo", vals.reshape(Sm.shape[0], p, mz, vals.shape[1]), self.w)
        o = max(np.shape(v)[-1] for v in parts.values())
        out = np.empty((B, p, o))
        if "empty" in parts:
            out[empty] = parts["empty"]
        if "full" in parts:
            out[full] = parts["full"]
        if "mixed" in parts:
            out[mixed] = parts["mixed"]
        return out


def _add_outputs(total: np.ndarray, add: np.ndarray) -> np.ndarray:
    if total.size == add.size or total.size == 1 or add.size == 1:
        return total + add
    raise ValueError(f"the model's terms disagree on the number of outputs ({total.size} and {add.size}).")

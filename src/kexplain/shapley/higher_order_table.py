"""The storage of interactions of every order: :class:`InteractionTable`, per point, possibly a selection.

Every route of :mod:`kexplain.shapley.higher_order` ends here: :func:`table_from_dense` keeps the
``top_k`` or ``threshold`` selection of an :class:`~kexplain.shapley.higher_order_indices.InteractionSpec`
per point (after recording the efficiency gap of the efficient indices on every value), and the
table's methods select points and outputs, stack, scale and shift the games.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .higher_order_indices import EFFICIENT_INDICES, InteractionSpec, combinations_array


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

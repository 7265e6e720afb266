"""Interactions of any order and index next to the Shapley values: :class:`InteractionExplanation`.

An :class:`~kexplain.Explanation` whose ``table`` holds, per explained point, the interaction
values of orders 1..max_order of one index (SII, k-SII, STII, FSII, BII, BV, Möbius, see
:mod:`kexplain.shapley.higher_order`), sparsely when a ``top_k`` or ``threshold`` selection was
asked for.  ``explain(X, interactions={"index": ..., "max_order": k})`` of the product-game
explainers returns one; :meth:`InteractionExplanation.to_shapiq` hands a row to shapiq.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._optional import require
from ._params import Integer, check_param
from .explanation import Explanation
from .shapley.higher_order import InteractionTable


class InteractionExplanation(Explanation):
    """Shapley (or Banzhaf) values plus interactions of any order of one index, per point.

    ``values`` are the Shapley values (``base_values + values.sum(axis=1)`` is the model output),
    except for ``index="BV"`` where they are the Banzhaf values (which are not efficient).  The
    interactions are in ``table`` (:class:`~kexplain.shapley.higher_order.InteractionTable`),
    read through :meth:`interaction_values`, :meth:`top`, :meth:`interactions_frame` and
    :meth:`to_shapiq`.  The set of order 0 (the empty set) holds v(empty set) plus the model's
    intercept for SV, k-SII, STII, FSII and Möbius, and the index's weighted mean of the game for
    SII, BII and BV (shapiq's convention).

    Parameters
    ----------
    values : array-like of shape (N, d) or (N, d, n_outputs)
        The Shapley (Banzhaf for ``index="BV"``) values, as for :class:`~kexplain.Explanation`.
    base_values : array-like
        The value of the empty coalition, as for :class:`~kexplain.Explanation`.
    data : array-like of shape (N, d), optional
        The explained rows.
    feature_names : sequence of str, optional
        Defaults to ``x0, x1, ...``.
    output_names : sequence of str, optional
        One name per output.
    game : str
        The game that was solved, as for :class:`~kexplain.Explanation`.
    info : dict, optional
        Anything else the explainer records, as for :class:`~kexplain.Explanation`.
    table : InteractionTable
        One entry per point (row).
    output : str
        What model output is explained, in words.
    index : sequence, optional
        Row labels (the index of an explained DataFrame).
    v_full : array-like of shape (N,) or (N, n_outputs), optional
        The value of the full coalition computed directly: the explained model output at each point.
    efficiency_error : float, optional
        Largest relative gap ``|sum of the values - (v_full - base value)|`` the explainer measured.

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> em = kx.KernelExpansion(np.zeros((2, 3)), [1.0, -0.5], kx.kernels.RBF(1.0))
    >>> ex = kx.ProductKernelExplainer(em).explain(np.ones((1, 3)), interactions={"index": "k-SII", "max_order": 3})
    >>> ex.interaction_index, ex.max_order, round(ex.efficiency_error, 12)
    ('k-SII', 3, 0.0)
    >>> ex.top(0, n=2, order=2)
    [(('x0', 'x1'), 0.0774), (('x0', 'x2'), 0.0774)]
    """

    def __init__(
        self,
        values: Any,
        base_values: Any,
        data: Any = None,
        feature_names: Sequence[str] | None = None,
        output_names: Sequence[str] | None = None,
        game: str = "",
        info: Any = None,
        *,
        table: InteractionTable,
        output: str = "",
        index: Sequence[Any] | None = None,
        v_full: Any = None,
        efficiency_error: float | None = None,
    ) -> None:
        super().__init__(
            values,
            base_values,
            data,
            feature_names,
            output_names,
            None,
            None,
            game,
            info,
            output=output,
            index=index,
            v_full=v_full,
            efficiency_error=efficiency_error,
        )
        if not isinstance(table, InteractionTable):
            raise TypeError(
                f"table must be a kexplain.shapley.higher_order.InteractionTable, got {type(table).__name__}."
            )
        if table.n_points != len(self) or table.n_features != self.values.shape[1]:
            raise ValueError(
                f"table holds {table.n_points} points of {table.n_features} features, the values "
                f"{len(self)} points of {self.values.shape[1]} features."
            )
        if table.n_outputs != self.n_outputs:
            raise ValueError(f"table has {table.n_outputs} outputs, the values {self.n_outputs}.")
        self.table = table
        # the table's own gap where its index is efficient, else the Shapley values' (as info held it);
        # callable for one release, as efficiency_error was a method
        own = _relative_gap(table) if table.efficiency_gap is not None else None
        value = own if own is not None else self.efficiency_error
        self.efficiency_error = None if value is None else EfficiencyError(value, own)

    @property
    def interaction_index(self) -> str:
        """The index (shapiq's name): ``"SII"``, ``"k-SII"``, ``"STII"``, ``"FSII"``, ``"BII"``, ``"BV"``, ..."""
        return self.table.index

    @interaction_index.setter
    def interaction_index(self, value: str | None) -> None:
        # the table says which index this is; the value Explanation.__init__ passes is not kept
        pass

    @classmethod
    def from_explanation(
        cls, ex: Explanation, table: InteractionTable, *, values: Any = None
    ) -> InteractionExplanation:
        """``ex`` (its rows, names, game and info) with the interactions of ``table``.

        Parameters
        ----------
        ex : Explanation
            The explanation of the same rows.
        table : InteractionTable
            The interactions, one entry per row.
        values : array-like, optional
            Replaces the explanation's values (the Banzhaf values for index "BV").

        Returns
        -------
        InteractionExplanation
            The explanation with its interactions.
        """
        return cls(
            ex.values if values is None else values,
            ex.base_values,
            ex.data,
            ex.feature_names,
            ex.output_names,
            ex.game,
            ex.info,
            table=table,
            output=ex.output,
            index=ex.index,
            v_full=ex.v_full,
            efficiency_error=ex.efficiency_error,
        )

    # -- what the table says -----------------------------------------------------------------
    @property
    def max_order(self) -> int:
        """Highest order held."""
        return self.table.max_order

    @property
    def min_order(self) -> int:
        """Lowest order held: 0 (the empty set is always kept)."""
        return 0

    @property
    def sparse(self) -> bool:
        """Whether a ``top_k``/``threshold`` selection dropped values."""
        return self.table.sparse

    def _out(self, output: Any) -> int:
        if output is None:
            if self.n_outputs != 1:
                raise ValueError(
                    f"this explanation has {self.n_outputs} outputs {self.output_names}; pick one with output=."
                )
            return 0
        return self._output_index(output)

    def _row(self, row: Any) -> int:
        if isinstance(row, (bool, np.bool_)) or not isinstance(row, (int, np.integer)):
            raise TypeError(f"row must be an integer, got {row!r}.")
        if not -len(self) <= row < len(self):
            raise IndexError(f"row {row} is out of range for {len(self)} explained points.")
        return int(row) % len(self)

    def interaction_values(
        self, row: int = 0, output: Any = None, *, names: bool = False
    ) -> dict[tuple[Any, ...], float]:
        """{set: value} of one row (and output), the empty set first.

        Parameters
        ----------
        row : int
            Which row (point).
        output : int or str, optional
            Needed with several outputs.
        names : bool
            Key the sets by feature names instead of feature positions.

        Returns
        -------
        dict
            The value of every set (a tuple of positions, or of names with ``names=True``).

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> em = kx.KernelExpansion(np.zeros((1, 2)), [1.0], kx.kernels.RBF(1.0))
        >>> spec = {"index": "Moebius", "max_order": 2}
        >>> ex = kx.ProductKernelExplainer(em).explain(np.ones((1, 2)), interactions=spec)
        >>> {k: round(v, 4) for k, v in ex.interaction_values(0, names=True).items()}
        {(): 1.0, ('x0',): -0.3935, ('x1',): -0.3935, ('x0', 'x1'): 0.1548}
        """
        out = self.table.as_dict(self._row(row), self._out(output))
        if not names:
            return out
        fn = self.feature_names
        return {tuple(fn[j] for j in T): v for T, v in out.items()}

    def top(
        self, row: int = 0, n: int = 10, *, order: int | None = None, output: Any = None
    ) -> list[tuple[tuple[str, ...], float]]:
        """The ``n`` largest interactions of one row in absolute value, as (feature names, value).

        Parameters
        ----------
        row : int
            Which row (point).
        n : int
            How many (a positive integer).
        order : int, optional
            Only this order; default every order >= 1.
        output : int or str, optional
            Needed with several outputs.

        Returns
        -------
        list of (tuple of str, float)
            Values rounded to 4 decimals.
        """
        check_param(n, "n", Integer(1))
        what = f"an integer in 1..{self.max_order} or None"
        check_param(order, "order", Integer(1, self.max_order), None, what=what)
        items = [
            (T, v)
            for T, v in self.interaction_values(row, output, names=True).items()
            if len(T) >= 1 and (order is None or len(T) == order)
        ]
        items.sort(key=lambda kv: -abs(kv[1]))
        return [(tuple(T), round(v, 4)) for T, v in items[: int(n)]]

    def interactions_frame(self) -> Any:
        """A pandas DataFrame with one row per (point, output, set of order >= 1) kept.

        Returns
        -------
        pandas.DataFrame
            Columns ``row``, ``output``, ``order``, ``features`` (a tuple of names) and ``value``.
        """
        pd = require("pandas", "InteractionExplanation.interactions_frame")
        rows: list[tuple[Any, ...]] = []
        fn = self.feature_names
        for i in range(len(self)):
            lab = i if self.index is None else self.index[i]
            for t in sorted(self.table.entries[i]):
                sets, vals = self.table.entries[i][t]
                for o in range(self.n_outputs):
                    for T, v in zip(sets.tolist(), vals[:, o].tolist()):
                        rows.append((lab, self.output_names[o], t, tuple(fn[j] for j in T), v))
        return pd.DataFrame(rows, columns=["row", "output", "order", "features", "value"])

    def to_shapiq(self, row: int = 0, output: Any = None) -> Any:
        """One row as ``shapiq.InteractionValues`` (index, orders 0..max_order, baseline v(empty set)).

        shapiq's plots (``network_plot``, ``force_plot``, ``upset_plot``, ``si_graph_plot``) read
        it unchanged.  With a selection only the kept sets are in it (shapiq reads the missing
        ones as 0).  Needs the optional ``shapiq`` package (extra ``shapiq``).

        Parameters
        ----------
        row : int
            Which row (point).
        output : int or str, optional
            Needed with several outputs.

        Returns
        -------
        shapiq.InteractionValues
            The row's interactions in shapiq's type.
        """
        shapiq = require("shapiq", "InteractionExplanation.to_shapiq")
        i, o = self._row(row), self._out(output)
        vals = self.table.as_dict(i, o)
        return shapiq.InteractionValues(
            vals,
            index=self.interaction_index,
            max_order=self.max_order,
            n_players=self.values.shape[1],
            min_order=0,
            estimated=False,
            baseline_value=float(self.base_values.reshape(len(self), -1)[i, o]),
        )

    # -- rows, outputs, stacking ---------------------------------------------------------------
    def __getitem__(self, item: Any) -> InteractionExplanation:
        """Rows (int, slice, mask or indices) and optionally one output: ``ex[rows]``,
        ``ex[rows, output]`` or ``ex[rows, :, output]``.

        The interaction table holds sets of every feature, so features cannot be picked here
        (an IndexError says so); pick them on :meth:`interaction_values` or ``values``.
        """
        rows_item, out = item, None
        if isinstance(item, tuple):
            if len(item) == 3:
                rows_item, feats, out = item
            elif len(item) == 2:
                rows_item, feats = item
                if self.values.ndim == 3 and self._names_output(feats):
                    feats, out = slice(None), feats
            else:
                raise IndexError("index with rows, (rows, output) or (rows, :, output)")
            if not (isinstance(feats, slice) and feats == slice(None)):
                raise IndexError(
                    "an InteractionExplanation is indexed by rows and one output only (ex[rows], "
                    "ex[rows, output], ex[rows, :, output]): its interaction table holds sets of every "
                    f"feature, so it cannot keep some features; got the feature key {feats!r}. Read "
                    "one feature's values from ex.values or ex.interaction_values()."
                )
            if isinstance(out, slice) and out == slice(None):
                out = None
        base = Explanation.__getitem__(self, item)
        rows = np.atleast_1d(np.arange(len(self))[rows_item])
        table = self.table.rows(rows)
        if out is not None:
            table = table.output(self._output_index(out))
        ex = InteractionExplanation.from_explanation(base, table)
        if getattr(base, "_scalar_row", False):
            ex._scalar_row = True
        return ex

    @classmethod
    def concatenate(cls, explanations: Sequence[Explanation]) -> InteractionExplanation:
        """Stack interaction explanations of the same model, game and index along the rows.

        Parameters
        ----------
        explanations : sequence of InteractionExplanation
            The parts, in row order.

        Returns
        -------
        InteractionExplanation
            All their rows.
        """
        parts = list(explanations)
        if not parts or not all(isinstance(e, InteractionExplanation) for e in parts):
            raise TypeError("explanations must be a non-empty sequence of kexplain.InteractionExplanation.")
        base = Explanation.concatenate([Explanation.__getitem__(e, slice(None)) for e in parts])
        table = InteractionTable.concatenate([e.table for e in parts])  # type: ignore[attr-defined]
        return cls.from_explanation(base, table)

    def __repr__(self) -> str:
        sel = ", selected" if self.sparse else ""
        return (
            f"kexplain.InteractionExplanation(game={self.game!r}, index={self.interaction_index!r}, "
            f"max_order={self.max_order}, values shape={self.values.shape}{sel})"
        )


class EfficiencyError(float):
    """``InteractionExplanation.efficiency_error``: a number, callable for one release.

    The number is the largest ``|sum of the values of orders 1..max_order - (v(D) - v(empty set))|``,
    relative to ``max(|v(D)|, |v(empty set)|, 1e-300)``, computed before any selection, for the
    indices with efficiency (SV, k-SII, STII, FSII, Möbius); for the others (SII, BII, BV) the
    Shapley values' own gap.  It used to be a method: calling it still returns what the method
    returned (None for SII, BII and BV) and warns (DeprecationWarning).

    Parameters
    ----------
    value : float
        The gap.
    own : float or None
        The interaction table's own gap (None for the indices without efficiency).

    Examples
    --------
    >>> from kexplain.interaction_explanation import EfficiencyError
    >>> e = EfficiencyError(1e-16, None)
    >>> e < 1e-12, float(e)
    (True, 1e-16)
    """

    _own: float | None

    def __new__(cls, value: float, own: float | None) -> EfficiencyError:
        obj = super().__new__(cls, value)
        obj._own = own
        return obj

    def __getnewargs__(self) -> tuple[float, float | None]:  # type: ignore[override]
        return float(self), self._own

    def __call__(self) -> float | None:
        warnings.warn(
            "InteractionExplanation.efficiency_error is now a number: drop the call parentheses (ex.efficiency_error).",
            DeprecationWarning,
            stacklevel=2,
        )
        return self._own


def interaction_explanation(ex: Explanation, table: InteractionTable, *, single_output: bool) -> InteractionExplanation:
    """The result of ``explain(X, interactions={...})``: ``ex`` with ``table`` (intercept already added).

    For index "BV" the values become the Banzhaf values (the table's order 1).

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> em = kx.KernelExpansion(np.zeros((1, 2)), [1.0], kx.kernels.RBF(1.0))
    >>> ex = kx.ProductKernelExplainer(em).explain(np.ones((1, 2)), interactions={"index": "BV"})
    >>> np.round(ex.values, 4)                                  # Banzhaf values
    array([[-0.3161, -0.3161]])
    """
    values = None
    if table.index == "BV":
        d = table.n_features
        bv = np.stack([e[1][1][np.argsort(_set_ids(e[1][0], d))] for e in table.entries]) if table.entries else None
        values = None if bv is None else (bv[:, :, 0] if single_output else bv)
    return InteractionExplanation.from_explanation(ex, table, values=values)


def _set_ids(sets: np.ndarray, d: int) -> np.ndarray:
    return sets[:, 0] if sets.shape[1] == 1 else np.ravel_multi_index(tuple(sets.T), (d,) * sets.shape[1])


def _relative_gap(table: InteractionTable) -> float:
    if table.efficiency_gap is None or table.efficiency_gap.size == 0:
        return 0.0
    scale = np.maximum(np.maximum(np.abs(table.v_full), np.abs(table.v_empty)), 1e-300)
    return float(np.max(np.abs(table.efficiency_gap) / scale))


__all__ = ["EfficiencyError", "InteractionExplanation", "interaction_explanation"]

"""Interactions of any order and index next to the Shapley values: :class:`InteractionExplanation`.

An :class:`~kexplain.Explanation` whose ``table`` holds, per explained point, the interaction
values of orders 1..max_order of one index (SII, k-SII, STII, FSII, BII, BV, Möbius, see
:mod:`kexplain.shapley.higher_order`), sparsely when a ``top_k`` or ``threshold`` selection was
asked for.  ``explain(X, interactions={"index": ..., "max_order": k})`` of the product-game
explainers returns one; :meth:`InteractionExplanation.to_shapiq` hands a row to shapiq.

Here: how one is built (``interaction_explanation``, the result of ``explain``), picked by rows and
stacked, and its ``efficiency_error`` (:class:`EfficiencyError`).  Reading its table (the values of a
row, the largest, the frame, shapiq's type) is the mix-in of ``_interaction_reads.py``.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._interaction_reads import InteractionReads
from .explanation import Explanation
from .shapley.higher_order import InteractionTable


class InteractionExplanation(InteractionReads, Explanation):
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

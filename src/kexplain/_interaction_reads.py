"""What the interaction table of an :class:`~kexplain.InteractionExplanation` says, read per row:
its orders (``max_order``, ``sparse``), one row's values (``interaction_values``), the largest
(``top``), every kept value as a pandas frame (``interactions_frame``) and one row as shapiq's
``InteractionValues`` (``to_shapiq``).

``InteractionExplanation`` (``interaction_explanation.py``) is assembled from this mix-in and
:class:`~kexplain.Explanation`; its construction, indexing and stacking stay there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ._explanation_fields import ExplanationFields
from ._optional import require
from ._params import Integer, check_param
from .shapley.higher_order import InteractionTable


class InteractionReads(ExplanationFields):
    """Reading the interaction table, row by row (a mix-in of InteractionExplanation)."""

    #: one entry per point (row); set by InteractionExplanation.__init__
    table: InteractionTable

    if TYPE_CHECKING:  # defined by Explanation's rows mix-in

        def _output_index(self, out: Any) -> int: ...

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

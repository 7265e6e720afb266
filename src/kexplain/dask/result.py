"""The lazy result of :func:`~kexplain.dask.explain_dask`: :class:`DaskExplanation`.

Dask collections of the values, base values (and interactions) of a batch, each hanging off the
same per-block explanation tasks, with the ways to an in-memory :class:`~kexplain.Explanation`
(``compute``) or to blocks held in the cluster's memory (``persist``).  The graph that builds it is
in ``explain``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._optional import require
from ..explanation import Explanation

__all__ = ["DaskExplanation"]


def _dask() -> Any:
    return require("dask", "kexplain.dask")


class DaskExplanation:
    """The lazy result of :func:`explain_dask`: dask collections of values and base values.

    Nothing is computed until asked for.  Every collection here hangs off the same per-block
    explanation tasks, so computing several of them together (``dask.compute(res.values,
    res.base_values)``, :meth:`compute` or :meth:`persist`) explains each block once.

    Parameters
    ----------
    values : dask.array.Array or dask.dataframe.DataFrame
        Shapley values: an array of shape (N, d) or (N, d, n_outputs) chunked like the input's
        rows, or, for a DataFrame input, a DataFrame with the input's index and partitions and one
        column per feature (``"feature[output]"`` with several outputs).
    base_values : dask.array.Array, dask.dataframe.Series or dask.dataframe.DataFrame
        The value of the empty coalition per row: an array of shape (N,) or (N, n_outputs), or for
        a DataFrame input a Series named ``"base_value"`` (a DataFrame with one column per output).
    interactions : dask.array.Array or None
        Pairwise interaction values of shape (N, d, d[, n_outputs]) when asked for (also an array
        for a DataFrame input, with the partitions' rows as chunks), in the layout described in
        :func:`explain_dask`.
    blocks : list of dask.delayed.Delayed
        One delayed :class:`~kexplain.Explanation` per row block.
    feature_names, output_names : list of str
        Names of the features and of the outputs.
    game, output : str
        As in :class:`~kexplain.Explanation`.
    interaction_index : {"sii", "stii"} or None
        Which interaction index ``interactions`` holds (None without interactions); the computed
        Explanation records it in ``interaction_index``.

    Examples
    --------
    >>> import dask
    >>> import dask.array as da
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.dask import explain_dask
    >>> em = kx.KernelExpansion(np.zeros((1, 2)), [1.0], kx.kernels.RBF(1.0))
    >>> res = explain_dask(kx.ProductKernelExplainer(em), da.ones((4, 2), chunks=2))
    >>> res
    kexplain.dask.DaskExplanation(game='functional', values shape=(4, 2), 2 blocks)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     ex = res.compute()
    >>> np.round(ex.values[0], 3)
    array([-0.316, -0.316])
    """

    def __init__(
        self,
        values: Any,
        base_values: Any,
        interactions: Any,
        blocks: Sequence[Any],
        *,
        feature_names: Sequence[str],
        output_names: Sequence[str],
        game: str,
        output: str,
        interaction_index: str | None = None,
    ) -> None:
        self.values = values
        self.base_values = base_values
        self.interactions = interactions
        self.blocks = list(blocks)
        self.feature_names = list(feature_names)
        self.output_names = list(output_names)
        self.game = game
        self.output = output
        self.interaction_index = interaction_index

    @property
    def npartitions(self) -> int:
        """Number of row blocks (one ``explain`` call each)."""
        return len(self.blocks)

    def compute(self, **kwargs: Any) -> Explanation:
        """Explain every block (in one dask computation) and concatenate them in memory.

        Parameters
        ----------
        **kwargs
            Passed to ``dask.compute`` (e.g. ``scheduler=``).

        Returns
        -------
        Explanation
            The same object an in-process ``explainer.explain(X)`` returns, with the rows' data,
            index (of a DataFrame input) and per-row ``info`` entries.

        Examples
        --------
        >>> import dask.array as da
        >>> import numpy as np
        >>> import kexplain as kx
        >>> from kexplain.dask import explain_dask
        >>> em = kx.KernelExpansion(np.zeros((1, 2)), [1.0], kx.kernels.RBF(1.0))
        >>> ex = explain_dask(kx.ProductKernelExplainer(em), da.ones((3, 2), chunks=2)).compute(scheduler="sync")
        >>> ex.shape
        (3, 2)
        """
        parts = _dask().compute(*self.blocks, **kwargs)
        return Explanation.concatenate(list(parts))

    def persist(self, **kwargs: Any) -> DaskExplanation:
        """Explain every block once and keep the results in (cluster) memory.

        Returns a DaskExplanation whose collections read the persisted blocks, so computing them
        later, separately, does not explain anything again.

        Parameters
        ----------
        **kwargs
            Passed to ``dask.persist``.

        Returns
        -------
        DaskExplanation
            The same result with its blocks computed and held in the cluster's memory.

        Examples
        --------
        >>> import dask.array as da
        >>> import numpy as np
        >>> import kexplain as kx
        >>> from kexplain.dask import explain_dask
        >>> em = kx.KernelExpansion(np.zeros((1, 2)), [1.0], kx.kernels.RBF(1.0))
        >>> res = explain_dask(kx.ProductKernelExplainer(em), da.ones((3, 2), chunks=2)).persist(scheduler="sync")
        >>> np.round(res.base_values.compute(scheduler="sync"), 3)
        array([1., 1., 1.])
        """
        dask = _dask()
        collections = [self.values, self.base_values, self.interactions, *self.blocks]
        present = [c for c in collections if c is not None]
        done = iter(dask.persist(*present, **kwargs))
        values, base, inter, *blocks = [None if c is None else next(done) for c in collections]
        return DaskExplanation(
            values,
            base,
            inter,
            blocks,
            feature_names=self.feature_names,
            output_names=self.output_names,
            game=self.game,
            output=self.output,
            interaction_index=self.interaction_index,
        )

    def __repr__(self) -> str:
        shape = tuple(getattr(self.values, "shape", ()))
        if hasattr(self.values, "columns"):  # dask DataFrame: rows unknown until computed
            shape = ("?", len(self.feature_names))
        extra = f", with interactions ({self.interaction_index})" if self.interactions is not None else ""
        return (
            f"kexplain.dask.DaskExplanation(game={self.game!r}, values shape="
            f"{tuple(int(s) if isinstance(s, (int, np.integer)) else s for s in shape)}, "
            f"{self.npartitions} blocks{extra})"
        )

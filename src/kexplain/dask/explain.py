"""Lazy explanations of a dask array or dask DataFrame with any kexplain explainer.

Points are explained independently, so a large batch splits into row blocks that workers explain
on their own: each block is one call of ``explainer.explain(block, **options)``, and the values of
the whole batch are the concatenation of the blocks' values, bit-identical to one in-process call.
The explainer (with the background tables it built at construction) is shipped to the workers
once: it is one node of the task graph that every block depends on (a dask Delayed, or, with
``client=``, a future submitted as a task and replicated to every worker), never pickled per task.
Both can be recomputed by Dask: losing a worker costs its share of the work, never the result.

This module holds the graph :func:`explain_dask` builds; the lazy result it returns
(:class:`DaskExplanation`) lives in ``result``, the tasks the workers run and the explainer's way
to them in ``_tasks``, the checks of the arguments and the blocks' random streams in ``_inputs``.
Every name this module defined before those splits is still imported from here.
"""

from __future__ import annotations

import uuid
from typing import Any

import numpy as np

from .._optional import require
from .._params import Integer, check_param
from ._inputs import (  # noqa: F401  (_spawn: a name of the module before the split)
    _block_seeds,
    _check_client,
    _check_explainer,
    _check_random_state,
    _first_seed,
    _is_dask_array,
    _is_dask_frame,
    _spawn,
)
from ._memory import heap_reuse  # noqa: F401  (imported here before the split)
from ._tasks import (  # noqa: F401  (_identity: a name of the module before the split)
    _base_values,
    _explain_block,
    _flat_columns,
    _frame,
    _identity,
    _interactions,
    _share,
    _values,
)
from .result import DaskExplanation, _dask

__all__ = ["DaskExplanation", "explain_dask"]


def explain_dask(
    explainer: Any,
    X: Any,
    *,
    interactions: bool | str = False,
    client: Any = None,
    rows_per_block: int | None = None,
    random_state: Any = None,
    **options: Any,
) -> DaskExplanation:
    """Explain the rows of a dask array or dask DataFrame lazily, one ``explain`` call per block.

    Works with every kexplain explainer (``ProductKernelExplainer``, ``StarExplainer``,
    ``RKHSExplainer``, ``OAKExplainer``, or any object whose ``explain(X_block, **options)``
    returns a :class:`~kexplain.Explanation`): the game, the background and everything the
    explainer built at construction are those of ``explainer``.  Points are explained
    independently, so the values equal those of one in-process ``explainer.explain(X.compute())``
    to rounding: bit-identical where the explainer's arithmetic per point does not depend on the
    batch (the functional and baseline games and the quadrature route of
    ``ProductKernelExplainer``), within a few units in the last place where a product over the
    batch is rounded differently for another number of rows (the subset route of
    ``ProductKernelExplainer``, ``StarExplainer``).

    The explainer is shipped to the workers once: without ``client`` it is one Delayed node of the
    graph that every block depends on (the distributed scheduler moves it once to each worker
    that needs it); with ``client`` it is submitted as one task and replicated to every worker up
    front, and the blocks read that future.  Either way it is not pickled per task, and either way
    Dask can make it again: when a worker is lost, its blocks and its copy of the explainer are
    recomputed on the workers left, with the same values (a scattered copy could not be).

    The first row of ``X`` is explained in this process before the graph is built, to learn the
    feature and output names and to raise bad options here rather than on a worker (this computes
    the first block of ``X``).

    Parameters
    ----------
    explainer : kexplain.Explainer
        A constructed explainer.
    X : dask.array.Array or dask.dataframe.DataFrame of shape (N, d)
        The rows to explain.  An array is explained by blocks of its row chunks (its columns are
        merged into one chunk; its row chunk sizes must be known); a DataFrame by partitions.
    interactions : bool or {"sii", "stii"}
        Also compute pairwise interaction values (returned as a dask array), where the explainer's
        game supports them.  True (same as ``"sii"``): the Shapley interaction index (Grabisch &
        Roubens, 1999) in the layout of shap's ``TreeExplainer``: off the diagonal half the pair's
        index, on the diagonal the rest of the feature's value, so each row sums to the feature's
        Shapley value.  ``"stii"``: the Shapley-Taylor index of order 2 (Sundararajan, Dhamdhere &
        Agarwal, 2020) in the layout of shap's ``ExactExplainer`` (the same halving, with the
        diagonal v({j}) - v(empty set)).  The index is recorded in the result's
        ``interaction_index`` and in the computed Explanation's ``interaction_index``.
    client : distributed.Client, optional
        Ship the explainer to every worker of this client up front instead of putting it in the
        graph.  The collections must then be computed on this client.
    rows_per_block : int, optional
        Rechunk the rows of an array (repartition a DataFrame) to blocks of about this many rows.
        Each ``explain`` call has a fixed cost, so blocks of a few thousand rows waste less than
        blocks of a few hundred; by default the input's chunks or partitions are kept.
    random_state : None, int, numpy SeedSequence or Generator
        For sampled explainers: block ``i`` gets the ``i``-th child of
        ``numpy.random.SeedSequence(random_state).spawn(n_blocks)`` (a Generator spawns its
        own children), so results are reproducible for a given blocking whatever the number of
        workers.  Exact explainers ignore it; None passes no seed.
    **options
        Passed to every ``explainer.explain`` call (``n_jobs`` for threads inside a block,
        ``budget``, ...).

    Returns
    -------
    DaskExplanation
        ``values``, ``base_values`` (and ``interactions``) as dask collections; ``compute()``
        gives the in-memory :class:`~kexplain.Explanation`.

    Raises
    ------
    ImportError
        When dask is not installed (``pip install 'kexplain[dask]'``).
    TypeError
        When ``X`` is not a dask array or dask DataFrame, ``explainer`` has no ``explain`` method
        (a model passed as it is) or ``client`` is not a ``distributed.Client``.
    ValueError
        For ``uncertainty=True, joint=True`` over more than one block (the covariance across
        blocks would be missing), and for bad options of ``explainer.explain``.

    Examples
    --------
    Explain a dask array with the synchronous scheduler (a ``distributed.Client`` works the same
    way, and the values are the in-process ones):

    >>> import dask
    >>> import dask.array as da
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.dask import explain_dask
    >>> rng = np.random.default_rng(0)
    >>> em = kx.KernelExpansion(rng.normal(size=(5, 3)), rng.normal(size=5), kx.kernels.RBF(1.0))
    >>> explainer = kx.ProductKernelExplainer(em, background=rng.normal(size=(4, 3)))
    >>> X = rng.normal(size=(6, 3))
    >>> res = explain_dask(explainer, da.from_array(X, chunks=(2, 3)))
    >>> res.values.chunks
    ((2, 2, 2), (3,))
    >>> with dask.config.set(scheduler="synchronous"):
    ...     values, base = dask.compute(res.values, res.base_values)
    >>> bool(np.allclose(values, explainer.explain(X).values, rtol=1e-12, atol=1e-15))
    True
    >>> np.round(values[0], 3)
    array([-0.033, -0.15 , -0.179])
    """
    dask = _dask()
    from dask.delayed import Delayed

    _check_explainer(explainer)
    _check_client(client)
    options = {**options, "interactions": interactions}
    is_frame = _is_dask_frame(X)
    if not is_frame and not _is_dask_array(X):
        raise TypeError(
            f"X must be a dask array or dask DataFrame, got {type(X).__name__}; explain an in-memory "
            "array with explainer.explain(X)."
        )
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (rows, features), got {X.ndim} dimensions.")
    if rows_per_block is not None:
        rows_per_block = check_param(rows_per_block, "rows_per_block", Integer(1))
    _check_random_state(random_state)

    if is_frame:
        if rows_per_block is not None:
            # the number of rows is needed to choose the partitions (computed here)
            X = X.repartition(npartitions=max(1, -(-len(X) // int(rows_per_block))))
        pieces = list(X.to_delayed())
        probe_rows = X.head(1, npartitions=-1)
        row_counts: list[float] = [np.nan] * len(pieces)
    else:
        d_total = int(X.shape[1])
        X = X.rechunk({0: int(rows_per_block) if rows_per_block is not None else X.chunks[0], 1: d_total})
        if any(np.isnan(c) for c in X.chunks[0]):
            raise ValueError("X has unknown row chunk sizes; call X.compute_chunk_sizes() first.")
        pieces = list(X.to_delayed()[:, 0])
        row_counts = [int(c) for c in X.chunks[0]]
        probe_rows = X[:1].compute()
    if len(probe_rows) == 0:
        raise ValueError("X has no rows to explain.")
    if options.get("joint") and len(pieces) > 1:
        # the covariance between rows of different blocks is never formed by per-block calls
        raise ValueError(
            f"joint=True asks for the covariance between the values of all rows, but X is split into {len(pieces)} "
            "row blocks and each block is explained on its own, so the covariance across blocks would be "
            "missing. Pass rows_per_block >= the number of rows (one block), or use joint=False (the covariance "
            "of each row's values), or call explainer.explain(X, uncertainty=True, joint=True) in process."
        )

    # names, outputs and option errors from one row, in this process
    probe = _explain_block(explainer, probe_rows, options, _first_seed(random_state))
    n_out = probe.n_outputs
    has_inter = probe.interactions is not None

    if client is not None:
        shared: Any = _share(client, explainer)
    else:
        shared = dask.delayed(explainer, name=f"kexplain-explainer-{uuid.uuid4().hex}", traverse=False)
    seeds = _block_seeds(random_state, len(pieces))
    token = uuid.uuid4().hex[:12]
    blocks: list[Delayed] = [
        dask.delayed(_explain_block)(shared, piece, options, seed, dask_key_name=f"kexplain-explain-{token}-{i}")
        for i, (piece, seed) in enumerate(zip(pieces, seeds))
    ]

    da = require("dask.array", "kexplain.dask")
    tail = probe.values.shape[1:]

    def stack(fn: Any, shape_tail: tuple[int, ...]) -> Any:
        arrays = [
            da.from_delayed(dask.delayed(fn, pure=True)(b), shape=(n, *shape_tail), dtype=np.float64)
            for b, n in zip(blocks, row_counts)
        ]
        return da.concatenate(arrays, axis=0)

    inter = stack(_interactions, probe.interactions.shape[1:]) if has_inter and probe.interactions is not None else None
    if is_frame:
        dd = require("dask.dataframe", "kexplain.dask")
        columns = _flat_columns(probe.feature_names, probe.output_names, n_out)
        bcol = probe.base_column()
        base_columns = [bcol] if n_out == 1 else [f"{bcol}[{o}]" for o in probe.output_names]
        meta = _frame(probe[:0], probe_rows.iloc[:0], columns, base_columns)
        frames = [dask.delayed(_frame, pure=True)(b, p, columns, base_columns) for b, p in zip(blocks, pieces)]
        frame = dd.from_delayed(frames, meta=meta, divisions=X.divisions, verify_meta=False)
        values: Any = frame[columns]
        base: Any = frame[base_columns[0]] if n_out == 1 else frame[base_columns]
    else:
        values = stack(_values, tail)
        base = stack(_base_values, probe.base_values.shape[1:])
    return DaskExplanation(
        values,
        base,
        inter,
        blocks,
        feature_names=probe.feature_names,
        output_names=probe.output_names,
        game=probe.game,
        output=probe.output,
        interaction_index=probe.interaction_index if has_inter else None,
    )

"""The functions the workers run for :func:`~kexplain.dask.explain_dask`, and the explainer's way to them.

Each row block is one task ``_explain_block(explainer, block, options, seed)``; the values, base
values, interactions (and, for a DataFrame input, one pandas frame per partition) are read from
its Explanation by the small tasks below, so every collection hangs off the same block task.
With ``client=`` the explainer reaches the workers through :func:`_share`, a recomputable
future replicated to every worker.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._optional import require
from ..explanation import Explanation
from ._memory import heap_reuse


def _explain_block(explainer: Any, block: Any, options: dict[str, Any], seed: Any) -> Explanation:
    """One ``explain`` call on one row block (runs on a worker)."""
    if seed is not None:
        options = {**options, "random_state": seed}
    with heap_reuse():  # a worker's fixed malloc thresholds cost a page fault per temporary (see _memory)
        ex = explainer.explain(block, **options)
    if not isinstance(ex, Explanation):
        raise TypeError(f"{type(explainer).__name__}.explain must return a kexplain.Explanation, got {type(ex)}.")
    return ex


def _values(ex: Explanation) -> np.ndarray:
    return ex.values


def _base_values(ex: Explanation) -> np.ndarray:
    return ex.base_values


def _interactions(ex: Explanation) -> np.ndarray:
    if ex.interactions is None:
        raise ValueError("the explainer returned no interactions although they were asked for.")
    return ex.interactions


def _flat_columns(feature_names: Sequence[str], output_names: Sequence[str], n_outputs: int) -> list[str]:
    if n_outputs == 1:
        return list(feature_names)
    return [f"{f}[{o}]" for o in output_names for f in feature_names]


def _frame(ex: Explanation, part: Any, columns: list[str], base_columns: list[str]) -> Any:
    """Values and base values of one partition, as one pandas DataFrame on the partition's index."""
    pd = require("pandas", "kexplain.dask")
    n = len(ex)
    vals = ex.values if ex.values.ndim == 2 else np.moveaxis(ex.values, 2, 1).reshape(n, len(columns))
    base = ex.base_values.reshape(n, len(base_columns))
    return pd.DataFrame(np.concatenate([vals, base], axis=1), index=part.index, columns=[*columns, *base_columns])


def _identity(x: Any) -> Any:
    return x


def _share(client: Any, explainer: Any) -> Any:
    """The explainer as a future held by every worker, that Dask can recompute when a worker is lost.

    It is submitted as a task whose argument is the explainer (so the scheduler keeps the means to
    make it again, unlike ``scatter``, whose data are gone with the last worker that held them),
    then replicated to every worker so that no block waits for a transfer.
    """
    key = f"{type(explainer).__name__}-{uuid.uuid4().hex}"
    future = client.submit(_identity, explainer, key=key, pure=False)
    with contextlib.suppress(Exception):  # replication only saves transfers; a lost worker must not fail here
        distributed_wait = require("distributed", "kexplain.dask").wait
        distributed_wait([future])
        client.replicate([future])
    return future

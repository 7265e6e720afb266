"""Deprecated: the six statistics of :mod:`kexplain.stats` with a ``client=`` argument.

Use ``with kexplain.dask.on(client):`` around the ordinary :mod:`kexplain.stats` calls instead;
the names here remain as thin aliases that warn (``FutureWarning``) and give the same results.

Examples
--------
>>> import warnings
>>> import numpy as np
>>> import dask.array as da
>>> from distributed import Client, LocalCluster
>>> import kexplain as kx
>>> from kexplain.dask import stats as dstats
>>> rng = np.random.default_rng(0)
>>> X, Z = rng.normal(size=(40, 2)), rng.normal(size=(40, 2)) + [1.0, 0.0]
>>> with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster:
...     with Client(cluster) as client, warnings.catch_warnings():
...         warnings.simplefilter("ignore", FutureWarning)
...         att = dstats.mmd_shapley(da.from_array(X, chunks=10), da.from_array(Z, chunks=10), client=client)
>>> bool(np.array_equal(att.values, kx.stats.mmd_shapley(X, Z).values))
True
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

from .. import stats as _stats
from .context import on

__all__ = ["mmd", "mmd_shapley", "mmd_test", "hsic", "hsic_shapley", "hsic_test"]


def _local(data: Any) -> Any:
    """A dask array / DataFrame / Series computed into memory (NumPy / pandas); anything else as is."""
    if hasattr(data, "__dask_graph__") and hasattr(data, "compute"):
        return data.compute()
    return data


def _alias(name: str) -> Callable[..., Any]:
    fn = getattr(_stats, name)

    @functools.wraps(fn)
    def alias(*data: Any, client: Any = None, **options: Any) -> Any:
        warnings.warn(
            f"kexplain.dask.{name}(..., client=client) is deprecated and will be removed; write "
            f"`with kexplain.dask.on(client): kexplain.stats.{name}(...)` (same arguments, same result).",
            FutureWarning,
            stacklevel=2,
        )
        with on(client):
            return fn(*[_local(x) for x in data], **options)

    alias.__doc__ = (
        f"Deprecated: ``with kexplain.dask.on(client): kexplain.stats.{name}(...)``.\n\n"
        f"Takes the arguments of :func:`kexplain.stats.{name}` and ``client`` (a\n"
        "``distributed.Client``; default: the current client), warns (``FutureWarning``) and\n"
        f"returns what :func:`kexplain.stats.{name}` returns inside ``kexplain.dask.on(client)``.\n"
    )
    alias.__module__ = __name__
    alias.__qualname__ = name
    return alias


mmd = _alias("mmd")
mmd_shapley = _alias("mmd_shapley")
mmd_test = _alias("mmd_test")
hsic = _alias("hsic")
hsic_shapley = _alias("hsic_shapley")
hsic_test = _alias("hsic_test")

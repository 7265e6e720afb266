"""MMD, HSIC, their Shapley attributions and permutation tests over dask arrays on a Dask cluster.

The same statistics as :mod:`kexplain.stats` (same arguments, same results), with the sample
pairs split into tasks across the workers of a ``dask.distributed`` Client.  The pairs are cut
into fixed tiles (a function of the number of features and of weight columns only); each task
computes the partial sums of a run of tiles (with every permutation column of a test), and the
partial sums come back and are added in tile order.  The result is therefore the same, bit for
bit, as the in-process one, whatever the number of workers, tasks or chunks of the input.  The
incomplete U-statistics (``n_pairs``) draw their pairs in chunks, each from its own random stream
(``numpy.random.SeedSequence(entropy, spawn_key=(group, chunk))``, the children ``spawn`` makes),
so they are reproducible for a ``random_state`` on any cluster.

Every pair needs both rows, so each sample (n x d numbers: 10^6 rows at d = 20 are 160 MB) is
gathered once and shipped to every worker with the task's description; the work, (n + m)^2 / 2
pairs, is what is spread.  The description is submitted as a task (not scattered), so that when a
worker is lost Dask recomputes it and the lost tasks on the workers left: the result is the same.

Examples
--------
>>> import numpy as np
>>> import dask.array as da
>>> from distributed import Client, LocalCluster
>>> import kexplain as kx
>>> from kexplain.dask import stats as dstats
>>> rng = np.random.default_rng(0)
>>> X, Z = rng.normal(size=(40, 2)), rng.normal(size=(40, 2)) + [1.0, 0.0]
>>> with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster:
...     with Client(cluster) as client:
...         att = dstats.mmd_shapley(da.from_array(X, chunks=10), da.from_array(Z, chunks=10), client=client)
>>> bool(np.array_equal(att.values, kx.stats.mmd_shapley(X, Z).values))
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from .. import stats as _stats
from ..attribution import GlobalAttribution, PermutationTestResult
from ..kernels.base import Kernel
from ..stats.runner import DEFAULT_BLOCK_BYTES, use_runner

__all__ = ["mmd", "mmd_shapley", "mmd_test", "hsic", "hsic_shapley", "hsic_test"]

#: tasks per worker thread a run is split into at least (load balance), when there are enough tiles
TASKS_PER_THREAD = 4

#: times a task that raised is run again (a worker lost mid-task is handled by Dask itself)
RETRIES = 2


def _local(data: Any) -> Any:
    """A dask array / DataFrame / Series computed into memory (NumPy / pandas); anything else as is."""
    if hasattr(data, "__dask_graph__") and hasattr(data, "compute"):
        return data.compute()
    return data


def _get_client(client: Any) -> Any:
    if client is not None:
        from distributed import Client

        if not isinstance(client, Client):
            raise TypeError(
                f"client must be a distributed.Client (or None for the current client), got {type(client).__name__}."
            )
        return client
    from distributed import get_client

    try:
        return get_client()
    except ValueError:
        raise ValueError(
            "kexplain.dask statistics need a dask.distributed Client: pass client=..., or create one "
            "(distributed.Client(...)) before calling."
        ) from None


def _call(task: Callable[[int, int], list[Any]], t0: int, t1: int) -> list[Any]:
    return task(t0, t1)


class _DaskRunner:
    """Runs the tasks of a statistic on ``client``'s workers; yields each task's tiles in order."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def __call__(self, task: Callable[[int, int], list[Any]], ranges: Sequence[tuple[int, int]]) -> Iterator[list[Any]]:
        if not ranges:
            return
        threads = max(1, sum(self.client.nthreads().values()))
        n_tiles = ranges[-1][1] - ranges[0][0]
        size = max(1, min(max(t1 - t0 for t0, t1 in ranges), -(-n_tiles // (TASKS_PER_THREAD * threads))))
        pieces = [(a, min(t1, a + size)) for t0, t1 in ranges for a in range(t0, t1, size)]
        shipped = _ship(self.client, task)  # the data go to each worker once, and can be made again
        futures = [self.client.submit(_call, shipped, a, b, pure=False, retries=RETRIES) for a, b in pieces]
        try:
            for f in futures:
                yield f.result()
        finally:
            for f in futures:
                f.release()
            shipped.release()


def _identity(x: Any) -> Any:
    return x


def _ship(client: Any, task: Any) -> Any:
    """The task's description (with the samples) as a future on every worker that Dask can recompute.

    ``client.scatter`` would put the data on the workers only: when the workers holding them are
    lost, the tasks fail with "lost dependencies" (or wait).  Submitted as a task whose argument is
    the description, the scheduler keeps the means to make it again on the workers that are left.
    """
    import contextlib
    import uuid

    from distributed import wait

    future = client.submit(_identity, task, key=f"kexplain-stat-data-{uuid.uuid4().hex}", pure=False)
    with contextlib.suppress(Exception):  # replication only saves transfers; a lost worker must not fail here
        wait([future])
        client.replicate([future])
    return future


def _run(fn: Callable[..., Any], client: Any, *data: Any, **options: Any) -> Any:
    runner = _DaskRunner(_get_client(client))
    local = [_local(x) for x in data]
    with use_runner(runner):
        return fn(*local, **options)


def mmd(
    X: Any,
    Z: Any,
    *,
    kernel: Kernel | None = None,
    estimator: str = "unbiased",
    bandwidth: str = "median",
    standardize: bool = True,
    n_jobs: int | None = None,
    client: Any = None,
) -> float:
    """:func:`kexplain.stats.mmd` over dask arrays, row blocks of the Gram sums spread over ``client``.

    Parameters
    ----------
    X, Z : dask array or DataFrame, or anything :func:`kexplain.stats.mmd` accepts
    kernel, estimator, bandwidth, standardize, n_jobs
        As in :func:`kexplain.stats.mmd` (``n_jobs`` has no effect: the workers' threads run the tasks).
    client : distributed.Client, optional
        Default: the current client (``distributed.get_client()``).

    Returns
    -------
    float
        The same number as :func:`kexplain.stats.mmd` on the computed arrays.

    Examples
    --------
    >>> import numpy as np
    >>> from distributed import Client
    >>> from kexplain.dask.stats import mmd
    >>> rng = np.random.default_rng(0)
    >>> X, Z = rng.normal(size=(30, 2)), rng.normal(size=(30, 2)) + 1.0
    >>> with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=":0") as c:
    ...     print(f"{mmd(X, Z, client=c):.3f}", f"{mmd(X, Z, standardize=False, client=c):.3f}")
    0.225 0.229
    """
    return _run(
        _stats.mmd,
        client,
        X,
        Z,
        kernel=kernel,
        estimator=estimator,
        bandwidth=bandwidth,
        standardize=standardize,
        n_jobs=n_jobs,
    )


def mmd_shapley(
    X: Any,
    Z: Any,
    *,
    kernel: Kernel | None = None,
    estimator: str = "unbiased",
    bandwidth: str = "median",
    standardize: bool = True,
    n_pairs: int | None = None,
    random_state: Any = None,
    max_block_bytes: int = DEFAULT_BLOCK_BYTES,
    progress: bool = False,
    n_jobs: int | None = None,
    client: Any = None,
) -> GlobalAttribution:
    """:func:`kexplain.stats.mmd_shapley` over dask arrays, pair tiles spread over ``client``'s workers.

    Parameters
    ----------
    X, Z : dask array or DataFrame, or anything :func:`kexplain.stats.mmd_shapley` accepts
    kernel, estimator, bandwidth, standardize, n_pairs, random_state, max_block_bytes, progress, n_jobs
        As in :func:`kexplain.stats.mmd_shapley` (``n_jobs`` has no effect here).
    client : distributed.Client, optional
        Default: the current client.

    Returns
    -------
    GlobalAttribution
        Identical (bit for bit) to :func:`kexplain.stats.mmd_shapley` on the computed arrays,
        also for ``n_pairs`` with the same ``random_state``.

    Examples
    --------
    >>> import numpy as np
    >>> from distributed import Client
    >>> from kexplain.dask.stats import mmd_shapley
    >>> rng = np.random.default_rng(0)
    >>> X, Z = rng.normal(size=(30, 2)), rng.normal(size=(30, 2)) + [1.0, 0.0]
    >>> with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=":0") as c:
    ...     print(mmd_shapley(X, Z, client=c).ranking())
    ['x0', 'x1']
    """
    return _run(
        _stats.mmd_shapley,
        client,
        X,
        Z,
        kernel=kernel,
        estimator=estimator,
        bandwidth=bandwidth,
        standardize=standardize,
        n_pairs=n_pairs,
        random_state=random_state,
        max_block_bytes=max_block_bytes,
        progress=progress,
        n_jobs=n_jobs,
    )


def mmd_test(
    X: Any,
    Z: Any,
    *,
    kernel: Kernel | None = None,
    n_permutations: int = 1000,
    estimator: str = "unbiased",
    bandwidth: str = "median",
    standardize: bool = True,
    random_state: Any = None,
    max_block_bytes: int = DEFAULT_BLOCK_BYTES,
    progress: bool = False,
    n_jobs: int | None = None,
    client: Any = None,
) -> PermutationTestResult:
    """:func:`kexplain.stats.mmd_test` over dask arrays: each task sums its pairs for every relabelling.

    Parameters
    ----------
    X, Z : dask array or DataFrame, or anything :func:`kexplain.stats.mmd_test` accepts
    kernel, n_permutations, estimator, bandwidth, standardize, random_state, max_block_bytes, progress, n_jobs
        As in :func:`kexplain.stats.mmd_test` (``n_jobs`` has no effect here).
    client : distributed.Client, optional
        Default: the current client.

    Returns
    -------
    PermutationTestResult
        Identical to :func:`kexplain.stats.mmd_test` on the computed arrays.

    Examples
    --------
    >>> import numpy as np
    >>> from distributed import Client
    >>> from kexplain.dask.stats import mmd_test
    >>> rng = np.random.default_rng(0)
    >>> X, Z = rng.normal(size=(30, 2)), rng.normal(size=(30, 2)) + [1.5, 0.0]
    >>> with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=":0") as c:
    ...     print(f"{mmd_test(X, Z, n_permutations=49, random_state=0, client=c).p_value:.2f}")
    0.02
    """
    return _run(
        _stats.mmd_test,
        client,
        X,
        Z,
        kernel=kernel,
        n_permutations=n_permutations,
        estimator=estimator,
        bandwidth=bandwidth,
        standardize=standardize,
        random_state=random_state,
        max_block_bytes=max_block_bytes,
        progress=progress,
        n_jobs=n_jobs,
    )


def hsic(
    X: Any,
    Y: Any,
    *,
    kernel_x: Kernel | None = None,
    kernel_y: Kernel | None = None,
    estimator: str = "biased",
    bandwidth: str = "median",
    standardize: bool = True,
    n_jobs: int | None = None,
    client: Any = None,
) -> float:
    """:func:`kexplain.stats.hsic` over dask arrays, row blocks spread over ``client``'s workers.

    Parameters
    ----------
    X, Y : dask array or DataFrame, or anything :func:`kexplain.stats.hsic` accepts
    kernel_x, kernel_y, estimator, bandwidth, standardize, n_jobs
        As in :func:`kexplain.stats.hsic` (``n_jobs`` has no effect here).
    client : distributed.Client, optional
        Default: the current client.

    Returns
    -------
    float
        The same number as :func:`kexplain.stats.hsic` on the computed arrays.

    Examples
    --------
    >>> import numpy as np
    >>> from distributed import Client
    >>> from kexplain.dask.stats import hsic
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 2))
    >>> y = np.sin(2 * X[:, 0])
    >>> with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=":0") as c:
    ...     print(f"{hsic(X, y, client=c):.3f}", f"{hsic(X, y, standardize=False, client=c):.3f}")
    0.022 0.023
    """
    return _run(
        _stats.hsic,
        client,
        X,
        Y,
        kernel_x=kernel_x,
        kernel_y=kernel_y,
        estimator=estimator,
        bandwidth=bandwidth,
        standardize=standardize,
        n_jobs=n_jobs,
    )


def hsic_shapley(
    X: Any,
    Y: Any,
    *,
    kernel_x: Kernel | None = None,
    kernel_y: Kernel | None = None,
    attribute: str = "x",
    estimator: str = "biased",
    bandwidth: str = "median",
    standardize: bool = True,
    n_pairs: int | None = None,
    random_state: Any = None,
    max_block_bytes: int = DEFAULT_BLOCK_BYTES,
    progress: bool = False,
    n_jobs: int | None = None,
    client: Any = None,
) -> GlobalAttribution | tuple[GlobalAttribution, GlobalAttribution]:
    """:func:`kexplain.stats.hsic_shapley` over dask arrays, pair tiles spread over ``client``'s workers.

    Parameters
    ----------
    X, Y : dask array or DataFrame, or anything :func:`kexplain.stats.hsic_shapley` accepts
    kernel_x, kernel_y, attribute, estimator, bandwidth, standardize, n_pairs, random_state, max_block_bytes,
    progress, n_jobs
        As in :func:`kexplain.stats.hsic_shapley` (``n_jobs`` has no effect here).
    client : distributed.Client, optional
        Default: the current client.

    Returns
    -------
    GlobalAttribution or tuple of two
        Identical to :func:`kexplain.stats.hsic_shapley` on the computed arrays.

    Examples
    --------
    >>> import numpy as np
    >>> from distributed import Client
    >>> from kexplain.dask.stats import hsic_shapley
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 3))
    >>> y = np.sin(2 * X[:, 2])
    >>> with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=":0") as c:
    ...     print(hsic_shapley(X, y, client=c).ranking()[0])
    x2
    """
    return _run(
        _stats.hsic_shapley,
        client,
        X,
        Y,
        kernel_x=kernel_x,
        kernel_y=kernel_y,
        attribute=attribute,
        estimator=estimator,
        bandwidth=bandwidth,
        standardize=standardize,
        n_pairs=n_pairs,
        random_state=random_state,
        max_block_bytes=max_block_bytes,
        progress=progress,
        n_jobs=n_jobs,
    )


def hsic_test(
    X: Any,
    Y: Any,
    *,
    kernel_x: Kernel | None = None,
    kernel_y: Kernel | None = None,
    attribute: str = "x",
    n_permutations: int = 1000,
    estimator: str = "biased",
    bandwidth: str = "median",
    standardize: bool = True,
    random_state: Any = None,
    max_block_bytes: int = DEFAULT_BLOCK_BYTES,
    progress: bool = False,
    n_jobs: int | None = None,
    client: Any = None,
) -> PermutationTestResult:
    """:func:`kexplain.stats.hsic_test` over dask arrays: each task sums its pairs for every shuffle.

    Parameters
    ----------
    X, Y : dask array or DataFrame, or anything :func:`kexplain.stats.hsic_test` accepts
    kernel_x, kernel_y, attribute, n_permutations, estimator, bandwidth, standardize, random_state,
    max_block_bytes
        As in :func:`kexplain.stats.hsic_test`.
    progress, n_jobs
        As in :func:`kexplain.stats.hsic_test` (``n_jobs`` has no effect here).
    client : distributed.Client, optional
        Default: the current client.

    Returns
    -------
    PermutationTestResult
        Identical to :func:`kexplain.stats.hsic_test` on the computed arrays.

    Examples
    --------
    >>> import numpy as np
    >>> from distributed import Client
    >>> from kexplain.dask.stats import hsic_test
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 2))
    >>> y = np.cos(2 * X[:, 1]) + 0.1 * rng.normal(size=40)
    >>> with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=":0") as c:
    ...     print(f"{hsic_test(X, y, n_permutations=49, random_state=0, client=c).p_value:.2f}")
    0.02
    """
    return _run(
        _stats.hsic_test,
        client,
        X,
        Y,
        kernel_x=kernel_x,
        kernel_y=kernel_y,
        attribute=attribute,
        n_permutations=n_permutations,
        estimator=estimator,
        bandwidth=bandwidth,
        standardize=standardize,
        random_state=random_state,
        max_block_bytes=max_block_bytes,
        progress=progress,
        n_jobs=n_jobs,
    )

"""``with kexplain.dask.on(client):``: the ordinary functions, their blocks run on a Dask cluster.

Inside the block, the kernel statistics of :mod:`kexplain.stats` (``mmd``, ``mmd_shapley``,
``mmd_test``, ``hsic``, ``hsic_shapley``, ``hsic_test``) send their pair tiles to the client's
workers, and every explainer's ``explain`` sends its row blocks there; nothing else changes (the
same arguments, the same results), in the spirit of ``joblib.parallel_config``.

Statistics: the pairs are cut into fixed tiles (a function of the number of features and of
weight columns only); each task computes the partial sums of a run of tiles (with every
permutation column of a test), and the partial sums come back (stacked per field: Dask would
serialize a list of small arrays element by element) and are added in tile order.  The
result is therefore the same, bit for bit, as the in-process one, whatever the number of workers,
tasks or chunks of the input.  The incomplete U-statistics (``n_pairs``) draw their pairs in
chunks, each from its own random stream (``numpy.random.SeedSequence(entropy, spawn_key=(group,
chunk))``, the children ``spawn`` makes), so they are reproducible for a ``random_state`` on any
cluster.  Every pair needs both rows, so each sample (n x d numbers: 10^6 rows at d = 20 are 160 MB)
is gathered once and shipped to every worker with the task's description; the work, (n + m)^2 / 2
pairs, is what is spread.

Explanations: the rows are cut into contiguous blocks (a few per worker thread) and each block is
one task; points are explained independently, so the values are those of one in-process call.
The explainer and the rows are shipped once, as one submitted task every block depends on.

Shipped descriptions are submitted as tasks (not scattered), so that when a worker is lost Dask
recomputes them and the lost tasks on the workers left: the result is the same.
"""

from __future__ import annotations

import contextlib
import pickle
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from ..base import use_block_runner
from ..explanation import Explanation
from ..stats.runner import use_runner
from ._memory import heap_reuse

__all__ = ["on"]

#: tasks per worker thread a run is split into at least (load balance), when there is enough work
TASKS_PER_THREAD = 4

#: a statistic's task spans at most this many of its runs of tiles (``_stats_pieces``)
MAX_RANGES_PER_TASK = 8

#: times a task that raised is run again (a worker lost mid-task is handled by Dask itself)
RETRIES = 2

#: times the pieces of a run are submitted again when Dask gave up on them (see _run_pieces)
RESUBMITS = 2

#: seconds a client that lost its scheduler connection gets to reconnect before the run fails
RECONNECT_S = 60.0


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
            "kexplain.dask.on: the statistics and explainers need a dask.distributed Client: pass one "
            "(kexplain.dask.on(client)), or create one (distributed.Client(...)) before entering the block."
        ) from None


def _threads(client: Any) -> int:
    return max(1, sum(client.nthreads().values()))


def _identity(x: Any) -> Any:
    return x


def _ship(client: Any, payload: Any) -> Any:
    """``payload`` as a future on every worker that Dask can recompute.

    ``client.scatter`` would put the data on the workers only: when the workers holding them are
    lost, the tasks fail with "lost dependencies" (or wait).  Submitted as a task whose argument is
    the payload, the scheduler keeps the means to make it again on the workers that are left.
    """
    from distributed import wait

    future = client.submit(_identity, payload, key=f"kexplain-data-{uuid.uuid4().hex}", pure=False)
    with contextlib.suppress(Exception):  # replication only saves transfers; a lost worker must not fail here
        wait([future])
        client.replicate([future])
    return future


def _lost_errors() -> tuple[type[BaseException], ...]:
    """What a future raises when Dask lost it rather than the task failing: cancelled (a lost
    connection to the scheduler cancels every future; "lost dependencies"), a task that killed
    ``allowed_failures`` workers, a closed connection."""
    from distributed import KilledWorker
    from distributed.comm import CommClosedError
    from distributed.utils import CancelledError

    return (CancelledError, KilledWorker, CommClosedError)


def _await_connection(client: Any, cause: BaseException) -> None:
    """Return once ``client`` talks to its scheduler again; a clear error after ``RECONNECT_S``."""
    deadline = time.monotonic() + RECONNECT_S
    while client.status != "running":
        if client.status in ("closing", "closed") or time.monotonic() > deadline:
            raise RuntimeError(
                f"kexplain.dask: Dask lost the work ({type(cause).__name__}: {cause}) and the client is "
                f"{client.status!r} (not reconnected to the scheduler within {RECONNECT_S:.0f} s); check the "
                "cluster and run the call again."
            ) from cause
        time.sleep(0.1)


def _run_pieces(client: Any, payload: Any, fn: Callable[..., Any], pieces: Sequence[tuple[int, int]]) -> Iterator[Any]:
    """``fn(payload, a, b)`` for each piece on ``client``'s workers, yielded in order.

    A worker lost mid-run is Dask's to handle (its tasks and the shipped payload are recomputed on
    the workers left).  What Dask gives up on (every future cancelled when the client's connection
    to the scheduler drops, a task that killed ``allowed_failures`` workers) is submitted again,
    payload included, from the first piece not yet yielded, at most ``RESUBMITS`` times; then
    the error says what happened.  Each piece's result is the same whichever worker computes it.
    """
    lost = _lost_errors()
    shipped = _ship(client, payload)  # the data go to each worker once, and can be made again
    futures = [client.submit(_call, fn, shipped, a, b, pure=False, retries=RETRIES) for a, b in pieces]
    done, resubmits = 0, 0
    try:
        while done < len(futures):
            try:
                result = futures[done].result()
            except lost as exc:
                resubmits += 1
                if resubmits > RESUBMITS:
                    raise RuntimeError(
                        f"kexplain.dask: Dask lost the work {resubmits} times ({type(exc).__name__}: {exc}); "
                        "check the cluster (workers killed by memory limits?) and run the call again."
                    ) from exc
                _await_connection(client, exc)
                for f in futures:
                    f.release()
                shipped.release()
                shipped = _ship(client, payload)
                futures[done:] = [
                    client.submit(_call, fn, shipped, a, b, pure=False, retries=RETRIES) for a, b in pieces[done:]
                ]
                continue
            done += 1
            yield result
    finally:
        for f in futures:
            f.release()
        shipped.release()


def _call(fn: Callable[..., Any], *args: Any) -> Any:
    with heap_reuse():  # a worker's fixed malloc thresholds cost a page fault per temporary (see _memory)
        return fn(*args)


def _stats_pieces(ranges: Sequence[tuple[int, int]], threads: int) -> list[tuple[int, int]]:
    """The statistic's consecutive runs of tiles regrouped into Dask tasks, in order.

    ``TASKS_PER_THREAD`` tasks per worker thread (load balance), each at most
    ``MAX_RANGES_PER_TASK`` of the statistic's own runs long (each run's temporaries fit its
    memory bound, and a task computes its tiles one after another, so only its results grow).
    Runs were the task size before: a complete MMD^2 attribution at n = m = 10,000 made some 4,300
    tasks of about 30 ms each, and the scheduler's per-task cost competed with the workers.
    """
    t_first, t_end = ranges[0][0], ranges[-1][1]
    largest = max(t1 - t0 for t0, t1 in ranges)
    size = max(1, min(MAX_RANGES_PER_TASK * largest, -(-(t_end - t_first) // (TASKS_PER_THREAD * threads))))
    contiguous = all(a[1] == b[0] for a, b in zip(ranges[:-1], ranges[1:]))
    if size <= largest or not contiguous:  # pieces within the runs, as before
        return [(a, min(t1, a + size)) for t0, t1 in ranges for a in range(t0, t1, size)]
    return [(a, min(t_end, a + size)) for a in range(t_first, t_end, size)]


def _column(items: list[Any]) -> Any:
    """One field of every tile's result: stacked into one array when all are arrays of one shape
    and dtype (at least 1-d, so indexing gives back an array, not a NumPy scalar), else the list."""
    first = items[0]
    if type(first) is np.ndarray and first.ndim >= 1:
        if all(type(x) is np.ndarray and x.shape == first.shape and x.dtype == first.dtype for x in items):
            return np.stack(items)
    return items


def _pack(results: list[Any]) -> tuple[str, int, list[Any], bytes]:
    """A task's list of per-tile results as a few objects Dask sends cheaply (see ``_unpack``).

    Dask serializes a returned list element by element, a header and a frame per small array, on
    the worker's event loop, and the client deserializes them on its own; that CPU competes with
    the tiles for the cores.  A complete MMD^2 attribution's 256-tile task (three fields per tile)
    took 24 ms to serialize (768 frames) and 7.8 ms to deserialize; packed, 1.1 ms and 0.6 ms
    (3 frames), and 14 ms and 0.6 ms with 1,000 permutation columns (load 8.6, min of 3 runs).
    Each field is stacked into one array where it can be (``_column``), the arrays travel as
    Dask's own frames (no copy for large permutation-test results) and the other fields as one
    pickle; ``_unpack`` gives back the same values (views of the stacked arrays) and the same
    Python objects elsewhere, so the sums, added in tile order, do not change.
    """
    if results and all(type(r) is tuple and len(r) == len(results[0]) for r in results):
        kind, columns = "tuples", [_column([r[q] for r in results]) for q in range(len(results[0]))]
    else:
        kind, columns = "items", [_column(list(results))] if results else []
    arrays = [c if type(c) is np.ndarray else None for c in columns]
    rest = [None if type(c) is np.ndarray else c for c in columns]
    return kind, len(results), arrays, pickle.dumps(rest, protocol=pickle.HIGHEST_PROTOCOL)


def _unpack(packed: tuple[str, int, list[Any], bytes]) -> list[Any]:
    """The list of per-tile results that ``_pack`` packed (arrays come back as views of one array)."""
    kind, n, arrays, rest = packed
    columns = [a if a is not None else r for a, r in zip(arrays, pickle.loads(rest))]
    if kind == "tuples":
        return [tuple(col[k] for col in columns) for k in range(n)]
    return [columns[0][k] for k in range(n)] if n else []


def _tiles(task: Callable[[int, int], list[Any]], a: int, b: int) -> tuple[str, int, list[Any], bytes]:
    return _pack(task(a, b))


class _StatsRunner:
    """Runs the tasks of a statistic on ``client``'s workers; yields each task's tiles in order."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def __call__(self, task: Callable[[int, int], list[Any]], ranges: Sequence[tuple[int, int]]) -> Iterator[list[Any]]:
        if not ranges:
            return
        pieces = _stats_pieces(ranges, _threads(self.client))
        for packed in _run_pieces(self.client, task, _tiles, pieces):
            yield _unpack(packed)


def _block(fn: Callable[[slice], Explanation], a: int, b: int) -> Explanation:
    return fn(slice(a, b))


class _BlockRunner:
    """Runs an ``explain`` call's row blocks on ``client``'s workers and stacks them in row order."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def __call__(self, fn: Callable[[slice], Explanation], n_rows: int) -> Explanation:
        n_blocks = min(n_rows, TASKS_PER_THREAD * _threads(self.client))
        if n_blocks <= 1:
            return fn(slice(0, n_rows))
        bounds = np.linspace(0, n_rows, n_blocks + 1).astype(int)
        pieces = [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
        # the explainer and the rows are shipped once
        return Explanation.concatenate(list(_run_pieces(self.client, fn, _block, pieces)))


@contextlib.contextmanager
def on(client: Any = None) -> Iterator[Any]:
    """Run the blocks of kexplain's statistics and explainers on a Dask cluster inside a ``with`` block.

    Inside ``with kexplain.dask.on(client):``, the ordinary functions and methods run as usual but
    hand their independent pieces of work to ``client``'s workers: the pair tiles of
    :func:`kexplain.stats.mmd`, :func:`~kexplain.stats.mmd_shapley`, :func:`~kexplain.stats.mmd_test`,
    :func:`~kexplain.stats.hsic`, :func:`~kexplain.stats.hsic_shapley` and
    :func:`~kexplain.stats.hsic_test`, and the row blocks of every explainer's ``explain``.  The
    results are identical to the in-process ones (bit for bit for the statistics, also with
    ``n_pairs`` and a ``random_state``; for explanations, as for another ``n_jobs``: see the
    "Running at scale" page).  ``n_jobs`` has no effect inside the block: the workers' threads run
    the tasks.  The inputs may be dask arrays or DataFrames: each is computed into memory once (every
    pair of a statistic needs both rows); for lazy explanations that keep a DataFrame's partitions,
    use :func:`explain_dask`.  The setting is a context variable: it holds in the thread (or
    asyncio task) that entered the block, and nests.

    Parameters
    ----------
    client : distributed.Client, optional
        The cluster's client. Default: the current client (``distributed.get_client()``); a
        ``ValueError`` says so when there is none.

    Yields
    ------
    distributed.Client
        The client the blocks run on.

    Examples
    --------
    >>> import numpy as np
    >>> from distributed import Client
    >>> import kexplain as kx
    >>> import kexplain.dask
    >>> rng = np.random.default_rng(0)
    >>> X, Z = rng.normal(size=(30, 2)), rng.normal(size=(30, 2)) + [1.0, 0.0]
    >>> with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=":0") as client:
    ...     with kexplain.dask.on(client):
    ...         att = kx.stats.mmd_shapley(X, Z)
    >>> att.ranking(), bool(np.array_equal(att.values, kx.stats.mmd_shapley(X, Z).values))
    (['x0', 'x1'], True)
    """
    client = _get_client(client)
    with use_runner(_StatsRunner(client)), use_block_runner(_BlockRunner(client)):
        yield client

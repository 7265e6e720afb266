"""Where the statistics' tasks run: this process (joblib threads) or a runner set by a caller.

The kernel statistics (:mod:`kexplain.stats`) cut their sample pairs into tasks of whole tiles
and add the tasks' results in a fixed order, so any runner that returns each task's list of
results, in task order, gives the same numbers bit for bit.  ``kexplain.dask`` sets one that
runs the tasks on a Dask cluster.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

__all__ = ["DEFAULT_BLOCK_BYTES", "RUNNER", "Runner", "run_tasks", "use_runner"]

#: default bound, in bytes, for the temporaries of one task (a run of consecutive tiles)
DEFAULT_BLOCK_BYTES = 32 * 2**20

#: where tasks run: None for this process (joblib threads), else a callable
#: ``runner(task, ranges) -> iterator of per-task lists, in order`` (kexplain.dask sets one)
Runner = Callable[[Callable[[int, int], list[Any]], Sequence[tuple[int, int]]], Iterator[list[Any]]]
RUNNER: ContextVar[Runner | None] = ContextVar("kexplain_stats_runner", default=None)


@contextmanager
def use_runner(runner: Runner) -> Iterator[None]:
    """Run every task of the statistics computed inside the ``with`` block through ``runner``.

    Parameters
    ----------
    runner : callable
        ``runner(task, ranges)``: an iterator of ``task(*r)`` for each ``r`` in ``ranges``, in order.

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.stats.runner import use_runner
    >>> calls = []
    >>> def serial(task, ranges):
    ...     for r in ranges:
    ...         calls.append(r)
    ...         yield task(*r)
    >>> X = np.random.default_rng(0).normal(size=(20, 2))
    >>> with use_runner(serial):
    ...     res = kx.stats.hsic_shapley(X, X[:, 0] + X[:, 1])
    >>> len(calls) > 0
    True
    """
    token = RUNNER.set(runner)
    try:
        yield
    finally:
        RUNNER.reset(token)


_CONTROLLER: list[Any] = []


def _blas_controller() -> Any:
    """One ``threadpoolctl.ThreadpoolController`` per process: ``threadpool_limits`` scans the loaded
    libraries on every call (3-5 ms of CPU, measured), a fixed cost that dominated small statistics;
    the BLAS that numpy loads is there before the first call."""
    if not _CONTROLLER:
        from threadpoolctl import ThreadpoolController

        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0]


def run_tasks(
    task: Callable[[int, int], list[Any]], ranges: Sequence[tuple[int, int]], n_jobs: int
) -> Iterator[list[Any]]:
    """Each task's list of per-tile results, in task order (joblib threads when n_jobs > 1)."""
    runner = RUNNER.get()
    if runner is not None:
        yield from runner(task, ranges)
        return

    # per-tile matrix products are small: one BLAS thread each keeps the cores for the tiles
    with _blas_controller().limit(limits=1, user_api="blas"):
        if n_jobs == 1 or len(ranges) <= 1:
            for r in ranges:
                yield task(*r)
            return
        from joblib import Parallel, delayed

        yield from Parallel(n_jobs=n_jobs, prefer="threads", return_as="generator")(delayed(task)(*r) for r in ranges)

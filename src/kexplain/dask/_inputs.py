"""What :func:`~kexplain.dask.explain_dask` checks of its arguments, and the blocks' random streams.

The checks run in the caller's process, before any graph is built, so that a wrong argument
is named here rather than on a worker; the seeds give block ``i`` the ``i``-th child of
``SeedSequence(random_state)``, whatever the number of workers.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _check_explainer(explainer: Any) -> None:
    """A clear error for a model (or anything else) passed where an explainer belongs."""
    if not callable(getattr(explainer, "explain", None)):
        hint = ""
        if hasattr(explainer, "predict") or hasattr(explainer, "fit"):
            hint = (
                f"; {type(explainer).__name__} looks like a model: wrap it in an explainer first, e.g. "
                "explain_dask(kexplain.ProductKernelExplainer(model, background), X)"
            )
        raise TypeError(
            "explainer must be a kexplain explainer (an object with an explain(X, **options) method returning a "
            f"kexplain.Explanation), got {type(explainer).__name__}{hint}."
        )


def _check_client(client: Any) -> None:
    """``client`` must be a ``distributed.Client`` (or None)."""
    if client is None:
        return
    try:
        from distributed import Client
    except ImportError:  # pragma: no cover - the dask extra installs distributed
        raise ImportError("client= needs the optional package 'distributed': pip install 'kexplain[dask]'") from None
    if not isinstance(client, Client):
        raise TypeError(
            f"client must be a distributed.Client (or None for dask's default scheduler), got {type(client).__name__}."
        )


def _is_dask_array(X: Any) -> bool:
    return type(X).__module__.startswith("dask.array") and hasattr(X, "chunks")


def _is_dask_frame(X: Any) -> bool:
    module = type(X).__module__
    return (module.startswith("dask.dataframe") or module.startswith("dask_expr")) and hasattr(X, "columns")


def _check_random_state(random_state: Any) -> None:
    """What ``SeedSequence`` would refuse in its own words (naming no argument), refused here."""
    if random_state is None or isinstance(random_state, (np.random.Generator, np.random.SeedSequence)):
        return
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, (bool, np.bool_)):
        if random_state >= 0:
            return
    raise ValueError(
        f"random_state must be None, a non-negative integer, a numpy SeedSequence or Generator, got {random_state!r}."
    )


def _spawn(random_state: Any, n: int) -> list[Any]:
    if isinstance(random_state, np.random.Generator):
        return list(random_state.spawn(n))
    ss = random_state if isinstance(random_state, np.random.SeedSequence) else np.random.SeedSequence(random_state)
    return [np.random.default_rng(child) for child in ss.spawn(n)]


def _block_seeds(random_state: Any, n_blocks: int) -> list[Any]:
    """One independent random stream per block (None: no seed passed)."""
    if random_state is None:
        return [None] * n_blocks
    return _spawn(random_state, n_blocks)


def _first_seed(random_state: Any) -> Any:
    if random_state is None:
        return None
    if isinstance(random_state, np.random.Generator):
        # do not advance the caller's generator for the probe
        return np.random.default_rng(0)
    return _spawn(random_state, 1)[0]

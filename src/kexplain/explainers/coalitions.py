"""Explain rows by enumerating or sampling coalitions of a value function.

The common loop of the explainers whose game is a value function v(S) with no product structure
(``ModelAgnosticExplainer``, the CME game of ``kexplain.rkhs.ObservationalExplainer``): all 2^d
coalitions through ``kx.exact_shapley`` when d is small, else ``kx.sampled_shapley`` with standard
errors; rows in blocks over threads, every block drawing the same coalitions.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from numbers import Integral
from typing import Any

import numpy as np

from .._typing import RandomStateLike
from .._validation import check_random_state
from ..base import explain_in_blocks
from ..explanation import Explanation
from ..shapley.enumeration import exact_shapley
from ..shapley.result import ShapleyValues
from ..shapley.sampling import sampled_shapley

#: per-coalition systems up to this size (background rows, or landmarks with Nystroem) are solved
#: with single-threaded BLAS: for matrices this small BLAS threads cost more than they save (on 2
#: cores, n = 500, d = 8, the Nystroem game ran 17 times faster), and ``n_jobs`` parallelises over
#: rows instead
SINGLE_THREAD_BLAS_SIZE = 1000

#: a game: boolean coalitions (n_coalitions, d) -> values (n_coalitions, N, n_outputs)
Game = Callable[[np.ndarray], np.ndarray]


def blas_threads(size: int) -> contextlib.AbstractContextManager[Any]:
    """Single-threaded BLAS for many small solves, the BLAS default for large ones.

    Parameters
    ----------
    size : int
        The size of the per-coalition systems (background rows, or landmarks).

    Returns
    -------
    context manager
        ``threadpoolctl.threadpool_limits(1)`` up to ``SINGLE_THREAD_BLAS_SIZE`` rows, else a
        context that changes nothing.

    Examples
    --------
    >>> from kexplain.explainers.coalitions import blas_threads
    >>> with blas_threads(10):
    ...     pass
    """
    if size > SINGLE_THREAD_BLAS_SIZE:
        return contextlib.nullcontext()
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


class _Counted:
    """A game that advances a progress bar by the coalitions it evaluates."""

    def __init__(self, game: Game, bar: Any) -> None:
        self.game, self.bar = game, bar

    def __call__(self, coalitions: np.ndarray) -> np.ndarray:
        out = self.game(coalitions)
        self.bar.update(len(coalitions))
        return out


def explain_coalitions(
    game_at: Callable[[np.ndarray, int], Game],
    to_explanation: Callable[[ShapleyValues, np.ndarray], Explanation],
    Xv: np.ndarray,
    d: int,
    *,
    max_exact_features: int,
    interactions: str | None,
    progress: bool,
    n_jobs: int,
    random_state: RandomStateLike,
    budget: int | None,
    tol: float | None,
    threads_over_coalitions: bool = False,
    system_size: int = 0,
) -> Explanation:
    """Shapley values of the game ``game_at(rows)`` at every validated row, exact or sampled.

    Coalitions are enumerated (``kx.exact_shapley``, one batch of all 2^d) when
    ``d <= max_exact_features`` and no ``budget`` is given, else sampled (``kx.sampled_shapley``,
    ``budget`` evaluations, default ``max(1024, 64 d)``) with standard errors.  Rows are solved in
    ``n_jobs`` blocks on threads; the sampled solver draws the same coalitions for every block
    (one seed, shared), so the values do not depend on ``n_jobs``; with ``tol`` the stopping rule
    looks at every row, so the rows are solved in one block.

    Parameters
    ----------
    game_at : callable
        ``game_at(rows, coalition_jobs)``: the game at a block of validated rows; ``coalition_jobs``
        is the number of threads the game may use over coalitions (see
        ``threads_over_coalitions``), else 1.
    to_explanation : callable
        ``to_explanation(result, rows)``: the ``Explanation`` of one block from the solver's
        ``ShapleyValues``.
    Xv : ndarray of shape (N, d)
        The validated rows.
    d : int
        Number of players (features).
    max_exact_features : int
        Enumerate all coalitions up to this many features; sample beyond.
    interactions : None or {"sii", "stii"}
        The interaction index (validated by ``check_explain_options``); needs enumeration.
    progress : bool
        Show a progress bar over coalition evaluations.
    n_jobs : int
        Threads (validated).
    random_state : None, int or numpy Generator/RandomState
        Seeds the sampled solver.
    budget : int, optional
        Coalition evaluations of the sampled solver; giving one always samples.
    tol : float, optional
        Early stop of the sampled solver once every standard error is below it.
    threads_over_coalitions : bool
        Enumerated games whose per-coalition work is shared by all rows use the threads over
        coalitions (``game_at(rows, n_jobs)`` on one block) instead of over rows.
    system_size : int
        Size of the game's per-coalition linear systems (or its background rows): up to
        ``SINGLE_THREAD_BLAS_SIZE`` BLAS runs single-threaded, many small products being cheaper
        so than with threads that ``n_jobs`` already uses.

    Returns
    -------
    Explanation
        The blocks' explanations joined, with ``data`` the validated rows.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain import Explanation
    >>> from kexplain.explainers.coalitions import explain_coalitions
    >>> w = np.array([1.0, 2.0])
    >>> def game_at(rows, jobs):  # v(S) = sum of w_j x_j over S: the values are w_j x_j
    ...     return lambda S: (S[:, None, :] * rows[None] * w).sum(axis=2)[..., None]
    >>> def to_explanation(res, rows):
    ...     return Explanation(res.values[:, :, 0], res.v_empty[:, 0], data=rows)
    >>> ex = explain_coalitions(game_at, to_explanation, np.array([[1.0, 1.0]]), 2, max_exact_features=12,
    ...                         interactions=None, progress=False, n_jobs=1, random_state=None, budget=None, tol=None)
    >>> ex.values
    array([[1., 2.]])
    """
    sampled = budget is not None or d > max_exact_features
    seed: Any = None
    n_budget: Any = budget
    if sampled:
        if interactions:
            raise ValueError(
                "interactions=True needs enumerated coalitions (d <= max_exact_features and budget=None) "
                "or the exact product engine (a product-kernel model with game='interventional'); "
                "the sampled solver estimates Shapley values only."
            )
        if budget is None:
            n_budget = max(1024, 64 * d)
        # every block draws the same coalitions: one seed, shared
        if isinstance(random_state, (Integral, np.integer)) and not isinstance(random_state, bool):
            seed = int(random_state)
        else:
            seed = int(check_random_state(random_state).integers(2**31 - 1))
        if tol is not None:
            n_jobs = 1
    coalition_jobs = 1
    if not sampled and threads_over_coalitions and n_jobs > 1:
        # threads over coalitions instead of rows: each coalition's work is then done once (row
        # blocks would each do it); the values are the same
        coalition_jobs, n_jobs = n_jobs, 1
    N = Xv.shape[0]
    n_blocks = min(n_jobs, N) if n_jobs > 1 and N >= 2 else 1
    bar = None
    if progress:
        from tqdm.auto import tqdm

        per_block = int(n_budget) if sampled else 2**d
        bar = tqdm(total=per_block * n_blocks, desc="kexplain", unit="coalition")

    def block(rows: slice) -> Explanation:
        game = game_at(Xv[rows], coalition_jobs)
        if bar is not None:
            game = _Counted(game, bar)
        if sampled:
            res = sampled_shapley(game, d, n_budget, random_state=seed, tol=tol, batch_size=64)
        else:
            # one batch of all 2^d coalitions: a game that builds per-coalition products (the CME
            # game) then builds them once per coalition and complement
            res = exact_shapley(game, d, interactions=interactions, batch_size=max(256, 2**d))
        return to_explanation(res, Xv[rows])

    try:
        with blas_threads(system_size):
            ex = explain_in_blocks(block, N, n_jobs)
    finally:
        if bar is not None:
            bar.close()
    ex.data = Xv
    return ex


def to_explanation(
    res: ShapleyValues,
    Xv: np.ndarray,
    names: list[str],
    *,
    game: str,
    output: str,
    output_names: Sequence[str] | None = None,
    info: dict[str, Any] | None = None,
) -> Explanation:
    """The ``Explanation`` of a solver's ``ShapleyValues`` (one output squeezed).

    Parameters
    ----------
    res : ShapleyValues
        From ``kx.exact_shapley`` or ``kx.sampled_shapley``, values of shape (N, d, o).
    Xv : ndarray of shape (N, d)
        The explained rows.
    names : list of str
        Feature names.
    game, output : str
        Which game was solved, which output of the model explained.
    output_names : sequence of str, optional
        Labels of the outputs (kept for one output only when given).
    info : dict, optional
        Extras added to ``info`` (after ``v_full``, ``solver`` and ``interaction_index``).

    Returns
    -------
    Explanation

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.explainers.coalitions import to_explanation
    >>> res = kx.exact_shapley(lambda S: S.sum(axis=1)[:, None, None] * 1.0, 2)
    >>> to_explanation(res, np.zeros((1, 2)), ["a", "b"], game="toy", output="f").values
    array([[1., 1.]])
    """
    values = np.asarray(res.values)  # (N, d, o)
    base = np.asarray(res.v_empty)  # (N, o)
    se = res.standard_errors
    inter = None if res.interactions is None else np.asarray(res.interactions)  # shap's layout
    single = values.shape[2] == 1
    if single:
        values, base = values[:, :, 0], base[:, 0]
        se = None if se is None else se[:, :, 0]
        inter = None if inter is None else inter[..., 0]
    return Explanation(
        values=values,
        base_values=base,
        data=Xv,
        feature_names=names,
        output_names=output_names if not single or output_names else None,
        interactions=inter,
        standard_errors=se,
        game=game,
        output=output,
        v_full=np.asarray(res.v_full),
        interaction_index=getattr(res, "interaction_index", None),
        info={"solver": "exact" if se is None else "sampled", **(info or {})},
    )

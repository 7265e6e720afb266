"""The explainer contract every kexplain explainer follows.

An explainer is built from a fitted model and, optionally, background rows; everything that
depends only on the model and the background is computed once, at construction.  ``explain``
then takes the rows to explain with keyword-only options of the same names everywhere:

    explainer = SomeExplainer(model, background, *, background_weights=None, feature_names=None, ...)
    ex = explainer.explain(X, *, interactions=False, progress=False, n_jobs=None, random_state=None)

and returns an :class:`~kexplain.Explanation` whose ``game`` says which game was solved and whose
``output`` says which output of the model is explained.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import numpy as np

from ._typing import RandomStateLike
from ._validation import check_bool, check_interactions, check_n_jobs, feature_names_of
from .explanation import Explanation

#: rows per block below which parallel explanation is not worth the threads
_MIN_ROWS_PER_JOB = 1

#: where :func:`explain_in_blocks` runs: None for this process (joblib threads), else a callable
#: ``runner(fn, n_rows) -> Explanation`` that cuts the rows into blocks, runs ``fn`` on each
#: and stacks the results in row order (``kexplain.dask.on`` sets one)
BlockRunner = Callable[[Callable[[slice], Explanation], int], Explanation]
BLOCK_RUNNER: ContextVar[BlockRunner | None] = ContextVar("kexplain_block_runner", default=None)


@contextmanager
def use_block_runner(runner: BlockRunner) -> Iterator[None]:
    """Run the row blocks of every ``explain`` call made inside the ``with`` block through ``runner``.

    Parameters
    ----------
    runner : callable
        ``runner(fn, n_rows) -> Explanation``: calls ``fn(rows)`` on slices covering
        ``range(n_rows)`` (anywhere, in any order) and returns their results concatenated in
        row order (:meth:`Explanation.concatenate`).

    Yields
    ------
    None
        Inside the block, :func:`explain_in_blocks` hands its work to ``runner``.

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.base import use_block_runner
    >>> def halves(fn, n_rows):
    ...     return kx.Explanation.concatenate([fn(slice(0, n_rows // 2)), fn(slice(n_rows // 2, n_rows))])
    >>> em = kx.KernelExpansion(np.zeros((1, 2)), [1.0], kx.kernels.RBF(1.0))
    >>> with use_block_runner(halves):
    ...     ex = kx.ProductKernelExplainer(em).explain(np.ones((4, 2)))
    >>> np.round(ex.values[0], 3)
    array([-0.316, -0.316])
    """
    token = BLOCK_RUNNER.set(runner)
    try:
        yield
    finally:
        BLOCK_RUNNER.reset(token)


class Explainer:
    """Base class of kexplain's explainers: ``Explainer(model, background)``, then ``explain(X)``.

    Subclasses set ``game`` (the game ``explain`` solves) and ``output`` (the model output it
    explains, in words) in ``__init__`` and implement ``explain`` with the shared keyword-only
    options ``interactions``, ``progress``, ``n_jobs`` and ``random_state`` (plus their own, such
    as ``budget``).  Calling the explainer is the same as calling ``explain``, as in shap.

    Parameters
    ----------
    model : object
        The fitted model.
    background : array-like of shape (n_background, d), optional
        Rows over which absent features are averaged.
    background_weights : array-like of shape (n_background,), optional
        Non-negative weights of the background rows (normalised to sum to one).
    feature_names : sequence of str, optional
        Labels of the features in the explanation.

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> class MeanExplainer(kx.Explainer):
    ...     game = "toy"
    ...     def explain(self, X, *, interactions=False, progress=False, n_jobs=None, random_state=None):
    ...         X = np.asarray(X, dtype=float)
    ...         return kx.Explanation(X - X.mean(axis=0), X.mean(axis=0).sum(), data=X, game=self.game)
    >>> MeanExplainer(None)(np.eye(2)).values
    array([[ 0.5, -0.5],
           [-0.5,  0.5]])
    """

    game: str = ""
    output: str = ""

    def __init__(
        self,
        model: Any,
        background: Any = None,
        *,
        background_weights: Any = None,
        feature_names: Sequence[str] | None = None,
    ) -> None:
        self.model = model
        self.background = background
        self.background_weights = background_weights
        self.feature_names = None if feature_names is None else _check_names(feature_names)

    def explain(
        self,
        X: Any,
        *,
        interactions: bool | str | None = False,
        progress: bool = False,
        n_jobs: int | None = None,
        random_state: RandomStateLike = None,
    ) -> Explanation:
        """Shapley values of each row of ``X``; see the subclass for its game.

        Parameters
        ----------
        X : array-like or DataFrame of shape (N, d)
            The rows to explain.
        interactions : bool or str, default False
            False, True (same as ``"sii"``) or ``"stii"`` for pairwise interaction values; see
            :func:`check_explain_options` for the layout.
        progress : bool, default False
            Show a progress bar.
        n_jobs : int, optional
            Threads over row blocks (-1: all cores); the values do not depend on it.
        random_state : None, int, numpy Generator, RandomState or SeedSequence
            Seeds sampled solvers; exact explainers accept it and it has no effect.

        Returns
        -------
        Explanation
            The values, the base values and the game solved.
        """
        raise NotImplementedError

    def __call__(self, X: Any, **options: Any) -> Explanation:
        """Same as ``explain(X, **options)``."""
        return self.explain(X, **options)

    def __repr__(self) -> str:
        bg = "" if self.background is None else f", background of {np.shape(self.background)[0]} rows"
        return f"{type(self).__name__}({type(self.model).__name__}{bg}, game={self.game!r})"

    # -- helpers for subclasses ----------------------------------------------------------------
    def _names(self, X: Any, d: int) -> list[str]:
        """The explicit feature names, else the columns of X, else x0..x{d-1}."""
        if self.feature_names is not None:
            return list(self.feature_names)
        names = feature_names_of(X)
        return names if names is not None else [f"x{j}" for j in range(d)]


def _check_names(feature_names: Any) -> list[str]:
    if isinstance(feature_names, str) or not hasattr(feature_names, "__len__"):
        raise ValueError(f"feature_names must be a list of names, got {feature_names!r}.")
    return [str(n) for n in feature_names]


def check_explain_options(interactions: Any, progress: Any, n_jobs: Any) -> tuple[str | None, bool, int]:
    """Validate the shared options of ``explain``; returns (interaction index, progress, n_jobs).

    ``interactions`` is normalised to the index asked for: None when False, ``"sii"`` (the
    Shapley interaction index, the default) when True or ``"sii"``, ``"stii"`` (the
    Shapley-Taylor index of order 2, as shap's ``ExactExplainer``) when ``"stii"``.  Both come
    in one layout, shap's: off the diagonal half the pair's index, on the diagonal phi_j minus
    the row's off-diagonal entries, so each row sums to the feature's Shapley value (for
    ``"stii"`` the diagonal is then v({j}) - v(empty set)).  ``n_jobs`` None means 1 and -1
    all cores; ``progress`` must be True or False.

    Examples
    --------
    >>> from kexplain.base import check_explain_options
    >>> check_explain_options(False, True, None)
    (None, True, 1)
    >>> check_explain_options(True, False, 2)
    ('sii', False, 2)
    """
    return check_interactions(interactions), check_bool(progress, "progress"), check_n_jobs(n_jobs)


def background_rows(background: Any) -> Any:
    """The rows of a background; a shap ``Independent`` masker gives the rows it masks with.

    ``shap.maskers.Independent(B, max_samples=m)`` replaces absent features by the rows it keeps
    (B, or m rows sampled from it), which is kexplain's interventional game on those rows, so
    the masker is accepted where a background is and gives the values of its ``data``.  A
    ``Partition`` masker defines
    Owen values over its feature clustering, another game: it is refused.

    Parameters
    ----------
    background : array-like, DataFrame, shap masker or None

    Returns
    -------
    The background itself, or the masker's rows.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.base import background_rows
    >>> background_rows(np.zeros((2, 3))).shape
    (2, 3)
    """
    cls = type(background)
    if not cls.__module__.startswith("shap"):
        return background
    if cls.__name__ in ("Independent", "Tabular") and getattr(background, "clustering", None) is None:
        # the rows as shap hands them to the model: a NumPy array (shap keeps no column names there)
        return np.asarray(background.data)
    raise TypeError(
        f"background: a shap {cls.__name__} masker is not accepted; kexplain's interventional game is the one "
        "shap.maskers.Independent defines (absent features replaced by background rows), so pass "
        "shap.maskers.Independent(B) or the rows B themselves."
    )


def row_index(X: Any) -> list[Any] | None:
    """The row labels of a DataFrame (kept by ``Explanation.to_frame``), else None.

    Examples
    --------
    >>> import pandas as pd
    >>> from kexplain.base import row_index
    >>> row_index(pd.DataFrame({"a": [1.0, 2.0]}, index=["p", "q"])), row_index([[1.0], [2.0]])
    (['p', 'q'], None)
    """
    index = getattr(X, "index", None)
    if index is None or not hasattr(X, "columns"):
        return None
    return list(index)


def explain_in_blocks(
    fn: Callable[[slice], Explanation],
    n_rows: int,
    n_jobs: int,
) -> Explanation:
    """Run ``fn`` on contiguous row blocks in ``n_jobs`` threads and stack the results.

    Points are explained independently, so the values do not depend on ``n_jobs``.  Threads
    suffice: the engine's compiled kernel and numpy's array operations release the GIL.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain import Explanation
    >>> from kexplain.base import explain_in_blocks
    >>> X = np.arange(8.0).reshape(4, 2)
    >>> ex = explain_in_blocks(lambda rows: Explanation(X[rows], 0.0, data=X[rows]), 4, n_jobs=2)
    >>> ex.values.sum(axis=1)
    array([ 1.,  5.,  9., 13.])
    """
    runner = BLOCK_RUNNER.get()
    if runner is not None:
        return runner(fn, n_rows)
    if n_jobs <= 1 or n_rows < 2 * _MIN_ROWS_PER_JOB:
        return fn(slice(0, n_rows))
    from joblib import Parallel, delayed

    n_blocks = min(n_jobs, n_rows)
    bounds = np.linspace(0, n_rows, n_blocks + 1).astype(int)
    blocks = [slice(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
    parts = Parallel(n_jobs=n_jobs, prefer="threads")(delayed(fn)(s) for s in blocks)
    return Explanation.concatenate(parts)

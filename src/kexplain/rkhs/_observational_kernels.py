"""The kernels of ``ObservationalExplainer``'s conditional mean embeddings, and the choice of eta.

``_restricted`` gives the kernel each coalition's CME regresses with when the model's kernel is not
a product: the model's own kernel restricted to the features in S, else (callables) an RBF with
kexplain's default lengthscales (``_DefaultRBF``).  ``select_eta`` cross-validates the CME ridge
over a grid (``ObservationalExplainer.select_cme_regularization`` and
``RKHSExplainer.select_cme_regularization``) with the kernel pairs of ``_cv_kernels``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._params import Integer, check_param
from .._typing import RandomStateLike
from .._validation import check_random_state
from ..explainers.coalitions import blas_threads
from ..kernels.base import RBF
from ..kernels.heuristics import default_lengthscale
from ._models import _Model
from .cme import cme_cv_loss


def select_eta(
    m: _Model, grid: Sequence[float], n_folds: int, n_coalitions: int, max_rows: int, random_state: RandomStateLike
) -> tuple[float, dict[float, float]]:
    """The cross-validated CME ridge of ``select_cme_regularization``, and the loss of each candidate."""
    grid = [float(g) for g in grid]
    if not grid or any(not (np.isfinite(g) and g > 0) for g in grid):
        raise ValueError(f"grid must be a non-empty list of positive numbers, got {grid!r}.")
    n_folds = check_param(n_folds, "n_folds", Integer(2))
    n_coalitions = check_param(n_coalitions, "n_coalitions", Integer(1))
    max_rows = check_param(max_rows, "max_rows", Integer(1))
    rng = check_random_state(random_state, "random_state")
    R = m.background
    if R.shape[0] > max_rows:
        R = R[rng.choice(R.shape[0], max_rows, replace=False)]
    d = m.n_features
    if d < 2:
        raise ValueError("the CME regularisation matters only with at least 2 features.")
    coals = []
    for _ in range(n_coalitions):
        s = rng.integers(1, d)
        S = np.zeros(d, dtype=bool)
        S[rng.choice(d, s, replace=False)] = True
        coals.append(S)
    cond, target = _cv_kernels(m)
    with blas_threads(R.shape[0]):
        scores = {g: cme_cv_loss(cond, target, R, g, coals, n_folds, check_random_state(random_state)) for g in grid}
    return min(scores, key=lambda g: scores[g]), scores


def _cv_kernels(m: _Model) -> tuple[Callable[[np.ndarray], Any], Callable[[np.ndarray], Any]]:
    d = m.n_features
    if m.kind == "product":
        assert m.expansion is not None
        terms, amps = m.expansion.terms, np.asarray(m.expansion.amplitudes)
        w = amps / amps.sum()

        def on(cols: np.ndarray) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
            def k(A: np.ndarray, B: np.ndarray) -> np.ndarray:
                if cols.size == 0:
                    return np.ones((A.shape[0], B.shape[0]))
                return sum(wt * np.prod(t.feature_values(A, B)[:, :, cols], axis=-1) for wt, t in zip(w, terms))

            return k

        return on, lambda S_idx: on(np.setdiff1d(np.arange(d), S_idx))
    restricted = _restricted(m)
    full = np.arange(d)
    return (
        lambda S_idx: lambda A, B: restricted(S_idx)(A[:, S_idx], B[:, S_idx]),
        lambda S_idx: lambda A, B: restricted(full)(A, B),
    )


def _restricted(m: _Model) -> Callable[[np.ndarray], Any]:
    """The kernel restricted to the features S: the model's own, else an RBF with kexplain's
    default lengthscales on the background."""
    if m.kernel_on is not None:
        return m.kernel_on
    return _DefaultRBF(np.atleast_1d(default_lengthscale(m.background)))


class _DefaultRBF:
    """S -> an RBF on the features S with kexplain's default lengthscales (an object, so that the
    explainer holding it pickles)."""

    def __init__(self, lengthscale: np.ndarray) -> None:
        self.lengthscale = lengthscale

    def __call__(self, S_idx: np.ndarray) -> RBF:
        return RBF(lengthscale=self.lengthscale[S_idx])

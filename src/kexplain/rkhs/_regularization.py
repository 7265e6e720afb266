"""The CME regularisation eta of ``RKHSExplainer``'s observational game, a mix-in of the explainer.

eta is kept by the explainer and handed to the ``ObservationalExplainer`` it routed to (the next
``explain`` uses the value set last); ``select_cme_regularization`` picks it by cross-validation of
the conditional mean embeddings (``select_eta``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._typing import RandomStateLike
from .observational import ObservationalExplainer, select_eta


class CMERegularization:
    """``cme_regularization`` and ``select_cme_regularization`` of ``RKHSExplainer`` (a mix-in: the
    explainer sets the attributes below)."""

    if TYPE_CHECKING:  # set by RKHSExplainer
        explainer: Any
        _model: Any
        _cme_regularization: float

    @property
    def cme_regularization(self) -> float:
        """eta in the CME ridge of the observational game (settable: the next ``explain`` uses it)."""
        return self._cme_regularization

    @cme_regularization.setter
    def cme_regularization(self, eta: float) -> None:
        self._cme_regularization = eta
        if isinstance(self.explainer, ObservationalExplainer):
            self.explainer.cme_regularization = eta

    def select_cme_regularization(
        self,
        grid: Sequence[float] = (1e-5, 1e-4, 1e-3, 1e-2, 1e-1),
        n_folds: int = 3,
        n_coalitions: int = 8,
        max_rows: int = 500,
        random_state: RandomStateLike = 0,
    ) -> float:
        """Pick eta by K-fold cross-validation of the conditional mean embeddings.

        See ``ObservationalExplainer.select_cme_regularization``; the losses are in
        ``self.cme_cv_scores_`` (a dict eta -> loss).

        Parameters
        ----------
        grid : sequence of float
            Candidate values of eta.
        n_folds : int
            Folds of the cross-validation (at least 2).
        n_coalitions : int
            Random coalitions the loss is summed over (at least 1).
        max_rows : int
            Background rows used at most (a random subsample; at least 1).
        random_state : None, int or numpy Generator
            Seeds the subsample, the coalitions and the folds.

        Returns
        -------
        float
            The chosen eta.

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> X = np.random.default_rng(0).normal(size=(30, 2))
        >>> ex = kx.RKHSExplainer(kx.KernelExpansion(X, np.ones(30), kx.kernels.RBF(1.0)))
        >>> ex.select_cme_regularization(grid=(1e-3, 1.0), n_coalitions=2)
        0.001
        """
        best, self.cme_cv_scores_ = select_eta(self._model, grid, n_folds, n_coalitions, max_rows, random_state)
        self.cme_regularization = best
        return best

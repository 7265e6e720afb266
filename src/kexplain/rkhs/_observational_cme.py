"""The CME state of ``ObservationalExplainer`` and its game, a mix-in of the explainer.

What depends only on the model and the background is built once, at construction: the landmarks
of the Nystroem approximation and the conditional mean embedding (``cme.ProductCME`` for
product-kernel models, ``cme.GenericCME`` otherwise) with its per-coalition factors, guarded by
the explainer's lock (a copy, pickled or shipped to a Dask worker, makes its own).  Each batch of
points gets its game from that state.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import numpy as np

from .._typing import RandomStateLike
from .._validation import check_data
from ..explainers.coalitions import Game
from ..explainers.outputs import check_outputs
from ._models import _check_eta
from ._observational_kernels import _restricted
from .cme import GenericCME, ProductCME, choose_landmarks

if TYPE_CHECKING:
    from ..models.expansion import KernelExpansion


class ObservationalCME:
    """The CME state and the game of ``ObservationalExplainer`` (a mix-in: the explainer sets the
    attributes below)."""

    if TYPE_CHECKING:  # set by ObservationalExplainer and its base Explainer
        kind: str
        expansion: KernelExpansion | None
        background: Any
        background_weights: Any
        n_features: int
        approximation: str | None
        n_landmarks: int
        random_state: RandomStateLike
        cme_regularization: float
        _model: Any
        _landmarks: np.ndarray | None
        _lock: threading.Lock
        _cme: ProductCME | GenericCME

    def __getstate__(self) -> dict[str, Any]:
        # the lock guards lazy construction within one process; a copy (pickle, a Dask worker)
        # gets a fresh one, so the explainer can be shipped to other processes
        state = self.__dict__.copy()
        state.pop("_lock", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def _choose_landmarks(self) -> np.ndarray | None:
        if self.approximation != "nystroem":
            return None
        return choose_landmarks(
            self.background.shape[0], self.n_landmarks, self.random_state, weights=self.background_weights
        )

    def _build_cme(self) -> ProductCME | GenericCME:
        eta = _check_eta(self.cme_regularization)
        R, w = self.background, self.background_weights
        if self.kind == "product":
            return ProductCME(self.expansion, R, eta, weights=w, landmarks=self._landmarks)
        return GenericCME(_restricted(self._model), R, self._outputs(R), eta, weights=w, landmarks=self._landmarks)

    def _observational(self) -> ProductCME | GenericCME:
        """The CME state; its per-coalition factors are dropped when ``cme_regularization`` changed."""
        with self._lock:
            self._cme.set_regularization(_check_eta(self.cme_regularization))
            return self._cme

    def _system_size(self) -> int:
        """Size of the per-coalition linear systems: landmarks with Nystroem, else background rows."""
        return self.background.shape[0] if self._landmarks is None else int(self._landmarks.size)

    def _check_X(self, X: Any) -> np.ndarray:
        if self.expansion is not None:
            return np.asarray(self.expansion.check_input(X, name="X"))
        return np.asarray(check_data(X, name="X", n_features=self.n_features))

    def _outputs(self, X: np.ndarray) -> np.ndarray:
        assert self._model.predict is not None
        return check_outputs(self._model.predict, X)

    def _game_at(self, Xv: np.ndarray, n_jobs: int = 1) -> Game:
        cme = self._observational()
        if isinstance(cme, ProductCME):
            return cme.game(Xv, n_jobs)
        return cme.game(Xv, self._outputs(Xv))

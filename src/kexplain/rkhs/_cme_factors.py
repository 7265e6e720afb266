"""The per-coalition state the CME games keep across ``explain`` calls (background only).

A game's CME system depends on the background rows and the coalition alone, so its factor is built
once and kept, within a memory budget (``_FactorCache``, keyed by the coalition's mask), by every
later batch of explained points.  The product game keeps the triangle of each factor only, packed;
``_exact_from_factor`` and ``_nystroem_from_factor`` rebuild the solvers from it, with the very
numbers the constructors gave.  ``_set_eta`` changes a game's regularisation and drops what it kept.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from ..embeddings.ridge import ExactRidge, NystroemRidge

#: memory for the per-coalition factors kept across ``explain`` calls (per game): the packed
#: triangular factors of 2^10 coalitions' Nystroem systems with 300 landmarks take 369 MB
FACTOR_CACHE_BYTES = 512 * 2**20


class _FactorCache:
    """Per-coalition arrays kept up to a memory budget; thread-safe (explain runs row blocks in threads)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.used = 0
        self._store: dict[bytes, Any] = {}
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        # a copy (pickle, a Dask worker) starts with an empty cache and its own lock
        return {"max_bytes": self.max_bytes}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["max_bytes"])  # type: ignore[misc]

    def get(self, key: bytes) -> Any:
        with self._lock:
            return self._store.get(key)

    def put(self, key: bytes, value: Any, nbytes: int) -> None:
        with self._lock:
            if key in self._store or self.used + nbytes > self.max_bytes:
                return
            self._store[key] = value
            self.used += nbytes

    def __len__(self) -> int:
        return len(self._store)


def _nbytes(obj: Any) -> int:
    if isinstance(obj, np.ndarray):
        return int(obj.nbytes)
    if isinstance(obj, (tuple, list)):
        return sum(_nbytes(o) for o in obj)
    return 64


def _set_eta(cme: Any, eta: float) -> None:
    # cme: a ProductCME or a GenericCME (both keep eta, n, lam and cache)
    eta = float(eta)
    if eta != cme.eta:
        cme.eta = eta
        cme.lam = cme.n * eta
        cme.cache = _FactorCache(cme.cache.max_bytes)


def _key(S_idx: np.ndarray, d: int) -> bytes:
    S = np.zeros(d, dtype=bool)
    S[S_idx] = True
    return S.tobytes()


_TRIL: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def _tril(m: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the lower triangle of an m x m matrix (kept per m: the walk asks for them per coalition)."""
    if m not in _TRIL:
        _TRIL[m] = np.tril_indices(m)
    return _TRIL[m]


def _exact_from_factor(packed: tuple[np.ndarray, bool], D: np.ndarray | None) -> ExactRidge:
    """The solver ``ExactRidge(K, lam, D)`` gave, rebuilt from its kept triangle (the same numbers)."""
    tri, lower = packed
    n = int(round((np.sqrt(8 * tri.size + 1) - 1) / 2))
    L = np.zeros((n, n))
    L[_tril(n)] = tri
    solver = ExactRidge.__new__(ExactRidge)
    solver.D = D
    solver.factor = (L, True) if lower else (L.T, False)
    solver.nbytes = int(L.nbytes)
    return solver


def _nystroem_from_factor(packed: tuple[np.ndarray, float], K_LR: np.ndarray, D: np.ndarray | None) -> NystroemRidge:
    """The solver ``NystroemRidge(K_LR, K_LL, lam, D)`` gave, rebuilt from its kept lower factor:
    the same factor and the same K_LX D^2 (formed as the constructor forms it), so the same numbers."""
    low, jitter = packed
    m = K_LR.shape[0]
    L = np.zeros((m, m))
    L[_tril(m)] = low
    solver = NystroemRidge.__new__(NystroemRidge)
    solver.factor = (L, True)
    solver.K_LXw = K_LR if D is None else K_LR * D[None, :] ** 2
    solver.jitter = jitter
    solver.nbytes = int(L.nbytes + solver.K_LXw.nbytes)
    return solver

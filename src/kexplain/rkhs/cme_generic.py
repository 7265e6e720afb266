"""The observational game of any kernel model (thesis appendix C.3, eq. C.5).

``GenericCME`` is the background part, built once: per coalition S, the weights
alpha_S = (K_S(R, R) + n eta I)^-1 f(R) (weighted, or on the Nystroem landmarks); ``GenericCMEGame``
is the value function v_x(S) = k_S(x_S, R_S) alpha_S at a batch of points.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..embeddings.ridge import ExactRidge, NystroemRidge
from ._cme_factors import FACTOR_CACHE_BYTES, _FactorCache, _key, _nbytes, _set_eta

__all__ = ["GenericCME", "GenericCMEGame"]

KernelFn = Callable[[np.ndarray, np.ndarray], np.ndarray]


class GenericCME:
    """The background part of the observational game of any kernel model (thesis appendix C.3, eq. C.5).

    Per coalition S it keeps alpha_S = D (D K_S(R, R) D + n eta I)^-1 D f(R) (or its Nystroem
    counterpart on the landmarks), so that v_x(S) = k_S(x_S, R_S) alpha_S for any batch.

    Parameters
    ----------
    kernel_on : callable
        ``kernel_on(S_idx)`` returns a callable k_S(A, B) (the model's kernel restricted to the
        features in S), applied to the columns S_idx of the rows.
    background : ndarray of shape (n, d)
    f_ref : ndarray of shape (n, n_outputs)
        The model's outputs at the background rows.
    eta : float
        CME regularisation; the ridge is n * eta.
    weights : ndarray of shape (n,), optional
        Non-negative background weights summing to one; None weighs rows equally.
    landmarks : ndarray of int, optional
        Indices of background rows for the Nystroem approximation.
    cache_bytes : int
        Memory for the per-coalition vectors.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.metrics.pairwise import rbf_kernel
    >>> from kexplain.rkhs.cme import GenericCME
    >>> R = np.random.default_rng(0).normal(size=(30, 2))
    >>> f_ref = R.sum(axis=1, keepdims=True)
    >>> cme = GenericCME(lambda S_idx: rbf_kernel, R, f_ref, 1e-3)
    >>> v = cme.game(R[:2], f_ref[:2])(np.array([[False, False], [True, True]]))
    >>> np.allclose(v[0], f_ref.mean()), np.allclose(v[1], f_ref[:2])
    (True, True)
    """

    def __init__(
        self,
        kernel_on: Callable[[np.ndarray], KernelFn],
        background: np.ndarray,
        f_ref: np.ndarray,
        eta: float,
        *,
        weights: np.ndarray | None = None,
        landmarks: np.ndarray | None = None,
        cache_bytes: int = FACTOR_CACHE_BYTES,
    ) -> None:
        self.kernel_on, self.R, self.f_ref = kernel_on, background, f_ref
        self.n, self.d = background.shape
        self.eta = float(eta)
        self.lam = self.n * self.eta
        self.weights = weights
        self.D = None if weights is None else np.sqrt(self.n * np.asarray(weights, dtype=np.float64))
        self.landmarks = landmarks
        self.mean = f_ref.mean(axis=0) if weights is None else weights @ f_ref
        self.cache = _FactorCache(cache_bytes)

    def game(self, X: np.ndarray, f_x: np.ndarray) -> GenericCMEGame:
        """The observational game at the rows ``X`` whose model outputs are ``f_x`` (N, n_outputs)."""
        return GenericCMEGame(self, X, f_x)

    def set_regularization(self, eta: float) -> None:
        """Change eta, dropping the per-coalition vectors (the model outputs are kept)."""
        _set_eta(self, eta)

    def alpha(self, S_idx: np.ndarray) -> np.ndarray:
        """The per-coalition weights alpha_S: (n, o) on the background, or (m, o) on the landmarks."""
        key = _key(S_idx, self.d)
        a = self.cache.get(key)
        if a is None:
            k = self.kernel_on(S_idx)
            RS = self.R[:, S_idx]
            if self.landmarks is None:
                a = ExactRidge(k(RS, RS), self.lam, self.D).transposed(self.f_ref)
            else:
                LS = RS[self.landmarks]
                a = NystroemRidge(k(LS, RS), k(LS, LS), self.lam, self.D).transposed(self.f_ref)
            self.cache.put(key, a, _nbytes(a))
        return a


class GenericCMEGame:
    """Observational values of any kernel model at a batch of points (thesis appendix C.3, eq. C.5).

    Parameters
    ----------
    cme : GenericCME
        The background part, built once.
    X : ndarray of shape (N, d)
        The explained rows.
    f_x : ndarray of shape (N, n_outputs)
        The model's outputs at ``X`` (the value of the full coalition).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.metrics.pairwise import rbf_kernel
    >>> from kexplain.rkhs.cme import GenericCME, GenericCMEGame
    >>> R = np.random.default_rng(0).normal(size=(30, 2))
    >>> f_ref = R.sum(axis=1, keepdims=True)
    >>> game = GenericCMEGame(GenericCME(lambda S_idx: rbf_kernel, R, f_ref, 1e-3), R[:2], f_ref[:2])
    >>> game(np.array([[True, False]])).shape
    (1, 2, 1)
    """

    def __init__(self, cme: GenericCME, X: np.ndarray, f_x: np.ndarray) -> None:
        self.cme, self.X, self.f_x = cme, X, f_x

    def __call__(self, coalitions: np.ndarray) -> np.ndarray:
        """Game values of shape (n_coalitions, N, n_outputs) for a boolean (n_coalitions, d) array."""
        c = self.cme
        N, o = self.f_x.shape
        coalitions = np.asarray(coalitions, dtype=bool)
        out = np.empty((coalitions.shape[0], N, o))
        for q, S in enumerate(coalitions):
            S_idx = np.flatnonzero(S)
            if S_idx.size == 0:
                out[q] = c.mean
            elif S_idx.size == S.size:
                out[q] = self.f_x
            else:
                k = c.kernel_on(S_idx)
                XS, RS = self.X[:, S_idx], c.R[:, S_idx]
                B = RS if c.landmarks is None else RS[c.landmarks]
                out[q] = k(XS, B) @ c.alpha(S_idx)
        return out

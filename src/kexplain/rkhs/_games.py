"""The interventional value functions of RKHS-SHAP (the mean embedding of a product model's
background, and hybrid rows through any prediction function) and the small helpers of the
explainer's solves (BLAS threads, progress counting)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from numbers import Real
from typing import Any

import numpy as np

from ..models.expansion import KernelExpansion
from .cme import _FeatureProducts

#: per-coalition systems up to this size (background rows, or landmarks with Nystroem) are solved
#: with single-threaded BLAS: for matrices this small BLAS threads cost more than they save (on 2
#: cores, n = 500, d = 8, the Nystroem game ran 17 times faster), and ``n_jobs`` parallelises over
#: rows instead
_SINGLE_THREAD_BLAS_SIZE = 1000
Game = Callable[[np.ndarray], np.ndarray]


def _blas_threads(size: int) -> contextlib.AbstractContextManager[Any]:
    """Single-threaded BLAS for many small solves (systems of up to ``_SINGLE_THREAD_BLAS_SIZE``
    rows); the BLAS default beyond."""
    if size > _SINGLE_THREAD_BLAS_SIZE:
        return contextlib.nullcontext()
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


def _check_eta(eta: Any) -> float:
    if isinstance(eta, bool) or not isinstance(eta, Real) or not (np.isfinite(float(eta)) and float(eta) > 0):
        raise ValueError(f"cme_regularization must be a positive finite number, got {eta!r}.")
    return float(eta)


class _Counted:
    """A game that advances a progress bar by the coalitions it evaluates."""

    def __init__(self, game: Game, bar: Any) -> None:
        self.game, self.bar = game, bar

    def __call__(self, coalitions: np.ndarray) -> np.ndarray:
        out = self.game(coalitions)
        self.bar.update(len(coalitions))
        return out


class _ProductMeanEmbedding:
    """Background part of the interventional game of a product-kernel expansion through kernel mean
    embeddings (Chau, Hu, Gonzalez & Sejdinovic, 2022, Proposition 3; the diag(...) term read from
    the proof in Chau, 2023, appendix C): the (weighted) mean embedding of the absent features,
    mean_r k_tSc(X_i, R_r), is shared by every explained point and kept per coalition.  ``explain``
    uses the exact product-game engine by default; this game serves the sampled solver and
    ``value_function``."""

    def __init__(self, em: KernelExpansion, Z: np.ndarray, w: np.ndarray | None) -> None:
        self.em, self.Z, self.w = em, Z, w
        self.fmZ = [_FeatureProducts(t, em.X_ref, Z) for t in em.terms]
        self._cache: dict[bytes, list[np.ndarray]] = {}

    def embedding(self, Sc_idx: np.ndarray) -> list[np.ndarray]:
        key = Sc_idx.tobytes()
        emb = self._cache.get(key)
        if emb is None:
            emb = [fz.prod(Sc_idx).mean(axis=1) if self.w is None else fz.prod(Sc_idx) @ self.w for fz in self.fmZ]
            self._cache[key] = emb
        return emb

    def game(self, X: np.ndarray) -> Game:
        fx = [_FeatureProducts(t, self.em.X_ref, X) for t in self.em.terms]
        em = self.em

        def v(coalitions: np.ndarray) -> np.ndarray:
            out = []
            for S in np.asarray(coalitions, dtype=bool):
                S_idx, Sc_idx = np.flatnonzero(S), np.flatnonzero(~S)
                B = sum(
                    a * f.prod(S_idx) * m[:, None] for a, f, m in zip(em.amplitudes, fx, self.embedding(Sc_idx))
                )  # (n_model, N)
                out.append(B.T @ em.coef + em.intercept)
            return np.stack(out)

        return v


class _CallableInterventional:
    """v(S)(x) = (weighted) mean over the background rows z of f(x_S, z_Sc), for a block of points,
    with the model called on at most ``rows_per_call`` hybrid rows at a time."""

    def __init__(
        self,
        outputs: Callable[[np.ndarray], np.ndarray],
        X: np.ndarray,
        Z: np.ndarray,
        w: np.ndarray | None,
        rows_per_call: int,
    ) -> None:
        self.outputs, self.X, self.Z, self.w = outputs, X, Z, w
        self.rows_per_call = rows_per_call

    def __call__(self, coalitions: np.ndarray) -> np.ndarray:
        return _hybrid_mean(self.outputs, self.X, self.Z, coalitions, self.w, self.rows_per_call)


def _hybrid_mean(
    outputs: Callable[[np.ndarray], np.ndarray],
    X: np.ndarray,
    Z: np.ndarray,
    coalitions: np.ndarray,
    w: np.ndarray | None = None,
    max_rows: int = 200_000,
) -> np.ndarray:
    """v(S)(x) = (weighted) mean_z f(x_S, z_Sc) for every coalition and point, shape (B, N, o).

    The hybrid rows are built and evaluated in blocks of at most ``max_rows`` rows: whole points
    (all their background rows) when a point's rows fit, else blocks of background rows of one
    point, whose weighted sums are added up.  Memory is O(max_rows * (d + o)), whatever N and
    the number of background rows.
    """
    N, nb = X.shape[0], Z.shape[0]
    wz = np.full(nb, 1.0 / nb) if w is None else np.asarray(w, dtype=np.float64)
    p_step = max(1, min(N, max_rows // nb))  # points per block
    z_step = max(1, min(nb, max_rows))  # background rows per block (all of them when p_step > 1)
    coalitions = np.asarray(coalitions, dtype=bool)
    res: np.ndarray | None = None
    for c, S in enumerate(coalitions):
        for p0 in range(0, N, p_step):
            ps = slice(p0, min(N, p0 + p_step))
            Xp = X[ps]
            for z0 in range(0, nb, z_step):
                zs = slice(z0, min(nb, z0 + z_step))
                H = np.repeat(Z[None, zs, :], Xp.shape[0], axis=0)  # (p, z, d)
                H[:, :, S] = Xp[:, None, S]
                out = outputs(H.reshape(-1, H.shape[2]))
                out = out.reshape(Xp.shape[0], H.shape[1], -1)
                part = np.einsum("pzo,z->po", out, wz[zs])
                if res is None:
                    res = np.zeros((coalitions.shape[0], N, out.shape[2]))
                res[c, ps] += part
    assert res is not None
    return res


def _n_features(est: Any) -> int | None:
    n = getattr(est, "n_features_in_", None)
    return None if n is None else int(n)

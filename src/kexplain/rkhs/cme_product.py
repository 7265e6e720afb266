"""The observational game of a product-kernel expansion (RKHS-SHAP, Proposition 3).

``ProductCME`` is the background part, built once: the per-feature kernel tables of the background
(and of the landmarks), the mean of every basis function over it (the value of the empty
coalition) and, per coalition, the factor of the CME system.  ``ProductCMEGame`` is the value
function at a batch of points.  The formulas are in ``kexplain.rkhs.cme``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.linalg import cho_solve

from ..embeddings.ridge import ExactRidge, NystroemRidge, jittered_cholesky
from ._cme_factors import (
    FACTOR_CACHE_BYTES,
    _exact_from_factor,
    _FactorCache,
    _key,
    _nystroem_from_factor,
    _set_eta,
    _tril,
)
from ._cme_products import _FeatureProducts, _pair_products, _Prods, _wsum

__all__ = ["ProductCME", "ProductCMEGame", "mean_kernel_rows"]


class ProductCME:
    """The background part of the observational game of a product-kernel expansion.

    Everything here depends on the model and the background rows only: the per-feature kernel
    tables of the background (and of the landmarks), the mean of every basis function over the
    background (the value of the empty coalition), and, per coalition, the Cholesky factor of the
    CME system, kept up to ``cache_bytes`` and reused by every batch of explained points.

    Parameters
    ----------
    expansion : KernelExpansion
        The model, f(x) = sum_i coef_i k(x, X_i) + intercept with a product kernel.
    background : ndarray of shape (n, d)
        Rows whose distribution the conditional expectations are taken over.
    eta : float
        CME regularisation; the ridge is n * eta.
    weights : ndarray of shape (n,), optional
        Non-negative background weights summing to one; None weighs rows equally.
    landmarks : ndarray of int, optional
        Indices of background rows for the Nystroem approximation; None solves exactly.
    cache_bytes : int
        Memory for the per-coalition factors.

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.rkhs.cme import ProductCME
    >>> X = np.random.default_rng(0).normal(size=(20, 2))
    >>> em = kx.KernelExpansion(X, np.ones(20), kx.kernels.RBF(1.0))
    >>> game = ProductCME(em, X, 1e-3).game(X[:3])
    >>> v = game(np.array([[False, False], [True, True]]))
    >>> np.allclose(v[1, :, 0], em.predict(X[:3]))
    True
    """

    def __init__(
        self,
        expansion: Any,
        background: np.ndarray,
        eta: float,
        *,
        weights: np.ndarray | None = None,
        landmarks: np.ndarray | None = None,
        cache_bytes: int = FACTOR_CACHE_BYTES,
    ) -> None:
        self.em = expansion
        R = background
        self.R = R
        self.d = R.shape[1]
        self.n = R.shape[0]
        self.eta = float(eta)
        self.lam = self.n * self.eta
        self.weights = weights
        # D = sqrt(n w): the weighted ridge; None for equal weights (D = 1)
        self.D = None if weights is None else np.sqrt(self.n * np.asarray(weights, dtype=np.float64))
        terms = expansion.terms
        amps = np.asarray(expansion.amplitudes, dtype=np.float64)
        self.amps = amps
        self.cme_w = amps / amps.sum()  # unit-amplitude CME kernel
        Xm = expansion.X_ref
        self.Xm = Xm
        self.landmarks = landmarks
        same = Xm.shape == R.shape and np.array_equal(Xm, R)
        if landmarks is None:
            self.fRR = [_FeatureProducts(t, R, R) for t in terms]
            self.fmR = self.fRR if same else [_FeatureProducts(t, Xm, R) for t in terms]
            self.L = R
        else:
            self.L = R[landmarks]
            self.fLR = [_FeatureProducts(t, self.L, R) for t in terms]
            self.fLL = [_FeatureProducts(t, self.L, self.L) for t in terms]
            # k(X_i, L) is k(L, R)^T when the model's points are the background rows (the default)
            self.fmL = None if same else [_FeatureProducts(t, Xm, self.L) for t in terms]
        # v(empty) is exact: the (weighted) mean over R of every basis function
        self.mean_basis = mean_kernel_rows(expansion, R, weights=weights)  # (n_model,) incl. amplitudes
        self.cache = _FactorCache(cache_bytes)

    def game(self, X: np.ndarray, n_jobs: int = 1) -> ProductCMEGame:
        """The observational game at the rows of ``X`` (validated, shape (N, d)); ``n_jobs`` threads
        over coalitions when the game is asked for all of them at once."""
        return ProductCMEGame(self, X, n_jobs)

    def set_regularization(self, eta: float) -> None:
        """Change eta, dropping the per-coalition factors (the kernel tables are kept)."""
        _set_eta(self, eta)

    # -- per-coalition factors (background only) -------------------------------------------------
    def exact_factor(self, S_idx: np.ndarray, prods: _Prods | None = None) -> ExactRidge:
        """The CME system D K_S(R, R) D + n eta I of coalition S (``kexplain.embeddings.ExactRidge``)."""
        key = _key(S_idx, self.d)
        packed = self.cache.get(key)
        if packed is not None:
            return _exact_from_factor(packed, self.D)
        pr = _Prods(S_idx, np.setdiff1d(np.arange(self.d), S_idx)) if prods is None else prods
        K = _wsum(self.cme_w, [pr(f, True) for f in self.fRR])
        solver = ExactRidge(np.asarray(K), self.lam, self.D)
        # the triangle that holds the factor, packed: half the memory of the n x n array (the
        # transpose of an upper factor, so that LAPACK solves with the very same one)
        F, lower = solver.factor
        tri = (F if lower else F.T)[_tril(F.shape[0])]
        self.cache.put(key, (tri, lower), tri.nbytes)
        return solver

    def nystroem_factors(
        self, S_idx: np.ndarray, Sc_idx: np.ndarray, prods: _Prods | None = None
    ) -> tuple[NystroemRidge, list[Any]]:
        """(the Nystroem CME system of coalition S, factors of K_Sc(L, L) per term).

        Only what is costly and not recomputable from the kernel tables is kept per coalition:
        the triangular factor of the system (the QR decomposition of an (n + m) x m matrix,
        2 (n + m) m^2 operations), packed, (m + 1) m / 2 numbers.  K_S(L, R), which the solver
        also holds, is a product of the per-feature tables (formed anyway on the walk over the
        coalitions), and the factors of K_Sc(L, L) cost m^3 / 3 each: both are formed on every
        call, so 2^10 coalitions at m = 300 landmarks take 369 MB (where the solver, the m x n
        table and the term factors took 6.2 MB per coalition: 43 of them in 256 MiB).
        """
        key = _key(S_idx, self.d)
        pr = _Prods(S_idx, Sc_idx) if prods is None else prods
        K_LR = np.asarray(_wsum(self.cme_w, [pr(f, True) for f in self.fLR]))
        packed = self.cache.get(key)
        if packed is None:
            K_LL = _wsum(self.cme_w, [pr(f, True) for f in self.fLL])
            solver = NystroemRidge(K_LR, np.asarray(K_LL), self.lam, self.D)
            packed = (solver.factor[0][_tril(solver.factor[0].shape[0])], solver.jitter)
            self.cache.put(key, packed, packed[0].nbytes)
        else:
            solver = _nystroem_from_factor(packed, K_LR, self.D)
        P = [jittered_cholesky(pr(fLL, False)) for fLL in self.fLL]
        return solver, P


class ProductCMEGame:
    """Observational value function of a product-kernel expansion at a batch of points.

    ``basis_values(S)`` gives the (n_model, N) matrix whose column x holds, for each basis function
    k(., X_i), its observational value at x (the matrix K^(O)_{x,S} of Chau, Hu, Gonzalez &
    Sejdinovic, 2022, Proposition 3); calling the game with a boolean array of coalitions
    contracts it with the coefficients and returns values of shape (n_coalitions, N, n_outputs),
    the intercept included.

    Parameters
    ----------
    cme : ProductCME
        The background part, built once.
    X : ndarray of shape (N, d)
        The explained rows (validated).
    n_jobs : int
        Threads over the coalitions when the game is called with all 2^d of them at once (the
        values do not depend on it).

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.rkhs.cme import ProductCME, ProductCMEGame
    >>> X = np.random.default_rng(0).normal(size=(20, 2))
    >>> em = kx.KernelExpansion(X, np.ones(20), kx.kernels.RBF(1.0))
    >>> game = ProductCMEGame(ProductCME(em, X, 1e-3), X[:4])
    >>> game.basis_values(np.array([True, False])).shape
    (20, 4)
    """

    def __init__(self, cme: ProductCME, X: np.ndarray, n_jobs: int = 1) -> None:
        self.cme = cme
        self.X = X
        self.n_jobs = n_jobs
        terms = cme.em.terms
        self.fx = [_FeatureProducts(t, cme.Xm, X) for t in terms]  # k_tj(X_i, x)
        if cme.landmarks is None:
            self.fRx = [_FeatureProducts(t, cme.R, X) for t in terms]
        else:
            self.fLx = [_FeatureProducts(t, cme.L, X) for t in terms]

    def basis_values(self, S: np.ndarray, prods: _Prods | None = None) -> np.ndarray:
        """(n_model, N): the observational value of every basis function at every point."""
        c = self.cme
        S = np.asarray(S, dtype=bool)
        S_idx, Sc_idx = np.flatnonzero(S), np.flatnonzero(~S)
        pr = _Prods(S_idx, Sc_idx) if prods is None else prods
        N = self.X.shape[0]
        if S_idx.size == 0:
            return np.repeat(c.mean_basis[:, None], N, axis=1)
        if Sc_idx.size == 0:
            return np.asarray(sum(a * pr(f, True) for a, f in zip(c.amps, self.fx)))
        out = np.zeros((c.Xm.shape[0], N))
        if c.landmarks is None:
            k = _wsum(c.cme_w, [pr(f, True) for f in self.fRx])
            beta = c.exact_factor(S_idx, pr).weights(np.asarray(k))  # (n, N)
            for a, fx, fmR in zip(c.amps, self.fx, c.fmR):
                out += a * pr(fx, True) * (pr(fmR, False) @ beta)
        else:
            # beta = D^2 K_RL c with c = (K_LR D^2 K_RL + lam K_LL)^-1 K_Lx (push-through of the Nystroem ridge)
            solver, P = c.nystroem_factors(S_idx, Sc_idx, pr)
            K_Lx = _wsum(c.cme_w, [pr(f, True) for f in self.fLx])
            KRc = solver.weights(np.asarray(K_Lx))  # (n, N)
            fmLs = c.fLR if c.fmL is None else c.fmL
            for a, fx, fLR, fmL, Pt in zip(c.amps, self.fx, c.fLR, fmLs, P):
                # output side projected on the landmarks: k_Sc(X_i, R) ~ k_Sc(X_i, L) P^-1 k_Sc(L, R)
                F_Sc = pr(fLR, False)
                Qc = F_Sc @ KRc  # (m, N)
                Fm = F_Sc.T if c.fmL is None else pr(fmL, False)  # k_Sc(X_i, L)
                G = Fm @ cho_solve(Pt, Qc, check_finite=False)
                out += a * pr(fx, True) * G
        return out

    def _tables(self) -> list[_FeatureProducts]:
        c = self.cme
        if c.landmarks is None:
            tables = [*c.fRR, *c.fmR, *self.fRx, *self.fx]
        else:
            tables = [*c.fLR, *c.fLL, *(c.fmL or []), *self.fLx, *self.fx]
        return list({id(t): t for t in tables}.values())

    def __call__(self, coalitions: np.ndarray) -> np.ndarray:
        """Game values of shape (n_coalitions, N, n_outputs) for a boolean (n_coalitions, d) array.

        When the batch holds every coalition (the explainer enumerates them in one batch) the
        per-feature kernel products are built once per coalition and its complement, along a
        depth-first walk over the features (``_pair_products``), instead of one product per
        coalition, table and side; the values are the same to the last bit.
        """
        coef, icpt = self.cme.em.coef, self.cme.em.intercept
        coalitions = np.asarray(coalitions, dtype=bool)
        d = self.cme.d
        out = np.empty((coalitions.shape[0], self.X.shape[0], coef.shape[1]))
        tables = self._tables()
        if d >= 2 and coalitions.shape[0] == 2**d and all(t.F is not None for t in tables):
            masks = (coalitions.astype(np.int64) << np.arange(d)).sum(axis=1)
            where = np.full(2**d, -1)
            where[masks] = np.arange(masks.size)
            if np.all(where >= 0):  # every coalition once

                def subtree(start: Any) -> None:
                    for mask, PS, PSc in _pair_products(tables, d, start=start):
                        for m, given in ((mask, (PS, PSc)), (2**d - 1 - mask, (PSc, PS))):
                            q = where[m]
                            S = coalitions[q]
                            pr = _Prods(np.flatnonzero(S), np.flatnonzero(~S), given)
                            out[q] = self.basis_values(S, pr).T @ coef + icpt

                if self.n_jobs <= 1:
                    subtree(None)
                else:
                    # threads over subtrees of the walk (numpy and BLAS release the GIL); 4 subtrees per thread
                    depth = min(d - 1, int(np.ceil(np.log2(4 * self.n_jobs))))
                    from joblib import Parallel, delayed

                    # each subtree writes its own coalitions' rows of ``out``: threads share it
                    Parallel(n_jobs=self.n_jobs, require="sharedmem")(
                        delayed(subtree)(start) for start in list(_pair_products(tables, d, stop=depth))
                    )
                return out
        for q, S in enumerate(coalitions):
            out[q] = self.basis_values(S).T @ coef + icpt
        return out


def mean_kernel_rows(expansion: Any, R: np.ndarray, chunk: int = 128, weights: np.ndarray | None = None) -> np.ndarray:
    """(n_model,): the (weighted) mean over the rows of R of amplitude_t * k_t(X_i, R_r), summed over terms.

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.rkhs.cme import mean_kernel_rows
    >>> em = kx.KernelExpansion(np.zeros((1, 1)), np.ones(1), kx.kernels.RBF(1.0))
    >>> np.round(mean_kernel_rows(em, np.array([[0.0], [1.0]])), 3)
    array([0.803])
    """
    Xm = expansion.X_ref
    acc = np.zeros(Xm.shape[0])
    for t in expansion.terms:
        for lo in range(0, R.shape[0], chunk):
            K = t(Xm, R[lo : lo + chunk])
            acc += K.sum(axis=1) if weights is None else K @ weights[lo : lo + chunk]
    return acc / R.shape[0] if weights is None else acc

"""Observational value functions through conditional mean embeddings (RKHS-SHAP).

For a model f(x) = sum_i coef_i k(x, X_i) + b0 whose kernel is a product over features, the
observational value of coalition S at a point x is (Chau, Hu, Gonzalez & Sejdinovic, 2022,
section 3, Proposition 3; Chau, 2023, thesis appendix C.4)

    v_x(S) = E[f(x_S, X_Sc) | X_S = x_S] + b0
           = sum_i coef_i k_S(X_iS, x_S) * sum_l beta_l(x_S) k_Sc(X_iSc, R_lSc) + b0,

with background rows R (n of them) and the conditional-mean-embedding weights
beta(x_S) = (K_S(R, R) + n eta I)^-1 k_S(R, x_S): kernel ridge regression from the features in S
to the feature map of the features not in S.  The CME regresses with the model's own per-feature
kernels restricted to S, scaled to unit amplitude (so eta does not depend on the model's scale).
The empty and full coalitions are exact: v(empty) is the mean prediction over R, v(full) = f(x).

Weighted background rows (weights w summing to one) give the weighted ridge regression
beta(x_S) = D (D K_S(R, R) D + n eta I)^-1 D k_S(R, x_S) with D = diag(sqrt(n w)), which is the
formula above for equal weights, and v(empty) becomes the weighted mean prediction.

Every coalition needs one solve with the n x n matrix K_S(R, R) + n eta I, shared by all explained
points; it depends on the background only, so its Cholesky factor is kept (within a memory
budget, packed: the triangle only) and reused by every later batch.  With the Nystroem
approximation (m landmark rows L of R) the embeddings live in the span of the landmarks' feature
maps; the CME solve becomes m x m and the cost per coalition is O(n m^2 + n_model m N) instead of
O(n^3 + n_model n N); only the m x m factor is kept (``ProductCME.nystroem_factors``).

For kernels that are not products (Matern, RationalQuadratic, polynomial, ...) the thesis
(appendix C.3, eq. C.5) regresses the whole feature map on the features in S:

    v_x(S) = k_S(x_S, R_S) (K_S(R, R) + n eta I)^-1 f(R),

with k_S the model's kernel restricted to S (same family, same hyperparameters); the n-vector
(K_S(R, R) + n eta I)^-1 f(R) depends on the background only and is kept per coalition.

The background part of each game (``ProductCME``, ``GenericCME``) is built once; ``game(X)`` then
gives the value function at a batch of points.  The CME linear algebra (the ridge systems, exact
and Nystroem, weighted or not) is ``kexplain.embeddings.ExactRidge`` / ``NystroemRidge``, the same
code as ``kexplain.embeddings.ConditionalMeanEmbedding``.  Asked for every coalition at once, the
product game builds the per-feature kernel products along a depth-first walk over the features,
shared by each coalition and its complement (``_pair_products``), and can spread the coalitions
over threads.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from scipy.linalg import cho_solve

from ..embeddings.cme import cme_cv_loss_from_grams
from ..embeddings.ridge import ExactRidge, NystroemRidge, choose_landmarks, jittered_cholesky

__all__ = [
    "DEFAULT_CME_REGULARIZATION",
    "GenericCME",
    "GenericCMEGame",
    "ProductCME",
    "ProductCMEGame",
    "choose_landmarks",
    "cme_cv_loss",
    "mean_kernel_rows",
]

#: default CME regularisation eta; the ridge is n * eta on kernels with unit diagonal
DEFAULT_CME_REGULARIZATION = 1e-3

#: caches of per-feature kernel values larger than this are recomputed per coalition instead
_CACHE_BYTES = 256 * 2**20

#: memory for the per-coalition factors kept across ``explain`` calls (per game): the packed
#: triangular factors of 2^10 coalitions' Nystroem systems with 300 landmarks take 369 MB
FACTOR_CACHE_BYTES = 512 * 2**20

KernelFn = Callable[[np.ndarray, np.ndarray], np.ndarray]


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


class _FeatureProducts:
    """prod_{j in cols} k_j(A_p, B_r) for a per-feature kernel, cached when small enough.

    The cache holds one contiguous (len(A), len(B)) slab per feature, so a product over a subset
    is a handful of streaming multiplies instead of a strided gather.
    """

    def __init__(self, term: Any, A: np.ndarray, B: np.ndarray, *, cache_bytes: int = _CACHE_BYTES) -> None:
        self.term, self.A, self.B = term, A, B
        self.shape = (A.shape[0], B.shape[0])
        d = A.shape[1]
        self.F = None
        if A.shape[0] * B.shape[0] * d * 8 <= cache_bytes:
            self.F = np.ascontiguousarray(np.moveaxis(term.feature_values(A, B), -1, 0))

    def prod(self, cols: np.ndarray) -> np.ndarray:
        if cols.size == 0:
            return np.ones(self.shape)
        if self.F is not None:
            out = self.F[cols[0]].copy()
            for j in cols[1:]:
                out *= self.F[j]
            return out
        out = np.empty(self.shape)
        step = max(1, _CACHE_BYTES // (8 * self.B.shape[0] * self.A.shape[1]))
        for lo in range(0, self.shape[0], step):
            F = self.term.feature_values(self.A[lo : lo + step], self.B)
            out[lo : lo + step] = np.prod(F[:, :, cols], axis=-1)
        return out


def _set_eta(cme: ProductCME | GenericCME, eta: float) -> None:
    eta = float(eta)
    if eta != cme.eta:
        cme.eta = eta
        cme.lam = cme.n * eta
        cme.cache = _FactorCache(cme.cache.max_bytes)


def _key(S_idx: np.ndarray, d: int) -> bytes:
    S = np.zeros(d, dtype=bool)
    S[S_idx] = True
    return S.tobytes()


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


def _wsum(weights: np.ndarray, arrays: list[np.ndarray]) -> np.ndarray:
    """sum_t w_t A_t, the same numbers as ``sum(w * A for ...)`` without its extra passes (and no copy
    for one term of weight 1: the arrays are never written to)."""
    if len(arrays) == 1 and weights[0] == 1.0:
        return arrays[0]
    out = weights[0] * arrays[0]
    for w, A in zip(weights[1:], arrays[1:]):
        out += w * A
    return out


class _Prods:
    """prod over the features in S (``side`` True) or not in S of a per-feature table: computed on
    demand, or looked up in ``given`` = (products over S, products over not S) keyed by table id."""

    def __init__(
        self,
        S_idx: np.ndarray,
        Sc_idx: np.ndarray,
        given: tuple[dict[int, np.ndarray | None], dict[int, np.ndarray | None]] | None = None,
    ) -> None:
        self.S_idx, self.Sc_idx, self.given = S_idx, Sc_idx, given

    def __call__(self, f: _FeatureProducts, side: bool) -> np.ndarray:
        if self.given is None:
            return f.prod(self.S_idx if side else self.Sc_idx)
        P = self.given[0 if side else 1][id(f)]
        return np.ones(f.shape) if P is None else P


def _pair_products(
    tables: list[_FeatureProducts], d: int, start: tuple[int, int, Any, Any] | None = None, stop: int | None = None
) -> Any:
    """Yield (mask, products over S, products over not S) for every coalition S without feature d - 1.

    A depth-first walk that puts each feature in S or in its complement, in increasing order, so
    each product is ((F_j1 * F_j2) * F_j3) ... exactly as ``_FeatureProducts.prod`` forms it, at
    the cost of one multiplication per node instead of |S| - 1 per coalition; each leaf serves a
    coalition and its complement.  None stands for the empty product.  ``start`` = (j, mask, PS,
    PSc) resumes the walk from a node; ``stop`` = j yields the nodes at depth j (subtrees for threads).
    """
    end = d if stop is None else stop

    def walk(j: int, mask: int, PS: dict[int, Any], PSc: dict[int, Any]) -> Any:
        if j == end:
            yield (mask, PS, PSc) if stop is None else (j, mask, PS, PSc)
            return
        if j < d - 1:
            yield from walk(j + 1, mask | (1 << j), _times(PS, tables, j), PSc)
        yield from walk(j + 1, mask, PS, _times(PSc, tables, j))

    if start is not None:
        yield from walk(*start)
        return
    empty: dict[int, Any] = {id(t): None for t in tables}
    yield from walk(0, 0, empty, empty)


def _times(P: dict[int, Any], tables: list[_FeatureProducts], j: int) -> dict[int, Any]:
    out: dict[int, Any] = {}
    for t in tables:
        assert t.F is not None
        prev = P[id(t)]
        out[id(t)] = t.F[j].copy() if prev is None else prev * t.F[j]
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


def cme_cv_loss(
    cond_kernel: Callable[[np.ndarray], KernelFn],
    target_kernel: Callable[[np.ndarray], KernelFn],
    X: np.ndarray,
    eta: float,
    coalitions: Sequence[np.ndarray],
    n_folds: int,
    rng: np.random.Generator,
) -> float:
    """Held-out CME loss sum ||psi_T(y) - mu(y_S)||^2 over folds and coalitions.

    ``cond_kernel(S_idx)`` and ``target_kernel(S_idx)`` return callables k(A, B) on full rows: the
    kernel of the features conditioned on and of the embedded target (for product kernels the
    features not in S; for other kernels the whole feature map).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.metrics.pairwise import rbf_kernel
    >>> from kexplain.rkhs.cme import cme_cv_loss
    >>> X = np.random.default_rng(0).normal(size=(30, 2))
    >>> k0 = lambda S_idx: (lambda A, B: rbf_kernel(A[:, :1], B[:, :1]))
    >>> k1 = lambda S_idx: (lambda A, B: rbf_kernel(A[:, 1:], B[:, 1:]))
    >>> loss = cme_cv_loss(k0, k1, X, 1e-2, [np.array([True, False])], 3, np.random.default_rng(0))
    >>> 0.0 < loss < 1.0
    True
    """
    n = X.shape[0]
    folds = np.array_split(rng.permutation(n), n_folds)
    total = 0.0
    for S in coalitions:
        S_idx = np.flatnonzero(S)
        total += cme_cv_loss_from_grams(cond_kernel(S_idx)(X, X), target_kernel(S_idx)(X, X), eta, folds)
    return total / len(coalitions)

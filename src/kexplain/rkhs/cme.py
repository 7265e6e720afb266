"""Observational value functions through conditional mean embeddings (RKHS-SHAP).

For a model f(x) = sum_i coef_i k(x, X_i) + b0 whose kernel is a product over features, the
observational value of coalition S at a point x is (seed 003 Proposition 3, thesis appendix C.4)

    v_x(S) = E[f(x_S, X_Sc) | X_S = x_S] + b0
           = sum_i coef_i k_S(X_iS, x_S) * sum_l beta_l(x_S) k_Sc(X_iSc, R_lSc) + b0,

with reference rows R (n of them) and the conditional-mean-embedding weights
beta(x_S) = (K_S(R, R) + n eta I)^-1 k_S(R, x_S): kernel ridge regression from the features in S
to the feature map of the features not in S.  The CME regresses with the model's own per-feature
kernels restricted to S, scaled to unit amplitude (so eta does not depend on the model's scale).
The empty and full coalitions are exact: v(empty) is the mean prediction over R, v(full) = f(x).

Every coalition needs one solve with the n x n matrix K_S(R, R) + n eta I, shared by all explained
points.  With the Nystroem approximation (m landmark rows L of R) the embeddings live in the span
of the landmarks' feature maps; the CME solve becomes m x m and the cost per coalition is
O(n m^2 + n_model m N) instead of O(n^3 + n_model n N).

For kernels that are not products (Matern, RationalQuadratic, polynomial, ...) the thesis
(appendix C.3, eq. C.5) regresses the whole feature map on the features in S:

    v_x(S) = k_S(x_S, R_S) (K_S(R, R) + n eta I)^-1 f(R),

with k_S the model's kernel restricted to S (same family, same hyperparameters).
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.linalg.blas import dsyrk

#: default CME regularisation eta; the ridge is n * eta on kernels with unit diagonal
DEFAULT_CME_REGULARIZATION = 1e-3

#: caches of per-feature kernel values larger than this are recomputed per coalition instead
_CACHE_BYTES = 256 * 2**20

# relative jitter added to landmark Gram matrices before a Cholesky factorisation
_JITTER = 1e-9


def _cholesky(M, ridge=0.0):
    """Cholesky factor of M + ridge I (+ a tiny jitter); raises a clear error if it fails."""
    n = M.shape[0]
    scale = max(float(np.trace(M)) / max(n, 1), 1e-300)
    M = M + (ridge + _JITTER * scale) * np.eye(n)
    try:
        return cho_factor(M, lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        M = M + 1e-6 * scale * np.eye(n)
        return cho_factor(M, lower=True, check_finite=False)


class _FeatureProducts:
    """prod_{j in cols} k_j(A_p, B_r) for a per-feature kernel, cached when small enough.

    The cache holds one contiguous (len(A), len(B)) slab per feature, so a product over a subset
    is a handful of streaming multiplies instead of a strided gather.
    """

    def __init__(self, term, A, B, *, cache_bytes=_CACHE_BYTES):
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
            F = self.term.feature_values(self.A[lo:lo + step], self.B)
            out[lo:lo + step] = np.prod(F[:, :, cols], axis=-1)
        return out


def choose_landmarks(n_rows, n_landmarks, random_state):
    rng = np.random.default_rng(random_state) if not isinstance(random_state, np.random.RandomState) \
        else np.random.default_rng(random_state.randint(2**31))
    if n_landmarks >= n_rows:
        return np.arange(n_rows)
    return np.sort(rng.choice(n_rows, size=n_landmarks, replace=False))


class ProductCMEGame:
    """Observational value function of a product-kernel expansion at a batch of points.

    ``basis_values(S)`` gives the (n_model, N) matrix whose column x holds, for each basis function
    k(., X_i), its observational value at x (the matrix K^(O)_{x,S} of seed 003 Proposition 3);
    calling the game with a boolean array of coalitions contracts it with the coefficients and
    returns values of shape (n_coalitions, N, n_outputs), the intercept included.
    """

    def __init__(self, expansion, X, R, eta, *, landmarks=None, mean_basis=None):
        self.em = expansion
        self.X = X
        self.R = R
        self.d = X.shape[1]
        self.n = R.shape[0]
        self.lam = self.n * float(eta)
        terms = expansion.terms
        amps = np.asarray(expansion.amplitudes, dtype=np.float64)
        self.amps = amps
        self.cme_w = amps / amps.sum()                  # unit-amplitude CME kernel
        Xm = expansion.X_ref
        self.Xm = Xm
        self.fx = [_FeatureProducts(t, Xm, X) for t in terms]          # k_tj(X_i, x)
        self.landmarks = landmarks
        if landmarks is None:
            same = Xm.shape == R.shape and np.array_equal(Xm, R)
            self.fRR = [_FeatureProducts(t, R, R) for t in terms]
            self.fmR = self.fRR if same else [_FeatureProducts(t, Xm, R) for t in terms]
            self.fRx = [_FeatureProducts(t, R, X) for t in terms]
        else:
            L = R[landmarks]
            self.fLR = [_FeatureProducts(t, L, R) for t in terms]
            self.fLL = [_FeatureProducts(t, L, L) for t in terms]
            self.fmL = [_FeatureProducts(t, Xm, L) for t in terms]
            self.fLx = [_FeatureProducts(t, L, X) for t in terms]
        # v(empty) is exact: the mean over R of every basis function
        if mean_basis is None:
            mean_basis = mean_kernel_rows(expansion, R)
        self.mean_basis = mean_basis                    # (n_model,) incl. amplitudes

    # -- the CME weights -----------------------------------------------------------------------
    def _cme_exact(self, S_idx):
        K = sum(w * f.prod(S_idx) for w, f in zip(self.cme_w, self.fRR))
        k = sum(w * f.prod(S_idx) for w, f in zip(self.cme_w, self.fRx))
        cf = cho_factor(K + self.lam * np.eye(self.n), lower=True, check_finite=False)
        return cho_solve(cf, k, check_finite=False)                      # beta (n, N)

    def _cme_nystroem(self, S_idx):
        K_LR = sum(w * f.prod(S_idx) for w, f in zip(self.cme_w, self.fLR))
        K_LL = sum(w * f.prod(S_idx) for w, f in zip(self.cme_w, self.fLL))
        K_Lx = sum(w * f.prod(S_idx) for w, f in zip(self.cme_w, self.fLx))
        # beta = K_RL c with c = (K_LR K_RL + lam K_LL)^-1 K_Lx (push-through of the Nystroem ridge)
        # K_LR K_LR^T through the symmetric rank-k update (half the flops of a general product)
        G = dsyrk(1.0, K_LR, lower=True)
        cf = _cholesky(G + G.T - np.diag(np.diag(G)) + self.lam * K_LL)
        return K_LR, cho_solve(cf, K_Lx, check_finite=False)              # (m, n), c (m, N)

    # -- values ----------------------------------------------------------------------------------
    def basis_values(self, S: np.ndarray) -> np.ndarray:
        S = np.asarray(S, dtype=bool)
        S_idx, Sc_idx = np.flatnonzero(S), np.flatnonzero(~S)
        N = self.X.shape[0]
        if S_idx.size == 0:
            return np.repeat(self.mean_basis[:, None], N, axis=1)
        if Sc_idx.size == 0:
            return sum(a * f.prod(S_idx) for a, f in zip(self.amps, self.fx))
        out = np.zeros((self.Xm.shape[0], N))
        if self.landmarks is None:
            beta = self._cme_exact(S_idx)
            for a, fx, fmR in zip(self.amps, self.fx, self.fmR):
                out += a * fx.prod(S_idx) * (fmR.prod(Sc_idx) @ beta)
        else:
            K_LR, c = self._cme_nystroem(S_idx)
            for a, fx, fLR, fLL, fmL in zip(self.amps, self.fx, self.fLR, self.fLL, self.fmL):
                # output side projected on the landmarks: k_Sc(X_i, R) ~ k_Sc(X_i, L) P^-1 k_Sc(L, R)
                P = _cholesky(fLL.prod(Sc_idx))
                Qc = fLR.prod(Sc_idx) @ (K_LR.T @ c)                          # (m, N)
                G = fmL.prod(Sc_idx) @ cho_solve(P, Qc, check_finite=False)
                out += a * fx.prod(S_idx) * G
        return out

    def __call__(self, coalitions: np.ndarray) -> np.ndarray:
        coef, icpt = self.em.coef, self.em.intercept
        out = np.empty((coalitions.shape[0], self.X.shape[0], coef.shape[1]))
        for q, S in enumerate(coalitions):
            out[q] = self.basis_values(S).T @ coef + icpt
        return out


def mean_kernel_rows(expansion, R, chunk=128):
    """(n_model,): mean over the rows of R of amplitude_t * k_t(X_i, R_r), summed over terms."""
    Xm = expansion.X_ref
    acc = np.zeros(Xm.shape[0])
    for t in expansion.terms:
        for lo in range(0, R.shape[0], chunk):
            acc += t(Xm, R[lo:lo + chunk]).sum(axis=1)
    return acc / R.shape[0]


class GenericCMEGame:
    """Observational values for any kernel model (thesis appendix C.3, eq. C.5).

    ``kernel_on(S_idx)`` returns a callable k_S(A, B) (the model's kernel restricted to the
    features in S); ``f_ref`` (n, o) are the model's outputs on the reference rows R and
    ``f_x`` (N, o) its outputs at the explained points.
    """

    def __init__(self, kernel_on, X, R, f_ref, f_x, eta, *, landmarks=None):
        self.kernel_on, self.X, self.R = kernel_on, X, R
        self.f_ref, self.f_x = f_ref, f_x
        self.n = R.shape[0]
        self.lam = self.n * float(eta)
        self.landmarks = landmarks

    def __call__(self, coalitions):
        N, o = self.f_x.shape
        out = np.empty((coalitions.shape[0], N, o))
        mean = self.f_ref.mean(axis=0)
        for q, S in enumerate(np.asarray(coalitions, dtype=bool)):
            S_idx = np.flatnonzero(S)
            if S_idx.size == 0:
                out[q] = mean
            elif S_idx.size == S.size:
                out[q] = self.f_x
            else:
                k = self.kernel_on(S_idx)
                XS, RS = self.X[:, S_idx], self.R[:, S_idx]
                if self.landmarks is None:
                    cf = cho_factor(k(RS, RS) + self.lam * np.eye(self.n), lower=True, check_finite=False)
                    beta = cho_solve(cf, k(RS, XS), check_finite=False)
                    out[q] = beta.T @ self.f_ref
                else:
                    LS = RS[self.landmarks]
                    K_LR = k(LS, RS)
                    cf = _cholesky(K_LR @ K_LR.T + self.lam * k(LS, LS))
                    c = cho_solve(cf, k(LS, XS), check_finite=False)
                    out[q] = c.T @ (K_LR @ self.f_ref)
        return out


def cme_cv_loss(cond_kernel, target_kernel, X, eta, coalitions, n_folds, rng):
    """Held-out CME loss sum ||psi_T(y) - mu(y_S)||^2 over folds and coalitions.

    ``cond_kernel(S_idx)`` and ``target_kernel(S_idx)`` return callables k(A, B) on full rows: the
    kernel of the features conditioned on and of the embedded target (for product kernels the
    features not in S; for other kernels the whole feature map).
    """
    n = X.shape[0]
    folds = np.array_split(rng.permutation(n), n_folds)
    total = 0.0
    for S in coalitions:
        S_idx = np.flatnonzero(S)
        kc, kt = cond_kernel(S_idx), target_kernel(S_idx)
        for te in folds:
            tr = np.setdiff1d(np.arange(n), te)
            Xtr, Xte = X[tr], X[te]
            cf = cho_factor(kc(Xtr, Xtr) + len(tr) * eta * np.eye(len(tr)), lower=True, check_finite=False)
            beta = cho_solve(cf, kc(Xtr, Xte), check_finite=False)         # (ntr, nte)
            Ktt = kt(Xtr, Xtr)
            cross = kt(Xtr, Xte)
            diag = np.diag(kt(Xte, Xte))
            total += float(np.sum(diag - 2 * np.sum(beta * cross, axis=0) + np.sum(beta * (Ktt @ beta), axis=0)))
    return total / (n * len(coalitions))

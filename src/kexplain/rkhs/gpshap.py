"""GP-SHAP: the posterior covariance of observational Shapley values of a Gaussian process.

Chau, Muandet & Sejdinovic (2023, "Explaining the Uncertain: Stochastic Shapley Values for
Gaussian Process Models", NeurIPS) estimate the observational game of a GP f through
conditional mean embeddings (CMEs),

    v_x(S) = sum_l beta_l^S(x) f(h_l^S(x)),        h_l^S(x) = (x_S, R_l,not S),

with beta^S(x) the (weighted) CME weights of the background rows R given the features in S
(``kexplain.embeddings.ExactRidge``; beta^{empty} = w, the background weights, and v_x(full) =
f(x)).  v_x(S) is linear in f, so under the posterior f ~ GP(m, k_post) the Shapley values are
jointly Gaussian with mean phi[m] (RKHS-SHAP's observational values of the posterior mean) and

    Cov(phi_j(x), phi_k(x')) = sum_{S, T} c_j(S) c_k(T) beta^S(x)^T k_post(H^S(x), H^T(x')) beta^T(x'),

c_j(S) the Shapley coefficients of coalition S (+ the weight of S - {j} when j is in S, minus the
weight of S when it is not).  With k_post = s^2 [k - k(., X) A k(X, .)] (``GPPosterior``) the sum
splits into

- a data term Psi(x)^T A Psi(x'), row i of Psi(x) (n_train x d) holding the observational
  Shapley values of the basis function k(., X_i) (RKHS-SHAP's game of each basis function);
- a prior term over all 4^d pairs of coalitions: for a product kernel, features in both S and T
  contribute kappa(x_j, x'_j), features in S only kappa(x_j, R_m,j), in T only kappa(R_l,j, x'_j),
  and the features in neither the background Gram matrix K_U(R, R) over U = not (S or T).  Given
  U and S the factor on the left depends on S only, so the n x n products are formed once per
  (U, S): O(3^d n^2 + 4^d n) per point (per pair of points for the joint covariance), e.g.
  about 10^9 operations per point at d = 10 with n = 100 background rows.

What the covariance includes, and what it does not: it is the posterior uncertainty of f
propagated exactly through the CME estimate of the game (the CME weights beta are fixed: the
estimation error of the conditional mean embedding itself, from the finite background and the
regularisation, is **not** included).  A constant part of the prior kernel (a ConstantKernel
term) passes through the conditional expectation exactly, E[c | X_S] = c, as in the mean values,
so it adds nothing to the covariance of the Shapley values.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_bool
from ..shapley.enumeration import all_coalitions, shapley_weights
from ..shapley.routes import BACKGROUND_TABLE_BYTES
from ..shapley.subsets import subset_products
from .cme import ProductCME

#: bytes of the stacked (pairs, n, points) arrays built at once in the prior term
_PAIR_BYTES = 32 * 2**20
#: bytes of the per-point tables (kernel products and CME weights of every coalition) held at once
_TABLE_BYTES = BACKGROUND_TABLE_BYTES
#: bytes of the background Gram products K_U(R, R) kept between blocks (2^d n^2 in all: 1.3 GB at
#: d = 12, n = 200); beyond the budget they are recomputed, d 2^(d-1) n^2 operations per block, small
#: beside the 3^d n^2 of the prior term
_KU_CACHE_BYTES = 64 * 2**20


def shapley_coefficients(d: int) -> np.ndarray:
    """(2^d, d): phi_j = sum_S C[S, j] v(S) over the coalitions of ``all_coalitions(d)`` (row m = bits of m).

    Examples
    --------
    >>> from kexplain.rkhs.gpshap import shapley_coefficients
    >>> shapley_coefficients(2) * 2
    array([[-1., -1.],
           [ 1., -1.],
           [-1.,  1.],
           [ 1.,  1.]])
    """
    S = all_coalitions(d)
    size = S.sum(axis=1)
    w = shapley_weights(d)
    C = np.zeros((2**d, d))
    for j in range(d):
        inj = S[:, j]
        C[inj, j] = w[size[inj] - 1]
        C[~inj, j] = -w[size[~inj]]
    return C


class ObservationalGPSHAP:
    """Mean and covariance of the observational Shapley values of a GP posterior (exact CME).

    Parameters
    ----------
    posterior : GPPosterior
        The posterior of f (``kexplain.models.gp_posterior``).
    cme : ProductCME
        The exact (no landmarks) CME of the posterior mean's expansion on the background.

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.rkhs.cme import ProductCME
    >>> from kexplain.rkhs.gpshap import ObservationalGPSHAP
    >>> X = np.random.default_rng(0).normal(size=(15, 2))
    >>> k = kx.kernels.RBF(1.0)
    >>> A = np.linalg.inv(k(X) + 0.1 * np.eye(15))
    >>> post = kx.models.GPPosterior(X, k, A @ X[:, 0], A)
    >>> gs = ObservationalGPSHAP(post, ProductCME(post.expansion(), X, 1e-3))
    >>> mean, cov = gs.moments(X[:3])
    >>> mean.shape, cov.shape
    ((3, 2), (3, 2, 2))
    """

    def __init__(self, posterior: Any, cme: ProductCME) -> None:
        if cme.landmarks is not None:
            raise ValueError("the GP-SHAP covariance needs the exact CME (approximation=None).")
        self.post, self.cme = posterior, cme
        self.d = cme.d
        self.C = shapley_coefficients(self.d)
        self.w = np.full(cme.n, 1.0 / cme.n) if cme.weights is None else np.asarray(cme.weights, dtype=np.float64)
        self._KU: dict[tuple[int, int], np.ndarray] = {}

    def _tables(self, X: np.ndarray) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
        """Per term the (2^d, n, N) products kappa_S(R, x); the (2^d, n, N) CME weights; Psi (n_model, N, d)."""
        c = self.cme
        d, N = self.d, X.shape[0]
        A = [subset_products(t.feature_values(c.R, X)) for t in c.em.terms]
        B = np.empty((2**d, c.n, N))
        B[0] = self.w[:, None]
        B[-1] = self.w[:, None]
        game = c.game(X)
        coal = all_coalitions(d)
        Psi = np.zeros((c.Xm.shape[0], N, d))
        for m in range(2**d):
            S = coal[m]
            if 0 < m < 2**d - 1:
                K = sum(wt * At[m] for wt, At in zip(c.cme_w, A))
                B[m] = c.exact_factor(np.flatnonzero(S)).weights(np.asarray(K))
            Psi += game.basis_values(S)[:, :, None] * self.C[m][None, None, :]
        return A, B, Psi

    def _K_U(self, t: int, U: int) -> np.ndarray:
        key = (t, U)
        K = self._KU.get(key)
        if K is None:
            idx = np.flatnonzero((U >> np.arange(self.d)) & 1)
            K = self.cme.fRR[t].prod(idx)
            if (len(self._KU) + 1) * K.nbytes <= _KU_CACHE_BYTES:
                self._KU[key] = K
        return K

    def _prior(self, X: np.ndarray, A: list[np.ndarray], B: np.ndarray, iL: np.ndarray, iR: np.ndarray) -> np.ndarray:
        """M[S, T, p] = Cov_prior(v_{x_iL[p]}(S), v_{x_iR[p]}(T)) / s^2 (kernel without its constant).

        Pairs are grouped by U = not (S or T): given U and S, the left factor
        beta^S(x) * kappa_{T - S}(R, x') depends on S only (T - S = not U - S), so K_U times it is
        formed once per (U, S) (3^d of them) and each of the 4^d pairs costs an n-vector product:
        O(3^d n^2 + 4^d n) per pair of points.
        """
        d, n, P = self.d, self.cme.n, iL.size
        full = 2**d - 1
        mS, mT = np.divmod(np.arange(4**d), 2**d)
        U = full & ~(mS | mT)
        order = np.lexsort((mS, U))  # by U, then by S
        bounds = np.searchsorted(U[order], np.arange(2**d + 1))
        M = np.zeros((2**d, 2**d, P))
        Bl, Br = B[:, :, iL], B[:, :, iR]
        feats = [np.moveaxis(t.feature_values(X, X)[iL, iR], -1, 0) for t in self.cme.em.terms]  # (d, P)
        chunk = max(1, _PAIR_BYTES // (8 * n * P))
        for t, (term_amp, At) in enumerate(zip(self.cme.amps, A)):
            Al, Ar = At[:, :, iL], At[:, :, iR]
            cx = subset_products(np.moveaxis(feats[t], 0, -1))  # (2^d, P): kappa_{S and T}(x, x')
            for u in range(2**d):
                pairs = order[bounds[u] : bounds[u + 1]]
                V = full & ~u
                KU = self._K_U(t, u)
                s_all = mS[pairs]
                uniq, first = np.unique(s_all, return_index=True)
                stops = np.append(first[1:], pairs.size)
                for lo in range(0, uniq.size, chunk):
                    su = uniq[lo : lo + chunk]
                    KP = KU @ (Bl[su] * Ar[V & ~su])  # (c, n, P): K_U (beta^S(x) * kappa_{T - S}(R, x'))
                    a, b = first[lo], stops[min(lo + chunk, uniq.size) - 1]
                    p = pairs[a:b]
                    s, tt = mS[p], mT[p]
                    which = np.searchsorted(su, s)
                    for c0 in range(0, p.size, chunk):
                        sl = slice(c0, c0 + chunk)
                        Qm = Br[tt[sl]] * Al[s[sl] & ~tt[sl]]  # beta^T(x') * kappa_{S - T}(R, x)
                        vals = np.einsum("clp,clp->cp", KP[which[sl]], Qm) * cx[s[sl] & tt[sl]]
                        M[s[sl], tt[sl]] += term_amp * vals
        return M

    def moments(self, X: np.ndarray, *, joint: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Mean (N, d) and covariance (N, d, d), or with ``joint`` (N, d, N, d), at the rows of X.

        The mean is the observational Shapley values of the posterior mean (without the scale's
        offset, which is in the base value); the covariance is that of the module docstring.
        """
        mean, cov, _ = self.moments_and_bound(X, joint=joint)
        return mean, cov

    def moments_and_bound(self, X: np.ndarray, *, joint: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``moments`` and the rounding bound (N, d) of each value's variance (``GPPosterior.error_radius``).

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> from kexplain.rkhs.cme import ProductCME
        >>> from kexplain.rkhs.gpshap import ObservationalGPSHAP
        >>> X = np.random.default_rng(0).normal(size=(15, 2))
        >>> k = kx.kernels.RBF(1.0)
        >>> A = np.linalg.inv(k(X) + 0.1 * np.eye(15))
        >>> post = kx.models.GPPosterior(X, k, A @ X[:, 0], A)
        >>> mean, cov, bound = ObservationalGPSHAP(post, ProductCME(post.expansion(), X, 1e-3)).moments_and_bound(X[:3])
        >>> bool(np.all(bound < 1e-10 * np.diagonal(cov, axis1=1, axis2=2)))
        True
        """
        joint = check_bool(joint, "joint")
        X = np.asarray(X, dtype=np.float64)
        N = X.shape[0]
        if not joint:
            # blocks of points: the tables take 8 (2^d n (terms + 1) + 4^d) bytes per point
            per_point = 8 * (2**self.d * self.cme.n * (len(self.cme.amps) + 1) + 4**self.d)
            step = max(1, _TABLE_BYTES // per_point)
            if N > step:
                parts = [self.moments_and_bound(X[lo : lo + step]) for lo in range(0, N, step)]
                return tuple(np.concatenate([p[i] for p in parts]) for i in range(3))  # type: ignore[return-value]
        post = self.post
        A, B, Psi = self._tables(X)
        coef = np.asarray(post.coef, dtype=np.float64)
        mean = post.scale * np.einsum("i,ipj->pj", coef, Psi)
        if joint:
            iL, iR = np.repeat(np.arange(N), N), np.tile(np.arange(N), N)
        else:
            iL = iR = np.arange(N)
        M = self._prior(X, A, B, iL, iR)
        prior = np.einsum("sj,stp,tk->pjk", self.C, M, self.C, optimize=True)
        # the data term as V^T V' with V = whiten(Psi): triangular solves with the model's own Cholesky
        # factor, one point at a time (blocks and threads cannot change it), never an explicit inverse
        V = np.empty_like(Psi)
        r = np.empty((N, self.d))
        for p in range(N):
            V[:, p] = post.whiten(Psi[:, p])
            r[p] = post.error_radius(Psi[:, p], V[:, p])
        s2 = post.scale**2
        bound = s2 * r * r
        jj = np.arange(self.d)
        if joint:
            Vf = V.reshape(V.shape[0], N * self.d)
            data = (Vf.T @ Vf).reshape(N, self.d, N, self.d)
            cov = s2 * (prior.reshape(N, N, self.d, self.d).transpose(0, 2, 1, 3) - data)
            cov = 0.5 * (cov + cov.transpose(2, 3, 0, 1))
            ii = np.arange(N)[:, None]
            cov[ii, jj[None, :], ii, jj[None, :]] = np.clip(cov[ii, jj[None, :], ii, jj[None, :]], 0.0, None)
            return mean, cov, bound
        data = np.einsum("npj,npl->pjl", V, V)
        cov = s2 * (prior - data)
        cov = 0.5 * (cov + cov.transpose(0, 2, 1))
        cov[:, jj, jj] = np.clip(cov[:, jj, jj], 0.0, None)
        return mean, cov, bound

    def base_variance(self) -> float:
        """Posterior variance of v(empty) = sum_l w_l f(R_l) (the base value).

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> from kexplain.rkhs.cme import ProductCME
        >>> from kexplain.rkhs.gpshap import ObservationalGPSHAP
        >>> X = np.random.default_rng(0).normal(size=(15, 2))
        >>> k = kx.kernels.RBF(1.0)
        >>> A = np.linalg.inv(k(X) + 0.1 * np.eye(15))
        >>> post = kx.models.GPPosterior(X, k, A @ X[:, 0], A)
        >>> v = ObservationalGPSHAP(post, ProductCME(post.expansion(), X, 1e-3)).base_variance()
        >>> 0.0 < v < 0.1
        True
        """
        R = self.cme.R
        return float(self.w @ self.post.covariance(R) @ self.w)

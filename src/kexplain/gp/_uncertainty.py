"""Exact posterior covariance of an OAK model's local Shapley values (stochastic Shapley values).

The posterior of an OAK model's latent function is a Gaussian process with mean m and covariance

    k_post(x, x') = k(x, x') - k(x, X) P k(X, x'),

P = (K + s^2 I)^{-1} for the exact posterior over the support points X, and P = K_mm^{-1} - s^2 A^{-1}
for the sparse (DTC) one.  A Shapley value phi_j^x[f] is linear in f, so the values of every
point and feature are jointly Gaussian with mean phi[m] (the values of the posterior mean) and

    Cov(phi_j(x), phi_l(x')) = (phi_j^x (x) phi_l^x')[k_post]

(Chau, Muandet & Sejdinovic, 2023, "Explaining the uncertain: stochastic Shapley values for Gaussian
process models", section 3).  Both parts are exact here:

- data term: Phi(x)^T P Phi(x'), where Phi(x)_ij is the Shapley value of feature j in the game of
  the function k(., X_i): an additive game per support point, solved by the additive solver;
- prior term: k(z, z') = sum_T sigma_|T|^2 prod_{t in T} k~_t(z_t, z'_t) (the OAK kernel, "Exact
  Shapley Value for Local and Global Explanation of Additive Gaussian Processes", section 2.2).  Per
  feature t and pair of background rows (b, b') there are four factors, g11 = k~_t(x_t, x'_t),
  g10 = k~_t(x_t, z_b't), g01 = k~_t(z_bt, x'_t), g00 = k~_t(z_bt, z_b't); with independent inclusion
  probabilities (t, u) of the two coalitions the multilinear extension of the two-coalition game is
  sum_q sigma_q^2 e_q(Y(t, u)), Y = tu g11 + t(1-u) g10 + (1-t)u g01 + (1-t)(1-u) g00, and

      Cov_jl = sum_{b,b'} w_b w_b' int int d^2/(dpi_j dpi'_l) sum_q sigma_q^2 e_q(Y) dt du,

  which for j != l is (dY_j/dt)(dY_l/du) sum_q sigma_q^2 e_{q-2}(Y without j, l) and for j = l is
  (g11 - g10 - g01 + g00)_j sum_q sigma_q^2 e_{q-1}(Y without j): a polynomial of degree at most Q - 1
  in t and in u, integrated exactly by a ceil(Q / 2) x ceil(Q / 2) Gauss-Legendre grid.

The functional-ANOVA game is the case of one background "row" whose factors are all zero (the
constrained kernels integrate to zero under the input measure): then Cov_jl = sum over T containing j
and l of sigma_|T|^2 / |T|^2 prod_T g11.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import linalg

from ..shapley.additive import additive_block_values, elementary_symmetric
from ..shapley.quadrature import gauss_legendre_01, nodes_for_degree
from ._fitting import BLOCK_BYTES, additive_kernel, additive_kernel_diag, feature_kernels
from .kernels import ConstrainedKernel


def leave_two_out_esp(y: np.ndarray, max_order: int) -> np.ndarray:
    """e_q(y without j and l) for every pair (j, l); on the diagonal e_q(y without j).

    By removal, e_q(y without j) = e_q(y) - y_j e_{q-1}(y without j), twice: O(d^2 Q) per row
    instead of O(d^3 Q) for prefix/suffix tables of each leave-one-out vector.  Every factor here
    is a constrained kernel value or a convex combination of them, |y_j| <= 1, so each removal
    step adds at most one rounding error of the table's scale (no growth).

    Parameters
    ----------
    y : ndarray of shape (..., d)
    max_order : int

    Returns
    -------
    ndarray of shape (..., d, d, max_order + 1)
    """
    d = y.shape[-1]
    Q = max_order
    e = elementary_symmetric(y, Q)  # (..., Q + 1)
    e1 = np.empty(y.shape + (Q + 1,))  # (..., d, Q + 1): without j
    e1[..., 0] = 1.0
    for q in range(1, Q + 1):
        e1[..., q] = e[..., None, q] - y * e1[..., q - 1]
    e2 = np.empty(y.shape + (d, Q + 1))  # (..., j, l, Q + 1): without j and l
    e2[..., 0] = 1.0
    yl = y[..., None, :]
    for q in range(1, Q + 1):
        e2[..., q] = e1[..., :, None, q] - yl * e2[..., q - 1]
    idx = np.arange(d)
    e2[..., idx, idx, :] = e1
    return e2


def prior_covariance(
    g11: np.ndarray,
    g10: np.ndarray,
    g01: np.ndarray,
    g00: np.ndarray,
    w: np.ndarray,
    s2: np.ndarray,
) -> np.ndarray:
    """(phi_j^x (x) phi_l^x')[k] for P pairs of points under the OAK kernel (module docstring).

    Parameters
    ----------
    g11 : (P, d)
        k~_t(x_t, x'_t).
    g10 : (P, B, d)
        k~_t(x_t, z_bt) (the second point's absent features).
    g01 : (P, B, d)
        k~_t(z_bt, x'_t) (the first point's absent features).
    g00 : (B, B, d)
        k~_t(z_bt, z_b't).
    w : (B,)
        Background weights.
    s2 : (Q + 1,)
        Order variances.

    Returns
    -------
    ndarray of shape (P, d, d)
    """
    P, d = g11.shape
    B = w.shape[0]
    Q = min(s2.shape[0] - 1, d)
    out = np.zeros((P, d, d))
    if Q < 1:
        return out
    nodes, weights = gauss_legendre_01(nodes_for_degree(Q - 1))
    off = s2[2 : Q + 1]  # weight of e_{q-2}(without j, l): sigma_q^2, q >= 2
    diag = s2[1 : Q + 1]  # weight of e_{q-1}(without j): sigma_q^2, q >= 1
    idx = np.arange(d)
    # bounded temporaries: the leave-two-out tables hold (pairs, b, b', d, d, Q) numbers and a few copies
    per_b = 8 * B * d * (d + 1) * (Q + 1) * 4
    step_p = max(1, BLOCK_BYTES // max(1, per_b * B))
    step_b = B if step_p > 1 else max(1, BLOCK_BYTES // max(1, per_b))
    for p0 in range(0, P, step_p):
        ps = slice(p0, min(P, p0 + step_p))
        a11 = g11[ps, None, None, :]
        for b0 in range(0, B, step_b):
            bs = slice(b0, min(B, b0 + step_b))
            a10 = g10[ps, None, :, :]  # (p, 1, B', d): x against z_b'
            a01 = g01[ps, bs, None, :]  # (p, b, 1, d): z_b against x'
            a00 = g00[None, bs, :, :]
            ww = w[bs, None] * w[None, :]  # (b, B')
            d12 = a11 - a10 - a01 + a00
            acc = np.zeros((ps.stop - ps.start, d, d))
            for t, wt in zip(nodes, weights):
                for u, wu in zip(nodes, weights):
                    Y = t * u * a11 + t * (1 - u) * a10 + (1 - t) * u * a01 + (1 - t) * (1 - u) * a00
                    d1 = u * (a11 - a01) + (1 - u) * (a10 - a00)
                    d2 = t * (a11 - a10) + (1 - t) * (a01 - a00)
                    E = leave_two_out_esp(Y, Q - 1)  # (p, b, B', d, d, Q)
                    H = E[..., : Q - 1] @ off if Q >= 2 else np.zeros(E.shape[:-1])
                    term = d1[..., :, None] * d2[..., None, :] * H
                    term[..., idx, idx] = d12 * (E[..., idx, idx, :Q] @ diag)
                    acc += wt * wu * np.einsum("pbcjl,bc->pjl", term, ww)
            out[ps] += acc
    return out


class OAKPosteriorShapley:
    """What the covariance of an OAK model's Shapley values needs, computed once per explainer.

    Parameters
    ----------
    model : OAKRegressor
        A fitted model.
    background : ndarray of shape (B, d), optional
        Encoded background rows (interventional game); None for the functional-ANOVA game.
    weights : ndarray of shape (B,), optional
        Background weights.
    """

    def __init__(self, model: Any, background: np.ndarray | None = None, weights: np.ndarray | None = None) -> None:
        self.bases: Sequence[ConstrainedKernel] = model.bases_
        self.S = model.support_
        self.ls = np.nan_to_num(model.lengthscales_, nan=1.0)
        self.s2 = np.asarray(model.order_variances_, dtype=np.float64)
        self.factors = model._factors
        self.noise = float(model.noise_variance_)
        self.scale2 = float(model.y_std_) ** 2
        n, d = self.S.shape
        self.Zb = background
        if background is None:
            self.w = np.ones(1)
            self.absent: np.ndarray | None = None
            self.g00 = np.zeros((1, 1, d))
            # v(empty) = f_0, the constant component: prior sigma_0^2, k(., X_i) contributes sigma_0^2
            prior0 = float(self.s2[0])
            u0 = np.full((n, 1), self.s2[0])
        else:
            assert weights is not None
            self.w = np.asarray(weights, dtype=np.float64)
            self.absent = np.ascontiguousarray(feature_kernels(self.bases, self.S, background, self.ls))  # (n, B, d)
            self.g00 = feature_kernels(self.bases, background, background, self.ls)
            Kbb = additive_kernel(self.bases, background, background, self.ls, self.s2)
            prior0 = float(self.w @ Kbb @ self.w)
            u0 = (additive_kernel(self.bases, self.S, background, self.ls, self.s2) @ self.w)[:, None]
        self._u0 = self.whiten(u0)
        self.base_variance = self.scale2 * (prior0 + self._quad(self._u0, self._u0)[0, 0])

    # -- the data term ---------------------------------------------------------------------
    def whiten(self, A: np.ndarray) -> list[tuple[float, np.ndarray]]:
        """Factors [(sign, V), ...] with -A^T P A' = sum sign V^T V' (V = L^-1 A for each Cholesky factor L)."""
        if len(self.factors) == 1:
            return [(-1.0, linalg.solve_triangular(self.factors[0], A, lower=True))]
        return [
            (-1.0, linalg.solve_triangular(self.factors[0], A, lower=True)),
            (self.noise, linalg.solve_triangular(self.factors[1], A, lower=True)),
        ]

    @staticmethod
    def _quad(U: list[tuple[float, np.ndarray]], V: list[tuple[float, np.ndarray]]) -> np.ndarray:
        """The data term sum sign U^T V (the part of k_post beyond the prior)."""
        return np.asarray(sum(s * (a.T @ b) for (s, a), (_, b) in zip(U, V)))

    def basis_values(self, Z: np.ndarray) -> np.ndarray:
        """Phi(x): the Shapley values of each k(., X_i) at each row of Z, shape (p, n, d)."""
        p, d = Z.shape
        n = self.S.shape[0]
        z = feature_kernels(self.bases, Z, self.S, self.ls)  # (p, n, d)
        if self.absent is None:
            (phi,), _ = additive_block_values(z.reshape(p * n, 1, d), np.ones(1), self.s2)
        else:
            B = self.w.shape[0]
            zz = np.broadcast_to(z[:, :, None, :], (p, n, B, d)).reshape(p * n, B, d)
            bb = np.broadcast_to(self.absent[None], (p, n, B, d)).reshape(p * n, B, d)
            (phi,), _ = additive_block_values(zz, self.w, self.s2, absent=bb)
        return phi[:, :, 0].reshape(p, n, d)

    def _step(self, n_cols: int) -> int:
        """Rows of Z per block so that the basis values stay within the block budget."""
        n, d = self.S.shape
        B = 1 if self.absent is None else self.w.shape[0]
        Q = self.s2.shape[0]
        per = 8 * n * B * d * (Q + 4) * 3 + 8 * n_cols
        return max(1, BLOCK_BYTES // per)

    def whitened_basis(self, Z: np.ndarray) -> list[tuple[float, np.ndarray]]:
        """Whitened Phi of every row of Z: factors of shape (n, p * d), point-major columns."""
        n, d = self.S.shape
        p = Z.shape[0]
        step = self._step(p * d)
        Phi = np.empty((n, p * d))
        for a in range(0, p, step):
            blk = self.basis_values(Z[a : a + step])  # (p', n, d)
            Phi[:, a * d : (a + blk.shape[0]) * d] = blk.transpose(1, 0, 2).reshape(n, -1)
        return self.whiten(Phi)

    # -- the prior term --------------------------------------------------------------------
    def prior(self, A: np.ndarray, C: np.ndarray, g11: np.ndarray) -> np.ndarray:
        """Prior term of Cov(phi(a_p), phi(c_p)) for the pairs of rows (A_p, C_p): (P, d, d).

        ``g11`` (P, d) holds k~_t(a_pt, c_pt).
        """
        if self.Zb is None:
            zeros = np.zeros((A.shape[0], 1, A.shape[1]))
            return prior_covariance(g11, zeros, zeros, self.g00, self.w, self.s2)
        g10 = feature_kernels(self.bases, A, self.Zb, self.ls)
        g01 = feature_kernels(self.bases, C, self.Zb, self.ls)
        return prior_covariance(g11, g10, g01, self.g00, self.w, self.s2)

    # -- results -----------------------------------------------------------------------------
    def point_covariance(self, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(covariance (p, d, d) of each row's values, posterior variance (p,) of f at each row)."""
        p, d = Z.shape
        g11 = np.stack([b.diag(Z[:, j], self.ls[j]) for j, b in enumerate(self.bases)], axis=-1)
        cov = self.prior(Z, Z, g11)
        step = self._step(d)
        for a in range(0, p, step):
            W = self.whitened_basis(Z[a : a + step])
            for s, V in W:
                Vr = V.reshape(V.shape[0], -1, d)  # (n, p', d)
                cov[a : a + step] += s * np.einsum("npj,npl->pjl", Vr, Vr)
        cov = 0.5 * (cov + cov.transpose(0, 2, 1))
        Kxs = additive_kernel(self.bases, Z, self.S, self.ls, self.s2)
        kdiag = additive_kernel_diag(self.bases, Z, self.ls, self.s2)
        Wk = self.whiten(Kxs.T)
        var = kdiag + sum(s * (V**2).sum(axis=0) for s, V in Wk)
        return self.scale2 * cov, self.scale2 * np.clip(var, 0.0, None)

    def joint_covariance(self, Z: np.ndarray) -> np.ndarray:
        """Cov(phi_j(x_a), phi_l(x_b)) for every pair of rows: shape (p, d, p, d)."""
        p, d = Z.shape
        ia, ib = np.triu_indices(p)
        g11 = feature_kernels(self.bases, Z, Z, self.ls)[ia, ib]
        prior = self.prior(Z[ia], Z[ib], g11)  # (pairs, d, d)
        J = np.zeros((p, d, p, d))
        J[ia, :, ib, :] = prior
        J[ib, :, ia, :] = prior.transpose(0, 2, 1)
        W = self.whitened_basis(Z)
        J += self._quad(W, W).reshape(p, d, p, d)
        J = 0.5 * (J + J.transpose(2, 3, 0, 1))
        return self.scale2 * J

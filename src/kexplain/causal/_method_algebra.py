"""The algebra of BayesIMP's three methods: the fitted stages' moments and the covariance parts.

The mix-in under :class:`~kexplain.causal.BayesIMP`: ``_prepare`` turns the fitted stage 1 (the
embedding of D1), the stage-2 model of f on D2 and the nuclear dominant kernel on the landmarks
into the few vectors and numbers each method needs (``"imp"``: m_f(Y) and Cov f(Y);
``"bayesime"``: the kernel ridge coefficients' B and C of thesis Prop. 4.3.3; ``"bayesimp"``: the
moments of the two independent GPs at the landmarks, thesis appendix B.3.6), and ``_parts`` gives
the mean and the covariance's components at query treatments from them.  The module docstring of
``bayesimp`` states the three methods' formulas.  BayesIMP (``bayesimp.py``) adds the
parameters, their checks, ``fit`` and its marginal likelihoods and the public methods; this part
names no module of it, so it lives apart.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.linalg import cho_solve

from ..embeddings.gram import rbf
from ..embeddings.ridge import gp_cholesky as _chol


class _MethodAlgebra:
    """What BayesIMP's ``fit`` prepares per method, and the mean and covariance parts at queries."""

    # what BayesIMP.fit sets before it calls _prepare
    method: str
    stage1_: Any
    Y_: np.ndarray
    Y2_: np.ndarray
    T_: np.ndarray
    Xi_: np.ndarray
    lengthscale_y_: np.ndarray
    amplitude_: float
    noise_: float
    _R: np.ndarray

    def _prepare(self) -> None:
        N = self.Y_.shape[0]
        ly, a, s2, T = self.lengthscale_y_, self.amplitude_, self.noise_, self.T_
        R = self._R
        cR = _chol(R[:N, :N])
        # embedding mean in y: m_mu(x, .) = beta(x)^T K_yy R_yy^-1 r(Y, .)
        Kyy = rbf(self.Y_, self.Y_, ly)
        if self.method == "imp":
            K2 = rbf(self.Y2_, self.Y2_, ly)
            K12 = rbf(self.Y_, self.Y2_, ly)
            c2 = _chol(a * K2 + s2 * np.eye(K2.shape[0]))
            self._w = a * K12 @ cho_solve(c2, T, check_finite=False)  # m_f(Y): mean = beta^T w
            Cf = a * Kyy - a * a * K12 @ cho_solve(c2, K12.T, check_finite=False)  # Cov f(Y)
            self._Cf = 0.5 * (Cf + Cf.T)
            return
        if self.method == "bayesime":
            K2 = rbf(self.Y2_, self.Y2_, ly)
            A = cho_solve(_chol(K2 + (s2 / a) * np.eye(K2.shape[0])), T, check_finite=False)
            rA = R[:N, N:] @ A  # r(Y, Y2) A
            self._w = Kyy @ cho_solve(cR, rA, check_finite=False)
            self._Bc = float(A @ R[N:, N:] @ A)
            self._Cc = float(rA @ cho_solve(cR, rA, check_finite=False))
            return
        # bayesimp: f ~ GP(0, a r) on D2, both at the landmarks xi = [Y; Y2]
        R2 = R[N:, N:]
        c2 = _chol(a * R2 + s2 * np.eye(R2.shape[0]))
        m_f = a * R[:, N:] @ cho_solve(c2, T, check_finite=False)
        S_f = a * R - a * a * R[:, N:] @ cho_solve(c2, R[N:, :], check_finite=False)
        cK = _chol(rbf(self.Xi_, self.Xi_, ly))
        u = cho_solve(cK, m_f, check_finite=False)
        # m_mu(x, xi) = R_xiY R_YY^-1 K_YY beta(x) = P beta(x), P: (L, N)
        P = R[:, :N] @ cho_solve(cR, Kyy, check_finite=False)
        Sm = R[:, :N] @ cho_solve(cR, R[:N, :], check_finite=False)  # R_xiY R_YY^-1 R_Yxi
        W = cho_solve(cK, S_f, check_finite=False)
        W = cho_solve(cK, W.T, check_finite=False)  # K^-1 S_f K^-1
        self._w = P.T @ u
        self._u_R_u, self._u_S_u = float(u @ R @ u), float(u @ Sm @ u)
        D2 = P.T @ W @ P
        self._D2 = 0.5 * (D2 + D2.T)  # (N, N): D2 = beta^T (P^T K^-1 S_f K^-1 P) beta
        self._tr_a, self._tr_b = float(np.sum(W * R)), float(np.sum(W * Sm))

    def _parts(self, xa: np.ndarray, xb: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        st = self.stage1_
        pa = st.phi(xa)
        ba = st.beta(pa)
        mean = ba.T @ self._w
        bb, pb, xb_ = (ba, pa, xa) if xb is None else (st.beta(st.phi(xb)), st.phi(xb), xb)
        if self.method == "imp":
            return mean, ba, {"D2": ba.T @ self._Cf @ bb}
        F = st.F(xa, xb_)
        G = pa.T @ bb
        if self.method == "bayesime":
            return mean, ba, {"D1": self._Bc * F - self._Cc * G}
        return (
            mean,
            ba,
            {
                "D1": self._u_R_u * F - self._u_S_u * G,
                "D2": ba.T @ self._D2 @ bb,
                "interaction": self._tr_a * F - self._tr_b * G,
            },
        )

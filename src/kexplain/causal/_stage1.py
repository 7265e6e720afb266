"""Stage 1 of the interventional mean embeddings: the features Omega_x of Singh, Xu & Gretton (2020).

The interventional mean embedding of p(Y | do(X) = x) from rows (x_i, z_i, y_i), i = 1..N, is
(Chau's thesis, 2023, Proposition 4.2.1, with the kexplain ridge convention N * lambda)

    mu_{Y|do(x)} = sum_i beta_i(x) l(y_i, .),     beta(x) = (K_Omega + N lambda I)^-1 phi(x),

where, for the three adjustments,

- none:       K_Omega = K_xx,           phi(x) = k_x(X, x)
- backdoor:   K_Omega = K_xx o K_zz,    phi(x) = k_x(X, x) o K_zz 1 / N          (mu_Z empirical)
- front-door: K_Omega = K_xx o K_zz,    phi(x) = K_xx 1 / N o K_zz beta_z(x)     (mu_X, mu_{Z|X=x})

with beta_z(x) = (K_xx + N lambda I)^-1 k_x(X, x) the CME of Z given X.  ``F(x, x')`` is the inner
product of the two feature-space points Omega_x, Omega_x' (the prior covariance of the Bayesian
embedding) and ``G(x, x') = phi(x)^T beta(x')``.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import cho_solve

from ..embeddings.gram import rbf
from ..embeddings.ridge import gp_cholesky as _chol


class Stage1:
    """Features, weights and the F, G matrices of the interventional embedding (see module docstring)."""

    def __init__(
        self,
        X: np.ndarray,
        Z: np.ndarray | None,
        adjustment: str | None,
        ls_x: np.ndarray,
        ls_z: np.ndarray | None,
        lam: float,
    ) -> None:
        self.X, self.Z, self.adjustment, self.ls_x, self.ls_z = X, Z, adjustment, ls_x, ls_z
        N = X.shape[0]
        self.ridge = N * lam
        self.Kx = rbf(X, X, ls_x)
        K = self.Kx
        if adjustment is not None:
            assert Z is not None and ls_z is not None
            self.Kz = rbf(Z, Z, ls_z)
            K = self.Kx * self.Kz
            self.mu_z = self.Kz.mean(axis=1)  # K_zz 1 / N
            self.mu_x = self.Kx.mean(axis=1)
            self.cx = _chol(self.Kx + self.ridge * np.eye(N))
        self.K = K
        self.c = _chol(K + self.ridge * np.eye(N))

    def _beta_z(self, xq: np.ndarray) -> np.ndarray:
        return cho_solve(self.cx, rbf(self.X, xq, self.ls_x), check_finite=False)

    def phi(self, xq: np.ndarray) -> np.ndarray:
        """(N, q) cross-features phi(x) for the query treatments."""
        kx = rbf(self.X, xq, self.ls_x)
        if self.adjustment is None:
            return kx
        if self.adjustment == "backdoor":
            return kx * self.mu_z[:, None]
        return self.mu_x[:, None] * (self.Kz @ self._beta_z(xq))

    def beta(self, phi: np.ndarray) -> np.ndarray:
        """(N, q) embedding weights beta(x) = (K_Omega + N lambda I)^-1 phi(x)."""
        return cho_solve(self.c, phi, check_finite=False)

    def F(self, xa: np.ndarray, xb: np.ndarray) -> np.ndarray:
        """(qa, qb) inner products <Omega_x, Omega_x'> of the feature-space points."""
        kab = rbf(xa, xb, self.ls_x)
        if self.adjustment is None:
            return kab
        if self.adjustment == "backdoor":
            return kab * float(self.Kz.mean())
        return float(self.Kx.mean()) * (self._beta_z(xa).T @ self.Kz @ self._beta_z(xb))

"""The log marginal likelihood of a deconditional GP, on bag sums of the kernel: its value (the
collapsed ELBO for ``estimator="variational"``) and gradient in the log-hyperparameters, the
posterior it leaves (the weights ``predict`` reads) and the uncollapsed ELBO of a variational fit.
A mix-in of ``DeconditionalGPRegressor``, which ``kexplain.embeddings.deconditional`` assembles
(see there for the model and its estimators; its checks of the data, ``fit`` and ``predict`` live
there)."""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.linalg import cho_solve, solve_triangular
from sklearn.utils.validation import check_is_fitted

from .gram import rbf
from .ridge import cholesky_logdet as _logdet
from .ridge import gp_cholesky as _chol


def _sqdist(A: np.ndarray, B: np.ndarray, ls: np.ndarray) -> np.ndarray:
    """Squared distances of the rows scaled by ``ls`` (for the lengthscale gradients)."""
    from sklearn.metrics.pairwise import euclidean_distances

    return euclidean_distances(A / ls, B / ls, squared=True)


def _bag_sums(M: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Column sums of M over the (sorted, contiguous) bags: (r, n) -> (r, B)."""
    return np.add.reduceat(M, starts, axis=1)


class DeconditionalLikelihood:
    """The likelihood, posterior and ELBO of a deconditional GP (a mix-in of ``DeconditionalGPRegressor``)."""

    # set by DeconditionalGPRegressor.fit
    estimator: str
    regularization: Any
    X_train_: np.ndarray
    counts_: np.ndarray
    starts_: np.ndarray
    mediator_: np.ndarray | None
    target_mediator_: np.ndarray | None
    inducing_points_: np.ndarray | None
    _z: np.ndarray
    _p: int
    _opt_lam: bool
    _cache: dict[Any, np.ndarray]

    def _unpack(self, theta: np.ndarray) -> tuple[np.ndarray, float, float, np.ndarray | None, float]:
        p = self._p
        t = np.exp(theta)
        if self.mediator_ is None:
            return t[:p], float(t[p]), float(t[p + 1]), None, 0.0
        if self._opt_lam:
            return t[:p], float(t[p]), float(t[p + 1]), t[p + 2 : -1], float(t[-1])
        return t[:p], float(t[p]), float(t[p + 1]), t[p + 2 :], float(self.regularization)

    def _G(self, lsy: np.ndarray | None, lam: float) -> np.ndarray:
        """The (B, M) matrix G with A = P G: k(x, x) A = (bag sums of k(x, x)) G."""
        c = self.counts_
        if self.mediator_ is None:
            return np.diag(1.0 / c)
        L = rbf(self.mediator_, self.mediator_, lsy)
        Lt = rbf(self.mediator_, self.target_mediator_, lsy)
        B = c.size
        if self.estimator == "shrinkage":
            return (1.0 / c)[:, None] * cho_solve(_chol(L + B * lam * np.eye(B)), Lt, check_finite=False)
        d = np.sqrt(c)
        n = float(c.sum())
        Mx = d[:, None] * L * d[None, :] + n * lam * np.eye(B)
        return (1.0 / d)[:, None] * cho_solve(_chol(Mx), d[:, None] * Lt, check_finite=False)

    def _S0(self, ls: np.ndarray) -> np.ndarray:
        key = ("S", ls.tobytes())
        if key not in self._cache:
            K = rbf(self.X_train_, self.X_train_, ls)
            Sb = _bag_sums(K, self.starts_)
            self._cache[key] = _bag_sums(np.ascontiguousarray(Sb.T), self.starts_)
        return self._cache[key]

    def _dS0(self, ls: np.ndarray) -> list[np.ndarray]:
        """Bag sums of dK/dlog(lengthscale_k), one (B, B) matrix per lengthscale."""
        key = ("dS", ls.tobytes())
        if key not in self._cache:
            X = self.X_train_
            K = rbf(X, X, ls)
            cols = [slice(None)] if ls.size == 1 else [slice(k, k + 1) for k in range(ls.size)]
            out = []
            for k, sl in enumerate(cols):
                dk = _sqdist(X[:, sl], X[:, sl], ls[k : k + 1] if ls.size > 1 else ls)
                Sb = _bag_sums(K * dk, self.starts_)
                out.append(_bag_sums(np.ascontiguousarray(Sb.T), self.starts_))
            self._cache[key] = np.stack(out)
        return list(self._cache[key])

    def _objective_grad(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        """Negative log marginal likelihood and its gradient (exact and shrinkage estimators).

        Analytic in the input lengthscales, amplitude and noise; central differences (on the cheap
        bag-level algebra only) in the mediator lengthscales.
        """
        f = self._objective(theta)
        if not np.isfinite(f):
            return f, np.zeros_like(theta)
        ls, amp, noise, lsy, lam = self._unpack(theta)
        G = self._G(lsy, lam)
        z = self._z
        M = z.size
        Q = amp * (G.T @ self._S0(ls) @ G)
        c = _chol(Q + noise * np.eye(M))
        alpha = cho_solve(c, z, check_finite=False)
        Wm = cho_solve(c, np.eye(M), check_finite=False) - np.outer(alpha, alpha)
        p = self._p
        grad = np.zeros_like(theta)
        GWG = G @ Wm @ G.T
        for k, dS in enumerate(self._dS0(ls)):
            grad[k] = 0.5 * amp * float(np.sum(GWG * dS))
        grad[p] = 0.5 * float(np.sum(Wm * Q))
        grad[p + 1] = 0.5 * noise * float(np.trace(Wm))
        h = 1e-6
        for k in range(p + 2, theta.size):
            e = np.zeros_like(theta)
            e[k] = h
            grad[k] = (self._objective(theta + e) - self._objective(theta - e)) / (2 * h)
        return f, grad

    def _Kbw0(self, ls: np.ndarray) -> np.ndarray:
        key = ("W", ls.tobytes())
        if key not in self._cache:
            W = self.inducing_points_
            self._cache[key] = _bag_sums(np.ascontiguousarray(rbf(W, self.X_train_, ls)), self.starts_).T
        return self._cache[key]

    def _objective(self, theta: np.ndarray) -> float:
        """Negative log marginal likelihood (negative collapsed ELBO for "variational")."""
        try:
            ls, amp, noise, lsy, lam = self._unpack(theta)
            G = self._G(lsy, lam)
            z = self._z
            M = z.size
            Q = amp * (G.T @ self._S0(ls) @ G)
            if self.estimator != "variational":
                c = _chol(Q + noise * np.eye(M))
                alpha = cho_solve(c, z, check_finite=False)
                return float(0.5 * z @ alpha + 0.5 * _logdet(c) + 0.5 * M * np.log(2 * np.pi))
            W = self.inducing_points_
            Kww = rbf(W, W, ls, amp)
            Psi = amp * (G.T @ self._Kbw0(ls))  # (M, m) = A^T K_xw
            cw = _chol(Kww)
            V = solve_triangular(cw[0], Psi.T, lower=True, check_finite=False)  # (m, M)
            Qn = V.T @ V
            c = _chol(Qn + noise * np.eye(M))
            alpha = cho_solve(c, z, check_finite=False)
            nll = 0.5 * z @ alpha + 0.5 * _logdet(c) + 0.5 * M * np.log(2 * np.pi)
            return float(nll + 0.5 * (np.trace(Q) - np.trace(Qn)) / noise)
        except (np.linalg.LinAlgError, FloatingPointError, ValueError):
            return float("inf")

    def _posterior(self, theta: np.ndarray) -> None:
        ls, amp, noise, lsy, lam = self._unpack(theta)
        self.lengthscale_ = ls if ls.size > 1 else float(ls[0])
        self.amplitude_, self.noise_ = amp, noise
        self.mediator_lengthscale_ = None if lsy is None else (lsy if lsy.size > 1 else float(lsy[0]))
        self.regularization_ = lam
        G = self._G(lsy, lam)
        z = self._z
        M = z.size
        S0 = self._S0(ls)
        Q = amp * (G.T @ S0 @ G)
        self._G_ = G
        if self.estimator != "variational":
            self._c = _chol(Q + noise * np.eye(M))
            self._w = G @ cho_solve(self._c, z, check_finite=False)  # mean = k_b(x) w
            return
        W = self.inducing_points_
        Kww = rbf(W, W, ls, amp)
        Psi = amp * (G.T @ self._Kbw0(ls))
        Lam = Kww + Psi.T @ Psi / noise
        self._cw, self._cl = _chol(Kww), _chol(Lam)
        v = cho_solve(self._cl, Psi.T @ z, check_finite=False) / noise
        self._w = v  # mean = K_*w v
        self.q_mean_ = Kww @ v
        self.q_cov_ = Kww @ cho_solve(self._cl, Kww, check_finite=False)
        self._Psi, self._Kww, self._trQ = Psi, Kww, float(np.trace(Q))

    def elbo(self, q_mean: Any = None, q_cov: Any = None) -> float:
        """The evidence lower bound (thesis eq. A.70) of a variational fit for q(u) = N(q_mean, q_cov).

        Parameters
        ----------
        q_mean : array of shape (m,), optional
            Mean of q(u) on the inducing inputs; default the fitted (optimal) ``q_mean_``.
        q_cov : array of shape (m, m), optional
            Covariance of q(u); default ``q_cov_``.

        Returns
        -------
        float
            The ELBO in the normalised target scale, at the fitted hyperparameters; at the optimal q
            it equals ``log_marginal_likelihood_value_`` (the collapsed bound).

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.embeddings.deconditional import DeconditionalGPRegressor
        >>> X = np.linspace(0, 1, 12)[:, None]
        >>> gp = DeconditionalGPRegressor("variational", lengthscale=0.2, n_inducing=5, random_state=0, optimize=False)
        >>> gp = gp.fit(X, np.arange(4.0), bags=np.repeat(np.arange(4), 3))
        >>> bool(abs(gp.elbo() - gp.log_marginal_likelihood_value_) < 1e-6)
        True
        """
        check_is_fitted(self)
        if self.estimator != "variational":
            raise ValueError(f"elbo is defined for estimator='variational' only; this one is {self.estimator!r}.")
        eta = self.q_mean_ if q_mean is None else np.asarray(q_mean, dtype=np.float64)
        Sig = self.q_cov_ if q_cov is None else np.asarray(q_cov, dtype=np.float64)
        Kww, Psi, noise, z = self._Kww, self._Psi, self.noise_, self._z
        m, M = Kww.shape[0], z.size
        cw = self._cw
        Bm = cho_solve(cw, Psi.T, check_finite=False)  # Kww^-1 Psi^T
        # A^T Sigma_bar A = Q - Psi Kww^-1 Psi^T + Psi Kww^-1 Sigma Kww^-1 Psi^T ; A^T eta_bar = Psi Kww^-1 eta
        tr = self._trQ - np.trace(Psi @ Bm) + np.trace(Bm.T @ Sig @ Bm)
        r = z - Bm.T @ eta
        ell = -0.5 * M * np.log(2 * np.pi * noise) - 0.5 * (tr + r @ r) / noise
        cs = _chol(Sig)
        kl = 0.5 * (
            np.trace(cho_solve(cw, Sig, check_finite=False))
            + eta @ cho_solve(cw, eta, check_finite=False)
            - m
            + _logdet(cw)
            - _logdet(cs)
        )
        return float(ell - kl)

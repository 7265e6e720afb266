"""Fitting an OAK model: the additive kernel, the marginal likelihood and the posterior.

The kernel is k(x, x') = sum_{q=0}^{Q} sigma_q^2 e_q(k~_1(x_1, x'_1), ..., k~_d(x_d, x'_d)) with k~_j the
constrained base kernels (``kernels.py``) and e_q the elementary symmetric polynomials, built by the
stable recursion e_q <- e_q + k~_j e_{q-1} ("Exact Shapley Value for Local and Global Explanation of
Additive Gaussian Processes", section 2.2).

Training is plain numpy/scipy: the negative log marginal likelihood and its analytic gradient
(derivatives in the order variances are the e_q matrices themselves; the derivative in a lengthscale
needs sum_q sigma_q^2 e_{q-1}(k~ without j), the leave-one-out sums of the additive-game solver, i.e.
its total index with the kernel's derivative as leading factor) are minimised with L-BFGS-B.  No
torch: at the sizes exact GPs reach (n of a few thousand) the cost is the Cholesky factorisation,
which LAPACK does as well.  The sparse mode is the DTC / projected-process posterior mean over
inducing points.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import linalg, optimize
from sklearn.utils.validation import check_scalar

from .._validation import check_bool
from ..shapley.additive import DenseAdditiveGame, elementary_symmetric, solve_additive_game
from .kernels import ConstrainedCategorical, ConstrainedEmpiricalRBF, ConstrainedGaussianRBF, ConstrainedKernel

MEASURES = ("gaussian", "empirical")
#: bound, in bytes, for the temporaries of kernel blocks
BLOCK_BYTES = 64 * 2**20

# log-space bounds of the hyperparameters (targets are standardised, inputs roughly unit scale)
_LOG_L = (np.log(1e-2), np.log(1e3))
_LOG_VAR = (np.log(1e-8), np.log(1e3))
_LOG_NOISE = (np.log(1e-6), np.log(10.0))
#: marginal likelihood returned where the kernel matrix is not positive definite
_FAILED = 1e25


def _check_count(value: Any, name: str, min_val: int) -> None:
    """scikit-learn's ``check_scalar`` for an integer, refusing booleans (True is not a count)."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer >= {min_val}, got {value!r}.")
    check_scalar(value, name, (int, np.integer), min_val=min_val)


def check_params(est: Any, d: int) -> int:
    """Validate an OAKRegressor's parameters for d features; returns the interaction order Q."""
    if est.input_measure not in MEASURES:
        raise ValueError(f"input_measure must be one of {MEASURES}, got {est.input_measure!r}.")
    check_bool(est.normalize_inputs, "normalize_inputs")
    _check_count(est.max_iter, "max_iter", 0)
    _check_count(est.n_restarts, "n_restarts", 0)
    if est.n_inducing is not None:
        _check_count(est.n_inducing, "n_inducing", 1)
    Q = est.max_interaction_order
    if Q is None:
        return d
    _check_count(Q, "max_interaction_order", 1)
    if Q > d:
        raise ValueError(f"max_interaction_order={Q} is above the number of features ({d}); it accepts 1..{d} or None.")
    return int(Q)


def base_kernels(Z: np.ndarray, mask: np.ndarray, categories: Sequence[Any], measure: str) -> list[ConstrainedKernel]:
    """One constrained base kernel per encoded feature: category frequencies, N(mean, std^2) or the data."""
    bases: list[ConstrainedKernel] = []
    for j in range(Z.shape[1]):
        if mask[j]:
            probs = np.bincount(Z[:, j].astype(int), minlength=len(categories[j])) / Z.shape[0]
            bases.append(ConstrainedCategorical(probs))
        elif measure == "gaussian":
            bases.append(ConstrainedGaussianRBF(Z[:, j].mean(), Z[:, j].std()))
        else:
            bases.append(ConstrainedEmpiricalRBF(Z[:, j]))
    return bases


def feature_kernels(bases: Sequence[ConstrainedKernel], A: np.ndarray, B: np.ndarray, ls: np.ndarray) -> np.ndarray:
    """Constrained kernel matrices k~_j(A_j, B_j), stacked to (len A, len B, d) over feature-leading memory."""
    z = np.stack([b.k(A[:, j], B[:, j], ls[j]) for j, b in enumerate(bases)])
    return np.moveaxis(z, 0, -1)


def additive_kernel(
    bases: Sequence[ConstrainedKernel], A: np.ndarray, B: np.ndarray, ls: np.ndarray, s2: np.ndarray
) -> np.ndarray:
    """Additive kernel matrix sum_q s2[q] e_q(k~), in row blocks to bound memory."""
    d = A.shape[1]
    Q = s2.shape[0] - 1
    per_row = 8 * max(1, B.shape[0]) * (d + Q + 2) * 2
    step = max(1, BLOCK_BYTES // per_row)
    out = np.empty((A.shape[0], B.shape[0]))
    for a0 in range(0, A.shape[0], step):
        sl = slice(a0, a0 + step)
        out[sl] = elementary_symmetric(feature_kernels(bases, A[sl], B, ls), Q) @ s2
    return out


def additive_kernel_diag(
    bases: Sequence[ConstrainedKernel], A: np.ndarray, ls: np.ndarray, s2: np.ndarray
) -> np.ndarray:
    """k(a, a) for each row a of A."""
    kd = np.stack([b.diag(A[:, j], ls[j]) for j, b in enumerate(bases)], axis=-1)
    return elementary_symmetric(kd, s2.shape[0] - 1) @ s2


class MarginalLikelihood:
    """Negative log marginal likelihood of an OAK model in log hyperparameters, with its gradient.

    theta = (log lengthscales of the features that have one, log sigma_0^2..sigma_Q^2, log noise).

    Parameters
    ----------
    bases : sequence of constrained kernels
    order : int
        Q, the highest interaction order.
    scales : ndarray of shape (d,)
        Typical scale of each encoded feature (initial lengthscales and their bounds).
    """

    def __init__(self, bases: Sequence[ConstrainedKernel], order: int, scales: np.ndarray) -> None:
        self.bases = list(bases)
        self.order = int(order)
        self.has_l = np.array([b.has_lengthscale for b in self.bases], dtype=bool)
        self.scales = np.asarray(scales, dtype=np.float64)

    def unpack(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        """(lengthscales (1 where there is none), order variances, noise variance)."""
        ls = np.ones(len(self.bases))
        nl = int(self.has_l.sum())
        ls[self.has_l] = np.exp(theta[:nl])
        s2 = np.exp(theta[nl : nl + self.order + 1])
        return ls, s2, float(np.exp(theta[-1]))

    def __call__(self, theta: np.ndarray, Z: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
        """(negative log marginal likelihood, its gradient in theta) on encoded rows Z and targets y."""
        ls, s2, noise = self.unpack(theta)
        n, d = Z.shape
        Q = self.order
        Kt = feature_kernels(self.bases, Z, Z, ls)  # (n, n, d)
        E = elementary_symmetric(Kt, Q)  # (n, n, Q + 1)
        K = E @ s2
        K[np.diag_indices_from(K)] += noise
        try:
            L = linalg.cholesky(K, lower=True)
        except linalg.LinAlgError:
            return _FAILED, np.zeros_like(theta)
        alpha = linalg.cho_solve((L, True), y)
        nll = 0.5 * y @ alpha + np.log(np.diag(L)).sum() + 0.5 * n * np.log(2 * np.pi)
        W = np.outer(alpha, alpha) - linalg.cho_solve((L, True), np.eye(n))
        grad = np.empty_like(theta)
        nl = int(self.has_l.sum())
        # order variances: dK/dlog s2_q = s2_q e_q
        grad[nl : nl + Q + 1] = -0.5 * s2 * np.einsum("ab,abq->q", W, E)
        grad[-1] = -0.5 * noise * np.trace(W)
        if nl:
            # lengthscales: dK/dlog l_j = (sum_q s2_q e_{q-1}(k~ without j)) * dk~_j/dlog l_j, summed
            # against W over the upper triangle (W and K are symmetric): the total index of the
            # additive game with the derivative as leading factor
            iu = np.triu_indices(n)
            mult = np.where(iu[0] == iu[1], 1.0, 2.0)
            dK = np.zeros((len(iu[0]), d))
            for j, b in enumerate(self.bases):
                if self.has_l[j]:
                    dK[:, j] = b.dk_dlog_l(Z[:, j], Z[:, j], ls[j])[iu]
            game = DenseAdditiveGame(Kt[iu][None], (W[iu] * mult)[:, None], s2, y=dK[None])
            res = solve_additive_game(game, index="total")
            grad[:nl] = -0.5 * res.values[0, self.has_l, 0]
        return float(nll), grad

    def initial(self, rng: np.random.RandomState | None = None) -> np.ndarray:
        """The default starting point, or a random one drawn with ``rng``."""
        nl = int(self.has_l.sum())
        if rng is None:
            log_l = np.log(self.scales[self.has_l])
            log_s2 = np.log(np.r_[1.0, np.full(self.order, 0.5)])
            log_noise = np.log(0.1)
        else:
            log_l = np.log(self.scales[self.has_l]) + rng.uniform(-1.0, 1.5, nl)
            log_s2 = rng.uniform(np.log(0.05), np.log(2.0), self.order + 1)
            log_noise = rng.uniform(np.log(1e-3), np.log(0.5))
        return np.r_[log_l, log_s2, log_noise]

    def bounds(self) -> list[tuple[float, float]]:
        """Box bounds of theta for L-BFGS-B."""
        bl = [(_LOG_L[0] + np.log(s), _LOG_L[1] + np.log(s)) for s in self.scales[self.has_l]]
        return bl + [_LOG_VAR] * (self.order + 1) + [_LOG_NOISE]

    def minimise(
        self, Z: np.ndarray, y: np.ndarray, rng: np.random.RandomState, max_iter: int, n_restarts: int
    ) -> tuple[float, np.ndarray, int]:
        """(best negative log marginal likelihood, its theta, L-BFGS-B iterations of that start)."""
        starts = [self.initial()] + [self.initial(rng) for _ in range(int(n_restarts))]
        best: tuple[float, np.ndarray, int] | None = None
        for theta0 in starts:
            if max_iter == 0:
                cand = (self(theta0, Z, y)[0], theta0, 0)
            else:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    res = optimize.minimize(
                        self,
                        theta0,
                        args=(Z, y),
                        jac=True,
                        method="L-BFGS-B",
                        bounds=self.bounds(),
                        options={"maxiter": int(max_iter)},
                    )
                cand = (float(res.fun), res.x, max(1, int(res.nit)))
            if best is None or cand[0] < best[0]:
                best = cand
        assert best is not None
        if best[0] >= _FAILED:
            raise np.linalg.LinAlgError(
                "the OAK kernel matrix was not positive definite at any hyperparameter tried; "
                "check X for duplicated constant columns."
            )
        return best


def posterior(
    bases: Sequence[ConstrainedKernel],
    Z: np.ndarray,
    ys: np.ndarray,
    ls: np.ndarray,
    s2: np.ndarray,
    noise: float,
    n_inducing: int | None,
    rng: np.random.RandomState,
) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, ...]]:
    """(support points, posterior mean weights, Cholesky factors for the variance), exact or sparse."""
    if n_inducing is None:
        L, alpha = exact_posterior(additive_kernel(bases, Z, Z, ls, s2), ys, noise)
        return Z, alpha, (L,)
    S = Z[np.sort(rng.choice(Z.shape[0], n_inducing, replace=False))]
    Lmm, LA, alpha = sparse_posterior(bases, S, Z, ys, ls, s2, noise)
    return S, alpha, (Lmm, LA)


def exact_posterior(K: np.ndarray, y: np.ndarray, noise: float) -> tuple[np.ndarray, np.ndarray]:
    """(Cholesky factor of K + noise I, its solve against y): the exact GP posterior mean weights."""
    K = K.copy()
    K[np.diag_indices_from(K)] += noise
    L = linalg.cholesky(K, lower=True)
    return L, linalg.cho_solve((L, True), y)


def sparse_posterior(
    bases: Sequence[ConstrainedKernel],
    S: np.ndarray,
    Z: np.ndarray,
    ys: np.ndarray,
    ls: np.ndarray,
    s2: np.ndarray,
    noise: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """DTC / projected-process posterior over inducing points S: (L_mm, L_A, alpha)."""
    m = S.shape[0]
    Kmm = additive_kernel(bases, S, S, ls, s2)
    Kmm[np.diag_indices_from(Kmm)] += 1e-8 * max(1.0, np.trace(Kmm) / m)
    A = noise * Kmm
    b = np.zeros(m)
    step = max(1, BLOCK_BYTES // (8 * m * (Z.shape[1] + s2.shape[0] + 2) * 2))
    for r0 in range(0, Z.shape[0], step):
        Kmn = additive_kernel(bases, S, Z[r0 : r0 + step], ls, s2)
        A += Kmn @ Kmn.T
        b += Kmn @ ys[r0 : r0 + step]
    Lmm = linalg.cholesky(Kmm, lower=True)
    LA = linalg.cholesky(A, lower=True)
    return Lmm, LA, linalg.cho_solve((LA, True), b)


def latent_variance(kdiag: np.ndarray, Kxs: np.ndarray, factors: Any, noise: float) -> np.ndarray:
    """Posterior variance of the latent f from the exact (one factor) or sparse (two) posterior."""
    if len(factors) == 1:
        v = linalg.solve_triangular(factors[0], Kxs.T, lower=True)
        var = kdiag - (v**2).sum(axis=0)
    else:
        v1 = linalg.solve_triangular(factors[0], Kxs.T, lower=True)
        v2 = linalg.solve_triangular(factors[1], Kxs.T, lower=True)
        var = kdiag - (v1**2).sum(axis=0) + noise * (v2**2).sum(axis=0)
    return np.clip(var, 0.0, None)

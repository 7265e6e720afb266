"""The posterior variance of a Gaussian process at hybrid points, as a product game over row pairs.

For a GP posterior (``kexplain.models.GPPosterior``) with prior kernel k_f = sum_t amp_t prod_j
k_tj + constant, training inputs X and precision A, the latent posterior variance at h is

    sigma^2(h) = s^2 [k_f(h, h) - sum_{r, l} C_rl prod_j k_rj(h_j) k_lj(h_j)],

where the rows r = (t, i) are kernel terms at training points (plus one row for the constant,
whose factors are 1), C_{(t, i), (t', i')} = amp_t amp_t' A_ii' (the constant row's weights are
constant * (A 1)_i and constant^2 * 1^T A 1), and k_f(h, h) does not depend on h (every factor is 1
at zero distance).  At a hybrid point h = (x_S, z_{-S}) the factors are k_rj(x_j) k_lj(x_j) for j in
S and k_rj(z_j) k_lj(z_j) otherwise, so

    v(S) = E_z sigma^2(x_S, z_{-S}) = s^2 k_f(h, h) - s^2 sum_b w_b sum_{r, l} C_rl
           prod_{j in S} k_rj(x_j) k_lj(x_j) prod_{j not in S} k_rj(z_bj) k_lj(z_bj)

is a constant plus a product game with one row per (background row b, pair r <= l) (weight 2 off
the diagonal, as the pair (l, r) contributes the same): its Shapley values are exact.  A noise
variance added to every coalition (the noisy observation y = f + noise) moves the base value and
the prediction, never the Shapley values.
"""

from __future__ import annotations

import numpy as np

from ..kernels.base import Kernel, kernel_terms, term_amplitude
from ..models.posterior import GPPosterior


def covariance_rows(post: GPPosterior) -> tuple[list[tuple[Kernel | None, np.ndarray]], np.ndarray]:
    """Rows of the posterior covariance's quadratic part and their symmetric weight matrix C.

    Returns ``groups`` (a list of (kernel term or None for the constant, support points)) and
    C (R, R) with the amplitudes and the constant folded in (without ``scale``).

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> post = kx.models.GPPosterior(np.zeros((2, 1)), kx.kernels.RBF(1.0), [1.0, 1.0], np.eye(2), constant=0.5)
    >>> groups, C = covariance_rows(post)
    >>> len(groups), C
    (2, array([[1. , 0. , 0.5],
           [0. , 1. , 0.5],
           [0.5, 0.5, 0.5]]))
    """
    terms = kernel_terms(post.kernel)
    amps = np.array([term_amplitude(t) for t in terms])
    X = np.asarray(post.X_train)
    A = np.asarray(post.precision_matrix(), dtype=np.float64)  # the pair game needs A itself as weights
    n = X.shape[0]
    groups: list[tuple[Kernel | None, np.ndarray]] = [(t, X) for t in terms]
    blocks = [[amps[a] * amps[b] * A for b in range(len(terms))] for a in range(len(terms))]
    if post.constant > 0:
        groups.append((None, X[:1]))
        col = post.constant * (A @ np.ones(n))
        for a in range(len(terms)):
            blocks[a].append((amps[a] * col)[:, None])
        blocks.append([(amps[b] * col)[None, :] for b in range(len(terms))] + [np.array([[post.constant * col.sum()]])])
    C = np.block(blocks)
    return groups, 0.5 * (C + C.T)


def group_factors(groups: list[tuple[Kernel | None, np.ndarray]], X: np.ndarray) -> np.ndarray:
    """Per-feature factors of every row at the points X, shape (len(X), R, d) (1 for the constant row)."""
    parts = [
        np.ones((X.shape[0], 1, X.shape[1])) if t is None else np.asarray(t.feature_values(X, Y), dtype=np.float64)
        for t, Y in groups
    ]
    return np.concatenate(parts, axis=1)


class PosteriorVarianceGame:
    """sigma^2 at hybrid points of explained rows and background rows, as a ``ProductGame``.

    Rows are (background row b, pair r <= l), b-major; the constant s^2 k_f(h, h) is not part of
    the game (``constant`` holds it).

    Parameters
    ----------
    post : GPPosterior
    X : ndarray (N, d)
        Explained rows (validated).
    Z : ndarray (B, d)
        Background rows (one row for the baseline game).
    w : ndarray (B,)
        Background weights summing to one.
    """

    def __init__(self, post: GPPosterior, X: np.ndarray, Z: np.ndarray, w: np.ndarray) -> None:
        self.groups, C = covariance_rows(post)
        R = C.shape[0]
        self.iu, self.ju = np.triu_indices(R)
        s2 = post.scale**2
        self.pair_weight = -s2 * C[self.iu, self.ju] * np.where(self.iu == self.ju, 1.0, 2.0)
        self.n_pairs = int(self.iu.shape[0])
        self.X, self.w = X, w
        Fz = group_factors(self.groups, Z)  # (B, R, d)
        self.Fz = Fz
        self.n_points = int(X.shape[0])
        self.n_rows = int(Z.shape[0]) * self.n_pairs
        self.n_features = int(X.shape[1])
        self.n_outputs = 1
        self.row_alignment = self.n_pairs
        self.constant = s2 * (post.kernel.diag_value() + post.constant)
        self._cache: tuple[slice, np.ndarray] | None = None

    def _point_factors(self, points: slice) -> np.ndarray:
        if self._cache is None or self._cache[0] != points:
            self._cache = (points, group_factors(self.groups, self.X[points]))
        return self._cache[1]

    def block(self, points: slice, rows: slice) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(a, b, c) for these points and (background row, pair) rows."""
        q = np.arange(rows.start, rows.stop)
        bi, pi = q // self.n_pairs, q % self.n_pairs
        i, k = self.iu[pi], self.ju[pi]
        Fx = self._point_factors(points)
        a = Fx[:, i] * Fx[:, k]
        b = self.Fz[bi, i] * self.Fz[bi, k]
        c = (self.w[bi] * self.pair_weight[pi])[:, None]
        return a, b[None], c

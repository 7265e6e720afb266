"""The posterior covariance of a Gaussian process's Shapley values (stochastic Shapley values).

The values are linear in the latent function, so under the GP posterior they are jointly Gaussian;
:class:`PosteriorCovariance` computes their covariance exactly for the interventional and baseline
games, with the background tables built once per explainer; :func:`summarize_background` replaces
a large background by weighted k-means centres (exact for the summarised game).  The derivation is
in ``kexplain.shapley.stochastic``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._params import Integer, check_param
from ..shapley.routes import BACKGROUND_TABLE_BYTES


def _equality_factors(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Per-feature factors 1[x_k == y_k], shape (len(X), len(Y), d): white noise as a product kernel."""
    return (X[:, None, :] == Y[None, :, :]).astype(np.float64)


class PosteriorCovariance:
    """Exact posterior covariance of the Shapley values of a Gaussian process's latent function.

    For the interventional game over weighted background rows (the baseline game is one row),
    Cov(phi_j(x), phi_l(x')) = scale^2 [prior term - Phi(x)^T A Phi(x')], with the prior term of
    each product term of the kernel from :func:`kexplain.shapley.stochastic.product_covariance`
    and Phi(x) the Shapley values of the games of the functions k(., X_i) from
    :func:`kexplain.shapley.stochastic.row_shapley_values` (module docstring of
    ``kexplain.shapley.stochastic``).  A constant part of the prior kernel gives no Shapley value
    and drops out; the observation noise of ``noisy=True`` is white noise, the product kernel
    noise_variance * prod_k 1[u_k == v_k], so tied values are handled exactly.

    What depends only on the posterior and the background is built on the first call and kept:
    the absent factors of the training rows against the background and, when it takes at most
    ``BACKGROUND_TABLE_BYTES``, the background's table kappa_k(z_bk, z_b'k) per kernel term
    (otherwise recomputed per block of background pairs).

    Parameters
    ----------
    posterior : kexplain.models.GPPosterior
    background : ndarray of shape (B, d)
        Validated background rows.
    weights : ndarray of shape (B,)
        Weights summing to one.
    max_block_bytes : int
        Bound on the work arrays of one block.

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.explainers.posterior_games import PosteriorCovariance
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0]])
    >>> k = kx.kernels.RBF(1.0)
    >>> A = np.linalg.inv(k(X) + 0.1 * np.eye(2))
    >>> post = kx.models.GPPosterior(X, k, A @ np.array([1.0, -1.0]), A)
    >>> pc = PosteriorCovariance(post, np.zeros((1, 2)), np.ones(1))
    >>> C = pc.values_covariance(np.array([[2.0, -1.0]]))
    >>> C.shape, bool(np.isclose(C[0].sum(), pc.difference_variance(np.array([[2.0, -1.0]]))[0]))
    ((1, 2, 2), True)
    """

    def __init__(
        self,
        posterior: Any,
        background: np.ndarray,
        weights: np.ndarray,
        *,
        max_block_bytes: int = 32 * 2**20,
    ) -> None:
        from ..kernels.base import kernel_terms, term_amplitude

        self.posterior = posterior
        self.Z = np.asarray(background)
        self.w = np.asarray(weights, dtype=np.float64)
        self.max_block_bytes = int(max_block_bytes)
        self.terms = kernel_terms(posterior.kernel)
        self.amplitudes = [term_amplitude(t) for t in self.terms]
        self._absent: list[np.ndarray] | None = None
        self._g00_tables: dict[int, np.ndarray] = {}

    # -- tables built once -------------------------------------------------------------------
    def _absent_factors(self) -> list[np.ndarray]:
        """Per term: kappa_k(z_bk, X_ik) as (n, B, d)."""
        if self._absent is None:
            Xt = self.posterior.X_train
            self._absent = [np.ascontiguousarray(t.feature_values(self.Z, Xt).transpose(1, 0, 2)) for t in self.terms]
        return self._absent

    def _factors(self, term: int, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """Unit per-feature factors of one term (``-1``: the white-noise equality kernel)."""
        if term < 0:
            return _equality_factors(X, Y)
        return np.asarray(self.terms[term].feature_values(X, Y), dtype=np.float64)

    def _g00(self, term: int) -> Any:
        """The background's table of one term: an array when small enough, else a block callable."""
        B, d = self.Z.shape
        if 8 * B * B * d <= BACKGROUND_TABLE_BYTES:
            if term not in self._g00_tables:
                self._g00_tables[term] = self._factors(term, self.Z, self.Z)
            return self._g00_tables[term]
        return lambda rs, cs: self._factors(term, self.Z[rs], self.Z[cs])

    # -- the terms ---------------------------------------------------------------------------
    def data_factors(self, X: np.ndarray) -> np.ndarray:
        """Phi(x): Shapley values of the game of each k(., X_i), shape (N, n, d), kernel amplitude included.

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> from kexplain.explainers.posterior_games import PosteriorCovariance
        >>> post = kx.models.GPPosterior(np.zeros((1, 2)), kx.kernels.RBF(1.0), [1.0], [[0.5]])
        >>> Phi = PosteriorCovariance(post, np.zeros((1, 2)), np.ones(1)).data_factors(np.ones((1, 2)))
        >>> np.round(Phi[0, 0], 3)                                  # baseline 0: k(x, 0) - k(0, 0) split
        array([-0.316, -0.316])
        """
        from ..shapley.stochastic import row_shapley_values

        Xt = self.posterior.X_train
        out = np.zeros((X.shape[0], Xt.shape[0], X.shape[1]))
        for term, amp, absent in zip(self.terms, self.amplitudes, self._absent_factors()):
            a = term.feature_values(X, Xt)
            out += amp * row_shapley_values(a, absent, self.w, max_block_bytes=self.max_block_bytes)
        return out

    def _prior(self, X: np.ndarray, Y: np.ndarray | None, noisy: bool) -> np.ndarray:
        """The prior term, (N, d, d) for matched rows (Y None) or (N, d, M, d) for all pairs."""
        from ..shapley.stochastic import product_covariance

        post = self.posterior
        N, d = X.shape
        parts = list(zip(range(len(self.terms)), self.amplitudes))
        if noisy and post.noise_variance > 0:
            parts.append((-1, post.noise_variance))
        same = Y is None
        Yv = X if Y is None else Y
        M = Yv.shape[0]
        out = np.zeros((N, d, d)) if same else np.zeros((N, d, M, d))
        for term, amp in parts:
            gxz = self._factors(term, X, self.Z)  # (N, B, d)
            gyz = gxz if same else self._factors(term, Yv, self.Z)  # (M, B, d)
            g00 = self._g00(term)
            if same:
                g11 = np.stack([self._factors(term, X[i : i + 1], X[i : i + 1])[0, 0] for i in range(N)])
                out += amp * product_covariance(
                    g11, gxz, gxz, g00, self.w, max_block_bytes=self.max_block_bytes, symmetric=True
                )
                continue
            g11_all = self._factors(term, X, Yv)  # (N, M, d)
            for i in range(N):
                # pairs (x_i, y_q): g10 = kappa(x_i, z_b'), g01 = kappa(z_b, y_q)
                g10 = np.broadcast_to(gxz[i], (M,) + gxz.shape[1:])
                C = product_covariance(g11_all[i], g10, gyz, g00, self.w, max_block_bytes=self.max_block_bytes)
                out[i] += amp * C.transpose(1, 0, 2)
        return out

    def values_covariance(self, X: np.ndarray, *, noisy: bool = False, joint: bool = False) -> np.ndarray:
        """Posterior covariance of the Shapley values: (N, d, d) per point, or (N, d, N, d) with ``joint``.

        Parameters
        ----------
        X : ndarray of shape (N, d)
            Validated explained rows.
        noisy : bool
            Explain the noisy observation y = f + noise instead of the latent f.
        joint : bool
            Also the covariance between the values of different points.

        Returns
        -------
        ndarray

        Examples
        --------
        See :class:`PosteriorCovariance`.

        >>> import numpy as np
        >>> import kexplain as kx
        >>> from kexplain.explainers.posterior_games import PosteriorCovariance
        >>> post = kx.models.GPPosterior(np.zeros((1, 1)), kx.kernels.RBF(1.0), [1.0], [[0.5]])
        >>> pc = PosteriorCovariance(post, np.zeros((1, 1)), np.ones(1))
        >>> pc.values_covariance(np.array([[0.0], [1.0]]), joint=True).shape
        (2, 1, 2, 1)
        """
        return self.values_covariance_and_bound(X, noisy=noisy, joint=joint)[0]

    def values_covariance_and_bound(
        self, X: np.ndarray, *, noisy: bool = False, joint: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        """``values_covariance`` and the rounding bound (N, d) of each value's variance (scaled).

        The data term is V^T V' with V = ``posterior.whiten(Phi)`` (triangular solves with the
        model's own Cholesky factor, one point at a time so that blocks and threads cannot change
        it), so it cannot exceed the prior term by more than rounding; the variances are clipped at
        zero and the bound is that of ``GPPosterior.error_radius`` squared.

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> from kexplain.explainers.posterior_games import PosteriorCovariance
        >>> post = kx.models.GPPosterior(np.zeros((1, 1)), kx.kernels.RBF(1.0), [1.0], [[0.5]])
        >>> pc = PosteriorCovariance(post, np.zeros((1, 1)), np.ones(1))
        >>> C, bound = pc.values_covariance_and_bound(np.ones((1, 1)))
        >>> C.round(3), bool(bound[0, 0] < 1e-14)
        (array([[[0.71]]]), True)
        """
        post = self.posterior
        post._check_noisy(noisy)
        Phi = self.data_factors(X)  # (N, n, d)
        N, n, d = Phi.shape
        V = np.empty_like(Phi)
        r = np.empty((N, d))
        for p in range(N):
            V[p] = post.whiten(Phi[p])
            r[p] = post.error_radius(Phi[p], V[p])
        s2 = post.scale**2
        if joint:
            prior = self._prior(X, X, noisy)
            Vf = V.transpose(1, 0, 2).reshape(n, N * d)
            data = (Vf.T @ Vf).reshape(N, d, N, d)
            cov = s2 * (prior - data)
            cov = 0.5 * (cov + cov.transpose(2, 3, 0, 1))
            ii = np.arange(N)[:, None]
            jj = np.arange(d)[None, :]
            cov[ii, jj, ii, jj] = np.clip(cov[ii, jj, ii, jj], 0.0, None)
        else:
            prior = self._prior(X, None, noisy)
            data = np.einsum("pnj,pnl->pjl", V, V)  # one point at a time: no BLAS blocking
            cov = s2 * (prior - data)
            cov = 0.5 * (cov + cov.transpose(0, 2, 1))
            jj = np.arange(d)
            cov[:, jj, jj] = np.clip(cov[:, jj, jj], 0.0, None)
        return cov, s2 * r * r

    def base_variance(self, *, noisy: bool = False) -> float:
        """Posterior variance of the base value sum_b w_b f(z_b) (or of y with ``noisy``).

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> from kexplain.explainers.posterior_games import PosteriorCovariance
        >>> post = kx.models.GPPosterior(np.zeros((1, 1)), kx.kernels.RBF(1.0), [1.0], [[0.5]])
        >>> round(PosteriorCovariance(post, np.zeros((1, 1)), np.ones(1)).base_variance(), 12)
        0.5
        """
        cache = self.__dict__.setdefault("_base_variance", {})
        if noisy not in cache:  # depends on the posterior and the background only: computed once
            K = self.posterior.covariance(self.Z, noisy=noisy)
            cache[noisy] = float(self.w @ K @ self.w)
        return float(cache[noisy])

    def difference_variance(self, X: np.ndarray, *, noisy: bool = False) -> np.ndarray:
        """Var(f(x) - sum_b w_b f(z_b)) per row: the variance of the sum of the values (efficiency).

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> from kexplain.explainers.posterior_games import PosteriorCovariance
        >>> post = kx.models.GPPosterior(np.zeros((1, 1)), kx.kernels.RBF(1.0), [1.0], [[0.5]])
        >>> PosteriorCovariance(post, np.zeros((1, 1)), np.ones(1)).difference_variance(np.zeros((1, 1)))
        array([0.])
        """
        post = self.posterior
        cross = post.covariance(X, self.Z, noisy=noisy) @ self.w
        return post.variance(X, noisy=noisy) - 2.0 * cross + self.base_variance(noisy=noisy)


def summarize_background(
    background: np.ndarray, weights: np.ndarray, n_clusters: int, *, random_state: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """k-means centres of a (weighted) background and their total weights.

    The explainer then solves the interventional game over the centres with these weights: its
    values and their covariance are exact for that summarised game, and cost about
    (n_clusters / n_background) times (squared, for the covariance) what the full background costs.

    Parameters
    ----------
    background : ndarray of shape (B, d)
        Validated numeric background rows.
    weights : ndarray of shape (B,)
        Weights summing to one.
    n_clusters : int
        Number of centres (at most B; B itself keeps the background as it is).
    random_state : int
        Seed of the k-means initialisation.

    Returns
    -------
    centres : ndarray of shape (n_clusters, d)
    weights : ndarray of shape (n_clusters,)
        The total weight of the rows of each cluster (summing to one).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.explainers.posterior_games import summarize_background
    >>> Z = np.array([[0.0], [0.1], [10.0], [10.2]])
    >>> centres, w = summarize_background(Z, np.full(4, 0.25), 2)
    >>> np.round(np.sort(centres[:, 0]), 2), w
    (array([ 0.05, 10.1 ]), array([0.5, 0.5]))
    """
    from sklearn.cluster import KMeans

    Z = np.asarray(background)
    B = Z.shape[0]
    check_param(n_clusters, "background_summary", Integer(1), note="a number of k-means centres")
    if n_clusters >= B:
        return Z, np.asarray(weights, dtype=np.float64)
    try:
        Zf = Z.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            "background_summary needs numeric features (k-means); summarise a background with labels yourself and "
            "pass the rows with background_weights."
        ) from None
    km = KMeans(n_clusters=int(n_clusters), n_init=4, random_state=random_state).fit(Zf, sample_weight=weights)
    w = np.bincount(km.labels_, weights=weights, minlength=int(n_clusters))
    keep = w > 0
    return km.cluster_centers_[keep], w[keep] / w[keep].sum()

"""The HSIC game on one side's variables: the pair weights from the other side, all pairs or drawn ones.

For a coalition S of the attributed side A's variables the game is
``v(S) = sum_{a,b} K_S[a, b] c_ab``, whose rows are the sample pairs (a, b) and whose weights
c_ab come from the other side B's kernel alone (see :mod:`kexplain.stats.hsic`).

HLH is never formed: (HLH)_ab = L_ab - mean_a - mean_b + grand mean, with the row means of L
computed once in blocks, so memory stays bounded by a block of pairs.  The unbiased estimator of
Song et al. (2012) is also linear in the off-diagonal K entries:

    HSIC_u = sum_{a != b} K_ab [L~_ab + S/((n-1)(n-2)) - (r_a + r_b)/(n-2)] / (n(n-3)),

with L~ = L with a zero diagonal, r = L~ 1 and S = 1' L~ 1; these weights also sum to zero.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..kernels.base import Kernel
from ._common import progress_bar
from ._kernels import amplitude
from ._pairs import (
    DEFAULT_BLOCK_BYTES,
    add_in_order,
    contributions,
    draw_chunk,
    factor_data,
    factors,
    n_within_pairs,
    run_tasks,
    task_ranges,
    tile_length,
    tiles_per_task,
    within_pairs,
)

_GRAM_BLOCK_ELEMS = 2**22


def _row_sums(kernel: Kernel, B: np.ndarray, n_jobs: int = 1) -> np.ndarray:
    """Row sums of the Gram matrix of B, in row blocks (threads when n_jobs > 1; order-free)."""
    step = max(1, _GRAM_BLOCK_ELEMS // max(1, len(B) * B.shape[1]))

    def task(s0: int, s1: int) -> list[np.ndarray]:
        return [kernel(B[s : s + step], B).sum(axis=1) for s in range(s0 * step, min(len(B), s1 * step), step)]

    parts = [p for part in run_tasks(task, task_ranges(len(B), step, 1), n_jobs) for p in part]
    return np.concatenate(parts)


class _CentredWeights:
    """Weights c_ab of the HSIC game for the kernel of the non-attributed side (B, kernel)."""

    def __init__(self, kernel: Kernel, B: np.ndarray, estimator: str, n_jobs: int = 1) -> None:
        self.kernel, self.B, self.estimator = kernel, B, estimator
        n = len(B)
        self.n = n
        self.A = amplitude(kernel)
        fd = factor_data(kernel, B)
        self.fd = None if fd is None else (fd, fd)
        rs = _row_sums(kernel, B, n_jobs)
        if estimator == "biased":
            self.rm = rs / n
            self.gm = self.rm.mean()
            self.scale = 1.0 / (n - 1) ** 2
        else:
            self.r = rs - self.A  # row sums of L with a zero diagonal
            self.S = self.r.sum()
            self.scale = 1.0 / (n * (n - 3))

    def offdiag(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """c_ab for index arrays a != b (any shape), each unordered pair counted once per order."""
        shape = np.shape(a)
        a, b = np.ravel(a), np.ravel(b)
        L = self.A * np.prod(factors(self.kernel, self.B, a, self.B, b, self.fd), axis=-1)
        if self.estimator == "biased":
            w = L - self.rm[a] - self.rm[b] + self.gm
        else:
            n = self.n
            w = L + self.S / ((n - 1) * (n - 2)) - (self.r[a] + self.r[b]) / (n - 2)
        return (self.scale * w).reshape(shape)

    def diagonal_constant(self) -> float:
        """sum_a c_aa: the diagonal pairs' part of the statistic, per unit amplitude of K."""
        if self.estimator == "unbiased":
            return 0.0
        n = self.n
        return self.scale * (n * self.A - n * self.gm)


class _HSICPairs:
    """Tiles of the complete HSIC game on A's variables (picklable; a Dask task ships it once).

    ``task(t0, t1)`` returns, per tile, (statistic part (P,), Shapley part (P, d), number of pairs)
    for B's rows relabelled by each row of ``perms`` (P, n).
    """

    def __init__(self, A_data: np.ndarray, kernel_a: Kernel, weights: _CentredWeights, perms: np.ndarray) -> None:
        self.A_data, self.kernel, self.weights, self.perms = A_data, kernel_a, weights, perms
        self.n, self.d = A_data.shape
        self.T = n_within_pairs(self.n)
        self.n_weights = perms.shape[0] * (2 + weights.B.shape[1])
        self.tile = tile_length(self.d, self.n_weights)
        fd = factor_data(kernel_a, A_data)
        self.fd = None if fd is None else (fd, fd)

    def task(self, t0: int, t1: int) -> list[tuple[np.ndarray, np.ndarray, int]]:
        out = []
        for t in range(t0, t1):
            k0, k1 = t * self.tile, min(self.T, (t + 1) * self.tile)
            i, j = within_pairs(self.n, np.arange(k0, k1))
            psi, kval = contributions(factors(self.kernel, self.A_data, i, self.A_data, j, self.fd))
            c = 2.0 * self.weights.offdiag(self.perms[:, i].T, self.perms[:, j].T)  # (r, P)
            out.append((c.T @ kval, c.T @ psi, k1 - k0))
        return out

    def finish(self, stats: np.ndarray, phis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        Ak = amplitude(self.kernel)
        return Ak * stats + Ak * self.weights.diagonal_constant(), Ak * phis


class _HSICDraws:
    """Chunks of randomly drawn pairs of the incomplete HSIC game, chunk c of side s drawn from
    ``SeedSequence(entropy, spawn_key=(s, c))``: the draws depend on the seed alone.

    ``task(c0, c1)`` returns, per chunk, (sum h (d,), sum h^2 (d,), sum hk, sum hk^2, count).
    """

    def __init__(
        self, A_data: np.ndarray, kernel_a: Kernel, weights: _CentredWeights, n_pairs: int, entropy: Any, side: int
    ) -> None:
        self.A_data, self.kernel, self.weights = A_data, kernel_a, weights
        self.n, self.d = A_data.shape
        self.T = n_within_pairs(self.n)
        self.n_pairs, self.entropy, self.side = n_pairs, entropy, side
        self.chunk = draw_chunk(self.d)
        self.n_chunks = -(-n_pairs // self.chunk)
        fd = factor_data(kernel_a, A_data)
        self.fd = None if fd is None else (fd, fd)

    def task(self, c0: int, c1: int) -> list[tuple[Any, ...]]:
        out: list[tuple[Any, ...]] = []
        Ak = amplitude(self.kernel)
        for c in range(c0, c1):
            rng = np.random.default_rng(np.random.SeedSequence(self.entropy, spawn_key=(self.side, c)))
            size = min(self.chunk, self.n_pairs - c * self.chunk)
            i, j = within_pairs(self.n, rng.integers(0, self.T, size=size))
            psi, kval = contributions(factors(self.kernel, self.A_data, i, self.A_data, j, self.fd))
            cw = 2.0 * Ak * self.T * self.weights.offdiag(i, j)
            # the exact weights sum to zero, so HSIC = sum 2 c_ab A (K_ab - 1): estimating that
            # form keeps efficiency exact for the estimate (and the known sum acts as a control variate)
            h, hk = psi * cw[:, None], (kval - 1.0) * cw
            out.append((h.sum(axis=0), np.einsum("rd,rd->d", h, h), float(hk.sum()), float(hk @ hk), size))
        return out

    def finish(self, acc: list[Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        h_sum, h_sq, k_sum, k_sq = acc
        N = self.n_pairs
        mh, mk = h_sum / N, k_sum / N
        se = np.sqrt(np.maximum(h_sq / N - mh * mh, 0.0) * N / (N - 1) / N)
        se_k = np.sqrt(max(k_sq / N - mk * mk, 0.0) * N / (N - 1) / N)
        return np.array([mk]), mh[None, :], se, float(se_k)


def _hsic_game(
    A_data: np.ndarray,
    kernel_a: Kernel,
    B_data: np.ndarray,
    kernel_b: Kernel,
    estimator: str,
    perms: np.ndarray | None = None,
    n_pairs: int | None = None,
    entropy: Any = None,
    max_block_bytes: int = DEFAULT_BLOCK_BYTES,
    progress: bool = False,
    n_jobs: int = 1,
    side: int = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, float | None]:
    """Attribute HSIC to A's variables; B's rows are relabelled by each row of ``perms`` (P, n).

    Returns statistics (P,), values (P, d) and, for incomplete statistics, standard errors.
    """
    n, d = A_data.shape
    weights = _CentredWeights(kernel_b, B_data, estimator, n_jobs)
    if n_pairs is not None:
        draws = _HSICDraws(A_data, kernel_a, weights, n_pairs, entropy, side)
        per_task = max(1, max_block_bytes // (8 * (6 * d + 8) * draws.chunk))
        ranges = [(c, min(draws.n_chunks, c + per_task)) for c in range(0, draws.n_chunks, per_task)]
        zeros = [np.zeros(d), np.zeros(d), np.zeros(()), np.zeros(())]
        acc = add_in_order(run_tasks(draws.task, ranges, n_jobs), zeros)
        return draws.finish(acc)
    if perms is None:
        perms = np.arange(n)[None, :]
    game = _HSICPairs(A_data, kernel_a, weights, perms)
    P = perms.shape[0]
    ranges = task_ranges(game.T, game.tile, tiles_per_task(d, game.n_weights, max_block_bytes))
    bar = progress_bar(game.T, progress, "HSIC pairs")
    stats, phis = add_in_order(run_tasks(game.task, ranges, n_jobs), [np.zeros(P), np.zeros((P, d))], bar)
    if bar is not None:
        bar.close()
    st, ph = game.finish(stats, phis)
    return st, ph, None, None

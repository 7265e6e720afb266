"""The MMD^2 game over the pairs of the pooled sample: all pairs per labelling, or pairs drawn at random.

A pair {i, j} of W = [X; Z] weighs w_xx, w_zz or w_xz by the labels of its rows (:func:`_weights`);
the complete game (:class:`_PooledPairs`) weighs every pair under one or many labellings at once
(the permutation test's), the incomplete one (:class:`_DrawnPairs`) draws pairs within X, within
Z and across, each chunk from its own seed stream (see :mod:`kexplain.stats.mmd`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..kernels.base import Kernel
from ._common import progress_bar
from ._kernels import amplitude
from ._pairs import (
    _compiled,
    add_in_order,
    contributions,
    draw_chunk,
    factor_data,
    factors,
    n_within_pairs,
    nodes,
    pair_range,
    run_tasks,
    task_ranges,
    tile_length,
    tiles_per_task,
    within_pairs,
)


def _weights(n: int, m: int, estimator: str) -> tuple[float, float, float, float]:
    """(w_xx, w_zz, w_xz) per unordered pair, and the constant from the diagonal pairs (per unit amplitude)."""
    if estimator == "unbiased":
        return 2.0 / (n * (n - 1)), 2.0 / (m * (m - 1)), -2.0 / (n * m), 0.0
    return 2.0 / n**2, 2.0 / m**2, -2.0 / (n * m), 1.0 / n + 1.0 / m


class _PooledPairs:
    """The complete statistic's tiles: every pair of the pooled sample, weighted per labelling.

    Picklable (a Dask task ships it once); ``task(t0, t1)`` returns, for each tile in [t0, t1),
    (statistic part (P,), Shapley part (P, d), number of pairs).
    """

    def __init__(self, kernel: Kernel, W: np.ndarray, labels: np.ndarray, n: int, m: int, estimator: str) -> None:
        self.kernel, self.W, self.labels = kernel, W, labels
        self.N, self.d = W.shape
        self.weights = _weights(n, m, estimator)
        self.T = n_within_pairs(self.N)
        self.tile = tile_length(self.d, labels.shape[1])
        fd = factor_data(kernel, W)
        self.fd = None if fd is None else (fd, fd)

    def _fused(self, t0: int, t1: int) -> dict[int, tuple[np.ndarray, np.ndarray, int]]:
        """Tiles [t0, t1) by one compiled call (one labelling, compiled factors), keyed by tile; the
        GIL is released throughout, so threads never queue for it between tiles.  Tiles that the
        compiled pass declines are missing (``task`` computes them by the engine's path)."""
        fused = _compiled("pooled_tiles")
        if fused is None or self.fd is None or self.labels.shape[1] != 1 or t1 <= t0 or self.d == 0:
            return {}
        wxx, wzz, wxz, _ = self.weights
        fd = self.fd[0]
        stat, phi, ok = np.zeros((t1 - t0, 1)), np.zeros((t1 - t0, self.d)), np.zeros(t1 - t0, np.bool_)
        nodes_t, nodes_w = nodes(self.d)
        lab = np.ascontiguousarray(self.labels[:, 0])
        args = (fd.U, fd.kinds, fd.inv, fd.mismatch, lab, wxx, wxz, wzz, nodes_t, nodes_w, stat, phi, ok)
        fused(self.N, t0, t1, self.tile, self.T, *args)
        done = {}
        for s in range(t1 - t0):
            if ok[s]:
                k0, k1 = (t0 + s) * self.tile, min(self.T, (t0 + s + 1) * self.tile)
                done[t0 + s] = (stat[s], phi[s][None, :], k1 - k0)
        return done

    def task(self, t0: int, t1: int) -> list[tuple[np.ndarray, np.ndarray, int]]:
        wxx, wzz, wxz, _ = self.weights
        out = []
        weigh = _compiled("weigh_pooled") if self.labels.shape[1] == 1 else None
        done = self._fused(t0, t1)
        for t in range(t0, t1):
            if t in done:
                out.append(done[t])
                continue
            k0, k1 = t * self.tile, min(self.T, (t + 1) * self.tile)
            i, j = pair_range(self.N, k0, k1)
            psi, kval = contributions(factors(self.kernel, self.W, i, self.W, j, self.fd))
            if weigh is not None:
                # one labelling: the weighted sums in one compiled pass (no GIL, no (r,) weight
                # temporaries; the same sums as below up to the order of the additions)
                stat, phi = np.zeros(1), np.zeros(self.d)
                weigh(i, j, np.ascontiguousarray(self.labels[:, 0]), wxx, wxz, wzz, kval, psi, stat, phi)
                out.append((stat, phi[None, :], k1 - k0))
                continue
            li, lj = self.labels[i], self.labels[j]
            w = np.where(li & lj, wxx, np.where(li | lj, wxz, wzz))  # (r, P)
            out.append((w.T @ kval, w.T @ psi, k1 - k0))
        return out


def _pooled_game(
    kernel: Kernel,
    W: np.ndarray,
    labels: np.ndarray,
    n: int,
    m: int,
    estimator: str,
    max_block_bytes: int,
    progress: bool,
    n_jobs: int = 1,
) -> tuple[np.ndarray, np.ndarray]:
    """Statistic (P,) and Shapley values (P, d) for each labelling column of ``labels`` (N, P)."""
    game = _PooledPairs(kernel, W, labels, n, m, estimator)
    P = labels.shape[1]
    ranges = task_ranges(game.T, game.tile, tiles_per_task(game.d, P, max_block_bytes))
    bar = progress_bar(game.T, progress, "MMD pairs")
    stats, phis = add_in_order(run_tasks(game.task, ranges, n_jobs), [np.zeros(P), np.zeros((P, game.d))], bar)
    if bar is not None:
        bar.close()
    return _finish_pooled(kernel, estimator, n, m, stats, phis)


def _finish_pooled(
    kernel: Kernel, estimator: str, n: int, m: int, stats: np.ndarray, phis: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    A = amplitude(kernel)
    return A * stats + A * _weights(n, m, estimator)[3], A * phis


class _DrawnPairs:
    """The incomplete statistic's random streams: group g (XX, ZZ, XZ), chunk c of ``draw_chunk(d)``
    pairs drawn with ``SeedSequence(entropy, spawn_key=(g, c))`` (the children ``spawn`` makes), so
    the draws depend on the seed alone, never on blocks, threads or workers.

    ``task(c0, c1)`` returns, for each chunk, (group, sum psi (d,), sum psi^2 (d,), sum k, sum k^2, count).
    """

    def __init__(self, kernel: Kernel, Xa: np.ndarray, Za: np.ndarray, n_pairs: int, entropy: Any) -> None:
        self.kernel, self.Xa, self.Za = kernel, Xa, Za
        self.n, self.m, self.d = len(Xa), len(Za), Xa.shape[1]
        b_xx = b_zz = n_pairs // 4
        self.split = (b_xx, b_zz, n_pairs - b_xx - b_zz)
        self.chunk = draw_chunk(self.d)
        self.entropy = entropy
        self.chunks = [(g, c) for g in range(3) for c in range(-(-self.split[g] // self.chunk))]
        # one pooled array (Z's rows after X's), so label codes are shared by the two samples
        self.W = np.concatenate([Xa, Za], axis=0)
        fd = factor_data(kernel, self.W)
        self.fd = None if fd is None else (fd, fd)

    def draw(self, g: int, c: int) -> tuple[np.ndarray, np.ndarray]:
        rng = np.random.default_rng(np.random.SeedSequence(self.entropy, spawn_key=(g, c)))
        size = min(self.chunk, self.split[g] - c * self.chunk)
        if g == 2:
            return rng.integers(0, self.n, size=size), rng.integers(0, self.m, size=size)
        nn = self.n if g == 0 else self.m
        return within_pairs(nn, rng.integers(0, n_within_pairs(nn), size=size))

    def task(self, c0: int, c1: int) -> list[tuple[Any, ...]]:
        out: list[tuple[Any, ...]] = []
        for g, c in self.chunks[c0:c1]:
            i, j = self.draw(g, c)
            if g == 1:
                i, j = i + self.n, j + self.n
            elif g == 2:
                j = j + self.n
            psi, kval = contributions(factors(self.kernel, self.W, i, self.W, j, self.fd))
            sq = np.einsum("rd,rd->d", psi, psi)
            out.append((g, psi.sum(axis=0), sq, float(kval.sum()), float(kval @ kval), len(i)))
        return out


def _add_moments(results: Any) -> list[list[Any]]:
    """Per group [sum psi, sum psi^2, sum k, sum k^2, count], chunks added in chunk order."""
    acc: list[list[Any]] = []
    for _ in range(3):
        acc.append([0.0, 0.0, 0.0, 0.0, 0])
    for part in results:
        for g, *vals in part:
            for q, v in enumerate(vals):
                acc[g][q] = acc[g][q] + v
    return acc


def _finish_incomplete(
    kernel: Kernel, n: int, m: int, d: int, estimator: str, split: tuple[int, int, int], acc: list[list[Any]]
) -> tuple[np.ndarray, float, np.ndarray, float, tuple[int, int, int]]:
    A = amplitude(kernel)
    # the biased estimator is ((n-1)/n) U_xx + A/n + ...: the same pairs, rescaled, plus constants
    sx = 1.0 if estimator == "unbiased" else (n - 1) / n
    sz = 1.0 if estimator == "unbiased" else (m - 1) / m
    const = 0.0 if estimator == "unbiased" else A * (1.0 / n + 1.0 / m)
    values = np.zeros(d)
    var_values = np.zeros(d)
    total = const
    var_total = 0.0
    for coef, (psi, psi2, k, k2, c) in zip((sx, sz, -2.0), acc):
        mp, mk = psi / c, k / c
        vp = np.maximum(psi2 - c * mp * mp, 0.0) / max(c - 1, 1)
        vk = max(k2 - c * mk * mk, 0.0) / max(c - 1, 1)
        values += A * coef * mp
        var_values += (A * coef) ** 2 * vp / c
        total += A * coef * mk
        var_total += (A * coef) ** 2 * vk / c
    return values, float(total), np.sqrt(var_values), float(np.sqrt(var_total)), split


def _incomplete(
    kernel: Kernel,
    Xa: np.ndarray,
    Za: np.ndarray,
    estimator: str,
    n_pairs: int,
    entropy: Any,
    max_block_bytes: int,
    n_jobs: int = 1,
) -> tuple[np.ndarray, float, np.ndarray, float, tuple[int, int, int]]:
    """Incomplete U-statistic: n_pairs/4 XX pairs, n_pairs/4 ZZ pairs, the rest XZ pairs, with replacement."""
    game = _DrawnPairs(kernel, Xa, Za, n_pairs, entropy)
    per_task = max(1, max_block_bytes // (8 * (4 * game.d + 8) * game.chunk))
    ranges = [(c, min(len(game.chunks), c + per_task)) for c in range(0, len(game.chunks), per_task)]
    acc = _add_moments(run_tasks(game.task, ranges, n_jobs))
    return _finish_incomplete(kernel, len(Xa), len(Za), Xa.shape[1], estimator, game.split, acc)

"""MMD^2 between two samples, its exact Shapley attribution to features, and the permutation test.

Mohammadi, Chau & Muandet (2025), "Computing Exact Shapley Values in Polynomial Time for
Product-Kernel Methods" (PKeX-Shapley), section 4.1, define for a coalition S of features

    v(S) = 1/(n(n-1)) sum_{i!=j} k_S(x_i, x_j) + 1/(m(m-1)) sum_{i!=j} k_S(z_i, z_j)
           - 2/(nm) sum_{i,j} k_S(x_i, z_j),

with k_S the product kernel restricted to S (the other factors set to 1).  This is a product game
whose rows are the sample pairs of the pooled sample W = [X; Z]: with labels l_i (True for X),
an unordered pair {i, j} of W weighs 2/(n(n-1)) when both are from X, 2/(m(m-1)) when both are
from Z, and -2/(nm) when mixed.  The weights sum to zero, so v(empty) = 0 and the Shapley values
sum to the statistic itself (appendix F.2).  The biased (V-statistic) estimator replaces
n(n-1) by n^2 and adds the diagonal pairs, whose factors are all 1: they change the statistic by
a constant and no feature's value.

A relabelling of the pooled sample changes only the weights, never the pairs' factors, so the
permutation test evaluates every per-pair contribution once and all relabellings at once.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._typing import RandomStateLike
from .._validation import check_bool, check_n_jobs, check_random_state, feature_names_of
from ..attribution import GlobalAttribution, PermutationTestResult
from ..kernels.base import Kernel
from ._common import (
    check_estimator_name,
    check_max_block_bytes,
    check_n_pairs,
    check_n_permutations,
    check_permutation_memory,
    check_progress,
    permutation_p_values,
    progress_bar,
    seed_entropy,
)
from ._kernels import amplitude, overflow_scale, resolve_kernel, validate_sample
from ._pairs import (
    DEFAULT_BLOCK_BYTES,
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

_GRAM_BLOCK_ELEMS = 2**22


def _prepare(
    X: Any, Z: Any, kernel: Any, bandwidth: Any, standardize: Any = True
) -> tuple[np.ndarray, np.ndarray, list[str], Kernel, dict[str, Any]]:
    """Validated samples, feature names, the kernel, and notes for the result's ``info``."""
    if kernel is not None:
        resolve_kernel(kernel, None, "kernel")
    Xa, names = validate_sample(X, kernel, "X", min_rows=2)
    Za, znames = validate_sample(Z, kernel, "Z", min_rows=2)
    if Xa.shape[1] != Za.shape[1]:
        raise ValueError(
            f"X has {Xa.shape[1]} features but Z has {Za.shape[1]}; the two samples of a two-sample test "
            "must have the same features (columns)."
        )
    if feature_names_of(X) is not None and feature_names_of(Z) is not None and znames != names:
        raise ValueError(f"the columns of Z ({znames}) differ from those of X ({names}); align them first.")
    info: dict[str, Any] = {}
    scale = overflow_scale(kernel, (Xa, Za), "X and Z")
    if scale != 1.0:
        # the default RBF is scale-equivariant: work on X / s with the median heuristic of X / s
        Xa, Za = Xa / scale, Za / scale
        info["data_scale"] = scale
    kernel = resolve_kernel(kernel, (Xa, Za), "kernel", bandwidth, check_bool(standardize, "standardize"))
    return Xa, Za, names, kernel, info


def _weights(n: int, m: int, estimator: str) -> tuple[float, float, float, float]:
    """(w_xx, w_zz, w_xz) per unordered pair, and the constant from the diagonal pairs (per unit amplitude)."""
    if estimator == "unbiased":
        return 2.0 / (n * (n - 1)), 2.0 / (m * (m - 1)), -2.0 / (n * m), 0.0
    return 2.0 / n**2, 2.0 / m**2, -2.0 / (n * m), 1.0 / n + 1.0 / m


def _gram_sum(kernel: Kernel, P: np.ndarray, Q: np.ndarray, n_jobs: int = 1) -> float:
    """sum_{i,j} k(P_i, Q_j) over row blocks (memory bounded), added in block order."""
    step = max(1, _GRAM_BLOCK_ELEMS // max(1, len(Q) * P.shape[1]))

    def task(s0: int, s1: int) -> list[tuple[float, int]]:
        return [(float(kernel(P[s : s + step], Q).sum()), 0) for s in range(s0 * step, s1 * step, step)]

    ranges = task_ranges(len(P), step, 1)
    return float(add_in_order(run_tasks(task, ranges, n_jobs), [np.zeros(())])[0])


def mmd(
    X: Any,
    Z: Any,
    *,
    kernel: Kernel | None = None,
    estimator: str = "unbiased",
    bandwidth: str = "median",
    standardize: bool = True,
    n_jobs: int | None = None,
) -> float:
    """MMD^2 between the samples X and Z: how far apart their distributions are.

    Parameters
    ----------
    X : array-like of shape (n, d)
        The first sample, at least two rows (a DataFrame's columns name the features).
    Z : array-like of shape (m, d)
        The second sample, with the same features.
    kernel : kexplain product kernel, optional
        For instance ``kx.kernels.RBF(1.0)``.  None: an RBF whose lengthscale is the median
        heuristic on the pooled sample (see ``bandwidth``).
    estimator : {"unbiased", "biased"}, default "unbiased"
        "unbiased": the U-statistic used by Mohammadi, Chau & Muandet (2025, section 4.1); it can
        be slightly negative when the samples are alike.  "biased": the V-statistic
        ``1/n^2 sum_ij k(x_i, x_j) + ...``, never negative.
    bandwidth : {"median", "median_per_feature"}, default "median"
        "median": one lengthscale, the median Euclidean distance over all features (the paper's
        choice); "median_per_feature": one median absolute difference per feature.  Ignored when
        ``kernel`` is given.
    standardize : bool, default True
        Compute the median heuristic on features scaled to unit standard deviation (over the
        pooled sample), so that no feature dominates the distance because of its units: the RBF
        then has lengthscale ell * sd_j for feature j.  False: on the raw features (one feature on
        a large scale, such as an area in square units next to ratios, then takes most of the
        statistic).  Ignored when ``kernel`` is given.
    n_jobs : int, optional
        Threads for the blocks of the Gram matrices (None: 1; -1: every core).  The blocks' sums are
        added in a fixed order, so the result is the same for every ``n_jobs``.

    Returns
    -------
    float
        The MMD^2 estimate.

    See Also
    --------
    mmd_shapley : the same number split over the features.
    mmd_test : a permutation test of "same distribution".

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.stats import mmd
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 2))
    >>> Z = rng.normal(size=(40, 2)) + [1.0, 0.0]
    >>> print(f"{mmd(X, Z):.3f}")
    0.063
    """
    estimator = check_estimator_name(estimator)
    n_jobs = check_n_jobs(n_jobs)
    Xa, Za, _, kern, _ = _prepare(X, Z, kernel, bandwidth, standardize)
    n, m = len(Xa), len(Za)
    sxx, szz, sxz = (_gram_sum(kern, P, Q, n_jobs) for P, Q in ((Xa, Xa), (Za, Za), (Xa, Za)))
    if estimator == "unbiased":
        A = amplitude(kern)
        return (sxx - n * A) / (n * (n - 1)) + (szz - m * A) / (m * (m - 1)) - 2.0 * sxz / (n * m)
    return sxx / n**2 + szz / m**2 - 2.0 * sxz / (n * m)


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


def _relabellings(n: int, m: int, n_permutations: int, rng: np.random.Generator) -> np.ndarray:
    """(n + m, n_permutations + 1) labels: column 0 the observed one, then random relabellings."""
    observed = np.concatenate([np.ones(n, bool), np.zeros(m, bool)])
    labels = np.empty((n + m, n_permutations + 1), dtype=bool)
    labels[:, 0] = observed
    for p in range(n_permutations):
        labels[:, p + 1] = rng.permutation(observed)
    return labels


def mmd_shapley(
    X: Any,
    Z: Any,
    *,
    kernel: Kernel | None = None,
    estimator: str = "unbiased",
    bandwidth: str = "median",
    standardize: bool = True,
    n_pairs: int | None = None,
    random_state: RandomStateLike = None,
    max_block_bytes: int = DEFAULT_BLOCK_BYTES,
    progress: bool = False,
    n_jobs: int | None = None,
) -> GlobalAttribution:
    """Split the MMD^2 between two samples over the features, with exact Shapley values.

    The value of a coalition S of features is the MMD^2 computed with the kernel restricted to S
    (the per-feature factors of the other features set to 1, their least informative value):
    Mohammadi, Chau & Muandet (2025), section 4.1.  The empty coalition has value 0, so the
    Shapley values sum exactly to the statistic.  A feature whose distribution differs between the
    samples gets a positive value; a feature that is alike in both pulls the MMD^2 down and gets a
    negative one.  Pairs of rows are processed in blocks, so memory is bounded by
    ``max_block_bytes``, not by (n + m)^2 d.

    Parameters
    ----------
    X : array-like of shape (n, d)
        The first sample (a DataFrame's columns name the features).
    Z : array-like of shape (m, d)
        The second sample, with the same features.
    kernel : kexplain product kernel, optional
        None: the median-heuristic RBF (see ``bandwidth``).
    estimator : {"unbiased", "biased"}, default "unbiased"
        As in :func:`mmd`; the unbiased U-statistic is the paper's.
    bandwidth : {"median", "median_per_feature"}, default "median"
        As in :func:`mmd`.
    standardize : bool, default True
        As in :func:`mmd`: the median heuristic on standardised features.
    n_pairs : int, optional
        None: the complete statistic over all (n + m)(n + m - 1)/2 pairs of rows.  An integer
        (at least 8): an incomplete U-statistic over that many randomly drawn pairs (with
        replacement: a quarter within X, a quarter within Z, half across), for large samples.
        Its ``standard_errors`` and ``total_standard_error`` measure the error against the
        complete statistic, and the values still sum exactly to the estimate.
    random_state : None, int, numpy Generator, RandomState or SeedSequence
        Seeds the pairs drawn for ``n_pairs``; it has no effect on the complete statistic.  The
        pairs are drawn in chunks, each from its own stream (``numpy.random.SeedSequence``
        children of one root seed), so they depend on the seed only, never on ``max_block_bytes``,
        ``n_jobs`` or the workers of a Dask cluster (:func:`kexplain.dask.on`).
    max_block_bytes : int, default 32 MiB
        Bound on the memory of one block of pairs (a floor of about 1 MiB per thread applies).  It
        never changes the result: partial sums are taken over fixed tiles of pairs and added in
        tile order.
    progress : bool, default False
        Show a progress bar over the pairs (needs tqdm).
    n_jobs : int, optional
        Threads over blocks of pairs (None: 1; -1: every core); the compiled kernels release the
        GIL.  The result is the same, bit for bit, for every ``n_jobs``.

    Returns
    -------
    GlobalAttribution
        ``values`` (one per feature), ``total`` (the MMD^2 estimate), ``quantity`` "MMD^2",
        ``estimator``, ``kernel`` (the kernel used), and for ``n_pairs`` the
        ``standard_errors`` and ``total_standard_error``.  Data so large that differences of
        rows overflow (beyond about 1e154) are divided by a power of two first when the default
        kernel is used (scale-free: the same MMD^2); ``info["data_scale"]`` then gives the divisor
        and ``kernel`` is in the divided units.  With a given kernel such data is refused.

    See Also
    --------
    mmd_test : the same attribution with permutation p-values.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.stats import mmd_shapley
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 3))
    >>> Z = rng.normal(size=(40, 3)) + [0.0, 1.0, 0.0]     # only the second feature shifts
    >>> att = mmd_shapley(X, Z)
    >>> att.quantity, att.ranking()[0]
    ('MMD^2', 'x1')
    >>> np.round(att.values, 3)
    array([-0.018,  0.079,  0.03 ])
    >>> bool(np.isclose(att.values.sum(), att.total))
    True
    """
    estimator = check_estimator_name(estimator)
    n_pairs = check_n_pairs(n_pairs)
    rng = check_random_state(random_state, "random_state")
    max_block_bytes = check_max_block_bytes(max_block_bytes)
    progress = check_progress(progress)
    n_jobs = check_n_jobs(n_jobs)
    Xa, Za, names, kern, info = _prepare(X, Z, kernel, bandwidth, standardize)
    n, m = len(Xa), len(Za)
    if n_pairs is not None:
        values, total, se, se_total, split = _incomplete(
            kern, Xa, Za, estimator, n_pairs, seed_entropy(rng), max_block_bytes, n_jobs
        )
        return GlobalAttribution(
            values,
            total,
            names,
            "MMD^2",
            standard_errors=se,
            total_standard_error=se_total,
            estimator=estimator,
            kernel=kern,
            info={"n_pairs": split, "incomplete": True, **info},
            game="MMD^2",
        )
    W = np.concatenate([Xa, Za], axis=0)
    labels = np.concatenate([np.ones(n, bool), np.zeros(m, bool)])[:, None]
    stats, phis = _pooled_game(kern, W, labels, n, m, estimator, max_block_bytes, progress, n_jobs)
    return GlobalAttribution(
        phis[0],
        stats[0],
        names,
        "MMD^2",
        estimator=estimator,
        kernel=kern,
        info={"incomplete": False, **info},
        game="MMD^2",
    )


def mmd_test(
    X: Any,
    Z: Any,
    *,
    kernel: Kernel | None = None,
    n_permutations: int = 1000,
    estimator: str = "unbiased",
    bandwidth: str = "median",
    standardize: bool = True,
    random_state: RandomStateLike = None,
    max_block_bytes: int = DEFAULT_BLOCK_BYTES,
    progress: bool = False,
    n_jobs: int | None = None,
) -> PermutationTestResult:
    """Permutation two-sample test with MMD^2, its attribution and per-feature p-values.

    The pooled sample's labels are shuffled ``n_permutations`` times; for each relabelling the
    statistic and every feature's Shapley value (as in :func:`mmd_shapley`) are recomputed.  Only
    the weights of the pairs change, so all relabellings share one pass over the pairs.  The
    p-values are ``(1 + #{null >= observed}) / (1 + n_permutations)``, for the statistic and per
    feature: a small feature p-value says that feature's contribution is larger than under
    exchangeability of the whole samples.  That is the global null: it is not a test of "this
    feature's marginal does not differ" (a feature correlated with a shifted one can get a small
    p-value too), and the d p-values are not corrected for multiplicity.  The default kernel's
    bandwidth is computed on the pooled sample, so it is the same under every relabelling.
    Cost: (n + m)^2 / 2 pairs times (d + n_permutations) per pair.

    Parameters
    ----------
    X : array-like of shape (n, d)
        The first sample.
    Z : array-like of shape (m, d)
        The second sample.
    kernel : kexplain product kernel, optional
        As in :func:`mmd_shapley`.
    n_permutations : int, default 1000
        Number of random relabellings of the pooled sample.  Every relabelling and its null
        attribution are kept, so a number whose memory cannot fit (more than half of the
        machine's) is refused up front with a ValueError.
    estimator : {"unbiased", "biased"}, default "unbiased"
        As in :func:`mmd_shapley`.
    bandwidth : {"median", "median_per_feature"}, default "median"
        As in :func:`mmd_shapley`.
    standardize : bool, default True
        As in :func:`mmd_shapley`.
    random_state : None, int, numpy Generator, RandomState or SeedSequence
        Seeds the relabellings.
    max_block_bytes : int, default 32 MiB
        As in :func:`mmd_shapley`; the result is the same for every block size.
    progress : bool, default False
        Show a progress bar (needs tqdm).
    n_jobs : int, optional
        As in :func:`mmd_shapley`; the result is the same for every ``n_jobs``.

    Returns
    -------
    PermutationTestResult
        ``statistic`` and ``p_value``; ``attribution``, a GlobalAttribution of MMD^2 whose
        ``p_values`` are the per-feature p-values (also ``feature_p_values``) and whose
        ``p_value`` is the statistic's; ``null_distribution`` (n_permutations,) and
        ``null_attributions`` (n_permutations, d).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.stats import mmd_test
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(30, 3))
    >>> Z = rng.normal(size=(30, 3)) + [0.0, 1.5, 0.0]
    >>> res = mmd_test(X, Z, n_permutations=99, random_state=0)
    >>> print(f"p = {res.p_value:.2f}")
    p = 0.01
    >>> np.round(res.feature_p_values, 2)
    array([1.  , 0.01, 0.98])
    """
    estimator = check_estimator_name(estimator)
    n_permutations = check_n_permutations(n_permutations)
    rng = check_random_state(random_state, "random_state")
    max_block_bytes = check_max_block_bytes(max_block_bytes)
    progress = check_progress(progress)
    n_jobs = check_n_jobs(n_jobs)
    Xa, Za, names, kern, info = _prepare(X, Z, kernel, bandwidth, standardize)
    n, m = len(Xa), len(Za)
    check_permutation_memory(n_permutations, n + m, Xa.shape[1], 1)
    W = np.concatenate([Xa, Za], axis=0)
    labels = _relabellings(n, m, n_permutations, rng)
    stats, phis = _pooled_game(kern, W, labels, n, m, estimator, max_block_bytes, progress, n_jobs)
    p_value = float(permutation_p_values(stats[0], stats[1:]))
    att = GlobalAttribution(
        phis[0],
        stats[0],
        names,
        "MMD^2",
        p_values=permutation_p_values(phis[0], phis[1:]),
        p_value=p_value,
        estimator=estimator,
        kernel=kern,
        info={"incomplete": False, **info},
        game="MMD^2",
    )
    return PermutationTestResult(stats[0], p_value, att, stats[1:], phis[1:], n_permutations, "MMD^2")

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

The code lives by idea in sibling modules, and every name, private ones included, is still
imported from here: ``_mmd_inputs`` (the two samples validated, the default kernel),
``_mmd_game`` (the pair weights, the complete game over all pairs and labellings, the incomplete
one over drawn pairs) and ``mmd_permutation`` (:func:`mmd_test`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._typing import RandomStateLike
from .._validation import check_n_jobs, check_random_state
from ..attribution import GlobalAttribution
from ..kernels.base import Kernel
from ._common import (
    check_estimator_name,
    check_max_block_bytes,
    check_n_pairs,
    check_progress,
    seed_entropy,
)
from ._kernels import amplitude
from ._mmd_game import _add_moments as _add_moments
from ._mmd_game import _DrawnPairs as _DrawnPairs
from ._mmd_game import _finish_incomplete as _finish_incomplete
from ._mmd_game import _finish_pooled as _finish_pooled
from ._mmd_game import _incomplete as _incomplete
from ._mmd_game import _pooled_game as _pooled_game
from ._mmd_game import _PooledPairs as _PooledPairs
from ._mmd_game import _weights as _weights
from ._mmd_inputs import _prepare as _prepare
from ._pairs import DEFAULT_BLOCK_BYTES, add_in_order, run_tasks, task_ranges
from .mmd_permutation import _relabellings as _relabellings
from .mmd_permutation import mmd_test as mmd_test

_GRAM_BLOCK_ELEMS = 2**22


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

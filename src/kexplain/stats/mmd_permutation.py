"""The MMD^2 permutation two-sample test: the statistic, its attribution and per-feature p-values.

Every relabelling of the pooled sample is one more column of weights in the one pass over the
pairs that the complete statistic makes (``_mmd_game._pooled_game``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._typing import RandomStateLike
from .._validation import check_n_jobs, check_random_state
from ..attribution import GlobalAttribution, PermutationTestResult
from ..kernels.base import Kernel
from ._common import (
    check_estimator_name,
    check_max_block_bytes,
    check_n_permutations,
    check_permutation_memory,
    check_progress,
    permutation_p_values,
)
from ._mmd_game import _pooled_game
from ._mmd_inputs import _prepare
from ._pairs import DEFAULT_BLOCK_BYTES


def _relabellings(n: int, m: int, n_permutations: int, rng: np.random.Generator) -> np.ndarray:
    """(n + m, n_permutations + 1) labels: column 0 the observed one, then random relabellings."""
    observed = np.concatenate([np.ones(n, bool), np.zeros(m, bool)])
    labels = np.empty((n + m, n_permutations + 1), dtype=bool)
    labels[:, 0] = observed
    for p in range(n_permutations):
        labels[:, p + 1] = rng.permutation(observed)
    return labels


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

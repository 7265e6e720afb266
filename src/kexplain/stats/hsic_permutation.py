"""The HSIC permutation test of independence: the statistic, its attribution and per-variable p-values."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._typing import RandomStateLike
from .._validation import check_n_jobs, check_random_state
from ..attribution import GlobalAttribution, PermutationTestResult
from ..kernels.base import Kernel
from ._common import (
    check_max_block_bytes,
    check_n_permutations,
    check_permutation_memory,
    check_progress,
    permutation_p_values,
)
from ._hsic_game import _hsic_game
from ._hsic_inputs import _check_attribute, _prepare, _sides
from ._pairs import DEFAULT_BLOCK_BYTES


def _permutations(n: int, n_permutations: int, rng: np.random.Generator) -> np.ndarray:
    """(n_permutations + 1, n) row orders: the identity, then random shuffles."""
    perms = np.empty((n_permutations + 1, n), dtype=np.int64)
    perms[0] = np.arange(n)
    for p in range(n_permutations):
        perms[p + 1] = rng.permutation(n)
    return perms


def hsic_test(
    X: Any,
    Y: Any,
    *,
    kernel_x: Kernel | None = None,
    kernel_y: Kernel | None = None,
    attribute: str = "x",
    n_permutations: int = 1000,
    estimator: str = "biased",
    bandwidth: str = "median",
    standardize: bool = True,
    random_state: RandomStateLike = None,
    max_block_bytes: int = DEFAULT_BLOCK_BYTES,
    progress: bool = False,
    n_jobs: int | None = None,
) -> PermutationTestResult:
    """Permutation independence test with HSIC, its attribution and per-variable p-values.

    Y's rows are shuffled against X's ``n_permutations`` times; each shuffle changes only the
    pair weights of the X game, so one pass over X's pairs gives the null statistics and the null
    Shapley values (as in :func:`hsic_shapley`) of every variable.  For ``attribute="y"`` (or
    "both") the Y game uses the inverse shuffles of X's rows, which give the same null statistics.
    The p-values are ``(1 + #{null >= observed}) / (1 + n_permutations)``; the per-variable ones
    are taken under the global null of independence (not a per-variable null) and are not
    corrected for multiplicity.  Cost: n^2 / 2 pairs times (d + n_permutations (1 + d_other)).

    Parameters
    ----------
    X : array-like of shape (n, d_x)
        Rows of the first set of variables, as in :func:`hsic_shapley`.
    Y : array-like of shape (n, d_y) or (n,)
        Paired with X row for row, as in :func:`hsic_shapley`.
    kernel_x : kexplain product kernel, optional
        Kernel of X, as in :func:`hsic`.
    kernel_y : kexplain product kernel, optional
        Kernel of Y, as in :func:`hsic`.
    attribute : {"x", "y", "both"}, default "x"
        Whose variables get the Shapley values.
    n_permutations : int, default 1000
        Number of random shuffles of Y's rows.  Every shuffle and its null attribution are kept,
        so a number whose memory cannot fit (more than half of the machine's) is refused up front
        with a ValueError.
    estimator : {"biased", "unbiased"}, default "biased"
        As in :func:`hsic`.
    bandwidth : {"median", "median_per_feature"}, default "median"
        As in :func:`hsic`.
    standardize : bool, default True
        As in :func:`hsic`.
    random_state : None, int, numpy Generator, RandomState or SeedSequence
        Seeds the shuffles.
    max_block_bytes : int, default 32 MiB
        Bound on the memory of one block of pairs; it never changes the result.
    progress : bool, default False
        Show a progress bar over the pairs (needs tqdm).
    n_jobs : int, optional
        Threads over blocks of pairs (None: 1; -1: every core); the same result for every
        ``n_jobs``.

    Returns
    -------
    PermutationTestResult
        ``statistic`` and ``p_value``; ``attribution``, a GlobalAttribution of HSIC whose
        ``p_values`` are the per-variable p-values (also ``feature_p_values``), or the pair
        ``(x, y)`` of them for ``attribute="both"``; ``null_distribution`` (n_permutations,) and
        ``null_attributions`` (n_permutations, d), or a pair of them.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.stats import hsic_test
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 3))
    >>> y = np.cos(2 * X[:, 2]) + 0.2 * rng.normal(size=40)
    >>> res = hsic_test(X, y, n_permutations=99, random_state=0)
    >>> print(f"p = {res.p_value:.2f}")
    p = 0.01
    >>> np.round(res.feature_p_values, 2)
    array([0.46, 0.19, 0.01])
    """
    attribute = _check_attribute(attribute)
    n_permutations = check_n_permutations(n_permutations)
    rng = check_random_state(random_state, "random_state")
    max_block_bytes = check_max_block_bytes(max_block_bytes)
    progress = check_progress(progress)
    n_jobs = check_n_jobs(n_jobs)
    Xa, xnames, kx_, Ya, ynames, ky_, estimator, notes = _prepare(
        X, Y, kernel_x, kernel_y, estimator, bandwidth, standardize
    )
    n = len(Xa)
    check_permutation_memory(n_permutations, n, Xa.shape[1] + Ya.shape[1], 16)
    perms = _permutations(n, n_permutations, rng)
    inverse = np.argsort(perms, axis=1)
    games = {"x": (Xa, kx_, Ya, ky_, perms, xnames), "y": (Ya, ky_, Xa, kx_, inverse, ynames)}
    stats: np.ndarray | None = None
    p_value = 1.0
    atts: dict[str, GlobalAttribution] = {}
    nulls: dict[str, np.ndarray] = {}
    for side in _sides(attribute):
        A_data, ka, B_data, kb, side_perms, names = games[side]
        side_stats, phis, _, _ = _hsic_game(
            A_data, ka, B_data, kb, estimator, side_perms, None, None, max_block_bytes, progress, n_jobs
        )
        if stats is None:  # both games give the same statistics; report the first one's
            stats = side_stats
            p_value = float(permutation_p_values(stats[0], stats[1:]))
        atts[side] = GlobalAttribution(
            phis[0],
            side_stats[0],
            names,
            "HSIC",
            p_values=permutation_p_values(phis[0], phis[1:]),
            p_value=p_value,
            estimator=estimator,
            kernel=ka,
            info={"side": side, "incomplete": False, "kernel_other": kb, "notes": notes},
            game="HSIC",
        )
        nulls[side] = phis[1:]
    assert stats is not None
    if attribute == "both":
        return PermutationTestResult(
            stats[0], p_value, (atts["x"], atts["y"]), stats[1:], (nulls["x"], nulls["y"]), n_permutations, "HSIC"
        )
    return PermutationTestResult(
        stats[0], p_value, atts[attribute], stats[1:], nulls[attribute], n_permutations, "HSIC"
    )

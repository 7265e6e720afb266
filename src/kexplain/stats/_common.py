"""Argument checks, permutation p-values and the block loop shared by the MMD and HSIC attributions."""

from __future__ import annotations

from collections.abc import Callable
from numbers import Integral
from typing import Any

import numpy as np

from .._validation import check_bool
from ._pairs import pair_contributions

ESTIMATORS = ("unbiased", "biased")

#: draws ``size`` sample pairs: (rng, size) -> (first rows, second rows)
PairSampler = Callable[[np.random.Generator, int], tuple[np.ndarray, np.ndarray]]


def check_estimator_name(estimator: Any) -> str:
    if estimator not in ESTIMATORS:
        raise ValueError(f"estimator must be 'unbiased' or 'biased', got {estimator!r}.")
    return str(estimator)


def check_n_permutations(n_permutations: Any) -> int:
    if isinstance(n_permutations, (bool, np.bool_)) or not isinstance(n_permutations, Integral) or n_permutations < 1:
        raise ValueError(f"n_permutations must be a positive integer, got {n_permutations!r}.")
    return int(n_permutations)


def check_n_pairs(n_pairs: Any, minimum: int = 8) -> int | None:
    if n_pairs is None:
        return None
    if isinstance(n_pairs, (bool, np.bool_)) or not isinstance(n_pairs, Integral) or n_pairs < minimum:
        raise ValueError(
            f"n_pairs must be None (all pairs: the complete statistic) or an integer >= {minimum} "
            f"(the number of randomly drawn pairs of an incomplete U-statistic), got {n_pairs!r}."
        )
    return int(n_pairs)


def check_max_block_bytes(max_block_bytes: Any) -> int:
    if (
        isinstance(max_block_bytes, (bool, np.bool_))
        or not isinstance(max_block_bytes, Integral)
        or max_block_bytes < 1
    ):
        raise ValueError(f"max_block_bytes must be a positive integer, got {max_block_bytes!r}.")
    return int(max_block_bytes)


def check_progress(progress: Any) -> bool:
    return check_bool(progress, "progress")


def progress_bar(total: int, enabled: bool, desc: str) -> Any:
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="pair")


def permutation_p_values(observed: Any, null: Any) -> Any:
    """(1 + #{null >= observed}) / (1 + P), elementwise over trailing axes; ``null`` is (P, ...).

    A relabelling equal to the observed one (or a symmetric one) reproduces the observed value
    only up to summation order, so ties are counted with a relative tolerance of 1e-12.
    """
    null = np.asarray(null)
    observed = np.asarray(observed)
    return (1.0 + np.sum(null >= observed[None] - 1e-12 * np.abs(observed), axis=0)) / (1.0 + null.shape[0])


class PairMoments:
    """Running sums of per-pair contributions (and their squares) for incomplete U-statistics."""

    def __init__(self, d: int) -> None:
        self.count = 0
        self.psi = np.zeros(d)
        self.psi2 = np.zeros(d)
        self.k = 0.0
        self.k2 = 0.0

    def add(self, psi: np.ndarray, kval: np.ndarray) -> None:
        self.count += len(kval)
        self.psi += psi.sum(axis=0)
        self.psi2 += np.einsum("rd,rd->d", psi, psi)
        self.k += float(kval.sum())
        self.k2 += float(kval @ kval)

    def mean_var(self) -> tuple[np.ndarray, np.ndarray, float, float]:
        """Means and (ddof=1) variances of psi (d,) and of the kernel value."""
        c = self.count
        mp, mk = self.psi / c, self.k / c
        vp = np.maximum(self.psi2 - c * mp * mp, 0.0) / max(c - 1, 1)
        vk = max(self.k2 - c * mk * mk, 0.0) / max(c - 1, 1)
        return mp, vp, mk, vk


def sampled_moments(
    kernel: Any,
    P: np.ndarray,
    Q: np.ndarray,
    sample_pairs: PairSampler,
    n_draws: int,
    rng: np.random.Generator,
    block: int,
    d: int,
) -> PairMoments:
    """Moments of per-pair contributions over ``n_draws`` pairs drawn by ``sample_pairs(rng, size)``."""
    mom = PairMoments(d)
    done = 0
    while done < n_draws:
        size = min(block, n_draws - done)
        i, j = sample_pairs(rng, size)
        psi, kval = pair_contributions(kernel, P[i], Q[j])
        mom.add(psi, kval)
        done += size
    return mom

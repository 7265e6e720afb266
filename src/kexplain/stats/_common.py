"""Argument checks and the block loop shared by the MMD and HSIC attributions."""
from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.utils import check_random_state

from ._pairs import pair_contributions

ESTIMATORS = ("unbiased", "biased")


def check_estimator_name(estimator) -> str:
    if estimator not in ESTIMATORS:
        raise ValueError(f"estimator must be 'unbiased' or 'biased', got {estimator!r}.")
    return estimator


def check_n_permutations(n_permutations) -> int:
    if isinstance(n_permutations, (bool, np.bool_)) or not isinstance(n_permutations, Integral) or n_permutations < 1:
        raise ValueError(f"n_permutations must be a positive integer, got {n_permutations!r}.")
    return int(n_permutations)


def check_n_pairs(n_pairs, minimum: int = 8):
    if n_pairs is None:
        return None
    if isinstance(n_pairs, (bool, np.bool_)) or not isinstance(n_pairs, Integral) or n_pairs < minimum:
        raise ValueError(
            f"n_pairs must be None (all pairs: the complete statistic) or an integer >= {minimum} "
            f"(the number of randomly drawn pairs of an incomplete U-statistic), got {n_pairs!r}."
        )
    return int(n_pairs)


def rng_of(random_state):
    return check_random_state(random_state)


def progress_bar(total, enabled, desc):
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="pair")


class PairMoments:
    """Running sums of per-pair contributions (and their squares) for incomplete U-statistics."""

    def __init__(self, d):
        self.count = 0
        self.psi = np.zeros(d)
        self.psi2 = np.zeros(d)
        self.k = 0.0
        self.k2 = 0.0

    def add(self, psi, kval):
        self.count += len(kval)
        self.psi += psi.sum(axis=0)
        self.psi2 += np.einsum("rd,rd->d", psi, psi)
        self.k += kval.sum()
        self.k2 += kval @ kval

    def mean_var(self):
        """Means and (ddof=1) variances of psi (d,) and of the kernel value."""
        c = self.count
        mp, mk = self.psi / c, self.k / c
        vp = np.maximum(self.psi2 - c * mp * mp, 0.0) / max(c - 1, 1)
        vk = max(self.k2 - c * mk * mk, 0.0) / max(c - 1, 1)
        return mp, vp, mk, vk


def sampled_moments(kernel, P, Q, sample_pairs, n_draws, rng, block, d):
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

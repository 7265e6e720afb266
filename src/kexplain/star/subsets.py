"""Distributions p_[n] over feature subsets for STAR RKHS Weightings (seed 004 section 4.3).

Each distribution samples subsets (sorted tuples of column indices) and gives the probability
p_[n](I) of a subset, the factor that multiplies its term in equation 29.
"""
from __future__ import annotations

from math import comb

import numpy as np


class SubsetDistribution:
    """Base class: ``sample(T, rng)`` -> list of T tuples; ``probability(I)`` -> float."""

    name = ""

    def __init__(self, n_features: int, order: int):
        for nm, v in (("n_features", n_features), ("interaction_order", order)):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"{nm} must be a positive integer, got {v!r}.")
        if order > n_features:
            raise ValueError(
                f"interaction_order={order} exceeds the number of features ({n_features}); "
                f"use an order between 1 and {n_features}."
            )
        self.n_features = int(n_features)
        self.order = int(order)

    def sample(self, n: int, rng: np.random.Generator) -> list[tuple]:
        raise NotImplementedError

    def probability(self, subset) -> float:
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}(n_features={self.n_features}, order={self.order})"


class UniformSubsets(SubsetDistribution):
    """Uniform over the C(n, k) subsets of size exactly k."""

    name = "size"

    def sample(self, n, rng):
        return [tuple(sorted(rng.choice(self.n_features, self.order, replace=False).tolist())) for _ in range(n)]

    def probability(self, subset):
        return 1.0 / comb(self.n_features, self.order) if len(subset) == self.order else 0.0


class UniformUpTo(SubsetDistribution):
    """Size uniform on 1..k, then a uniform subset of that size: p(I) = 1 / (k C(n, |I|))."""

    name = "up_to"

    def sample(self, n, rng):
        sizes = rng.integers(1, self.order + 1, size=n)
        return [tuple(sorted(rng.choice(self.n_features, s, replace=False).tolist())) for s in sizes]

    def probability(self, subset):
        s = len(subset)
        return 1.0 / (self.order * comb(self.n_features, s)) if 1 <= s <= self.order else 0.0


class Sequences(SubsetDistribution):
    """Uniform over the n - k + 1 runs of k adjacent features (time series, spectra)."""

    name = "sequences"

    def sample(self, n, rng):
        starts = rng.integers(0, self.n_features - self.order + 1, size=n)
        return [tuple(range(s, s + self.order)) for s in starts.tolist()]

    def probability(self, subset):
        ok = len(subset) == self.order and all(b - a == 1 for a, b in zip(subset, subset[1:]))
        return 1.0 / (self.n_features - self.order + 1) if ok else 0.0


class SequencesUpTo(SubsetDistribution):
    """Length uniform on 1..k, then a uniform run of that length: p(I) = 1 / (k (n - |I| + 1))."""

    name = "sequences_up_to"

    def sample(self, n, rng):
        lengths = rng.integers(1, self.order + 1, size=n)
        out = []
        for L in lengths.tolist():
            s = int(rng.integers(0, self.n_features - L + 1))
            out.append(tuple(range(s, s + L)))
        return out

    def probability(self, subset):
        s = len(subset)
        ok = 1 <= s <= self.order and all(b - a == 1 for a, b in zip(subset, subset[1:]))
        return 1.0 / (self.order * (self.n_features - s + 1)) if ok else 0.0


SUBSET_DISTRIBUTIONS = {c.name: c for c in (UniformSubsets, UniformUpTo, Sequences, SequencesUpTo)}


def make_subset_distribution(subsets, n_features: int, order: int) -> SubsetDistribution:
    """A distribution from its name ("size", "up_to", "sequences", "sequences_up_to") or as given."""
    if isinstance(subsets, SubsetDistribution):
        return subsets
    if subsets not in SUBSET_DISTRIBUTIONS:
        raise ValueError(
            f"subsets must be one of {sorted(SUBSET_DISTRIBUTIONS)} or a SubsetDistribution, got {subsets!r}."
        )
    return SUBSET_DISTRIBUTIONS[subsets](n_features, order)

"""Distributions p_[n] over feature subsets for STAR RKHS Weightings.

Dubé & Marchand, "Shapley Values of Structured Additive Regression Models and Application to
RKHS Weightings of Functions", section 4.3: each distribution samples subsets (sorted tuples of
column indices) and gives the probability p_[n](I) of a subset, the factor that multiplies its
term in their equation 29.  Uniform subsets of size k make p_[n](I) ~ 1/n^k, so the paper
recommends runs of adjacent features (sequences) for many features.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb
from typing import Any

import numpy as np

from .._params import Integer, check_param


class SubsetDistribution:
    """Base class of the distributions over feature subsets.

    Subclasses implement ``sample(n, rng)`` (a list of n sorted tuples of column indices) and
    ``probability(subset)`` (p_[n](I)); pass one as ``subsets=`` to the RKHS Weighting estimators.

    Parameters
    ----------
    n_features : int
        Number of features n.
    order : int
        Largest subset size k (the interaction order), at most ``n_features``.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.star import SubsetDistribution
    >>> class FirstFeatures(SubsetDistribution):
    ...     name = "first"
    ...     def sample(self, n, rng):
    ...         return [tuple(range(self.order))] * n
    ...     def probability(self, subset):
    ...         return float(tuple(subset) == tuple(range(self.order)))
    >>> FirstFeatures(5, 2).sample(2, np.random.default_rng(0))
    [(0, 1), (0, 1)]
    """

    name = ""

    def __init__(self, n_features: int, order: int) -> None:
        for nm, v in (("n_features", n_features), ("interaction_order", order)):
            check_param(v, nm, Integer(1))
        if order > n_features:
            raise ValueError(
                f"interaction_order={order} exceeds the number of features ({n_features}); "
                f"use an order between 1 and {n_features}."
            )
        self.n_features = int(n_features)
        self.order = int(order)

    def sample(self, n: int, rng: np.random.Generator) -> list[tuple[int, ...]]:
        """Draw ``n`` subsets (sorted tuples of column indices).

        Parameters
        ----------
        n : int
            Number of subsets to draw.
        rng : numpy.random.Generator
            Source of the draws.
        """
        raise NotImplementedError

    def probability(self, subset: Sequence[int]) -> float:
        """p_[n](I), the probability of drawing ``subset``.

        Parameters
        ----------
        subset : sequence of int
            Feature positions.
        """
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(n_features={self.n_features}, order={self.order})"


class UniformSubsets(SubsetDistribution):
    """Uniform over the C(n, k) subsets of size exactly k (``subsets="size"``).

    Parameters
    ----------
    n_features : int
        Number of features n.
    order : int
        Subset size k.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.star import UniformSubsets
    >>> dist = UniformSubsets(4, 2)
    >>> dist.sample(2, np.random.default_rng(0)), dist.probability((0, 3))
    ([(2, 3), (0, 1)], 0.16666666666666666)
    """

    name = "size"

    def sample(self, n: int, rng: np.random.Generator) -> list[tuple[int, ...]]:
        """Draw ``n`` subsets of size k.

        Parameters
        ----------
        n : int
            Number of subsets to draw.
        rng : numpy.random.Generator
            Source of the draws.

        Returns
        -------
        list of tuple of int
            The subsets, each a sorted tuple of feature positions.
        """
        return [tuple(sorted(rng.choice(self.n_features, self.order, replace=False).tolist())) for _ in range(n)]

    def probability(self, subset: Sequence[int]) -> float:
        """1 / C(n, k) for a subset of size k, else 0.

        Parameters
        ----------
        subset : sequence of int
            Feature positions.

        Returns
        -------
        float
            The probability of drawing ``subset``.
        """
        return 1.0 / comb(self.n_features, self.order) if len(subset) == self.order else 0.0


class UniformUpTo(SubsetDistribution):
    """Size uniform on 1..k, then a uniform subset of that size (``subsets="up_to"``).

    ``p(I) = 1 / (k C(n, |I|))``.

    Parameters
    ----------
    n_features : int
        Number of features n.
    order : int
        Largest subset size k.

    Examples
    --------
    >>> from kexplain.star import UniformUpTo
    >>> dist = UniformUpTo(4, 2)
    >>> dist.probability((1,)), dist.probability((0, 2))
    (0.125, 0.08333333333333333)
    """

    name = "up_to"

    def sample(self, n: int, rng: np.random.Generator) -> list[tuple[int, ...]]:
        """Draw ``n`` subsets of sizes 1..k.

        Parameters
        ----------
        n : int
            Number of subsets to draw.
        rng : numpy.random.Generator
            Source of the draws.

        Returns
        -------
        list of tuple of int
            The subsets, each a sorted tuple of feature positions.
        """
        sizes = rng.integers(1, self.order + 1, size=n)
        return [tuple(sorted(rng.choice(self.n_features, s, replace=False).tolist())) for s in sizes]

    def probability(self, subset: Sequence[int]) -> float:
        """``1 / (k C(n, |I|))`` for ``1 <= |I| <= k``, else 0.

        Parameters
        ----------
        subset : sequence of int
            Feature positions.

        Returns
        -------
        float
            The probability of drawing ``subset``.
        """
        s = len(subset)
        return 1.0 / (self.order * comb(self.n_features, s)) if 1 <= s <= self.order else 0.0


class Sequences(SubsetDistribution):
    """Uniform over the n - k + 1 runs of k adjacent features (``subsets="sequences"``).

    Suited to time series and spectra, where neighbouring features interact.

    Parameters
    ----------
    n_features : int
        Number of features n.
    order : int
        Run length k.

    Examples
    --------
    >>> from kexplain.star import Sequences
    >>> dist = Sequences(5, 2)
    >>> dist.probability((1, 2)), dist.probability((1, 3))
    (0.25, 0.0)
    """

    name = "sequences"

    def sample(self, n: int, rng: np.random.Generator) -> list[tuple[int, ...]]:
        """Draw ``n`` runs of k adjacent features.

        Parameters
        ----------
        n : int
            Number of subsets to draw.
        rng : numpy.random.Generator
            Source of the draws.

        Returns
        -------
        list of tuple of int
            The subsets, each a sorted tuple of feature positions.
        """
        starts = rng.integers(0, self.n_features - self.order + 1, size=n)
        return [tuple(range(s, s + self.order)) for s in starts.tolist()]

    def probability(self, subset: Sequence[int]) -> float:
        """1 / (n - k + 1) for a run of k adjacent features, else 0.

        Parameters
        ----------
        subset : sequence of int
            Feature positions.

        Returns
        -------
        float
            The probability of drawing ``subset``.
        """
        ok = len(subset) == self.order and all(b - a == 1 for a, b in zip(subset, subset[1:]))
        return 1.0 / (self.n_features - self.order + 1) if ok else 0.0


class SequencesUpTo(SubsetDistribution):
    """Length uniform on 1..k, then a uniform run of that length (``subsets="sequences_up_to"``).

    ``p(I) = 1 / (k (n - |I| + 1))``.

    Parameters
    ----------
    n_features : int
        Number of features n.
    order : int
        Largest run length k.

    Examples
    --------
    >>> from kexplain.star import SequencesUpTo
    >>> dist = SequencesUpTo(5, 2)
    >>> dist.probability((3,)), dist.probability((3, 4))
    (0.1, 0.125)
    """

    name = "sequences_up_to"

    def sample(self, n: int, rng: np.random.Generator) -> list[tuple[int, ...]]:
        """Draw ``n`` runs of lengths 1..k.

        Parameters
        ----------
        n : int
            Number of subsets to draw.
        rng : numpy.random.Generator
            Source of the draws.

        Returns
        -------
        list of tuple of int
            The subsets, each a sorted tuple of feature positions.
        """
        lengths = rng.integers(1, self.order + 1, size=n)
        out: list[tuple[int, ...]] = []
        for L in lengths.tolist():
            s = int(rng.integers(0, self.n_features - L + 1))
            out.append(tuple(range(s, s + L)))
        return out

    def probability(self, subset: Sequence[int]) -> float:
        """``1 / (k (n - |I| + 1))`` for a run of length 1..k, else 0.

        Parameters
        ----------
        subset : sequence of int
            Feature positions.

        Returns
        -------
        float
            The probability of drawing ``subset``.
        """
        s = len(subset)
        ok = 1 <= s <= self.order and all(b - a == 1 for a, b in zip(subset, subset[1:]))
        return 1.0 / (self.order * (self.n_features - s + 1)) if ok else 0.0


SUBSET_DISTRIBUTIONS: dict[str, type[SubsetDistribution]] = {
    c.name: c for c in (UniformSubsets, UniformUpTo, Sequences, SequencesUpTo)
}


def make_subset_distribution(subsets: Any, n_features: int, order: int) -> SubsetDistribution:
    """A distribution from its name ("size", "up_to", "sequences", "sequences_up_to") or as given.

    Parameters
    ----------
    subsets : str or SubsetDistribution
        The name, or a distribution (returned as is).
    n_features, order : int
        Passed to the named distribution.

    Returns
    -------
    SubsetDistribution

    Examples
    --------
    >>> from kexplain.star.subsets import make_subset_distribution
    >>> make_subset_distribution("sequences", 6, 3)
    Sequences(n_features=6, order=3)
    """
    if isinstance(subsets, SubsetDistribution):
        return subsets
    if subsets not in SUBSET_DISTRIBUTIONS:
        raise ValueError(
            f"subsets must be one of {sorted(SUBSET_DISTRIBUTIONS)} or a SubsetDistribution, got {subsets!r}."
        )
    return SUBSET_DISTRIBUTIONS[subsets](n_features, order)

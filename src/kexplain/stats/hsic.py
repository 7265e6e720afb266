"""HSIC between two samples, its exact Shapley attribution to either side's variables, and the test.

Mohammadi, Chau & Muandet (2025), "Computing Exact Shapley Values in Polynomial Time for
Product-Kernel Methods" (PKeX-Shapley), section 4.2 and appendix G: for a coalition S of X's
variables,

    v(S) = tr(K_S H L H) / (n - 1)^2 = sum_{a,b} K_S[a, b] (HLH)[a, b] / (n - 1)^2,

with K_S the Hadamard product of the per-feature kernel matrices in S.  That is a product game
whose rows are the sample pairs (a, b) with weights c_ab = (HLH)_ab / (n - 1)^2; the diagonal
pairs have all factors 1 and only add a constant.  The weights of a doubly centred matrix sum to
zero, so v(empty) = 0 and the values sum exactly to HSIC.  Attributing to Y's variables is the same
game with the roles swapped (appendix G).

The code lives by idea in sibling modules, and every name, private ones included, is still
imported from here: ``_hsic_inputs`` (both sides validated, the default kernels), ``_hsic_game``
(the pair weights c_ab, HLH never formed, and the games over all or drawn pairs) and
``hsic_permutation`` (:func:`hsic_test`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._typing import RandomStateLike
from .._validation import check_n_jobs, check_random_state
from ..attribution import GlobalAttribution
from ..kernels.base import Kernel
from ._common import (
    check_max_block_bytes,
    check_n_pairs,
    check_progress,
    seed_entropy,
)
from ._hsic_game import _GRAM_BLOCK_ELEMS as _GRAM_BLOCK_ELEMS
from ._hsic_game import _CentredWeights as _CentredWeights
from ._hsic_game import _hsic_game as _hsic_game
from ._hsic_game import _HSICDraws as _HSICDraws
from ._hsic_game import _HSICPairs as _HSICPairs
from ._hsic_game import _row_sums as _row_sums
from ._hsic_inputs import ATTRIBUTES as ATTRIBUTES
from ._hsic_inputs import _check_attribute as _check_attribute
from ._hsic_inputs import _label_columns as _label_columns
from ._hsic_inputs import _prepare as _prepare
from ._hsic_inputs import _prepare_side as _prepare_side
from ._hsic_inputs import _sides as _sides
from ._kernels import amplitude
from ._pairs import DEFAULT_BLOCK_BYTES, add_in_order, run_tasks, task_ranges
from .hsic_permutation import _permutations as _permutations
from .hsic_permutation import hsic_test as hsic_test


def hsic(
    X: Any,
    Y: Any,
    *,
    kernel_x: Kernel | None = None,
    kernel_y: Kernel | None = None,
    estimator: str = "biased",
    bandwidth: str = "median",
    standardize: bool = True,
    n_jobs: int | None = None,
) -> float:
    """HSIC between paired samples X and Y: how strongly they depend on each other.

    Parameters
    ----------
    X : array-like of shape (n, d_x)
        The first variables (a DataFrame's columns name them).
    Y : array-like of shape (n, d_y) or (n,)
        The second variables, row for row paired with X: for instance a regression target or
        class labels.
    kernel_x, kernel_y : kexplain product kernel, optional
        None: an RBF with the median heuristic on that side (see ``bandwidth``); columns of text,
        booleans or other non-numbers get the delta kernel ``Categorical(mismatch=0)`` instead
        (each such column alone, the numeric columns keep the RBF; the result's ``info["notes"]``
        says which).  Pass ``kx.kernels.Categorical(mismatch=0)`` yourself for integer class labels.
    estimator : {"biased", "unbiased"}, default "biased"
        "biased": ``tr(K H L H) / (n - 1)^2``, the estimator of Mohammadi, Chau & Muandet (2025,
        section 4.2).  "unbiased": the estimator of Song et al. (2012); needs n >= 4 and can be
        slightly negative.
    bandwidth : {"median", "median_per_feature"}, default "median"
        "median": one lengthscale per side, the median Euclidean distance over that side's
        variables; "median_per_feature": one per variable.  Ignored for a side whose kernel is given.
    standardize : bool, default True
        Compute the median heuristic on variables scaled to unit standard deviation, so that no
        variable dominates the distance because of its units (the RBF then has lengthscale
        ell * sd_j for variable j).  False: on the raw variables.  Ignored for a side whose
        kernel is given.
    n_jobs : int, optional
        Threads over blocks of rows (None: 1; -1: every core); blocks are added in a fixed order,
        so the result is the same for every ``n_jobs``.

    Returns
    -------
    float
        The HSIC estimate.

    See Also
    --------
    hsic_shapley : the same number split over the variables.
    hsic_test : a permutation test of independence.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.stats import hsic
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(50, 2))
    >>> y = np.sin(2 * X[:, 0]) + 0.1 * rng.normal(size=50)
    >>> print(f"{hsic(X, y):.3f}")
    0.022
    """
    n_jobs = check_n_jobs(n_jobs)
    Xa, _, kx_, Ya, _, ky_, estimator, _ = _prepare(X, Y, kernel_x, kernel_y, estimator, bandwidth, standardize)
    weights = _CentredWeights(ky_, Ya, estimator, n_jobs)
    n = len(Xa)
    step = max(1, _GRAM_BLOCK_ELEMS // max(1, n * max(Xa.shape[1], Ya.shape[1])))

    def task(s0: int, s1: int) -> list[tuple[float, int]]:
        out = []
        for s in range(s0 * step, min(n, s1 * step), step):
            rows = np.arange(s, min(n, s + step))
            K = kx_(Xa[rows], Xa)
            a = np.repeat(rows, n).reshape(len(rows), n)
            b = np.broadcast_to(np.arange(n), (len(rows), n))
            C = weights.offdiag(a, b)
            C[np.arange(len(rows)), rows] = 0.0  # the diagonal is in the constant
            out.append((float(np.sum(K * C)), 0))
        return out

    acc = add_in_order(run_tasks(task, task_ranges(n, step, 1), n_jobs), [np.zeros(())])
    return float(amplitude(kx_) * weights.diagonal_constant() + acc[0])


def hsic_shapley(
    X: Any,
    Y: Any,
    *,
    kernel_x: Kernel | None = None,
    kernel_y: Kernel | None = None,
    attribute: str = "x",
    estimator: str = "biased",
    bandwidth: str = "median",
    standardize: bool = True,
    n_pairs: int | None = None,
    random_state: RandomStateLike = None,
    max_block_bytes: int = DEFAULT_BLOCK_BYTES,
    progress: bool = False,
    n_jobs: int | None = None,
) -> GlobalAttribution | tuple[GlobalAttribution, GlobalAttribution]:
    """Split the HSIC between X and Y over the variables of X, of Y, or of both (exact Shapley values).

    The value of a coalition S of X's variables is the HSIC computed with X's kernel restricted
    to S (the factors of the other variables set to 1) and Y's kernel whole: Mohammadi, Chau &
    Muandet (2025), section 4.2.  The values sum exactly to HSIC, so a variable's value is its
    share of the dependence; for a target Y that ranks the features by how much they carry about
    it.  ``attribute="y"`` plays the same game on Y's variables with X's kernel whole, and
    ``"both"`` plays the two games (the paper's appendix G, multivariate HSIC).

    Parameters
    ----------
    X : array-like of shape (n, d_x)
        Rows of the first set of variables.
    Y : array-like of shape (n, d_y) or (n,)
        Paired with X row for row, e.g. a regression target or class labels.
    kernel_x, kernel_y : kexplain product kernel, optional
        As in :func:`hsic`.
    attribute : {"x", "y", "both"}, default "x"
        Whose variables get the Shapley values.
    estimator : {"biased", "unbiased"}, default "biased"
        As in :func:`hsic`.
    bandwidth : {"median", "median_per_feature"}, default "median"
        As in :func:`hsic`.
    standardize : bool, default True
        As in :func:`hsic`.
    n_pairs : int, optional
        None: all n(n - 1)/2 pairs of rows (the complete statistic).  An integer (at least 8): an
        incomplete estimate over that many pairs drawn at random (with replacement), with
        ``standard_errors`` and ``total_standard_error`` against the complete statistic; the
        other side's centring still uses all pairs (O(n^2) kernel evaluations on that side only).
    random_state : None, int, numpy Generator, RandomState or SeedSequence
        Seeds the pairs drawn for ``n_pairs``; it has no effect on the complete statistic.  Each
        chunk of drawn pairs has its own stream (``numpy.random.SeedSequence`` children of one
        root seed), so the draws never depend on ``max_block_bytes``, ``n_jobs`` or workers.
    max_block_bytes : int, default 32 MiB
        Bound on the memory of one block of pairs (a floor of about 1 MiB per thread applies); it
        never changes the result (fixed tiles of pairs, added in order).
    progress : bool, default False
        Show a progress bar over the pairs (needs tqdm).
    n_jobs : int, optional
        Threads over blocks of pairs (None: 1; -1: every core); the same result, bit for bit,
        for every ``n_jobs``.

    Returns
    -------
    GlobalAttribution or tuple of two
        ``values`` per variable, ``total`` (the HSIC), ``quantity`` "HSIC", ``estimator``,
        ``kernel`` (the attributed side's kernel; ``info["kernel_other"]`` is the other side's,
        ``info["side"]`` says which side; ``info["notes"]`` lists the default kernel's choices for
        label columns).  For ``attribute="both"``, the pair ``(x, y)`` of two such attributions,
        each summing to the same HSIC.

    See Also
    --------
    hsic_test : the same attribution with permutation p-values.
    HSICShapleySelector : feature selection by these values.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.stats import hsic_shapley
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(50, 3))
    >>> y = np.sin(2 * X[:, 2]) + 0.1 * rng.normal(size=50)
    >>> att = hsic_shapley(X, y)
    >>> att.quantity, att.ranking()[0]
    ('HSIC', 'x2')
    >>> print(f"HSIC = {att.total:.4f}, share of x2 = {att.values[2] / att.total:.2f}")
    HSIC = 0.0105, share of x2 = 1.04
    >>> att_x, att_y = hsic_shapley(X, np.c_[y, rng.normal(size=50)], attribute="both")
    >>> att_y.feature_names, bool(np.isclose(att_x.total, att_y.total))
    (['y0', 'y1'], True)
    """
    attribute = _check_attribute(attribute)
    n_pairs = check_n_pairs(n_pairs)
    rng = check_random_state(random_state, "random_state")
    max_block_bytes = check_max_block_bytes(max_block_bytes)
    progress = check_progress(progress)
    n_jobs = check_n_jobs(n_jobs)
    Xa, xnames, kx_, Ya, ynames, ky_, estimator, notes = _prepare(
        X, Y, kernel_x, kernel_y, estimator, bandwidth, standardize
    )
    entropy = seed_entropy(rng)
    out = {}
    sides = {"x": (Xa, kx_, Ya, ky_, xnames), "y": (Ya, ky_, Xa, kx_, ynames)}
    for side in _sides(attribute):
        A_data, ka, B_data, kb, names = sides[side]
        stats, phis, se, se_total = _hsic_game(
            A_data,
            ka,
            B_data,
            kb,
            estimator,
            n_pairs=n_pairs,
            entropy=entropy,
            max_block_bytes=max_block_bytes,
            progress=progress,
            n_jobs=n_jobs,
            side=0 if side == "x" else 1,
        )
        out[side] = GlobalAttribution(
            phis[0],
            stats[0],
            names,
            "HSIC",
            standard_errors=se,
            total_standard_error=se_total,
            estimator=estimator,
            kernel=ka,
            info={"side": side, "incomplete": n_pairs is not None, "kernel_other": kb, "notes": notes},
            game="HSIC",
        )
    if attribute == "both":
        return out["x"], out["y"]
    return out[attribute]

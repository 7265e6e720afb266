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

from .._validation import check_random_state, feature_names_of
from ..explanation import GlobalAttribution, PermutationTestResult
from ..kernels.base import Kernel
from ._common import (
    PairSampler,
    check_estimator_name,
    check_max_block_bytes,
    check_n_pairs,
    check_n_permutations,
    check_progress,
    permutation_p_values,
    progress_bar,
    sampled_moments,
)
from ._kernels import amplitude, resolve_kernel, validate_sample
from ._pairs import DEFAULT_BLOCK_BYTES, block_rows, n_within_pairs, pair_contributions, within_pairs

_GRAM_BLOCK_ELEMS = 2**22


def _prepare(X: Any, Z: Any, kernel: Any, bandwidth: Any) -> tuple[np.ndarray, np.ndarray, list[str], Kernel]:
    if kernel is not None:
        resolve_kernel(kernel, None, "kernel")
    Xa, names = validate_sample(X, kernel, "X", min_rows=2)
    Za, znames = validate_sample(Z, kernel, "Z", min_rows=2, n_features=Xa.shape[1])
    if feature_names_of(X) is not None and feature_names_of(Z) is not None and znames != names:
        raise ValueError(f"the columns of Z ({znames}) differ from those of X ({names}); align them first.")
    kernel = resolve_kernel(kernel, (Xa, Za), "kernel", bandwidth)
    return Xa, Za, names, kernel


def _weights(n: int, m: int, estimator: str) -> tuple[float, float, float, float]:
    """(w_xx, w_zz, w_xz) per unordered pair, and the constant from the diagonal pairs (per unit amplitude)."""
    if estimator == "unbiased":
        return 2.0 / (n * (n - 1)), 2.0 / (m * (m - 1)), -2.0 / (n * m), 0.0
    return 2.0 / n**2, 2.0 / m**2, -2.0 / (n * m), 1.0 / n + 1.0 / m


def _gram_sum(kernel: Kernel, P: np.ndarray, Q: np.ndarray) -> float:
    """sum_{i,j} k(P_i, Q_j) in row blocks (memory bounded)."""
    step = max(1, _GRAM_BLOCK_ELEMS // max(1, len(Q) * P.shape[1]))
    return float(sum(kernel(P[s : s + step], Q).sum() for s in range(0, len(P), step)))


def mmd(
    X: Any, Z: Any, *, kernel: Kernel | None = None, estimator: str = "unbiased", bandwidth: str = "median"
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
    0.064
    """
    estimator = check_estimator_name(estimator)
    Xa, Za, _, kern = _prepare(X, Z, kernel, bandwidth)
    n, m = len(Xa), len(Za)
    sxx, szz, sxz = _gram_sum(kern, Xa, Xa), _gram_sum(kern, Za, Za), _gram_sum(kern, Xa, Za)
    if estimator == "unbiased":
        A = amplitude(kern)
        return (sxx - n * A) / (n * (n - 1)) + (szz - m * A) / (m * (m - 1)) - 2.0 * sxz / (n * m)
    return sxx / n**2 + szz / m**2 - 2.0 * sxz / (n * m)


def _pooled_game(
    kernel: Kernel,
    W: np.ndarray,
    labels: np.ndarray,
    n: int,
    m: int,
    estimator: str,
    max_block_bytes: int,
    progress: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """Statistic (P,) and Shapley values (P, d) for each labelling column of ``labels`` (N, P)."""
    N, d = W.shape
    P = labels.shape[1]
    wxx, wzz, wxz, diag = _weights(n, m, estimator)
    A = amplitude(kernel)
    stats = np.zeros(P)
    phis = np.zeros((P, d))
    T = n_within_pairs(N)
    block = block_rows(d, P, max_block_bytes)
    bar = progress_bar(T, progress, "MMD pairs")
    for k0 in range(0, T, block):
        i, j = within_pairs(N, np.arange(k0, min(T, k0 + block)))
        psi, kval = pair_contributions(kernel, W[i], W[j])
        li, lj = labels[i], labels[j]
        w = np.where(li & lj, wxx, np.where(li | lj, wxz, wzz))  # (r, P)
        stats += w.T @ kval
        phis += w.T @ psi
        if bar is not None:
            bar.update(len(i))
    if bar is not None:
        bar.close()
    return A * stats + A * diag, A * phis


def _incomplete(
    kernel: Kernel,
    Xa: np.ndarray,
    Za: np.ndarray,
    estimator: str,
    n_pairs: int,
    rng: np.random.Generator,
    max_block_bytes: int,
) -> tuple[np.ndarray, float, np.ndarray, float, tuple[int, int, int]]:
    """Incomplete U-statistic: n_pairs/4 XX pairs, n_pairs/4 ZZ pairs, the rest XZ pairs, with replacement."""
    n, m, d = len(Xa), len(Za), Xa.shape[1]
    A = amplitude(kernel)
    block = block_rows(d, 1, max_block_bytes)
    b_xx = b_zz = n_pairs // 4
    b_xz = n_pairs - b_xx - b_zz

    def within(size_n: int) -> PairSampler:
        def draw(rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
            return within_pairs(size_n, rng.integers(0, n_within_pairs(size_n), size=size))

        return draw

    def cross(rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
        return rng.integers(0, n, size=size), rng.integers(0, m, size=size)

    # the biased estimator is ((n-1)/n) U_xx + A/n + ...: the same pairs, rescaled, plus constants
    sx = 1.0 if estimator == "unbiased" else (n - 1) / n
    sz = 1.0 if estimator == "unbiased" else (m - 1) / m
    const = 0.0 if estimator == "unbiased" else A * (1.0 / n + 1.0 / m)
    terms = [
        (sx, sampled_moments(kernel, Xa, Xa, within(n), b_xx, rng, block, d)),
        (sz, sampled_moments(kernel, Za, Za, within(m), b_zz, rng, block, d)),
        (-2.0, sampled_moments(kernel, Xa, Za, cross, b_xz, rng, block, d)),
    ]
    values = np.zeros(d)
    var_values = np.zeros(d)
    total = const
    var_total = 0.0
    for coef, mom in terms:
        mp, vp, mk, vk = mom.mean_var()
        values += A * coef * mp
        var_values += (A * coef) ** 2 * vp / mom.count
        total += A * coef * mk
        var_total += (A * coef) ** 2 * vk / mom.count
    return values, total, np.sqrt(var_values), float(np.sqrt(var_total)), (b_xx, b_zz, b_xz)


def mmd_shapley(
    X: Any,
    Z: Any,
    *,
    kernel: Kernel | None = None,
    estimator: str = "unbiased",
    bandwidth: str = "median",
    n_pairs: int | None = None,
    random_state: Any = None,
    max_block_bytes: int = DEFAULT_BLOCK_BYTES,
    progress: bool = False,
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
    n_pairs : int, optional
        None: the complete statistic over all (n + m)(n + m - 1)/2 pairs of rows.  An integer
        (at least 8): an incomplete U-statistic over that many randomly drawn pairs (with
        replacement: a quarter within X, a quarter within Z, half across), for large samples.
        Its ``standard_errors`` and ``total_standard_error`` measure the error against the
        complete statistic, and the values still sum exactly to the estimate.
    random_state : None, int, numpy Generator, RandomState or SeedSequence
        Seeds the pairs drawn for ``n_pairs``; it has no effect on the complete statistic.
    max_block_bytes : int, default 32 MiB
        Bound on the memory of one block of pairs.
    progress : bool, default False
        Show a progress bar over the pairs (needs tqdm).

    Returns
    -------
    GlobalAttribution
        ``values`` (one per feature), ``total`` (the MMD^2 estimate), ``quantity`` "MMD^2",
        ``estimator``, ``kernel`` (the kernel used), and for ``n_pairs`` the
        ``standard_errors`` and ``total_standard_error``.

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
    array([-0.02 ,  0.081,  0.027])
    >>> bool(np.isclose(att.values.sum(), att.total))
    True
    """
    estimator = check_estimator_name(estimator)
    n_pairs = check_n_pairs(n_pairs)
    rng = check_random_state(random_state, "random_state")
    max_block_bytes = check_max_block_bytes(max_block_bytes)
    progress = check_progress(progress)
    Xa, Za, names, kern = _prepare(X, Z, kernel, bandwidth)
    n, m = len(Xa), len(Za)
    if n_pairs is not None:
        values, total, se, se_total, split = _incomplete(kern, Xa, Za, estimator, n_pairs, rng, max_block_bytes)
        return GlobalAttribution(
            values,
            total,
            names,
            "MMD^2",
            standard_errors=se,
            total_standard_error=se_total,
            estimator=estimator,
            kernel=kern,
            info={"n_pairs": split, "incomplete": True},
        )
    W = np.concatenate([Xa, Za], axis=0)
    labels = np.concatenate([np.ones(n, bool), np.zeros(m, bool)])[:, None]
    stats, phis = _pooled_game(kern, W, labels, n, m, estimator, max_block_bytes, progress)
    return GlobalAttribution(
        phis[0], stats[0], names, "MMD^2", estimator=estimator, kernel=kern, info={"incomplete": False}
    )


def mmd_test(
    X: Any,
    Z: Any,
    *,
    kernel: Kernel | None = None,
    n_permutations: int = 1000,
    estimator: str = "unbiased",
    bandwidth: str = "median",
    random_state: Any = None,
    max_block_bytes: int = DEFAULT_BLOCK_BYTES,
    progress: bool = False,
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
    X, Z, kernel, estimator, bandwidth, max_block_bytes, progress
        As in :func:`mmd_shapley`.
    n_permutations : int, default 1000
        Number of random relabellings of the pooled sample.
    random_state : None, int, numpy Generator, RandomState or SeedSequence
        Seeds the relabellings.

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
    array([1.  , 0.01, 1.  ])
    """
    estimator = check_estimator_name(estimator)
    n_permutations = check_n_permutations(n_permutations)
    rng = check_random_state(random_state, "random_state")
    max_block_bytes = check_max_block_bytes(max_block_bytes)
    progress = check_progress(progress)
    Xa, Za, names, kern = _prepare(X, Z, kernel, bandwidth)
    n, m = len(Xa), len(Za)
    W = np.concatenate([Xa, Za], axis=0)
    observed = np.concatenate([np.ones(n, bool), np.zeros(m, bool)])
    labels = np.empty((n + m, n_permutations + 1), dtype=bool)
    labels[:, 0] = observed
    for p in range(n_permutations):
        labels[:, p + 1] = rng.permutation(observed)
    stats, phis = _pooled_game(kern, W, labels, n, m, estimator, max_block_bytes, progress)
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
        info={"incomplete": False},
    )
    return PermutationTestResult(stats[0], p_value, att, stats[1:], phis[1:], n_permutations, "MMD^2")

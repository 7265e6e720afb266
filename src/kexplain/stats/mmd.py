"""MMD^2 between two samples, its exact Shapley attribution to features, and the permutation test.

PKeX (seed 000, section 4.1) defines, for a coalition S of features,

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

import numpy as np

from ._common import (
    check_estimator_name,
    check_n_pairs,
    check_n_permutations,
    progress_bar,
    rng_of,
    sampled_moments,
)
from .._validation import feature_names_of
from ._kernels import amplitude, resolve_kernel, validate_sample
from ._pairs import DEFAULT_BLOCK_BYTES, block_rows, n_within_pairs, pair_contributions, within_pairs
from .results import PermutationTestResult, StatAttribution, permutation_p_values

_GRAM_BLOCK_ELEMS = 2**22


def _prepare(X, Z, kernel, bandwidth):
    if kernel is not None:
        resolve_kernel(kernel, None, "kernel")
    Xa, names = validate_sample(X, kernel, "X", min_rows=2)
    Za, znames = validate_sample(Z, kernel, "Z", min_rows=2, n_features=Xa.shape[1])
    if feature_names_of(X) is not None and feature_names_of(Z) is not None and znames != names:
        raise ValueError(f"the columns of Z ({znames}) differ from those of X ({names}); align them first.")
    kernel = resolve_kernel(kernel, (Xa, Za), "kernel", bandwidth)
    return Xa, Za, names, kernel


def _weights(n, m, estimator):
    """(w_xx, w_zz, w_xz) per unordered pair, and the constant from the diagonal pairs (per unit amplitude)."""
    if estimator == "unbiased":
        return 2.0 / (n * (n - 1)), 2.0 / (m * (m - 1)), -2.0 / (n * m), 0.0
    return 2.0 / n**2, 2.0 / m**2, -2.0 / (n * m), 1.0 / n + 1.0 / m


def _gram_sum(kernel, P, Q):
    """sum_{i,j} k(P_i, Q_j) in row blocks (memory bounded)."""
    step = max(1, _GRAM_BLOCK_ELEMS // max(1, len(Q) * P.shape[1]))
    return float(sum(kernel(P[s:s + step], Q).sum() for s in range(0, len(P), step)))


def mmd(X, Z, kernel=None, estimator="unbiased", bandwidth="median"):
    """MMD^2 estimate between the samples X (n, d) and Z (m, d).

    Parameters
    ----------
    X, Z : arrays (n, d) and (m, d), at least two rows each
    kernel : a kexplain product kernel, or None for an RBF whose lengthscale is the median
        heuristic on the pooled sample (see ``bandwidth``)
    estimator : "unbiased" (the U-statistic of the PKeX paper; can be negative) or "biased"
        (the V-statistic 1/n^2 sum_ij k(x_i, x_j) + ... , never negative)
    bandwidth : "median" (default: one lengthscale, the median Euclidean distance over all
        features) or "median_per_feature" (one median absolute difference per feature);
        ignored when ``kernel`` is given

    Returns
    -------
    float
    """
    estimator = check_estimator_name(estimator)
    Xa, Za, _, kernel = _prepare(X, Z, kernel, bandwidth)
    n, m = len(Xa), len(Za)
    sxx, szz, sxz = _gram_sum(kernel, Xa, Xa), _gram_sum(kernel, Za, Za), _gram_sum(kernel, Xa, Za)
    if estimator == "unbiased":
        A = amplitude(kernel)
        return (sxx - n * A) / (n * (n - 1)) + (szz - m * A) / (m * (m - 1)) - 2.0 * sxz / (n * m)
    return sxx / n**2 + szz / m**2 - 2.0 * sxz / (n * m)


def _pooled_game(kernel, W, labels, n, m, estimator, max_block_bytes, progress):
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
        w = np.where(li & lj, wxx, np.where(li | lj, wxz, wzz))    # (r, P)
        stats += w.T @ kval
        phis += w.T @ psi
        if bar is not None:
            bar.update(len(i))
    if bar is not None:
        bar.close()
    return A * stats + A * diag, A * phis


def _incomplete(kernel, Xa, Za, estimator, n_pairs, rng, max_block_bytes):
    """Incomplete U-statistic: n_pairs/4 XX pairs, n_pairs/4 ZZ pairs, the rest XZ pairs, with replacement."""
    n, m, d = len(Xa), len(Za), Xa.shape[1]
    A = amplitude(kernel)
    block = block_rows(d, 1, max_block_bytes)
    b_xx = b_zz = n_pairs // 4
    b_xz = n_pairs - b_xx - b_zz

    def within(size_n):
        def draw(rng, size):
            return within_pairs(size_n, rng.randint(0, n_within_pairs(size_n), size=size))
        return draw

    def cross(rng, size):
        return rng.randint(0, n, size=size), rng.randint(0, m, size=size)

    # the biased estimator is ((n-1)/n) U_xx + A/n + ...: the same pairs, rescaled, plus constants
    sx = 1.0 if estimator == "unbiased" else (n - 1) / n
    sz = 1.0 if estimator == "unbiased" else (m - 1) / m
    const = 0.0 if estimator == "unbiased" else A * (1.0 / n + 1.0 / m)
    terms = [(sx, sampled_moments(kernel, Xa, Xa, within(n), b_xx, rng, block, d)),
             (sz, sampled_moments(kernel, Za, Za, within(m), b_zz, rng, block, d)),
             (-2.0, sampled_moments(kernel, Xa, Za, cross, b_xz, rng, block, d))]
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
    return values, total, np.sqrt(var_values), np.sqrt(var_total), (b_xx, b_zz, b_xz)


def mmd_shapley(X, Z, kernel=None, estimator="unbiased", bandwidth="median", n_pairs=None,
                random_state=None, max_block_bytes=DEFAULT_BLOCK_BYTES, progress=False):
    """Exact Shapley attribution of MMD^2 between X and Z to the features (PKeX, section 4.1).

    The value of a coalition S is the MMD^2 computed with the kernel restricted to S (the other
    per-feature factors set to 1); the values sum exactly to the statistic (the empty coalition
    has value 0).  Pairs are processed in blocks, so memory is bounded by ``max_block_bytes``, not
    by (n + m)^2 d.

    Parameters
    ----------
    X, Z : arrays (n, d) and (m, d) (pandas DataFrames give the feature names)
    kernel : kexplain product kernel, or None for the median-heuristic RBF (``bandwidth``:
        "median", the default, one lengthscale over all features, as in the paper; or
        "median_per_feature")
    estimator : "unbiased" (default, the paper's) or "biased"
    n_pairs : None for the complete statistic over all (n + m)(n + m - 1)/2 pairs, or the number
        of randomly drawn pairs (with replacement: a quarter within X, a quarter within Z, half
        across) of an incomplete U-statistic, for large samples; its ``standard_errors`` and
        ``total_standard_error`` measure the error against the complete statistic.
        Efficiency still holds exactly for the estimate.
    random_state : seed for ``n_pairs``
    progress : show a tqdm progress bar over the pairs

    Returns
    -------
    StatAttribution with ``values`` (d,), ``total`` (the MMD^2 estimate), ``feature_names``.
    """
    estimator = check_estimator_name(estimator)
    n_pairs = check_n_pairs(n_pairs)
    Xa, Za, names, kernel = _prepare(X, Z, kernel, bandwidth)
    n, m = len(Xa), len(Za)
    if n_pairs is not None:
        values, total, se, se_total, split = _incomplete(kernel, Xa, Za, estimator, n_pairs,
                                                         rng_of(random_state), max_block_bytes)
        return StatAttribution(values, total, names, "MMD^2", estimator, kernel, se, se_total,
                               info={"n_pairs": split, "incomplete": True})
    W = np.concatenate([Xa, Za], axis=0)
    labels = np.concatenate([np.ones(n, bool), np.zeros(m, bool)])[:, None]
    stats, phis = _pooled_game(kernel, W, labels, n, m, estimator, max_block_bytes, progress)
    return StatAttribution(phis[0], stats[0], names, "MMD^2", estimator, kernel,
                           info={"incomplete": False})


def mmd_test(X, Z, kernel=None, n_permutations=1000, estimator="unbiased", bandwidth="median",
             random_state=None, max_block_bytes=DEFAULT_BLOCK_BYTES, progress=False):
    """Permutation two-sample test with MMD^2, its attribution and per-feature p-values.

    The pooled sample's labels are shuffled ``n_permutations`` times; for each relabelling the
    statistic and every feature's Shapley value are recomputed (only the pair weights change, so
    all relabellings share one pass over the pairs).  The p-values are
    (1 + #{null >= observed}) / (1 + n_permutations), for the statistic and per feature: a small
    feature p-value says that feature's contribution is larger than under exchangeability of the
    whole samples.  That is the global null: it is not a test of "this feature's marginal does not
    differ" (a feature correlated with a shifted one can get a small p-value too), and the d
    p-values are not corrected for multiplicity.  The
    default kernel's bandwidth is computed on the pooled sample, so it is the same under every
    relabelling.  Cost: (n + m)^2 / 2 pairs times (d + n_permutations) per pair.

    Returns
    -------
    PermutationTestResult (statistic, p_value, attribution, feature_p_values, null_distribution,
    null_attributions)
    """
    estimator = check_estimator_name(estimator)
    n_permutations = check_n_permutations(n_permutations)
    Xa, Za, names, kernel = _prepare(X, Z, kernel, bandwidth)
    n, m = len(Xa), len(Za)
    rng = rng_of(random_state)
    W = np.concatenate([Xa, Za], axis=0)
    observed = np.concatenate([np.ones(n, bool), np.zeros(m, bool)])
    labels = np.empty((n + m, n_permutations + 1), dtype=bool)
    labels[:, 0] = observed
    for p in range(n_permutations):
        labels[:, p + 1] = rng.permutation(observed)
    stats, phis = _pooled_game(kernel, W, labels, n, m, estimator, max_block_bytes, progress)
    att = StatAttribution(phis[0], stats[0], names, "MMD^2", estimator, kernel, info={"incomplete": False})
    return PermutationTestResult(
        statistic=stats[0], p_value=permutation_p_values(stats[0], stats[1:]), attribution=att,
        feature_p_values=permutation_p_values(phis[0], phis[1:]), null_distribution=stats[1:],
        null_attributions=phis[1:], n_permutations=n_permutations, name="MMD^2",
    )

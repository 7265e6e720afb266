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

HLH is never formed: (HLH)_ab = L_ab - mean_a - mean_b + grand mean, with the row means of L
computed once in blocks, so memory stays bounded by a block of pairs.  The unbiased estimator of
Song et al. (2012) is also linear in the off-diagonal K entries:

    HSIC_u = sum_{a != b} K_ab [L~_ab + S/((n-1)(n-2)) - (r_a + r_b)/(n-2)] / (n(n-3)),

with L~ = L with a zero diagonal, r = L~ 1 and S = 1' L~ 1; these weights also sum to zero.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_random_state
from ..explanation import GlobalAttribution, PermutationTestResult
from ..kernels.base import Categorical, Kernel
from ._common import (
    check_estimator_name,
    check_max_block_bytes,
    check_n_pairs,
    check_n_permutations,
    check_progress,
    permutation_p_values,
    progress_bar,
)
from ._kernels import (
    amplitude,
    as_2d,
    check_bandwidth,
    pair_factors,
    resolve_kernel,
    validate_sample,
)
from ._pairs import DEFAULT_BLOCK_BYTES, block_rows, n_within_pairs, pair_contributions, within_pairs

ATTRIBUTES = ("x", "y", "both")
_GRAM_BLOCK_ELEMS = 2**22


def _is_label_data(data: Any) -> bool:
    arr = data.to_numpy() if hasattr(data, "to_numpy") else np.asarray(data)
    return arr.dtype.kind in "OUSb"


def _prepare_side(
    data: Any, kernel: Any, name: str, bandwidth: str, min_rows: int
) -> tuple[np.ndarray, list[str], Kernel]:
    kname = "kernel_x" if name == "X" else "kernel_y"
    if kernel is not None:
        resolve_kernel(kernel, None, kname)  # type errors before any data check
    data = as_2d(data, name)
    if kernel is None and _is_label_data(data):
        # text or boolean labels: the delta kernel is the only sensible default
        kernel = Categorical(mismatch=0.0)
    arr, names = validate_sample(data, kernel, name, min_rows=min_rows)
    kern = resolve_kernel(kernel, (arr,), kname, bandwidth)
    if name == "Y" and names == [f"x{j}" for j in range(arr.shape[1])]:
        names = [f"y{j}" for j in range(arr.shape[1])]
    return arr, names, kern


def _prepare(
    X: Any, Y: Any, kernel_x: Any, kernel_y: Any, estimator: Any, bandwidth: Any
) -> tuple[np.ndarray, list[str], Kernel, np.ndarray, list[str], Kernel, str]:
    estimator = check_estimator_name(estimator)
    bandwidth = check_bandwidth(bandwidth)
    min_rows = 2
    Xa, xnames, kx_ = _prepare_side(X, kernel_x, "X", bandwidth, min_rows)
    Ya, ynames, ky_ = _prepare_side(Y, kernel_y, "Y", bandwidth, min_rows)
    if len(Xa) != len(Ya):
        raise ValueError(
            f"X and Y must have the same number of rows (paired observations), got {len(Xa)} and {len(Ya)}."
        )
    if estimator == "unbiased" and len(Xa) < 4:
        raise ValueError(f"the unbiased HSIC estimator needs at least 4 rows, got {len(Xa)}.")
    return Xa, xnames, kx_, Ya, ynames, ky_, estimator


def _row_sums(kernel: Kernel, B: np.ndarray) -> np.ndarray:
    """Row sums of the Gram matrix of B, in row blocks."""
    step = max(1, _GRAM_BLOCK_ELEMS // max(1, len(B) * B.shape[1]))
    return np.concatenate([kernel(B[s : s + step], B).sum(axis=1) for s in range(0, len(B), step)])


class _CentredWeights:
    """Weights c_ab of the HSIC game for the kernel of the non-attributed side (B, kernel)."""

    def __init__(self, kernel: Kernel, B: np.ndarray, estimator: str) -> None:
        self.kernel, self.B, self.estimator = kernel, B, estimator
        n = len(B)
        self.n = n
        self.A = amplitude(kernel)
        rs = _row_sums(kernel, B)
        if estimator == "biased":
            self.rm = rs / n
            self.gm = self.rm.mean()
            self.scale = 1.0 / (n - 1) ** 2
        else:
            self.r = rs - self.A  # row sums of L with a zero diagonal
            self.S = self.r.sum()
            self.scale = 1.0 / (n * (n - 3))

    def offdiag(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """c_ab for index arrays a != b (any shape), each unordered pair counted once per order."""
        shape = np.shape(a)
        a, b = np.ravel(a), np.ravel(b)
        L = self.A * np.prod(pair_factors(self.kernel, self.B[a], self.B[b]), axis=-1)
        if self.estimator == "biased":
            w = L - self.rm[a] - self.rm[b] + self.gm
        else:
            n = self.n
            w = L + self.S / ((n - 1) * (n - 2)) - (self.r[a] + self.r[b]) / (n - 2)
        return (self.scale * w).reshape(shape)

    def diagonal_constant(self) -> float:
        """sum_a c_aa: the diagonal pairs' part of the statistic, per unit amplitude of K."""
        if self.estimator == "unbiased":
            return 0.0
        n = self.n
        return self.scale * (n * self.A - n * self.gm)


def _hsic_game(
    A_data: np.ndarray,
    kernel_a: Kernel,
    B_data: np.ndarray,
    kernel_b: Kernel,
    estimator: str,
    perms: np.ndarray | None = None,
    n_pairs: int | None = None,
    rng: np.random.Generator | None = None,
    max_block_bytes: int = DEFAULT_BLOCK_BYTES,
    progress: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, float | None]:
    """Attribute HSIC to A's variables; B's rows are relabelled by each row of ``perms`` (P, n).

    Returns statistics (P,), values (P, d) and, for incomplete statistics, standard errors.
    """
    n, d = A_data.shape
    if perms is None:
        perms = np.arange(n)[None, :]
    P = perms.shape[0]
    weights = _CentredWeights(kernel_b, B_data, estimator)
    Ak = amplitude(kernel_a)
    T = n_within_pairs(n)
    if n_pairs is not None:
        if P != 1 or rng is None:
            raise ValueError("incomplete statistics are not combined with permutations.")
        block = block_rows(d, 1, max_block_bytes)
        # sum over unordered pairs of 2 c_ab K_ab, estimated by T times the mean over drawn pairs
        h_sum = np.zeros(d)
        h_sq = np.zeros(d)
        k_sum = k_sq = 0.0
        done = 0
        while done < n_pairs:
            size = min(block, n_pairs - done)
            i, j = within_pairs(n, rng.integers(0, T, size=size))
            psi, kval = pair_contributions(kernel_a, A_data[i], A_data[j])
            c = 2.0 * Ak * T * weights.offdiag(i, j)
            # the exact weights sum to zero, so HSIC = sum 2 c_ab A (K_ab - 1): estimating that
            # form keeps efficiency exact for the estimate (and the known sum acts as a control variate)
            h, hk = psi * c[:, None], (kval - 1.0) * c
            h_sum += h.sum(axis=0)
            h_sq += np.einsum("rd,rd->d", h, h)
            k_sum += float(hk.sum())
            k_sq += float(hk @ hk)
            done += size
        mh, mk = h_sum / n_pairs, k_sum / n_pairs
        se = np.sqrt(np.maximum(h_sq / n_pairs - mh * mh, 0.0) * n_pairs / (n_pairs - 1) / n_pairs)
        se_k = np.sqrt(max(k_sq / n_pairs - mk * mk, 0.0) * n_pairs / (n_pairs - 1) / n_pairs)
        return np.array([mk]), mh[None, :], se, float(se_k)
    stats = np.zeros(P)
    phis = np.zeros((P, d))
    block = block_rows(d, 2 * P + B_data.shape[1] * P, max_block_bytes)
    bar = progress_bar(T, progress, "HSIC pairs")
    for k0 in range(0, T, block):
        i, j = within_pairs(n, np.arange(k0, min(T, k0 + block)))
        psi, kval = pair_contributions(kernel_a, A_data[i], A_data[j])
        c = 2.0 * weights.offdiag(perms[:, i].T, perms[:, j].T)  # (r, P)
        stats += c.T @ kval
        phis += c.T @ psi
        if bar is not None:
            bar.update(len(i))
    if bar is not None:
        bar.close()
    return Ak * stats + Ak * weights.diagonal_constant(), Ak * phis, None, None


def hsic(
    X: Any,
    Y: Any,
    *,
    kernel_x: Kernel | None = None,
    kernel_y: Kernel | None = None,
    estimator: str = "biased",
    bandwidth: str = "median",
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
        None: an RBF with the median heuristic on that side (see ``bandwidth``), or, for a Y of
        text or boolean labels, the delta kernel ``Categorical(mismatch=0)``.  Pass
        ``kx.kernels.Categorical(mismatch=0)`` yourself for integer class labels.
    estimator : {"biased", "unbiased"}, default "biased"
        "biased": ``tr(K H L H) / (n - 1)^2``, the estimator of Mohammadi, Chau & Muandet (2025,
        section 4.2).  "unbiased": the estimator of Song et al. (2012); needs n >= 4 and can be
        slightly negative.
    bandwidth : {"median", "median_per_feature"}, default "median"
        "median": one lengthscale per side, the median Euclidean distance over that side's
        variables; "median_per_feature": one per variable.  Ignored for a side whose kernel is given.

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
    0.020
    """
    Xa, _, kx_, Ya, _, ky_, estimator = _prepare(X, Y, kernel_x, kernel_y, estimator, bandwidth)
    weights = _CentredWeights(ky_, Ya, estimator)
    n = len(Xa)
    total = amplitude(kx_) * weights.diagonal_constant()
    step = max(1, _GRAM_BLOCK_ELEMS // max(1, n * max(Xa.shape[1], Ya.shape[1])))
    for s in range(0, n, step):
        rows = np.arange(s, min(n, s + step))
        K = kx_(Xa[rows], Xa)
        a = np.repeat(rows, n).reshape(len(rows), n)
        b = np.broadcast_to(np.arange(n), (len(rows), n))
        C = weights.offdiag(a, b)
        C[np.arange(len(rows)), rows] = 0.0  # the diagonal is in the constant
        total += float(np.sum(K * C))
    return total


def _check_attribute(attribute: Any) -> str:
    if attribute not in ATTRIBUTES:
        raise ValueError(f"attribute must be 'x', 'y' or 'both', got {attribute!r}.")
    return str(attribute)


def _sides(attribute: str) -> tuple[str, ...]:
    return ("x", "y") if attribute == "both" else (attribute,)


def hsic_shapley(
    X: Any,
    Y: Any,
    *,
    kernel_x: Kernel | None = None,
    kernel_y: Kernel | None = None,
    attribute: str = "x",
    estimator: str = "biased",
    bandwidth: str = "median",
    n_pairs: int | None = None,
    random_state: Any = None,
    max_block_bytes: int = DEFAULT_BLOCK_BYTES,
    progress: bool = False,
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
    Y : array-like of shape (n, d_y) or (n,)
        Paired with X row for row, e.g. a regression target or class labels.
    kernel_x, kernel_y, estimator, bandwidth
        As in :func:`hsic`.
    attribute : {"x", "y", "both"}, default "x"
        Whose variables get the Shapley values.
    n_pairs : int, optional
        None: all n(n - 1)/2 pairs of rows (the complete statistic).  An integer (at least 8): an
        incomplete estimate over that many pairs drawn at random (with replacement), with
        ``standard_errors`` and ``total_standard_error`` against the complete statistic; the
        other side's centring still uses all pairs (O(n^2) kernel evaluations on that side only).
    random_state : None, int, numpy Generator, RandomState or SeedSequence
        Seeds the pairs drawn for ``n_pairs``; it has no effect on the complete statistic.
    max_block_bytes : int, default 32 MiB
        Bound on the memory of one block of pairs.
    progress : bool, default False
        Show a progress bar over the pairs (needs tqdm).

    Returns
    -------
    GlobalAttribution or tuple of two
        ``values`` per variable, ``total`` (the HSIC), ``quantity`` "HSIC", ``estimator``,
        ``kernel`` (the attributed side's kernel; ``info["kernel_other"]`` is the other side's,
        ``info["side"]`` says which side).  For ``attribute="both"``, the pair ``(x, y)`` of
        two such attributions, each summing to the same HSIC.

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
    HSIC = 0.0087, share of x2 = 1.02
    >>> att_x, att_y = hsic_shapley(X, np.c_[y, rng.normal(size=50)], attribute="both")
    >>> att_y.feature_names, bool(np.isclose(att_x.total, att_y.total))
    (['y0', 'y1'], True)
    """
    attribute = _check_attribute(attribute)
    n_pairs = check_n_pairs(n_pairs)
    rng = check_random_state(random_state, "random_state")
    max_block_bytes = check_max_block_bytes(max_block_bytes)
    progress = check_progress(progress)
    Xa, xnames, kx_, Ya, ynames, ky_, estimator = _prepare(X, Y, kernel_x, kernel_y, estimator, bandwidth)
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
            rng=rng,
            max_block_bytes=max_block_bytes,
            progress=progress,
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
            info={"side": side, "incomplete": n_pairs is not None, "kernel_other": kb},
        )
    if attribute == "both":
        return out["x"], out["y"]
    return out[attribute]


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
    random_state: Any = None,
    max_block_bytes: int = DEFAULT_BLOCK_BYTES,
    progress: bool = False,
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
    X, Y, kernel_x, kernel_y, attribute, estimator, bandwidth, max_block_bytes, progress
        As in :func:`hsic_shapley`.
    n_permutations : int, default 1000
        Number of random shuffles of Y's rows.
    random_state : None, int, numpy Generator, RandomState or SeedSequence
        Seeds the shuffles.

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
    p = 0.03
    >>> np.round(res.feature_p_values, 2)
    array([0.46, 0.16, 0.01])
    """
    attribute = _check_attribute(attribute)
    n_permutations = check_n_permutations(n_permutations)
    rng = check_random_state(random_state, "random_state")
    max_block_bytes = check_max_block_bytes(max_block_bytes)
    progress = check_progress(progress)
    Xa, xnames, kx_, Ya, ynames, ky_, estimator = _prepare(X, Y, kernel_x, kernel_y, estimator, bandwidth)
    n = len(Xa)
    perms = np.empty((n_permutations + 1, n), dtype=np.int64)
    perms[0] = np.arange(n)
    for p in range(n_permutations):
        perms[p + 1] = rng.permutation(n)
    inverse = np.argsort(perms, axis=1)
    games = {"x": (Xa, kx_, Ya, ky_, perms, xnames), "y": (Ya, ky_, Xa, kx_, inverse, ynames)}
    stats: np.ndarray | None = None
    p_value = 1.0
    atts: dict[str, GlobalAttribution] = {}
    nulls: dict[str, np.ndarray] = {}
    for side in _sides(attribute):
        A_data, ka, B_data, kb, side_perms, names = games[side]
        side_stats, phis, _, _ = _hsic_game(
            A_data, ka, B_data, kb, estimator, side_perms, None, None, max_block_bytes, progress
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
            info={"side": side, "incomplete": False, "kernel_other": kb},
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

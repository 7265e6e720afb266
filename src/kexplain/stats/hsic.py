"""HSIC between two samples, its exact Shapley attribution to either side's variables, and the test.

PKeX (seed 000, section 4.2 and appendix G): for a coalition S of X's variables,

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

import numpy as np

from ..kernels.base import Categorical
from ._common import check_estimator_name, check_n_pairs, check_n_permutations, progress_bar, rng_of
from ._kernels import (
    amplitude,
    as_2d,
    check_bandwidth,
    pair_factors,
    resolve_kernel,
    validate_sample,
)
from ._pairs import DEFAULT_BLOCK_BYTES, block_rows, n_within_pairs, pair_contributions, within_pairs
from .results import JointAttribution, PermutationTestResult, StatAttribution, permutation_p_values

ATTRIBUTES = ("x", "y", "both")
_GRAM_BLOCK_ELEMS = 2**22


def _is_label_data(data) -> bool:
    arr = data.to_numpy() if hasattr(data, "to_numpy") else np.asarray(data)
    return arr.dtype.kind in "OUSb"


def _prepare_side(data, kernel, name, bandwidth, min_rows):
    kname = "kernel_x" if name == "X" else "kernel_y"
    if kernel is not None:
        resolve_kernel(kernel, None, kname)          # type errors before any data check
    data = as_2d(data, name)
    if kernel is None and _is_label_data(data):
        # text or boolean labels: the delta kernel is the only sensible default
        kernel = Categorical(mismatch=0.0)
    arr, names = validate_sample(data, kernel, name, min_rows=min_rows)
    kernel = resolve_kernel(kernel, (arr,), kname, bandwidth)
    if name == "Y" and names == [f"x{j}" for j in range(arr.shape[1])]:
        names = [f"y{j}" for j in range(arr.shape[1])]
    return arr, names, kernel


def _prepare(X, Y, kernel_x, kernel_y, estimator, bandwidth):
    estimator = check_estimator_name(estimator)
    check_bandwidth(bandwidth)
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


def _row_sums(kernel, B):
    """Row sums of the Gram matrix of B, in row blocks."""
    step = max(1, _GRAM_BLOCK_ELEMS // max(1, len(B) * B.shape[1]))
    return np.concatenate([kernel(B[s:s + step], B).sum(axis=1) for s in range(0, len(B), step)])


class _CentredWeights:
    """Weights c_ab of the HSIC game for the kernel of the non-attributed side (B, kernel)."""

    def __init__(self, kernel, B, estimator):
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
            self.r = rs - self.A                    # row sums of L with a zero diagonal
            self.S = self.r.sum()
            self.scale = 1.0 / (n * (n - 3))

    def offdiag(self, a, b):
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

    def diagonal_constant(self):
        """sum_a c_aa: the diagonal pairs' part of the statistic, per unit amplitude of K."""
        if self.estimator == "unbiased":
            return 0.0
        n = self.n
        return self.scale * (n * self.A - n * self.gm)


def _hsic_game(A_data, kernel_a, B_data, kernel_b, estimator, perms=None, n_pairs=None, rng=None,
               max_block_bytes=DEFAULT_BLOCK_BYTES, progress=False):
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
        if P != 1:
            raise ValueError("incomplete statistics are not combined with permutations.")
        block = block_rows(d, 1, max_block_bytes)
        # sum over unordered pairs of 2 c_ab K_ab, estimated by T times the mean over drawn pairs
        h_sum = np.zeros(d)
        h_sq = np.zeros(d)
        k_sum = k_sq = 0.0
        done = 0
        while done < n_pairs:
            size = min(block, n_pairs - done)
            i, j = within_pairs(n, rng.randint(0, T, size=size))
            psi, kval = pair_contributions(kernel_a, A_data[i], A_data[j])
            c = 2.0 * Ak * T * weights.offdiag(i, j)
            # the exact weights sum to zero, so HSIC = sum 2 c_ab A (K_ab - 1): estimating that
            # form keeps efficiency exact for the estimate (and the known sum acts as a control variate)
            h, hk = psi * c[:, None], (kval - 1.0) * c
            h_sum += h.sum(axis=0)
            h_sq += np.einsum("rd,rd->d", h, h)
            k_sum += hk.sum()
            k_sq += hk @ hk
            done += size
        mh, mk = h_sum / n_pairs, k_sum / n_pairs
        se = np.sqrt(np.maximum(h_sq / n_pairs - mh * mh, 0.0) * n_pairs / (n_pairs - 1) / n_pairs)
        se_k = np.sqrt(max(k_sq / n_pairs - mk * mk, 0.0) * n_pairs / (n_pairs - 1) / n_pairs)
        return np.array([mk]), mh[None, :], se, se_k
    stats = np.zeros(P)
    phis = np.zeros((P, d))
    block = block_rows(d, 2 * P + B_data.shape[1] * P, max_block_bytes)
    bar = progress_bar(T, progress, "HSIC pairs")
    for k0 in range(0, T, block):
        i, j = within_pairs(n, np.arange(k0, min(T, k0 + block)))
        psi, kval = pair_contributions(kernel_a, A_data[i], A_data[j])
        c = 2.0 * weights.offdiag(perms[:, i].T, perms[:, j].T)          # (r, P)
        stats += c.T @ kval
        phis += c.T @ psi
        if bar is not None:
            bar.update(len(i))
    if bar is not None:
        bar.close()
    return Ak * stats + Ak * weights.diagonal_constant(), Ak * phis, None, None


def hsic(X, Y, kernel_x=None, kernel_y=None, estimator="biased", bandwidth="median"):
    """HSIC estimate between paired samples X (n, d_x) and Y (n, d_y) (or a 1-D Y).

    Parameters
    ----------
    kernel_x, kernel_y : kexplain product kernels; None gives an RBF with the median heuristic
        (``bandwidth``: "median", one lengthscale over all of that side's variables, the default;
        or "median_per_feature"), or a delta kernel (Categorical(mismatch=0)) for a Y of text or
        boolean labels.  Pass ``kx.kernels.Categorical(mismatch=0)`` for integer class labels.
    estimator : "biased" (default, the paper's tr(K H L H) / (n - 1)^2) or "unbiased" (Song et
        al. 2012; needs n >= 4; can be negative)
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
        C[np.arange(len(rows)), rows] = 0.0            # the diagonal is in the constant
        total += float(np.sum(K * C))
    return total


def _check_attribute(attribute):
    if attribute not in ATTRIBUTES:
        raise ValueError(f"attribute must be 'x', 'y' or 'both', got {attribute!r}.")
    return attribute


def hsic_shapley(X, Y, kernel_x=None, kernel_y=None, attribute="x", estimator="biased",
                 bandwidth="median", n_pairs=None, random_state=None,
                 max_block_bytes=DEFAULT_BLOCK_BYTES, progress=False):
    """Exact Shapley attribution of HSIC(X, Y) to the variables of X, of Y, or of both.

    The value of a coalition S of X's variables is the HSIC with X's kernel restricted to S (the
    other factors set to 1) and Y's kernel whole (PKeX, definition 7); ``attribute="y"`` plays the
    same game on Y's variables with X's kernel whole, and ``"both"`` plays both (appendix G) and
    returns a JointAttribution with ``.x`` and ``.y``.  The values of each game sum exactly to HSIC.

    Parameters
    ----------
    X : array (n, d_x); Y : array (n, d_y) or (n,), e.g. a regression target or class labels
    kernel_x, kernel_y, estimator, bandwidth : see ``hsic``
    n_pairs : None (all n(n-1)/2 pairs) or the number of pairs drawn at random (with replacement)
        for an incomplete estimate with ``standard_errors``; the other side's centring still uses
        all pairs (O(n^2) kernel evaluations on that side only).
    """
    attribute = _check_attribute(attribute)
    n_pairs = check_n_pairs(n_pairs)
    Xa, xnames, kx_, Ya, ynames, ky_, estimator = _prepare(X, Y, kernel_x, kernel_y, estimator, bandwidth)
    rng = rng_of(random_state)
    out = {}
    sides = {"x": (Xa, kx_, Ya, ky_, xnames), "y": (Ya, ky_, Xa, kx_, ynames)}
    for side in (("x", "y") if attribute == "both" else (attribute,)):
        A_data, ka, B_data, kb, names = sides[side]
        stats, phis, se, se_total = _hsic_game(A_data, ka, B_data, kb, estimator, n_pairs=n_pairs,
                                               rng=rng, max_block_bytes=max_block_bytes, progress=progress)
        out[side] = StatAttribution(phis[0], stats[0], names, "HSIC", estimator,
                                    ka, se, se_total,
                                    info={"side": side, "incomplete": n_pairs is not None,
                                          "kernel_other": kb})
    if attribute == "both":
        return JointAttribution(out["x"], out["y"])
    return out[attribute]


def hsic_test(X, Y, kernel_x=None, kernel_y=None, attribute="x", n_permutations=1000,
              estimator="biased", bandwidth="median", random_state=None,
              max_block_bytes=DEFAULT_BLOCK_BYTES, progress=False):
    """Permutation independence test with HSIC, its attribution and per-feature p-values.

    Y's rows are shuffled against X's ``n_permutations`` times; each shuffle changes only the pair
    weights of the X game, so one pass over X's pairs gives the null statistics and the null
    Shapley values of every variable.  For ``attribute="y"`` (or "both") the Y game uses the
    inverse shuffles of X's rows, which give the same null statistics.  p-values are
    (1 + #{null >= observed}) / (1 + n_permutations); the per-variable ones are taken under the
    global null of independence (not a per-variable null) and are not corrected for multiplicity.  Cost: n^2 / 2 pairs times
    (d + n_permutations (1 + d_other)).
    """
    attribute = _check_attribute(attribute)
    n_permutations = check_n_permutations(n_permutations)
    Xa, xnames, kx_, Ya, ynames, ky_, estimator = _prepare(X, Y, kernel_x, kernel_y, estimator, bandwidth)
    n = len(Xa)
    rng = rng_of(random_state)
    perms = np.empty((n_permutations + 1, n), dtype=np.int64)
    perms[0] = np.arange(n)
    for p in range(n_permutations):
        perms[p + 1] = rng.permutation(n)
    inverse = np.argsort(perms, axis=1)
    results = {}
    for side in (("x", "y") if attribute == "both" else (attribute,)):
        if side == "x":
            stats, phis, _, _ = _hsic_game(Xa, kx_, Ya, ky_, estimator, perms, None, None,
                                           max_block_bytes, progress)
            names, ka, kb = xnames, kx_, ky_
        else:
            stats, phis, _, _ = _hsic_game(Ya, ky_, Xa, kx_, estimator, inverse, None, None,
                                           max_block_bytes, progress)
            names, ka, kb = ynames, ky_, kx_
        att = StatAttribution(phis[0], stats[0], names, "HSIC", estimator, ka,
                              info={"side": side, "incomplete": False, "kernel_other": kb})
        results[side] = (stats, phis, att)
    stats = results[attribute if attribute != "both" else "x"][0]
    p_value = permutation_p_values(stats[0], stats[1:])
    if attribute == "both":
        (_, px, ax), (_, py, ay) = results["x"], results["y"]
        return PermutationTestResult(
            stats[0], p_value, JointAttribution(ax, ay),
            (permutation_p_values(px[0], px[1:]), permutation_p_values(py[0], py[1:])),
            stats[1:], (px[1:], py[1:]), n_permutations, "HSIC",
        )
    _, phis, att = results[attribute]
    return PermutationTestResult(stats[0], p_value, att, permutation_p_values(phis[0], phis[1:]),
                                 stats[1:], phis[1:], n_permutations, "HSIC")

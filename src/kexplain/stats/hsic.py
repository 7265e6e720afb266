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

from .._typing import RandomStateLike
from .._validation import check_bool, check_data, check_n_jobs, check_random_state
from ..attribution import GlobalAttribution, PermutationTestResult
from ..kernels.base import RBF, Categorical, Kernel, ProductKernel
from ..kernels.heuristics import default_lengthscale
from ._common import (
    check_estimator_name,
    check_max_block_bytes,
    check_n_pairs,
    check_n_permutations,
    check_permutation_memory,
    check_progress,
    permutation_p_values,
    progress_bar,
    seed_entropy,
)
from ._kernels import (
    amplitude,
    as_2d,
    check_bandwidth,
    overflow_scale,
    resolve_kernel,
    validate_sample,
)
from ._pairs import (
    DEFAULT_BLOCK_BYTES,
    add_in_order,
    contributions,
    draw_chunk,
    factor_data,
    factors,
    n_within_pairs,
    run_tasks,
    task_ranges,
    tile_length,
    tiles_per_task,
    within_pairs,
)

ATTRIBUTES = ("x", "y", "both")
_GRAM_BLOCK_ELEMS = 2**22


def _label_columns(data: Any) -> np.ndarray:
    """Boolean (d,): which columns hold labels (text, booleans or other non-numbers), not numbers."""
    if hasattr(data, "dtypes") and hasattr(data, "columns"):  # DataFrame: one dtype per column
        kinds = [getattr(dt, "kind", "O") for dt in data.dtypes]
        if "O" not in kinds:  # object columns are looked at value by value below
            return np.array([kind not in "iuf" for kind in kinds], dtype=bool)
    arr = data.to_numpy() if hasattr(data, "to_numpy") else np.asarray(data)
    if arr.ndim != 2:
        return np.zeros(0, dtype=bool)
    if arr.dtype.kind != "O":
        return np.full(arr.shape[1], arr.dtype.kind in "USb", dtype=bool)

    def is_number(v: Any) -> bool:
        return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))

    return np.array([not all(is_number(v) for v in arr[:, j]) for j in range(arr.shape[1])], dtype=bool)


def _prepare_side(
    data: Any, kernel: Any, name: str, bandwidth: str, min_rows: int, standardize: bool = True
) -> tuple[np.ndarray, list[str], Kernel, str | None]:
    """(array, names, kernel, note): the note says which columns got the delta kernel by default."""
    kname = "kernel_x" if name == "X" else "kernel_y"
    if kernel is not None:
        resolve_kernel(kernel, None, kname)  # type errors before any data check
    data = as_2d(data, name)
    note = None
    scale = 1.0
    labels = _label_columns(data) if kernel is None else np.zeros(0, dtype=bool)
    if kernel is None and labels.size and labels.all():
        # text or boolean labels: the delta kernel is the only sensible default
        kernel = Categorical(mismatch=0.0)
        note = f"{name}: every column holds labels, so the default kernel is the delta kernel Categorical(0)."
    if kernel is None and labels.any():
        # mixed columns: the delta kernel on the label columns only, an RBF on the numbers
        arr, names = validate_sample(data, Categorical(0.0) * 1.0, name, min_rows=min_rows)
        lab, num = np.flatnonzero(labels), np.flatnonzero(~labels)
        numeric = np.asarray(arr[:, num], dtype=np.float64)
        check_data(numeric, name=name, min_rows=min_rows)
        scale = overflow_scale(None, (numeric,), name)
        numeric = numeric / scale
        per_feature = bandwidth == "median_per_feature"
        ls = default_lengthscale(numeric, per_feature=per_feature, standardize=standardize)
        kern: Kernel = ProductKernel([(RBF(ls), num), (Categorical(0.0), lab)])
        arr = check_data(data, name=name, numeric_mask=kern.numeric_mask(arr.shape[1]), min_rows=min_rows)
        arr[:, num] = numeric
        shown = [names[j] for j in lab]
        note = (
            f"{name}: columns {shown} hold labels (text, booleans or other non-numbers): the default kernel "
            f"gives them the delta kernel Categorical(0) and the other columns an RBF (median heuristic)."
        )
    else:
        arr, names = validate_sample(data, kernel, name, min_rows=min_rows)
        # data near the float range: the default RBF (median heuristic) is scale-free, so it works
        # on data / scale; a given kernel is refused there with a message naming the side
        scale = overflow_scale(kernel, (arr,), name)
        arr = arr / scale if scale != 1.0 else arr
        kern = resolve_kernel(kernel, (arr,), kname, bandwidth, standardize)
    if scale != 1.0:
        rescaled = (
            f"{name}: values up to {scale:.3g} make differences between rows overflow in float64; the default "
            f"kernel is scale-free, so it was computed on {name} / {scale:.3g} (the same HSIC)."
        )
        note = rescaled if note is None else f"{note} {rescaled}"
    if name == "Y" and names == [f"x{j}" for j in range(arr.shape[1])]:
        names = [f"y{j}" for j in range(arr.shape[1])]
    return arr, names, kern, note


def _prepare(
    X: Any, Y: Any, kernel_x: Any, kernel_y: Any, estimator: Any, bandwidth: Any, standardize: Any = True
) -> tuple[np.ndarray, list[str], Kernel, np.ndarray, list[str], Kernel, str, list[str]]:
    estimator = check_estimator_name(estimator)
    bandwidth = check_bandwidth(bandwidth)
    standardize = check_bool(standardize, "standardize")
    min_rows = 2
    Xa, xnames, kx_, xnote = _prepare_side(X, kernel_x, "X", bandwidth, min_rows, standardize)
    Ya, ynames, ky_, ynote = _prepare_side(Y, kernel_y, "Y", bandwidth, min_rows, standardize)
    if len(Xa) != len(Ya):
        raise ValueError(
            f"X and Y must have the same number of rows (paired observations), got {len(Xa)} and {len(Ya)}."
        )
    if estimator == "unbiased" and len(Xa) < 4:
        raise ValueError(f"the unbiased HSIC estimator needs at least 4 rows, got {len(Xa)}.")
    notes = [t for t in (xnote, ynote) if t is not None]
    return Xa, xnames, kx_, Ya, ynames, ky_, estimator, notes


def _row_sums(kernel: Kernel, B: np.ndarray, n_jobs: int = 1) -> np.ndarray:
    """Row sums of the Gram matrix of B, in row blocks (threads when n_jobs > 1; order-free)."""
    step = max(1, _GRAM_BLOCK_ELEMS // max(1, len(B) * B.shape[1]))

    def task(s0: int, s1: int) -> list[np.ndarray]:
        return [kernel(B[s : s + step], B).sum(axis=1) for s in range(s0 * step, min(len(B), s1 * step), step)]

    parts = [p for part in run_tasks(task, task_ranges(len(B), step, 1), n_jobs) for p in part]
    return np.concatenate(parts)


class _CentredWeights:
    """Weights c_ab of the HSIC game for the kernel of the non-attributed side (B, kernel)."""

    def __init__(self, kernel: Kernel, B: np.ndarray, estimator: str, n_jobs: int = 1) -> None:
        self.kernel, self.B, self.estimator = kernel, B, estimator
        n = len(B)
        self.n = n
        self.A = amplitude(kernel)
        fd = factor_data(kernel, B)
        self.fd = None if fd is None else (fd, fd)
        rs = _row_sums(kernel, B, n_jobs)
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
        L = self.A * np.prod(factors(self.kernel, self.B, a, self.B, b, self.fd), axis=-1)
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


class _HSICPairs:
    """Tiles of the complete HSIC game on A's variables (picklable; a Dask task ships it once).

    ``task(t0, t1)`` returns, per tile, (statistic part (P,), Shapley part (P, d), number of pairs)
    for B's rows relabelled by each row of ``perms`` (P, n).
    """

    def __init__(self, A_data: np.ndarray, kernel_a: Kernel, weights: _CentredWeights, perms: np.ndarray) -> None:
        self.A_data, self.kernel, self.weights, self.perms = A_data, kernel_a, weights, perms
        self.n, self.d = A_data.shape
        self.T = n_within_pairs(self.n)
        self.n_weights = perms.shape[0] * (2 + weights.B.shape[1])
        self.tile = tile_length(self.d, self.n_weights)
        fd = factor_data(kernel_a, A_data)
        self.fd = None if fd is None else (fd, fd)

    def task(self, t0: int, t1: int) -> list[tuple[np.ndarray, np.ndarray, int]]:
        out = []
        for t in range(t0, t1):
            k0, k1 = t * self.tile, min(self.T, (t + 1) * self.tile)
            i, j = within_pairs(self.n, np.arange(k0, k1))
            psi, kval = contributions(factors(self.kernel, self.A_data, i, self.A_data, j, self.fd))
            c = 2.0 * self.weights.offdiag(self.perms[:, i].T, self.perms[:, j].T)  # (r, P)
            out.append((c.T @ kval, c.T @ psi, k1 - k0))
        return out

    def finish(self, stats: np.ndarray, phis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        Ak = amplitude(self.kernel)
        return Ak * stats + Ak * self.weights.diagonal_constant(), Ak * phis


class _HSICDraws:
    """Chunks of randomly drawn pairs of the incomplete HSIC game, chunk c of side s drawn from
    ``SeedSequence(entropy, spawn_key=(s, c))``: the draws depend on the seed alone.

    ``task(c0, c1)`` returns, per chunk, (sum h (d,), sum h^2 (d,), sum hk, sum hk^2, count).
    """

    def __init__(
        self, A_data: np.ndarray, kernel_a: Kernel, weights: _CentredWeights, n_pairs: int, entropy: Any, side: int
    ) -> None:
        self.A_data, self.kernel, self.weights = A_data, kernel_a, weights
        self.n, self.d = A_data.shape
        self.T = n_within_pairs(self.n)
        self.n_pairs, self.entropy, self.side = n_pairs, entropy, side
        self.chunk = draw_chunk(self.d)
        self.n_chunks = -(-n_pairs // self.chunk)
        fd = factor_data(kernel_a, A_data)
        self.fd = None if fd is None else (fd, fd)

    def task(self, c0: int, c1: int) -> list[tuple[Any, ...]]:
        out: list[tuple[Any, ...]] = []
        Ak = amplitude(self.kernel)
        for c in range(c0, c1):
            rng = np.random.default_rng(np.random.SeedSequence(self.entropy, spawn_key=(self.side, c)))
            size = min(self.chunk, self.n_pairs - c * self.chunk)
            i, j = within_pairs(self.n, rng.integers(0, self.T, size=size))
            psi, kval = contributions(factors(self.kernel, self.A_data, i, self.A_data, j, self.fd))
            cw = 2.0 * Ak * self.T * self.weights.offdiag(i, j)
            # the exact weights sum to zero, so HSIC = sum 2 c_ab A (K_ab - 1): estimating that
            # form keeps efficiency exact for the estimate (and the known sum acts as a control variate)
            h, hk = psi * cw[:, None], (kval - 1.0) * cw
            out.append((h.sum(axis=0), np.einsum("rd,rd->d", h, h), float(hk.sum()), float(hk @ hk), size))
        return out

    def finish(self, acc: list[Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        h_sum, h_sq, k_sum, k_sq = acc
        N = self.n_pairs
        mh, mk = h_sum / N, k_sum / N
        se = np.sqrt(np.maximum(h_sq / N - mh * mh, 0.0) * N / (N - 1) / N)
        se_k = np.sqrt(max(k_sq / N - mk * mk, 0.0) * N / (N - 1) / N)
        return np.array([mk]), mh[None, :], se, float(se_k)


def _hsic_game(
    A_data: np.ndarray,
    kernel_a: Kernel,
    B_data: np.ndarray,
    kernel_b: Kernel,
    estimator: str,
    perms: np.ndarray | None = None,
    n_pairs: int | None = None,
    entropy: Any = None,
    max_block_bytes: int = DEFAULT_BLOCK_BYTES,
    progress: bool = False,
    n_jobs: int = 1,
    side: int = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, float | None]:
    """Attribute HSIC to A's variables; B's rows are relabelled by each row of ``perms`` (P, n).

    Returns statistics (P,), values (P, d) and, for incomplete statistics, standard errors.
    """
    n, d = A_data.shape
    weights = _CentredWeights(kernel_b, B_data, estimator, n_jobs)
    if n_pairs is not None:
        draws = _HSICDraws(A_data, kernel_a, weights, n_pairs, entropy, side)
        per_task = max(1, max_block_bytes // (8 * (6 * d + 8) * draws.chunk))
        ranges = [(c, min(draws.n_chunks, c + per_task)) for c in range(0, draws.n_chunks, per_task)]
        zeros = [np.zeros(d), np.zeros(d), np.zeros(()), np.zeros(())]
        acc = add_in_order(run_tasks(draws.task, ranges, n_jobs), zeros)
        return draws.finish(acc)
    if perms is None:
        perms = np.arange(n)[None, :]
    game = _HSICPairs(A_data, kernel_a, weights, perms)
    P = perms.shape[0]
    ranges = task_ranges(game.T, game.tile, tiles_per_task(d, game.n_weights, max_block_bytes))
    bar = progress_bar(game.T, progress, "HSIC pairs")
    stats, phis = add_in_order(run_tasks(game.task, ranges, n_jobs), [np.zeros(P), np.zeros((P, d))], bar)
    if bar is not None:
        bar.close()
    st, ph = game.finish(stats, phis)
    return st, ph, None, None


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

"""Gram matrices of the per-feature kernels without the (p, r, d) factor tensor.

The RBF is the exponential of a scaled squared Euclidean distance (one matrix product, with an
exact difference path for the entries where the expansion ||x||^2 - 2 x.y + ||y||^2 could lose
digits), the Laplacian the exponential of a scaled Manhattan distance, the Cauchy kernel (and any
other stationary profile, :func:`profile_gram`) a per-feature product over cache-sized row blocks,
and the Categorical kernel ``mismatch ** (number of differing labels)``; plus the input checks
every Gram computation shares.  Temporaries are bounded by :data:`GRAM_BLOCK_ELEMS` elements per
block.  Each kernel class (``kernels/stationary.py``, ``categorical.py``, ``product.py``) names its
own path (``_scaled_gram``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import numpy as np
from numpy.typing import ArrayLike

from .._optional import compiled_or_none
from .._validation import MAGNITUDE_LIMIT, check_data, feature_names_of, to_array


class _GramKernel(Protocol):
    """What the input checks need of a kernel (``Kernel`` and ``SumKernel`` of ``kernels/kernel.py``)."""

    def check_n_features(self, d: int, name: str = "X") -> None: ...

    def numeric_mask(self, d: int) -> np.ndarray: ...


#: elements (rows x columns) of one block of a Gram computation: bounds every temporary
GRAM_BLOCK_ELEMS = 2**20

#: elements of one block of the feature-by-feature Gram paths: small enough for the block and its
#: temporaries to stay in cache across the d passes (measured: 2**20 was 3x to 5x slower)
FEATURE_BLOCK_ELEMS = 2**15

#: squared scaled distances at or above this give exp(-D / 2) = 0 in float64 (exp underflows)
_RBF_ZERO_DIST = 1500.0
#: a bound on the absolute rounding error of the expanded squared distance, per unit of
#: ||x||^2 + ||y||^2 (after centring); entries whose bound exceeds _RBF_TOL use exact differences
_RBF_ERR = 4 * float(np.finfo(np.float64).eps)
_RBF_TOL = 1e-13
#: rows with an entry above this (after scaling by the lengthscales) are not centred, and their
#: squared norms may overflow: see ``_rbf_gram``
_RBF_HUGE = MAGNITUDE_LIMIT


def _names_for(data: Any, names: Any, d: int) -> list[str] | None:
    """Feature names for messages: ``names`` when given, else the columns of a DataFrame, else None.

    Names whose count differs from the ``d`` columns of the data are ignored (the messages then give
    positions); wrong names must never turn a message about the data into one about the names.
    """
    out = [str(n) for n in names] if names is not None else feature_names_of(data)
    return out if out is not None and len(out) == d else None


def _gram_array(data: Any, name: str, kernel: _GramKernel, feature_names: Any = None) -> np.ndarray:
    """One validated input of a Gram matrix: 2-D, finite numbers where the kernel needs numbers.

    :func:`kexplain._validation.check_data` with the kernel's policies: a 1-D input is one column,
    the kernel says how many features it takes and which are labels.  Returns a float64 array (not
    copied when already one) when every feature is numeric, else an object array whose numeric
    columns hold floats.  Messages name columns by ``feature_names`` (or a DataFrame's columns)
    when known, else by 0-based position.
    """
    arr = to_array(data, name)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim == 2:
        kernel.check_n_features(arr.shape[1], name)
    d = arr.shape[1] if arr.ndim == 2 else 0
    return check_data(
        arr,
        name=name,
        min_rows=0,
        numeric_mask=kernel.numeric_mask(d) if arr.ndim == 2 else None,
        column_names=_names_for(data, feature_names, d),
        text_advice=f"The kernel {kernel!r} needs numbers there: use a Categorical kernel for label columns.",
        copy=False,
    )


def _gram_inputs(
    kernel: _GramKernel, X: ArrayLike, Y: ArrayLike | None, feature_names: Any = None
) -> tuple[np.ndarray, np.ndarray, bool]:
    """Validated 2-D arrays X and Y with the same number of features, and whether Y is X.

    Columns are named in messages by ``feature_names``, else by the columns of X (when a DataFrame)
    for both inputs, else by those of Y, else by 0-based position.
    """
    names = feature_names if feature_names is not None else feature_names_of(X)
    if names is None and Y is not None:
        names = feature_names_of(Y)
    Xa = _gram_array(X, "X", kernel, names)
    if Y is None:
        return Xa, Xa, True
    Ya = _gram_array(Y, "Y", kernel, names)
    if Xa.shape[1] != Ya.shape[1]:
        raise ValueError(f"X and Y must have the same number of features, got {Xa.shape[1]} and {Ya.shape[1]}.")
    return Xa, Ya, False


def _row_step(m: int, per_pair: int = 1) -> int:
    """Rows per block so that a (rows, m, per_pair) temporary holds at most GRAM_BLOCK_ELEMS elements."""
    return max(1, GRAM_BLOCK_ELEMS // max(1, m * per_pair))


def _rbf_gram(A: np.ndarray, B: np.ndarray, same: bool) -> np.ndarray:
    """exp(-||a - b||^2 / 2) for scaled rows (lengthscales already divided out).

    The squared distances come from one matrix product, ||a||^2 - 2 a.b + ||b||^2, after centring
    both sets on the mean of B (distances are translation invariant, and centring keeps the norms
    small).  That expansion has an absolute rounding error of about eps (||a||^2 + ||b||^2); every
    entry where this could matter (a bound above 1e-13, or a distance within the bound of zero,
    as for identical or near-identical rows) is recomputed from exact differences, so the result
    agrees with the per-feature product to about 1e-13 relative and is exactly 1 for equal rows.
    With numba, blocks of large matrices get that arithmetic in one compiled pass
    (``_gram_numba.rbf_half_block``: the same expansion bit for bit) instead of six to eight numpy
    passes, which is what put this path behind scikit-learn's unchecked expansion.
    """
    n, m = len(A), len(B)
    out = np.empty((n, m))
    if n == 0 or m == 0:
        return out
    # rows near the float range (squared norms above 1e300 may overflow): no centring (the centre
    # or a centred row could overflow), and every entry of a row whose squared norm overflows is
    # computed from exact differences (a - b is finite or +-inf, never NaN; exp(-inf) = 0)
    huge = A.shape[1] > 0 and max(float(np.max(np.abs(A))), float(np.max(np.abs(B)))) > _RBF_HUGE
    if not huge:
        centre = B.mean(axis=0)
        A = A - centre
        B = A if same else B - centre
    with np.errstate(over="ignore", invalid="ignore"):
        an = np.einsum("ij,ij->i", A, A)
        bn = an if same else np.einsum("ij,ij->i", B, B)
    big_a, big_b = ~np.isfinite(an), ~np.isfinite(bn)
    step = _row_step(m)
    pair_step = _row_step(A.shape[1])
    # with small norms no entry can need exact differences for accuracy, only for (near-)ties:
    # then a scalar bound replaces the per-entry one (no (rows, m) error matrix)
    scalar_bound = _RBF_ERR * (float(an.max()) + float(bn.max()))
    per_entry = scalar_bound > _RBF_TOL
    overflow = bool(big_a.any() or big_b.any())
    fast = _compiled_rbf_pass() if not overflow and n * m >= RBF_COMPILED_MIN_ELEMS else None
    if fast is not None:
        # half norms: the compiled pass works on -D / 2 directly (halving is exact)
        ah = 0.5 * an
        bh = ah if same else 0.5 * bn
        half = (0.5 * scalar_bound, 0.5 * _RBF_ZERO_DIST, _RBF_ERR, 0.5 * _RBF_TOL)
    for s in range(0, n, step):
        e = min(s + step, n)
        c0 = s if same else 0  # X with itself: the upper triangle, mirrored (exactly symmetric)
        if fast is not None:
            # straight into the result where it is one contiguous piece (X against Y; X's first block)
            blk = np.dot(A[s:e], B[c0:].T, out=out[s:e]) if c0 == 0 else A[s:e] @ B[c0:].T
            if fast[0](blk, ah[s:e], bh[c0:], same, per_entry, *half):
                ii, jj = np.nonzero(np.isnan(blk))
                for p in range(0, len(ii), pair_step):
                    i, j = ii[p : p + pair_step], jj[p : p + pair_step]
                    diff = A[s + i] - B[c0 + j]
                    blk[i, j] = -0.5 * np.einsum("ij,ij->i", diff, diff)
            if same:
                fast[1](blk)
            np.exp(blk, out=blk)
            if same and c0 > 0:
                out[s:e, c0:] = blk
                out[s:e, :s] = out[:s, s:e].T
            continue
        with np.errstate(over="ignore", invalid="ignore"):
            if same:
                blk = A[s:e] @ B[c0:].T
            else:
                blk = out[s:e]
                np.dot(A[s:e], B.T, out=blk)
            blk *= -2.0
            blk += an[s:e, None]
            blk += bn[None, c0:]
            np.maximum(blk, 0.0, out=blk)
            if per_entry:
                err = an[s:e, None] + bn[None, c0:]
                err *= _RBF_ERR
                flag = (blk < _RBF_ZERO_DIST + err) & ((err > _RBF_TOL) | (blk <= err))
                del err
            else:
                flag = blk <= scalar_bound
        if overflow:
            flag |= big_a[s:e, None] | big_b[None, c0:]
        if same:  # the square on the diagonal: only its strict upper triangle is computed
            flag[:, : e - s] = np.triu(flag[:, : e - s], 1)
        ii, jj = np.nonzero(flag)
        del flag
        for p in range(0, len(ii), pair_step):
            i, j = ii[p : p + pair_step], jj[p : p + pair_step]
            with np.errstate(over="ignore"):
                diff = A[s + i] - B[c0 + j]
                blk[i, j] = np.einsum("ij,ij->i", diff, diff)
        if same:  # mirrored into the lower triangle, zero distance on the diagonal: exactly symmetric
            sq = blk[:, : e - s]
            sq[...] = np.triu(sq, 1)
            sq += sq.T
        blk *= -0.5
        np.exp(blk, out=blk)
        if same:
            out[s:e, c0:] = blk
            out[s:e, :s] = out[:s, s:e].T
    return out


#: Gram matrices of at least this many entries take the compiled elementwise pass (when numba is
#: usable): below it, importing and loading the compiled code would cost more than it saves
RBF_COMPILED_MIN_ELEMS = 2**16


@compiled_or_none
def _compiled_rbf_pass() -> Any:
    """``_gram_numba``'s (rbf_half_block, mirror_square), or None without (usable) numba (numpy then)."""
    from ._gram_numba import mirror_square, rbf_half_block

    return rbf_half_block, mirror_square


def _laplacian_gram(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """exp(-||a - b||_1) for scaled rows: scipy's Manhattan distances (exact differences), in row blocks."""
    from scipy.spatial.distance import cdist

    n, m = len(A), len(B)
    out = np.empty((n, m))
    if n == 0 or m == 0:
        return out
    step = _row_step(m)
    for s in range(0, n, step):
        blk = out[s : s + step]
        cdist(A[s : s + step], B, "cityblock", out=blk)
        np.negative(blk, out=blk)
        np.exp(blk, out=blk)
    return out


def _cauchy_gram(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """prod_j 1 / (1 + (a_j - b_j)^2) for scaled rows: a per-feature product over row blocks."""
    n, m = len(A), len(B)
    out = np.ones((n, m))
    # blocks that stay in cache: the d passes over a block then cost little beyond the arithmetic
    step = max(1, FEATURE_BLOCK_ELEMS // max(1, m))
    for s in range(0, n, step):
        blk = out[s : s + step]
        for j in range(A.shape[1]):
            with np.errstate(over="ignore"):  # a difference that overflows gives 1 / inf = 0, the limit
                u = np.subtract.outer(A[s : s + step, j], B[:, j])
                u *= u
            u += 1.0
            blk /= u
    return out


def profile_gram(profile: Callable[[np.ndarray], np.ndarray], A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """prod_j profile(a_j - b_j) for scaled rows, accumulated feature by feature over row blocks.

    The generic Gram path of a stationary kernel: it needs only the kernel's one-dimensional
    ``profile`` and never builds the (n, m, d) factor tensor; with cache-sized blocks a new profile
    costs about what its arithmetic costs (see ``benchmarks/bench_gram.py``).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.kernels._gram import profile_gram
    >>> A = np.array([[0.0, 0.0], [1.0, 2.0]])
    >>> np.round(profile_gram(lambda u: np.exp(-0.5 * u * u), A, A), 3)
    array([[1.   , 0.082],
           [0.082, 1.   ]])
    """
    n, m = len(A), len(B)
    out = np.ones((n, m))
    step = max(1, FEATURE_BLOCK_ELEMS // max(1, m))
    Bt = np.ascontiguousarray(B.T)
    for s in range(0, n, step):
        blk = out[s : s + step]
        for j in range(A.shape[1]):
            with np.errstate(over="ignore"):  # an overflowing difference is +-inf: the profile's limit
                u = np.subtract.outer(A[s : s + step, j], Bt[j])
            blk *= profile(u)
    return out


def _label_codes(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Integer codes with equal codes exactly for equal labels, or None when labels are unhashable."""
    if x.dtype == y.dtype and x.dtype.kind in "biufUS":
        _, inv = np.unique(np.concatenate([x, y]), return_inverse=True)
        inv = inv.reshape(-1)
        return inv[: len(x)], inv[len(x) :]
    table: dict[Any, int] = {}
    try:
        codes = np.array([table.setdefault(v, len(table)) for v in np.concatenate([x, y]).tolist()], dtype=np.int64)
    except TypeError:
        return None
    return codes[: len(x)], codes[len(x) :]


def _mismatch_gram(parts: list[tuple[np.ndarray, np.ndarray, float]], n: int, m: int) -> np.ndarray:
    """prod over features of (1 if labels equal else mismatch): ``mismatch ** (number of differences)``.

    ``parts`` holds (X columns, Y columns, mismatch) for groups of categorical features.
    """
    out = np.ones((n, m))
    step = _row_step(m)
    for Xc, Yc, mismatch in parts:
        codes = [_label_codes(Xc[:, j], Yc[:, j]) for j in range(Xc.shape[1])]
        for s in range(0, n, step):
            count = np.zeros((min(step, n - s), m), dtype=np.int64)
            for j, cj in enumerate(codes):
                if cj is None:  # unhashable labels: compare them directly
                    count += Xc[s : s + step, j][:, None] != Yc[None, :, j]
                else:
                    count += cj[0][s : s + step, None] != cj[1][None, :]
            out[s : s + step] *= np.power(mismatch, count)
    return out

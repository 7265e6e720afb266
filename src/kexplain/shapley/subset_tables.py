"""The tables of the subset route: products over every subset, absent-set values, the game's values.

Every subset of d players is a bitmask m (bit j = player j, the order of
:func:`kexplain.shapley.exact_shapley`'s coalitions).  :func:`subset_products` forms the 2^d
products of a row of factors by doubling; :func:`absent_set_table` sums them over background
rows into the absent-set table B of :class:`kexplain.shapley.subsets.SubsetGame`; the pass that
accumulates a point's 2^d game values from such a table is the compiled kernel of
``_product_numba`` when numba is installed, numpy otherwise (``_subset_kernel``, the same numbers
up to rounding; :func:`compiled_available` says which).  Every name is also imported from
:mod:`kexplain.shapley.subsets`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

#: a kernel fills v and returns whether every value is finite (the compiled one), or None (numpy:
#: the caller checks)
SubsetKernel = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None], bool | None]


def subset_products(F: np.ndarray) -> np.ndarray:
    """Products of every subset of the last axis of ``F``, subset axis first.

    ``out[m, ...] = prod_{j in m} F[..., j]`` where bit j of m says whether j is in the subset
    (the order of :func:`kexplain.shapley.exact_shapley`'s coalitions), computed by doubling: 2^d
    products in all.

    Parameters
    ----------
    F : ndarray of shape (..., d)

    Returns
    -------
    ndarray of shape (2**d, ...)

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley.subsets import subset_products
    >>> subset_products(np.array([2.0, 3.0]))
    array([1., 2., 3., 6.])
    """
    F = np.asarray(F, dtype=np.float64)
    d = F.shape[-1]
    Ft = np.moveaxis(F, -1, 0)
    out = np.empty((2**d,) + F.shape[:-1])
    out[0] = 1.0
    for j in range(d):
        h = 1 << j
        np.multiply(out[:h], Ft[j][None], out=out[h : 2 * h])
    return out


def absent_set_table(factors: np.ndarray, weights: np.ndarray, *, backend: str = "auto") -> np.ndarray:
    """B[i, T] = sum_z weights_z prod_{j in T} factors[z, i, j] for every set T (bit j = player j).

    The absent-set values of an interventional product game: ``factors[z, i, j]`` is row i's
    factor of player j at background row z.  The compiled kernel (numba) works in a scratch
    array of 2^d numbers; the numpy fallback needs 8 * 2^d * n_background * rows bytes of work,
    so callers build big tables a block of rows at a time.  Both give the same numbers up to
    rounding.

    Parameters
    ----------
    factors : ndarray of shape (n_background, rows, d)
        Per-feature factors of each background row z and row i.
    weights : ndarray of shape (n_background,)
        Weight of each background row.
    backend : {"auto", "numba", "numpy"}

    Returns
    -------
    ndarray of shape (rows, 2**d)
        B[i, T] for every set T of absent features (bit j of T = player j).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley.subsets import absent_set_table
    >>> b = np.array([[[0.5, 2.0]], [[1.0, 4.0]]])          # two background rows, one row, d = 2
    >>> absent_set_table(b, np.array([0.5, 0.5]))
    array([[1.  , 0.75, 3.  , 2.5 ]])
    """
    factors = np.asarray(factors, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    if factors.ndim != 3 or weights.shape != (factors.shape[0],):
        raise ValueError(
            "factors must have shape (n_background, rows, d) and weights (n_background,), got "
            f"{factors.shape} and {weights.shape}."
        )
    kernel = _subset_kernel(backend)
    if kernel is _subset_values_numpy:
        B = np.tensordot(subset_products(factors), weights, axes=(1, 0))  # (2^d, rows)
        return B.T
    # the game of the background rows: "points" are the table's rows, "rows" the background rows
    nb, R, d = factors.shape
    from ._product_numba import subset_table_layout

    table = subset_table_layout(np.broadcast_to(weights[None, :, None], (1, nb, 2**d)))
    v = np.empty((2**d, R, 1))
    kernel(np.ascontiguousarray(factors.transpose(1, 0, 2)), table, v, np.ones((R, nb)))
    return v[:, :, 0].T


def _subset_values_numpy(a: np.ndarray, table: np.ndarray, v: np.ndarray, w: np.ndarray | None) -> None:
    """v[m, p, q] = sum_i w[p, i] table[q, m, i] prod_{j in m} a[p, i, j]: the compiled kernel's
    fallback, with the table laid out (outputs, 2^d, rows)."""
    A = subset_products(a)  # (2^d, p, R)
    if w is not None:
        A *= w[None]
    o = table.shape[0]
    for q in range(o):
        prod = np.multiply(A, table[q][:, None, :], out=np.empty_like(A) if q < o - 1 else A)
        v[:, :, q] = prod.sum(axis=-1)


def _subset_kernel(backend: str = "auto") -> SubsetKernel:
    """The compiled kernel (its table in ``subset_table_layout``'s layout) or the numpy fallback."""
    if backend not in ("auto", "numba", "numpy"):
        raise ValueError(f"backend must be one of ('auto', 'numba', 'numpy'), got {backend!r}.")
    if backend == "numpy":
        return _subset_values_numpy
    try:
        from ._product_numba import subset_values
    except Exception:  # numba missing or unusable here: numpy gives the same numbers
        if backend == "numba":
            from .._optional import require

            require("numba", "backend='numba' of the subset route")
            raise ImportError("numba is installed but kexplain's compiled kernel failed to import.") from None
        return _subset_values_numpy
    return subset_values


def compiled_available() -> bool:
    """Whether the compiled (numba) kernel of the subset route can be used here.

    Examples
    --------
    >>> from kexplain.shapley.subsets import compiled_available
    >>> isinstance(compiled_available(), bool)
    True
    """
    return _subset_kernel("auto") is not _subset_values_numpy

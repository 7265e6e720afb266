"""Exact Shapley values of product games through tabulated absent-set values (the subset route).

A game of this module gives, for each explained point p, output q and coalition S of d players,

    v_p(S) = sum_i c_iq * prod_{j in S} a_pij * B_i(D minus S),

with ``a`` (points, rows, d) the factors of the present players, ``c`` (rows, outputs) the row
weights and ``B`` (rows, 2^d) a table of the value of row i for every absent set T.  Such a table
depends on nothing but the game's rows, so it is built once and every explained point then costs
O(rows 2^d): the 2^d values v_p(S) are accumulated (a compiled kernel when numba is installed,
numpy otherwise, the same numbers up to rounding) and handed to the enumeration solver, which
gives the Shapley values and interaction indices.

The interventional game of a product-kernel model (the marginal-expectation value function that
Mohammadi, Chau & Muandet, 2025, section 3.1, contrast with their functional baseline) is one
such game: with background rows z and weights w, B_i(T) = sum_z w_z prod_{j in T} k_ij(z_j)
(:func:`absent_set_table`).  For few features and many background rows this is cheaper than the
quadrature of ``kexplain.shapley.product``; which route to take is decided by the caller (the
explainer's cost model), not here.  This module knows nothing of models.

Every name is imported from here; the code lives by idea in two modules:

- ``subset_tables``: the tables (:func:`subset_products`, :func:`absent_set_table`) and the pass
  forming a point's 2^d game values from them, compiled or numpy (:func:`compiled_available`);
- this module: :class:`SubsetGame`, the table weighted by the coefficients and the solver over
  explained points.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._validation import check_interactions
from .enumeration import MAX_ENUMERATION_FEATURES, _cached_batch_coefficients, exact_shapley
from .result import ShapleyValues
from .subset_tables import (  # noqa: F401  (SubsetKernel: a name before the split)
    SubsetKernel,
    _subset_kernel,
    _subset_values_numpy,
    absent_set_table,
    compiled_available,
    subset_products,
)

#: bytes of the per-pass work arrays of the numpy fallback (they should stay in cache)
_WORK_BYTES = 4 * 2**20

#: default bound, in bytes, on the work arrays of one pass over explained points
DEFAULT_BLOCK_BYTES = 32 * 2**20

#: exact_shapley's default batch of coalitions: up to this many, it forms the values in one product
_ONE_BATCH = 4096
#: explained points per block up to which the compiled kernel's unit row weights are kept
_KEEP_UNIT_WEIGHTS = 64


class _TableLookup:
    """The value function of a tabulated game: coalitions (n, d) -> rows of ``v`` (bit j = player j)."""

    def __init__(self, v: np.ndarray, bits: np.ndarray) -> None:
        self.v, self.bits = v, bits

    def __call__(self, S: np.ndarray) -> np.ndarray:
        return self.v[S.astype(np.int64) @ self.bits]


class SubsetGame:
    """A product game with tabulated absent-set values, solved exactly point by point.

    ``v_p(S) = sum_i coef_iq prod_{j in S} a_pij * absent[i, D minus S]`` (module docstring).  The
    table, weighted by the coefficients, is laid out once here for the chosen kernel; ``solve``
    then takes the present factors of any number of points.

    Parameters
    ----------
    absent : ndarray of shape (rows, 2**d)
        ``absent[i, T]``: the value of row i when the players of T (bit j = player j) are absent,
        for example from :func:`absent_set_table`.
    coef : ndarray of shape (rows, outputs) or (rows,)
        Row weights for each output.
    backend : {"auto", "numba", "numpy"}
        "auto" uses the compiled kernel when numba is installed; the numbers agree to rounding.

    Attributes
    ----------
    n_features, n_rows, n_outputs : int
    nbytes : int
        Memory held by the table.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley.subsets import SubsetGame, absent_set_table
    >>> b = np.array([[[0.5, 2.0]], [[1.0, 4.0]]])          # background factors (n_b, rows, d)
    >>> game = SubsetGame(absent_set_table(b, np.array([0.5, 0.5])), np.array([1.0]))
    >>> res = game.solve(np.array([[[1.0, 1.0]]]))         # present factors (points, rows, d)
    >>> np.round(res.values[..., 0], 3), res.v_full[:, 0], res.v_empty[:, 0]
    (array([[ 0.375, -1.875]]), array([1.]), array([2.5]))
    """

    def __init__(self, absent: np.ndarray, coef: np.ndarray, *, backend: str = "auto") -> None:
        absent = np.asarray(absent, dtype=np.float64)
        coef = np.asarray(coef, dtype=np.float64)
        if coef.ndim == 1:
            coef = coef[:, None]
        if absent.ndim != 2 or coef.ndim != 2 or coef.shape[0] != absent.shape[0]:
            raise ValueError(
                "absent must have shape (rows, 2**d) and coef (rows, outputs) with the same rows, got "
                f"{absent.shape} and {coef.shape}."
            )
        n_sets = absent.shape[1]
        d = n_sets.bit_length() - 1
        if n_sets != 1 << d or d < 1:
            raise ValueError(f"absent must have 2**d columns (one per set of d >= 1 players), got {n_sets}.")
        if d > MAX_ENUMERATION_FEATURES:
            raise ValueError(f"the subset route enumerates 2^d sets and accepts d <= {MAX_ENUMERATION_FEATURES}.")
        if not (np.all(np.isfinite(absent)) and np.all(np.isfinite(coef))):
            raise ValueError("absent and coef must hold finite numbers only.")
        self.n_features, self.n_rows, self.n_outputs = d, absent.shape[0], coef.shape[1]
        self._kernel = _subset_kernel(backend)
        complement = (n_sets - 1) ^ np.arange(n_sets)
        # table[q, i, m] = coef_iq * absent_i(complement of m), m the present set
        table = absent[None, :, complement] * coef.T[:, :, None]
        if self._kernel is _subset_values_numpy:
            table = np.ascontiguousarray(table.transpose(0, 2, 1))
        else:
            from ._product_numba import subset_table_layout

            table = subset_table_layout(table)
        self._table = table

    @property
    def nbytes(self) -> int:
        """Bytes held by the coefficient-weighted table."""
        return int(self._table.nbytes)

    def values(self, present: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
        """The game values v_p(S) of every coalition, shape (2**d, points, outputs).

        Parameters
        ----------
        present : ndarray of shape (points, rows, d)
            Factors of the present players.
        weights : ndarray of shape (points, rows), optional
            Per-point row weights, multiplying ``coef``: rows whose weight depends on the
            explained point (e.g. a context kernel evaluated at it).

        Returns
        -------
        ndarray of shape (2**d, points, outputs)
            Row m is the coalition whose bits are those of m.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.shapley.subsets import SubsetGame
        >>> game = SubsetGame(np.ones((1, 4)), np.array([2.0]))
        >>> game.values(np.array([[[3.0, 5.0]]]))[:, 0, 0]
        array([ 2.,  6., 10., 30.])
        """
        a = np.ascontiguousarray(present, dtype=np.float64)
        if a.ndim != 3 or a.shape[1:] != (self.n_rows, self.n_features):
            raise ValueError(f"present must have shape (points, {self.n_rows}, {self.n_features}), got {a.shape}.")
        w = None
        if weights is not None:
            w = np.ascontiguousarray(weights, dtype=np.float64)
            if w.shape != a.shape[:2]:
                raise ValueError(f"weights must have shape {a.shape[:2]} (points, rows), got {w.shape}.")
        elif self._kernel is not _subset_values_numpy:
            w = self._unit_weights(a.shape[0])
        v = np.empty((2**self.n_features, a.shape[0], self.n_outputs))
        finite = self._kernel(a, self._table, v, w)
        if not (np.isfinite(v).all() if finite is None else finite):
            raise FloatingPointError("non-finite game values: check the factors and the coefficients.")
        return v

    def _unit_weights(self, n_points: int) -> np.ndarray:
        """Ones of shape (n_points, rows) for the compiled kernel, which only reads them: kept for
        small blocks (one explained point: a fresh array each call is a visible part of it)."""
        if n_points > _KEEP_UNIT_WEIGHTS:
            return np.ones((n_points, self.n_rows))
        ones = self.__dict__.get("_ones")
        if ones is None:
            # writeable, as the compiled kernel's signature has it (a read-only array would compile
            # another specialisation); nothing writes to it
            ones = self._ones = np.ones((_KEEP_UNIT_WEIGHTS, self.n_rows))
        return ones[:n_points]

    def solve(
        self,
        present: np.ndarray | Callable[[slice], np.ndarray | tuple[np.ndarray, np.ndarray]],
        *,
        n_points: int | None = None,
        interactions: bool | str | None = False,
        max_block_bytes: int = DEFAULT_BLOCK_BYTES,
        progress: bool = False,
    ) -> ShapleyValues:
        """Exact Shapley values (and interaction indices) of the game at each explained point.

        Parameters
        ----------
        present : ndarray of shape (points, rows, d), or callable
            The present factors, or a function returning them for a slice of points (then
            ``n_points`` is required): points are taken a block at a time, so the factors of all
            points are never held at once.  The function may also return a pair ``(a, w)``
            with ``w`` (points, rows) per-point row weights (see :meth:`values`).
        n_points : int, optional
            Number of points when ``present`` is a callable.
        interactions : bool or {"sii", "stii"}
            Also return pairwise interaction values (True means "sii"), in the layout of
            :func:`~kexplain.shapley.exact_shapley`.
        max_block_bytes : int
            Bound on the work arrays of one block of points.
        progress : bool
            Show a progress bar over points (tqdm).

        Returns
        -------
        ShapleyValues
            ``values`` (points, d, outputs), ``v_full`` and ``v_empty`` (points, outputs) and,
            when asked, ``interactions`` (points, d, d, outputs) in shap's layout (each row sums
            to phi_j) and ``interaction_index``.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.shapley.subsets import SubsetGame
        >>> game = SubsetGame(np.ones((1, 4)), np.array([1.0]))   # B = 1: v(S) = prod_{j in S} a_j
        >>> res = game.solve(lambda pts: np.array([[[2.0, 3.0]]])[pts], n_points=1, interactions=True)
        >>> res.values[0, :, 0], res.interactions[0, 0, 1, 0]
        (array([2., 3.]), np.float64(1.0))
        """
        if callable(present):
            if n_points is None:
                raise ValueError("n_points is required when present is a callable.")
            get = present
            N = int(n_points)
        else:
            arr = np.asarray(present, dtype=np.float64)
            if arr.ndim != 3:
                raise ValueError(f"present must have shape (points, rows, d), got {arr.shape}.")
            N = arr.shape[0]

            def get(pts: slice) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
                return arr[pts]

        d, R, o = self.n_features, self.n_rows, self.n_outputs
        n_sets = 2**d
        index = check_interactions(interactions)
        # points per pass: numpy's subset tables (2^d, points, rows) stay in cache; the compiled
        # kernel keeps only the (2^d, points) values
        if self._kernel is _subset_values_numpy:
            per_point = 16 * n_sets * R
        else:
            per_point = 8 * n_sets * (o + 1) + 8 * R * d
        step = max(1, min(int(max_block_bytes), _WORK_BYTES) // per_point)
        if index is None and n_sets <= _ONE_BATCH and 0 < N <= step and not progress:
            # one block (a few explained points): the loop below without its preallocated
            # outputs, giving the same numbers in the same C layout
            got = get(slice(0, N))
            v = self.values(*got) if isinstance(got, tuple) else self.values(got)
            phi = _cached_batch_coefficients(d, 0, n_sets)[2].T @ v.reshape(n_sets, -1)
            return ShapleyValues(
                values=np.ascontiguousarray(phi.reshape(d, N, o).transpose(1, 0, 2)),
                v_full=v[-1],
                v_empty=v[0],
                n_evaluations=n_sets * N,
            )
        values = np.empty((N, d, o))
        v_full, v_empty = np.empty((N, o)), np.empty((N, o))
        inter = np.empty((N, d, d, o)) if index is not None else None
        bar = None
        if progress:
            from tqdm.auto import tqdm

            bar = tqdm(total=N, desc="kexplain", unit="pt")
        for p0 in range(0, N, step):
            pts = slice(p0, min(N, p0 + step))
            got = get(pts)
            v = self.values(*got) if isinstance(got, tuple) else self.values(got)
            if index is None and n_sets <= _ONE_BATCH:
                # what exact_shapley computes for a table in bit order (one batch, the same cached
                # coefficients, the same product), without its per-call checks and lookups: the
                # table is checked finite by ``values``
                phi = _cached_batch_coefficients(d, 0, n_sets)[2].T @ v.reshape(n_sets, -1)
                values[pts] = phi.reshape(d, -1, o).transpose(1, 0, 2)
                v_full[pts], v_empty[pts] = v[-1], v[0]
                if bar is not None:
                    bar.update(pts.stop - pts.start)
                continue
            res = exact_shapley(_TableLookup(v, 1 << np.arange(d)), d, interactions=index or False)
            values[pts] = np.asarray(res.values).reshape(-1, d, o)
            v_full[pts], v_empty[pts] = v[-1], v[0]
            if inter is not None:
                inter[pts] = np.asarray(res.interactions).reshape(-1, d, d, o)
            if bar is not None:
                bar.update(pts.stop - pts.start)
        if bar is not None:
            bar.close()
        return ShapleyValues(
            values=values,
            v_full=v_full,
            v_empty=v_empty,
            interactions=inter,
            interaction_index=index,
            n_evaluations=n_sets * N,
        )

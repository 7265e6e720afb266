"""Product games built from a KernelExpansion, for either exact route.

Rows of the functional-baseline game (Mohammadi, Chau & Muandet, 2025, section 3.1) are the
expansion's (term, support point) pairs; rows of the interventional game are (term, reference
point, background row) triples.  Both build dense blocks on demand, so the engine's chunking
bounds memory (design notes, docs/design.md section 1, table of instances).

What depends only on the model and the background is built once, by the explainer's
constructor, and shared by every ``explain`` call:

- :class:`BackgroundFactors`: the per-feature kernel factors k_ij(z_j) of every support point i
  against every background row z, used by the quadrature route of the interventional game;
- :func:`subset_game`: for few features and many background rows, the interventional value
  factorises per support point i into a part that depends on x and one that does not,

      v_x(S) = sum_i coef_i * prod_{j in S} k_ij(x_j) * B_i(complement of S),
      B_i(T) = sum_z w_z prod_{j in T} k_ij(z_j),

  so B_i is tabulated once for all 2^d sets T and each explained point costs O(n 2^d) instead of
  O(n n_b d^2 / 2) by quadrature (``kexplain.shapley.subsets``).

:func:`kexplain.shapley.routes.choose_route`, next to the solvers, is the cost model that decides
between the two; the solvers only solve.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..models.expansion import KernelExpansion
from ..shapley.array_api import from_numpy
from ..shapley.routes import BACKGROUND_TABLE_BYTES
from ..shapley.subsets import SubsetGame, absent_set_table

#: bound on the background factors cached on a device (GPU memory) when the host keeps none
DEVICE_TABLE_BYTES = 4 * 2**30


def _is_host(device: Any) -> bool:
    """Whether ``device`` is the host's memory (a torch CPU tensor, array-api-strict's CPU device)."""
    return device is None or "cpu" in str(device).lower()


def _check_finite(x: np.ndarray, name: str) -> None:
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name} contain NaN or infinite values; the product-game engine accepts finite numbers only.")


class FunctionalGame:
    """v_x(S) = sum_i coef_i prod_{j in S} k_j(x_j, X_ij): PKeX's functional baseline.

    The intercept is left out (it is the same for every coalition).  A ``ProductGame`` for
    :func:`kexplain.shapley.solve_product_game`.

    Parameters
    ----------
    model : KernelExpansion
    X : ndarray of shape (N, d)
        Validated explained rows.
    xp, device : array namespace and device, optional
        Give blocks as arrays of this namespace on this device (e.g. ``torch`` and "cuda"), so
        the engine runs there; default numpy.

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.explainers.product_games import FunctionalGame
    >>> em = kx.KernelExpansion(np.zeros((1, 2)), [1.0], kx.kernels.RBF(1.0))
    >>> res = kx.shapley.solve_product_game(FunctionalGame(em, np.ones((1, 2))))
    >>> np.round(res.values[0, :, 0], 3), np.round(res.v_empty[0, 0], 3)
    (array([-0.316, -0.316]), np.float64(1.0))
    """

    def __init__(self, model: KernelExpansion, X: np.ndarray, *, xp: Any = None, device: Any = None) -> None:
        self.model, self.X = model, X
        self.n_points, self.n_features = X.shape
        self.n_rows, self.n_outputs = model.n_rows, model.n_outputs
        self.row_alignment = 1
        self.xp, self.device = xp, device

    def block(self, points: slice, rows: slice) -> tuple[Any, float, Any]:
        """(a, b, c) of these points and rows: a (p, r, d), b = 1, c (r, o); arrays of ``xp`` when given."""
        a, c = self.model.row_factors(self.X[points], rows)
        if self.xp is not None:
            return from_numpy(a, self.xp, self.device), 1.0, from_numpy(c, self.xp, self.device)
        return a, 1.0, c

    def stationary_block(self, points: slice, rows: slice) -> tuple[Any, ...] | None:
        """(X, Y, lengthscales, laplacian, c) of these points and rows for the engine's fused kernel.

        Only for numpy blocks of a model with one RBF or Laplacian kernel whose factors take the
        compiled pass (:meth:`kexplain.kernels.RBF.compiled_factor_spec`): the engine then computes
        ``block``'s factors itself, the same numbers, without a (points, rows, d) array.  Else None.

        Parameters
        ----------
        points, rows : slice
            As for ``block``.

        Returns
        -------
        tuple or None
            The block's explained rows (p, d), support points (r, d), lengthscales (d,), whether
            the kernel is the Laplacian, and row weights c (r, o); None for other models.
        """
        em = self.model
        spec = getattr(em.terms[0], "compiled_factor_spec", None) if self.xp is None and len(em.terms) == 1 else None
        spec = None if spec is None else spec(self.n_features)
        if spec is None:
            return None
        c = em.term_weights[0] * em.coef[rows]
        return self.X[points], em.X_ref[rows], spec[0], spec[1], c


def _lay_out_rows(b: np.ndarray) -> np.ndarray:
    """Rows (r, d) as (ceil(r / 4), d, 4), out[g, j, q] = b[4 g + q, j], the last group padded
    with factors 1: the layout the engine's fused interventional kernel reads each block of 4
    pairs' absent factors from in place (``kexplain.shapley._product_fused_numba``)."""
    r, d = b.shape
    g = -(-r // 4)
    padded = np.ones((4 * g, d))
    padded[:r] = b
    return np.ascontiguousarray(padded.reshape(g, 4, d).transpose(0, 2, 1))


#: pairs (points x rows) of a block up to which its pair index is kept for the next call
_KEEP_PAIR_INDEX = 2**18


class BackgroundFactors:
    """The background of an interventional game and its kernel factors, built once.

    ``factors[i, z, j] = k_ij(z_j, X_ref_ij)`` for every expansion row i, background row z and
    feature j is kept when it takes at most ``max_bytes`` bytes (8 * rows * n_background * d);
    otherwise each block recomputes its own rows.

    Parameters
    ----------
    model : KernelExpansion
    background : ndarray of shape (n_background, d)
        Validated background rows.
    weights : ndarray of shape (n_background,)
        Weights summing to one.
    max_bytes : int
        Bound on the kept factors.

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.explainers.product_games import BackgroundFactors
    >>> em = kx.KernelExpansion(np.zeros((3, 2)), np.ones(3), kx.kernels.RBF(1.0))
    >>> bg = BackgroundFactors(em, np.ones((4, 2)), np.full(4, 0.25))
    >>> bg.factors.shape, round(bg.nbytes)
    ((3, 4, 2), 192)
    """

    def __init__(
        self,
        model: KernelExpansion,
        background: np.ndarray,
        weights: np.ndarray,
        *,
        max_bytes: int = BACKGROUND_TABLE_BYTES,
    ) -> None:
        self.model, self.Z, self.w = model, background, weights
        self._max_bytes = max_bytes
        self.n_background = background.shape[0]
        self.n_base_rows = model.n_rows
        self.factors: np.ndarray | None = None
        self.products: np.ndarray | None = None
        d = model.n_features
        size = 8 * self.n_base_rows * self.n_background * d
        if 0 < size <= max_bytes:
            factors = np.empty((self.n_base_rows, self.n_background, d))
            # a block of rows at a time: (n_background, rows, d) transposed into place
            step = max(1, (8 * 2**20) // (8 * self.n_background * d))
            for r0 in range(0, self.n_base_rows, step):
                rows = slice(r0, min(self.n_base_rows, r0 + step))
                b, _ = model.row_factors(background, rows)
                factors[rows] = b.transpose(1, 0, 2)
            _check_finite(factors, "the background's kernel factors")
            self.factors = factors
            # v(no feature) of every (row, background row) pair: background-only, so once here
            # rather than in every block of every call
            with np.errstate(under="ignore"):
                self.products = np.prod(factors, axis=-1).reshape(-1)

    def rows_on(self, base_rows: slice, xp: Any, device: Any) -> Any:
        """``rows(base_rows)`` as an array of namespace ``xp`` on ``device`` (float64).

        The factors are moved to the device once and cached there: the kept ones, and those too
        large for the host's table (``max_bytes``) when they fit ``DEVICE_TABLE_BYTES``, computed
        a block of rows at a time (otherwise every call of a GPU explanation recomputed them on
        the host, measured as nearly all of its time at 10^6 pairs).
        """
        row_bytes = 8 * self.n_background * self.model.n_features
        if self.factors is None and (row_bytes * self.n_base_rows > DEVICE_TABLE_BYTES or _is_host(device)):
            return from_numpy(self.rows(base_rows), xp, device)
        key = (getattr(xp, "__name__", str(xp)), str(device))
        cache = self.__dict__.setdefault("_on_device", {})
        if key not in cache:
            if self.factors is not None:
                cache[key] = from_numpy(self.factors, xp, device)
            else:
                step = max(1, (64 * 2**20) // max(1, row_bytes))
                parts = [
                    from_numpy(self.rows(slice(r0, min(self.n_base_rows, r0 + step))), xp, device)
                    for r0 in range(0, self.n_base_rows, step)
                ]
                cache[key] = xp.concat(parts, axis=0) if len(parts) > 1 else parts[0]
        return cache[key][base_rows, ...]

    @property
    def nbytes(self) -> int:
        """Bytes held by the kept factors (0 when they are recomputed per block)."""
        return 0 if self.factors is None else int(self.factors.nbytes)

    def pair_rows(self, rows: slice) -> tuple[np.ndarray, np.ndarray | None]:
        """The factors of these (expansion row, background row) pairs and their products.

        Parameters
        ----------
        rows : slice
            Pairs in the game's row order (expansion row i, background row z at i * n_background + z).

        Returns
        -------
        factors : ndarray of shape (r, d)
            A view of the kept factors (no copy), or recomputed and checked finite.
        products : ndarray of shape (r,) or None
            prod_j of each pair's factors when the factors are kept, else None.
        """
        if self.factors is not None and self.products is not None:
            return self.factors.reshape(-1, self.factors.shape[2])[rows], self.products[rows]
        nb = self.n_background
        lo, hi = rows.start // nb, -(-rows.stop // nb)
        b = self.rows(slice(lo, hi)).reshape(-1, self.model.n_features)[rows.start - lo * nb : rows.stop - lo * nb]
        _check_finite(b, "the background's kernel factors")
        return b, None

    def pair_layout(self, rows: slice) -> np.ndarray | None:
        """The factors of these pairs in the layout the fused kernel reads (``_lay_out_rows``:
        (ceil(r / 4), d, 4)), kept per row block up to ``max_bytes`` in all; None when the factors
        are not kept.  Background-only: the same row blocks recur in every call."""
        if self.factors is None:
            return None
        cache = self.__dict__.setdefault("_layouts", {})
        key = (rows.start, rows.stop)
        laid = cache.get(key)  # one lookup: another thread's block may clear the cache meanwhile
        if laid is None:
            laid = _lay_out_rows(self.factors.reshape(-1, self.factors.shape[2])[rows])
            if sum(x.nbytes for x in list(cache.values())) + laid.nbytes > max(self._max_bytes, laid.nbytes):
                cache.clear()
            laid.flags.writeable = False
            cache[key] = laid
        return laid

    def pair_coef(self, rows: slice) -> np.ndarray | None:
        """The weights c_i w_z of these (expansion row, background row) pairs, shape (rows, outputs).

        Background-only: built once with the kept factors (the same products a block forms from
        its own rows), read-only; None when the factors are not kept (the block forms them).
        """
        if self.factors is None:
            return None
        cached = self.__dict__.get("_pair_coef")
        if cached is None:
            model, R, nb = self.model, self.n_base_rows, self.n_background
            c_all = model.row_factors(self.Z[:1], slice(0, R))[1]  # (R, o): c_i, whatever the point
            cached = (c_all[:, None, :] * self.w[None, :, None]).reshape(R * nb, -1)
            # checked once here, not by the solver in every block of every call (``pair_block``)
            _check_finite(cached, "the rows' weights (coefficients x background weights)")
            cached.flags.writeable = False
            self._pair_coef = cached
        return cached[rows]

    def pair_empty(self, rows: slice) -> np.ndarray | None:
        """v(no feature) of these pairs, ``products[rows] @ pair_coef(rows)``, shape (outputs,).

        Background-only, so kept for the last row block asked (the same block recurs in every
        call); None when the factors are not kept.
        """
        if self.products is None or self.factors is None:
            return None
        key = (rows.start, rows.stop)
        last = self.__dict__.get("_pair_empty")
        if last is None or last[0] != key:
            c = self.pair_coef(rows)
            assert c is not None  # kept factors keep their weights
            last = self._pair_empty = (key, self.products[rows] @ c)
        return last[1]

    def pair_index(self, p: int, rb: int, off: int, r: int) -> np.ndarray:
        """Which row of a block's present factors (p points x rb expansion rows) each pair takes.

        Pair (point i, pair k of the block) takes point i's factors of expansion row
        (off + k) // n_background.  The same block shape recurs in every call, so the last one
        is kept when small (the compiled kernel only reads it).
        """
        key = (p, rb, off, r)
        last = self.__dict__.get("_pair_index")
        if last is not None and last[0] == key:
            return last[1]
        nb = self.n_background
        ia = (np.arange(p)[:, None] * rb + (np.arange(off, off + r) // nb)[None, :]).reshape(-1)
        if p * r <= _KEEP_PAIR_INDEX:
            self._pair_index = (key, ia)
        return ia

    def rows(self, base_rows: slice) -> np.ndarray:
        """The factors of these expansion rows, shape (rows, n_background, d)."""
        if self.factors is not None:
            return self.factors[base_rows]
        b, _ = self.model.row_factors(self.Z, base_rows)
        return np.ascontiguousarray(b.transpose(1, 0, 2))


class InterventionalGame:
    """v_x(S) = sum_z w_z f(x_S, z_not S) (minus the intercept): exact interventional SHAP.

    Baseline Shapley at a reference row is the special case of one background row.  A
    ``ProductGame`` for :func:`kexplain.shapley.solve_product_game`, whose rows are (expansion
    row, background row) pairs; the background's factors come from a :class:`BackgroundFactors`
    built once per explainer.

    Parameters
    ----------
    model : KernelExpansion
    X : ndarray of shape (N, d)
        Validated explained rows.
    background : BackgroundFactors
    xp, device : array namespace and device, optional
        Give blocks as arrays of this namespace on this device (e.g. ``torch`` and "cuda"): the
        background factors are moved there once and only each block's present factors travel.

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.explainers.product_games import BackgroundFactors, InterventionalGame
    >>> em = kx.KernelExpansion(np.zeros((1, 2)), [1.0], kx.kernels.RBF(1.0))
    >>> bg = BackgroundFactors(em, np.zeros((1, 2)), np.ones(1))
    >>> res = kx.shapley.solve_product_game(InterventionalGame(em, np.ones((1, 2)), bg))
    >>> np.round(res.values[0, :, 0], 3), np.round(res.v_empty[0, 0], 3)
    (array([-0.316, -0.316]), np.float64(1.0))
    """

    def __init__(
        self,
        model: KernelExpansion,
        X: np.ndarray,
        background: BackgroundFactors,
        *,
        xp: Any = None,
        device: Any = None,
    ) -> None:
        self.model, self.X, self.background = model, X, background
        self.xp, self.device = xp, device
        self.w = background.w
        self.n_points, self.n_features = X.shape
        self.nb = background.n_background
        self.n_base_rows = model.n_rows
        self.n_rows = model.n_rows * self.nb
        self.n_outputs = model.n_outputs
        # row blocks that hold whole groups of background rows need a_base for their own
        # support points only (no recomputed or discarded kernel rows at block edges)
        self.row_alignment = self.nb

    def block(self, points: slice, rows: slice) -> tuple[Any, Any, Any]:
        """(a, b, c) of these points and (expansion row, background row) pairs."""
        nb = self.nb
        lo, hi = rows.start // nb, -(-rows.stop // nb)  # base rows touched
        a_base, c_base = self.model.row_factors(self.X[points], slice(lo, hi))  # (p, rb, d)
        if self.xp is not None:
            return self._block_xp(a_base, c_base, lo, hi, rows)
        b_base = self.background.rows(slice(lo, hi))  # (rb, nb, d)
        p, rb, d = a_base.shape
        a = np.broadcast_to(a_base[:, :, None, :], (p, rb, nb, d)).reshape(p, rb * nb, d)
        b = b_base.reshape(1, rb * nb, d)
        c = (c_base[:, None, :] * self.w[None, :, None]).reshape(rb * nb, -1)
        off = rows.start - lo * nb
        sl = slice(off, off + (rows.stop - rows.start))
        return a[:, sl], b[:, sl], c[sl]

    def pair_block(self, points: slice, rows: slice) -> tuple[Any, ...] | None:
        """The block as rows of factors, without copies (``ProductGame.pair_block``).

        The present factors of each (point, expansion row) are computed once, not once per
        background row; the background's factors and their products are those kept by
        :class:`BackgroundFactors`.

        Parameters
        ----------
        points : slice
            The block of explained points.
        rows : slice
            The block of (expansion row, background row) pairs.

        Returns
        -------
        tuple or None
            ``(a, ia, b, c, pb)``: a (points x expansion rows touched, d), ia (points x rows,) the
            row of ``a`` of each pair, b (rows, d), c (rows, outputs), pb (rows,) or None; None
            when blocks go to another array namespace (``xp``).  b and c are checked finite.
        """
        if self.xp is not None:
            return None
        nb = self.nb
        lo, hi = rows.start // nb, -(-rows.stop // nb)  # base rows touched
        off, r = rows.start - lo * nb, rows.stop - rows.start
        b, pb = self.background.pair_rows(rows)
        c = self.background.pair_coef(rows)
        if c is None:
            a_base, c_base = self.model.row_factors(self.X[points], slice(lo, hi))  # (p, rb, d)
            c = (c_base[:, None, :] * self.w[None, :, None]).reshape(-1, c_base.shape[1])[off : off + r]
            _check_finite(c, "the rows' weights (coefficients x background weights)")
        else:  # the weights are the background's, cached: the present factors alone
            a_base = present_factors(self.model, self.X[points], slice(lo, hi))
        p, rb, d = a_base.shape
        return np.ascontiguousarray(a_base).reshape(p * rb, d), self.background.pair_index(p, rb, off, r), b, c, pb

    def pair_empty(self, points: slice, rows: slice) -> np.ndarray | None:
        """v(no feature) of this block's rows (``ProductGame.pair_block``), shape (outputs,): the
        same for every point, kept by :class:`BackgroundFactors`; None when not kept."""
        return None if self.xp is not None else self.background.pair_empty(rows)

    def pair_layout(self, points: slice, rows: slice) -> np.ndarray | None:
        """The background's factors of this block's rows laid out for the fused kernel
        (``ProductGame.pair_block``), kept by :class:`BackgroundFactors`; None when not kept."""
        return None if self.xp is not None else self.background.pair_layout(rows)

    def _block_xp(self, a_base: np.ndarray, c_base: np.ndarray, lo: int, hi: int, rows: slice) -> tuple[Any, Any, Any]:
        """``block`` on the device: only the present factors travel, the background's are cached there."""
        xp, dev, nb = self.xp, self.device, self.nb
        p, rb, d = a_base.shape
        a0 = from_numpy(a_base, xp, dev)
        b_base = self.background.rows_on(slice(lo, hi), xp, dev)  # (rb, nb, d)
        a = xp.reshape(xp.broadcast_to(a0[:, :, None, :], (p, rb, nb, d)), (p, rb * nb, d))
        b = xp.reshape(b_base, (1, rb * nb, d))
        c = from_numpy((c_base[:, None, :] * self.w[None, :, None]).reshape(rb * nb, -1), xp, dev)
        off = rows.start - lo * nb
        sl = slice(off, off + (rows.stop - rows.start))
        return a[:, sl, :], b[:, sl, :], c[sl, :]


def present_factors(model: KernelExpansion, X: np.ndarray, rows: slice | None = None) -> np.ndarray:
    """The present factors of explained rows: ``model.row_factors(X, rows)[0]``.

    For a model of one kernel term (every fitted SVM, kernel ridge and GP) the term's factors are
    taken directly, without ``row_factors``' per-term bookkeeping and its row weights (the
    subset game's table and the background's cached pair weights hold those): the same array,
    bit for bit, at a visible fraction less of a one-point call.

    Parameters
    ----------
    model : KernelExpansion
    X : ndarray of shape (N, d)
        Validated rows.
    rows : slice, optional
        The expanded rows (default: all ``model.n_rows``).

    Returns
    -------
    ndarray of shape (N, rows, d)
        ``a[p, r, j] = k_{t,j}(X_pj, X_ref_ij)`` for expanded row r = (term t, support point i).

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.explainers.product_games import present_factors
    >>> em = kx.KernelExpansion(np.zeros((2, 2)), [1.0, 2.0], kx.kernels.RBF(1.0))
    >>> a = present_factors(em, np.ones((1, 2)))
    >>> a.shape, bool(np.array_equal(a, em.row_factors(np.ones((1, 2)), slice(0, 2))[0]))
    ((1, 2, 2), True)
    """
    n = model.n_rows
    rows = slice(0, n) if rows is None else rows
    if len(model.terms) == 1 and 0 <= rows.start < rows.stop <= n:
        # row_factors' one block, X_ref's rows as it slices them
        return model.terms[0].feature_values(X, model.X_ref[rows.start : rows.stop])
    return model.row_factors(X, rows)[0]


def subset_game(
    model: KernelExpansion,
    background: np.ndarray,
    weights: np.ndarray,
    *,
    max_block_bytes: int,
    backend: str = "auto",
) -> SubsetGame:
    """The interventional game of ``model`` on ``background`` with its absent-set table built.

    B_i(T) = sum_z w_z prod_{j in T} k_ij(z_j) for every expansion row i and every set T, built a
    block of rows at a time (work arrays of at most about ``max_block_bytes``).

    Parameters
    ----------
    model : KernelExpansion
    background : ndarray of shape (n_background, d)
        Validated background rows.
    weights : ndarray of shape (n_background,)
    max_block_bytes : int
    backend : {"auto", "numba", "numpy"}
        The kernel of the subset route.

    Returns
    -------
    kexplain.shapley.subsets.SubsetGame
        Solve it with the present factors ``model.row_factors(X, slice(0, model.n_rows))[0]``.

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.explainers.product_games import subset_game
    >>> em = kx.KernelExpansion(np.zeros((1, 2)), [1.0], kx.kernels.RBF(1.0))
    >>> game = subset_game(em, np.zeros((1, 2)), np.ones(1), max_block_bytes=2**20)
    >>> res = game.solve(em.row_factors(np.ones((1, 2)), slice(0, 1))[0])
    >>> np.round(res.values[0, :, 0], 3)
    array([-0.316, -0.316])
    """
    d, R, o = model.n_features, model.n_rows, model.n_outputs
    nb = background.shape[0]
    n_sets = 2**d
    absent = np.empty((R, n_sets))
    coef = np.empty((R, o))
    # rows per block: the numpy fallback's subset products take 8 * 2^d * nb bytes per row
    step = max(1, int(max_block_bytes) // (16 * n_sets * nb))
    for r0 in range(0, R, step):
        rows = slice(r0, min(R, r0 + step))
        b, c = model.row_factors(background, rows)  # (nb, r, d), (r, o)
        absent[rows] = absent_set_table(b, weights, backend=backend)
        coef[rows] = c
    return SubsetGame(absent, coef, backend=backend)

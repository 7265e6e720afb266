"""The interventional game of a KernelExpansion by quadrature, and the present factors of explained rows.

Rows of :class:`InterventionalGame` are (expansion row, background row) pairs; the background's side
comes from a :class:`~kexplain.explainers._background_factors.BackgroundFactors` built once per
explainer, the explained rows' side from :func:`present_factors` (which the subset route's solve
reads too).  Imported from :mod:`kexplain.explainers.product_games`, the games' public face.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..models.expansion import KernelExpansion
from ..shapley.array_api import from_numpy
from ._background_factors import BackgroundFactors, _check_finite


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
            a_base = _present_factors_kept(self.background, self.model, self.X[points], lo, hi)
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


def _present_factors_kept(
    background: BackgroundFactors, model: KernelExpansion, X: np.ndarray, lo: int, hi: int
) -> np.ndarray:
    """``present_factors(model, X, slice(lo, hi))`` for the game's blocks, the same array bit for bit.

    A model of one RBF or Laplacian kernel whose factors take the compiled pass
    (:meth:`kexplain.kernels.RBF.compiled_factor_spec`, read once and kept with the background
    while the kernel and its lengthscale are the same objects) calls that pass directly: what
    ``feature_values`` does, without its half a dozen conversions per call, each of which costs
    several microseconds of a one-point call on the cache the fused kernel has just flushed.
    """
    term = model.terms[0]
    kept: tuple[Any, ...] | None = background.__dict__.get("_present_spec")
    if kept is None or kept[0] is not model or kept[1] is not term or kept[2] is not getattr(term, "lengthscale", None):
        spec_of = getattr(term, "compiled_factor_spec", None) if len(model.terms) == 1 else None
        spec = None if spec_of is None else spec_of(model.n_features)
        refs = None if spec is None else np.ascontiguousarray(model.X_ref, dtype=np.float64)
        kept = background.__dict__["_present_spec"] = (model, term, getattr(term, "lengthscale", None), spec, refs)
    spec, refs = kept[3], kept[4]
    usable = refs is not None and X.dtype == np.float64 and X.ndim == 2 and X.shape[0] > 0
    if spec is None or refs is None or not usable or not (0 <= lo < hi <= model.n_rows):
        return present_factors(model, X, slice(lo, hi))
    # imported here: numba is optional, and a spec means the compiled pass is usable
    from .._exp_numba import stationary_factors

    out = np.empty((X.shape[0], hi - lo, X.shape[1]))
    stationary_factors(np.ascontiguousarray(X), refs[lo:hi], spec[0], spec[1], out)
    return out

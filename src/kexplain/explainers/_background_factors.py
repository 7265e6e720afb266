"""The background of an interventional game and its kernel factors, built once per explainer.

:class:`BackgroundFactors` holds the per-feature kernel factors k_ij(z_j) of every support point i
against every background row z (when they fit its bound), the products and pair weights every block
of every call reads, the fused kernel's layout of them (``_lay_out_rows``) and their copy on a
device (``DEVICE_TABLE_BYTES``).  Background-only: nothing here depends on the explained rows.
Imported from :mod:`kexplain.explainers.product_games`, the games' public face.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..models.expansion import KernelExpansion
from ..shapley.array_api import from_numpy
from ..shapley.routes import BACKGROUND_TABLE_BYTES

#: bound on the background factors cached on a device (GPU memory) when the host keeps none
DEVICE_TABLE_BYTES = 4 * 2**30


def _is_host(device: Any) -> bool:
    """Whether ``device`` is the host's memory (a torch CPU tensor, array-api-strict's CPU device)."""
    return device is None or "cpu" in str(device).lower()


def _check_finite(x: np.ndarray, name: str) -> None:
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name} contain NaN or infinite values; the product-game engine accepts finite numbers only.")


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

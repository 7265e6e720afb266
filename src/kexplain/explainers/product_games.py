"""Product games built from a KernelExpansion (shared/DESIGN.md section 1, table of instances).

Rows of the functional-baseline game are the expansion's (term, reference point) pairs; rows of the
interventional game are (term, reference point, background row) triples.  Both only build dense
blocks on demand, so the engine's chunking bounds memory.
"""
from __future__ import annotations

import numpy as np

from ..models.expansion import KernelExpansion

#: precompute the background factors when they take at most this many bytes
_CACHE_BYTES = 256 * 2**20


class FunctionalGame:
    """v_x(S) = sum_i coef_i prod_{j in S} k_j(x_j, X_ij) (+ intercept): PKeX's functional baseline."""

    def __init__(self, model: KernelExpansion, X: np.ndarray):
        self.model, self.X = model, X
        self.n_points, self.n_features = X.shape
        self.n_rows, self.n_outputs = model.n_rows, model.n_outputs

    def block(self, points: slice, rows: slice):
        a, c = self.model.row_factors(self.X[points], rows)
        return a, 1.0, c


class InterventionalGame:
    """v_x(S) = sum_z w_z f(x_S, z_not S): exact interventional SHAP with background rows z.

    Baseline Shapley at a reference point is the special case of one background row.
    """

    def __init__(self, model: KernelExpansion, X: np.ndarray, background: np.ndarray, weights: np.ndarray):
        self.model, self.X = model, X
        self.Z, self.w = background, weights
        self.n_points, self.n_features = X.shape
        self.nb = background.shape[0]
        self.n_base_rows = model.n_rows
        self.n_rows = model.n_rows * self.nb
        self.n_outputs = model.n_outputs
        self._b_cache = None
        if self.n_rows * self.n_features * 8 <= _CACHE_BYTES:
            # B[(t,i), z, j] = k_tj(z_j, X_ij)
            b, _ = self._background_factors(slice(0, self.n_base_rows))
            self._b_cache = b

    def _background_factors(self, base_rows: slice):
        b, c = self.model.row_factors(self.Z, base_rows)          # (nb, r, d)
        return np.ascontiguousarray(b.transpose(1, 0, 2)), c        # (r, nb, d)

    def block(self, points: slice, rows: slice):
        nb = self.nb
        lo, hi = rows.start // nb, -(-rows.stop // nb)             # base rows touched
        a_base, c_base = self.model.row_factors(self.X[points], slice(lo, hi))   # (p, rb, d)
        if self._b_cache is not None:
            b_base = self._b_cache[lo:hi]
        else:
            b_base, _ = self._background_factors(slice(lo, hi))   # (rb, nb, d)
        p, rb, d = a_base.shape
        a = np.broadcast_to(a_base[:, :, None, :], (p, rb, nb, d)).reshape(p, rb * nb, d)
        b = b_base.reshape(1, rb * nb, d)
        c = (c_base[:, None, :] * self.w[None, :, None]).reshape(rb * nb, -1)
        off = rows.start - lo * nb
        sl = slice(off, off + (rows.stop - rows.start))
        return a[:, sl], b[:, sl], c[sl]

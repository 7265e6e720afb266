"""Product games built from a KernelExpansion (shared/DESIGN.md section 1, table of instances).

Rows of the functional-baseline game are the expansion's (term, reference point) pairs; rows of the
interventional game are (term, reference point, background row) triples.  Both only build dense
blocks on demand, so the engine's chunking bounds memory.

For few features and many background rows the interventional game has a cheaper exact route, which
``solve_product_game`` takes through ``InterventionalGame.solve_by_subsets``: its value factorises
per reference point i into a part that depends on x and one that does not,

    v_x(S) = sum_i coef_i * prod_{j in S} k_ij(x_j) * B_i(complement of S),
    B_i(T) = sum_z w_z prod_{j in T} k_ij(z_j),

so B_i is tabulated once for all 2^d sets T, and each explained point costs O(n 2^d) (instead of
O(n n_b d^2 / 2) by quadrature); the 2^d values then go to the enumeration solver.
"""
from __future__ import annotations

import numpy as np

from ..models.expansion import KernelExpansion
from ..shapley.enumeration import exact_shapley
from ..shapley.quadrature import nodes_for_degree

#: precompute the background factors when they take at most this many bytes
_CACHE_BYTES = 256 * 2**20

#: the subset route is used up to this many features, when its estimated cost is lower
_MAX_SUBSET_FEATURES = 12
#: measured cost of one (row, subset) step of the subset route relative to one (row, background
#: row, feature, node) step of the quadrature
_SUBSET_COST = 1.2
_SUBSET_COST_COMPILED = 0.5
#: bytes of the subset tables of one pass over explained points
_SUBSET_WORK_BYTES = 4 * 2**20


def _subset_values_numpy(a, Bc, v):
    """v[m, p, q] = sum_i BcT[q, m, i] prod_{j in m} a[p, i, j]; the compiled kernel's fallback,
    with Bc transposed to (outputs, 2^d, rows) by the caller."""
    A = _subset_products(a)                                       # (2^d, p, R)
    for q in range(Bc.shape[0]):
        prod = np.multiply(A, Bc[q][:, None, :], out=np.empty_like(A) if q < Bc.shape[0] - 1 else A)
        v[:, :, q] = prod.sum(axis=-1)


def _subset_kernel():
    try:
        from ..shapley._product_numba import subset_values
    except Exception:  # numba missing or unusable: the same numbers from numpy
        return _subset_values_numpy
    return subset_values


def _subset_products(F: np.ndarray) -> np.ndarray:
    """out[m, ...] = prod_{j in m} F[..., j] for every subset m of the last axis (bit j = feature j,
    the order of kx.exact_shapley's coalitions), by doubling: 2^d products in all.  The subset
    axis comes first so that every doubling step works on whole contiguous slabs."""
    d = F.shape[-1]
    Ft = np.moveaxis(F, -1, 0)
    out = np.empty((2**d,) + F.shape[:-1])
    out[0] = 1.0
    for j in range(d):
        h = 1 << j
        np.multiply(out[:h], Ft[j][None], out=out[h:2 * h])
    return out


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
        # row blocks that hold whole groups of background rows need a_base for their own
        # reference points only (no recomputed or discarded kernel rows at block edges)
        self.row_alignment = self.nb
        self._b_cache = None
        # B[(t,i), z, j] = k_tj(z_j, X_ij), built on the first block (the subset route needs none)
        self._cache_b = self.n_rows * self.n_features * 8 <= _CACHE_BYTES

    def prefers_subsets(self, max_block_bytes: int) -> bool:
        """True when the subset route is estimated cheaper than quadrature and one explained point's
        subset table fits in ``max_block_bytes``."""
        d, nb, R, n = self.n_features, self.nb, self.n_base_rows, max(1, self.n_points)
        if d > _MAX_SUBSET_FEATURES or 16 * R * 2**d > max_block_bytes:
            return False
        cost = _SUBSET_COST_COMPILED if _subset_kernel() is not _subset_values_numpy else _SUBSET_COST
        subsets = 2**d * (1.0 + nb / n) * cost
        quadrature = nb * d * nodes_for_degree(d - 1)
        return subsets < quadrature

    def solve_by_subsets(self, *, interactions: bool = False, max_block_bytes: int = 32 * 2**20,
                         compiled: bool = True, progress: bool = False):
        """Exact values through the factorised value function (module docstring); the same
        ProductGameResult as ``solve_product_game``.  ``compiled=False`` uses numpy even when numba
        is installed (the same numbers up to rounding)."""
        from ..shapley.product import ProductGameResult

        kernel = _subset_kernel() if compiled else _subset_values_numpy

        d, R, N, o = self.n_features, self.n_base_rows, self.n_points, self.n_outputs
        n_sets = 2**d
        complement = (n_sets - 1) ^ np.arange(n_sets)
        # Bc[o, i, m] = amp * coef_i,o * B_i(complement of m), m the present set
        Bc = np.empty((o, R, n_sets))
        step = max(1, max_block_bytes // (16 * n_sets * self.nb))
        for r0 in range(0, R, step):
            rows = slice(r0, min(R, r0 + step))
            b, c = self.model.row_factors(self.Z, rows)             # (nb, r, d), (r, o)
            B = np.tensordot(_subset_products(b), self.w, axes=(1, 0))   # (2^d, r)
            Bc[:, rows, :] = B.T[None, :, complement] * c.T[:, :, None]
        if kernel is _subset_values_numpy:
            Bc = np.ascontiguousarray(Bc.transpose(0, 2, 1))
        values = np.empty((N, d, o))
        v_full, v_empty = np.empty((N, o)), np.empty((N, o))
        inter = np.empty((N, d, d, o)) if interactions else None
        bits = 1 << np.arange(d)
        # points per pass: numpy's subset tables (2^d, points, rows) stay in cache; the compiled
        # kernel keeps only the (2^d, points) values
        per_point = 16 * n_sets * R if kernel is _subset_values_numpy else 8 * n_sets * (o + 1) + 8 * R * d
        step = max(1, min(max_block_bytes, _SUBSET_WORK_BYTES) // per_point)
        bar = None
        if progress:
            from tqdm.auto import tqdm

            bar = tqdm(total=N, desc="kexplain", unit="pt")
        for p0 in range(0, N, step):
            pts = slice(p0, min(N, p0 + step))
            if bar is not None and p0:
                bar.update(step)
            a, _ = self.model.row_factors(self.X[pts], slice(0, R))  # (p, R, d)
            v = np.empty((n_sets, a.shape[0], o))
            kernel(np.ascontiguousarray(a), Bc, v)
            if not np.all(np.isfinite(v)):
                raise FloatingPointError("non-finite game values: check the model's coefficients.")
            res = exact_shapley(lambda S: v[S.astype(np.int64) @ bits], d, interactions=interactions)
            values[pts] = np.asarray(res.values).reshape(-1, d, o)
            v_full[pts], v_empty[pts] = v[-1], v[0]
            if interactions:
                inter[pts] = np.asarray(res.interactions).reshape(-1, d, d, o)
        if bar is not None:
            bar.update(N - bar.n)
            bar.close()
        return ProductGameResult(values, v_full, v_empty, inter)

    def _background_factors(self, base_rows: slice):
        b, c = self.model.row_factors(self.Z, base_rows)          # (nb, r, d)
        return np.ascontiguousarray(b.transpose(1, 0, 2)), c        # (r, nb, d)

    def block(self, points: slice, rows: slice):
        nb = self.nb
        lo, hi = rows.start // nb, -(-rows.stop // nb)             # base rows touched
        a_base, c_base = self.model.row_factors(self.X[points], slice(lo, hi))   # (p, rb, d)
        if self._cache_b and self._b_cache is None:
            self._b_cache, _ = self._background_factors(slice(0, self.n_base_rows))
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

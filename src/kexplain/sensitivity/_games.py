"""The pair games whose values are the (unnormalised) closed Sobol indices, and their evaluation.

With the tables of ``_tables`` (m, A, e), a *pair part* with symmetric row-pair weights C is

    W(S) = sum_{r, l} C_rl prod_{j in S} A_rlj prod_{j not in S} m_rj m_lj,

a product game over the R^2 pairs (r, l).  Its pairs (r, l) and (l, r) contribute equally, so the
game is solved over the R (R + 1) / 2 pairs r <= l with weight 2 C_rl off the diagonal.  A *prior
part* (rows t of kernel terms, weights c_t) is W(S) = sum_t c_t prod_{j not in S} e_tj (the factor
of present features is k_tj(x, x) = 1).  V(S) = W(S) - W(empty) for the sum of the parts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._tables import Tables


@dataclass
class PairPart:
    """W(S) of a pair part: rank-one weights C = coef coef^T per output (``coef`` (R, o)), or a
    full symmetric single-output ``matrix`` (R, R)."""

    tables: Tables
    coef: np.ndarray | None = None
    matrix: np.ndarray | None = None

    @property
    def n_outputs(self) -> int:
        return 1 if self.coef is None else int(self.coef.shape[1])

    def value(self, mask: np.ndarray) -> np.ndarray:
        """W(S) for a boolean mask of present features, shape (o,)."""
        A, m = self.tables.A, self.tables.m
        P = np.prod(A[:, :, mask], axis=-1) if mask.any() else np.ones(A.shape[:2])
        u = np.prod(m[:, ~mask], axis=-1)
        return self._quad(P, u)

    def _quad(self, P: np.ndarray, u: np.ndarray) -> np.ndarray:
        if self.coef is not None:
            q = self.coef * u[:, None]
            return np.einsum("ro,ro->o", q, P @ q)
        assert self.matrix is not None
        return np.array([float(u @ (self.matrix * P) @ u)])

    def leave_one_out(self) -> np.ndarray:
        """W(all features but j) for every j, shape (d, o): prefix and suffix products of A."""
        A, m = self.tables.A, self.tables.m
        R, _, d = A.shape
        suffix = np.empty((d + 1, R, R))
        suffix[d] = 1.0
        for j in range(d - 1, -1, -1):
            np.multiply(suffix[j + 1], A[:, :, j], out=suffix[j])
        out = np.empty((d, self.n_outputs))
        prefix = np.ones((R, R))
        for j in range(d):
            out[j] = self._quad(prefix * suffix[j + 1], m[:, j])
            prefix *= A[:, :, j]
        return out


@dataclass
class PriorPart:
    """W(S) = sum_t c_t prod_{j not in S} e_tj (one output)."""

    e: np.ndarray
    c: np.ndarray

    def value(self, mask: np.ndarray) -> np.ndarray:
        return np.array([float(self.c @ np.prod(self.e[:, ~mask], axis=-1))])

    def leave_one_out(self) -> np.ndarray:
        return np.array([[float(self.c @ self.e[:, j])] for j in range(self.e.shape[1])])


class PairGame:
    """A pair part as a ``kexplain.shapley.ProductGame`` over the pairs r <= l (one point)."""

    n_points = 1

    def __init__(self, part: PairPart) -> None:
        self.part = part
        R, _, d = part.tables.A.shape
        self.iu, self.ju = np.triu_indices(R)
        self.mult = np.where(self.iu == self.ju, 1.0, 2.0)
        self.n_rows = int(self.iu.shape[0])
        self.n_features = int(d)
        self.n_outputs = part.n_outputs

    def block(self, points: slice, rows: slice) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        i, k = self.iu[rows], self.ju[rows]
        t = self.part.tables
        a = t.A[i, k][None]
        b = (t.m[i] * t.m[k])[None]
        if self.part.coef is not None:
            c = self.part.coef[i] * self.part.coef[k] * self.mult[rows, None]
        else:
            assert self.part.matrix is not None
            c = (self.part.matrix[i, k] * self.mult[rows])[:, None]
        return a, b, c


class PriorGame:
    """A prior part as a ``ProductGame`` (rows = kernel terms, present factor 1)."""

    n_points = 1
    n_outputs = 1

    def __init__(self, part: PriorPart) -> None:
        self.part = part
        self.n_rows, self.n_features = part.e.shape

    def block(self, points: slice, rows: slice) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        e = self.part.e[rows]
        return np.ones((1,) + e.shape), e[None], self.part.c[rows, None]

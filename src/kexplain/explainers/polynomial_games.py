"""The games of models whose kernel is a polynomial of a sum over features.

For a PolynomialExpansion f(x) = sum_i coef_i P(sum_j h_j(x_j, X_ij)) + intercept, every game's
coalition value is sum over rows of c_r P(sum_{j in S} a_rj + sum_{j not in S} b_rj)
(:mod:`kexplain.shapley.polynomial`):

- functional: rows i, a_ij = h_j(x_j, X_ij), b_ij = 0 (the kernel restricted to the present
  features, e.g. gamma sum_{j in S} x_j X_ij + coef0 inside the power);
- interventional: rows (i, z) over the background, a = h_j(x_j, X_ij), b = h_j(z_j, X_ij),
  c = coef_i w_z (the model evaluated at the hybrid point x_S z_notS, averaged over z);
- baseline: the interventional game with one background row.
"""

from __future__ import annotations

import numpy as np

from ..models.dot_product import PolynomialExpansion
from ..shapley.polynomial import PolynomialTerms


class PolynomialFunctionalGame:
    """The functional game of a PolynomialExpansion at the rows ``X``: rows are reference points."""

    def __init__(self, em: PolynomialExpansion, X: np.ndarray) -> None:
        self.em, self.X = em, X
        self.n_points, self.n_rows = X.shape[0], em.n_rows
        self.n_features, self.n_outputs = em.n_features, em.n_outputs
        self.terms: PolynomialTerms = em.kernel.terms

    def block(self, points: slice, rows: slice) -> tuple[np.ndarray, float, np.ndarray]:
        """(a, 0, c) for these points and reference points."""
        a = self.em.kernel.feature_terms(self.X[points], self.em.X_ref[rows])
        return a, 0.0, self.em.coef[rows]


class PolynomialInterventionalGame:
    """The interventional (or baseline) game: rows are (reference point, background row) pairs."""

    def __init__(self, em: PolynomialExpansion, X: np.ndarray, Z: np.ndarray, w: np.ndarray) -> None:
        self.em, self.X, self.Z, self.w = em, X, Z, w
        self.n_points, self.n_rows = X.shape[0], em.n_rows * Z.shape[0]
        self.n_features, self.n_outputs = em.n_features, em.n_outputs
        self.terms: PolynomialTerms = em.kernel.terms

    def block(self, points: slice, rows: slice) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(a, b, c) for these points and (reference point, background row) pairs, i-major."""
        nz = self.Z.shape[0]
        r = np.arange(rows.start, rows.stop)
        i, z = r // nz, r % nz
        ref = self.em.X_ref
        kern = self.em.kernel
        i0, i1 = int(i[0]), int(i[-1]) + 1
        # the present terms depend on the reference point only: compute them once per point and i
        a_ref = kern.feature_terms(self.X[points], ref[i0:i1])  # (p, n_i, d)
        a = a_ref[:, i - i0, :]
        # the absent terms h_j(z_j, X_ij) of each pair: the diagonal of a (pairs x pairs) table
        b = kern.pair_terms(self.Z[z], ref[i])
        c = self.em.coef[i] * self.w[z][:, None]
        return a, b[None, :, :], c

"""The games of models whose kernel is a polynomial of a sum over features.

For a PolynomialExpansion f(x) = sum_i coef_i P(sum_j h_j(x_j, X_ij)) + intercept, every game's
coalition value is sum over rows of c_r P(sum_{j in S} a_rj + sum_{j not in S} b_rj)
(:mod:`kexplain.shapley.polynomial`):

- functional: rows i, a_ij = h_j(x_j, X_ij), b_ij = 0 (the kernel restricted to the present
  features, e.g. gamma sum_{j in S} x_j X_ij + coef0 inside the power);
- interventional: rows (i, z) over the background, a = h_j(x_j, X_ij), b = h_j(z_j, X_ij),
  c = coef_i w_z (the model evaluated at the hybrid point x_S z_notS, averaged over z);
- baseline: the interventional game with one background row.

Two exact routes: the row route (:mod:`kexplain.shapley.polynomial`, cost linear in d and in the
rows) and, for dot-product kernels of small degree, the monomial route
(:mod:`kexplain.shapley.monomials`: the model multiplied out into at most C(d + p, p) monomials,
the background reduced to its moments once; cost per point independent of the rows).
:func:`use_monomials` picks the cheaper.
"""

from __future__ import annotations

import numpy as np

from ..models.dot_product import PolynomialExpansion
from ..shapley.monomials import MonomialGame, MonomialGroup
from ..shapley.polynomial import PolynomialTerms


class PolynomialFunctionalGame:
    """The functional game of a PolynomialExpansion at the rows ``X``: rows are support points."""

    def __init__(self, em: PolynomialExpansion, X: np.ndarray) -> None:
        self.em, self.X = em, X
        self.n_points, self.n_rows = X.shape[0], em.n_rows
        self.n_features, self.n_outputs = em.n_features, em.n_outputs
        self.terms: PolynomialTerms = em.kernel.terms

    def block(self, points: slice, rows: slice) -> tuple[np.ndarray, float, np.ndarray]:
        """(a, 0, c) for these points and support points."""
        a = self.em.kernel.feature_terms(self.X[points], self.em.X_ref[rows])
        return a, 0.0, self.em.coef[rows]


class PolynomialInterventionalGame:
    """The interventional (or baseline) game: rows are (support point, background row) pairs."""

    def __init__(self, em: PolynomialExpansion, X: np.ndarray, Z: np.ndarray, w: np.ndarray) -> None:
        self.em, self.X, self.Z, self.w = em, X, Z, w
        self.n_points, self.n_rows = X.shape[0], em.n_rows * Z.shape[0]
        self.n_features, self.n_outputs = em.n_features, em.n_outputs
        self.terms: PolynomialTerms = em.kernel.terms

    def block(self, points: slice, rows: slice) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(a, b, c) for these points and (support point, background row) pairs, i-major."""
        nz = self.Z.shape[0]
        r = np.arange(rows.start, rows.stop)
        i, z = r // nz, r % nz
        ref = self.em.X_ref
        kern = self.em.kernel
        i0, i1 = int(i[0]), int(i[-1]) + 1
        # the present terms depend on the support point only: compute them once per point and i
        a_ref = kern.feature_terms(self.X[points], ref[i0:i1])  # (p, n_i, d)
        a = a_ref[:, i - i0, :]
        # the absent terms h_j(z_j, X_ij) of each pair: the diagonal of a (pairs x pairs) table
        b = kern.pair_terms(self.Z[z], ref[i])
        c = self.em.coef[i] * self.w[z][:, None]
        return a, b[None, :, :], c


#: the most monomials the monomial route tabulates (above it, the row route is used); tests set it
#: to 0 to force the row route
MONOMIAL_LIMIT = 2_000_000


def _power_coefficients(em: PolynomialExpansion) -> np.ndarray:
    """beta_k with P(u) = sum_k beta_k u^k (the factor form multiplied out)."""
    from numpy.polynomial import polynomial as npoly

    p = em.kernel.degree
    beta = np.zeros(p + 1)
    for amp, offsets in em.kernel.terms:
        c = amp * npoly.polyfromroots(-np.asarray(offsets, dtype=np.float64)) if len(offsets) else np.array([amp])
        beta[: len(c)] += c
    return beta


def monomial_count(d: int, degree: int) -> int:
    """Number of monomials of degree 1..``degree`` in ``d`` variables, sum_k C(d + k - 1, k)."""
    from math import comb

    return int(sum(comb(d + k - 1, k) for k in range(1, degree + 1)))


def use_monomials(em: PolynomialExpansion, n_background: int) -> bool:
    """Whether the monomial route is cheaper per point than the row route (dot-product kernels only).

    Row route: about n_rows x n_background x d x (p + 1)^2 x ceil(p / 2) x 4 operations per point;
    monomial route: about (monomials) x 2^p x (p + 2), with no dependence on the rows.
    """
    if em.kernel.inner != "dot" or em.n_rows == 0:
        return False
    d, p = em.n_features, em.kernel.degree
    n_mono = monomial_count(d, p)
    if n_mono > MONOMIAL_LIMIT:
        return False
    rows = em.n_rows * n_background * d * (p + 1) ** 2 * max(1, (p + 1) // 2) * 4
    return n_mono * 2**p * (p + 2) < rows


def monomial_game(em: PolynomialExpansion, Z: np.ndarray, w: np.ndarray) -> MonomialGame:
    """The model multiplied out into monomials of the centred inputs, with the background's moments.

    f(x) = sum_i coef_i P(sum_j g_ij xc_j) with g_ij = gamma_j (X_ij - m_j) and xc = x - m, so
    the coefficient of xc^alpha (|alpha| = k) is beta_k multinomial(alpha) sum_i coef_i g_i^alpha.
    Explained rows and ``Z`` must then be centred the same way (:func:`centred`).
    """
    from itertools import combinations_with_replacement
    from math import factorial

    kern = em.kernel
    G = (em.X_ref - kern.center) * kern.gamma  # (n, d)
    beta = _power_coefficients(em)
    d = em.n_features
    groups: list[MonomialGroup] = []
    for k in range(1, len(beta)):
        if beta[k] == 0.0:
            continue
        combos = np.array(list(combinations_with_replacement(range(d), k)), dtype=np.intp).reshape(-1, k)
        # runs of equal features in each sorted combination give the support and the exponents
        eq = combos[:, 1:] == combos[:, :-1]
        keys = eq @ (1 << np.arange(k - 1)) if k > 1 else np.zeros(len(combos), dtype=np.intp)
        for key in np.unique(keys):
            rows = combos[keys == key]
            flags = [bool((int(key) >> t) & 1) for t in range(k - 1)]
            starts = [0] + [t + 1 for t in range(k - 1) if not flags[t]]
            exps = tuple(int(b - a) for a, b in zip(starts, starts[1:] + [k]))
            support = rows[:, starts]
            multinom = factorial(k) / np.prod([factorial(e) for e in exps])
            coef = np.empty((len(support), em.n_outputs))
            step = max(1, 2**22 // max(1, em.n_rows))
            for s0 in range(0, len(support), step):
                sup = support[s0 : s0 + step]
                prod = np.ones((em.n_rows, len(sup)))
                for t, e in enumerate(exps):
                    prod *= G[:, sup[:, t]] ** e
                coef[s0 : s0 + step] = (prod.T @ em.coef) * (beta[k] * multinom)
            groups.append(MonomialGroup(support, exps, coef))
    constant = beta[0] * em.coef.sum(axis=0)
    return MonomialGame(groups, constant, centred(em, Z), w)


def centred(em: PolynomialExpansion, X: np.ndarray) -> np.ndarray:
    """X minus the kernel's centre (the coordinates of :func:`monomial_game`)."""
    return np.asarray(X, dtype=np.float64) - em.kernel.center

"""The games of a fitted OAK model, solved by the additive solver of :mod:`kexplain.shapley.additive`.

With the posterior mean f(x) = f_0 + sum_i c_i sum_{q>=1} sigma_q^2 e_q(k~_1(x_1, X_i1), ..., k~_d(x_d, X_id))
over support points X_i, after "Exact Shapley Value for Local and Global Explanation of Additive
Gaussian Processes" (an anonymous preprint under double-blind review; no authors or year are given):

- :class:`AnovaGame`, local (that paper, section 3, Lemma 1): v(S) = sum_{T subset S} f_T(x) =
  E[f(x_S, X_rest)] with X_rest from the model's input measure.  An absent feature contributes the
  factor 0 (its constrained kernel integrates to zero), so phi_j(x) = sum_{T containing j} f_T(x) / |T|.
- :class:`InterventionalGame`, local: v(S) = sum_b w_b f(x_S, z_b,notS) over background rows z_b.  An
  absent feature j of pair (i, b) contributes k~_j(z_bj, X_ij): the additive game with absent values,
  which the solver integrates exactly along the diagonal of its multilinear extension.
- :func:`variance_decomposition`, global (that paper, section 4, Theorem 1): v(S) = Var E[f | x_S] =
  sum_{T subset S} Var f_T, with Var f_T = sigma_|T|^4 c' Gamma_T c and Gamma_T the elementwise
  product of the matrices Gamma_j = int k~_j(s, X_.j) k~_j(s, X_.j)' dp_j(s).  One pass over pairs
  of support points gives the Shapley values, the total effects (total Sobol indices) and the
  variance of every order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..attribution import GlobalAttribution
from ..shapley.additive import additive_block_values
from ._fitting import BLOCK_BYTES
from .kernels import ConstrainedCategorical, ConstrainedEmpiricalRBF, ConstrainedKernel


def _kernel_block(bases: Sequence[ConstrainedKernel], A: np.ndarray, B: np.ndarray, ls: np.ndarray) -> np.ndarray:
    z = np.stack([b.k(A[:, j], B[:, j], ls[j]) for j, b in enumerate(bases)])
    # a (p, r, d) view of feature-leading memory
    return np.moveaxis(z, 0, -1)


def component_values(
    bases: Sequence[ConstrainedKernel], Z: np.ndarray, support: np.ndarray, ls: np.ndarray, coef: np.ndarray
) -> np.ndarray:
    """f_T(x) = sum_i coef_i prod_{j in T} k~_j(x_j, X_ij) for the features T given (columns of Z)."""
    prod = np.ones((Z.shape[0], support.shape[0]))
    for j, b in enumerate(bases):
        prod *= b.k(Z[:, j], support[:, j], ls[j])
    return prod @ coef


class AnovaGame:
    """Local functional-ANOVA game of explained rows Z (encoded); rows of the game are support points."""

    def __init__(
        self,
        bases: Sequence[ConstrainedKernel],
        support: np.ndarray,
        ls: np.ndarray,
        weights: np.ndarray,
        coef: np.ndarray,
        Z: np.ndarray,
    ) -> None:
        self.bases, self.support, self.ls, self.Z = bases, support, ls, Z
        self.weights = weights
        self.c = coef[:, None]
        self.n_points, self.n_features = Z.shape
        self.n_rows = support.shape[0]
        self.n_outputs = 1

    def block(self, points: slice, rows: slice) -> tuple[np.ndarray, np.ndarray]:
        """(z, c) for these points and support points."""
        return _kernel_block(self.bases, self.Z[points], self.support[rows], self.ls), self.c[rows]


class BackgroundTables:
    """What the interventional game needs of the background, computed once per explainer.

    ``absent[i * B + b, j]`` = k~_j(z_bj, X_ij) and ``c[i * B + b]`` = w_b c_i for support point i and
    background row b.
    """

    def __init__(
        self,
        bases: Sequence[ConstrainedKernel],
        support: np.ndarray,
        ls: np.ndarray,
        coef: np.ndarray,
        background: np.ndarray,
        weights: np.ndarray,
    ) -> None:
        n, B = support.shape[0], background.shape[0]
        self.n_background = B
        self.absent = _kernel_block(bases, support, background, ls).reshape(n * B, -1).copy()
        self.c = (coef[:, None] * weights[None, :]).reshape(n * B, 1)


class InterventionalGame:
    """Local interventional game of explained rows Z (encoded); rows are (support point, background row) pairs."""

    has_absent = True

    def __init__(
        self,
        bases: Sequence[ConstrainedKernel],
        support: np.ndarray,
        ls: np.ndarray,
        weights: np.ndarray,
        tables: BackgroundTables,
        Z: np.ndarray,
    ) -> None:
        self.bases, self.support, self.ls, self.Z = bases, support, ls, Z
        self.tables = tables
        self.weights = weights
        self.n_points, self.n_features = Z.shape
        self.n_rows = tables.absent.shape[0]
        self.n_outputs = 1

    def block(self, points: slice, rows: slice) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        """(z, c, {"absent": b}) for these points and (support, background) pairs."""
        B = self.tables.n_background
        i0, i1 = rows.start // B, (rows.stop - 1) // B + 1
        a = _kernel_block(self.bases, self.Z[points], self.support[i0:i1], self.ls)
        z = a[:, np.arange(rows.start, rows.stop) // B - i0]
        return z, self.tables.c[rows], {"absent": self.tables.absent[rows]}


def _discrete_factors(
    bases: Sequence[ConstrainedKernel], support: np.ndarray, ls: np.ndarray
) -> list[tuple[np.ndarray, np.ndarray] | None]:
    """For bases with a discrete measure: k~_j(s, support_j) at the measure's points, and the weights."""
    out: list[tuple[np.ndarray, np.ndarray] | None] = []
    for j, b in enumerate(bases):
        if isinstance(b, ConstrainedEmpiricalRBF):
            out.append((b.at_measure(support[:, j], ls[j]), b.weights))
        elif isinstance(b, ConstrainedCategorical):
            out.append((b.k(b.levels(), support[:, j]), b.probs))
        else:
            out.append(None)
    return out


def variance_decomposition(
    bases: Sequence[ConstrainedKernel],
    support: np.ndarray,
    ls: np.ndarray,
    order_variances: np.ndarray,
    coef: np.ndarray,
) -> dict[str, Any]:
    """Exact global variance Shapley values, total effects, first-order effects and order variances.

    Returns a dict with ``shapley``, ``total`` and ``first_order`` (per feature, in variance units)
    and ``component_variance`` (per order q = 0..Q; entry 0 is 0); their sum is the variance.
    """
    S = support
    m, d = S.shape
    Q = order_variances.shape[0] - 1
    w = np.r_[0.0, order_variances[1:] ** 2]  # Var f_T = s2_|T|^2 c' Gamma_T c
    factors = _discrete_factors(bases, S, ls)
    phi = np.zeros(d)
    total = np.zeros(d)
    first = np.zeros(d)
    comp = np.zeros(Q + 1)
    per_row = 8 * m * (2 * (d + 1) * (Q + 1) + 5 * d + Q + 2)
    # small chunks along a keep the wasted part below the diagonal small
    step = max(1, min(BLOCK_BYTES // per_row, m // 16))
    for a0 in range(0, m, step):
        a1 = min(m, a0 + step)
        G = np.empty((d, a1 - a0, m - a0))  # pairs (a, b) with b >= a0
        for j, b in enumerate(bases):
            fac = factors[j]
            if fac is None:
                G[j] = b.gamma(S[a0:a1, j], S[a0:, j], ls[j])
            else:
                F, wt = fac
                G[j] = (F[:, a0:a1] * wt[:, None]).T @ F[:, a0:]
        # upper triangle only: weight 2 off the diagonal, 0 below it
        rows = np.arange(a0, a1)[:, None]
        cols = np.arange(a0, m)[None, :]
        mult = np.where(cols > rows, 2.0, np.where(cols == rows, 1.0, 0.0))
        c = (coef[a0:a1, None] * coef[None, a0:] * mult).reshape(-1, 1)
        zt = G.reshape(d, 1, -1)  # player-leading and contiguous: the solver's own layout
        # one pass gives the Shapley values, the total effects and sum_pairs c e_q(Gamma)
        (ph, tt), orders = additive_block_values(zt, c, w, indices=("shapley", "total"), players_first=True)
        phi += ph[0, :, 0]
        total += tt[0, :, 0]
        comp += w * orders[0, :, 0]
        first += w[1] * np.einsum("jr,ro->j", zt[:, 0], c)
    return {"shapley": phi, "total": total, "first_order": first, "component_variance": comp}


def variance_attribution(model: Any) -> GlobalAttribution:
    """The global variance Shapley values of a fitted OAKRegressor as a GlobalAttribution (section 4,
    Theorem 1 of the additive-GP paper cited in the module notes)."""
    # in standardised target units, then scaled by y_std_^2 (no overflow on the way)
    dec = variance_decomposition(model.bases_, model.support_, model._ls, model.order_variances_, model.alpha_)
    with np.errstate(over="ignore"):
        s2 = np.float64(model.y_std_) ** 2
        dec = {k: np.asarray(v) * s2 for k, v in dec.items()}
    if not np.all(np.isfinite(dec["shapley"])):
        raise OverflowError(
            f"the variance of the fitted function overflows float64: y has a standard deviation of "
            f"{model.y_std_:.3g}, whose square exceeds the largest float. Rescale y (e.g. y / {model.y_std_:.3g})."
        )
    # Var f = sum_j phi_j: the route with the least rounding (per-order sums agree to rounding)
    variance = float(dec["shapley"].sum())
    scale = 1.0 / variance if variance > 0 else 0.0
    sobol = {"first_order_sobol": dec["first_order"] * scale, "total_sobol": dec["total"] * scale}
    info = {"component_variance": dec["component_variance"], "max_interaction_order": model.max_order_}
    return GlobalAttribution(
        dec["shapley"], variance, model.feature_names_, "variance", columns=sobol, info=info, game="variance"
    )

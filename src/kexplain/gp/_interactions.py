"""Interactions of any order and index of OAK's games, in closed form from their components.

The games of :mod:`kexplain.gp._games` are additive games with absent values: per explained point,

    v(S) = sum_r c_r sum_{U, |U| <= Q} w_|U| prod_{j in U} y_rj^S,   y_rj^S = z_rj if j in S else b_rj,

(b = 0 in the functional-ANOVA game, where v(S) = sum_{T subset S} f_T(x) and the Möbius
coefficients are the components f_T(x) themselves).  For each U the product over U is a product
game of the players in U (factor 1 for the others), whose Möbius coefficient at T is
prod_T (z - b) prod_{U - T} b when T is inside U and 0 otherwise, so

    m(T) = sum_r c_r prod_{j in T} delta_rj sum_q w_{t+q} e_q(b_r without T),   delta = z - b,

with e_q the elementary symmetric polynomials.  Every index of
:mod:`kexplain.shapley.higher_order` is I(T) = sum_{V disjoint of T} h_t(|V|) m(T + V)
(:func:`~kexplain.shapley.higher_order.moebius_weights`); the sum over V and over the subsets of
the rest then collapses to one bivariate elementary symmetric polynomial of the players outside T:

    I(T) = sum_r c_r prod_{j in T} delta_rj sum_{u, q} h_t(u) w_{t+u+q} E_uq(r, T),
    E_uq(r, T) = [x^u y^q] prod_{l not in T} (1 + x delta_rl + y b_rl),

computed by the recursion E_uq <- E_uq + delta_l E_(u-1)q + b_l E_u(q-1) over the players outside
T (additions and products only, no division), only up to u + q <= Q - t.  With b = 0 only q = 0
remains.  k-SII aggregates SII.  No positive measure is needed, so FSII takes the same route.
Every formula is tested against enumeration of the game (tests/test_interactions_oak_hsic.py).

The global variance game of section 4 (v(S) = sum_{T subset S} Var f_T, OAKRegressor's
``global_importance``) is the b = 0 game over pairs of support points, with
z = the per-feature Gamma matrices' entries and w_q = sigma_q^4.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from math import comb
from typing import Any

import numpy as np

from .._optional import compiled_or_none
from ..shapley.higher_order import (
    EFFICIENT_INDICES,
    InteractionSpec,
    InteractionTable,
    combinations_array,
    ksii_from_sii,
    moebius_weights,
    table_from_dense,
)
from ..shapley.subsets import compiled_available

#: bytes of the (sets, rows, u, q) work arrays of one chunk of sets
_WORK_BYTES = 32 * 2**20


def weighted_esp(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """sum_q w_q e_q(y) over the last axis of ``y`` (the value of the full or empty coalition)."""
    Q = min(len(w) - 1, y.shape[-1])
    e = np.zeros(y.shape[:-1] + (Q + 1,))
    e[..., 0] = 1.0
    for j in range(y.shape[-1]):
        e[..., 1:] = e[..., 1:] + y[..., j, None] * e[..., :-1]
    return e @ w[: Q + 1]


@compiled_or_none
def _compiled() -> Any:
    """The compiled ``set_sums`` of ``_interactions_numba``, or None without (usable) numba."""
    if not compiled_available():
        return None
    from ._interactions_numba import set_sums

    return set_sums


def additive_interactions(
    z: np.ndarray,
    b: np.ndarray | None,
    c: np.ndarray,
    w: np.ndarray,
    index: str,
    max_order: int,
    backend: str = "auto",
) -> dict[int, np.ndarray]:
    """Every interaction of orders 0..max_order of one block of an additive game (module notes).

    ``z`` (p, r, d) the present factors, ``b`` (p, r, d) the absent ones or None for 0, ``c`` (r, o)
    the row weights, ``w`` (Q + 1,) the order weights.  Returns order t -> (C(d, t), p, o), the sets
    in the order of :func:`~kexplain.shapley.higher_order.combinations_array`; additive over rows.
    ``backend`` "auto" uses the compiled loop when numba is installed (about ten times faster with
    a background), "numpy" the vectorised recursion; they agree to rounding.
    """
    p, r, d = z.shape
    o = c.shape[1]
    Q = min(len(w) - 1, d)
    wz = np.zeros(2 * d + 2)
    wz[: Q + 1] = w[: Q + 1]
    delta = z if b is None else z - b
    out: dict[int, np.ndarray] = {}
    for t in range(max_order + 1):
        res = np.zeros((comb(d, t), p, o))
        out[t] = res
        top = Q - t
        if top < 0 or r == 0:
            continue
        h = moebius_weights(index, d, t, max_order)
        nu = min(top, d - t) + 1
        nq = 1 if b is None else top + 1
        beta = np.zeros((nu, nq))
        for u in range(nu):
            for q in range(min(nq, top - u + 1)):
                beta[u, q] = h[u] * wz[t + u + q]
        sets = combinations_array(d, t)
        kernel = _compiled() if backend != "numpy" else None
        if kernel is not None:
            zero = np.zeros((r, d))
            for pi in range(p):
                sums = np.empty((len(sets), r))
                kernel(
                    np.ascontiguousarray(delta[pi]),
                    zero if b is None else np.ascontiguousarray(b[pi]),
                    np.ascontiguousarray(sets),
                    beta,
                    top,
                    sums,
                )
                res[:, pi] = sums @ c
            continue
        chunk = int(max(1, min(len(sets), _WORK_BYTES // (8 * 3 * p * r * nu * nq))))
        for s0 in range(0, len(sets), chunk):
            T = sets[s0 : s0 + chunk]
            m = len(T)
            keep = np.ones((m, d))
            keep[np.arange(m)[:, None], T] = 0.0
            E = np.zeros((m, p, r, nu, nq))
            E[..., 0, 0] = 1.0
            for j in range(d):
                upd = np.zeros_like(E)
                if nu > 1:
                    upd[..., 1:, :] = delta[None, :, :, j, None, None] * E[..., :-1, :]
                if nq > 1:
                    assert b is not None
                    upd[..., :, 1:] += b[None, :, :, j, None, None] * E[..., :, :-1]
                E += keep[:, j, None, None, None, None] * upd
            S = np.einsum("mpruq,uq->mpr", E, beta)
            prodT = np.moveaxis(delta[..., T].prod(axis=-1), -1, 0) if t else np.ones((1, p, r))  # (m, p, r)
            res[s0 : s0 + m] = np.einsum("mpr,ro->mpo", S * prodT, c)
    if index == "k-SII" and max_order > 1:
        out.update(ksii_from_sii({t: out[t] for t in range(1, max_order + 1)}, d, max_order))
    return out


def solve_additive_interactions(
    blocks: Iterable[Iterable[tuple[np.ndarray, np.ndarray | None, np.ndarray]]],
    w: np.ndarray,
    d: int,
    n_outputs: int,
    spec: InteractionSpec,
) -> InteractionTable:
    """The interactions of ``spec`` of every point: ``blocks`` yields, per point, its (z, b, c) row blocks."""
    w = np.asarray(w, dtype=np.float64)
    entries: list[dict[int, tuple[np.ndarray, np.ndarray]]] = []
    empty: list[np.ndarray] = []
    v_full: list[np.ndarray] = []
    v_empty: list[np.ndarray] = []
    gaps: list[np.ndarray] = []
    for point in blocks:
        acc = {t: np.zeros((comb(d, t), 1, n_outputs)) for t in range(spec.max_order + 1)}
        vf = np.zeros((1, n_outputs))
        ve = np.zeros((1, n_outputs))
        for z, b, c in point:
            for t, arr in additive_interactions(z, b, c, w, spec.index, spec.max_order).items():
                acc[t] += arr
            vf += weighted_esp(z, w) @ c
            ve += (w[0] * np.ones(z.shape[:2]) if b is None else weighted_esp(b, w)) @ c
        tab = table_from_dense(acc, spec, d, vf, ve)
        entries.append(tab.entries[0])
        empty.append(tab.empty)
        v_full.append(vf)
        v_empty.append(ve)
        if tab.efficiency_gap is not None:
            gaps.append(tab.efficiency_gap)
    out_empty, out_full = np.concatenate(empty), np.concatenate(v_full)
    for name, arr in (("interaction values", out_empty), ("game values", out_full)):
        if not np.all(np.isfinite(arr)):
            raise FloatingPointError(f"non-finite {name} in the OAK game: check the model for NaN or overflow.")
    gap = np.concatenate(gaps) if spec.index in EFFICIENT_INDICES and gaps else None
    return InteractionTable(
        spec.index, spec.max_order, d, entries, out_empty, out_full, np.concatenate(v_empty), gap, spec.sparse
    )


def local_blocks(game: Any, n_order_weights: int) -> Iterable[list[tuple[np.ndarray, np.ndarray | None, np.ndarray]]]:
    """Per point of an :class:`AnovaGame` or :class:`InterventionalGame`, its (z, b, c) row blocks."""
    d = game.n_features
    rows = max(1, (4 * 2**20) // (8 * n_order_weights**2 * max(1, d)))
    for i in range(game.n_points):
        parts = []
        for r0 in range(0, game.n_rows, rows):
            blk = game.block(slice(i, i + 1), slice(r0, min(game.n_rows, r0 + rows)))
            z = np.ascontiguousarray(blk[0], dtype=np.float64)
            b = None if len(blk) < 3 else np.ascontiguousarray(blk[2]["absent"], dtype=np.float64)[None]
            parts.append((z, b, np.asarray(blk[1], dtype=np.float64)))
        yield parts


def explain_interactions(explainer: Any, X: Any, interactions: Any, *, progress: Any, n_jobs: Any) -> Any:
    """``OAKExplainer.explain(X, interactions={...})``: the Shapley values, then the index of any order."""
    from ..interaction_explanation import interaction_explanation
    from ..shapley.higher_order import check_interaction_spec
    from ._games import AnovaGame, InterventionalGame

    model = explainer.model
    spec = check_interaction_spec(interactions, int(model.n_features_in_))
    ex = explainer.explain(X, progress=progress, n_jobs=n_jobs)
    Z = model._encoder.transform(model._validated(X))
    w = np.asarray(model.order_variances_, dtype=np.float64)
    game: AnovaGame | InterventionalGame
    if explainer._tables is None:
        game = AnovaGame(model.bases_, model.support_, explainer._ls, w, explainer._coef, Z)
    else:
        game = InterventionalGame(model.bases_, model.support_, explainer._ls, w, explainer._tables, Z)
    table = solve_additive_interactions(local_blocks(game, len(w)), w, Z.shape[1], 1, spec)
    return interaction_explanation(ex, table.shifted([model.y_mean_]), single_output=True)


def _variance_blocks(model: Any) -> Iterable[tuple[np.ndarray, np.ndarray | None, np.ndarray]]:
    """(z, None, c) blocks of the variance game: rows are pairs (a, b >= a) of support points, z the
    entries Gamma_j[a, b], c = alpha_a alpha_b (twice off the diagonal), as in ``variance_decomposition``."""
    from ._games import _discrete_factors

    S, ls, coef = model.support_, model._ls, model.alpha_
    m, d = S.shape
    factors = _discrete_factors(model.bases_, S, ls)
    step = max(1, min(m, (2 * 2**20) // (max(1, m) * (model.max_order_ + 1) ** 2)))
    for a0 in range(0, m, step):
        a1 = min(m, a0 + step)
        G = np.empty((d, a1 - a0, m - a0))
        for j, base in enumerate(model.bases_):
            fac = factors[j]
            if fac is None:
                G[j] = base.gamma(S[a0:a1, j], S[a0:, j], ls[j])
            else:
                F, wt = fac
                G[j] = (F[:, a0:a1] * wt[:, None]).T @ F[:, a0:]
        rows, cols = np.arange(a0, a1)[:, None], np.arange(a0, m)[None, :]
        mult = np.where(cols > rows, 2.0, np.where(cols == rows, 1.0, 0.0))
        keep = (mult > 0).reshape(-1)  # the pairs below the diagonal are counted by their mirror
        z = G.reshape(d, -1)[:, keep].T[None]
        c = (coef[a0:a1, None] * coef[None, a0:] * mult).reshape(-1, 1)[keep]
        yield np.ascontiguousarray(z), None, c


class GlobalInteractionsMixin:
    """``global_interactions`` of :class:`~kexplain.gp.OAKRegressor` (a mix-in, as ``gp._anova.AnovaAccessors``)."""

    def global_interactions(self, interactions: Mapping[str, Any]) -> Any:
        """Exact interactions of any order and index of the global variance game (section 4, Theorem 1).

        The game of :meth:`global_importance`, v(S) = Var E[f | x_S] = sum_{T subset S} Var f_T
        under the model's input measure: its Möbius coefficients are the variances of the ANOVA
        components, Var f_T, and every index follows from them in closed form (module notes of
        :mod:`kexplain.gp._interactions`).  Which sets of features carry the variance jointly.

        Parameters
        ----------
        interactions : mapping
            ``{"index": ..., "max_order": k, "top_k": ..., "threshold": ...}`` as for ``explain``
            (see the documentation page "Interactions of any order").

        Returns
        -------
        InteractionExplanation
            One row: ``values`` the variance Shapley values of :meth:`global_importance` (which sum
            to the variance; the Banzhaf values for index "BV"), ``base_values`` 0, the interactions
            in ``table``; ``game`` "variance".  In squared target units.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.gp import OAKRegressor
        >>> X = np.random.default_rng(0).normal(size=(40, 3))
        >>> gp = OAKRegressor(max_interaction_order=2, max_iter=10).fit(X, X[:, 0] * X[:, 1])
        >>> ex = gp.global_interactions({"index": "Moebius", "max_order": 2})
        >>> ex.top(0, n=1)[0][0]                                 # the variance of f_{x0, x1}
        ('x0', 'x1')
        >>> bool(np.isclose(ex.values.sum(), gp.global_importance().total))
        True
        """
        return variance_interactions(self, interactions)


def variance_interactions(model: Any, interactions: Any) -> Any:
    """``OAKRegressor.global_interactions(interactions)``: interactions of the variance game."""
    from sklearn.utils.validation import check_is_fitted

    from ..explanation import Explanation
    from ..interaction_explanation import interaction_explanation
    from ..shapley.higher_order import check_interaction_spec
    from ._games import variance_attribution

    check_is_fitted(model)
    spec = check_interaction_spec(interactions, int(model.n_features_in_))
    att = variance_attribution(model)
    w = np.r_[0.0, np.asarray(model.order_variances_[1:], dtype=np.float64) ** 2]
    table = solve_additive_interactions([_variance_blocks(model)], w, len(att.values), 1, spec)
    table = table.scaled([np.float64(model.y_std_) ** 2])
    ex = Explanation(
        np.asarray(att.values)[None, :],
        np.zeros(1),
        None,
        att.feature_names,
        game="variance",
        info={"max_interaction_order": model.max_order_},
        v_full=table.v_full[:, 0],
        output="variance of the posterior mean of OAKRegressor under its input measure",
    )
    return interaction_explanation(ex, table, single_output=True)

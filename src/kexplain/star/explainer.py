"""STAR-SHAP: exact interventional Shapley values of structured additive models.

For a STAR model h(x) = sum_t f_t(x_{I_t}) and the interventional game
v(S) = E_z h(x_S, z_{not S}) (z uniform, or weighted, over background rows), Shapley values are
linear in the game, and the game of term t depends on S only through S & I_t.  A player outside
I_t is null in it, and the Shapley value of a player of I_t in a game that ignores every other
player equals its Shapley value in the sub-game over I_t alone.  So

    phi_j = sum_{t: j in I_t} phi_j(v_t),   v_t(A) = E_z f_t(r_A(z, x)_{I_t}),  A subset of I_t,

which is seed 004 Theorem 3.1 (equation 23) regrouped: each term's 2^|I_t| sub-coalition values
are evaluated once and shared by all its features (Algorithm 1); terms over the same feature
set share one sub-game.  The sub-games are solved by the
project's enumeration solver, so the cost is O(m N 2^k F(k)) and does not depend on the total
number of features.  The pairwise Shapley interaction index decomposes the same way (null players
do not change it), so interactions come from the same sub-games.
"""
from __future__ import annotations

import numpy as np

from .._validation import check_data, check_weights, feature_names_of
from ..explanation import Explanation
from ..shapley.enumeration import MAX_ENUMERATION_FEATURES, exact_shapley
from ..shapley.product import interaction_values
from .model import StarModel, as_star_model, evaluate_term

#: default bound on the number of rows one term evaluation sees (coalitions x points x background)
DEFAULT_MAX_ROWS = 2**18


class StarExplainer:
    """Exact interventional Shapley values of a STAR model (STAR-SHAP, seed 004 Algorithm 1).

    Parameters
    ----------
    model : StarModel, list of (features, function) pairs, fitted RKHSWeightingRegressor /
        RKHSWeightingClassifier, or fitted interpret ExplainableBoostingRegressor / Classifier
    background : array-like (m, d)
        Rows over which absent features are averaged; the base value is the (weighted) mean
        model output over them.  The same values as shap's ExactExplainer with an independent
        masker on this background.
    background_weights : array (m,), optional
        Non-negative weights of the background rows (normalised to sum to one).
    feature_names : list of str, optional
    max_rows : int
        Bound on the rows passed to a term function in one call (memory).
    """

    def __init__(self, model, background, background_weights=None, feature_names=None,
                 max_rows: int = DEFAULT_MAX_ROWS):
        if background is None:
            raise ValueError("background must be a 2-D array of rows (m, n_features) with at least one row, got None.")
        if np.ndim(background) != 2 and not hasattr(background, "columns"):
            raise ValueError(
                f"background must be a 2-D array or DataFrame of rows (m, n_features), got shape {np.shape(background)}."
            )
        self.background = check_data(background, name="background", min_rows=1)
        m, d = self.background.shape
        self.model: StarModel = as_star_model(model, n_features=d)
        self.background_weights = (np.full(m, 1.0 / m) if background_weights is None
                                   else check_weights(background_weights, m))
        if isinstance(max_rows, (bool, np.bool_)) or not isinstance(max_rows, (int, np.integer)) or max_rows < 1:
            raise ValueError(f"max_rows must be a positive integer, got {max_rows!r}.")
        self.max_rows = int(max_rows)
        too_big = [t.name for t in self.model.terms if t.size > MAX_ENUMERATION_FEATURES]
        if too_big:
            raise ValueError(
                f"term(s) {too_big[:3]} have more than {MAX_ENUMERATION_FEATURES} features; STAR-SHAP costs "
                f"2^|I| evaluations per term and accepts terms of at most {MAX_ENUMERATION_FEATURES} features."
            )
        self.feature_names = (
            list(feature_names) if feature_names is not None
            else self.model.feature_names or feature_names_of(background)
        )
        if self.feature_names is not None and len(self.feature_names) != d:
            raise ValueError(f"feature_names has {len(self.feature_names)} names for {d} features.")
        self.expected_value = self._background_mean()

    @property
    def n_features(self) -> int:
        return self.model.n_features

    def _background_mean(self) -> np.ndarray:
        Z, w = self.background, self.background_weights
        total = self.model.intercept.astype(np.float64).copy()
        for i, t in enumerate(self.model.terms):
            vals = evaluate_term(t, Z[:, list(t.features)], i)
            total = _add_outputs(total, w @ vals)
        return total

    def explain(self, X, interactions: bool = False, progress: bool = False) -> Explanation:
        """Exact Shapley values of each row of ``X`` against the background.

        interactions : bool
            Also compute pairwise Shapley interaction values in shap's convention (off-diagonal
            I_jk / 2, diagonal phi_j - sum_{k != j}; each row sums to phi_j).
        """
        if not isinstance(interactions, (bool, np.bool_)):
            raise TypeError(f"interactions must be True or False, got {interactions!r}.")
        d = self.n_features
        if np.ndim(X) == 1 and not hasattr(X, "columns"):
            raise ValueError(
                f"X must be 2-D with shape (n_samples, {d}); got a 1-D array. Use X.reshape(1, -1) for a single row."
            )
        Xv = check_data(X, name="X", n_features=d)
        N = Xv.shape[0]
        Z, w = self.background, self.background_weights
        m = Z.shape[0]
        o = self.expected_value.size
        values = np.zeros((N, d, o))
        inter = np.zeros((N, d, d, o)) if interactions else None
        terms = self.model.terms
        groups = _group_by_subset(terms)
        iterator = groups
        if progress:
            from tqdm.auto import tqdm

            iterator = tqdm(groups, desc="STAR-SHAP", unit="subset")
        for feats, members in iterator:
            feats = list(feats)
            k = len(feats)
            XI, ZI = Xv[:, feats], Z[:, feats]
            n_coal = 2**k
            batch = min(n_coal, self.max_rows)
            per_coalition = max(1, self.max_rows // batch)
            m_chunk = min(m, per_coalition)
            p_chunk = min(N, max(1, per_coalition // m_chunk))
            for p0 in range(0, N, p_chunk):
                ps = np.arange(p0, min(N, p0 + p_chunk))
                for z0 in range(0, m, m_chunk):
                    zs = slice(z0, min(m, z0 + m_chunk))
                    game = _SubsetGame(members, XI[ps], ZI[zs], w[zs])
                    res = exact_shapley(game, k, interactions=interactions, batch_size=batch)
                    phi = res.values                              # (p, k, o)
                    # a one-output term in a several-output model adds to every output, as in predict
                    values[np.ix_(ps, feats)] += phi
                    if interactions:
                        inter[np.ix_(ps, feats, feats, np.arange(o))] += res.interactions
        if not np.all(np.isfinite(values)):
            raise FloatingPointError("non-finite Shapley values: a term returned values that overflow.")
        base = np.broadcast_to(self.expected_value, (N, o)).copy()
        shap_inter = None
        if interactions:
            phi_o = np.moveaxis(values, 2, 1)                     # (N, o, d)
            I_o = np.moveaxis(inter, 3, 1)                        # (N, o, d, d)
            shap_inter = np.moveaxis(interaction_values(phi_o, I_o), 1, 3)
        if o == 1:
            values, base = values[:, :, 0], base[:, 0]
            shap_inter = None if shap_inter is None else shap_inter[..., 0]
        names = self.feature_names or feature_names_of(X) or [f"x{j}" for j in range(d)]
        return Explanation(
            values=values,
            base_values=base,
            data=Xv,
            feature_names=names,
            output_names=self.model.output_names,
            interactions=shap_inter,
            game="interventional",
            info={"method": "STAR-SHAP", "n_terms": len(terms), "max_order": self.model.max_order},
        )


def explain_star(model, X, background, interactions: bool = False, background_weights=None) -> Explanation:
    """One-shot STAR-SHAP: ``StarExplainer(model, background).explain(X, interactions)``."""
    return StarExplainer(model, background, background_weights=background_weights).explain(
        X, interactions=interactions)


def _group_by_subset(terms):
    """Terms over the same feature set share one sub-game: [(sorted features, [(term, index, perm)])].

    ``perm`` reorders the sorted columns into the order the term's function expects.
    """
    groups: dict[tuple, list] = {}
    for i, t in enumerate(terms):
        key = tuple(sorted(t.features))
        perm = [key.index(j) for j in t.features]
        # None: the term reads the columns in sorted order, so no copy of the rows is needed
        groups.setdefault(key, []).append((t, i, None if perm == sorted(perm) else perm))
    return list(groups.items())


class _SubsetGame:
    """The interventional sub-game, over one feature subset I, of the terms on I, for a block of
    explained points.

    Called by the enumeration solver with coalitions A (B, k); returns v(A) for each point and
    output, (B, p, o): f_I(r_A(z, x)) summed over the terms and averaged over the background block
    with its weights.
    """

    def __init__(self, members, XI, ZI, w):
        self.members = members
        self.XI, self.ZI, self.w = XI, ZI, w

    def _f(self, rows):
        total = None
        for term, index, perm in self.members:
            vals = evaluate_term(term, rows if perm is None else rows[:, perm], index)
            total = vals if total is None else total + vals
        return total

    def __call__(self, S: np.ndarray) -> np.ndarray:
        B, k = S.shape
        p, mz = self.XI.shape[0], self.ZI.shape[0]
        # the empty coalition reads only background rows and the full one only explained rows:
        # evaluate those on m or p rows instead of p * m (for one-feature terms this is all of it)
        empty, full = ~S.any(axis=1), S.all(axis=1)
        mixed = ~(empty | full)
        parts = {}
        if empty.any():
            parts["empty"] = self.w @ self._f(self.ZI)                                          # (o,)
        if full.any():
            # weighted by this background block's share of the weights (blocks are summed)
            parts["full"] = self._f(self.XI) * self.w.sum()                                    # (p, o)
        if mixed.any():
            Sm = S[mixed]
            rows = np.where(Sm[:, None, None, :], self.XI[None, :, None, :], self.ZI[None, None, :, :])
            vals = self._f(rows.reshape(-1, k))
            parts["mixed"] = np.einsum("bpmo,m->bpo", vals.reshape(Sm.shape[0], p, mz, vals.shape[1]), self.w)
        o = max(np.shape(v)[-1] for v in parts.values())
        out = np.empty((B, p, o))
        if "empty" in parts:
            out[empty] = parts["empty"]
        if "full" in parts:
            out[full] = parts["full"]
        if "mixed" in parts:
            out[mixed] = parts["mixed"]
        return out


def _add_outputs(total: np.ndarray, add: np.ndarray) -> np.ndarray:
    if total.size == add.size or total.size == 1 or add.size == 1:
        return total + add
    raise ValueError(
        f"the model's terms disagree on the number of outputs ({total.size} and {add.size})."
    )

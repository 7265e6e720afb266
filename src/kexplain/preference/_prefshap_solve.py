"""How :class:`~kexplain.preference.explainer.PrefShapExplainer` builds its game, solves blocks of
duels and turns the result into an Explanation: the interventional games by the product-game
engine (or the subset route), the observational ones by enumeration or sampled coalitions, and
interactions of any order and index (``explain(..., interactions={...})``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .._params import Integer, Real, check_param
from ..base import explain_in_blocks
from ..explanation import Explanation
from ..interaction_explanation import interaction_explanation
from ..shapley.enumeration import exact_shapley
from ..shapley.higher_order import (
    InteractionTable,
    check_interaction_spec,
    interactions_from_values,
    solve_product_interactions,
)
from ..shapley.product import efficiency_error
from ..shapley.result import ShapleyValues
from ..shapley.sampling import sampled_shapley
from ._duel_inputs import _difference
from ._games import ObservationalPreferenceGame, PreferenceGame, _QuadratureGame
from .expansion import PreferenceExpansion

#: observational games are enumerated up to this many players, sampled beyond
MAX_OBSERVATIONAL_ENUMERATION = 12

#: default number of coalition evaluations of the sampled observational game
DEFAULT_BUDGET = 2048


class PrefShapSolver:
    """Game, solving and results of :class:`~kexplain.preference.explainer.PrefShapExplainer` (a base class of it)."""

    # set by PrefShapExplainer.__init__ (and Explainer's)
    expansion: PreferenceExpansion
    level: str
    n_features: int
    game: str
    output: str
    route: str
    max_block_bytes: int
    _interventional: PreferenceGame | None
    _observational: ObservationalPreferenceGame | None
    explain: Callable[..., Explanation]

    def _build_game(
        self,
        game: str,
        route: str,
        Z: np.ndarray | None,
        wz: np.ndarray | None,
        U: np.ndarray | None,
        wu: np.ndarray | None,
        background_weights: Any,
        context_background_weights: Any,
        n_landmarks: int | None,
        eta: Any,
    ) -> None:
        """The game ``explain`` solves, built once by the constructor, and its ``route``: the
        interventional product game, or the observational game of conditional mean embeddings."""
        pe = self.expansion
        self._interventional = None
        self._observational = None
        if game == "interventional":
            self._interventional = PreferenceGame(
                pe, self.level, Z, wz, U, wu, route=route, max_block_bytes=self.max_block_bytes
            )
            self.route = self._interventional.route
        else:
            if route != "auto":
                raise ValueError("route applies to game='interventional' only.")
            pool, w = (Z, wz) if self.level == "item" else (U, wu)
            assert pool is not None and w is not None
            uniform = background_weights is None if self.level == "item" else context_background_weights is None
            landmarks = None
            if n_landmarks is not None:
                from ..rkhs.cme import choose_landmarks

                n_landmarks = check_param(n_landmarks, "n_landmarks", Integer(1), None)
                landmarks = choose_landmarks(pool.shape[0], int(n_landmarks), 0, None if uniform else w)
            check_param(eta, "cme_regularization", Real(0, closed="neither"), what="a positive finite number")
            self._observational = ObservationalPreferenceGame(
                pe, self.level, pool, None if uniform else w, float(eta), landmarks=landmarks
            )
            self.route = "enumeration" if self.n_features <= MAX_OBSERVATIONAL_ENUMERATION else "sampling"

    def _explain_any_order(
        self,
        X_left: Any,
        X_right: Any,
        context: Any,
        y: Any,
        interactions: Mapping[str, Any],
        progress: Any,
        n_jobs: Any,
    ) -> Explanation:
        """``explain`` with ``interactions`` a mapping: the values, then any index of any order."""
        spec = check_interaction_spec(interactions, self.n_features)
        if self._observational is not None and self.route == "sampling":
            raise ValueError(
                f"interactions need an exact game; the observational game of {self.n_features} players is "
                f"sampled (exact up to {MAX_OBSERVATIONAL_ENUMERATION} players)."
            )
        ex = self.explain(X_left, X_right, context, y=y, progress=progress, n_jobs=n_jobs)
        Xl, Xr, C = self.expansion.check_duels(X_left, X_right, context)
        N = Xl.shape[0]
        table: InteractionTable
        if self._interventional is not None:
            game = self._interventional

            def present(pts: slice) -> tuple[np.ndarray, np.ndarray]:
                return game.present(Xl[pts], Xr[pts], None if C is None else C[pts])

            if game._subset_game is not None:  # few players: the 2^D values per duel, then Möbius
                sub = game._subset_game
                step = max(1, 2**22 // (2**self.n_features + sub.n_rows * self.n_features))
                parts = []
                for p0 in range(0, N, step):
                    got = present(slice(p0, min(N, p0 + step)))
                    parts.append(interactions_from_values(sub.values(*got), spec))
                table = InteractionTable.concatenate(parts)
            else:
                quad = _QuadratureGame(game, present, N)
                table = solve_product_interactions(
                    quad, spec, max_block_bytes=game.max_block_bytes, progress=bool(progress)
                )
        else:
            assert self._observational is not None
            v = self._observational.value_function(Xl, Xr, C)
            found = exact_shapley(v, self.n_features, interactions=dict(interactions)).interactions
            assert isinstance(found, InteractionTable)
            table = found
        # winner - loser when outcomes are given (skew-symmetry: every value changes sign)
        return interaction_explanation(ex, table.scaled(ex.info["orientation"]), single_output=True)

    def _solve_blocks(
        self,
        Xl: np.ndarray,
        Xr: np.ndarray,
        C: np.ndarray | None,
        names: list[str],
        sign: np.ndarray | None,
        index: list[Any] | None,
        interactions: str | None,
        progress: bool,
        n_jobs: int,
        seed: int,
        budget: int | None,
        tol: float | None,
    ) -> Explanation:
        """``explain`` on validated duels: blocks of duels over ``n_jobs`` threads, then the efficiency error."""
        N = Xl.shape[0]

        def run_block(rows: slice) -> Explanation:
            c = None if C is None else C[rows]
            res = self._solve(Xl[rows], Xr[rows], c, interactions, progress and n_jobs <= 1, seed, budget, tol)
            return self._to_explanation(res, Xl[rows], Xr[rows], c, names, sign, rows, index)

        # the observational games hold per-feature tables of every explained duel: blocks of duels
        # keep them within max_block_bytes (the interventional games bound their own blocks)
        step = N
        if self._observational is not None:
            step = max(1, self.max_block_bytes // self._observational.bytes_per_duel())

        def run(rows: slice) -> Explanation:
            if rows.stop - rows.start <= step:
                return run_block(rows)
            starts = range(rows.start, rows.stop, step)
            return Explanation.concatenate([run_block(slice(s, min(s + step, rows.stop))) for s in starts])

        ex = explain_in_blocks(run, N, n_jobs)
        ex.efficiency_error = efficiency_error(
            ex.values[:, :, None], np.asarray(ex.v_full)[:, None], ex.base_values[:, None]
        )
        return ex

    def _solve(
        self,
        Xl: np.ndarray,
        Xr: np.ndarray,
        C: np.ndarray | None,
        interactions: str | None,
        progress: bool,
        seed: int,
        budget: int | None,
        tol: float | None,
    ) -> ShapleyValues:
        if self._interventional is not None:
            return self._interventional.solve(Xl, Xr, C, interactions=interactions, progress=progress)
        assert self._observational is not None
        v = self._observational.value_function(Xl, Xr, C)
        D = self.n_features
        if self.route == "enumeration":
            res = exact_shapley(v, D, interactions=interactions or False)
        else:
            res = sampled_shapley(v, D, DEFAULT_BUDGET if budget is None else budget, seed, tol=tol)
        N = Xl.shape[0]
        res.values = np.asarray(res.values).reshape(N, D, 1)
        res.v_full = np.asarray(res.v_full).reshape(N, 1)
        res.v_empty = np.asarray(res.v_empty).reshape(N, 1)
        if res.standard_errors is not None:
            res.standard_errors = np.asarray(res.standard_errors).reshape(N, D, 1)
        if res.interactions is not None:
            res.interactions = np.asarray(res.interactions).reshape(N, D, D, 1)
        return res

    def _to_explanation(
        self,
        res: ShapleyValues,
        Xl: np.ndarray,
        Xr: np.ndarray,
        C: np.ndarray | None,
        names: list[str],
        sign: np.ndarray | None,
        rows: slice,
        index: list[Any] | None,
    ) -> Explanation:
        values = np.asarray(res.values)[:, :, 0]
        base = np.asarray(res.v_empty)[:, 0]
        v_full = np.asarray(res.v_full)[:, 0]
        inter = None if res.interactions is None else np.asarray(res.interactions)[..., 0]
        se = None if res.standard_errors is None else np.asarray(res.standard_errors)[:, :, 0]
        s = np.ones(Xl.shape[0]) if sign is None else sign[rows]
        # winner - loser when outcomes are given: the duel read from the winner's side
        values, base, v_full = values * s[:, None], base * s, v_full * s
        if inter is not None:
            inter = inter * s[:, None, None]
        if self.level == "context":
            data: np.ndarray | None = C
        else:
            diff = _difference(Xl, Xr)
            data = None if diff is None else diff * s[:, None]
            if self.level == "joint" and data is not None and C is not None:
                try:
                    data = np.hstack([data, np.asarray(C, dtype=np.float64)])
                except (TypeError, ValueError):
                    data = None
        return Explanation(
            values=values,
            base_values=base,
            data=data,
            feature_names=names,
            output_names=["g"],
            interactions=inter,
            standard_errors=se,
            game=self.game,
            info={
                "v_full": v_full,
                "left": Xl,
                "right": Xr,
                "orientation": s,
                "route": self.route,
                "interaction_index": res.interaction_index,
            },
            output=self.output,
            index=None if index is None else index[rows],
        )

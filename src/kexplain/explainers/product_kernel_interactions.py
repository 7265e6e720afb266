"""Interactions of any order and index by :class:`~kexplain.ProductKernelExplainer`
(``explain(X, interactions={"index": ..., "max_order": k})``): Banzhaf values from the background
factors, the 2^d values of the subset route with one Möbius transform, or the quadrature's
interaction solver.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..base import row_index
from ..explanation import Explanation
from ..interaction_explanation import interaction_explanation
from ..models.expansion import KernelExpansion
from ..shapley.higher_order import (
    InteractionTable,
    banzhaf_cheaper_than_subsets,
    banzhaf_interventional,
    check_interaction_spec,
    interactions_and_shapley_from_values,
    interactions_from_values,
    solve_product_interactions,
    table_from_dense,
)
from ..shapley.product import efficiency_error
from ..shapley.quadrature import nodes_for_degree
from ..shapley.result import ShapleyValues
from ..shapley.routes import BACKGROUND_TABLE_BYTES
from ..shapley.subsets import SubsetGame
from .product_games import BackgroundFactors, FunctionalGame, InterventionalGame, subset_game
from .product_kernel_base import ProductKernelBase

#: interactions take the subset route up to this many features, when it is the cheaper one
MAX_INTERACTION_SUBSET_FEATURES = 16


class AnyOrderInteractions(ProductKernelBase):
    """Interactions of any order of :class:`~kexplain.ProductKernelExplainer` (a base class of it)."""

    def _explain_any_order(
        self, X: Any, interactions: Mapping[str, Any], *, progress: bool, n_jobs: Any
    ) -> Explanation:
        """``explain`` with ``interactions`` a mapping: the Shapley values, then the index of any order."""
        em = self.expansion
        assert isinstance(em, KernelExpansion)  # polynomial models are refused by explain
        spec = check_interaction_spec(interactions, em.n_features)
        sub = self._interaction_subset_game()
        if spec.index == "BV" and sub is not None and self._mixture is None:
            fast = self._banzhaf_from_factors(X, spec)  # None: the subset route is the cheaper one
            if fast is not None:
                return fast
        if sub is not None and self._mixture is None:
            return self._any_order_from_subsets(X, sub, spec)
        ex = self.explain(X, interactions=False, progress=progress, n_jobs=n_jobs)
        Xv = np.asarray(ex.data, dtype=np.float64)
        game: Any
        if sub is not None:
            # few features: the 2^d values of each point from the tabulated absent sets, then Möbius
            R, step = em.n_rows, max(1, 2**22 // (2**em.n_features * em.n_outputs + em.n_rows * em.n_features))
            parts = [
                interactions_from_values(sub.values(em.row_factors(Xv[p0 : p0 + step], slice(0, R))[0]), spec)
                for p0 in range(0, Xv.shape[0], step)
            ]
            table = InteractionTable.concatenate(parts)
            return interaction_explanation(ex, table.shifted(em.intercept), single_output=em.single_output)
        if em.n_rows == 0:
            game = _ZeroGame(Xv.shape[0], em.n_features, em.n_outputs)
        elif self.game == "functional":
            game = FunctionalGame(em, Xv)
        else:
            assert self._Z is not None and self._w is not None  # interventional or baseline game
            if self._background_factors is None:  # the subset route was chosen for the values: build once
                self._background_factors = BackgroundFactors(em, self._Z, self._w)
            game = InterventionalGame(em, Xv, self._background_factors)
        table = solve_product_interactions(game, spec, max_block_bytes=self.max_block_bytes, progress=progress)
        return interaction_explanation(ex, table.shifted(em.intercept), single_output=em.single_output)

    def _banzhaf_from_factors(self, X: Any, spec: Any) -> Explanation | None:
        """Banzhaf values (``index="BV"``) on their one quadrature node, without the 2^d values
        (and without Shapley values: ``efficiency_error`` is None, Banzhaf values are not efficient)."""
        em = self.expansion
        assert isinstance(em, KernelExpansion) and self._Z is not None and self._w is not None
        if not banzhaf_cheaper_than_subsets(em.n_features, self._Z.shape[0]):
            return None
        if self._background_factors is None:
            self._background_factors = BackgroundFactors(em, self._Z, self._w)
        F = self._background_factors.factors
        if F is None:  # too large to keep: the subset route
            return None
        Xv = em.check_input(X, name="X", feature_names=self._columns)
        a, c = em.row_factors(Xv, slice(0, em.n_rows))
        got = banzhaf_interventional(a, c, F, self._w)
        if got is None:
            return None
        bv, mean, v_full, v_empty = got
        names, index = self._names(X, em.n_features), row_index(X)
        table = table_from_dense({0: mean[None], 1: np.moveaxis(bv, 1, 0)}, spec, em.n_features, v_full, v_empty)
        ex = self._to_explanation(ShapleyValues(values=bv, v_full=v_full, v_empty=v_empty), Xv, names, index)
        ex.efficiency_error = None
        return interaction_explanation(ex, table.shifted(em.intercept), single_output=em.single_output)

    def _any_order_from_subsets(self, X: Any, sub: SubsetGame, spec: Any) -> Explanation:
        """Few features with a background: the 2^d values of each point, computed once, give the
        Shapley values and the indices through one Möbius transform (no second pass of the
        quadrature for the values: at d = 12 that pass and its result were half the time)."""
        em = self.expansion
        assert isinstance(em, KernelExpansion)
        Xv = em.check_input(X, name="X", feature_names=self._columns)
        names, index = self._names(X, em.n_features), row_index(X)
        R, step = em.n_rows, max(1, 2**22 // (2**em.n_features * em.n_outputs + em.n_rows * em.n_features))
        tables, phis = [], []
        for p0 in range(0, Xv.shape[0], step):
            tab, phi = interactions_and_shapley_from_values(
                sub.values(em.row_factors(Xv[p0 : p0 + step], slice(0, R))[0]), spec
            )
            tables.append(tab)
            phis.append(phi)
        table = InteractionTable.concatenate(tables)
        res = ShapleyValues(values=np.concatenate(phis), v_full=table.v_full, v_empty=table.v_empty)
        ex = self._to_explanation(res, Xv, names, index)
        base = (table.v_empty + em.intercept[None, :]).reshape(table.v_full.shape)
        ex.efficiency_error = efficiency_error(res.values, table.v_full + em.intercept[None, :], base)
        return interaction_explanation(ex, table.shifted(em.intercept), single_output=em.single_output)

    def _interaction_subset_game(self) -> SubsetGame | None:
        """The subset route's game for interactions, built once when it is the cheaper route.

        Interactions of order k cost the quadrature about 20 elementwise passes over
        (rows, background rows, nodes, d) before the matrix products; the subset route 2^d steps
        per row plus O(d^2 2^d) per point for the Möbius transform, whatever the order.
        """
        if self._subset_game is not None:
            return self._subset_game
        em = self.expansion
        if self.game == "functional" or em.n_rows == 0 or em.n_features > MAX_INTERACTION_SUBSET_FEATURES:
            return None
        assert isinstance(em, KernelExpansion) and self._Z is not None and self._w is not None
        d, nb = em.n_features, self._Z.shape[0]
        if 2**d * em.n_rows * 8 > BACKGROUND_TABLE_BYTES or 2**d >= 20 * nb * d * nodes_for_degree(d):
            return None
        cached = getattr(self, "_interactions_subsets", None)
        if cached is None:
            cached = subset_game(em, self._Z, self._w, max_block_bytes=self.max_block_bytes)
            self._interactions_subsets = cached
        return cached


class _ZeroGame:
    """The product game of a model without rows (a constant): every value is 0."""

    n_rows = 0

    def __init__(self, n_points: int, d: int, o: int) -> None:
        self.n_points, self.n_features, self.n_outputs = n_points, d, o

    def block(self, points: slice, rows: slice) -> tuple[np.ndarray, float, np.ndarray]:
        return np.zeros((1, 0, self.n_features)), 1.0, np.zeros((0, self.n_outputs))

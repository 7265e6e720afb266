"""Shapley solvers. They know nothing of models: they take games and return numbers.

- ``product``: exact values and interactions of product games by Gauss-Legendre quadrature.
- ``additive``: exact values of additive (elementary-symmetric-polynomial) games, as in
  orthogonal additive GPs, from prefix/suffix tables.
- ``enumeration``: exact values of any game over all 2^d coalitions (reference and small d).
- ``sampling``: KernelSHAP weighted least squares over paired coalitions, with standard errors.
"""
from .additive import (
    AdditiveGameResult,
    additive_game_block,
    additive_shapley,
    solve_additive_game,
)
from .enumeration import ShapleyValues, all_coalitions, exact_shapley
from .product import (
    ProductGameResult,
    interaction_values,
    product_game_block,
    solve_product_game,
)
from .sampling import sampled_shapley, shapley_kernel_moment

__all__ = [
    "AdditiveGameResult",
    "additive_game_block",
    "additive_shapley",
    "solve_additive_game",
    "ShapleyValues",
    "all_coalitions",
    "exact_shapley",
    "ProductGameResult",
    "interaction_values",
    "product_game_block",
    "solve_product_game",
    "sampled_shapley",
    "shapley_kernel_moment",
]

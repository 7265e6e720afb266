"""Shapley solvers. They know nothing of models: they take games and return numbers.

- ``product``: exact values and interactions of product games by Gauss-Legendre quadrature.
- ``enumeration``: exact values of any game over all 2^d coalitions (reference and small d).
"""
from .enumeration import ShapleyValues, all_coalitions, exact_shapley
from .product import (
    ProductGameResult,
    interaction_values,
    product_game_block,
    solve_product_game,
)

__all__ = [
    "ShapleyValues",
    "all_coalitions",
    "exact_shapley",
    "ProductGameResult",
    "interaction_values",
    "product_game_block",
    "solve_product_game",
]
from .sampling import sampled_shapley, shapley_kernel_moment

__all__ += ["sampled_shapley", "shapley_kernel_moment"]

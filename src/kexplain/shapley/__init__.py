"""Shapley solvers. They know nothing of models: they take games and return numbers.

Every solver returns one result type, :class:`ShapleyValues`.

- ``product``: exact values and interactions of product games by Gauss-Legendre quadrature
  (its array-API path in ``_product_xp``; the interaction indices' rules and layout in
  ``interactions``).
- ``subsets``: exact values of product games whose absent-set values are tabulated once (few
  players, many background rows), through the enumeration solver (the tables and the pass
  forming the game values in ``subset_tables``).
- ``additive``: exact values of additive (elementary-symmetric-polynomial) games, as in
  orthogonal additive GPs, from prefix/suffix tables (the polynomials in ``additive_polynomials``,
  the pass over one dense block in ``additive_block``).
- ``enumeration``: exact values of any game over all 2^d coalitions (reference and small d).
- ``higher_order``: interaction indices of every order (SII, k-SII, STII, FSII, BII, BV,
  Möbius) of product games and, through the Möbius transform, of any enumerated game (the
  definitions in ``higher_order_indices``, the product games' quadrature in
  ``higher_order_product``, the interventional game's Banzhaf values in ``higher_order_banzhaf``,
  the result table in ``higher_order_table``).
- ``sampling``: KernelSHAP weighted least squares over paired coalitions, with standard errors.
- ``stochastic``: the exact covariance of the Shapley values of a Gaussian process (product
  kernels, interventional and baseline games).
- ``polynomial``: exact values and pairwise indices of polynomial-of-sum games (dot-product
  kernels) by moments (the polynomial and its Taylor coefficients in ``polynomial_terms``);
  ``monomials``: the same models' interventional values monomial by monomial.
- ``sparse``: exact values of product games whose rows each have few players.
- ``routes``: the cost model that chooses between ``product`` and ``subsets``; ``quadrature``:
  the Gauss-Legendre rules and the certified node counts; ``result``: :class:`ShapleyValues`.
"""

from .additive import (
    AdditiveGame,
    DenseAdditiveGame,
    additive_block_values,
    additive_game_block,
    additive_shapley,
    solve_additive_game,
)
from .enumeration import all_coalitions, exact_shapley
from .higher_order import InteractionTable, interactions_from_values, solve_product_interactions
from .interactions import interaction_values
from .product import (
    ProductGame,
    product_game_block,
    solve_product_game,
)
from .result import ShapleyValues
from .sampling import sampled_shapley, shapley_kernel_moment
from .stochastic import product_covariance, row_shapley_values
from .subsets import SubsetGame, absent_set_table

__all__ = [
    "AdditiveGame",
    "DenseAdditiveGame",
    "additive_block_values",
    "additive_game_block",
    "additive_shapley",
    "solve_additive_game",
    "ShapleyValues",
    "all_coalitions",
    "exact_shapley",
    "ProductGame",
    "interaction_values",
    "InteractionTable",
    "interactions_from_values",
    "solve_product_interactions",
    "product_game_block",
    "solve_product_game",
    "SubsetGame",
    "absent_set_table",
    "product_covariance",
    "row_shapley_values",
    "sampled_shapley",
    "shapley_kernel_moment",
]

"""Kernel two-sample and independence statistics, split over the features by exact Shapley values.

Mohammadi, Chau & Muandet (2025), "Computing Exact Shapley Values in Polynomial Time for
Product-Kernel Methods" (PKeX-Shapley): section 4.1 (MMD), section 4.2 and appendix G (HSIC, for
one or two multivariate variables), section 5.3 (feature selection).

- :func:`mmd_shapley`, :func:`hsic_shapley`: a :class:`kexplain.GlobalAttribution` whose values
  sum to the statistic (``total``);
- :func:`mmd_test`, :func:`hsic_test`: a :class:`kexplain.PermutationTestResult` with permutation
  p-values for the statistic and for each feature's share;
- :func:`mmd`, :func:`hsic`: the statistics alone; :class:`HSICShapleySelector`: a scikit-learn
  feature selector;
- :func:`mmd_interactions`, :func:`hsic_interactions`: interactions of any order and index of the
  MMD^2 (which sets of features differ jointly) and of the HSIC (which sets of variables depend
  on the other side jointly).

Examples
--------
>>> import numpy as np
>>> import kexplain as kx
>>> rng = np.random.default_rng(0)
>>> X, Z = rng.normal(size=(30, 2)), rng.normal(size=(30, 2)) + [1.0, 0.0]
>>> att = kx.stats.mmd_shapley(X, Z)
>>> att.ranking()
['x0', 'x1']
"""

from ..kernels.heuristics import median_heuristic
from .hsic import hsic, hsic_shapley, hsic_test
from .interactions import hsic_interactions, mmd_interactions
from .mmd import mmd, mmd_shapley, mmd_test
from .selection import HSICShapleySelector

__all__ = [
    "mmd",
    "mmd_shapley",
    "mmd_test",
    "mmd_interactions",
    "hsic",
    "hsic_shapley",
    "hsic_test",
    "hsic_interactions",
    "HSICShapleySelector",
    "median_heuristic",
]

"""Orthogonal additive Gaussian processes (OAK) and their exact local and global Shapley values.

    import kexplain as kx
    gp = kx.gp.OAKRegressor(max_interaction_order=2).fit(X, y)
    ex = gp.explain(X_test)             # exact local Shapley values (an Explanation)
    gi = gp.global_importance()         # exact variance Shapley values and Sobol indices
    gp.component(["bmi"], X_test)       # a fitted ANOVA component
"""
from .kernels import Categorical, EmpiricalRBF, GaussianRBF
from .oak import GlobalImportance, OAKRegressor

__all__ = ["OAKRegressor", "GlobalImportance", "GaussianRBF", "EmpiricalRBF", "Categorical"]

"""Orthogonal additive Gaussian processes (OAK) and their exact local and global Shapley values.

After "Exact Shapley Value for Local and Global Explanation of Additive Gaussian Processes"::

    import kexplain as kx
    gp = kx.gp.OAKRegressor(max_interaction_order=2).fit(X, y)
    ex = gp.explain(X_test)                          # exact local values, functional-ANOVA game
    ex = kx.gp.OAKExplainer(gp, X_bg).explain(X_test)  # exact interventional values over X_bg
    ex = gp.explain(X_test, uncertainty=True)        # with their exact posterior covariance
    lower, upper = ex.interval(0.95)                 # 95% credible intervals
    gi = gp.global_importance()                      # exact variance Shapley values and Sobol indices
    gp.component(["bmi"], X_test)                    # a fitted ANOVA component

The constrained base kernels (each made orthogonal to one feature's input measure) are
:class:`ConstrainedGaussianRBF`, :class:`ConstrainedEmpiricalRBF` and :class:`ConstrainedCategorical`.
"""

from .explainer import OAKExplainer
from .kernels import ConstrainedCategorical, ConstrainedEmpiricalRBF, ConstrainedGaussianRBF
from .oak import OAKRegressor

__all__ = [
    "OAKRegressor",
    "OAKExplainer",
    "ConstrainedGaussianRBF",
    "ConstrainedEmpiricalRBF",
    "ConstrainedCategorical",
]

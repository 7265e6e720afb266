"""Kernel two-sample and independence statistics with exact Shapley attributions (PKeX 4.1-4.2).

    import kexplain as kx
    att = kx.stats.mmd_shapley(X, Z)            # values per feature, summing to MMD^2
    res = kx.stats.mmd_test(X, Z, n_permutations=1000, random_state=0)
    att = kx.stats.hsic_shapley(X, y)           # values per feature, summing to HSIC
    sel = kx.stats.HSICShapleySelector(n_features_to_select=0.2).fit(X, y)
"""
from ._kernels import median_heuristic
from .hsic import hsic, hsic_shapley, hsic_test
from .mmd import mmd, mmd_shapley, mmd_test
from .results import JointAttribution, PermutationTestResult, StatAttribution
from .selection import HSICShapleySelector

__all__ = [
    "mmd",
    "mmd_shapley",
    "mmd_test",
    "hsic",
    "hsic_shapley",
    "hsic_test",
    "HSICShapleySelector",
    "median_heuristic",
    "StatAttribution",
    "JointAttribution",
    "PermutationTestResult",
]

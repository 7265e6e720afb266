"""Models as kernel expansions, and adapters from fitted scikit-learn estimators."""

from .dot_product import PolynomialExpansion, as_polynomial_expansion
from .expansion import KernelExpansion
from .kernel_coverage import CoverageRow, coverage, coverage_table
from .posterior import GPPosterior, gp_posterior
from .sklearn import SUPPORTED_MODELS, as_kernel_expansion, describe_output, model_output

__all__ = [
    "KernelExpansion",
    "PolynomialExpansion",
    "as_polynomial_expansion",
    "as_kernel_expansion",
    "model_output",
    "describe_output",
    "SUPPORTED_MODELS",
    "GPPosterior",
    "gp_posterior",
    "coverage",
    "coverage_table",
    "CoverageRow",
]

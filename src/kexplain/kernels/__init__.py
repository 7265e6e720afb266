"""Per-feature kernels, their products and sums, and conversion from scikit-learn kernels."""

from .base import (
    RBF,
    Categorical,
    Cauchy,
    Kernel,
    Laplacian,
    PointwiseProduct,
    ProductKernel,
    SumKernel,
    default_kernel,
    kernel_terms,
)
from .chi2 import Chi2
from .dot_product import AdditiveChi2, Linear, Polynomial, PolynomialOfSum
from .heuristics import default_lengthscale, median_heuristic
from .mixture import ScaleMixtureKernel
from .sklearn import from_sklearn

__all__ = [
    "Kernel",
    "RBF",
    "Laplacian",
    "Cauchy",
    "Categorical",
    "Chi2",
    "Linear",
    "Polynomial",
    "AdditiveChi2",
    "PolynomialOfSum",
    "ProductKernel",
    "PointwiseProduct",
    "SumKernel",
    "kernel_terms",
    "ScaleMixtureKernel",
    "from_sklearn",
    "median_heuristic",
    "default_kernel",
    "default_lengthscale",
]

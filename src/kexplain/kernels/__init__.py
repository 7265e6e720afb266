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
from .heuristics import default_lengthscale, median_heuristic
from .mixture import ScaleMixtureKernel
from .sklearn import from_sklearn

__all__ = [
    "Kernel",
    "RBF",
    "Laplacian",
    "Cauchy",
    "Categorical",
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

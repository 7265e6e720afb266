"""kexplain: exact Shapley values for kernel methods.

    import kexplain as kx
    ex = kx.ProductKernelExplainer(fitted_svr).explain(X_test, background=X_train[:100])
"""
from . import kernels, models, shapley
from .exceptions import UnsupportedModelError
from .explainers import ProductKernelExplainer
from .explanation import Explanation
from .models import KernelExpansion
from .shapley import exact_shapley

__version__ = "0.1.0"

__all__ = [
    "Explanation",
    "KernelExpansion",
    "ProductKernelExplainer",
    "UnsupportedModelError",
    "exact_shapley",
    "kernels",
    "models",
    "shapley",
]

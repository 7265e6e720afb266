"""Models as kernel expansions, and adapters from fitted scikit-learn estimators."""
from .expansion import KernelExpansion
from .sklearn import SUPPORTED_MODELS, as_kernel_expansion, model_output

__all__ = ["KernelExpansion", "as_kernel_expansion", "model_output", "SUPPORTED_MODELS"]

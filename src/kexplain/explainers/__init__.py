"""The explainer classes that are no capability of their own, and the games they build.

- ``ProductKernelExplainer`` (``product_kernel``): exact Shapley values of product-kernel models
  in polynomial time; its games live in ``product_games``, ``posterior_games``,
  ``polynomial_games``, ``variance_games`` and ``mixture_range``.
- ``ModelAgnosticExplainer`` (``model_agnostic``): interventional values of any prediction
  function, coalitions enumerated or sampled (``coalitions``, the loop shared with
  ``kexplain.rkhs.ObservationalExplainer``), on the output ``outputs`` picks from the model.
"""

from .model_agnostic import ModelAgnosticExplainer
from .product_kernel import ProductKernelExplainer

__all__ = ["ModelAgnosticExplainer", "ProductKernelExplainer"]

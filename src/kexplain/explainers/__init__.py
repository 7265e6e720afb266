"""The explainer classes that are no capability of their own, and the games they build.

- ``ProductKernelExplainer`` (``product_kernel``): exact Shapley values of product-kernel models
  in polynomial time; its paths are base classes in ``product_kernel_base``, ``product_kernel_dense``,
  ``product_kernel_posterior``, ``product_kernel_sparse`` and ``product_kernel_interactions``, its
  games live in ``product_games``, ``posterior_games``, ``polynomial_games``, ``variance_games``,
  ``sparse_games`` and ``mixture_range``.
- ``ModelAgnosticExplainer`` (``model_agnostic``): interventional values of any prediction
  function, coalitions enumerated or sampled (``coalitions``, the loop shared with
  ``kexplain.rkhs.ObservationalExplainer``), on the output ``outputs`` picks from the model.
"""

from .model_agnostic import ModelAgnosticExplainer
from .product_kernel import ProductKernelExplainer

__all__ = ["ModelAgnosticExplainer", "ProductKernelExplainer"]

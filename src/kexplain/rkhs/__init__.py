"""RKHS-SHAP: observational Shapley values through conditional mean embeddings.

- ``RKHSExplainer``: the entry for kernel models and any prediction function; it routes the
  observational game to ``ObservationalExplainer`` and the interventional one to
  ``kx.ProductKernelExplainer`` (product kernels) or ``kexplain.explainers.ModelAgnosticExplainer``
  (anything else) (Chau, Hu, Gonzalez & Sejdinovic, 2022, section 3).
- ``ObservationalExplainer``: the observational game through conditional mean embeddings, for
  product kernels, other kernels and callables, with GP-SHAP's covariance for Gaussian processes.
- ``ShapleyRegularizedKernelRidge``: kernel ridge regression that penalises one feature's
  Shapley values (Chau, Hu, Gonzalez & Sejdinovic, 2022, section 4).

Modules: ``explainer`` (the routing entry), ``observational`` (the CME explainer), ``cme`` (the
conditional-mean-embedding games, solved through ``kexplain.embeddings``: the product-kernel game
in ``cme_product``, the game of any kernel in ``cme_generic``), ``gpshap`` (GP-SHAP:
the posterior covariance of the observational values of a Gaussian process,
``explain(X, uncertainty=True)``; Chau, Muandet & Sejdinovic, 2023), ``restricted_kernels``
(kernels restricted to a subset of features, for models whose kernel is not a product) and
``regularized`` (the Shapley-regularised ridge).
"""

from .explainer import RKHSExplainer
from .observational import ObservationalExplainer
from .regularized import ShapleyRegularizedKernelRidge

__all__ = ["ObservationalExplainer", "RKHSExplainer", "ShapleyRegularizedKernelRidge"]

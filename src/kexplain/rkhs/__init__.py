"""RKHS-SHAP: observational Shapley values through conditional mean embeddings.

- ``RKHSExplainer``: observational (and interventional) values of kernel models and of any
  prediction function (Chau, Hu, Gonzalez & Sejdinovic, 2022, section 3).
- ``ShapleyRegularizedKernelRidge``: kernel ridge regression that penalises one feature's
  Shapley values (Chau, Hu, Gonzalez & Sejdinovic, 2022, section 4).

Modules: ``explainer`` (the explainer), ``cme`` (the conditional-mean-embedding games, solved
through ``kexplain.embeddings``), ``gpshap`` (GP-SHAP: the posterior covariance of the
observational values of a Gaussian process, ``explain(X, uncertainty=True)``; Chau, Muandet &
Sejdinovic, 2023), ``restricted_kernels`` (kernels restricted to a subset of features, for models
whose kernel is not a product) and ``regularized`` (the Shapley-regularised ridge).
"""

from .explainer import RKHSExplainer
from .regularized import ShapleyRegularizedKernelRidge

__all__ = ["RKHSExplainer", "ShapleyRegularizedKernelRidge"]

"""RKHS-SHAP: observational Shapley values through conditional mean embeddings.

- ``RKHSExplainer``: observational (and interventional) values of kernel models and of any
  prediction function (Chau et al., 2022).
- ``ShapleyRegularizedKernelRidge``: kernel ridge regression that penalises one feature's
  Shapley values (Chau et al., 2022, section 5).
"""
from .explainer import RKHSExplainer
from .regularized import ShapleyRegularizedKernelRidge

__all__ = ["RKHSExplainer", "ShapleyRegularizedKernelRidge"]

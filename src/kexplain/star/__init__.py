"""STAR-SHAP and RKHS Weightings of functions (seed 004: Dube & Marchand).

- ``StarExplainer``: exact interventional Shapley values (and pairwise interactions) of
  structured additive models h(x) = sum_I f_I(x_I), at a cost independent of the number of
  features (Theorem 3.1, Algorithm 1).
- ``StarModel`` / ``StarTerm`` / ``as_star_model``: the STAR protocol and its adapters (plain lists
  of (features, function) pairs, kexplain's RKHS Weightings, interpret's EBMs).
- ``RWSign``, ``RWRelu``, ``RWStumps``: RKHS Weighting instantiations with closed-form
  expectations; ``RKHSWeightingRegressor`` / ``RKHSWeightingClassifier``: scikit-learn estimators,
  STAR models whenever ``interaction_order`` is set.
"""
from .estimators import RKHSWeightingClassifier, RKHSWeightingRegressor
from .explainer import StarExplainer, explain_star
from .instantiations import RWRelu, RWSign, RWStumps, gamma_from_c
from .model import StarModel, StarTerm, as_star_model
from .subsets import Sequences, SequencesUpTo, SubsetDistribution, UniformSubsets, UniformUpTo
from .synthetic import interventional_value_function, unanimity_data, unanimity_model
from .weighting import RKHSWeighting

__all__ = [
    "RKHSWeighting",
    "RKHSWeightingClassifier",
    "RKHSWeightingRegressor",
    "RWRelu",
    "RWSign",
    "RWStumps",
    "Sequences",
    "SequencesUpTo",
    "SubsetDistribution",
    "UniformSubsets",
    "UniformUpTo",
    "gamma_from_c",
    "interventional_value_function",
    "unanimity_data",
    "unanimity_model",
    "StarExplainer",
    "StarModel",
    "StarTerm",
    "as_star_model",
    "explain_star",
]

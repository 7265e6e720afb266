"""STAR-SHAP and RKHS Weightings of functions.

After Dubé & Marchand, "Shapley Values of Structured Additive Regression Models and Application
to RKHS Weightings of Functions":

- :class:`StarExplainer` / :func:`explain_star`: exact interventional Shapley values (and pairwise
  interactions) of structured additive models h(x) = sum_I f_I(x_I), at a cost independent of the
  number of features (their Theorem 3.1 and Algorithm 1).
- :class:`StarModel` / :class:`StarTerm` / :func:`as_star_model`: the STAR protocol and its
  adapters (plain lists of (features, function) pairs, kexplain's RKHS Weightings, interpret's
  EBMs).
- :class:`RWSign`, :class:`RWRelu`, :class:`RWStumps`: RKHS Weighting instantiations with
  closed-form expectations (their section 4 and Table 3); :class:`RKHSWeightingRegressor` /
  :class:`RKHSWeightingClassifier`: scikit-learn estimators, STAR models whenever
  ``interaction_order`` is set (their section 4.3 and Table 4).
"""

from .adapters import as_star_model
from .estimators import RKHSWeightingClassifier, RKHSWeightingRegressor
from .explainer import StarExplainer, explain_star
from .instantiations import RWRelu, RWSign, RWStumps, gamma_from_c
from .model import StarModel, StarTerm
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

"""Global sensitivity analysis of kernel models, exactly: Sobol indices and Shapley effects.

- :class:`SensitivityAnalysis` and :func:`sobol_indices`: first-order, total, closed and
  second-order Sobol indices and Shapley effects of any product-kernel model under independent
  inputs (a background sample's empirical marginals, or Gaussian/uniform marginals in closed
  form), and for Gaussian processes their exact posterior expectation and posterior draws.
- :func:`global_importance`: mean |Shapley value| per feature of a Gaussian process's stochastic
  Shapley values, with credible intervals and rank probabilities from their exact joint posterior.
"""

from .analysis import SensitivityAnalysis, sobol_indices
from .importance import ImportanceIntervals, global_importance

__all__ = ["ImportanceIntervals", "SensitivityAnalysis", "global_importance", "sobol_indices"]

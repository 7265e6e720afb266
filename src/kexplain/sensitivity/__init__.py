"""Global sensitivity analysis of kernel models, exactly: Sobol indices and Shapley effects.

- :class:`SensitivityAnalysis` and :func:`sobol_indices`: first-order, total, closed and
  second-order Sobol indices and Shapley effects of any product-kernel model under independent
  inputs (a background sample's empirical marginals, or Gaussian/uniform marginals in closed
  form), and for Gaussian processes their exact posterior expectation.
"""

from .analysis import SensitivityAnalysis, sobol_indices

__all__ = ["SensitivityAnalysis", "sobol_indices"]

"""Causal data fusion with kernel mean embeddings: interventional mean processes (BayesIMP).

Chau, Ton, Gonzalez, Teh & Sejdinovic (2021); Chau's thesis (2023), chapter 4.  ``BayesIMP``
estimates E[T | do(X) = x] from two data sets (X, Z, Y) and (Y, T) linked by the mediator Y, with
the uncertainty of either stage (IMP, BayesIME) or of both (BayesIMP), under no adjustment,
backdoor or front-door adjustment; ``bo_prior`` gives the moment-matched GP prior (mean function
and scikit-learn kernel) for causal Bayesian optimisation.
"""

from ._results import InterventionalGPPrior, InterventionalKernel, InterventionalPrediction
from .bayesimp import BayesIMP

__all__ = ["BayesIMP", "InterventionalPrediction", "InterventionalGPPrior", "InterventionalKernel"]

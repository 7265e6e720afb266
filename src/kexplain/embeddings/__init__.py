"""Kernel mean embeddings as a toolkit: conditional mean embeddings, exact or Nystroem, and their
Bayesian version (Chau, 2023, thesis chapters 3-4 and appendix C.4).

- ``ConditionalMeanEmbedding``: the kernel ridge CME, weights beta(x), expectations
  E[g(Y) | X = x], embeddings and their inner products; regularisation by cross-validation or by
  marginal likelihood; a scikit-learn regressor (``predict`` is E[Y | X = x]).
- ``BayesianCME``: the posterior mean and covariance of the embedding under a GP prior with a
  nuclear dominant kernel (closed form for the RBF: ``nuclear_dominant_rbf``).
- ``DeconditionalGPRegressor``: the deconditional GP / conditional mean process of chapter 3.
- ``ExactRidge`` / ``NystroemRidge``: the CME linear algebra itself, on precomputed Gram
  matrices; RKHS-SHAP's observational games (``kexplain.rkhs``) solve through them.

The ridge is n * eta throughout (the thesis's chapter 3 writes N lambda, chapter 4 lambda).
"""

from .bayesian import BayesianCME
from .cme import ConditionalMeanEmbedding, cme_cv_loss_from_grams, cme_log_marginal_likelihood
from .deconditional import DeconditionalGPRegressor
from .nuclear import nuclear_dominant_rbf
from .ridge import ExactRidge, NystroemRidge, choose_landmarks

__all__ = [
    "ConditionalMeanEmbedding",
    "BayesianCME",
    "DeconditionalGPRegressor",
    "nuclear_dominant_rbf",
    "ExactRidge",
    "NystroemRidge",
    "choose_landmarks",
    "cme_log_marginal_likelihood",
    "cme_cv_loss_from_grams",
]

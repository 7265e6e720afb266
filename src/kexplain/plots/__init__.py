"""Plots of explanations: shap's plots labelled with the game, and plots of uncertain values.

- :func:`waterfall`, :func:`bar`, :func:`beeswarm`: shap's own plots of an
  :class:`~kexplain.Explanation`, titled with the explained output and the game, and with shap's
  base-value label ``E[f(X)]`` replaced by a true one where the game's base value is not a mean
  prediction (the functional-baseline game: ``v(∅)``; the baseline game: ``f(baseline)``; the
  functional-ANOVA game: ``f_0``).
- :func:`bar_intervals`, :func:`waterfall_intervals`, :func:`correlation`, :func:`distinguishable`
  and :func:`excludes_zero`: values with credible intervals, the correlation of the feature
  contributions at one point, and which features are distinguishable from zero over a data set,
  for explanations with a posterior ``covariance`` (``explain(X, uncertainty=True)`` of a
  Gaussian-process model; stochastic Shapley values of Chau, Muandet & Sejdinovic, 2023).
- :func:`compare_importance`: the global importance of several explanations of the same points
  side by side (e.g. the functional-baseline and the interventional game).

matplotlib and shap are optional dependencies (extra ``plots``); the backend is left to the caller,
so these functions work in notebooks as well as in scripts that chose ``Agg``.

The functions live in private modules (``_shap_wrappers``, ``_intervals``, ``_correlation``,
``_importance``, with shared helpers in ``_common``); import them from :mod:`kexplain.plots`.
"""

from __future__ import annotations

from ._common import BASE_LABELS as BASE_LABELS  # the true base-value labels, kept importable from here
from ._common import base_label, plot_title
from ._correlation import correlation, correlation_matrix
from ._importance import compare_importance, global_importance
from ._intervals import bar_intervals, distinguishable, excludes_zero, waterfall_intervals
from ._shap_wrappers import bar, beeswarm, waterfall

__all__ = [
    "waterfall",
    "bar",
    "beeswarm",
    "bar_intervals",
    "waterfall_intervals",
    "correlation",
    "correlation_matrix",
    "excludes_zero",
    "distinguishable",
    "compare_importance",
    "global_importance",
    "plot_title",
    "base_label",
]

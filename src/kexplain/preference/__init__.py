"""Preference models (duels, choices) and their explanations: generalised preferential GPs.

Chau's thesis (2023), chapters 6 and 7: the generalised preferential kernel
k_E((u, u'), (v, v')) = k(u, v) k(u', v') - k(u, v') k(u', v), preference models with and
without a context (:class:`PreferenceClassifier`, :class:`PreferenceGPClassifier`), the spectral
method for clusters of comparable items (:func:`comparable_clusters`), data sets that run offline,
:class:`PreferenceExpansion`, the form of a fitted model that PREF-SHAP reads, and
:class:`PrefShapExplainer` (PREF-SHAP; its plots are in ``kexplain.preference.plots``).
Outcomes ``y`` are 1 where the LEFT item wins (0 or -1 where the right one does).
"""

from .clusters import comparable_clusters
from .data import DuelData, Duels, duels_from_matches, load_modechoice
from .estimators import PreferenceClassifier
from .expansion import PreferenceExpansion, preference_expansion
from .explainer import PrefShapExplainer
from .gp import PreferenceGPClassifier
from .kernel import PreferenceKernel
from .synthetic import make_cluster_duels, make_gpm_duels, make_latent_state_duels

__all__ = [
    "PrefShapExplainer",
    "PreferenceKernel",
    "PreferenceClassifier",
    "PreferenceGPClassifier",
    "comparable_clusters",
    "PreferenceExpansion",
    "preference_expansion",
    "DuelData",
    "Duels",
    "make_cluster_duels",
    "make_latent_state_duels",
    "make_gpm_duels",
    "duels_from_matches",
    "load_modechoice",
]

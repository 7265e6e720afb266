"""kexplain: exact Shapley values for kernel methods.

    import kexplain as kx
    ex = kx.ProductKernelExplainer(fitted_svr, background=X_train[:100]).explain(X_test)

Every explainer takes ``(model, background)`` at construction and returns a ``kx.Explanation``
from ``explain(X, *, interactions=False, progress=False, n_jobs=None, random_state=None)``;
decompositions of one number are ``kx.GlobalAttribution``, kernel tests ``kx.PermutationTestResult``.
"""

import importlib

from . import games, kernels, models, shapley
from ._version import __version__
from .attribution import GlobalAttribution, PermutationTestResult
from .base import Explainer
from .exceptions import UnsupportedModelError
from .explainers import ProductKernelExplainer
from .explanation import Explanation
from .interaction_explanation import InteractionExplanation
from .models import KernelExpansion
from .shapley import exact_shapley

# Capabilities with heavier imports load on first use (kx.stats, kx.gp, kx.preference, ...),
# and so do the RKHS-SHAP names.
_LAZY_MODULES = {"stats", "gp", "star", "rkhs", "preference", "embeddings", "causal", "dask", "plots", "report", "cli"}
_LAZY_MODULES |= {"sensitivity"}  # kx.sensitivity: Sobol indices and Shapley effects
_LAZY_NAMES = {
    "sampled_shapley": ("kexplain.shapley.sampling", "sampled_shapley"),
    "RKHSExplainer": ("kexplain.rkhs", "RKHSExplainer"),
    "ShapleyRegularizedKernelRidge": ("kexplain.rkhs", "ShapleyRegularizedKernelRidge"),
    "ProductShapiqGame": ("kexplain.shapiq_games", "ProductShapiqGame"),
}


def __getattr__(name: str) -> object:
    if name in _LAZY_MODULES:
        return importlib.import_module(f"kexplain.{name}")
    if name in _LAZY_NAMES:
        module, attr = _LAZY_NAMES[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'kexplain' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _LAZY_MODULES | set(_LAZY_NAMES))


__all__ = [
    "Explainer",
    "Explanation",
    "InteractionExplanation",
    "GlobalAttribution",
    "PermutationTestResult",
    "__version__",
    "KernelExpansion",
    "ProductKernelExplainer",
    "UnsupportedModelError",
    "exact_shapley",
    "games",
    "kernels",
    "models",
    "shapley",
    *sorted(_LAZY_NAMES),
]

"""Which output of a model RKHS-SHAP explains, and how it is described in the Explanation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from sklearn.base import is_classifier

from ..exceptions import UnsupportedModelError, foreign_model_error
from ..models.expansion import KernelExpansion
from .restricted_kernels import SUPPORTED_NON_PRODUCT


def _final_estimator(model: Any) -> Any:
    if type(model).__name__ == "Pipeline" and hasattr(model, "steps"):
        return model.steps[-1][1]
    return model


def _predict_fn(model: Any) -> tuple[Callable[[np.ndarray], Any], str]:
    """The output explained for a non-product model and its description: decision_function for
    classifiers that have one, predict_proba for other classifiers (never the class labels),
    else predict, else the callable itself."""
    est = _final_estimator(model)
    foreign = foreign_model_error(est)
    if foreign is not None:  # a torch or TensorFlow module is callable, but not on NumPy rows
        raise foreign
    name = type(est).__name__
    if est is not model:
        name = "Pipeline(" + ", ".join(type(s[1]).__name__ for s in model.steps) + ")"
    # scikit-learn >= 1.6 reads the estimator's tags, not _estimator_type; callables have no tags
    if hasattr(est, "__sklearn_tags__") and is_classifier(est):
        if hasattr(model, "decision_function"):
            return model.decision_function, f"decision_function of {name}"
        if hasattr(model, "predict_proba"):
            return model.predict_proba, f"predict_proba of {name}"
    if hasattr(model, "predict"):
        return model.predict, f"predict of {name}"
    if callable(model):
        return model, f"{getattr(model, '__name__', type(model).__name__)} (callable)"
    raise UnsupportedModelError(
        f"model of type {type(model).__name__} has neither predict nor __call__. RKHSExplainer "
        f"accepts product-kernel models (see kx.models.SUPPORTED_MODELS), {SUPPORTED_NON_PRODUCT}, "
        "or any prediction callable with a background."
    )


def _describe_product(model: Any) -> str:
    if isinstance(model, KernelExpansion):
        return "KernelExpansion.predict"
    if hasattr(model, "to_kernel_expansion"):
        return f"predict of {type(model).__name__}"
    try:
        from ..models.sklearn import describe_output

        return str(describe_output(model))
    except (ImportError, AttributeError, TypeError, ValueError):  # pragma: no cover - older adapters
        return f"predict of {type(_final_estimator(model)).__name__}"

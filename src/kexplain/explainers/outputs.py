"""Which output of a model an explainer explains, and the checks of what the model returns.

Classifiers are explained on ``decision_function`` where they have one, else on
``predict_proba`` (never on class labels); other models on ``predict``; a callable on itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..exceptions import UnsupportedModelError, foreign_model_error


def final_estimator(model: Any) -> Any:
    """The last step of a scikit-learn Pipeline, else the model itself.

    Parameters
    ----------
    model : object

    Returns
    -------
    object

    Examples
    --------
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn.svm import SVR
    >>> from kexplain.explainers.outputs import final_estimator
    >>> type(final_estimator(make_pipeline(StandardScaler(), SVR()))).__name__
    'SVR'
    """
    if type(model).__name__ == "Pipeline" and hasattr(model, "steps"):
        return model.steps[-1][1]
    return model


def model_output(model: Any, accepted: str | None = None) -> tuple[Callable[[np.ndarray], Any], str]:
    """The output of a model that is explained, and its description.

    ``decision_function`` for classifiers that have one, ``predict_proba`` for other classifiers
    (never the class labels), else ``predict``, else the callable itself.

    Parameters
    ----------
    model : object
        A fitted estimator, an object with ``predict``, or a callable.
    accepted : str, optional
        What the caller accepts, for the message of the error raised when ``model`` has neither
        ``predict`` nor ``__call__``.

    Returns
    -------
    (callable, str)
        The function on rows, and e.g. ``"predict of KernelRidge"``.

    Examples
    --------
    >>> from kexplain.explainers.outputs import model_output
    >>> def f(X):
    ...     return X.sum(axis=1)
    >>> model_output(f)[1]
    'f (callable)'
    """
    est = final_estimator(model)
    foreign = foreign_model_error(est)
    if foreign is not None:  # a torch or TensorFlow module is callable, but not on NumPy rows
        raise foreign
    name = type(est).__name__
    if est is not model:
        name = "Pipeline(" + ", ".join(type(s[1]).__name__ for s in model.steps) + ")"
    # scikit-learn >= 1.6 reads the estimator's tags, not _estimator_type; callables have no tags.
    # Imported here: an estimator with tags has loaded scikit-learn already, and at the top it made
    # ``import kexplain`` load scikit-learn, scipy.stats and pandas (about 60% of the import).
    if hasattr(est, "__sklearn_tags__") and _is_classifier(est):
        if hasattr(model, "decision_function"):
            return model.decision_function, f"decision_function of {name}"
        if hasattr(model, "predict_proba"):
            return model.predict_proba, f"predict_proba of {name}"
    if hasattr(model, "predict"):
        return model.predict, f"predict of {name}"
    if callable(model):
        return model, f"{getattr(model, '__name__', type(model).__name__)} (callable)"
    raise UnsupportedModelError(
        f"model of type {type(model).__name__} has neither predict nor __call__. "
        + (accepted or "ModelAgnosticExplainer accepts any prediction callable or object with predict.")
    )


def check_outputs(predict: Callable[[np.ndarray], Any], X: np.ndarray) -> np.ndarray:
    """The model's outputs on the rows ``X`` as a finite (N, n_outputs) float array.

    Parameters
    ----------
    predict : callable
        The function on rows (see ``model_output``).
    X : ndarray of shape (N, d)

    Returns
    -------
    ndarray of shape (N, n_outputs)

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.explainers.outputs import check_outputs
    >>> check_outputs(lambda X: X.sum(axis=1), np.ones((2, 3)))
    array([[3.],
           [3.]])
    """
    out = np.asarray(predict(X), dtype=np.float64)
    if out.ndim == 1:
        out = out[:, None]
    if out.ndim != 2 or out.shape[0] != X.shape[0]:
        raise ValueError(f"the model returned outputs of shape {out.shape} for {X.shape[0]} rows.")
    if not np.all(np.isfinite(out)):
        raise ValueError("the model returned NaN or infinite predictions.")
    return out


def _is_classifier(est: Any) -> bool:
    from sklearn.base import is_classifier

    return bool(is_classifier(est))

"""Adapters: fitted scikit-learn estimators -> KernelExpansion.

Supported (each gives an exact expansion of the output that is explained):
- SVR, NuSVR (predict); SVC, NuSVC (decision_function: binary, or, with
  ``decision_function_shape='ovo'``, one output per one-vs-one pair of classes) with kernel "rbf".
  A multiclass SVC with scikit-learn's default ``decision_function_shape='ovr'`` is refused: its
  decision_function counts the one-vs-one votes and adds a non-linear transform of the summed
  confidences (``sklearn.utils.multiclass._ovr_decision_function``), which is not a kernel
  expansion; the message names the two routes that work;
- KernelRidge with kernel "rbf" or "laplacian", or a supported scikit-learn GP kernel object;
- GaussianProcessRegressor (predictive mean, normalize_y respected) and GaussianProcessClassifier
  (latent mean; for several classes one one-vs-rest output per class, each with the kernel its
  binary classifier learned) with sums and products of RBF, ConstantKernel and WhiteKernel;
- a Pipeline whose steps before the estimator are per-feature affine scalers (StandardScaler,
  MinMaxScaler, MaxAbsScaler, RobustScaler, "passthrough"), folded into the kernel so values belong
  to the original features.

The estimators' adapters live in ``sklearn_estimators`` (with ``SUPPORTED_MODELS``), the Pipeline
steps and scalers in ``_sklearn_pipeline``; this module turns their parts into a KernelExpansion and
names the explained output.  Every name of the module before that split is still imported from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..exceptions import foreign_model_error
from ..kernels.dot_product import PolynomialOfSum
from ._sklearn_pipeline import _final_step_path, _flatten_pipeline, _is_pipeline, _scaler_affine, _unfold  # noqa: F401
from .expansion import KernelExpansion
from .gpflow import is_gpflow_model
from .gpytorch import is_torch_gp
from .kernel_approximation import LINEAR_MODELS, is_kernel_approximation, nystroem_parts
from .sklearn_estimators import (  # noqa: F401  (the names of the module before the split)
    _ESTIMATORS,
    _OTHER_KERNEL_ROUTE,
    SUPPORTED_MODELS,
    _binary_gpc_parts,
    _check_fitted,
    _from_sklearn,
    _gp_kernel,
    _gpc,
    _gpr,
    _kernel_ridge,
    _ovr_refusal,
    _Parts,
    _svm,
    _svm_kernel,
    _unsupported,
)


def as_kernel_expansion(model: Any, feature_names: Sequence[str] | None = None) -> KernelExpansion:
    """Convert a fitted model (or Pipeline) to a KernelExpansion on the original features.

    The expansion computes exactly the output the model explains (see :func:`describe_output`);
    per-feature affine scalers of a Pipeline are folded into the kernel's lengthscales and the
    support points, so values belong to the original features.

    Parameters
    ----------
    model : fitted estimator, Pipeline or KernelExpansion
        One of :data:`SUPPORTED_MODELS`; a KernelExpansion is returned as it is.
    feature_names : sequence of str, optional
        Default: the model's ``feature_names_in_`` when it was fitted on a DataFrame.

    Returns
    -------
    KernelExpansion
        The model's decision function (or prediction) as an expansion over its support points.

    Raises
    ------
    UnsupportedModelError
        When the model has no exact product-kernel form; the message lists what is supported.
    sklearn.exceptions.NotFittedError
        When the model is not fitted.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn.svm import SVR
    >>> from kexplain.models import as_kernel_expansion
    >>> X = np.random.default_rng(0).normal(size=(30, 2)) * [1.0, 10.0]
    >>> model = make_pipeline(StandardScaler(), SVR()).fit(X, X[:, 0])
    >>> em = as_kernel_expansion(model)
    >>> bool(np.allclose(em.predict(X[:5]), model.predict(X[:5])))
    True
    """
    if isinstance(model, KernelExpansion):
        return model
    to_expansion = getattr(model, "to_kernel_expansion", None)
    if callable(to_expansion):  # kexplain's own estimators (and users' models) that say what they are
        em = to_expansion()
        if not isinstance(em, KernelExpansion):
            raise TypeError(
                f"{type(model).__name__}.to_kernel_expansion() must return a kexplain KernelExpansion, "
                f"got {type(em).__name__}."
            )
        return em
    if is_torch_gp(model):  # GPyTorch / BoTorch models, before the generic refusal
        from .gpytorch import gpytorch_expansion

        return gpytorch_expansion(model, feature_names)
    if is_gpflow_model(model):
        from .gpflow import gpflow_expansion

        return gpflow_expansion(model, feature_names)
    steps = _flatten_pipeline(model)
    if len(steps) >= 2 and is_kernel_approximation(steps[-2]):  # scalers, Nystroem, a linear model
        est = steps.pop()
        X_ref, coef, kernel, intercept, output_names = nystroem_parts(steps.pop(), est)
        if feature_names is None:
            names = getattr(model, "feature_names_in_", None)
            feature_names = None if names is None else [str(n) for n in names]
        X_ref, coef, kernel, intercept = _unfold(steps, X_ref, coef, kernel, intercept, model)
        return KernelExpansion(X_ref, coef, kernel, intercept, feature_names=feature_names, output_names=output_names)
    steps, parts = _model_parts(model)
    if not isinstance(parts, list) and isinstance(parts[2], PolynomialOfSum):
        raise _unsupported(
            f"{type(model).__name__} with kernel {parts[2]!r}: this kernel is a polynomial of a sum over features, "
            "not a product over features, so it has no KernelExpansion. kx.ProductKernelExplainer(model) and "
            "kx.ProductKernelExplainer(model, background=B) explain it exactly (kx.models.as_polynomial_expansion "
            "gives its expansion)."
        )
    if feature_names is None:
        names = getattr(model, "feature_names_in_", None)
        feature_names = None if names is None else [str(n) for n in names]
    if isinstance(parts, list):  # outputs with a kernel each
        pieces = [KernelExpansion(*_unfold(steps, *part[:4], model), feature_names=feature_names) for part in parts]
        return KernelExpansion.stack(pieces, output_names=[str(part[4][0]) for part in parts if part[4]])
    X_ref, coef, kernel, intercept, output_names = parts
    X_ref, coef, kernel, intercept = _unfold(steps, X_ref, coef, kernel, intercept, model)
    return KernelExpansion(X_ref, coef, kernel, intercept, feature_names=feature_names, output_names=output_names)


def _model_parts(model: Any) -> tuple[list[Any], _Parts | list[_Parts]]:
    """(the Pipeline's steps before the estimator, the estimator's expansion parts)."""
    steps = _flatten_pipeline(model)
    est = steps.pop() if steps else model
    handler = _ESTIMATORS.get(type(est).__name__)
    if handler is None:
        foreign = foreign_model_error(est)
        if foreign is not None:
            raise foreign
        raise _unsupported(f"model of type {type(est).__name__} is not supported by the product-kernel explainer.")
    if type(est).__name__ in ("SVC", "NuSVC") and _is_pipeline(model):
        classes = getattr(est, "classes_", ())
        if len(classes) > 2 and getattr(est, "decision_function_shape", "ovr") != "ovo":
            raise _ovr_refusal(est, _final_step_path(model))
    return steps, handler(est)


def _output_method(est: Any) -> str:
    """The name of the model output the adapter explains for the final estimator ``est``."""
    name = type(est).__name__
    if name in ("SVC", "NuSVC"):
        return "decision_function"
    if name == "GaussianProcessClassifier":
        return "latent mean"
    return LINEAR_MODELS.get(name, "predict")


def describe_output(model: Any) -> str:
    """The model output an explanation of ``model`` explains, in words.

    Parameters
    ----------
    model : fitted scikit-learn estimator, Pipeline or KernelExpansion
        A model accepted by :func:`as_kernel_expansion`.

    Returns
    -------
    str
        For example ``"predict of SVR"``, ``"predict of Pipeline(StandardScaler, KernelRidge)"``,
        ``"decision_function of SVC (> 0 favours class 1)"``, ``"decision_function of SVC
        (one-vs-one: one output per class pair; 'a vs b' > 0 favours class a)"``, ``"latent mean
        of GaussianProcessClassifier (one-vs-rest: one output per class, each with its own
        kernel; 'class k' > 0 favours class k over the rest)"``, a note ``"not predict_proba:
        ..."`` for ``SVC(probability=True)`` (the values add up to ``decision_function``), or
        ``"KernelExpansion.predict"``.  The per-output labels are the Explanation's
        ``output_names`` (``"0 vs 1"``, ``"class 2"``).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> from sklearn.svm import SVC
    >>> X = np.arange(12.0).reshape(6, 2)
    >>> describe_output(make_pipeline(StandardScaler(), KernelRidge(kernel="rbf")))
    'predict of Pipeline(StandardScaler, KernelRidge)'
    >>> describe_output(SVC(decision_function_shape="ovo").fit(X, [0, 0, 1, 1, 2, 2]))
    "decision_function of SVC (one-vs-one: one output per class pair; 'a vs b' > 0 favours class a)"
    >>> describe_output(SVC(probability=True).fit(X, [0, 0, 0, 1, 1, 1]))[:64]
    'decision_function of SVC (> 0 favours class 1; not predict_proba'
    """
    if isinstance(model, KernelExpansion):
        return "KernelExpansion.predict"
    if is_torch_gp(model):
        from .gpytorch import describe_torch_output

        return describe_torch_output(model)
    if is_gpflow_model(model):
        from .gpflow import describe_gpflow_output

        return describe_gpflow_output(model)
    steps = _flatten_pipeline(model)
    est = steps[-1] if steps else model
    subject = type(est).__name__
    if steps:
        subject = "Pipeline(" + ", ".join(type(s).__name__ for s in steps) + ")"
    text = f"{_output_method(est)} of {subject}"
    notes = []
    name = type(est).__name__
    classes = getattr(est, "classes_", None)
    if classes is not None and len(classes) > 2:
        if name in ("SVC", "NuSVC"):
            if getattr(est, "decision_function_shape", "ovr") == "ovo":
                notes.append("one-vs-one: one output per class pair; 'a vs b' > 0 favours class a")
            else:
                notes.append("one-vs-rest, from one-vs-one votes: not a kernel expansion")
        elif name == "GaussianProcessClassifier":
            kernels = {repr(e.kernel_) for e in getattr(est.base_estimator_, "estimators_", [])}
            own = ", each with its own kernel" if len(kernels) > 1 else ""
            notes.append(f"one-vs-rest: one output per class{own}; 'class k' > 0 favours class k over the rest")
    elif classes is not None and len(classes) == 2 and name in ("SVC", "NuSVC", "GaussianProcessClassifier"):
        notes.append(f"> 0 favours class {classes[1]}")
    if name in ("SVC", "NuSVC") and getattr(est, "probability", False) is True:
        notes.append("not predict_proba: probabilities are a Platt-scaled, non-additive transform")
    return text + (f" ({'; '.join(notes)})" if notes else "")


def model_output(model: Any, X: ArrayLike) -> np.ndarray:
    """The output the adapter explains, computed by the model itself (for checks and tests).

    ``predict`` for regressors, ``decision_function`` for SVC and NuSVC, and for a
    GaussianProcessClassifier the latent mean of its Laplace approximation, f(x) = k(x, X_train)
    (y_train - pi) with the kernel scikit-learn learned (Rasmussen & Williams, 2006, section
    3.4.2), one column per class for several classes.

    Parameters
    ----------
    model : fitted estimator or Pipeline
        The fitted model.
    X : array-like of shape (N, d)
        Rows.

    Returns
    -------
    ndarray of shape (N,) or (N, n_outputs)
        The output the adapter explains, from the model's own method.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.svm import SVC
    >>> from kexplain.models import model_output
    >>> X = np.random.default_rng(0).normal(size=(30, 2))
    >>> model = SVC(decision_function_shape="ovo").fit(X, np.digitize(X[:, 0], [-0.5, 0.5]))
    >>> model_output(model, X[:4]).shape
    (4, 3)
    """
    steps = _flatten_pipeline(model)
    est = steps[-1] if steps else model
    name = type(est).__name__
    if name in ("SVC", "NuSVC") or LINEAR_MODELS.get(name) == "decision_function":
        return np.asarray(model.decision_function(X))
    if name == "GaussianProcessClassifier":
        Xt = np.asarray(model[:-1].transform(X) if _is_pipeline(model) else X, dtype=np.float64)
        base = est.base_estimator_
        binary = getattr(base, "estimators_", [base])
        cols = [b.kernel_(Xt, b.X_train_) @ (b.y_train_ - b.pi_) for b in binary]
        return np.stack(cols, axis=1) if hasattr(base, "estimators_") else cols[0]
    return np.asarray(model.predict(X))

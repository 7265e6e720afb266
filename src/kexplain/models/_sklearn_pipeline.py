"""scikit-learn Pipelines in the adapters: the steps of a (nested) Pipeline, and its per-feature
affine scalers folded into the kernel and the support points, so that values belong to the
original features.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .sklearn_estimators import _unsupported


def _scaler_affine(step: Any, d: int) -> tuple[np.ndarray, np.ndarray]:
    """(scale, shift) with step.transform(x) = scale * x + shift, per feature."""
    from sklearn.utils.validation import check_is_fitted

    name = type(step).__name__
    check_is_fitted(step)
    one, zero = np.ones(d), np.zeros(d)
    if name == "StandardScaler":
        mean = step.mean_ if step.with_mean and step.mean_ is not None else zero
        scale = step.scale_ if step.with_std and step.scale_ is not None else one
        return 1.0 / scale, -mean / scale
    if name == "MinMaxScaler":
        if getattr(step, "clip", False):
            raise _unsupported("MinMaxScaler(clip=True) is not affine.")
        return np.asarray(step.scale_), np.asarray(step.min_)
    if name == "MaxAbsScaler":
        return 1.0 / step.scale_, zero
    if name == "RobustScaler":
        center = step.center_ if step.with_centering and step.center_ is not None else zero
        scale = step.scale_ if step.with_scaling and step.scale_ is not None else one
        return 1.0 / scale, -center / scale
    raise _unsupported(
        f"preprocessing step {name} is not a per-feature affine scaler, so the kernel cannot be "
        "written on the original features."
    )


def _final_step_path(model: Any) -> str:
    """The set_params prefix of a (nested) Pipeline's final estimator: ``"outer__svc"``."""
    names = []
    while _is_pipeline(model):
        steps = [(n, st) for n, st in model.steps if st is not None and not isinstance(st, str)]
        name, model = steps[-1]
        names.append(str(name))
    return "__".join(names)


def _is_pipeline(obj: Any) -> bool:
    """Whether ``obj`` is a scikit-learn Pipeline (checked by name, without importing sklearn)."""
    return type(obj).__name__ == "Pipeline" and hasattr(obj, "steps")


def _flatten_pipeline(model: Any) -> list[Any]:
    """The steps of a (possibly nested) Pipeline in order, without None / "passthrough"; [] for a
    plain estimator."""
    if not _is_pipeline(model):
        return []
    out: list[Any] = []
    for _, step in model.steps:
        if step is None or (isinstance(step, str) and step == "passthrough"):
            continue
        out.extend(_flatten_pipeline(step) if _is_pipeline(step) else [step])
    if not out:
        raise _unsupported("the Pipeline has no estimator.")
    return out


def _unfold(
    steps: list[Any], X_ref: np.ndarray, coef: Any, kernel: Any, intercept: Any, model: Any
) -> tuple[np.ndarray, Any, Any, Any]:
    """Fold a Pipeline's per-feature affine scalers into the kernel and the support points."""
    d = X_ref.shape[1]
    if steps and hasattr(X_ref, "toarray"):  # support points kept sparse: the scalers fold densely
        X_ref = np.asarray(X_ref.toarray(), dtype=np.float64)
    if steps:
        scale, shift = np.ones(d), np.zeros(d)
        for step in steps:
            s, t = _scaler_affine(step, d)
            scale, shift = s * scale, s * shift + t
        if np.any(scale == 0) or not np.all(np.isfinite(scale)):
            raise _unsupported("a scaler maps a feature to a constant; the kernel cannot be unfolded.")
        if np.any(shift != 0) and not getattr(kernel, "translation_invariant", True):
            raise _unsupported(
                f"the kernel {kernel!r} is not translation invariant, so a scaler that shifts the data (centring, "
                "MinMaxScaler) cannot be folded into it; use a scaler that only multiplies (MaxAbsScaler, "
                "StandardScaler(with_mean=False))."
            )
        kernel = kernel.rescaled(scale)
        X_ref = (X_ref - shift) / scale
    n_in = getattr(model, "n_features_in_", d)
    if n_in != d:
        raise _unsupported(f"the model takes {n_in} features but its kernel sees {d}.")
    return X_ref, coef, kernel, intercept

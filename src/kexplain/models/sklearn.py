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
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..exceptions import UnsupportedModelError, foreign_model_error
from ..kernels.base import RBF, Kernel, Laplacian, SumKernel
from ..kernels.chi2 import Chi2
from ..kernels.dot_product import AdditiveChi2, Linear, PolynomialOfSum, has_dot_product, polynomial_from_sklearn
from ..kernels.sklearn import SUPPORTED_SKLEARN_KERNELS, from_sklearn
from ._routes import route_for
from .expansion import KernelExpansion
from .gpflow import is_gpflow_model
from .gpytorch import is_torch_gp
from .kernel_approximation import LINEAR_MODELS, is_kernel_approximation, nystroem_parts

SUPPORTED_MODELS = (
    "SVR, NuSVR, SVC, NuSVC (kernel 'rbf', 'linear' or 'poly'; a multiclass SVC with "
    "decision_function_shape='ovo'); KernelRidge (kernel 'rbf', 'laplacian', 'linear', 'poly', 'chi2', "
    "'additive_chi2' or a supported GP kernel); GaussianProcessRegressor and GaussianProcessClassifier ("
    + SUPPORTED_SKLEARN_KERNELS
    + "; for the regressor also DotProduct with ConstantKernel and WhiteKernel: sums, products, integer "
    "powers); a Pipeline of per-feature scalers (StandardScaler, MinMaxScaler, MaxAbsScaler, "
    "RobustScaler) ending in one of these; a Pipeline of such scalers, Nystroem(kernel='rbf' or 'laplacian') and a "
    "linear model (Ridge, LogisticRegression, LinearSVC, SGDRegressor, SGDClassifier, ...); GPyTorch / BoTorch "
    "Gaussian processes (see kexplain.models.gpytorch); or a kx.KernelExpansion"
)


#: what an adapter returns: support points, coefficients, kernel, intercept, output names
_Parts = tuple[np.ndarray, np.ndarray, Any, Any, "list[str] | None"]


def _unsupported(msg: str) -> UnsupportedModelError:
    """An UnsupportedModelError whose message ends with what is supported."""
    return UnsupportedModelError(f"{msg} Supported: {SUPPORTED_MODELS}.")


#: the route that works for a kernel model whose kernel has no product form, by estimator
_OTHER_KERNEL_ROUTE = {
    "GaussianProcessClassifier": (
        "kx.RKHSExplainer(lambda X: model.predict_proba(X)[:, 1], background=B, game='interventional') "
        "explains its class-1 probability by evaluating the model on coalitions: exact up to 12 features, "
        "sampled with standard errors beyond"
    ),
}


def _from_sklearn(kernel: Any, d: int, owner: str) -> tuple[Kernel | SumKernel | None, float]:
    """:func:`from_sklearn`; a kernel without a product form is refused naming the route that works."""
    try:
        return from_sklearn(kernel, d)
    except UnsupportedModelError:
        route = _OTHER_KERNEL_ROUTE.get(
            owner,
            "kx.RKHSExplainer(model, game='interventional') explains it exactly by evaluating the model on "
            "coalitions of its training rows (or pass background=B; exact up to 12 features, sampled with "
            "standard errors beyond), "
            "and kx.RKHSExplainer(model) gives the observational game",
        )
        raise _unsupported(
            f"{owner} with kernel {kernel!r}: this kernel is not a product over features (supported kernels: "
            f"{SUPPORTED_SKLEARN_KERNELS}), so the product-kernel engine cannot explain it. {route}."
        ) from None


def _gp_kernel(kernel: Any, d: int, owner: str) -> tuple[Kernel | SumKernel | PolynomialOfSum | None, float]:
    """:func:`_from_sklearn`, or a polynomial kernel for DotProduct-based kernels (the polynomial route)."""
    if has_dot_product(kernel):
        return polynomial_from_sklearn(kernel, d), 0.0
    return _from_sklearn(kernel, d, owner)


def _check_fitted(est: Any, attrs: list[str]) -> None:
    """scikit-learn's NotFittedError when ``est`` lacks the fitted ``attrs``."""
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(est, attrs)


def _ovr_refusal(est: Any, step: str | None) -> UnsupportedModelError:
    """The refusal of a multiclass SVC whose decision_function is one-vs-rest, with both routes."""
    name = type(est).__name__
    param = "decision_function_shape" if step is None else f"{step}__decision_function_shape"
    return UnsupportedModelError(
        f"{name} with decision_function_shape='ovr' (scikit-learn's default) and {len(est.classes_)} classes: "
        "its decision_function counts the votes of the one-vs-one classifiers and adds a non-linear transform "
        "of their summed confidences, which is not a kernel expansion, so it has no exact product-kernel form. "
        f"Either explain the one-vs-one decision functions exactly (one output per pair of classes): "
        f"model.set_params({param}='ovo') (no refit needed; it only changes how decision_function combines "
        "the pairs), or explain the one-vs-rest decision_function itself by evaluating the model on "
        "coalitions: kx.RKHSExplainer(model.decision_function, background=B, game='interventional') (exact "
        "up to 12 features, sampled beyond)."
    )


def _svm_kernel(est: Any) -> Kernel | PolynomialOfSum:
    """The kernel of a fitted SVM: RBF, or linear / polynomial (the polynomial route)."""
    if est.kernel == "rbf":
        return RBF(lengthscale=1.0 / np.sqrt(2.0 * float(est._gamma)))
    if est.kernel == "linear":
        return Linear()
    if est.kernel == "poly":
        # scikit-learn resolves gamma="scale"/"auto" at fit time into _gamma
        degree = int(est.degree)
        return PolynomialOfSum([(1.0, [float(est.coef0)] * degree)], gamma=float(est._gamma))
    name = type(est).__name__
    route = route_for(name, precomputed=isinstance(est.kernel, str) and est.kernel == "precomputed")
    raise _unsupported(f"{name} with kernel={est.kernel!r} has no exact product-kernel form. {route}")


def _svm(est: Any) -> _Parts:
    """Expansion parts of a fitted SVR, NuSVR, SVC or NuSVC with an RBF, linear or polynomial kernel."""
    _check_fitted(est, ["support_vectors_", "dual_coef_"])
    kernel = _svm_kernel(est)
    sv = est.support_vectors_
    # models fitted on sparse input keep sparse support vectors and dual coefficients; an RBF
    # expansion keeps them sparse (its sparse games follow the non-zeros), the polynomial route
    # densifies
    if not (hasattr(sv, "toarray") and isinstance(kernel, Kernel)):
        sv = np.asarray(sv.toarray() if hasattr(sv, "toarray") else sv, dtype=np.float64)
    dual = np.asarray(
        est.dual_coef_.toarray() if hasattr(est.dual_coef_, "toarray") else est.dual_coef_, dtype=np.float64
    )
    intercept = np.asarray(est.intercept_, dtype=np.float64)
    name = type(est).__name__
    if name in ("SVR", "NuSVR", "OneClassSVM"):
        return sv, dual[0], kernel, float(intercept[0]), None
    classes = list(est.classes_)
    if len(classes) == 2:
        # scikit-learn exposes the binary decision function as dual_coef_ @ K + intercept_
        return sv, dual[0], kernel, float(intercept[0]), None
    if getattr(est, "decision_function_shape", "ovr") != "ovo":
        raise _ovr_refusal(est, None)
    # one-vs-one: pair (i, j) uses support vectors of classes i and j
    n_sv = np.asarray(est.n_support_)
    starts = np.concatenate([[0], np.cumsum(n_sv)])
    pairs = [(i, j) for i in range(len(classes)) for j in range(i + 1, len(classes))]
    coef = np.zeros((sv.shape[0], len(pairs)))
    for p, (i, j) in enumerate(pairs):
        si = slice(starts[i], starts[i + 1])
        sj = slice(starts[j], starts[j + 1])
        coef[si, p] = dual[j - 1, si]
        coef[sj, p] = dual[i, sj]
    names = [f"{classes[i]} vs {classes[j]}" for i, j in pairs]
    return sv, coef, kernel, intercept, names


def _kernel_ridge(est: Any) -> _Parts:
    """Expansion parts of a fitted KernelRidge."""
    _check_fitted(est, ["dual_coef_", "X_fit_"])
    X = np.asarray(est.X_fit_, dtype=np.float64)
    d = X.shape[1]
    k = est.kernel
    kernel: Kernel | SumKernel | PolynomialOfSum | None
    if isinstance(k, str):
        # scikit-learn passes est.gamma (never kernel_params) to string kernels; None means 1/d
        gamma = 1.0 / d if est.gamma is None else float(est.gamma)
        if k == "rbf":
            kernel, const = RBF(lengthscale=1.0 / np.sqrt(2.0 * gamma)), 0.0
        elif k == "laplacian":
            kernel, const = Laplacian(lengthscale=1.0 / gamma), 0.0
        elif k in ("poly", "polynomial"):
            degree = float(est.degree)
            if not degree.is_integer():
                raise _unsupported(
                    f"KernelRidge with kernel={k!r} and degree={est.degree!r}: a non-integer power of the dot "
                    "product is not a polynomial, so it has no exact form. kx.RKHSExplainer(model, "
                    "game='interventional') explains it by evaluating the model on coalitions (up to 12 features)."
                )
            kernel = PolynomialOfSum([(1.0, [float(est.coef0)] * int(degree))], gamma=gamma)
            const = 0.0
        elif k == "linear":
            kernel, const = Linear(), 0.0
        elif k == "additive_chi2":
            kernel, const = AdditiveChi2(), 0.0
        elif k == "chi2":
            if est.gamma is None:
                raise _unsupported("KernelRidge(kernel='chi2') needs an explicit gamma (scikit-learn fails without).")
            kernel, const = Chi2(gamma=float(est.gamma)), 0.0
        else:
            route = route_for("KernelRidge", precomputed=k == "precomputed")
            raise _unsupported(f"KernelRidge with kernel={k!r} has no exact product-kernel form. {route}")
    elif hasattr(k, "get_params") and hasattr(k, "theta"):
        kernel, const = _gp_kernel(k, d, "KernelRidge")
    else:
        route = route_for("KernelRidge")
        raise _unsupported(f"KernelRidge with kernel {k!r} has no exact product-kernel form. {route}")
    coef = np.asarray(est.dual_coef_, dtype=np.float64)
    intercept = const * coef.sum(axis=0)
    if kernel is None:
        raise _unsupported("KernelRidge whose kernel is constant has nothing to explain.")
    return X, coef, kernel, intercept, None


def _gpr(est: Any) -> _Parts:
    """Expansion parts of the predictive mean of a fitted GaussianProcessRegressor."""
    _check_fitted(est, ["X_train_", "alpha_"])
    X = np.asarray(est.X_train_, dtype=np.float64)
    if X.ndim != 2:
        raise _unsupported("GaussianProcessRegressor on non-vector inputs is not supported.")
    kernel, const = _gp_kernel(est.kernel_, X.shape[1], "GaussianProcessRegressor")
    alpha = np.asarray(est.alpha_, dtype=np.float64)
    std = np.atleast_1d(np.asarray(est._y_train_std, dtype=np.float64))
    mean = np.atleast_1d(np.asarray(est._y_train_mean, dtype=np.float64))
    if alpha.ndim == 2 and alpha.shape[1] == 1 and mean.size == 1:
        alpha = alpha[:, 0]
    coef = alpha * (std if alpha.ndim == 2 else std[0])
    intercepts = mean + const * np.atleast_1d(coef.sum(axis=0))
    intercept = float(intercepts[0]) if alpha.ndim == 1 else intercepts
    if kernel is None:
        raise _unsupported("GaussianProcessRegressor whose kernel is constant has nothing to explain.")
    return X, coef, kernel, intercept, None


def _binary_gpc_parts(base: Any) -> tuple[np.ndarray, Any, np.ndarray, float]:
    """(X, kernel, coef, intercept) of the latent mean of one binary Laplace GP classifier."""
    X = np.asarray(base.X_train_, dtype=np.float64)
    kernel, const = _from_sklearn(base.kernel_, X.shape[1], "GaussianProcessClassifier")
    coef = np.asarray(base.y_train_, dtype=np.float64) - np.asarray(base.pi_, dtype=np.float64)
    return X, kernel, coef, const * coef.sum()


def _gpc(est: Any) -> _Parts | list[_Parts]:
    """Expansion parts of the latent mean of a fitted GaussianProcessClassifier (one part per
    class, each with its own kernel, when the one-vs-rest classes learned different kernels)."""
    _check_fitted(est, ["base_estimator_"])
    base = est.base_estimator_
    classes = list(est.classes_)
    if hasattr(base, "estimators_"):
        if getattr(est, "multi_class", "one_vs_rest") != "one_vs_rest":
            raise _unsupported(
                "GaussianProcessClassifier with multi_class='one_vs_one' has no latent mean per class (its "
                "predict_proba averages pairwise probabilities); refit with multi_class='one_vs_rest' (the default)."
            )
        parts = [_binary_gpc_parts(b) for b in base.estimators_]
        names = [f"class {c}" for c in classes]
        for (_, kern, _, _), name in zip(parts, names):
            if kern is None:
                raise _unsupported(f"GaussianProcessClassifier: the kernel of {name} is constant; nothing to explain.")
        X = parts[0][0]
        if len({repr(p[1]) for p in parts}) == 1:
            coef = np.stack([p[2] for p in parts], axis=1)
            intercept = np.array([p[3] for p in parts])
            return X, coef, parts[0][1], intercept, names
        # each class learned its own kernel: one expansion per class, stacked (a kernel per output)
        if any(type(p[1]).__name__ == "ScaleMixtureKernel" for p in parts):
            raise _unsupported(
                "GaussianProcessClassifier with several classes whose Matern or RationalQuadratic kernels differ "
                "per class: the discretised kernels cannot share one error bound. Explain each class's binary "
                "classifier, model.base_estimator_.estimators_[k], with kx.ProductKernelExplainer (its latent "
                "mean is output k)."
            )
        return [(p[0], p[2], p[1], p[3], [name]) for p, name in zip(parts, names)]
    X, kernel, coef, const = _binary_gpc_parts(base)
    if kernel is None:
        raise _unsupported("GaussianProcessClassifier whose kernel is constant has nothing to explain.")
    return X, coef, kernel, const, None


_ESTIMATORS: dict[str, Callable[[Any], _Parts | list[_Parts]]] = {
    "SVR": _svm,
    "NuSVR": _svm,
    "SVC": _svm,
    "NuSVC": _svm,
    "KernelRidge": _kernel_ridge,
    "GaussianProcessRegressor": _gpr,
    "GaussianProcessClassifier": _gpc,
}


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

"""The expansion parts of each supported scikit-learn estimator (the adapters of
:func:`kexplain.models.sklearn.as_kernel_expansion`): SVR, NuSVR, SVC and NuSVC, KernelRidge,
GaussianProcessRegressor and GaussianProcessClassifier, each read from its fitted attributes,
and the refusals that name what is supported (``SUPPORTED_MODELS``) and the route that works.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..exceptions import UnsupportedModelError
from ..kernels.base import RBF, Kernel, Laplacian, SumKernel
from ..kernels.chi2 import Chi2
from ..kernels.dot_product import AdditiveChi2, Linear, PolynomialOfSum, has_dot_product, polynomial_from_sklearn
from ..kernels.sklearn import SUPPORTED_SKLEARN_KERNELS, from_sklearn
from ._routes import route_for

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

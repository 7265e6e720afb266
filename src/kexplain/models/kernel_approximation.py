"""scikit-learn kernel-approximation pipelines as exact kernel expansions.

``Nystroem`` maps x to phi(x) = k(x, C) N^T with C its landmarks (``components_``) and N its
``normalization_`` matrix; a linear model on top outputs phi(x) w + b = k(x, C) (N^T w) + b, a kernel
expansion over the landmarks with coefficients N^T w: exact, with no approximation of our own
(the approximation of the kernel is the model's; we explain the model as fitted).  ``RBFSampler``
(random Fourier features cos(w.x + b)) is refused: its features are cosines of linear forms, not
positive products over features, so it is not a product kernel on the inputs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import UnsupportedModelError
from ..kernels.base import RBF, Laplacian

#: linear models accepted after a Nystroem step, and the output explained
LINEAR_MODELS = {
    "Ridge": "predict",
    "LinearRegression": "predict",
    "SGDRegressor": "predict",
    "LinearSVR": "predict",
    "RidgeClassifier": "decision_function",
    "LogisticRegression": "decision_function",
    "LinearSVC": "decision_function",
    "SGDClassifier": "decision_function",
}

APPROXIMATION_ROUTE = (
    "kx.RKHSExplainer(model.predict, background=B, game='interventional') (or model.decision_function for a "
    "classifier) explains the pipeline exactly by evaluating it on coalitions: exact up to 12 features, sampled "
    "with standard errors beyond"
)


def is_kernel_approximation(step: Any) -> bool:
    """Whether a Pipeline step is a scikit-learn kernel approximation (Nystroem, RBFSampler, ...).

    Examples
    --------
    >>> from sklearn.kernel_approximation import Nystroem
    >>> from sklearn.preprocessing import StandardScaler
    >>> is_kernel_approximation(Nystroem()), is_kernel_approximation(StandardScaler())
    (True, False)
    """
    return type(step).__module__.startswith("sklearn.kernel_approximation")


def nystroem_parts(approx: Any, est: Any) -> tuple[np.ndarray, np.ndarray, Any, Any, list[str] | None]:
    """(landmarks, coefficients, kernel, intercept, output names) of ``Nystroem`` + linear model.

    Parameters
    ----------
    approx : fitted Nystroem
    est : fitted linear model (see :data:`LINEAR_MODELS`)

    Returns
    -------
    tuple
        f(x) = kernel(x, landmarks) @ coefficients + intercept.

    Raises
    ------
    UnsupportedModelError
        For RBFSampler, other kernels and non-linear final estimators, with the route that works.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.kernel_approximation import Nystroem
    >>> from sklearn.linear_model import Ridge
    >>> X = np.random.default_rng(0).normal(size=(30, 2))
    >>> nys = Nystroem(n_components=10, random_state=0).fit(X)
    >>> ridge = Ridge().fit(nys.transform(X), X[:, 0])
    >>> C, coef, kernel, b, _ = nystroem_parts(nys, ridge)
    >>> bool(np.allclose(kernel(X[:3], C) @ coef + b, ridge.predict(nys.transform(X[:3]))))
    True
    """
    from sklearn.utils.validation import check_is_fitted

    name, est_name = type(approx).__name__, type(est).__name__
    if name != "Nystroem":
        why = (
            "its random Fourier features cos(w.x + b) are cosines of linear forms of all features, not positive "
            "products over features, so the pipeline is no product-kernel expansion"
            if name == "RBFSampler"
            else "it is not a Nystroem approximation of a product kernel"
        )
        raise UnsupportedModelError(f"a Pipeline with {name}: {why}. {APPROXIMATION_ROUTE}.")
    if est_name not in LINEAR_MODELS:
        raise UnsupportedModelError(
            f"a Pipeline with Nystroem followed by {est_name}: only a linear model ({', '.join(LINEAR_MODELS)}) "
            f"after Nystroem keeps a kernel expansion. {APPROXIMATION_ROUTE}."
        )
    check_is_fitted(approx, ["components_", "normalization_"])
    check_is_fitted(est, ["coef_", "intercept_"])
    C = np.asarray(approx.components_, dtype=np.float64)
    d = C.shape[1]
    kernel_name = approx.kernel
    if kernel_name not in ("rbf", "laplacian") or approx.kernel_params:
        raise UnsupportedModelError(
            f"Nystroem(kernel={kernel_name!r}): supported are kernel='rbf' and 'laplacian' (with gamma). "
            f"{APPROXIMATION_ROUTE}."
        )
    # scikit-learn's pairwise kernels default gamma to 1 / n_features
    gamma = 1.0 / d if approx.gamma is None else float(approx.gamma)
    kernel = RBF(lengthscale=1.0 / np.sqrt(2.0 * gamma)) if kernel_name == "rbf" else Laplacian(lengthscale=1.0 / gamma)
    N = np.asarray(approx.normalization_, dtype=np.float64)
    w = np.asarray(est.coef_, dtype=np.float64)
    b = np.atleast_1d(np.asarray(est.intercept_, dtype=np.float64))
    if w.ndim == 1 or w.shape[0] == 1:
        coef = N.T @ w.reshape(-1)
        return C, coef, kernel, float(b[0]), None
    coef = N.T @ w.T  # (landmarks, outputs)
    classes = getattr(est, "classes_", None)
    names = None if classes is None else [f"class {c}" for c in classes]
    return C, coef, kernel, b, names

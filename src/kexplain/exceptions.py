"""Exceptions raised by kexplain."""


class UnsupportedModelError(TypeError, ValueError):
    """The model (or its kernel or preprocessing) has no exact product-kernel form.

    The message says what is supported and, where one exists, which other explainer applies.
    It is both a TypeError and a ValueError, so handlers of either catch it.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.svm import SVR
    >>> import kexplain as kx
    >>> model = SVR(kernel="sigmoid").fit(np.eye(3), [0.0, 1.0, 2.0])
    >>> try:
    ...     kx.models.as_kernel_expansion(model)
    ... except kx.UnsupportedModelError as exc:
    ...     print(str(exc)[:59])
    SVR with kernel='sigmoid' has no exact product-kernel form.
    """


class AccuracyWarning(UserWarning):
    """A result could not be computed to the requested accuracy in double precision.

    Raised as a warning (never silently): the message names the cause (for a Gaussian-process
    posterior, the condition number of its training system) and the result records the bound it
    reached (for stochastic Shapley values, ``info["variance_error_bound"]``).

    Examples
    --------
    >>> import warnings
    >>> from kexplain.exceptions import AccuracyWarning
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warnings.warn("variance known to 1e-9 only", AccuracyWarning)
    >>> caught[0].category.__name__
    'AccuracyWarning'
    """


# the libraries whose models kexplain does not read (yet) and how to explain their output anyway
_FOREIGN_ROUTES = {
    "gpytorch": "lambda X: model(torch.as_tensor(X)).mean.detach().numpy()  # model.eval() first",
    "botorch": "lambda X: model.posterior(torch.as_tensor(X)).mean.squeeze(-1).detach().numpy()",
    "torch": "lambda X: model(torch.as_tensor(X)).detach().numpy()",
    "gpflow": "lambda X: model.predict_f(X)[0].numpy()",
    "tensorflow": "lambda X: model(X).numpy()",
    "keras": "lambda X: model(X).numpy()",
    "jax": "lambda X: np.asarray(model(X))",
}


def foreign_model_error(model: object) -> UnsupportedModelError | None:
    """A clear error for a model of a library kexplain does not read, or None for other models.

    Without it, such a model fails inside its own library (GPyTorch's AttributeError on NumPy
    input, say) with nothing that says what kexplain supports.  The error names the library and
    the route that works: a NumPy prediction function explained model-agnostically.

    Parameters
    ----------
    model : object

    Returns
    -------
    UnsupportedModelError or None

    Examples
    --------
    >>> from kexplain.exceptions import foreign_model_error
    >>> foreign_model_error(object()) is None
    True
    """
    libraries = [c.__module__.split(".")[0] for c in type(model).__mro__]
    library = next((lib for lib in _FOREIGN_ROUTES if lib in libraries), None)
    if library is None:
        return None
    return UnsupportedModelError(
        f"{type(model).__name__} is a {library} model, which kexplain does not read directly: its exact explainers "
        "take scikit-learn's SVMs, KernelRidge and Gaussian processes (kx.models.SUPPORTED_MODELS) and kexplain's own "
        f"models. Explain its output through a NumPy prediction function instead, e.g. f = {_FOREIGN_ROUTES[library]}, "
        "then kx.RKHSExplainer(f, background=B, game='interventional') (exact up to 12 features, sampled beyond)."
    )

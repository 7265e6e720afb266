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
    >>> model = SVR(kernel="poly").fit(np.eye(3), [0.0, 1.0, 2.0])
    >>> try:
    ...     kx.models.as_kernel_expansion(model)
    ... except kx.UnsupportedModelError as exc:
    ...     print(str(exc)[:56])
    SVR with kernel='poly' has no exact product-kernel form.
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

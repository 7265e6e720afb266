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

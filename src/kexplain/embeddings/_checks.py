"""Checks of the kernel matrices the embedding estimators take or compute, naming the argument.

Data arrays go through the one entry, :func:`kexplain._validation.check_data` (with
``estimator=True``: the phrases scikit-learn's estimator checks look for, "Reshape your data",
"0 sample(s)", "0 feature(s)", "Complex data not supported", "NaN", with the argument named), and
options through :mod:`kexplain._params`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import MAGNITUDE_LIMIT, to_array


def check_matrix(
    M: Any, name: str, *, shape: tuple[int | None, int | None] = (None, None), square: bool = False, what: str = ""
) -> np.ndarray:
    """A finite 2-D float64 matrix (a Gram or cross-kernel matrix), or an error naming ``name``.

    ``shape``: the numbers of rows and columns required (None: any); ``square``: rows == columns;
    ``what`` says what the rows must match, for the message.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.embeddings._checks import check_matrix
    >>> check_matrix(np.eye(2), "K", square=True).shape
    (2, 2)
    >>> try:
    ...     check_matrix(np.ones((2, 3)), "K", square=True)
    ... except ValueError as exc:
    ...     print(exc)
    K must be a square (n, n) matrix, got shape (2, 3).
    """
    if M is None:
        raise ValueError(f"{name} is required, got None.")
    arr = to_array(M, name)
    if arr.dtype.kind == "c":
        raise ValueError(f"{name} has complex values; kernel matrices are real.")
    try:
        arr = np.asarray(arr, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a matrix of numbers, got dtype {arr.dtype}.") from None
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D matrix, got shape {arr.shape}.")
    if square and arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name} must be a square (n, n) matrix, got shape {arr.shape}.")
    for axis, (want, label) in enumerate(zip(shape, ("rows", "columns"))):
        if want is not None and arr.shape[axis] != want:
            extra = f" ({what})" if what else ""
            raise ValueError(
                f"{name} has {arr.shape[axis]} {label}, but {want} are needed{extra}; got shape {arr.shape}."
            )
    if not np.all(np.isfinite(arr)):
        at = [int(i) for i in np.argwhere(~np.isfinite(arr))[0]]
        raise ValueError(f"{name} contains NaN or infinite values (row {at[0]}, column {at[1]}).")
    big = max(float(arr.max()), -float(arr.min())) if arr.size else 0.0  # no |arr| temporary
    if big > MAGNITUDE_LIMIT:
        raise ValueError(
            f"{name} has values as large as {big:.3g}; products of them overflow float64: "
            f"a kernel matrix is bounded by its diagonal (rescale the kernel's amplitude)."
        )
    return arr


def check_gram_output(G: Any, kernel_name: str, shape: tuple[int, int], rows: str) -> np.ndarray:
    """The Gram matrix a user's kernel callable returned: finite, of the asked shape, or an error
    naming the kernel parameter.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.embeddings._checks import check_gram_output
    >>> try:
    ...     check_gram_output(np.full((1, 1), np.nan), "kernel", (1, 1), "X")
    ... except ValueError as exc:
    ...     print(str(exc)[:56])
    kernel returned NaN or infinite values (row 0, column 0)
    """
    arr = np.asarray(G)
    if arr.shape != shape or arr.dtype.kind not in "biuf":
        raise ValueError(
            f"{kernel_name} must return a real (len(A), len(B)) Gram matrix; for the rows of {rows} it returned "
            f"{'shape ' + str(arr.shape) if arr.shape != shape else 'dtype ' + str(arr.dtype)} instead of {shape}."
        )
    arr = np.asarray(arr, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        at = [int(i) for i in np.argwhere(~np.isfinite(arr))[0]]
        raise ValueError(
            f"{kernel_name} returned NaN or infinite values (row {at[0]}, column {at[1]}) for the rows of {rows}; "
            "a kernel must give finite numbers."
        )
    return arr

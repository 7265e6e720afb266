"""Scipy sparse input: recognised, validated and returned in canonical CSR form.

:func:`kexplain._validation.check_data` calls :func:`check_sparse_data` for its ``sparse="keep"``
policy.  Import the names from :mod:`kexplain._validation`, the one validation entry.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def is_sparse(X: Any) -> bool:
    """Whether ``X`` is a scipy sparse matrix or array.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> from kexplain._validation import is_sparse
    >>> is_sparse(sparse.csr_matrix(np.eye(2))), is_sparse(np.eye(2))
    (True, False)
    """
    return hasattr(X, "toarray") and hasattr(X, "nnz") and hasattr(X, "tocsr")


def check_sparse_data(X: Any, *, name: str = "X", n_features: int | None = None, min_rows: int = 1) -> Any:
    """A scipy sparse matrix validated and returned in canonical CSR form (float64).

    CSC, COO and the other formats are converted to CSR (a copy; the input is never changed).
    Duplicate entries are summed (as ``toarray`` does), explicitly stored zeros are dropped and
    column indices sorted, so the non-zeros are exactly the stored entries.

    Parameters
    ----------
    X : scipy sparse matrix or array of shape (n, d)
    name : str
        What ``X`` is called in messages.
    n_features : int, optional
        The number of features the model expects.
    min_rows : int
        The fewest rows accepted.

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n, d)

    Raises
    ------
    ValueError
        Naming ``name`` for complex or non-numeric entries, too few rows, a wrong number of
        features, NaN or infinite stored values (row and column named).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> from kexplain._validation import check_sparse_data
    >>> M = sparse.coo_matrix(([1.0, 0.0, 2.0], ([0, 0, 1], [2, 1, 0])), shape=(2, 3))
    >>> check_sparse_data(M).nnz
    2
    >>> try:
    ...     check_sparse_data(sparse.csr_matrix([[0.0, np.inf]]), name="background")
    ... except ValueError as exc:
    ...     print(exc)
    background contains NaN or infinite values at (row 0, column 1).
    """
    from scipy import sparse as sp

    kind = np.dtype(X.dtype).kind
    if kind == "c":
        raise ValueError(f"{name} has complex values; kernels here take real numbers.")
    if kind not in "biuf":
        raise ValueError(f"{name} must hold numbers, got a sparse matrix of dtype {X.dtype}.")
    if len(X.shape) != 2:
        raise ValueError(f"{name} must be a 2-D sparse matrix (n_samples, n_features), got shape {X.shape}.")
    M = sp.csr_matrix(X, dtype=np.float64, copy=True)
    n, d = M.shape
    if n < min_rows:
        raise ValueError(f"{name} must have at least {min_rows} row(s), got {n}.")
    if n_features is not None and d != n_features:
        raise ValueError(f"{name} has {d} features, but the model expects {n_features}.")
    M.sum_duplicates()
    bad = np.flatnonzero(~np.isfinite(M.data))
    if bad.size:
        row = int(np.searchsorted(M.indptr, bad[0], side="right") - 1)
        raise ValueError(f"{name} contains NaN or infinite values at (row {row}, column {int(M.indices[bad[0]])}).")
    M.eliminate_zeros()
    return M

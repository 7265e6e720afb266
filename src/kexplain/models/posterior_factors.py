"""The numerical parts of a GPPosterior: the factors of its precision and their rounding constants.

A posterior's data term k(x, X) A k(X, x') is computed from a factor of A, never from an
explicit inverse: ``precision`` (A itself) is symmetrised and factored as A = F^T F through its
eigen-decomposition (``_precision_factor``); ``cholesky`` (a lower-triangular L with
A = D (L L^T)^{-1} D) is checked and kept (``_cholesky_factor``).  Each also gives the norm
bound and the condition number that ``GPPosterior.error_radius`` and the accuracy warnings
(:mod:`kexplain.models.posterior_accuracy`) use.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import to_array


def _real_array(x: Any, name: str) -> np.ndarray:
    """``x`` as a float64 array, refusing complex, text and ragged input by ``name``."""
    arr = to_array(x, name)
    if arr.dtype.kind == "c":
        raise ValueError(f"{name} must hold real numbers, got complex values.")
    try:
        return arr.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must hold real numbers, got values of type {arr.dtype} such as text.") from None


#: unit roundoff of float64
_EPS = float(np.finfo(np.float64).eps) / 2
#: safety factor of the rounding bounds (Cholesky, two triangular solves and the kernel values)
_BOUND_FACTOR = 8.0


def _triangular_condition(L: np.ndarray) -> float:
    """LAPACK's estimate of the 1-norm condition number of a lower-triangular matrix (inf if singular)."""
    from scipy.linalg import lapack

    if L.shape[0] == 0:
        return 1.0
    rcond, info = lapack.dtrcon(np.asfortranarray(L), norm="1", uplo="L", diag="N")
    return float("inf") if info != 0 or rcond <= 0 else float(1.0 / rcond)


def _precision_factor(precision: Any, n: int) -> tuple[np.ndarray, np.ndarray, float, float]:
    """Check ``precision`` (the matrix A, shape (n, n)) and factor it as A = F^T F.

    Returns A symmetrised, F = sqrt(Lambda) Q^T from A's eigen-decomposition (the data term is
    then a sum of squares, never negative), a bound on ||A||_2 (its largest eigenvalue) and the
    condition number on the positive eigenvalues.

    Examples
    --------
    >>> from kexplain.models.posterior_factors import _precision_factor
    >>> A, F, norm, cond = _precision_factor([[4.0, 0.0], [0.0, 1.0]], 2)
    >>> F.round(3), norm, cond
    (array([[0., 1.],
           [2., 0.]]), 4.0, 4.0)
    """
    A = _real_array(precision, "precision")
    if A.shape != (n, n):
        raise ValueError(f"precision must have shape ({n}, {n}) for {n} training rows, got shape {A.shape}.")
    if not np.all(np.isfinite(A)):
        raise ValueError("precision contains NaN or infinite values.")
    scale = A.max() if A.size else 0.0
    if not np.allclose(A, A.T, rtol=1e-8, atol=1e-12 * max(1.0, abs(float(scale)))):
        raise ValueError("precision must be a symmetric matrix.")
    A = 0.5 * (A + A.T)
    # A = F^T F with F = sqrt(Lambda) Q^T: the data term is then a sum of squares (never negative)
    lam, Q = np.linalg.eigh(A) if n else (np.zeros(0), np.zeros((0, 0)))
    top = float(lam.max()) if n else 0.0
    if n and lam.min() < -1e-8 * max(top, 0.0) - 1e-300:
        raise ValueError(
            f"precision must be positive semi-definite, got an eigenvalue {lam.min():.3g} (largest {top:.3g})."
        )
    F = np.sqrt(np.clip(lam, 0.0, None))[:, None] * Q.T
    pos = lam[lam > 0]
    return A, F, max(top, 0.0), float(top / pos.min()) if pos.size else 1.0


def _cholesky_factor(cholesky: Any, cholesky_scale: Any, n: int) -> tuple[np.ndarray, np.ndarray | None, float, float]:
    """Check ``cholesky`` (a lower-triangular L, A = D (L L^T)^{-1} D) and ``cholesky_scale`` (D's diagonal).

    Returns L, D (None without ``cholesky_scale``), a bound on ||L L^T||_2 (||L||_F^2, as
    ||L L^T||_F <= ||L||_F^2) and the estimated condition number of L L^T.

    Examples
    --------
    >>> from kexplain.models.posterior_factors import _cholesky_factor
    >>> L, D, norm, cond = _cholesky_factor([[2.0, 0.0], [1.0, 1.0]], None, 2)
    >>> D is None, norm
    (True, 6.0)
    """
    L = _real_array(cholesky, "cholesky")
    if L.shape != (n, n):
        raise ValueError(f"cholesky must have shape ({n}, {n}) for {n} training rows, got shape {L.shape}.")
    if not np.all(np.isfinite(L)):
        raise ValueError("cholesky contains NaN or infinite values.")
    if np.any(np.triu(L, 1)):
        raise ValueError("cholesky must be lower triangular (the factor L of A = D (L L^T)^{-1} D).")
    diag = np.diag(L)
    if n and not np.all(diag > 0):
        raise ValueError("cholesky must have a positive diagonal (a Cholesky factor of a positive definite matrix).")
    D = None
    if cholesky_scale is not None:
        D = _real_array(cholesky_scale, "cholesky_scale")
        if D.shape != (n,) or not np.all(np.isfinite(D)) or np.any(D < 0):
            raise ValueError(f"cholesky_scale must hold {n} finite non-negative numbers, got shape {D.shape}.")
    return L, D, float(np.sum(L * L)), _triangular_condition(L) ** 2

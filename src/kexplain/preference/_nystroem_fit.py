"""The numerical fit of :class:`~kexplain.preference.PreferenceClassifier`: Nystroem features of
the landmark duels and the no-intercept L2 logistic regression on the duels and their flips (Newton's
method), with the float checks of its options.  Every name here is still imported from
``kexplain.preference.estimators``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.special import expit

from .._validation import to_array

#: relative eigenvalue threshold of the landmark Gram matrix (smaller directions are dropped)
_EIG_RTOL = 1e-10


def _float_array(value: Any, name: str, what: str) -> np.ndarray:
    """``value`` as a float64 array, or a ValueError naming ``name`` (complex, text, ragged ...)."""
    arr = to_array(value, name)
    if arr.dtype.kind not in "biuf" or (arr.dtype.kind == "b" and arr.ndim == 0):
        raise ValueError(f"{name} must be {what}, got {value!r}.")
    return arr.astype(np.float64)


def _landmark_map(E: np.ndarray) -> np.ndarray:
    """M with features K_{x,landmarks} M: M = U diag(s^-1/2) over eigenvalues above the threshold."""
    s, U = np.linalg.eigh((E + E.T) / 2)
    keep = s > max(float(s.max()), 0.0) * _EIG_RTOL
    if not keep.any():
        return np.zeros((E.shape[0], 1))
    return U[:, keep] / np.sqrt(s[keep])


def _fit_flipped(
    Phi: np.ndarray, y01: np.ndarray, C: float, max_iter: int, tol: float, w0: np.ndarray | None = None
) -> np.ndarray:
    """Weights w of the no-intercept L2 logistic regression on the duels and their flips.

    Minimises 0.5 |w|^2 + C sum over the duels and their flipped copies ((-phi, 1 - y)) of the
    logistic loss (scikit-learn's LogisticRegression objective).  A flipped copy has exactly the
    loss of its original (the features are skew-symmetric), so the sum is twice the sum over the
    duels; it is minimised by Newton's method with a backtracking line search (k <= a few hundred
    features, so each step is one k x k Cholesky solve).
    """
    s = 2.0 * y01 - 1.0
    c = 2.0 * C
    k = Phi.shape[1]
    w = np.zeros(k) if w0 is None else w0.copy()

    def objective(v: np.ndarray) -> tuple[float, np.ndarray]:
        z = s * (Phi @ v)
        return 0.5 * float(v @ v) + c * float(np.logaddexp(0.0, -z).sum()), z

    f, z = objective(w)
    for _ in range(max_iter):
        p = expit(-z)
        grad = w - c * (Phi.T @ (s * p))
        H = Phi.T @ (Phi * (c * p * (1.0 - p))[:, None])
        H[np.diag_indices(k)] += 1.0
        step = cho_solve(cho_factor(H), grad)
        decrement = float(grad @ step)
        if decrement / 2 <= tol * max(1.0, abs(f)):
            break
        t = 1.0
        while True:
            w_new = w - t * step
            f_new, z_new = objective(w_new)
            if f_new <= f - 0.25 * t * decrement or t < 1e-10:
                break
            t *= 0.5
        w, f, z = w_new, f_new, z_new
    return w

"""The exponential chi-squared kernel, a product over features (scikit-learn's ``chi2``)."""

from __future__ import annotations

from numbers import Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .base import Kernel, _check_amplitude


def _chi2_terms(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """(x - y)^2 / (x + y) per feature, 0 where x + y = 0 (as scikit-learn computes it)."""
    diff = X[:, None, :] - Y[None, :, :]
    tot = X[:, None, :] + Y[None, :, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(tot != 0, diff**2 / np.where(tot != 0, tot, 1.0), 0.0)


class Chi2(Kernel):
    """amplitude * exp(-gamma sum_j (x_j - y_j)^2 / (x_j + y_j)), for non-negative inputs.

    A product over features of exp(-gamma_j (x_j - y_j)^2 / (x_j + y_j)) (scikit-learn's
    ``chi2_kernel``; its ``additive_chi2`` is :class:`kexplain.kernels.AdditiveChi2`), so its
    models are explained exactly by the product-kernel engine.  It is not translation
    invariant: a Pipeline's scaler folds into it only when it multiplies without shifting.

    Parameters
    ----------
    gamma : float or array of shape (d,)
        Positive weight, or one per feature.
    amplitude : float
        Positive factor in front.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.kernels import Chi2
    >>> X = np.array([[1.0, 0.0], [3.0, 2.0]])
    >>> np.round(Chi2(gamma=0.5)(X), 3)
    array([[1.   , 0.223],
           [0.223, 1.   ]])
    """

    translation_invariant = False

    def __init__(self, gamma: float | ArrayLike = 1.0, amplitude: float = 1.0) -> None:
        g = np.asarray(gamma, dtype=np.float64) if not isinstance(gamma, (bool, np.bool_)) else np.asarray(np.nan)
        if g.ndim > 1 or not np.all(np.isfinite(g)) or np.any(g <= 0):
            raise ValueError(f"gamma must be a positive finite number or a 1-D array of them, got {gamma!r}.")
        self.gamma: float | np.ndarray = float(g) if g.ndim == 0 else g
        self.amplitude = _check_amplitude(amplitude)

    @property
    def n_features(self) -> int | None:
        """Number of features when gamma has one entry per feature, else None."""
        return None if np.ndim(self.gamma) == 0 else int(np.size(self.gamma))

    def feature_values(self, X: ArrayLike, Y: ArrayLike) -> np.ndarray:
        """exp(-gamma_j (x_j - y_j)^2 / (x_j + y_j)), shape (len(X), len(Y), d).

        Parameters
        ----------
        X : ndarray of shape (n, d)
            Rows (validated).
        Y : ndarray of shape (m, d)
            Rows to compare them with.

        Returns
        -------
        ndarray of shape (n, m, d)
            The per-feature values k_j(X_pj, Y_rj), without the amplitude.
        """
        Xa, Ya = np.asarray(X, dtype=np.float64), np.asarray(Y, dtype=np.float64)
        if np.any(Xa < 0) or np.any(Ya < 0):
            raise ValueError("the chi-squared kernel needs non-negative input (as scikit-learn's chi2_kernel).")
        return np.exp(-_chi2_terms(Xa, Ya) * self.gamma)

    def rescaled(self, scale: ArrayLike) -> Kernel:
        """The kernel seen from x with x_scaled = scale * x: gamma_j becomes gamma_j * scale_j (scale > 0).

        Parameters
        ----------
        scale : ndarray of shape (d,)
            Per-feature factor of a scaler without shift, x_scaled = scale * x (positive).

        Returns
        -------
        Kernel
            The kernel that gives, on the unscaled inputs, the values this kernel gives on the
            scaled ones.
        """
        s = np.asarray(scale, dtype=np.float64)
        if np.any(s <= 0) or not np.all(np.isfinite(s)):
            raise ValueError("the chi-squared kernel can only be rescaled by positive finite factors.")
        return Chi2(gamma=np.asarray(self.gamma) * s * np.ones_like(s), amplitude=self.amplitude)

    def __mul__(self, other: Any) -> Any:
        if isinstance(other, Real) and not isinstance(other, bool):
            return Chi2(gamma=self.gamma, amplitude=_check_amplitude(self.amplitude * float(other)))
        return NotImplemented

    __rmul__ = __mul__

    def __repr__(self) -> str:
        g = np.round(self.gamma, 4) if np.ndim(self.gamma) else f"{self.gamma:.4g}"
        amp = "" if self.amplitude == 1.0 else f", amplitude={self.amplitude:.4g}"
        return f"Chi2(gamma={g}{amp})"

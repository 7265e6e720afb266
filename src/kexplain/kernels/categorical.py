"""The categorical kernel: 1 for equal labels, ``mismatch`` otherwise, on any hashable labels.

Every name is imported from :mod:`kexplain.kernels.base`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._params import Real as RealNumber
from .._params import check_param
from ._gram import _mismatch_gram
from .kernel import PAIR_DELTA, Kernel, PairParams, _check_amplitude


class Categorical(Kernel):
    """1 for equal categories, ``mismatch`` (in [0, 1)) otherwise; any hashable labels.

    Parameters
    ----------
    mismatch : float
        Kernel value between different labels, in [0, 1).
    amplitude : float
        Positive factor in front of the product.
    n_features : int, optional
        Number of features it is defined on; None adapts to any number.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.kernels import Categorical
    >>> X = np.array([["red"], ["blue"], ["red"]], dtype=object)
    >>> Categorical(mismatch=0.25)(X)
    array([[1.  , 0.25, 1.  ],
           [0.25, 1.  , 0.25],
           [1.  , 0.25, 1.  ]])
    """

    numeric = False

    def __init__(self, mismatch: float = 0.0, amplitude: float = 1.0, n_features: int | None = None) -> None:
        value = float(check_param(mismatch, "mismatch", RealNumber(0, 1, closed="left")))
        if n_features is not None and (not isinstance(n_features, (int, np.integer)) or n_features < 1):
            raise ValueError(f"n_features must be a positive integer or None, got {n_features!r}.")
        self.mismatch: float = value
        self.amplitude = _check_amplitude(amplitude)
        self._n_features: int | None = None if n_features is None else int(n_features)

    @property
    def n_features(self) -> int | None:
        """The number of features given at construction, or None."""
        return self._n_features

    def feature_values(self, X: ArrayLike, Y: ArrayLike) -> np.ndarray:
        """1.0 where labels are equal and ``mismatch`` elsewhere, shape (len(X), len(Y), d).

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
        Xa = np.asarray(X)
        Ya = np.asarray(Y)
        eq = Xa[:, None, :] == Ya[None, :, :]
        return np.where(eq, 1.0, self.mismatch)

    def _unit_gram(self, X: np.ndarray, Y: np.ndarray, same: bool) -> np.ndarray:
        """``mismatch ** (number of features whose labels differ)``, from integer label codes."""
        return _mismatch_gram([(np.asarray(X), np.asarray(Y), self.mismatch)], len(X), len(Y))

    def pair_values(self, P: np.ndarray, Q: np.ndarray) -> np.ndarray:
        """1.0 where the matched labels are equal, else ``mismatch``, shape (r, d).

        Parameters
        ----------
        P : ndarray of shape (r, d)
            Rows of the first sample.
        Q : ndarray of shape (r, d)
            Rows of the second sample, matched to those of ``P`` row by row.

        Returns
        -------
        ndarray of shape (r, d)
            The per-feature values k_j(P_ij, Q_ij), without the amplitude.
        """
        return np.where(np.asarray(P) == np.asarray(Q), 1.0, self.mismatch)

    def pair_loop_params(self, d: int) -> PairParams | None:
        """The delta code and ``mismatch`` per feature (see :meth:`Kernel.pair_loop_params`).

        Parameters
        ----------
        d : int
            Number of features.

        Returns
        -------
        tuple of ndarray or None
            (codes, inverse lengthscales, mismatches), one entry per feature, or None for the numpy
            pair path.
        """
        return np.full(d, PAIR_DELTA, np.int64), np.ones(d), np.full(d, self.mismatch)

    def rescaled(self, scale: ArrayLike) -> Kernel:
        """The same kernel: a nonzero affine map keeps equal labels equal and others different.

        Parameters
        ----------
        scale : ndarray of shape (d,)
            Per-feature factor of an affine scaler, x_scaled = scale * x + shift.

        Returns
        -------
        Kernel
            The kernel that gives, on the unscaled inputs, the values this kernel gives on the
            scaled ones.
        """
        # an affine map with nonzero scale keeps equal labels equal and different ones different
        if np.any(np.asarray(scale) == 0):
            raise ValueError("a Categorical feature cannot be scaled by zero.")
        return self._copy()

    def __repr__(self) -> str:
        amp = "" if self.amplitude == 1.0 else f", amplitude={self.amplitude:.4g}"
        return f"Categorical(mismatch={self.mismatch:.4g}{amp})"

"""The delta kernel 1[x = y] on integer category codes made orthogonal to the category frequencies
(the base kernel of a categorical feature of an OAK model).  Imported from ``kexplain.gp.kernels``
(see there for the construction) and ``kexplain.gp``."""

from __future__ import annotations

from typing import Any

import numpy as np


class ConstrainedCategorical:
    """Delta kernel 1[x = y] on codes 0..L-1 made orthogonal to the category probabilities.

    The base kernel of a categorical feature of an OAK model under its discrete measure.  Codes
    outside 0..L-1 (categories not seen in training) have k(x, y) = 0 for y != x, so they get
    m(x) = 0 and a zero constrained kernel against every seen category.  It has no lengthscale
    (``l`` is accepted and ignored).

    Parameters
    ----------
    probs : array-like of shape (L,)
        Probability of each category code.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.gp import ConstrainedCategorical
    >>> k = ConstrainedCategorical([0.25, 0.75])
    >>> k.k([0, 1], [0, 1])
    array([[ 0.9, -0.3],
           [-0.3,  0.1]])
    >>> bool(np.allclose(k.probs @ k.k([0, 1], [0, 1]), 0.0))   # integrates to zero
    True
    """

    has_lengthscale = False

    def __init__(self, probs: Any) -> None:
        p = np.asarray(probs, dtype=np.float64)
        if p.ndim != 1 or p.size < 1 or np.any(p < 0) or not np.isclose(p.sum(), 1.0):
            raise ValueError("probs must be a 1-D probability vector over the categories.")
        self.probs = p
        self.v = float(p @ p)

    def _codes(self, x: Any) -> np.ndarray:
        return np.asarray(x, dtype=np.float64).astype(np.int64)

    def _m(self, x: Any) -> np.ndarray:
        c = self._codes(x)
        ok = (c >= 0) & (c < self.probs.size)
        return np.where(ok, self.probs[np.clip(c, 0, self.probs.size - 1)], 0.0)

    def k(self, x: Any, y: Any, l: float | None = None) -> np.ndarray:
        """Constrained kernel matrix k~(x_a, y_b), shape (len(x), len(y)).

        Parameters
        ----------
        x : array-like of shape (n,)
            Values of the feature.
        y : array-like of shape (m,)
            Values of the feature to compare them with.
        l : float, optional
            Ignored: the kernel has no lengthscale (kept for the common signature).

        Returns
        -------
        ndarray of shape (n, m)
            The constrained kernel matrix.
        """
        cx, cy = self._codes(x), self._codes(y)
        return (cx[:, None] == cy[None, :]).astype(np.float64) - np.outer(self._m(x), self._m(y)) / self.v

    def dk_dlog_l(self, x: Any, y: Any, l: float | None = None) -> np.ndarray:
        """Zero: the kernel has no lengthscale.

        Parameters
        ----------
        x : array-like of shape (n,)
            Values of the feature.
        y : array-like of shape (m,)
            Values of the feature to compare them with.
        l : float, optional
            Ignored: the kernel has no lengthscale (kept for the common signature).

        Returns
        -------
        ndarray of shape (n, m)
            The derivative of ``k(x, y, l)`` with respect to log l.
        """
        return np.zeros((len(x), len(y)))

    def diag(self, x: Any, l: float | None = None) -> np.ndarray:
        """k~(x_a, x_a) for each a.

        Parameters
        ----------
        x : array-like of shape (n,)
            Values of the feature.
        l : float, optional
            Ignored: the kernel has no lengthscale (kept for the common signature).

        Returns
        -------
        ndarray of shape (n,)
            The diagonal of ``k(x, x, l)``.
        """
        return 1.0 - self._m(x) ** 2 / self.v

    def levels(self) -> np.ndarray:
        """The category codes 0..L-1 (the support of the measure), as floats.

        Returns
        -------
        ndarray of shape (L,)
            The category codes 0..L-1, as floats.
        """
        return np.arange(self.probs.size, dtype=np.float64)

    def gamma(self, a: Any, b: Any, l: float | None = None) -> np.ndarray:
        """sum_c p_c k~(c, a) k~(c, b): shape (len(a), len(b)).

        Parameters
        ----------
        a : array-like of shape (n,)
            Values of the feature.
        b : array-like of shape (m,)
            Values of the feature.
        l : float, optional
            Ignored: the kernel has no lengthscale (kept for the common signature).

        Returns
        -------
        ndarray of shape (n, m)
            The integral of k~(s, a) k~(s, b) under the input measure.
        """
        ka = self.k(self.levels(), a)
        kb = self.k(self.levels(), b)
        return (ka * self.probs[:, None]).T @ kb

    def sample(self, n: int, rng: np.random.RandomState) -> np.ndarray:
        """n draws from the measure (codes as floats).

        Parameters
        ----------
        n : int
            Number of draws.
        rng : numpy.random.RandomState
            Source of the draws.

        Returns
        -------
        ndarray of shape (n,)
            Draws from the input measure.
        """
        return rng.choice(self.probs.size, size=n, p=self.probs).astype(np.float64)

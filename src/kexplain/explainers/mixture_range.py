"""Fitting a scale-mixture kernel (Matérn, rational quadratic) to the data an explainer sees.

A :class:`~kexplain.kernels.ScaleMixtureKernel` is a positive sum of RBF kernels within a uniform
error eps measured on a range of scaled squared distances.  Every point a game evaluates the kernel
at (explained points, background rows, the hybrid points mixing them, and the model's reference
points) lies in the bounding box of those rows, so the box's widths bound that range: the explainer
refits the mixture to the box and widens it when explained points fall outside.  Every coalition
value v(S) = sum_i c_i E_z k(h_S(x, z), x_i) then moves by at most eps sum_i |c_i| (the background
weights sum to one; the functional game's restricted distance is smaller than the full one), and a
Shapley value, a weighted sum of differences v(S + j) - v(S) with weights summing to one, by at
most 2 eps sum_i |c_i|.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from ..kernels.mixture import ScaleMixtureKernel
from ..models.expansion import KernelExpansion


class MixtureRange:
    """The data box of an explainer whose model has a scale-mixture kernel, and the refitted kernel.

    Parameters
    ----------
    tol : float
        Target uniform error of every mixture factor (validated by the caller).
    rows : ndarray
        Rows that bound the range from the start (support points, background).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.explainers.mixture_range import MixtureRange
    >>> box = MixtureRange(1e-10, np.array([[0.0, 0.0], [1.0, 2.0]]))
    >>> box.span
    array([1., 2.])
    >>> box.grow(np.array([[3.0, 1.0]])), box.span
    (True, array([3., 2.]))
    >>> box.grow(np.array([[2.0, 1.0]]))
    False
    """

    def __init__(self, tol: float, rows: np.ndarray) -> None:
        self.tol = tol
        rows = np.asarray(rows, dtype=np.float64)
        self.lo = rows.min(axis=0)
        self.hi = rows.max(axis=0)

    @property
    def span(self) -> np.ndarray:
        """Width of the box per feature."""
        return np.asarray(self.hi - self.lo)

    def grow(self, rows: np.ndarray) -> bool:
        """Widen the box to hold ``rows``; True when it grew."""
        rows = np.asarray(rows, dtype=np.float64)
        if rows.size == 0:
            return False
        lo = np.minimum(self.lo, rows.min(axis=0))
        hi = np.maximum(self.hi, rows.max(axis=0))
        grew = bool(np.any(lo < self.lo) or np.any(hi > self.hi))
        self.lo, self.hi = lo, hi
        return grew

    def refit_kernel(self, kernel: ScaleMixtureKernel) -> ScaleMixtureKernel:
        """``kernel`` discretised for this box and tolerance."""
        return kernel.with_span(self.span, self.tol)

    def refit_expansion(self, em: KernelExpansion) -> KernelExpansion:
        """The expansion with its kernel discretised for this box (same points, weights, intercept)."""
        kernel = em.kernel
        assert isinstance(kernel, ScaleMixtureKernel)
        return KernelExpansion(
            em.X_ref,
            em.coef[:, 0] if em.single_output else em.coef,
            self.refit_kernel(kernel),
            intercept=em.intercept[0] if em.single_output else em.intercept,
            feature_names=em.feature_names,
            output_names=em.output_names,
        )

    def refit_posterior(self, post: Any) -> Any:
        """A GPPosterior with its kernel discretised for this box (others are returned as they are)."""
        if isinstance(post.kernel, ScaleMixtureKernel):
            return replace(post, kernel=self.refit_kernel(post.kernel))
        return post


def value_error_bound(em: KernelExpansion) -> float | np.ndarray:
    """2 eps sum_i |c_i| per output: the bound on every Shapley value (see the module notes).

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> k = kx.kernels.ScaleMixtureKernel.matern(1.0, nu=2.5)
    >>> em = kx.KernelExpansion(np.zeros((2, 2)), [1.0, -2.0], k)
    >>> bool(value_error_bound(em) == 2 * k.error * 3.0)
    True
    """
    kernel = em.kernel
    assert isinstance(kernel, ScaleMixtureKernel)
    bound = 2.0 * kernel.error * np.abs(em.coef).sum(axis=0)
    return float(bound[0]) if em.single_output else bound

"""The settings of the scale-mixture kernels: their error target, their checked parameters, the data's range.

:data:`DEFAULT_KERNEL_TOL` and :func:`check_kernel_tol` give the uniform error a discretisation
aims at; ``_check_inv_sq`` and ``_check_shape_param`` turn length scales and the Matérn's nu or the
rational quadratic's alpha into checked numbers (shared by the constructors of
``mixture.ScaleMixtureKernel`` and the GP-library adapters); :func:`data_span` and ``_sq_range`` give
the range of scaled squared distances a discretisation must cover (:data:`DEFAULT_MAX_SQ_DIST` before
the data's range is known).  ``kexplain.kernels.mixture`` re-exports every name here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._params import Real as RealNumber
from .._params import check_param

#: default target of the uniform kernel error (relative to the kernel's amplitude)
DEFAULT_KERNEL_TOL = 1e-12

#: range of scaled squared distances used before the data's range is known (points up to 100 length
#: scales apart); explainers refit the mixture to their data
DEFAULT_MAX_SQ_DIST = 1e4


def check_kernel_tol(tol: Any, name: str = "kernel_tol") -> float:
    """``tol`` as a float in (0, 1), None giving :data:`DEFAULT_KERNEL_TOL`; a ValueError naming ``name`` else.

    Examples
    --------
    >>> from kexplain.kernels.mixture import check_kernel_tol
    >>> check_kernel_tol(None), check_kernel_tol(1e-6)
    (1e-12, 1e-06)
    """
    if tol is None:
        return DEFAULT_KERNEL_TOL
    note = f"the uniform error allowed in the kernel, relative to its amplitude; default {DEFAULT_KERNEL_TOL:g}"
    return float(check_param(tol, name, RealNumber(0, 1, closed="neither"), note=note))


def _check_inv_sq(lengthscale: Any, name: str) -> float | np.ndarray:
    """1 / lengthscale^2 (a float or one per feature), refusing non-positive or non-finite scales."""
    msg = f"{name} must be a positive finite number or a 1-D array of them (one per feature), got {lengthscale!r}."
    try:
        ls = np.asarray(lengthscale, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(msg) from None
    if np.asarray(lengthscale).dtype.kind not in "iuf":
        raise ValueError(msg)
    if ls.ndim > 1 or ls.size == 0 or not np.all(np.isfinite(ls)) or np.any(ls <= 0):
        raise ValueError(msg)
    return float(1.0 / ls**2) if ls.ndim == 0 else 1.0 / ls**2


def _check_shape_param(value: Any, name: str, allow_inf: bool) -> float:
    """A positive number (``inf`` allowed for the Matérn's nu), else a ValueError naming ``name``."""
    what = "a positive number or inf" if allow_inf else "a positive finite number"
    return float(check_param(value, name, RealNumber(0, closed="neither", finite=not allow_inf), what=what))


def _sq_range(inv_sq: Any, span: np.ndarray | None) -> float:
    """The largest u = sum_j inv_sq_j (x_j - y_j)^2 on a box of widths ``span``."""
    if span is None:
        return DEFAULT_MAX_SQ_DIST
    inv = np.broadcast_to(np.asarray(inv_sq, dtype=np.float64), span.shape)
    return float(inv @ (span * span))


def data_span(*arrays: np.ndarray | None) -> np.ndarray:
    """Per-feature width (max - min) of the bounding box of the rows of every given array.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.kernels.mixture import data_span
    >>> data_span(np.array([[0.0, 1.0], [2.0, 1.0]]), np.array([[-1.0, 3.0]]))
    array([3., 2.])
    """
    rows = [np.asarray(a, dtype=np.float64) for a in arrays if a is not None and np.size(a)]
    lo = np.min([r.min(axis=0) for r in rows], axis=0)
    hi = np.max([r.max(axis=0) for r in rows], axis=0)
    return np.asarray(hi - lo, dtype=np.float64)

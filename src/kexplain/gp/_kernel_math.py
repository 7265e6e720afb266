"""The two small helpers of the constrained RBF kernels (Gaussian and empirical measures): squared
differences of two vectors of one feature's values, and the squared lengthscale they are scaled by."""

from __future__ import annotations

from typing import Any

import numpy as np


def _sq(x: Any, y: Any) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    return (x[:, None] - y[None, :]) ** 2


def _lengthscale(l: float | None) -> float:
    if l is None:
        raise ValueError("this kernel needs a lengthscale l.")
    v = float(l)
    # zero and non-finite lengthscales gave NaN kernel values, a negative one those of -l: all silent
    if not (np.isfinite(v) and v > 0):
        raise ValueError(f"the lengthscale l must be a positive finite number, got {l!r}.")
    return v**2

"""Real-number arrays for the result types: complex numbers, None, NaN and infinities refused by name."""

from __future__ import annotations

from typing import Any

import numpy as np


def _real(x: Any, name: str, *, allow_nan: bool = False) -> np.ndarray:
    """``x`` as a float64 array of real numbers, or a ValueError naming ``name``.

    Complex numbers are refused rather than truncated, and so are NaN and infinite values (a
    result holding them would look certain while being undefined).
    """
    if type(x) is np.ndarray and x.dtype == np.float64:
        # the engine's own arrays (every explain call): only the finiteness test applies to them
        if not (allow_nan or np.isfinite(x).all()):
            raise ValueError(f"{name} contains NaN or infinite values.")
        return x
    try:
        arr = np.asarray(x)
    except ValueError:  # ragged nested sequences
        raise ValueError(f"{name} must be a rectangular array of real numbers, got a ragged sequence.") from None
    if arr.dtype.kind == "c":
        raise ValueError(f"{name} must hold real numbers, got complex values.")
    if arr.dtype.kind == "O" and any(v is None for v in arr.ravel()):
        raise ValueError(f"{name} must hold real numbers, got None.")
    if arr.dtype.kind not in "biuf":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must hold real numbers, got values of type {arr.dtype}.") from None
    arr = arr.astype(np.float64, copy=False)
    if not allow_nan and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values.")
    return arr

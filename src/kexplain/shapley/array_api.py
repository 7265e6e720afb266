"""Array API dispatch for the product-game engine (numpy, PyTorch, CuPy, any compliant library).

The engine follows scikit-learn's ``array_api_dispatch``: the namespace of the input arrays
decides where the work runs (a CUDA tensor keeps it on its GPU) and the results come back in that
namespace, on that device.  numpy input keeps the numpy/numba path; anything else goes through
``array_api_compat`` (an optional dependency, needed only for non-numpy arrays).

Examples
--------
>>> import numpy as np
>>> from kexplain.shapley.array_api import array_namespace, is_numpy_namespace
>>> xp = array_namespace(np.ones(2), 1.0)
>>> is_numpy_namespace(xp)
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: dtypes the engine computes in: float64 (default) or float32 (opt-in, faster on GPUs)
DTYPES = ("float64", "float32")


def _compat() -> Any:
    try:
        import array_api_compat
    except ImportError:  # pragma: no cover - exercised only without the optional dependency
        return None
    return array_api_compat


def is_foreign_array(x: Any) -> bool:
    """True for an array of a library other than numpy (a torch tensor, a CuPy or array-api-strict array).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley.array_api import is_foreign_array
    >>> is_foreign_array(np.ones(2)), is_foreign_array([1.0, 2.0])
    (False, False)
    """
    if x is None or isinstance(x, (np.ndarray, np.generic, int, float, bool, list, tuple)):
        return False
    compat = _compat()
    if compat is not None:
        return bool(compat.is_array_api_obj(x)) and not compat.is_numpy_array(x)
    # without array_api_compat: recognise the common libraries by duck typing
    return hasattr(x, "__array_namespace__") or type(x).__module__.split(".")[0] in ("torch", "cupy", "jax")


def array_namespace(*arrays: Any) -> Any:
    """The array API namespace of ``arrays`` (numpy when none is a foreign array; scalars are ignored).

    Mixing namespaces (e.g. a torch tensor and a CuPy array) raises a TypeError.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley.array_api import array_namespace
    >>> array_namespace(np.zeros(1)).__name__
    'array_api_compat.numpy'
    """
    foreign = [x for x in arrays if is_foreign_array(x)]
    compat = _compat()
    if compat is None:
        if foreign:
            from .._optional import require

            require("array_api_compat", "non-numpy arrays in the product-game engine")
        return np
    if not foreign:
        return compat.array_namespace(np.empty(0))
    return compat.array_namespace(*foreign)


def is_numpy_namespace(xp: Any) -> bool:
    """Whether ``xp`` is numpy (or array_api_compat's numpy wrapper)."""
    return getattr(xp, "__name__", "") in ("numpy", "array_api_compat.numpy")


def device_of(x: Any) -> Any:
    """The device of array ``x`` (None for numpy arrays and scalars)."""
    if not is_foreign_array(x):
        return None
    compat = _compat()
    return compat.device(x) if compat is not None else getattr(x, "device", None)


def resolve_dtype(xp: Any, dtype: Any) -> Any:
    """The namespace's float dtype for ``dtype`` (None, "float64" or "float32", or a dtype object)."""
    name = "float64" if dtype is None else (dtype if isinstance(dtype, str) else _dtype_name(dtype))
    if name not in DTYPES:
        raise ValueError(f"dtype must be one of {DTYPES} (or None for float64), got {dtype!r}.")
    return getattr(xp, name)


def _dtype_name(dtype: Any) -> str:
    text = str(dtype)
    for name in DTYPES:
        if text.endswith(name):
            return name
    return text


def to_numpy(x: Any) -> np.ndarray:
    """A numpy copy (or view) of any array: moves device arrays to the host.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley.array_api import to_numpy
    >>> to_numpy(np.arange(2.0))
    array([0., 1.])
    """
    if not is_foreign_array(x):
        return np.asarray(x)
    mod = type(x).__module__.split(".")[0]
    if mod == "torch":
        return x.detach().cpu().numpy()
    if mod == "cupy":
        return x.get()
    compat = _compat()
    if compat is not None and hasattr(compat, "to_device") and device_of(x) not in (None, "cpu"):
        try:
            x = compat.to_device(x, "cpu")
        except Exception:  # noqa: BLE001 - some libraries name the host differently; try as is
            pass
    try:
        return np.asarray(x)
    except Exception:  # array-api-strict refuses __array__: go through DLPack
        return np.from_dlpack(x)


def from_numpy(x: Any, xp: Any, device: Any = None, dtype: Any = None) -> Any:
    """``x`` (numpy or scalar) as an array of namespace ``xp`` on ``device``."""
    if is_numpy_namespace(xp):
        return np.asarray(x, dtype=dtype)
    return xp.asarray(np.asarray(x), dtype=dtype, device=device)

"""Kernel specifications of the embeddings: None (kexplain's default RBF), a kexplain kernel, or a callable."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..kernels.base import RBF, Kernel, SumKernel, default_kernel

KernelFn = Callable[[np.ndarray, np.ndarray], np.ndarray]


def resolve_kernel(kernel: Any, data: np.ndarray, name: str) -> KernelFn:
    """A callable k(A, B) -> (len(A), len(B)) for the parameter ``kernel`` on the rows ``data``.

    None gives kexplain's default kernel on ``data`` (:func:`kexplain.kernels.default_kernel`).
    """
    if kernel is None:
        kernel = default_kernel(data)
    if isinstance(kernel, (Kernel, SumKernel)):
        return kernel  # callable, and picklable (a closure would not be)
    if callable(kernel):
        return kernel
    raise TypeError(
        f"{name} must be None (kexplain's default RBF, kx.kernels.default_kernel), a kexplain kernel or a callable "
        f"k(A, B) returning the (len(A), len(B)) Gram matrix; got {type(kernel).__name__}."
    )


def as_2d(Y: np.ndarray) -> np.ndarray:
    """Targets as a 2-D (n, q) array."""
    Y = np.asarray(Y, dtype=np.float64)
    return Y[:, None] if Y.ndim == 1 else Y


def rbf(A: Any, B: Any, lengthscale: Any, amplitude: float = 1.0) -> np.ndarray:
    """Gaussian Gram matrix amplitude * exp(-|a - b|^2 / (2 lengthscale^2)) (one lengthscale or one
    per column) of already validated rows, through :class:`kexplain.kernels.RBF`.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.embeddings.gram import rbf
    >>> print(np.round(rbf(np.zeros((1, 1)), np.ones((1, 1)), 1.0), 3))
    [[0.607]]
    """
    kernel = RBF(lengthscale=lengthscale, amplitude=float(amplitude))
    return kernel.gram(np.asarray(A, dtype=np.float64), np.asarray(B, dtype=np.float64), check_input=False)

"""A product kernel restricted to some of its features: what sparse inputs need.

A product kernel k(x, y) = amplitude * prod_j k_j(x_j, y_j) evaluated on a few features J only
(the non-zeros of a sparse row) is the product of the factors k_j, j in J: the kernel restricted
to J.  :func:`restrict_features` builds it, so the sparse games of the product-kernel explainer
evaluate factors on the columns they need instead of all d (``kexplain.explainers.sparse_games``).
Indices may repeat: the restricted kernel's column p is the original feature ``features[p]``,
which is how one call evaluates factors of scattered (feature, value) entries.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .base import RBF, Categorical, Cauchy, Kernel, Laplacian, PointwiseProduct, ProductKernel
from .chi2 import Chi2


def restrict_features(kernel: Kernel, features: ArrayLike) -> Kernel:
    """The kernel on the columns ``features`` of its inputs (indices may repeat).

    Column p of the restricted kernel's inputs is feature ``features[p]`` of the original one, with
    that feature's own per-feature kernel (lengthscale, gamma, part of a product).  Supported:
    RBF, Laplacian, Cauchy, Chi2, Categorical, and their products (``ProductKernel``,
    ``PointwiseProduct``); any other kernel raises a TypeError.

    Parameters
    ----------
    kernel : Kernel
        A product kernel of ``kexplain.kernels``.
    features : array-like of int
        Feature indices of the original kernel.

    Returns
    -------
    Kernel
        A kernel on ``len(features)`` columns (the same object when no parameter is per feature).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.kernels import RBF
    >>> from kexplain.kernels.restrict import restrict_features
    >>> k = RBF(lengthscale=[1.0, 2.0, 3.0])
    >>> restrict_features(k, [2, 0, 2])
    RBF(lengthscale=[3. 1. 3.])
    >>> X, Y = np.array([[0.0, 1.0, 2.0]]), np.zeros((1, 3))
    >>> bool(np.allclose(restrict_features(k, [2, 0]).feature_values(X[:, [2, 0]], Y[:, [2, 0]]),
    ...                  k.feature_values(X, Y)[:, :, [2, 0]]))
    True
    """
    J = np.asarray(features, dtype=np.int64).reshape(-1)
    return _restrict(kernel, J)


def _per_feature(value: Any, J: np.ndarray) -> Any:
    """A scalar parameter as it is, a per-feature one at the indices ``J``."""
    return value if np.ndim(value) == 0 else np.asarray(value)[J]


def _restrict(kernel: Kernel, J: np.ndarray) -> Kernel:
    if type(kernel) in (RBF, Laplacian, Cauchy):
        assert isinstance(kernel, (RBF, Laplacian, Cauchy))
        if np.ndim(kernel.lengthscale) == 0:
            return kernel
        return type(kernel)(lengthscale=_per_feature(kernel.lengthscale, J), amplitude=kernel.amplitude)
    if type(kernel) is Chi2:
        if np.ndim(kernel.gamma) == 0:
            return kernel
        return Chi2(gamma=_per_feature(kernel.gamma, J), amplitude=kernel.amplitude)
    if type(kernel) is Categorical:
        if kernel.n_features is None:
            return kernel
        return Categorical(mismatch=kernel.mismatch, amplitude=kernel.amplitude, n_features=len(J))
    if type(kernel) is PointwiseProduct:
        return PointwiseProduct([_restrict(f, J) for f in kernel.factors], amplitude=kernel.amplitude)
    if type(kernel) is ProductKernel:
        d = kernel.n_features
        part_of = np.empty(d, dtype=np.int64)
        local = np.empty(d, dtype=np.int64)
        for p, (_, feats) in enumerate(kernel.parts):
            part_of[feats] = p
            local[feats] = np.arange(len(feats))
        owner = part_of[J]
        parts = []
        for p, (k, _) in enumerate(kernel.parts):
            sel = np.flatnonzero(owner == p)
            if sel.size:
                parts.append((_restrict(k, local[J[sel]]), sel))
        if not parts:  # no feature at all: a product over nothing
            raise ValueError("restrict_features needs at least one feature of a ProductKernel.")
        return ProductKernel(parts, amplitude=kernel.amplitude)
    raise TypeError(
        f"the kernel {kernel!r} cannot be restricted to some of its features (supported: RBF, Laplacian, "
        "Cauchy, Chi2, Categorical and their products)."
    )

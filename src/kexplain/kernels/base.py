"""Per-feature kernels and their products.

Every kernel here is a product over features of one-dimensional kernels times an amplitude:

    k(x, y) = amplitude * prod_j k_j(x_j, y_j).

That is the structure the product-game engine needs: ``feature_values(X, Y)`` returns the
per-feature factors k_j(X_pj, Y_rj) as an array of shape (p, r, d).  Conventions follow
scikit-learn: RBF = exp(-(x - y)^2 / (2 l^2)), Laplacian = exp(-|x - y| / l),
Cauchy = 1 / (1 + (x - y)^2 / l^2), with one lengthscale for all features or one per feature (ARD).

Gram matrices (``kernel(X, Y)``) never build the (p, r, d) factor tensor.  Each kernel class owns
its idea in one place: its formula, its Gram path (the blocked routines of ``kernels/_gram.py``; a
stationary profile without its own gets the feature-by-feature one), its matched-pair values and
compiled pair-loop code for the statistics, and its default lengthscale.  Kernels combine as
scikit-learn's do: ``k1 * k2`` (:class:`PointwiseProduct`), ``k1 + k2`` (:class:`SumKernel`) and a
positive number times a kernel.

Every name of the kernel layer is imported from here; the code lives by idea in four modules:

- ``kernel``: :class:`Kernel` (the contract a new kernel implements), the ``PAIR_*`` codes of the
  statistics' compiled pair loop, and the two kernels its operators build, :class:`PointwiseProduct`
  and :class:`SumKernel`;
- ``stationary``: :class:`RBF`, :class:`Laplacian` and :class:`Cauchy` on their base
  ``_Stationary`` (lengthscales, default lengthscale, the factors' vectorised exponential);
- ``categorical``: :class:`Categorical`;
- ``product``: :class:`ProductKernel`, a different kernel on each block of features;
- this module: :func:`kernel_terms`, :func:`term_amplitude` and :func:`default_kernel`.
"""

from __future__ import annotations

from numpy.typing import ArrayLike

from .categorical import Categorical
from .kernel import (
    PAIR_CAUCHY,
    PAIR_DELTA,
    PAIR_LAPLACE,
    PAIR_RBF,
    Kernel,
    PairParams,
    PointwiseProduct,
    SumKernel,
)
from .kernel import _check_amplitude as _check_amplitude
from .product import ProductKernel
from .stationary import _EXP_NUMBA as _EXP_NUMBA
from .stationary import RBF, Cauchy, Laplacian
from .stationary import _exp_inplace as _exp_inplace
from .stationary import _exp_numba as _exp_numba
from .stationary import _Stationary as _Stationary

__all__ = [
    "PAIR_CAUCHY",
    "PAIR_DELTA",
    "PAIR_LAPLACE",
    "PAIR_RBF",
    "RBF",
    "Categorical",
    "Cauchy",
    "Kernel",
    "Laplacian",
    "PairParams",
    "PointwiseProduct",
    "ProductKernel",
    "SumKernel",
    "default_kernel",
    "kernel_terms",
    "term_amplitude",
]


def kernel_terms(kernel: Kernel | SumKernel) -> list[Kernel]:
    """The product-kernel terms of a kernel: ``[kernel]`` or the terms of a SumKernel.

    Parameters
    ----------
    kernel : Kernel or SumKernel
        A product kernel or a sum of product kernels.

    Returns
    -------
    list of Kernel
        The product-kernel terms, in order.

    Raises
    ------
    UnsupportedModelError
        For anything that is not a kexplain kernel (e.g. a scikit-learn kernel object).

    Examples
    --------
    >>> from kexplain.kernels import RBF, Laplacian, SumKernel, kernel_terms
    >>> kernel_terms(SumKernel([RBF(1.0), Laplacian(2.0)]))
    [RBF(lengthscale=1), Laplacian(lengthscale=2)]
    >>> kernel_terms(RBF(0.5))
    [RBF(lengthscale=0.5)]
    """
    if isinstance(kernel, SumKernel):
        return list(kernel.terms)
    if isinstance(kernel, Kernel):
        return [kernel]
    from ..exceptions import UnsupportedModelError  # a TypeError, so existing handlers still work

    raise UnsupportedModelError(
        f"kernel must be a kexplain kernel (RBF, Laplacian, Cauchy, Categorical, ProductKernel, "
        f"SumKernel), got {type(kernel).__name__}. Use kx.kernels.from_sklearn to convert a "
        "scikit-learn kernel."
    )


def term_amplitude(kernel: Kernel) -> float:
    """The overall amplitude of one product-kernel term (including its parts' amplitudes).

    Examples
    --------
    >>> from kexplain.kernels import RBF, ProductKernel
    >>> from kexplain.kernels.base import term_amplitude
    >>> term_amplitude(ProductKernel([2.0 * RBF(1.0), RBF(1.0)], amplitude=1.5))
    3.0
    """
    return kernel.diag_value()


def default_kernel(*arrays: ArrayLike, per_feature: bool = False, standardize: bool = True) -> RBF:
    """The kernel every ``kernel=None`` in kexplain stands for: an RBF with the default lengthscale.

    ``RBF.from_data(*arrays)``: one lengthscale per feature, ``s_j * ell`` with s_j the feature's
    standard deviation over the pooled rows and ell the median distance between the standardised
    rows (:func:`kexplain.kernels.default_lengthscale`).  The statistics' ``bandwidth`` and
    ``standardize`` options map onto ``per_feature`` and ``standardize``.

    Parameters
    ----------
    *arrays : array-like of shape (n_i, d)
        Rows pooled before the distances are taken (e.g. both samples of a two-sample test).
    per_feature : bool
        The median absolute difference per feature instead of one joint median.
    standardize : bool
        Take the medians on features scaled to unit standard deviation.

    Returns
    -------
    RBF
        The kernel, with its lengthscales set from the data.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.kernels import default_kernel
    >>> default_kernel(np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 4.0]]))
    RBF(lengthscale=[3. 4.])
    """
    out: RBF = RBF.from_data(*arrays, per_feature=per_feature, standardize=standardize)
    return out

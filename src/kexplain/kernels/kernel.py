"""The base class of kexplain's kernels, and the two kernels its operators build.

:class:`Kernel` is the contract every product kernel implements: ``k(x, y) = amplitude * prod_j
k_j(x_j, y_j)``, with the per-feature factors (``feature_values``), the Gram matrix (``gram``, by
the fast path a subclass gives in ``_unit_gram``), the matched-pair values and compiled pair-loop
codes of the statistics (``pair_values``, ``pair_loop_params`` with the ``PAIR_*`` codes) and
``rescaled``.  Its operators build :class:`PointwiseProduct` (``k1 * k2``) and :class:`SumKernel`
(``k1 + k2``); the three stay in one module because each names the others.  What names none of
them lives in private siblings, whose names are imported from here too: ``_kernel_contract``
(``_KernelContract``, the computations of one product kernel from its factors, under
:class:`Kernel`), ``_kernel_sum`` (``_SumOfTerms``, those of a sum from its terms, under
:class:`SumKernel`) and ``_kernel_params`` (``_check_amplitude`` and the ``PAIR_*`` codes).  Every
name is imported from :mod:`kexplain.kernels.base` (see its notes for the whole kernel layer).
"""

from __future__ import annotations

from numbers import Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._kernel_contract import _KernelContract
from ._kernel_params import PAIR_CAUCHY as PAIR_CAUCHY
from ._kernel_params import PAIR_DELTA as PAIR_DELTA
from ._kernel_params import PAIR_LAPLACE as PAIR_LAPLACE
from ._kernel_params import PAIR_RBF as PAIR_RBF
from ._kernel_params import PairParams as PairParams
from ._kernel_params import _check_amplitude as _check_amplitude
from ._kernel_sum import _SumOfTerms


class Kernel(_KernelContract):
    """Base class: a product over features of one-dimensional kernels, times ``amplitude``.

    ``k(x, y) = amplitude * prod_j k_j(x_j, y_j)``.  Subclasses implement ``feature_values`` (the
    factors ``k_j``) and ``rescaled``; multiplying by a positive number scales the amplitude.  This
    product structure is what makes the Shapley values of a kernel model exact and cheap
    (Mohammadi, Chau & Muandet, 2025, Section 3).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.kernels import RBF
    >>> k = 2.0 * RBF(lengthscale=1.0)
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0]])
    >>> np.round(k(X), 3)
    array([[2.   , 1.213],
           [1.213, 2.   ]])
    >>> k.feature_values(X, X).shape
    (2, 2, 2)
    """

    #: numpy defers to the kernel's operators, so ``kernel * array`` is a TypeError, not an array of kernels
    __array_ufunc__ = None

    def rescaled(self, scale: np.ndarray) -> Kernel:
        """The same kernel seen from inputs x with x_scaled = scale * x + shift (per feature).

        Parameters
        ----------
        scale : ndarray of shape (d,)
            Per-feature factor of an affine scaler, x_scaled = scale * x + shift.
        """
        raise NotImplementedError

    def __mul__(self, other: Any) -> Any:
        if isinstance(other, Real) and not isinstance(other, (bool, np.bool_)):
            new = self._copy()
            new.amplitude = _check_amplitude(self.amplitude * float(other))
            return new
        if isinstance(other, SumKernel):
            return SumKernel([self * t for t in other.terms])
        if isinstance(other, Kernel):
            return PointwiseProduct([self, other])
        return NotImplemented

    def __rmul__(self, other: Any) -> Any:
        if isinstance(other, Real) and not isinstance(other, (bool, np.bool_)):
            return self.__mul__(other)
        return NotImplemented

    def __add__(self, other: Any) -> Any:
        if isinstance(other, SumKernel):
            return SumKernel([self, *other.terms])
        if isinstance(other, Kernel):
            return SumKernel([self, other])
        return NotImplemented

    def _copy(self) -> Any:
        """A deep copy of this kernel."""
        import copy

        return copy.deepcopy(self)


class PointwiseProduct(Kernel):
    """Product of kernels on the same features, k(x, y) = amplitude * prod_t k_t(x, y) (``k1 * k2``).

    Each factor is a product over features, so the product is one too: its per-feature factor is
    the product of the factors' per-feature factors, and every game stays a product game.  This is
    scikit-learn's ``k1 * k2`` (the kernels multiplied on the same inputs), not
    :class:`ProductKernel`, which puts different kernels on different features.

    Parameters
    ----------
    factors : list of Kernel
        At least one kernel (not a SumKernel: multiply a sum out with ``*``, which gives a
        SumKernel of products); nested PointwiseProducts are flattened.
    amplitude : float
        Positive factor in front of the product (times the amplitudes of the factors).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.kernels import RBF, Laplacian
    >>> k = RBF(1.0) * Laplacian(2.0)
    >>> k
    RBF(lengthscale=1) * Laplacian(lengthscale=2)
    >>> X = np.array([[0.0], [1.0]])
    >>> np.round(k(X), 3)
    array([[1.   , 0.368],
           [0.368, 1.   ]])
    """

    def __init__(self, factors: Any, amplitude: float = 1.0) -> None:
        msg = "factors must be a non-empty list of kexplain kernels (not SumKernels), got {!r}."
        if isinstance(factors, (Kernel, SumKernel, str, bytes)) or not hasattr(factors, "__iter__"):
            raise TypeError(msg.format(factors))
        flat: list[Kernel] = []
        amp = _check_amplitude(amplitude)
        for f in factors:
            if not isinstance(f, Kernel):
                raise TypeError(msg.format(factors))
            if isinstance(f, PointwiseProduct):
                inner: list[Kernel] = f.factors
                flat.extend(inner)
                amp *= f.amplitude
            else:
                flat.append(f)
        if not flat:
            raise TypeError(msg.format(factors))
        nfs = {f.n_features for f in flat if f.n_features is not None}
        if len(nfs) > 1:
            raise ValueError(f"the factors of a product disagree on the number of features: {sorted(nfs)}.")
        self.factors: list[Kernel] = flat
        self.amplitude = _check_amplitude(amp)
        self.numeric = any(f.numeric for f in flat)

    @property
    def n_features(self) -> int | None:
        """The number of features the factors agree on, or None when they all adapt."""
        nfs = {f.n_features for f in self.factors if f.n_features is not None}
        return nfs.pop() if nfs else None

    @property
    def total_amplitude(self) -> float:
        """The amplitude times the factors' own k(x, x)."""
        return self.amplitude * float(np.prod([f.diag_value() for f in self.factors]))

    def diag_value(self) -> float:
        """k(x, x): the total amplitude.

        Returns
        -------
        float
            k(x, x), the amplitude.
        """
        return self.total_amplitude

    def numeric_mask(self, d: int) -> np.ndarray:
        """Boolean array (d,): which features some factor needs as numbers.

        Parameters
        ----------
        d : int
            Number of features.

        Returns
        -------
        ndarray of bool, shape (d,)
            True for the features the kernel needs as numbers.
        """
        return np.logical_or.reduce([f.numeric_mask(d) for f in self.factors])

    @staticmethod
    def _inputs(f: Kernel, X: np.ndarray) -> np.ndarray:
        """X as one factor needs it: floats where every feature is numeric to it."""
        return X.astype(np.float64) if f.numeric_mask(X.shape[1]).all() else X

    def feature_values(self, X: ArrayLike, Y: ArrayLike) -> np.ndarray:
        """The product of the factors' per-feature values, shape (len(X), len(Y), d).

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
        Xa, Ya = np.asarray(X), np.asarray(Y)
        out = None
        for f in self.factors:
            v = f.feature_values(self._inputs(f, Xa), self._inputs(f, Ya))
            out = v if out is None else np.multiply(out, v, out=out)
        assert out is not None
        return out

    def _unit_gram(self, X: np.ndarray, Y: np.ndarray, same: bool) -> np.ndarray:
        """The product of the factors' Gram matrices (each by its own fast path)."""
        out = None
        for f in self.factors:
            K = f._unit_gram(self._inputs(f, X), self._inputs(f, Y), same)
            out = K if out is None else np.multiply(out, K, out=out)
        assert out is not None
        return out

    def pair_values(self, P: np.ndarray, Q: np.ndarray) -> np.ndarray:
        """The product of the factors' values for matched rows, shape (r, d).

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
        out = None
        for f in self.factors:
            v = f.pair_values(self._inputs(f, np.asarray(P)), self._inputs(f, np.asarray(Q)))
            out = v if out is None else np.multiply(out, v, out=out)
        assert out is not None
        return out

    def rescaled(self, scale: ArrayLike) -> PointwiseProduct:
        """Every factor rescaled (see :meth:`Kernel.rescaled`).

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
        s = np.asarray(scale, dtype=np.float64)
        return PointwiseProduct([f.rescaled(s) for f in self.factors], amplitude=self.amplitude)

    def __repr__(self) -> str:
        inner = " * ".join(repr(f) for f in self.factors)
        return inner if self.amplitude == 1.0 else f"{self.amplitude:.4g} * {inner}"


class SumKernel(_SumOfTerms):
    """Sum of product kernels, k = sum_t k_t.

    Each term is a product kernel, so a model built on a SumKernel is still a product game, with
    one row per (term, support point).

    Parameters
    ----------
    terms : list of Kernel
        Product kernels (not SumKernels).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.kernels import RBF, Laplacian, SumKernel
    >>> k = SumKernel([RBF(1.0), 0.5 * Laplacian(1.0)])
    >>> X = np.array([[0.0], [1.0]])
    >>> np.round(k(X), 3)
    array([[1.5 , 0.79],
           [0.79, 1.5 ]])
    >>> k.diag_value()
    1.5
    """

    #: numpy defers to the kernel's operators (see Kernel)
    __array_ufunc__ = None

    def __init__(self, terms: Any) -> None:
        msg = (
            "terms must be a non-empty list of product kernels (RBF, Laplacian, Cauchy, Categorical or "
            "ProductKernel; not SumKernels), got {!r}."
        )
        if isinstance(terms, (Kernel, SumKernel, str, bytes)) or not hasattr(terms, "__iter__"):
            raise TypeError(msg.format(terms))
        terms = list(terms)
        if not terms or not all(isinstance(t, Kernel) and not isinstance(t, SumKernel) for t in terms):
            raise TypeError(msg.format(terms))
        self.terms = terms

    def rescaled(self, scale: ArrayLike) -> SumKernel:
        """Every term rescaled (see :meth:`Kernel.rescaled`).

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
        return SumKernel([t.rescaled(scale) for t in self.terms])

    def __mul__(self, other: Any) -> Any:
        # an overall amplitude multiplies every term; a product with a sum is multiplied out
        if isinstance(other, Real) and not isinstance(other, (bool, np.bool_)):
            return SumKernel([t * other for t in self.terms])
        if isinstance(other, SumKernel):
            return SumKernel([t * u for t in self.terms for u in other.terms])
        if isinstance(other, Kernel):
            return SumKernel([t * other for t in self.terms])
        return NotImplemented

    def __rmul__(self, other: Any) -> Any:
        if isinstance(other, Real) and not isinstance(other, (bool, np.bool_)):
            return self.__mul__(other)
        return NotImplemented

    def __add__(self, other: Any) -> Any:
        if isinstance(other, SumKernel):
            return SumKernel([*self.terms, *other.terms])
        if isinstance(other, Kernel):
            return SumKernel([*self.terms, other])
        return NotImplemented

    def __repr__(self) -> str:
        return " + ".join(repr(t) for t in self.terms)

"""The base class of kexplain's kernels, and the two kernels its operators build.

:class:`Kernel` is the contract every product kernel implements: ``k(x, y) = amplitude * prod_j
k_j(x_j, y_j)``, with the per-feature factors (``feature_values``), the Gram matrix (``gram``, by
the fast path a subclass gives in ``_unit_gram``), the matched-pair values and compiled pair-loop
codes of the statistics (``pair_values``, ``pair_loop_params`` with the ``PAIR_*`` codes below) and
``rescaled``.  Its operators build :class:`PointwiseProduct` (``k1 * k2``) and :class:`SumKernel`
(``k1 + k2``); the three stay in one module because each names the others.  Every name is imported
from :mod:`kexplain.kernels.base` (see its notes for the whole kernel layer).
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._params import Real as RealNumber
from .._params import check_param
from ._gram import GRAM_BLOCK_ELEMS, _gram_inputs, _row_step

#: factor codes of the statistics' compiled pair loop (``stats/_pairs_numba.tile_factors``); a kernel
#: says which one it is through :meth:`Kernel.pair_loop_params` (None: the numpy pair path)
PAIR_RBF, PAIR_LAPLACE, PAIR_CAUCHY, PAIR_DELTA = 0, 1, 2, 3

#: (codes, inverse lengthscales, mismatches) per feature for the compiled pair loop
PairParams = tuple[np.ndarray, np.ndarray, np.ndarray]


def _check_amplitude(amplitude: Any) -> float:
    """``amplitude`` as a float, or a ValueError when it is not a positive finite number."""
    what = "a positive finite number"
    return float(check_param(amplitude, "amplitude", RealNumber(0, closed="neither"), what=what))


class Kernel:
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

    amplitude: float = 1.0
    #: numpy defers to the kernel's operators, so ``kernel * array`` is a TypeError, not an array of kernels
    __array_ufunc__ = None

    #: number of features the kernel is defined on, or None when it adapts to any number
    @property
    def n_features(self) -> int | None:
        """Number of features the kernel is defined on, or None when it adapts to any number."""
        return None

    #: True when inputs must be numeric (False for kernels that compare labels)
    numeric: bool = True

    def feature_values(self, X: ArrayLike, Y: ArrayLike) -> np.ndarray:
        """Per-feature kernel values, shape (len(X), len(Y), d), without the amplitude.

        Parameters
        ----------
        X : ndarray of shape (n, d)
            Rows (validated).
        Y : ndarray of shape (m, d)
            Rows to compare them with.
        """
        raise NotImplementedError

    def __call__(self, X: ArrayLike, Y: ArrayLike | None = None) -> np.ndarray:
        """Gram matrix amplitude * prod_j k_j(X_pj, Y_rj), shape (len(X), len(Y)); see :meth:`gram`."""
        return self.gram(X, Y)

    def gram(
        self,
        X: ArrayLike,
        Y: ArrayLike | None = None,
        *,
        check_input: bool = True,
        feature_names: Sequence[str] | None = None,
    ) -> np.ndarray:
        """Gram matrix amplitude * prod_j k_j(X_pj, Y_rj), shape (len(X), len(Y)).

        Computed without the (len(X), len(Y), d) tensor of per-feature factors (see the notes
        of ``kexplain.kernels.base``); temporaries stay within ``GRAM_BLOCK_ELEMS`` elements per block.

        Parameters
        ----------
        X : array-like of shape (n, d)
            Rows (a 1-D array is one column); DataFrames and scipy sparse matrices are accepted.
        Y : array-like of shape (m, d), optional
            Second set of rows; None means X (the diagonal is then exactly the amplitude).
        check_input : bool
            Validate X and Y (2-D, same number of features, finite numbers for numeric features,
            no missing labels); False skips this for arrays already validated.
        feature_names : sequence of str, optional
            Names of the d features, used in error messages; by default the columns of X (or of
            Y) when it is a DataFrame, else messages give 0-based column positions.

        Returns
        -------
        ndarray of shape (n, m)
            The Gram matrix amplitude * prod_j k_j(X_pj, Y_rj).

        Raises
        ------
        ValueError
            Naming X or Y (and the row, and the column by name when known) for NaN, infinite or
            non-numeric values, missing labels, ragged or complex input, or a wrong number of
            features.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.kernels import Laplacian
        >>> X = np.array([[0.0, 0.0], [1.0, 1.0]])
        >>> np.round(Laplacian(2.0).gram(X, X[:1]), 3)
        array([[1.   ],
               [0.368]])
        """
        if check_input:
            Xa, Ya, same = _gram_inputs(self, X, Y, feature_names)
        else:
            Xa = np.asarray(X)
            Ya, same = (Xa, True) if Y is None else (np.asarray(Y), False)
        K = self._unit_gram(Xa, Ya, same)
        amp = self.diag_value()
        if amp != 1.0:
            K *= amp
        return K

    def _unit_gram(self, X: np.ndarray, Y: np.ndarray, same: bool) -> np.ndarray:
        """prod_j k_j(X_pj, Y_rj) on validated arrays (no amplitude): here, from ``feature_values`` in
        row blocks; the kernels of ``kexplain.kernels`` override it with distance-based formulas."""
        n, m, d = len(X), len(Y), X.shape[1]
        out = np.empty((n, m))
        step = _row_step(m, d)
        for s in range(0, n, step):
            out[s : s + step] = np.prod(self.feature_values(X[s : s + step], Y), axis=-1)
        return out

    def diag_value(self) -> float:
        """k(x, x), which is the amplitude for every kernel here.

        Returns
        -------
        float
            k(x, x), which is the amplitude for every kernel here.
        """
        return self.amplitude

    def check_n_features(self, d: int, name: str = "X") -> None:
        """Raise a ValueError naming ``name`` when the kernel is defined on another number of features.

        Parameters
        ----------
        d : int
            Number of features of the input.
        name : str, default 'X'
            Name of the input, for the error message.
        """
        nf = self.n_features
        if nf is not None and nf != d:
            raise ValueError(f"{name} has {d} features but the kernel {self!r} is defined on {nf} features.")

    def rescaled(self, scale: np.ndarray) -> Kernel:
        """The same kernel seen from inputs x with x_scaled = scale * x + shift (per feature).

        Parameters
        ----------
        scale : ndarray of shape (d,)
            Per-feature factor of an affine scaler, x_scaled = scale * x + shift.
        """
        raise NotImplementedError

    def numeric_mask(self, d: int) -> np.ndarray:
        """Boolean array (d,): which features this kernel needs as numbers.

        Parameters
        ----------
        d : int
            Number of features.

        Returns
        -------
        ndarray of bool, shape (d,)
            True for the features the kernel needs as numbers.
        """
        return np.full(d, self.numeric, dtype=bool)

    def pair_values(self, P: np.ndarray, Q: np.ndarray) -> np.ndarray:
        """Per-feature values k_j(P_rj, Q_rj) for matched rows, shape (r, d), without the amplitude.

        What the kernel statistics need for their sample pairs (the numpy pair path).  Here one
        call of :meth:`feature_values` per pair (slow but correct); the kernels of
        ``kexplain.kernels`` override it with direct formulas.

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

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.kernels import RBF
        >>> P, Q = np.array([[0.0, 0.0], [1.0, 1.0]]), np.array([[1.0, 0.0], [1.0, 3.0]])
        >>> np.round(RBF(1.0).pair_values(P, Q), 3)
        array([[0.607, 1.   ],
               [1.   , 0.135]])
        """
        r, d = np.shape(P)
        if r == 0:
            return np.zeros((0, d))
        return np.stack([self.feature_values(P[i : i + 1], Q[i : i + 1])[0, 0] for i in range(r)])

    def pair_loop_params(self, d: int) -> PairParams | None:
        """What the statistics' compiled pair loop needs for this kernel on ``d`` features, or None.

        (codes, inverse lengthscales, mismatches), one entry per feature, with the codes
        ``PAIR_RBF``, ``PAIR_LAPLACE``, ``PAIR_CAUCHY`` and ``PAIR_DELTA`` of this module.  None
        (the default) sends the kernel to the numpy pair path (:meth:`pair_values`), which is
        correct for every kernel.

        Parameters
        ----------
        d : int
            Number of features.
        """
        return None

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


class SumKernel:
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

    @property
    def n_features(self) -> int | None:
        """The number of features the terms agree on, or None when they all adapt."""
        nfs = {t.n_features for t in self.terms if t.n_features is not None}
        if len(nfs) > 1:
            raise ValueError(f"the terms of a SumKernel disagree on the number of features: {nfs}.")
        return nfs.pop() if nfs else None

    def check_n_features(self, d: int, name: str = "X") -> None:
        """Raise a ValueError naming ``name`` when a term is defined on another number of features.

        Parameters
        ----------
        d : int
            Number of features of the input.
        name : str, default 'X'
            Name of the input, for the error message.
        """
        for t in self.terms:
            t.check_n_features(d, name)

    def numeric_mask(self, d: int) -> np.ndarray:
        """Boolean array (d,): which features some term needs as numbers.

        Parameters
        ----------
        d : int
            Number of features.

        Returns
        -------
        ndarray of bool, shape (d,)
            True for the features the kernel needs as numbers.
        """
        masks = [t.numeric_mask(d) for t in self.terms]
        return np.logical_or.reduce(masks)

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

    def __call__(self, X: ArrayLike, Y: ArrayLike | None = None) -> np.ndarray:
        """The Gram matrix: the sum of the terms' Gram matrices; see :meth:`gram`."""
        return self.gram(X, Y)

    def gram(
        self,
        X: ArrayLike,
        Y: ArrayLike | None = None,
        *,
        check_input: bool = True,
        feature_names: Sequence[str] | None = None,
    ) -> np.ndarray:
        """Sum of the terms' Gram matrices (each computed as in :meth:`Kernel.gram`).

        Parameters
        ----------
        X : array-like of shape (n, d)
            Rows (a 1-D array is one column).
        Y : array-like of shape (m, d), optional
            None means X.
        check_input : bool
            Validate X and Y once for all terms (see :meth:`Kernel.gram`).
        feature_names : sequence of str, optional
            Names of the features for error messages (see :meth:`Kernel.gram`).

        Returns
        -------
        ndarray of shape (n, m)
            The sum of the terms' Gram matrices.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.kernels import RBF, Cauchy, SumKernel
        >>> np.round(SumKernel([RBF(1.0), Cauchy(1.0)]).gram(np.array([[0.0], [1.0]])), 3)
        array([[2.   , 1.107],
               [1.107, 2.   ]])
        """
        if check_input:
            Xa, Ya, same = _gram_inputs(self, X, Y, feature_names)
        else:
            Xa = np.asarray(X)
            Ya, same = (Xa, True) if Y is None else (np.asarray(Y), False)
        n, m = Xa.shape[0], Ya.shape[0]
        if len(self.terms) == 1 or n * m <= GRAM_BLOCK_ELEMS:
            out = self.terms[0].gram(Xa, None if same else Ya, check_input=False)
            for t in self.terms[1:]:
                out += t.gram(Xa, None if same else Ya, check_input=False)
            return out
        # a large matrix of many terms (a scale mixture has dozens): row blocks summed into the
        # output, so the memory is the output plus blocks, not one full matrix per term
        out = np.empty((n, m))
        step = _row_step(m, 2)
        diag = 0.0
        for t in self.terms:
            diag += t.diag_value()
        for a in range(0, n, step):
            rows = slice(a, min(n, a + step))
            block = self.terms[0].gram(Xa[rows], Ya, check_input=False)
            for t in self.terms[1:]:
                block += t.gram(Xa[rows], Ya, check_input=False)
            if same:  # as term.gram(X) does: the diagonal is exactly the sum of the amplitudes
                r = np.arange(rows.start, rows.stop)
                block[r - a, r] = diag
            out[rows] = block
        return out

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

    def diag_value(self) -> float:
        """k(x, x): the sum of the terms' amplitudes.

        Returns
        -------
        float
            k(x, x): the sum of the terms' amplitudes.
        """
        return float(sum(t.diag_value() for t in self.terms))

    def __repr__(self) -> str:
        return " + ".join(repr(t) for t in self.terms)

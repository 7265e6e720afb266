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
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._params import Real as RealNumber
from .._params import check_param
from ._gram import (
    GRAM_BLOCK_ELEMS,
    _cauchy_gram,
    _gram_inputs,
    _laplacian_gram,
    _mismatch_gram,
    _rbf_gram,
    _row_step,
    profile_gram,
)
from .heuristics import default_lengthscale

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

        Computed without the (len(X), len(Y), d) tensor of per-feature factors (see the module
        notes); temporaries stay within ``GRAM_BLOCK_ELEMS`` elements per block.

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
        row blocks; the kernels of this module override it with distance-based formulas."""
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
        call of :meth:`feature_values` per pair (slow but correct); the kernels of this module
        override it with direct formulas.

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


_EXP_NUMBA: list[Any] = []


def _exp_numba() -> Any:
    """The compiled exponential's module ``kexplain._exp_numba``, or None without (usable) numba (numpy's exp then)."""
    if not _EXP_NUMBA:
        module: Any
        try:
            from .. import _exp_numba as module
        except Exception:  # numba missing or unusable here: numpy computes the same numbers to 1 ulp
            module = None
        _EXP_NUMBA.append(module)
    return _EXP_NUMBA[0]


def _exp_inplace(x: np.ndarray) -> np.ndarray:
    """exp(x) written into float64 ``x``: the compiled vectorised exponential where numba is usable.

    RBF and Laplacian factors take their exponential from here on every path (``_profile``,
    ``_profile_inplace`` and the compiled pass of ``feature_values``), so the paths give the same
    numbers bit for bit; without numba (or for a non-contiguous ``x``) numpy's exp, within 1 ulp.
    """
    module = _exp_numba()
    if module is not None and x.dtype == np.float64 and x.flags.c_contiguous and x.size:
        module.exp_inplace(x.reshape(-1))
        return x
    return np.exp(x, out=x)


class _Stationary(Kernel):
    """``k_j(x, y) = profile(|x - y| / l_j)``, one lengthscale or one per feature.

    Everything about the kernel lives in its class: the formula (:meth:`_profile`), the fast Gram
    path on scaled inputs (:meth:`_scaled_gram`, by default the feature-by-feature accumulation of
    the profile, which is fast for any profile), the code of the statistics' compiled pair loop
    (``_pair_code``, None for the numpy pair path) and the default lengthscale (:meth:`from_data`).
    """

    name = "stationary"
    #: code of this profile in the statistics' compiled pair loop, or None (numpy pair path)
    _pair_code: int | None = None
    #: "rbf" or "laplacian": feature_values takes the compiled pass with the vectorised
    #: exponential when numba is usable (None: numpy's :meth:`_profile_inplace`)
    _exp_profile: str | None = None

    def __init__(self, lengthscale: float | ArrayLike = 1.0, amplitude: float = 1.0) -> None:
        msg = (
            f"lengthscale must be a positive finite number or a 1-D array of them (one per "
            f"feature), got {lengthscale!r}."
        )
        try:
            ls = np.asarray(lengthscale, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(msg) from None
        # booleans and strings convert to numbers silently; they are never meant as lengthscales
        if np.asarray(lengthscale).dtype.kind not in "iuf":
            raise ValueError(msg)
        if ls.ndim > 1 or ls.size == 0 or not np.all(np.isfinite(ls)) or np.any(ls <= 0):
            raise ValueError(msg)
        self.lengthscale: float | np.ndarray = float(ls) if ls.ndim == 0 else ls
        self.amplitude = _check_amplitude(amplitude)

    @classmethod
    def from_data(cls, *arrays: ArrayLike, per_feature: bool = False, standardize: bool = True) -> Any:
        """The same kernel with kexplain's default lengthscale for the pooled rows of ``arrays``.

        The one policy of :func:`kexplain.kernels.default_lengthscale` (the median heuristic on
        standardised features, design notes section "Default kernels"); a subclass whose profile
        calls for another scale overrides this.

        Parameters
        ----------
        *arrays : array-like of shape (n_i, d)
            Rows pooled before the distances are taken.
        per_feature : bool
            The median absolute difference per feature instead of one joint median.
        standardize : bool
            Take the median on features scaled to unit standard deviation.

        Returns
        -------
        Kernel

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.kernels import Laplacian
        >>> Laplacian.from_data(np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 4.0]]))
        Laplacian(lengthscale=[3. 4.])
        """
        return cls(lengthscale=default_lengthscale(*arrays, per_feature=per_feature, standardize=standardize))

    @property
    def n_features(self) -> int | None:
        """None for one shared lengthscale, else the number of per-feature lengthscales."""
        return None if np.ndim(self.lengthscale) == 0 else int(np.size(self.lengthscale))

    def _profile(self, u: np.ndarray) -> np.ndarray:
        """The one-dimensional kernel as a function of u = (x - y) / l."""
        raise NotImplementedError

    def _profile_inplace(self, u: np.ndarray) -> np.ndarray:
        """:meth:`_profile` written into ``u`` (a fresh float64 array the caller gives up).

        The per-feature factors of a block are the engine's largest arrays (points x rows x d);
        each temporary of ``_profile`` costs a pass over fresh pages, so the kernels of this module
        reuse ``u``, with the same operations in the same order (bit-for-bit the same values).
        """
        return self._profile(u)

    def _scaled_gram(self, A: np.ndarray, B: np.ndarray, same: bool) -> np.ndarray:
        """prod_j profile(a_j - b_j) for rows already divided by the lengthscales.

        The generic path accumulates the profile feature by feature (:func:`profile_gram`); a
        kernel with a faster closed form (a distance and one function of it) overrides this.  It
        must not depend on the lengthscale: products merge parts of one kind into one call.
        """
        return profile_gram(self._profile, A, B)

    def _merge_key(self) -> Any:
        """Parts of a ProductKernel with equal keys share one :meth:`_scaled_gram` call."""
        return type(self)

    def feature_values(self, X: ArrayLike, Y: ArrayLike) -> np.ndarray:
        """Per-feature values profile((x_j - y_j) / l_j), shape (len(X), len(Y), d)."""
        Xa = np.asarray(X, dtype=np.float64)
        Ya = np.asarray(Y, dtype=np.float64)
        module = _exp_numba() if self._exp_profile is not None else None
        if module is not None and Xa.ndim == Ya.ndim == 2 and Xa.shape[1] == Ya.shape[1] and Xa.size and Ya.size:
            # the product engine's hot path: one compiled pass with a vectorised exponential
            # (``_exp_numba``; the argument is numpy's bit for bit, the exponential within 1 ulp)
            d = Xa.shape[1]
            ls = np.ascontiguousarray(np.broadcast_to(np.asarray(self.lengthscale, dtype=np.float64), (d,)))
            out = np.empty((Xa.shape[0], Ya.shape[0], d))
            module.stationary_factors(
                np.ascontiguousarray(Xa), np.ascontiguousarray(Ya), ls, self._exp_profile == "laplacian", out
            )
            return out
        u = np.subtract(Xa[:, None, :], Ya[None, :, :])
        np.divide(u, self.lengthscale, out=u)
        return self._profile_inplace(u)

    def pair_values(self, P: np.ndarray, Q: np.ndarray) -> np.ndarray:
        """profile((p_j - q_j) / l_j) for matched rows, shape (r, d) (see :meth:`Kernel.pair_values`)."""
        # stationary: k(p, q) depends on p - q only, so the pairs become rows against the origin
        diff = np.asarray(P, dtype=np.float64) - np.asarray(Q, dtype=np.float64)
        return self.feature_values(diff, np.zeros((1, diff.shape[1])))[:, 0, :]

    def pair_loop_params(self, d: int) -> PairParams | None:
        """The profile's code and the inverse lengthscales (see :meth:`Kernel.pair_loop_params`)."""
        if self._pair_code is None:
            return None
        ls = np.broadcast_to(np.asarray(self.lengthscale, dtype=np.float64), (d,))
        return np.full(d, self._pair_code, np.int64), 1.0 / ls, np.zeros(d)

    def _unit_gram(self, X: np.ndarray, Y: np.ndarray, same: bool) -> np.ndarray:
        """The Gram matrix without amplitude from the scaled inputs X / l, Y / l."""
        A = np.asarray(X, dtype=np.float64) / self.lengthscale
        B = A if same else np.asarray(Y, dtype=np.float64) / self.lengthscale
        return self._scaled_gram(A, B, same)

    def rescaled(self, scale: ArrayLike) -> Kernel:
        """The kernel on inputs x whose scaled version ``scale * x + shift`` this kernel sees."""
        scale = np.abs(np.asarray(scale, dtype=np.float64))
        return type(self)(lengthscale=self.lengthscale / scale, amplitude=self.amplitude)

    def __repr__(self) -> str:
        ls = self.lengthscale
        text = f"{float(ls):.4g}" if np.ndim(ls) == 0 else np.array2string(np.asarray(ls), precision=4)
        amp = "" if self.amplitude == 1.0 else f", amplitude={self.amplitude:.4g}"
        return f"{type(self).__name__}(lengthscale={text}{amp})"


class RBF(_Stationary):
    """Gaussian kernel exp(-(x - y)^2 / (2 l^2)) per feature (scikit-learn's RBF convention).

    Parameters
    ----------
    lengthscale : float or array of shape (d,)
        One positive lengthscale for every feature, or one per feature (ARD).
    amplitude : float
        Positive factor in front of the product.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.kernels import RBF
    >>> X = np.array([[0.0, 0.0], [1.0, 2.0]])
    >>> np.round(RBF(lengthscale=[1.0, 2.0])(X), 3)
    array([[1.   , 0.368],
           [0.368, 1.   ]])
    """

    _pair_code = PAIR_RBF
    _exp_profile = "rbf"

    def _profile(self, u: np.ndarray) -> np.ndarray:
        """The profile at u = (x - y) / l."""
        v = -0.5 * u * u
        return _exp_inplace(v) if isinstance(v, np.ndarray) else np.exp(v)

    def _profile_inplace(self, u: np.ndarray) -> np.ndarray:
        """exp(-0.5 u^2) in place: (-0.5 u) u and -0.5 (u u) are the same numbers (a power of two)."""
        np.multiply(u, u, out=u)
        np.multiply(u, -0.5, out=u)
        return _exp_inplace(u)

    def _scaled_gram(self, A: np.ndarray, B: np.ndarray, same: bool) -> np.ndarray:
        """exp(-||a - b||^2 / 2): one matrix product, exact differences where digits could be lost."""
        return _rbf_gram(A, B, same)


class Laplacian(_Stationary):
    """Laplacian kernel ``exp(-|x - y| / l)`` per feature (so the product is ``exp(-||x - y||_1 / l)``).

    Parameters
    ----------
    lengthscale : float or array of shape (d,)
        One positive lengthscale for every feature, or one per feature.
    amplitude : float
        Positive factor in front of the product.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.kernels import Laplacian
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0]])
    >>> np.round(Laplacian(lengthscale=2.0)(X), 3)
    array([[1.   , 0.368],
           [0.368, 1.   ]])
    """

    _pair_code = PAIR_LAPLACE
    _exp_profile = "laplacian"

    def _profile(self, u: np.ndarray) -> np.ndarray:
        """The profile at u = (x - y) / l."""
        v = -np.abs(u)
        return _exp_inplace(v) if isinstance(v, np.ndarray) else np.exp(v)

    def _profile_inplace(self, u: np.ndarray) -> np.ndarray:
        """exp(-|u|) in place."""
        np.abs(u, out=u)
        np.negative(u, out=u)
        return _exp_inplace(u)

    def _scaled_gram(self, A: np.ndarray, B: np.ndarray, same: bool) -> np.ndarray:
        """exp(-||a - b||_1): scipy's Manhattan distances, then one exponential."""
        return _laplacian_gram(A, B)


class Cauchy(_Stationary):
    """Cauchy kernel 1 / (1 + (x - y)^2 / l^2) per feature.

    Parameters
    ----------
    lengthscale : float or array of shape (d,)
        One positive lengthscale for every feature, or one per feature.
    amplitude : float
        Positive factor in front of the product.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.kernels import Cauchy
    >>> X = np.array([[0.0], [1.0]])
    >>> np.round(Cauchy(lengthscale=1.0)(X), 3)
    array([[1. , 0.5],
           [0.5, 1. ]])
    """

    _pair_code = PAIR_CAUCHY

    def _profile(self, u: np.ndarray) -> np.ndarray:
        """The profile at u = (x - y) / l."""
        return 1.0 / (1.0 + u * u)

    def _profile_inplace(self, u: np.ndarray) -> np.ndarray:
        """1 / (1 + u^2) in place."""
        np.multiply(u, u, out=u)
        np.add(u, 1.0, out=u)
        return np.divide(1.0, u, out=u)

    def _scaled_gram(self, A: np.ndarray, B: np.ndarray, same: bool) -> np.ndarray:
        """prod_j 1 / (1 + (a_j - b_j)^2), feature by feature (a division instead of a reciprocal)."""
        return _cauchy_gram(A, B)


class Categorical(Kernel):
    """1 for equal categories, ``mismatch`` (in [0, 1)) otherwise; any hashable labels.

    Parameters
    ----------
    mismatch : float
        Kernel value between different labels, in [0, 1).
    amplitude : float
        Positive factor in front of the product.
    n_features : int, optional
        Number of features it is defined on; None adapts to any number.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.kernels import Categorical
    >>> X = np.array([["red"], ["blue"], ["red"]], dtype=object)
    >>> Categorical(mismatch=0.25)(X)
    array([[1.  , 0.25, 1.  ],
           [0.25, 1.  , 0.25],
           [1.  , 0.25, 1.  ]])
    """

    numeric = False

    def __init__(self, mismatch: float = 0.0, amplitude: float = 1.0, n_features: int | None = None) -> None:
        value = float(check_param(mismatch, "mismatch", RealNumber(0, 1, closed="left")))
        if n_features is not None and (not isinstance(n_features, (int, np.integer)) or n_features < 1):
            raise ValueError(f"n_features must be a positive integer or None, got {n_features!r}.")
        self.mismatch: float = value
        self.amplitude = _check_amplitude(amplitude)
        self._n_features: int | None = None if n_features is None else int(n_features)

    @property
    def n_features(self) -> int | None:
        """The number of features given at construction, or None."""
        return self._n_features

    def feature_values(self, X: ArrayLike, Y: ArrayLike) -> np.ndarray:
        """1.0 where labels are equal and ``mismatch`` elsewhere, shape (len(X), len(Y), d).

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
        Xa = np.asarray(X)
        Ya = np.asarray(Y)
        eq = Xa[:, None, :] == Ya[None, :, :]
        return np.where(eq, 1.0, self.mismatch)

    def _unit_gram(self, X: np.ndarray, Y: np.ndarray, same: bool) -> np.ndarray:
        """``mismatch ** (number of features whose labels differ)``, from integer label codes."""
        return _mismatch_gram([(np.asarray(X), np.asarray(Y), self.mismatch)], len(X), len(Y))

    def pair_values(self, P: np.ndarray, Q: np.ndarray) -> np.ndarray:
        """1.0 where the matched labels are equal, else ``mismatch``, shape (r, d).

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
        return np.where(np.asarray(P) == np.asarray(Q), 1.0, self.mismatch)

    def pair_loop_params(self, d: int) -> PairParams | None:
        """The delta code and ``mismatch`` per feature (see :meth:`Kernel.pair_loop_params`).

        Parameters
        ----------
        d : int
            Number of features.

        Returns
        -------
        tuple of ndarray or None
            (codes, inverse lengthscales, mismatches), one entry per feature, or None for the numpy
            pair path.
        """
        return np.full(d, PAIR_DELTA, np.int64), np.ones(d), np.full(d, self.mismatch)

    def rescaled(self, scale: ArrayLike) -> Kernel:
        """The same kernel: a nonzero affine map keeps equal labels equal and others different.

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
        # an affine map with nonzero scale keeps equal labels equal and different ones different
        if np.any(np.asarray(scale) == 0):
            raise ValueError("a Categorical feature cannot be scaled by zero.")
        return self._copy()

    def __repr__(self) -> str:
        amp = "" if self.amplitude == 1.0 else f", amplitude={self.amplitude:.4g}"
        return f"Categorical(mismatch={self.mismatch:.4g}{amp})"


class ProductKernel(Kernel):
    """Product of kernels over blocks of features: a different one-dimensional kernel per feature.

    ``kernels`` is a list whose entries are either a kernel or a pair (kernel, features).  Plain
    kernels take consecutive features: one feature each, or as many as their per-feature
    lengthscale has entries.  Pairs name their feature indices explicitly; then every feature
    must be covered exactly once.

    Parameters
    ----------
    kernels : list of Kernel or of (Kernel, features) pairs
        Per-feature kernels (RBF, Laplacian, Cauchy, Categorical), in feature order or with
        explicit feature indices.
    amplitude : float
        Positive factor in front of the product (times the amplitudes of the parts).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.kernels import RBF, Categorical, ProductKernel
    >>> k = ProductKernel([RBF(1.0), Categorical(0.5)])
    >>> X = np.array([[0.0, "a"], [1.0, "b"]], dtype=object)
    >>> np.round(k(X), 3)
    array([[1.   , 0.303],
           [0.303, 1.   ]])
    >>> k.numeric_mask(2)
    array([ True, False])
    """

    def __init__(self, kernels: Any, amplitude: float = 1.0) -> None:
        if isinstance(kernels, Kernel) or not hasattr(kernels, "__iter__"):
            raise TypeError("kernels must be a list of kernels or of (kernel, features) pairs.")
        parts = []
        pos = 0
        explicit = None
        for entry in kernels:
            if isinstance(entry, tuple):
                if explicit is False:
                    raise ValueError("mix of plain kernels and (kernel, features) pairs; use one style.")
                explicit = True
                k, raw = entry
                feats = np.atleast_1d(np.asarray(raw, dtype=np.int64))
            else:
                if explicit is True:
                    raise ValueError("mix of plain kernels and (kernel, features) pairs; use one style.")
                explicit = False
                k = entry
                size = k.n_features if isinstance(k, Kernel) and k.n_features else 1
                feats = np.arange(pos, pos + size)
                pos += size
            if not isinstance(k, Kernel) or isinstance(k, (ProductKernel, SumKernel)):
                raise TypeError(
                    f"each entry of a ProductKernel must be a per-feature kernel (RBF, Laplacian, "
                    f"Cauchy, Categorical), got {k!r}."
                )
            if k.n_features is not None and k.n_features != len(feats):
                raise ValueError(f"kernel {k!r} is defined on {k.n_features} features but given {len(feats)}.")
            parts.append((k, feats))
        if not parts:
            raise ValueError("kernels must not be empty.")
        allf = np.concatenate([f for _, f in parts])
        d = len(allf)
        if np.any(allf < 0) or sorted(allf.tolist()) != list(range(d)):
            raise ValueError(
                f"the features of a ProductKernel must cover 0..d-1 exactly once, got {sorted(allf.tolist())}."
            )
        self.parts = parts
        self._d = d
        self.amplitude = _check_amplitude(amplitude)

    @property
    def n_features(self) -> int:
        """The number of features covered by the parts."""
        return self._d

    @property
    def total_amplitude(self) -> float:
        """The amplitude times the amplitudes of the parts."""
        return self.amplitude * float(np.prod([k.amplitude for k, _ in self.parts]))

    def _unit_gram(self, X: np.ndarray, Y: np.ndarray, same: bool) -> np.ndarray:
        """Product of the parts' Gram matrices, parts of one kind merged into one distance.

        All RBF parts make one RBF with per-feature lengthscales (likewise the parts of any other
        stationary kernel: one :meth:`_Stationary._scaled_gram` call per kind), all Categorical
        parts one count of differing labels per mismatch value; any other per-feature kernel
        contributes its own Gram matrix.
        """
        n, m = len(X), len(Y)
        stationary: dict[Any, list[tuple[_Stationary, np.ndarray, np.ndarray]]] = {}
        labels: dict[float, list[np.ndarray]] = {}
        others: list[tuple[Kernel, np.ndarray]] = []
        for k, feats in self.parts:
            if isinstance(k, _Stationary):
                ls = np.broadcast_to(np.asarray(k.lengthscale, dtype=np.float64), (len(feats),))
                stationary.setdefault(k._merge_key(), []).append((k, feats, ls))
            elif type(k) is Categorical:
                labels.setdefault(k.mismatch, []).append(feats)
            else:
                others.append((k, feats))
        out: np.ndarray | None = None
        for entries in stationary.values():
            feats = np.concatenate([f for _, f, _ in entries])
            ls = np.concatenate([v for _, _, v in entries])
            A = np.asarray(X[:, feats], dtype=np.float64) / ls
            B = A if same else np.asarray(Y[:, feats], dtype=np.float64) / ls
            K = entries[0][0]._scaled_gram(A, B, same)
            out = K if out is None else np.multiply(out, K, out=out)
        if labels:
            groups = []
            for mismatch, fs in labels.items():
                feats = np.concatenate(fs)
                groups.append((X[:, feats], Y[:, feats], mismatch))
            K = _mismatch_gram(groups, n, m)
            out = K if out is None else np.multiply(out, K, out=out)
        for k, feats in others:
            xs, ys = X[:, feats], Y[:, feats]
            if k.numeric:
                xs, ys = xs.astype(np.float64), ys.astype(np.float64)
            K = k._unit_gram(xs, ys, same)
            out = K if out is None else np.multiply(out, K, out=out)
        return np.ones((n, m)) if out is None else out

    def pair_values(self, P: np.ndarray, Q: np.ndarray) -> np.ndarray:
        """The parts' values on their features for matched rows, shape (r, d).

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
        r = np.shape(P)[0]
        out = np.empty((r, self._d))
        for k, feats in self.parts:
            ps, qs = P[:, feats], Q[:, feats]
            if k.numeric:
                ps, qs = ps.astype(np.float64), qs.astype(np.float64)
            out[:, feats] = k.pair_values(ps, qs)
        return out

    def pair_loop_params(self, d: int) -> PairParams | None:
        """The parts' codes on their features, or None when a part has none.

        Parameters
        ----------
        d : int
            Number of features.

        Returns
        -------
        tuple of ndarray or None
            (codes, inverse lengthscales, mismatches), one entry per feature, or None for the numpy
            pair path.
        """
        self.check_n_features(d)
        kinds, inv, mism = np.empty(d, np.int64), np.empty(d), np.empty(d)
        for k, feats in self.parts:
            params = k.pair_loop_params(len(feats))
            if params is None:
                return None
            kinds[feats], inv[feats], mism[feats] = params
        return kinds, inv, mism

    def diag_value(self) -> float:
        """k(x, x): the total amplitude.

        Returns
        -------
        float
            k(x, x), the amplitude.
        """
        return self.total_amplitude

    def feature_values(self, X: ArrayLike, Y: ArrayLike) -> np.ndarray:
        """Per-feature values of the parts, without amplitudes, shape (len(X), len(Y), d).

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
        Xa = np.asarray(X)
        Ya = np.asarray(Y)
        out = np.empty((Xa.shape[0], Ya.shape[0], self._d))
        for k, feats in self.parts:
            xs, ys = Xa[:, feats], Ya[:, feats]
            if k.numeric:
                xs, ys = xs.astype(np.float64), ys.astype(np.float64)
            out[:, :, feats] = k.feature_values(xs, ys)
        return out

    def numeric_mask(self, d: int) -> np.ndarray:
        """Boolean array (d,): which features the parts need as numbers.

        Parameters
        ----------
        d : int
            Number of features.

        Returns
        -------
        ndarray of bool, shape (d,)
            True for the features the kernel needs as numbers.
        """
        self.check_n_features(d)
        mask = np.ones(d, dtype=bool)
        for k, feats in self.parts:
            mask[feats] = k.numeric
        return mask

    def rescaled(self, scale: ArrayLike) -> ProductKernel:
        """Every part rescaled by the entries of ``scale`` on its features.

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
        scale = np.broadcast_to(np.asarray(scale, dtype=np.float64), (self._d,))
        parts = [(k.rescaled(scale[f]), f) for k, f in self.parts]
        return ProductKernel(parts, amplitude=self.amplitude)

    def __repr__(self) -> str:
        inner = ", ".join(f"{k!r}@{f.tolist()}" for k, f in self.parts)
        amp = "" if self.amplitude == 1.0 else f", amplitude={self.amplitude:.4g}"
        return f"ProductKernel([{inner}]{amp})"


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

"""Stationary kernels: ``k_j(x, y) = profile(|x - y| / l_j)``, one lengthscale or one per feature (ARD).

:class:`RBF`, :class:`Laplacian` and :class:`Cauchy` on the base :class:`_Stationary`, which owns
the lengthscale check, the default lengthscale (``from_data``), the per-feature factors (the
compiled pass with the vectorised exponential of ``kexplain._exp_numba`` where numba is usable)
and the Gram path on scaled inputs.  Every name is imported from :mod:`kexplain.kernels.base`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._optional import compiled_or_none
from ._gram import _cauchy_gram, _laplacian_gram, _rbf_gram, profile_gram
from .heuristics import default_lengthscale
from .kernel import PAIR_CAUCHY, PAIR_LAPLACE, PAIR_RBF, Kernel, PairParams, _check_amplitude

#: the switch of the compiled exponential: empty (the default) loads it on first use; tests and
#: benchmarks/bench_exp.py put None in it for numpy's exp on every path (and the module back)
_EXP_NUMBA: list[Any] = []


@compiled_or_none
def _load_exp_numba() -> Any:
    """The module ``kexplain._exp_numba``, imported once; None without (usable) numba (the helper's rule)."""
    from .. import _exp_numba as module

    return module


def _exp_numba() -> Any:
    """The compiled exponential's module ``kexplain._exp_numba``, or None without (usable) numba (numpy's exp then)."""
    if _EXP_NUMBA:
        return _EXP_NUMBA[0]
    return _load_exp_numba()


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
            ls = np.asarray(self.lengthscale, dtype=np.float64)
            # a scalar lengthscale by np.full: broadcast_to is a Python function, as slow as the
            # compiled pass at one explained point (the same numbers either way)
            ls = np.full(d, ls) if ls.ndim == 0 else np.ascontiguousarray(np.broadcast_to(ls, (d,)))
            out = np.empty((Xa.shape[0], Ya.shape[0], d))
            module.stationary_factors(
                np.ascontiguousarray(Xa), np.ascontiguousarray(Ya), ls, self._exp_profile == "laplacian", out
            )
            return out
        u = np.subtract(Xa[:, None, :], Ya[None, :, :])
        np.divide(u, self.lengthscale, out=u)
        return self._profile_inplace(u)

    def compiled_factor_spec(self, d: int) -> tuple[np.ndarray, bool] | None:
        """(lengthscales (d,), laplacian) when :meth:`feature_values` takes the compiled pass, else None.

        The product engine's fused functional kernel computes the factors of such a kernel itself,
        the same numbers bit for bit as :meth:`feature_values` (``kexplain._exp_numba``); None
        for profiles without the compiled exponential (Cauchy) or without (usable) numba.

        Parameters
        ----------
        d : int
            Number of features.

        Returns
        -------
        tuple of (ndarray of shape (d,), bool) or None
            The lengthscale of each feature and whether the profile is the Laplacian's (else the
            RBF's); None where the factors do not take the compiled pass.

        Examples
        --------
        >>> from kexplain.kernels import Cauchy, RBF
        >>> spec = RBF(2.0).compiled_factor_spec(3)
        >>> spec is None or (spec[0].tolist(), spec[1]) == ([2.0, 2.0, 2.0], False)
        True
        >>> Cauchy(1.0).compiled_factor_spec(3) is None
        True
        """
        if self._exp_profile is None or _exp_numba() is None:
            return None
        ls = np.asarray(self.lengthscale, dtype=np.float64)
        # as feature_values builds them (np.full for a scalar): the same numbers
        ls = np.full(d, ls) if ls.ndim == 0 else np.ascontiguousarray(np.broadcast_to(ls, (d,)))
        return ls, self._exp_profile == "laplacian"

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

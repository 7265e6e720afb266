"""Per-feature kernels and their products.

Every kernel here is a product over features of one-dimensional kernels times an amplitude:

    k(x, y) = amplitude * prod_j k_j(x_j, y_j).

That is the structure the product-game engine needs: ``feature_values(X, Y)`` returns the
per-feature factors k_j(X_pj, Y_rj) as an array of shape (p, r, d).  Conventions follow
scikit-learn: RBF = exp(-(x - y)^2 / (2 l^2)), Laplacian = exp(-|x - y| / l),
Cauchy = 1 / (1 + (x - y)^2 / l^2), with one lengthscale for all features or one per feature (ARD).

Gram matrices (``kernel(X, Y)``) never build the (p, r, d) factor tensor; how each kernel's is
computed, in bounded blocks, is in ``kernels/_gram.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._gram import _STATIONARY_GRAMS, _gram_inputs, _mismatch_gram, _row_step


def _check_amplitude(amplitude: Any) -> float:
    """``amplitude`` as a float, or a ValueError when it is not a positive finite number."""
    value = float("nan")
    if not isinstance(amplitude, (bool, np.bool_)) and isinstance(amplitude, Real):
        value = float(amplitude)
    if not (np.isfinite(value) and value > 0):
        raise ValueError(f"amplitude must be a positive finite number, got {amplitude!r}.")
    return value


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

    #: number of features the kernel is defined on, or None when it adapts to any number
    @property
    def n_features(self) -> int | None:
        """Number of features the kernel is defined on, or None when it adapts to any number."""
        return None

    #: True when inputs must be numeric (False for kernels that compare labels)
    numeric: bool = True

    def feature_values(self, X: ArrayLike, Y: ArrayLike) -> np.ndarray:
        """Per-feature kernel values, shape (len(X), len(Y), d), without the amplitude."""
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
        """k(x, x), which is the amplitude for every kernel here."""
        return self.amplitude

    def check_n_features(self, d: int, name: str = "X") -> None:
        """Raise a ValueError naming ``name`` when the kernel is defined on another number of features."""
        nf = self.n_features
        if nf is not None and nf != d:
            raise ValueError(f"{name} has {d} features but the kernel {self!r} is defined on {nf} features.")

    def rescaled(self, scale: np.ndarray) -> Kernel:
        """The same kernel seen from inputs x with x_scaled = scale * x + shift (per feature)."""
        raise NotImplementedError

    def numeric_mask(self, d: int) -> np.ndarray:
        """Boolean array (d,): which features this kernel needs as numbers."""
        return np.full(d, self.numeric, dtype=bool)

    def __mul__(self, other: Any) -> Any:
        if isinstance(other, Real) and not isinstance(other, bool):
            new = self._copy()
            new.amplitude = _check_amplitude(self.amplitude * float(other))
            return new
        return NotImplemented

    __rmul__ = __mul__

    def _copy(self) -> Any:
        """A deep copy of this kernel."""
        import copy

        return copy.deepcopy(self)


class _Stationary(Kernel):
    """``k_j(x, y) = profile(|x - y| / l_j)``, one lengthscale or one per feature."""

    name = "stationary"
    #: which distance-based Gram formula applies ("rbf", "laplacian", "cauchy"); None: the generic one
    _kind: str | None = None

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

    @property
    def n_features(self) -> int | None:
        """None for one shared lengthscale, else the number of per-feature lengthscales."""
        return None if np.ndim(self.lengthscale) == 0 else int(np.size(self.lengthscale))

    def _profile(self, u: np.ndarray) -> np.ndarray:
        """The one-dimensional kernel as a function of u = (x - y) / l."""
        raise NotImplementedError

    def feature_values(self, X: ArrayLike, Y: ArrayLike) -> np.ndarray:
        """Per-feature values profile((x_j - y_j) / l_j), shape (len(X), len(Y), d)."""
        Xa = np.asarray(X, dtype=np.float64)
        Ya = np.asarray(Y, dtype=np.float64)
        u = (Xa[:, None, :] - Ya[None, :, :]) / self.lengthscale
        return self._profile(u)

    def _unit_gram(self, X: np.ndarray, Y: np.ndarray, same: bool) -> np.ndarray:
        """The Gram matrix without amplitude from distances of the scaled inputs X / l, Y / l."""
        kind = self._kind
        if kind is None:
            return super()._unit_gram(X, Y, same)
        A = np.asarray(X, dtype=np.float64) / self.lengthscale
        B = A if same else np.asarray(Y, dtype=np.float64) / self.lengthscale
        return _STATIONARY_GRAMS[kind](A, B, same)

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

    _kind = "rbf"

    def _profile(self, u: np.ndarray) -> np.ndarray:
        """The profile at u = (x - y) / l."""
        return np.exp(-0.5 * u * u)


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

    _kind = "laplacian"

    def _profile(self, u: np.ndarray) -> np.ndarray:
        """The profile at u = (x - y) / l."""
        return np.exp(-np.abs(u))


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

    _kind = "cauchy"

    def _profile(self, u: np.ndarray) -> np.ndarray:
        """The profile at u = (x - y) / l."""
        return 1.0 / (1.0 + u * u)


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
        value = float("nan")
        if not isinstance(mismatch, (bool, np.bool_)) and isinstance(mismatch, Real):
            value = float(mismatch)
        if not 0.0 <= value < 1.0:
            raise ValueError(f"mismatch must be a number in [0, 1), got {mismatch!r}.")
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
        """1.0 where labels are equal and ``mismatch`` elsewhere, shape (len(X), len(Y), d)."""
        Xa = np.asarray(X)
        Ya = np.asarray(Y)
        eq = Xa[:, None, :] == Ya[None, :, :]
        return np.where(eq, 1.0, self.mismatch)

    def _unit_gram(self, X: np.ndarray, Y: np.ndarray, same: bool) -> np.ndarray:
        """``mismatch ** (number of features whose labels differ)``, from integer label codes."""
        return _mismatch_gram([(np.asarray(X), np.asarray(Y), self.mismatch)], len(X), len(Y))

    def rescaled(self, scale: ArrayLike) -> Kernel:
        """The same kernel: a nonzero affine map keeps equal labels equal and others different."""
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

        All RBF parts make one RBF with per-feature lengthscales (likewise Laplacian and Cauchy
        parts), all Categorical parts one count of differing labels per mismatch value; any other
        per-feature kernel contributes its own Gram matrix.
        """
        n, m = len(X), len(Y)
        stationary: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {}
        labels: dict[float, list[np.ndarray]] = {}
        others: list[tuple[Kernel, np.ndarray]] = []
        for k, feats in self.parts:
            kind = getattr(k, "_kind", None)
            if isinstance(k, _Stationary) and kind is not None:
                ls = np.broadcast_to(np.asarray(k.lengthscale, dtype=np.float64), (len(feats),))
                stationary.setdefault(kind, []).append((feats, ls))
            elif type(k) is Categorical:
                labels.setdefault(k.mismatch, []).append(feats)
            else:
                others.append((k, feats))
        out: np.ndarray | None = None
        for kind, entries in stationary.items():
            feats = np.concatenate([f for f, _ in entries])
            ls = np.concatenate([v for _, v in entries])
            A = np.asarray(X[:, feats], dtype=np.float64) / ls
            B = A if same else np.asarray(Y[:, feats], dtype=np.float64) / ls
            K = _STATIONARY_GRAMS[kind](A, B, same)
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

    def diag_value(self) -> float:
        """k(x, x): the total amplitude."""
        return self.total_amplitude

    def feature_values(self, X: ArrayLike, Y: ArrayLike) -> np.ndarray:
        """Per-feature values of the parts, without amplitudes, shape (len(X), len(Y), d)."""
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
        """Boolean array (d,): which features the parts need as numbers."""
        self.check_n_features(d)
        mask = np.ones(d, dtype=bool)
        for k, feats in self.parts:
            mask[feats] = k.numeric
        return mask

    def rescaled(self, scale: ArrayLike) -> ProductKernel:
        """Every part rescaled by the entries of ``scale`` on its features."""
        scale = np.broadcast_to(np.asarray(scale, dtype=np.float64), (self._d,))
        parts = [(k.rescaled(scale[f]), f) for k, f in self.parts]
        return ProductKernel(parts, amplitude=self.amplitude)

    def __repr__(self) -> str:
        inner = ", ".join(f"{k!r}@{f.tolist()}" for k, f in self.parts)
        amp = "" if self.amplitude == 1.0 else f", amplitude={self.amplitude:.4g}"
        return f"ProductKernel([{inner}]{amp})"


class SumKernel:
    """Sum of product kernels, k = sum_t k_t.  Each term is a product kernel, so a model built on
    a SumKernel is still a product game, with one row per (term, reference point).

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
        """Raise a ValueError naming ``name`` when a term is defined on another number of features."""
        for t in self.terms:
            t.check_n_features(d, name)

    def numeric_mask(self, d: int) -> np.ndarray:
        """Boolean array (d,): which features some term needs as numbers."""
        masks = [t.numeric_mask(d) for t in self.terms]
        return np.logical_or.reduce(masks)

    def rescaled(self, scale: ArrayLike) -> SumKernel:
        """Every term rescaled (see :meth:`Kernel.rescaled`)."""
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
        Y : array-like of shape (m, d), optional
            None means X.
        check_input : bool
            Validate X and Y once for all terms (see :meth:`Kernel.gram`).
        feature_names : sequence of str, optional
            Names of the features for error messages (see :meth:`Kernel.gram`).

        Returns
        -------
        ndarray of shape (n, m)

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
        out = self.terms[0].gram(Xa, None if same else Ya, check_input=False)
        for t in self.terms[1:]:
            out += t.gram(Xa, None if same else Ya, check_input=False)
        return out

    def __mul__(self, other: Any) -> Any:
        # an overall amplitude multiplies every term
        if isinstance(other, Real) and not isinstance(other, bool):
            return SumKernel([t * other for t in self.terms])
        return NotImplemented

    __rmul__ = __mul__

    def diag_value(self) -> float:
        """k(x, x): the sum of the terms' amplitudes."""
        return float(sum(t.diag_value() for t in self.terms))

    def __repr__(self) -> str:
        return " + ".join(repr(t) for t in self.terms)


def kernel_terms(kernel: Kernel | SumKernel) -> list[Kernel]:
    """The product-kernel terms of a kernel: ``[kernel]`` or the terms of a SumKernel.

    Parameters
    ----------
    kernel : Kernel or SumKernel

    Returns
    -------
    list of Kernel

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
    return kernel.total_amplitude if isinstance(kernel, ProductKernel) else kernel.amplitude

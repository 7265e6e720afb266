"""Per-feature kernels and their products.

Every kernel here is a product over features of one-dimensional kernels times an amplitude:

    k(x, y) = amplitude * prod_j k_j(x_j, y_j).

That is the structure the product-game engine needs: ``feature_values(X, Y)`` returns the
per-feature factors k_j(X_pj, Y_rj) as an array of shape (p, r, d).  Conventions follow
scikit-learn: RBF = exp(-(x - y)^2 / (2 l^2)), Laplacian = exp(-|x - y| / l),
Cauchy = 1 / (1 + (x - y)^2 / l^2), with one lengthscale for all features or one per feature (ARD).
"""
from __future__ import annotations

from numbers import Real

import numpy as np


def _gram_inputs(kernel, X, Y):
    """2-D arrays X and Y with the same number of features, which the kernel accepts."""
    X = np.asarray(X)
    Y = X if Y is None else np.asarray(Y)
    if X.ndim == 1:
        X = X[:, None]
    if Y.ndim == 1:
        Y = Y[:, None]
    if X.ndim != 2 or Y.ndim != 2:
        raise ValueError(f"X and Y must be 2-D arrays (n_samples, n_features), got shapes {X.shape} and {Y.shape}.")
    if X.shape[1] != Y.shape[1]:
        raise ValueError(
            f"X and Y must have the same number of features, got {X.shape[1]} and {Y.shape[1]}."
        )
    kernel.check_n_features(X.shape[1])
    return X, Y


def _check_amplitude(amplitude):
    if isinstance(amplitude, (bool, np.bool_)) or not isinstance(amplitude, Real) or not (
        np.isfinite(amplitude) and amplitude > 0
    ):
        raise ValueError(f"amplitude must be a positive finite number, got {amplitude!r}.")
    return float(amplitude)


class Kernel:
    """Base class: a product over features of one-dimensional kernels, times ``amplitude``."""

    amplitude: float = 1.0

    #: number of features the kernel is defined on, or None when it adapts to any number
    @property
    def n_features(self) -> int | None:
        return None

    #: True when inputs must be numeric (False for kernels that compare labels)
    numeric: bool = True

    def feature_values(self, X, Y) -> np.ndarray:
        """Per-feature kernel values, shape (len(X), len(Y), d), without the amplitude."""
        raise NotImplementedError

    def __call__(self, X, Y=None) -> np.ndarray:
        """Gram matrix amplitude * prod_j k_j(X_pj, Y_rj), shape (len(X), len(Y))."""
        X, Y = _gram_inputs(self, X, Y)
        return self.amplitude * np.prod(self.feature_values(X, Y), axis=-1)

    def diag_value(self) -> float:
        """k(x, x), which is the amplitude for every kernel here."""
        return self.amplitude

    def check_n_features(self, d: int, name: str = "X") -> None:
        nf = self.n_features
        if nf is not None and nf != d:
            raise ValueError(
                f"{name} has {d} features but the kernel {self!r} is defined on {nf} features."
            )

    def rescaled(self, scale: np.ndarray) -> "Kernel":
        """The same kernel seen from inputs x with x_scaled = scale * x + shift (per feature)."""
        raise NotImplementedError

    def numeric_mask(self, d: int) -> np.ndarray:
        """Boolean array (d,): which features this kernel needs as numbers."""
        return np.full(d, self.numeric, dtype=bool)

    def __mul__(self, other):
        if isinstance(other, Real) and not isinstance(other, bool):
            new = self._copy()
            new.amplitude = _check_amplitude(self.amplitude * float(other))
            return new
        return NotImplemented

    __rmul__ = __mul__

    def _copy(self):
        import copy

        return copy.deepcopy(self)


class _Stationary(Kernel):
    """k_j(x, y) = profile(|x - y| / l_j), one lengthscale or one per feature."""

    name = "stationary"

    def __init__(self, lengthscale=1.0, amplitude: float = 1.0):
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
        self.lengthscale = float(ls) if ls.ndim == 0 else ls
        self.amplitude = _check_amplitude(amplitude)

    @property
    def n_features(self):
        return None if np.ndim(self.lengthscale) == 0 else len(self.lengthscale)

    def _profile(self, u: np.ndarray) -> np.ndarray:   # u = (x - y) / l
        raise NotImplementedError

    def feature_values(self, X, Y):
        X = np.asarray(X, dtype=np.float64)
        Y = np.asarray(Y, dtype=np.float64)
        u = (X[:, None, :] - Y[None, :, :]) / self.lengthscale
        return self._profile(u)

    def rescaled(self, scale):
        scale = np.abs(np.asarray(scale, dtype=np.float64))
        return type(self)(lengthscale=self.lengthscale / scale, amplitude=self.amplitude)

    def __repr__(self):
        ls = self.lengthscale
        ls = f"{ls:.4g}" if np.ndim(ls) == 0 else np.array2string(np.asarray(ls), precision=4)
        amp = "" if self.amplitude == 1.0 else f", amplitude={self.amplitude:.4g}"
        return f"{type(self).__name__}(lengthscale={ls}{amp})"


class RBF(_Stationary):
    """Gaussian kernel exp(-(x - y)^2 / (2 l^2)) per feature (scikit-learn's RBF convention)."""

    def _profile(self, u):
        return np.exp(-0.5 * u * u)


class Laplacian(_Stationary):
    """Laplacian kernel exp(-|x - y| / l) per feature (so the product is exp(-||x - y||_1 / l))."""

    def _profile(self, u):
        return np.exp(-np.abs(u))


class Cauchy(_Stationary):
    """Cauchy kernel 1 / (1 + (x - y)^2 / l^2) per feature."""

    def _profile(self, u):
        return 1.0 / (1.0 + u * u)


class Categorical(Kernel):
    """1 for equal categories, ``mismatch`` (in [0, 1)) otherwise; any hashable labels."""

    numeric = False

    def __init__(self, mismatch: float = 0.0, amplitude: float = 1.0, n_features: int | None = None):
        if isinstance(mismatch, (bool, np.bool_)) or not isinstance(mismatch, Real) or not (
            0.0 <= mismatch < 1.0
        ):
            raise ValueError(f"mismatch must be a number in [0, 1), got {mismatch!r}.")
        if n_features is not None and (not isinstance(n_features, (int, np.integer)) or n_features < 1):
            raise ValueError(f"n_features must be a positive integer or None, got {n_features!r}.")
        self.mismatch = float(mismatch)
        self.amplitude = _check_amplitude(amplitude)
        self._n_features = None if n_features is None else int(n_features)

    @property
    def n_features(self):
        return self._n_features

    def feature_values(self, X, Y):
        X = np.asarray(X)
        Y = np.asarray(Y)
        eq = X[:, None, :] == Y[None, :, :]
        return np.where(eq, 1.0, self.mismatch)

    def rescaled(self, scale):
        # an affine map with nonzero scale keeps equal labels equal and different ones different
        if np.any(np.asarray(scale) == 0):
            raise ValueError("a Categorical feature cannot be scaled by zero.")
        return self._copy()

    def __repr__(self):
        amp = "" if self.amplitude == 1.0 else f", amplitude={self.amplitude:.4g}"
        return f"Categorical(mismatch={self.mismatch:.4g}{amp})"


class ProductKernel(Kernel):
    """Product of kernels over blocks of features: a different one-dimensional kernel per feature.

    ``kernels`` is a list whose entries are either a kernel or a pair (kernel, features).  Plain
    kernels take consecutive features: one feature each, or as many as their per-feature
    lengthscale has entries.  Pairs name their feature indices explicitly; then every feature
    must be covered exactly once.
    """

    def __init__(self, kernels, amplitude: float = 1.0):
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
                k, feats = entry
                feats = np.atleast_1d(np.asarray(feats, dtype=np.int64))
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
    def n_features(self):
        return self._d

    @property
    def total_amplitude(self):
        return self.amplitude * float(np.prod([k.amplitude for k, _ in self.parts]))

    def __call__(self, X, Y=None):
        X, Y = _gram_inputs(self, X, Y)
        return self.total_amplitude * np.prod(self.feature_values(X, Y), axis=-1)

    def diag_value(self):
        return self.total_amplitude

    def feature_values(self, X, Y):
        X = np.asarray(X)
        Y = np.asarray(Y)
        out = np.empty((X.shape[0], Y.shape[0], self._d))
        for k, feats in self.parts:
            xs, ys = X[:, feats], Y[:, feats]
            if k.numeric:
                xs, ys = xs.astype(np.float64), ys.astype(np.float64)
            out[:, :, feats] = k.feature_values(xs, ys)
        return out

    def numeric_mask(self, d):
        self.check_n_features(d)
        mask = np.ones(d, dtype=bool)
        for k, feats in self.parts:
            mask[feats] = k.numeric
        return mask

    def rescaled(self, scale):
        scale = np.broadcast_to(np.asarray(scale, dtype=np.float64), (self._d,))
        parts = [(k.rescaled(scale[f]), f) for k, f in self.parts]
        return ProductKernel(parts, amplitude=self.amplitude)

    def __repr__(self):
        inner = ", ".join(f"{k!r}@{f.tolist()}" for k, f in self.parts)
        amp = "" if self.amplitude == 1.0 else f", amplitude={self.amplitude:.4g}"
        return f"ProductKernel([{inner}]{amp})"


class SumKernel:
    """Sum of product kernels, k = sum_t k_t.  Each term is a product kernel, so a model built on
    a SumKernel is still a product game, with one row per (term, reference point)."""

    def __init__(self, terms):
        terms = list(terms)
        if not terms or not all(isinstance(t, Kernel) and not isinstance(t, SumKernel) for t in terms):
            raise TypeError("terms must be a non-empty list of product kernels.")
        self.terms = terms

    @property
    def n_features(self):
        nfs = {t.n_features for t in self.terms if t.n_features is not None}
        if len(nfs) > 1:
            raise ValueError(f"the terms of a SumKernel disagree on the number of features: {nfs}.")
        return nfs.pop() if nfs else None

    def check_n_features(self, d, name="X"):
        for t in self.terms:
            t.check_n_features(d, name)

    def numeric_mask(self, d):
        masks = [t.numeric_mask(d) for t in self.terms]
        return np.logical_or.reduce(masks)

    def rescaled(self, scale):
        return SumKernel([t.rescaled(scale) for t in self.terms])

    def __call__(self, X, Y=None):
        return sum(t(X, Y) for t in self.terms)

    def __mul__(self, other):
        # an overall amplitude multiplies every term
        if isinstance(other, Real) and not isinstance(other, bool):
            return SumKernel([t * other for t in self.terms])
        return NotImplemented

    __rmul__ = __mul__

    def diag_value(self):
        return sum(t.diag_value() for t in self.terms)

    def __repr__(self):
        return " + ".join(repr(t) for t in self.terms)


def kernel_terms(kernel) -> list:
    """The product-kernel terms of a kernel: [kernel] or the terms of a SumKernel."""
    if isinstance(kernel, SumKernel):
        return list(kernel.terms)
    if isinstance(kernel, Kernel):
        return [kernel]
    from ..exceptions import UnsupportedModelError   # a TypeError, so existing handlers still work

    raise UnsupportedModelError(
        f"kernel must be a kexplain kernel (RBF, Laplacian, Cauchy, Categorical, ProductKernel, "
        f"SumKernel), got {type(kernel).__name__}. Use kx.kernels.from_sklearn to convert a "
        "scikit-learn kernel."
    )


def term_amplitude(kernel: Kernel) -> float:
    return kernel.total_amplitude if isinstance(kernel, ProductKernel) else kernel.amplitude

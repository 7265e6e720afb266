"""Products over blocks of features: a different one-dimensional kernel per feature.

:class:`ProductKernel` puts each part on its own features; its Gram matrix merges the parts of one
kind (all RBF parts, all Categorical parts of one mismatch, ...) into one distance.  Every name is
imported from :mod:`kexplain.kernels.base`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._gram import _mismatch_gram
from .categorical import Categorical
from .kernel import Kernel, PairParams, SumKernel, _check_amplitude
from .stationary import _Stationary


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

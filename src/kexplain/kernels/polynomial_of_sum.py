"""PolynomialOfSum: a polynomial of a sum of per-feature terms, the class the dot-product kernels share.

    k(x, y) = sum_q A_q prod_f (u(x, y) + e_qf),   u(x, y) = sum_j h_j(x_j, y_j)

with h_j(x, y) = gamma_j (x - m_j)(y - m_j) (a weighted, centred dot product) or
h_j(x, y) = -gamma_j (x - y)^2 / (x + y) (the additive chi-squared term).  The polynomial is kept
as products of linear factors, so (gamma <x, y> + coef0)^p is one term with p equal offsets coef0
and its values are exact products (no expansion into powers).  Its sums, products and powers stay
in the class.  Every name here is still imported from :mod:`kexplain.kernels.dot_product`.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral, Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._params import Real as RealNumber  # numbers.Real is the type test here
from .._params import check_param
from ..exceptions import UnsupportedModelError

#: the per-feature terms a kernel of this module can sum
INNER_KINDS = ("dot", "additive_chi2")


def _finite(value: Any, name: str) -> float:
    """``value`` as a finite float, else a ValueError naming ``name``."""
    return float(check_param(value, name, RealNumber(), what="a finite real number"))


def _per_feature(value: Any, name: str, positive: bool = True) -> float | np.ndarray:
    """A positive finite number, or a 1-D array of them (one per feature)."""
    if np.ndim(value) == 0:
        v = _finite(value, name)
        if positive and v <= 0:
            raise ValueError(f"{name} must be positive, got {value!r}.")
        return v
    arr = np.asarray(value)
    if arr.ndim != 1 or arr.dtype.kind not in "iuf" or not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be a finite number or a 1-D array of finite numbers, got {value!r}.")
    arr = arr.astype(np.float64)
    if positive and np.any(arr <= 0):
        raise ValueError(f"{name} must be positive, got {value!r}.")
    return arr


class PolynomialOfSum:
    """A polynomial of a sum of per-feature terms: k(x, y) = P(sum_j h_j(x_j, y_j)).

    P(u) = sum_q A_q prod_f (u + e_qf), given as ``terms = [(A_q, [e_q1, e_q2, ...]), ...]``.

    Parameters
    ----------
    terms : sequence of (float, sequence of float)
        The polynomial; an empty offset list is a constant term.
    inner : {"dot", "additive_chi2"}
        h_j(x, y) = gamma_j (x - m_j)(y - m_j), or -gamma_j (x - y)^2 / (x + y) (0 where x + y = 0,
        as scikit-learn computes it; inputs must be non-negative).
    gamma : float or array of shape (d,)
        Positive weight of each feature's term.
    center : float or array of shape (d,)
        m_j of the dot product (0 in scikit-learn; a Pipeline's scaler moves it).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.kernels.dot_product import PolynomialOfSum
    >>> k = PolynomialOfSum([(1.0, [1.0, 1.0]), (0.5, [])])     # (u + 1)^2 + 0.5
    >>> k(np.array([[1.0, 2.0]]), np.array([[1.0, 0.0], [0.0, 1.0]]))
    array([[4.5, 9.5]])
    >>> k.degree
    2
    """

    def __init__(
        self,
        terms: Sequence[tuple[float, Sequence[float]]],
        inner: str = "dot",
        gamma: float | ArrayLike = 1.0,
        center: float | ArrayLike = 0.0,
    ) -> None:
        from ..shapley.polynomial import check_polynomial

        if inner not in INNER_KINDS:
            raise ValueError(f"inner must be one of {INNER_KINDS}, got {inner!r}.")
        self.terms = check_polynomial(terms)
        self.inner = inner
        self.gamma = _per_feature(gamma, "gamma")
        self.center = _per_feature(center, "center", positive=False)
        if inner == "additive_chi2" and np.any(np.asarray(self.center) != 0):
            raise ValueError("center applies to the dot product only (inner='dot').")

    @property
    def degree(self) -> int:
        """The degree of the polynomial."""
        from ..shapley.polynomial import polynomial_degree

        return polynomial_degree(self.terms)

    @property
    def n_features(self) -> int | None:
        """Number of features when gamma or center has one entry per feature, else None."""
        for v in (self.gamma, self.center):
            if np.ndim(v) == 1:
                return int(np.size(v))
        return None

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

    def feature_terms(self, X: ArrayLike, Y: ArrayLike) -> np.ndarray:
        """h_j(X_pj, Y_rj), shape (len(X), len(Y), d).

        Parameters
        ----------
        X : array-like of shape (n, d)
            Rows.
        Y : array-like of shape (m, d)
            Rows to compare them with.

        Returns
        -------
        ndarray of shape (n, m, d)
            The per-feature terms h_j.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.kernels import Linear
        >>> Linear(gamma=2.0).feature_terms(np.array([[1.0, 3.0]]), np.array([[2.0, 1.0]]))
        array([[[4., 6.]]])
        """
        Xa = np.asarray(X, dtype=np.float64)
        Ya = np.asarray(Y, dtype=np.float64)
        if self.inner == "dot":
            Xc = (Xa - self.center) * self.gamma
            Yc = Ya - self.center
            return Xc[:, None, :] * Yc[None, :, :]
        diff = Xa[:, None, :] - Ya[None, :, :]
        tot = Xa[:, None, :] + Ya[None, :, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.where(tot != 0, -(diff**2) / np.where(tot != 0, tot, 1.0), 0.0)
        return out * self.gamma

    def pair_terms(self, X: ArrayLike, Y: ArrayLike) -> np.ndarray:
        """h_j(X_rj, Y_rj) of aligned rows, shape (len(X), d).

        Parameters
        ----------
        X : array-like of shape (r, d)
            Rows.
        Y : array-like of shape (r, d)
            Rows aligned with those of X.

        Returns
        -------
        ndarray of shape (r, d)
            The per-feature terms h_j of each aligned pair.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.kernels import AdditiveChi2
        >>> AdditiveChi2().pair_terms(np.array([[1.0, 0.0]]), np.array([[3.0, 2.0]]))
        array([[-1., -2.]])
        """
        Xa = np.asarray(X, dtype=np.float64)
        Ya = np.asarray(Y, dtype=np.float64)
        if self.inner == "dot":
            return ((Xa - self.center) * self.gamma) * (Ya - self.center)
        tot = Xa + Ya
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.where(tot != 0, -((Xa - Ya) ** 2) / np.where(tot != 0, tot, 1.0), 0.0)
        return out * self.gamma

    def inner_sum(self, X: ArrayLike, Y: ArrayLike) -> np.ndarray:
        """u(X_p, Y_r) = sum_j h_j, shape (len(X), len(Y)), without the (p, r, d) tensor for dot products.

        Parameters
        ----------
        X : array-like of shape (n, d)
            Rows.
        Y : array-like of shape (m, d)
            Rows to compare them with.

        Returns
        -------
        ndarray of shape (n, m)
            The sum u of the per-feature terms.
        """
        Xa = np.asarray(X, dtype=np.float64)
        Ya = np.asarray(Y, dtype=np.float64)
        if self.inner == "dot":
            return ((Xa - self.center) * self.gamma) @ (Ya - self.center).T
        out = np.empty((len(Xa), len(Ya)))
        step = max(1, 2**22 // max(1, len(Ya) * Xa.shape[1]))
        for s in range(0, len(Xa), step):
            out[s : s + step] = self.feature_terms(Xa[s : s + step], Ya).sum(axis=-1)
        return out

    def polynomial(self, u: ArrayLike) -> np.ndarray:
        """P(u), elementwise.

        Parameters
        ----------
        u : array-like
            Values of the inner sum.

        Returns
        -------
        ndarray
            P(u), of the shape of ``u``.
        """
        from ..shapley.polynomial import taylor_coefficients

        return taylor_coefficients(self.terms, u, self.degree)[..., 0]

    def __call__(self, X: ArrayLike, Y: ArrayLike | None = None) -> np.ndarray:
        """Gram matrix P(u(X_p, Y_r)), shape (len(X), len(Y)); Y defaults to X."""
        return self.gram(X, Y)

    def gram(self, X: ArrayLike, Y: ArrayLike | None = None) -> np.ndarray:
        """Gram matrix P(u(X_p, Y_r)), shape (len(X), len(Y)); Y defaults to X.

        Parameters
        ----------
        X : array-like of shape (n, d)
            Rows.
        Y : array-like of shape (m, d), optional
            Rows to compare them with; None means X.

        Returns
        -------
        ndarray of shape (n, m)
            The Gram matrix.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.kernels import Polynomial
        >>> Polynomial(degree=2, gamma=0.5, coef0=1.0).gram(np.array([[2.0, 0.0]]))
        array([[9.]])
        """
        Xa = np.asarray(X, dtype=np.float64)
        Ya = Xa if Y is None else np.asarray(Y, dtype=np.float64)
        if Xa.ndim != 2 or Ya.ndim != 2 or Xa.shape[1] != Ya.shape[1]:
            raise ValueError(f"X and Y must be 2-D with the same number of columns, got {Xa.shape} and {Ya.shape}.")
        return self.polynomial(self.inner_sum(Xa, Ya))

    def rescaled(self, scale: ArrayLike, shift: ArrayLike = 0.0) -> PolynomialOfSum:
        """The same kernel seen from inputs x with x_scaled = scale * x + shift (per feature).

        For the dot product gamma (s x + t - m)(s y + t - m) = gamma s^2 (x - m')(y - m') with
        m' = (m - t) / s.  The additive chi-squared term scales by s and admits no shift.

        Parameters
        ----------
        scale : array-like of shape (d,)
            Per-feature factor of the scaler.
        shift : array-like of shape (d,) or float, default 0.0
            Per-feature shift of the scaler.

        Returns
        -------
        PolynomialOfSum
            The kernel that gives, on the unscaled inputs, the values this kernel gives on the
            scaled ones.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.kernels import Linear
        >>> k = Linear()
        >>> x, y = np.array([[1.0, 2.0]]), np.array([[3.0, -1.0]])
        >>> s, t = np.array([2.0, 0.5]), np.array([1.0, -1.0])
        >>> bool(np.allclose(k.rescaled(s, t)(x, y), k(s * x + t, s * y + t)))
        True
        """
        s = np.asarray(scale, dtype=np.float64)
        t = np.broadcast_to(np.asarray(shift, dtype=np.float64), s.shape)
        if np.any(s == 0) or not np.all(np.isfinite(s)) or not np.all(np.isfinite(t)):
            raise ValueError("scale must be finite and nonzero, shift finite.")
        new = PolynomialOfSum.__new__(PolynomialOfSum)
        new.terms = list(self.terms)
        new.inner = self.inner
        if self.inner == "dot":
            new.gamma = np.asarray(self.gamma) * s**2 * np.ones_like(s)
            new.center = (np.asarray(self.center) - t) / s
        else:
            if np.any(t != 0) or np.any(s < 0):
                raise UnsupportedModelError(
                    "the additive chi-squared kernel is not translation invariant: only scalers that multiply "
                    "by a positive number (MaxAbsScaler on non-negative data) can be folded into it."
                )
            new.gamma = np.asarray(self.gamma) * s * np.ones_like(s)
            new.center = 0.0
        return new

    def _same_inner(self, other: PolynomialOfSum) -> bool:
        return (
            self.inner == other.inner
            and np.array_equal(np.broadcast_to(self.gamma, np.shape(other.gamma)), other.gamma)
            and np.shape(self.gamma) == np.shape(other.gamma)
            and np.shape(self.center) == np.shape(other.center)
            and np.array_equal(self.center, other.center)
        )

    def _with_terms(self, terms: list[tuple[float, np.ndarray]]) -> PolynomialOfSum:
        new = PolynomialOfSum.__new__(PolynomialOfSum)
        new.terms, new.inner, new.gamma, new.center = terms, self.inner, self.gamma, self.center
        return new

    def __add__(self, other: Any) -> PolynomialOfSum:
        if isinstance(other, Real) and not isinstance(other, bool):
            return self._with_terms(list(self.terms) + [(_finite(other, "constant"), np.zeros(0))])
        if isinstance(other, PolynomialOfSum):
            if not self._same_inner(other):
                raise ValueError("only polynomials of the same per-feature sum (inner, gamma, center) can be added.")
            return self._with_terms(list(self.terms) + list(other.terms))
        return NotImplemented

    __radd__ = __add__

    def __mul__(self, other: Any) -> PolynomialOfSum:
        if isinstance(other, Real) and not isinstance(other, bool):
            c = _finite(other, "factor")
            return self._with_terms([(c * a, e) for a, e in self.terms])
        if isinstance(other, PolynomialOfSum):
            if not self._same_inner(other):
                raise ValueError(
                    "only polynomials of the same per-feature sum (inner, gamma, center) can be multiplied."
                )
            terms = [(a1 * a2, np.concatenate([e1, e2])) for a1, e1 in self.terms for a2, e2 in other.terms]
            return self._with_terms(terms)
        return NotImplemented

    __rmul__ = __mul__

    def __pow__(self, exponent: Any) -> PolynomialOfSum:
        if isinstance(exponent, (bool, np.bool_)) or not isinstance(exponent, Integral) or exponent < 1:
            raise ValueError(f"a polynomial kernel can only be raised to an integer power >= 1, got {exponent!r}.")
        out = self
        for _ in range(int(exponent) - 1):
            out = out * self
        return out

    def __repr__(self) -> str:
        parts = []
        for a, e in self.terms:
            factors = "".join(f"(u{'+' if v >= 0 else '-'}{abs(v):.4g})" for v in e)
            parts.append(f"{a:.4g}{'*' + factors if factors else ''}")
        g = np.round(self.gamma, 4) if np.ndim(self.gamma) else f"{self.gamma:.4g}"
        return f"PolynomialOfSum({' + '.join(parts)}; inner={self.inner!r}, gamma={g})"

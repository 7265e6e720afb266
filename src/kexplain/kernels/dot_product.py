"""Kernels that are a polynomial of a sum over features: linear, polynomial, additive chi-squared.

    k(x, y) = sum_q A_q prod_f (u(x, y) + e_qf),   u(x, y) = sum_j h_j(x_j, y_j)

with h_j(x, y) = gamma_j (x - m_j)(y - m_j) (a weighted, centred dot product: the ``linear`` and
``poly`` kernels of scikit-learn, ``DotProduct`` and its powers and products) or
h_j(x, y) = -gamma_j (x - y)^2 / (x + y) (the ``additive_chi2`` kernel).  These are not products
over features, but every coalition value of their models is a polynomial of a sum of
independent per-feature terms, which :mod:`kexplain.shapley.polynomial` solves exactly.

The polynomial is kept as products of linear factors, so (gamma <x, y> + coef0)^p is one term
with p equal offsets coef0 and its values are exact products (no expansion into powers).

This module holds the named kernels (Polynomial, Linear, AdditiveChi2) and is the one import place
of every name of the family: the class they share, PolynomialOfSum, lives in
:mod:`kexplain.kernels.polynomial_of_sum` and the conversion of scikit-learn's DotProduct kernels in
:mod:`kexplain.kernels.dot_product_sklearn`.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

# every name of the family is imported from here (models, tests and docs use this path, and
# pickles made before the split name kexplain.kernels.dot_product.PolynomialOfSum)
from .dot_product_sklearn import _expand as _expand
from .dot_product_sklearn import has_dot_product, polynomial_from_sklearn
from .polynomial_of_sum import INNER_KINDS, PolynomialOfSum
from .polynomial_of_sum import _finite as _finite
from .polynomial_of_sum import _per_feature as _per_feature

__all__ = [
    "INNER_KINDS",
    "AdditiveChi2",
    "Linear",
    "Polynomial",
    "PolynomialOfSum",
    "has_dot_product",
    "polynomial_from_sklearn",
]


def _check_degree(degree: Any) -> int:
    if isinstance(degree, (bool, np.bool_)):
        raise ValueError(f"degree must be an integer >= 1, got {degree!r}.")
    if isinstance(degree, Real) and not isinstance(degree, Integral):
        if float(degree).is_integer():
            degree = int(float(degree))
        else:
            raise ValueError(f"degree must be an integer >= 1 (the exact solver needs a polynomial), got {degree!r}.")
    if not isinstance(degree, Integral) or int(degree) < 1:
        raise ValueError(f"degree must be an integer >= 1, got {degree!r}.")
    return int(degree)


class Polynomial(PolynomialOfSum):
    """The polynomial kernel amplitude * (gamma <x, y> + coef0)^degree (scikit-learn's ``poly``).

    Parameters
    ----------
    degree : int
        At least 1 (a float with an integer value is accepted; others are refused).
    gamma : float or array of shape (d,)
        Positive weight of the dot product, or one per feature.
    coef0 : float
        The constant added to the dot product.
    amplitude : float
        Factor in front.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.kernels import Polynomial
    >>> X = np.array([[1.0, 0.0], [1.0, 1.0]])
    >>> Polynomial(degree=3, gamma=1.0, coef0=1.0)(X)
    array([[ 8.,  8.],
           [ 8., 27.]])
    """

    def __init__(
        self, degree: int = 3, gamma: float | ArrayLike = 1.0, coef0: float = 1.0, amplitude: float = 1.0
    ) -> None:
        p = _check_degree(degree)
        c0 = _finite(coef0, "coef0")
        amp = _finite(amplitude, "amplitude")
        super().__init__([(amp, [c0] * p)], inner="dot", gamma=gamma)


class Linear(PolynomialOfSum):
    """The linear kernel amplitude * gamma <x, y> (scikit-learn's ``linear``).

    Its models are linear, f(x) = <w, x> + b, and their Shapley values are closed-form in every
    game: phi_j = w_j (x_j - E[z_j]) for the interventional game.

    Parameters
    ----------
    gamma : float or array of shape (d,)
        Positive weight of the dot product, or one per feature.
    amplitude : float
        Factor in front.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.kernels import Linear
    >>> Linear()(np.array([[1.0, 2.0]]), np.array([[3.0, 4.0]]))
    array([[11.]])
    """

    def __init__(self, gamma: float | ArrayLike = 1.0, amplitude: float = 1.0) -> None:
        super().__init__([(_finite(amplitude, "amplitude"), [0.0])], inner="dot", gamma=gamma)


class AdditiveChi2(PolynomialOfSum):
    """scikit-learn's additive chi-squared kernel, -amplitude * sum_j (x_j - y_j)^2 / (x_j + y_j).

    An additive kernel: its models are sums of one-feature functions, so their Shapley values are
    those functions' own contributions.  Inputs must be non-negative (as in scikit-learn).

    Parameters
    ----------
    amplitude : float
        Factor in front.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.kernels import AdditiveChi2
    >>> AdditiveChi2()(np.array([[1.0, 0.0]]), np.array([[3.0, 2.0]]))
    array([[-3.]])
    """

    def __init__(self, amplitude: float = 1.0) -> None:
        super().__init__([(_finite(amplitude, "amplitude"), [0.0])], inner="additive_chi2")

"""Polynomials held as sums of products of linear factors: their check, degree and Taylor coefficients.

P(u) = sum_q A_q prod_f (u + e_qf) (``terms = [(A_q, [e_q1, ...]), ...]``), the form in which
kernels hold their polynomial (:mod:`kexplain.shapley.polynomial`, where the games of such
polynomials are solved): (gamma <x, y> + coef0)^p is one term with p equal offsets, and its
Taylor coefficients at any point are exact products of the shifted values, with no expansion of
(u + coef0)^p into powers of u.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

#: one polynomial: a list of (amplitude, offsets), P(u) = sum_q A_q prod_f (u + offsets_qf)
PolynomialTerms = Sequence[tuple[float, Any]]


def check_polynomial(terms: Any) -> list[tuple[float, np.ndarray]]:
    """Validated polynomial terms: a non-empty list of (finite amplitude, finite offsets).

    Parameters
    ----------
    terms : sequence of (float, sequence of float)
        P(u) = sum_q A_q prod_f (u + e_qf); an empty offset list is the constant A_q.

    Returns
    -------
    list of (float, ndarray)

    Raises
    ------
    ValueError
        When a term is not a pair, or an amplitude or offset is not a finite real number.

    Examples
    --------
    >>> from kexplain.shapley.polynomial import check_polynomial
    >>> check_polynomial([(2.0, [1.0, 1.0])])
    [(2.0, array([1., 1.]))]
    """
    if isinstance(terms, (str, bytes)) or not hasattr(terms, "__len__") or len(terms) == 0:
        raise ValueError(f"polynomial must be a non-empty list of (amplitude, offsets) pairs, got {terms!r}.")
    out = []
    for term in terms:
        if not isinstance(term, (tuple, list)) or len(term) != 2:
            raise ValueError(f"polynomial terms must be (amplitude, offsets) pairs, got {term!r}.")
        amp, offsets = term
        if isinstance(amp, (bool, np.bool_)) or not isinstance(amp, (int, float, np.integer, np.floating)):
            raise ValueError(f"a polynomial amplitude must be a real number, got {amp!r}.")
        e = np.asarray(offsets, dtype=np.float64).reshape(-1)
        if not np.isfinite(amp) or not np.all(np.isfinite(e)):
            raise ValueError(f"polynomial amplitudes and offsets must be finite, got {term!r}.")
        out.append((float(amp), e))
    return out


def polynomial_degree(terms: PolynomialTerms) -> int:
    """The degree of P (the largest number of linear factors of a term).

    Examples
    --------
    >>> from kexplain.shapley.polynomial import polynomial_degree
    >>> polynomial_degree([(1.0, [0.5, 0.5, 0.5]), (2.0, [])])
    3
    """
    return max(len(np.atleast_1d(np.asarray(e, dtype=np.float64))) if len(e) else 0 for _, e in terms)


def taylor_coefficients(terms: PolynomialTerms, x: Any, degree: int | None = None) -> np.ndarray:
    """T with P(x + y) = sum_n T[..., n] y^n, for every entry of ``x``.

    Each term A prod_f ((x + e_f) + y) is multiplied out one linear factor at a time, so the
    coefficients are exact products of the shifted values (no expansion in powers of x).

    Parameters
    ----------
    terms : sequence of (float, sequence of float)
        The polynomial (see :func:`check_polynomial`).
    x : array-like
        Expansion points.
    degree : int, optional
        Length of the last axis minus one (default: the degree of P).

    Returns
    -------
    ndarray of shape x.shape + (degree + 1,)

    Examples
    --------
    (x + 1)^2 at x = 1: (2 + y)^2 = 4 + 4 y + y^2.

    >>> from kexplain.shapley.polynomial import taylor_coefficients
    >>> taylor_coefficients([(1.0, [1.0, 1.0])], 1.0)
    array([4., 4., 1.])
    """
    x = np.asarray(x, dtype=np.float64)
    p = polynomial_degree(terms) if degree is None else int(degree)
    out = np.zeros(x.shape + (p + 1,))
    for amp, offsets in terms:
        e = np.atleast_1d(np.asarray(offsets, dtype=np.float64))
        poly = np.zeros(x.shape + (len(e) + 1,))
        poly[..., 0] = 1.0
        for q, off in enumerate(e):
            s = x + off
            # multiply by (s + y): coefficient n gets s * old[n] + old[n - 1]
            poly[..., 1 : q + 2] = poly[..., 1 : q + 2] * s[..., None] + poly[..., 0 : q + 1]
            poly[..., 0] = poly[..., 0] * s
        out[..., : len(e) + 1] += amp * poly
    return out

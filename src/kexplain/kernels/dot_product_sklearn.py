"""Conversion of scikit-learn's DotProduct GP kernels into a PolynomialOfSum.

``DotProduct`` with ``ConstantKernel`` and ``WhiteKernel`` (sums, products, integer powers) is a
polynomial of <x, y>; anything else combined with it has no exact form and is refused.  Every name
here is still imported from :mod:`kexplain.kernels.dot_product`.
"""

from __future__ import annotations

from typing import Any

from ..exceptions import UnsupportedModelError
from .polynomial_of_sum import PolynomialOfSum


def has_dot_product(kernel: Any) -> bool:
    """Whether a scikit-learn GP kernel contains a DotProduct."""
    try:
        from sklearn.gaussian_process import kernels as sk
    except ImportError:  # pragma: no cover - scikit-learn is a core dependency
        return False
    if isinstance(kernel, sk.DotProduct):
        return True
    if isinstance(kernel, (sk.Sum, sk.Product)):
        return has_dot_product(kernel.k1) or has_dot_product(kernel.k2)
    if isinstance(kernel, sk.Exponentiation):
        return has_dot_product(kernel.kernel)
    return False


def polynomial_from_sklearn(kernel: Any, n_features: int) -> PolynomialOfSum:
    """Convert a scikit-learn GP kernel built from DotProduct, ConstantKernel and WhiteKernel.

    ``DotProduct(sigma_0)`` is sigma_0^2 + <x, y>; sums, products and integer powers >= 1 of it
    with constants stay polynomials of <x, y>.  ``WhiteKernel`` is zero between distinct inputs
    (scikit-learn's k(X, Y) with Y given), so it drops out of predictions.

    Parameters
    ----------
    kernel : sklearn.gaussian_process.kernels.Kernel
    n_features : int

    Returns
    -------
    PolynomialOfSum

    Raises
    ------
    UnsupportedModelError
        For other kernels inside (RBF times DotProduct, say) or a non-integer power.

    Examples
    --------
    >>> from sklearn.gaussian_process.kernels import ConstantKernel, DotProduct
    >>> from kexplain.kernels.dot_product import polynomial_from_sklearn
    >>> polynomial_from_sklearn(ConstantKernel(2.0) * DotProduct(sigma_0=1.0) ** 2, 3)
    PolynomialOfSum(2*(u+1)(u+1); inner='dot', gamma=1)
    """
    del n_features  # DotProduct is isotropic: one dot product over every feature
    terms = _expand(kernel)
    if not terms:
        terms = [(0.0, [])]
    return PolynomialOfSum([(a, e) for a, e in terms], inner="dot")


def _expand(k: Any) -> list[tuple[float, list[float]]]:
    from sklearn.gaussian_process import kernels as sk

    if isinstance(k, sk.Sum):
        return _expand(k.k1) + _expand(k.k2)
    if isinstance(k, sk.Product):
        return [(a1 * a2, e1 + e2) for a1, e1 in _expand(k.k1) for a2, e2 in _expand(k.k2)]
    if isinstance(k, sk.Exponentiation):
        p = float(k.exponent)
        if not (p.is_integer() and p >= 1):
            raise UnsupportedModelError(
                f"kernel {k!r}: a DotProduct raised to the non-integer power {p:g} is not a polynomial, so it has "
                "no exact form. kx.RKHSExplainer(model, game='interventional') explains it by evaluating the "
                "model on coalitions (exact up to 12 features)."
            )
        base = _expand(k.kernel)
        out = base
        for _ in range(int(p) - 1):
            out = [(a1 * a2, e1 + e2) for a1, e1 in out for a2, e2 in base]
        return out
    if isinstance(k, sk.ConstantKernel):
        return [(float(k.constant_value), [])]
    if isinstance(k, sk.WhiteKernel):
        return []
    if isinstance(k, sk.DotProduct):
        return [(1.0, [float(k.sigma_0) ** 2])]
    raise UnsupportedModelError(
        f"kernel {k!r} combined with DotProduct has no exact form: kexplain explains DotProduct kernels with "
        "ConstantKernel and WhiteKernel (sums, products, integer powers). kx.RKHSExplainer(model, "
        "game='interventional') explains any fitted model by evaluating it on coalitions (exact up to 12 features)."
    )

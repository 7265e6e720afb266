"""Kernels of other libraries, read as sums of products, assembled into kexplain kernels.

The GPyTorch and GPflow converters walk their library's kernel tree into terms
``(amplitude, [factors])``, each factor either the inverse squared length scales of an RBF over
all d features (0 where the factor does not see a feature) or a :class:`MixtureFactor` (Matérn,
rational quadratic).  This module owns what follows, the same for every library: constants are
split off, RBF-only terms become ``RBF``/``SumKernel``, terms with Matérn or rational quadratic
factors a :class:`ScaleMixtureKernel`, and a term constant in some feature is refused (a product
of positive-lengthscale kernels cannot express it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..exceptions import UnsupportedModelError
from .base import RBF, SumKernel
from .mixture import MixtureComponent, MixtureFactor, ScaleMixtureKernel

#: (amplitude, factors): a product of an amplitude and per-feature factors
Term = tuple[float, list[Any]]


def kernel_from_terms(
    terms: Sequence[Term],
    n_features: int,
    *,
    name: str,
    refuse: Callable[[str], UnsupportedModelError],
    tol: float | None = None,
) -> tuple[RBF | SumKernel | None, float]:
    """The kexplain kernel and the constant of a sum of product terms.

    ``name`` names the foreign kernel in messages; ``refuse`` makes the library's refusal (naming
    what that converter supports and the route that works).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.exceptions import UnsupportedModelError
    >>> from kexplain.kernels._terms import kernel_from_terms
    >>> k, c = kernel_from_terms([(2.0, [np.array([1.0, 4.0])]), (0.5, [])], 2, name="k", refuse=UnsupportedModelError)
    >>> k, c
    (RBF(lengthscale=[1.  0.5], amplitude=2), 0.5)
    """
    d = int(n_features)
    rbf_terms: list[RBF] = []
    components: list[MixtureComponent] = []
    constant = 0.0
    for amp, factors_in in terms:
        if amp == 0.0:
            continue
        if not factors_in:
            constant += amp
            continue
        if amp < 0:
            raise refuse(f"kernel {name} has a negative amplitude {amp}.")
        rbf = np.zeros(d)
        factors = []
        covered = np.zeros(d)
        for v in factors_in:
            if isinstance(v, MixtureFactor):
                factors.append(v)
                covered = covered + v.inv_sq
            else:
                rbf = rbf + v
                covered = covered + v
        if np.any(covered <= 0):
            missing = np.flatnonzero(covered <= 0).tolist()
            raise refuse(
                f"a product term of kernel {name} does not involve features {missing} "
                "(active_dims): it is constant in them, which a product of positive-lengthscale kernels cannot "
                "express."
            )
        if factors:
            components.append(MixtureComponent(float(amp), rbf, tuple(factors)))
            continue
        ls = 1.0 / np.sqrt(rbf)
        rbf_terms.append(RBF(lengthscale=float(ls[0]) if np.all(ls == ls[0]) else ls, amplitude=amp))
    if components:
        for t in rbf_terms:
            components.append(MixtureComponent(t.amplitude, 1.0 / np.asarray(t.lengthscale) ** 2 * np.ones(d), ()))
        return ScaleMixtureKernel(components, tol=tol), constant
    if not rbf_terms:
        return None, constant
    return (rbf_terms[0] if len(rbf_terms) == 1 else SumKernel(rbf_terms)), constant

"""One-dimensional base kernels made orthogonal to an input measure (constrained kernels).

From "Exact Shapley Value for Local and Global Explanation of Additive Gaussian Processes",
section 2.2 (equation 4).  For a base kernel k and a probability measure p on one feature, the
constrained kernel is

    k~(x, y) = k(x, y) - m(x) m(y) / v,   m(x) = int k(x, s) dp(s),   v = int int k(s, t) dp(s) dp(t),

so that int k~(x, y) dp(x) = 0 for every y: every GP sample path built from it has mean zero under
p, which is what makes the additive components a functional ANOVA decomposition.

Each class fixes a base kernel and a measure and gives, for a lengthscale l,
``k(x, y, l)`` (the constrained kernel matrix), ``dk_dlog_l`` (its derivative for the marginal
likelihood), ``diag`` and ``gamma(a, b, l)`` = int k~(s, a) k~(s, b) dp(s), the matrix behind the
variance of a component (section 4, Theorem 1).

- :class:`ConstrainedGaussianRBF`: RBF base kernel under N(mu, delta^2); every integral in closed form.
- :class:`ConstrainedEmpiricalRBF`: RBF base kernel under a discrete (weighted empirical) measure;
  sums are exact.
- :class:`ConstrainedCategorical`: the delta kernel 1[x = y] on integer category codes under the
  category frequencies (a discrete measure); it has no lengthscale.  (Not to be confused with
  :class:`kexplain.kernels.Categorical`, the unconstrained per-feature kernel of product-kernel
  models.)

Every name is imported from here; the code lives by idea in three modules (and the helpers they
share, squared differences and the squared lengthscale, in ``_kernel_math``):

- ``kernels_gaussian``: :class:`ConstrainedGaussianRBF` and the Gauss-Hermite quadrature of its
  Gamma matrix (``GAMMA_QUADRATURE_RATIO``, ``GAMMA_QUADRATURE_NODES``);
- ``kernels_empirical``: :class:`ConstrainedEmpiricalRBF` and the compression of large measures
  (``MAX_MEASURE_POINTS``);
- ``kernels_categorical``: :class:`ConstrainedCategorical`;
- this module: :class:`ConstrainedKernel`, what an OAK model needs of any of them.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from ._kernel_math import _lengthscale as _lengthscale
from ._kernel_math import _sq as _sq
from .kernels_categorical import ConstrainedCategorical as ConstrainedCategorical
from .kernels_empirical import MAX_MEASURE_POINTS as MAX_MEASURE_POINTS
from .kernels_empirical import ConstrainedEmpiricalRBF as ConstrainedEmpiricalRBF
from .kernels_empirical import _compress as _compress
from .kernels_gaussian import _HERMITE_CACHE as _HERMITE_CACHE
from .kernels_gaussian import GAMMA_QUADRATURE_NODES as GAMMA_QUADRATURE_NODES
from .kernels_gaussian import GAMMA_QUADRATURE_RATIO as GAMMA_QUADRATURE_RATIO
from .kernels_gaussian import ConstrainedGaussianRBF as ConstrainedGaussianRBF
from .kernels_gaussian import _hermite_rule as _hermite_rule


class ConstrainedKernel(Protocol):
    """What an OAK model needs of a constrained base kernel (for type checking)."""

    has_lengthscale: bool

    def k(self, x: Any, y: Any, l: float | None = None) -> np.ndarray: ...

    def dk_dlog_l(self, x: Any, y: Any, l: float | None = None) -> np.ndarray: ...

    def diag(self, x: Any, l: float | None = None) -> np.ndarray: ...

    def gamma(self, a: Any, b: Any, l: float | None = None) -> np.ndarray: ...

    def sample(self, n: int, rng: np.random.RandomState) -> np.ndarray: ...

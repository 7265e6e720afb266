"""Observational value functions through conditional mean embeddings (RKHS-SHAP).

For a model f(x) = sum_i coef_i k(x, X_i) + b0 whose kernel is a product over features, the
observational value of coalition S at a point x is (Chau, Hu, Gonzalez & Sejdinovic, 2022,
section 3, Proposition 3; Chau, 2023, thesis appendix C.4)

    v_x(S) = E[f(x_S, X_Sc) | X_S = x_S] + b0
           = sum_i coef_i k_S(X_iS, x_S) * sum_l beta_l(x_S) k_Sc(X_iSc, R_lSc) + b0,

with background rows R (n of them) and the conditional-mean-embedding weights
beta(x_S) = (K_S(R, R) + n eta I)^-1 k_S(R, x_S): kernel ridge regression from the features in S
to the feature map of the features not in S.  The CME regresses with the model's own per-feature
kernels restricted to S, scaled to unit amplitude (so eta does not depend on the model's scale).
The empty and full coalitions are exact: v(empty) is the mean prediction over R, v(full) = f(x).

Weighted background rows (weights w summing to one) give the weighted ridge regression
beta(x_S) = D (D K_S(R, R) D + n eta I)^-1 D k_S(R, x_S) with D = diag(sqrt(n w)), which is the
formula above for equal weights, and v(empty) becomes the weighted mean prediction.

Every coalition needs one solve with the n x n matrix K_S(R, R) + n eta I, shared by all explained
points; it depends on the background only, so its Cholesky factor is kept (within a memory
budget, packed: the triangle only) and reused by every later batch.  With the Nystroem
approximation (m landmark rows L of R) the embeddings live in the span of the landmarks' feature
maps; the CME solve becomes m x m and the cost per coalition is O(n m^2 + n_model m N) instead of
O(n^3 + n_model n N); only the m x m factor is kept (``ProductCME.nystroem_factors``).

For kernels that are not products (Matern, RationalQuadratic, polynomial, ...) the thesis
(appendix C.3, eq. C.5) regresses the whole feature map on the features in S:

    v_x(S) = k_S(x_S, R_S) (K_S(R, R) + n eta I)^-1 f(R),

with k_S the model's kernel restricted to S (same family, same hyperparameters); the n-vector
(K_S(R, R) + n eta I)^-1 f(R) depends on the background only and is kept per coalition.

The background part of each game (``ProductCME``, ``GenericCME``) is built once; ``game(X)`` then
gives the value function at a batch of points.  The CME linear algebra (the ridge systems, exact
and Nystroem, weighted or not) is ``kexplain.embeddings.ExactRidge`` / ``NystroemRidge``, the same
code as ``kexplain.embeddings.ConditionalMeanEmbedding``.  Asked for every coalition at once, the
product game builds the per-feature kernel products along a depth-first walk over the features,
shared by each coalition and its complement (``_pair_products``), and can spread the coalitions
over threads.

The code is split by idea: ``cme_product`` (``ProductCME``, ``ProductCMEGame``, ``mean_kernel_rows``),
``cme_generic`` (``GenericCME``, ``GenericCMEGame``), ``_cme_products`` (the per-feature kernel
tables and the walk over the coalitions), ``_cme_factors`` (the per-coalition factors kept across
calls); this module holds the default regularisation and the cross-validation loss, and every
name is imported from here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..embeddings.cme import cme_cv_loss_from_grams
from ..embeddings.ridge import choose_landmarks

# every name the module had before the split is still imported from here (other modules, tests and
# benchmarks do); the homes are the siblings named in the docstring
from ._cme_factors import (  # noqa: F401
    _TRIL,
    FACTOR_CACHE_BYTES,
    _exact_from_factor,
    _FactorCache,
    _key,
    _nbytes,
    _nystroem_from_factor,
    _set_eta,
    _tril,
)
from ._cme_products import _CACHE_BYTES, _FeatureProducts, _pair_products, _Prods, _times, _wsum  # noqa: F401
from .cme_generic import GenericCME, GenericCMEGame, KernelFn
from .cme_product import ProductCME, ProductCMEGame, mean_kernel_rows

__all__ = [
    "DEFAULT_CME_REGULARIZATION",
    "GenericCME",
    "GenericCMEGame",
    "ProductCME",
    "ProductCMEGame",
    "choose_landmarks",
    "cme_cv_loss",
    "mean_kernel_rows",
]

#: default CME regularisation eta; the ridge is n * eta on kernels with unit diagonal
DEFAULT_CME_REGULARIZATION = 1e-3


def cme_cv_loss(
    cond_kernel: Callable[[np.ndarray], KernelFn],
    target_kernel: Callable[[np.ndarray], KernelFn],
    X: np.ndarray,
    eta: float,
    coalitions: Sequence[np.ndarray],
    n_folds: int,
    rng: np.random.Generator,
) -> float:
    """Held-out CME loss sum ||psi_T(y) - mu(y_S)||^2 over folds and coalitions.

    ``cond_kernel(S_idx)`` and ``target_kernel(S_idx)`` return callables k(A, B) on full rows: the
    kernel of the features conditioned on and of the embedded target (for product kernels the
    features not in S; for other kernels the whole feature map).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.metrics.pairwise import rbf_kernel
    >>> from kexplain.rkhs.cme import cme_cv_loss
    >>> X = np.random.default_rng(0).normal(size=(30, 2))
    >>> k0 = lambda S_idx: (lambda A, B: rbf_kernel(A[:, :1], B[:, :1]))
    >>> k1 = lambda S_idx: (lambda A, B: rbf_kernel(A[:, 1:], B[:, 1:]))
    >>> loss = cme_cv_loss(k0, k1, X, 1e-2, [np.array([True, False])], 3, np.random.default_rng(0))
    >>> 0.0 < loss < 1.0
    True
    """
    n = X.shape[0]
    folds = np.array_split(rng.permutation(n), n_folds)
    total = 0.0
    for S in coalitions:
        S_idx = np.flatnonzero(S)
        total += cme_cv_loss_from_grams(cond_kernel(S_idx)(X, X), target_kernel(S_idx)(X, X), eta, folds)
    return total / len(coalitions)

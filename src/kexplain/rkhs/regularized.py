"""Kernel ridge regression with a Shapley regulariser (RKHS-SHAP, seed 003 section 4).

The estimator minimises

    sum_i (y_i - f(x_i))^2 + alpha ||f||^2 + (strength / n) sum_i phi_{x_i, A}(f)^2

over f = sum_m coef_m k(., x_m), where phi_{x, A}(f) is the Shapley value of feature A at x.
Shapley values are linear in f: phi_{x_i, A}(f) = (zeta^T coef)_i with zeta[m, i] the Shapley
value of A at x_i for the basis function k(., x_m).  Setting the gradient to zero gives the
closed form of Proposition 7:

    coef = (K^2 + alpha K + (strength / n) zeta zeta^T)^-1 K y.

Interventional zeta (background = training rows, or a subsample) is exact: every (x_i, x_m) pair
is a product game over the background rows, solved by the product-game engine.  Observational
zeta averages, over J coalitions S drawn from the Shapley distribution p(S) = 1 / (d C(d-1, |S|)),
the CME value differences K^(O)_{S + A} - K^(O)_S (seed 003 Proposition 3).
"""
from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from scipy.linalg import LinAlgError, solve
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted, check_X_y

from .._validation import check_data
from ..kernels.base import RBF, Kernel, SumKernel
from ..shapley.product import solve_product_game
from ..models.expansion import KernelExpansion

_VALUES = ("interventional", "observational")


class _FeatureShapleyGame:
    """Product game whose explained 'points' are (x_i, basis x_m) pairs and whose rows are the
    background rows z: a = k_j(x_ij, x_mj), b = k_j(z_j, x_mj), c = 1 / n_b (DESIGN.md table,
    interventional row, for the single basis function k(., x_m))."""

    def __init__(self, kernel, X, Z):
        self.kernel, self.X, self.Z = kernel, X, Z
        n = X.shape[0]
        self.n_points = n * n                       # point q = i * n + m
        self.n_rows = Z.shape[0]
        self.n_features = X.shape[1]
        self.n_outputs = 1
        self.Fx = kernel.feature_values(X, X)       # (n_i, n_m, d)
        self.Fz = kernel.feature_values(Z, X)       # (n_b, n_m, d)
        self.c = np.full((Z.shape[0], 1), 1.0 / Z.shape[0])

    def block(self, points: slice, rows: slice):
        n = self.X.shape[0]
        q = np.arange(points.start, points.stop)
        i, m = q // n, q % n
        r = rows.stop - rows.start
        a = np.broadcast_to(self.Fx[i, m][:, None, :], (q.size, r, self.n_features))
        b = self.Fz[rows][:, m, :].transpose(1, 0, 2)          # (p, r, d)
        return a, b, self.c[rows]


def _kernel_amplitude(kernel):
    return kernel.total_amplitude if hasattr(kernel, "total_amplitude") else kernel.amplitude


class ShapleyRegularizedKernelRidge(RegressorMixin, BaseEstimator):
    """Kernel ridge regression that penalises the mean squared Shapley value of one feature.

    Parameters
    ----------
    kernel : kexplain product kernel (kx.kernels.RBF, Laplacian, Cauchy, ProductKernel), optional
        None: an RBF kernel with per-feature median-heuristic lengthscales.
    alpha : float
        Ridge penalty lambda_f on ||f||^2.
    feature : int or str
        The regularised feature A (an index, or a column name when fitted on a DataFrame).
    strength : float
        lambda_S, the weight of the mean squared Shapley value of ``feature``.
    value : "interventional" or "observational"
        Which Shapley values are penalised.
    n_coalitions : int
        J, coalitions sampled for the observational regulariser.
    cme_regularization : float
        eta of the conditional mean embeddings (observational regulariser).
    n_background : int or None
        Background rows for the interventional regulariser (a random subsample of the training
        rows); None uses all of them (cost O(n^2 n_b d)).
    random_state : None or int
        Seeds the background subsample and the sampled coalitions.

    Attributes
    ----------
    dual_coef_ : (n,), intercept_ (the mean of y), X_fit_, kernel_, zeta_ (n, n), feature_index_
    """

    def __init__(self, kernel=None, alpha=1.0, feature=0, strength=0.0, value="interventional",
                 n_coalitions=20, cme_regularization=1e-3, n_background=None, random_state=None):
        self.kernel = kernel
        self.alpha = alpha
        self.feature = feature
        self.strength = strength
        self.value = value
        self.n_coalitions = n_coalitions
        self.cme_regularization = cme_regularization
        self.n_background = n_background
        self.random_state = random_state

    # -- validation -------------------------------------------------------------------------------
    def _check_params(self, d, columns):
        for name in ("alpha", "strength"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, Real) or not np.isfinite(v) or v < 0:
                raise ValueError(f"{name} must be a non-negative finite number, got {v!r}.")
        if self.alpha == 0 and self.strength == 0:
            pass  # plain interpolation; the solve below copes through least squares
        if self.value not in _VALUES:
            raise ValueError(f"value must be one of {_VALUES}, got {self.value!r}.")
        eta = self.cme_regularization
        if isinstance(eta, bool) or not isinstance(eta, Real) or not (np.isfinite(eta) and eta > 0):
            raise ValueError(f"cme_regularization must be a positive finite number, got {eta!r}.")
        for name in ("n_coalitions",) + (("n_background",) if self.n_background is not None else ()):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, Integral) or v < 1:
                raise ValueError(f"{name} must be a positive integer, got {v!r}.")
        f = self.feature
        if isinstance(f, str):
            if columns is None or f not in columns:
                raise ValueError(f"feature {f!r} is not a column of X (columns: {columns}).")
            return columns.index(f)
        if isinstance(f, bool) or not isinstance(f, Integral) or not (-d <= f < d):
            raise ValueError(f"feature must be a column index in [0, {d}) or a column name, got {f!r}.")
        return int(f) % d

    def _make_kernel(self, X, d):
        if self.kernel is None:
            from ..kernels.heuristics import median_heuristic

            return RBF(lengthscale=median_heuristic(X, per_feature=True))
        if not isinstance(self.kernel, Kernel) or isinstance(self.kernel, SumKernel):
            raise TypeError(
                "kernel must be a kexplain product kernel (kx.kernels.RBF, Laplacian, Cauchy or "
                f"ProductKernel), got {type(self.kernel).__name__}."
            )
        self.kernel.check_n_features(d)
        return self.kernel

    # -- fitting ----------------------------------------------------------------------------------
    def fit(self, X, y):
        columns = [str(c) for c in X.columns] if hasattr(X, "columns") else None
        X, y = check_X_y(X, y, dtype=np.float64, y_numeric=True)
        n, d = X.shape
        self.feature_index_ = self._check_params(d, columns)
        if columns is not None:
            self.feature_names_in_ = np.asarray(columns, dtype=object)
        self.n_features_in_ = d
        self.kernel_ = self._make_kernel(X, d)
        self.X_fit_ = X
        self.intercept_ = float(np.mean(y))
        yc = y - self.intercept_
        K = self.kernel_(X, X)
        if self.strength > 0:
            self.zeta_ = self._zeta(X)
            penalty = (self.strength / n) * (self.zeta_ @ self.zeta_.T)
        else:
            self.zeta_ = None
            penalty = 0.0
        M = K @ K + self.alpha * K + penalty
        rhs = K @ yc
        try:
            coef = solve(M + 1e-12 * np.trace(M) / n * np.eye(n), rhs, assume_a="pos")
        except (LinAlgError, ValueError):
            coef = np.linalg.lstsq(M, rhs, rcond=None)[0]
        if not np.all(np.isfinite(coef)):
            raise FloatingPointError("the regularised kernel ridge solve produced non-finite coefficients.")
        self.dual_coef_ = coef
        return self

    def _zeta(self, X):
        rng = np.random.default_rng(self.random_state)
        A = self.feature_index_
        n, d = X.shape
        if self.value == "interventional":
            Z = X
            if self.n_background is not None and self.n_background < n:
                Z = X[np.sort(rng.choice(n, self.n_background, replace=False))]
            game = _FeatureShapleyGame(self.kernel_, X, Z)
            res = solve_product_game(game)
            phi = res.values[:, A, 0].reshape(n, n)          # [i, m]
            return _kernel_amplitude(self.kernel_) * phi.T   # [m, i]
        from .cme import ProductCMEGame

        em = KernelExpansion(X, np.zeros(n), self.kernel_)
        game = ProductCMEGame(em, X, X, self.cme_regularization)
        others = np.array([j for j in range(d) if j != A])
        zeta = np.zeros((n, n))
        for _ in range(self.n_coalitions):
            # Shapley distribution over S subset of D \ {A}: uniform size, then a uniform subset
            s = rng.integers(0, d)
            S = np.zeros(d, dtype=bool)
            if s:
                S[rng.choice(others, s, replace=False)] = True
            SA = S.copy()
            SA[A] = True
            zeta += game.basis_values(SA) - game.basis_values(S)
        return zeta / self.n_coalitions

    # -- prediction -------------------------------------------------------------------------------
    def predict(self, X):
        check_is_fitted(self, "dual_coef_")
        X = check_data(X, name="X", n_features=self.n_features_in_)
        return self.kernel_(X, self.X_fit_) @ self.dual_coef_ + self.intercept_

    def to_kernel_expansion(self) -> KernelExpansion:
        """The fitted model as a kx.KernelExpansion (explain it with RKHSExplainer or
        ProductKernelExplainer)."""
        check_is_fitted(self, "dual_coef_")
        names = None if not hasattr(self, "feature_names_in_") else list(self.feature_names_in_)
        return KernelExpansion(self.X_fit_, self.dual_coef_, self.kernel_, self.intercept_, feature_names=names)

    def feature_shapley_values(self) -> np.ndarray:
        """Shapley values of the regularised feature at the training rows (zeta^T coef), the
        quantity whose mean square the regulariser penalises; computed on demand when strength
        is 0."""
        check_is_fitted(self, "dual_coef_")
        zeta = self.zeta_ if self.zeta_ is not None else self._zeta(self.X_fit_)
        return zeta.T @ self.dual_coef_

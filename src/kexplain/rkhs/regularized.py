"""Kernel ridge regression with a Shapley regulariser (Chau, Hu, Gonzalez & Sejdinovic, 2022, section 4).

The estimator minimises

    sum_i (y_i - f(x_i))^2 + alpha ||f||^2 + (strength / n) sum_i phi_{x_i, A}(f)^2

over f = sum_m coef_m k(., x_m), where phi_{x, A}(f) is the Shapley value of feature A at x.
Shapley values are linear in f: phi_{x_i, A}(f) = (zeta^T coef)_i with zeta[m, i] the Shapley
value of A at x_i for the basis function k(., x_m).  Setting the gradient to zero gives the
closed form of their Proposition 7:

    coef = (K^2 + alpha K + (strength / n) zeta zeta^T)^-1 K y.

Interventional zeta (background = training rows, or a subsample) is exact: every (x_i, x_m) pair
is a product game over the background rows, solved by the product-game engine.  Observational
zeta averages, over J coalitions S drawn from the Shapley distribution p(S) = 1 / (d C(d-1, |S|)),
the CME value differences K^(O)_{S + A} - K^(O)_S (their Proposition 3).
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

import numpy as np
from scipy.linalg import LinAlgError, solve
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils import check_scalar
from sklearn.utils.validation import check_is_fitted, validate_data

from .._deprecation import renamed_keyword
from .._params import Integer, check_param
from .._validation import check_data, check_random_state
from ..kernels.base import Kernel, SumKernel, default_kernel
from ..models.expansion import KernelExpansion
from ..shapley.product import solve_product_game

_VALUES = ("interventional", "observational")


class _FeatureShapleyGame:
    """Product game whose explained 'points' are (x_i, basis x_m) pairs and whose rows are the
    background rows z: a = k_j(x_ij, x_mj), b = k_j(z_j, x_mj), c = 1 / n_b (DESIGN.md table,
    interventional row, for the single basis function k(., x_m))."""

    def __init__(self, kernel: Kernel, X: np.ndarray, Z: np.ndarray) -> None:
        self.kernel, self.X, self.Z = kernel, X, Z
        n = X.shape[0]
        self.n_points = n * n  # point q = i * n + m
        self.n_rows = Z.shape[0]
        self.n_features = X.shape[1]
        self.n_outputs = 1
        self.Fx = kernel.feature_values(X, X)  # (n_i, n_m, d)
        self.Fz = kernel.feature_values(Z, X)  # (n_b, n_m, d)
        self.c = np.full((Z.shape[0], 1), 1.0 / Z.shape[0])

    def block(self, points: slice, rows: slice) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        n = self.X.shape[0]
        q = np.arange(points.start, points.stop)
        i, m = q // n, q % n
        r = rows.stop - rows.start
        a = np.broadcast_to(self.Fx[i, m][:, None, :], (q.size, r, self.n_features))
        b = self.Fz[rows][:, m, :].transpose(1, 0, 2)  # (p, r, d)
        return a, b, self.c[rows]


def _kernel_amplitude(kernel: Any) -> float:
    return kernel.total_amplitude if hasattr(kernel, "total_amplitude") else kernel.amplitude


class ShapleyRegularizedKernelRidge(RegressorMixin, BaseEstimator):
    """Kernel ridge regression that penalises the mean squared Shapley value of one feature.

    The Shapley regulariser of Chau, Hu, Gonzalez & Sejdinovic (2022), section 4: the fitted
    function minimises the squared loss plus ``alpha`` ||f||^2 plus ``strength`` times the mean
    over the training rows of the squared (interventional or observational) Shapley value of
    ``feature``, in closed form (their Proposition 7).

    Parameters
    ----------
    kernel : kexplain product kernel (kx.kernels.RBF, Laplacian, Cauchy, ProductKernel), optional
        None: kexplain's default RBF on the training rows (``kx.kernels.default_kernel``: the median
        heuristic on standardised features).
    alpha : float
        Ridge penalty lambda_f on ||f||^2.
    feature : int or str
        The regularised feature A (an index, or a column name when fitted on a DataFrame).
    strength : float
        lambda_S, the weight of the mean squared Shapley value of ``feature``.
    game : {"interventional", "observational"}, optional
        Which Shapley values are penalised; None (the default) means "interventional".
    n_coalitions : int
        J, coalitions sampled for the observational regulariser.
    cme_regularization : float
        eta of the conditional mean embeddings (observational regulariser).
    n_background : int or None
        Background rows for the interventional regulariser (a random subsample of the training
        rows); None uses all of them (cost O(n^2 n_b d)).
    random_state : None or int
        Seeds the background subsample and the sampled coalitions.
    value : {"interventional", "observational"}, optional
        Deprecated spelling of ``game`` (a FutureWarning at ``fit``); passing both is a TypeError.

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n,)
    intercept_ : float
        The mean of y.
    X_fit_ : ndarray of shape (n, d)
        The training rows (the default background of ``kx.RKHSExplainer``).
    kernel_ : kexplain kernel
    zeta_ : ndarray of shape (n, n) or None
        zeta[m, i]: Shapley value of ``feature`` at x_i for the basis function k(., x_m).
    feature_index_ : int
    game_ : str
        The game whose Shapley values were penalised.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when fitted on a DataFrame.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.kernels import RBF
    >>> from kexplain.rkhs import ShapleyRegularizedKernelRidge
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(30, 3))
    >>> y = X @ np.array([1.0, 2.0, 3.0])
    >>> plain = ShapleyRegularizedKernelRidge(kernel=RBF(2.0), alpha=0.1, feature=2).fit(X, y)
    >>> reg = ShapleyRegularizedKernelRidge(kernel=RBF(2.0), alpha=0.1, feature=2, strength=100.0).fit(X, y)
    >>> bool(np.mean(reg.feature_shapley_values() ** 2) < np.mean(plain.feature_shapley_values() ** 2))
    True
    """

    def __init__(
        self,
        kernel: Kernel | None = None,
        alpha: float = 1.0,
        feature: int | str = 0,
        strength: float = 0.0,
        game: str | None = None,
        n_coalitions: int = 20,
        cme_regularization: float = 1e-3,
        n_background: int | None = None,
        random_state: int | None = None,
        value: str | None = None,
    ) -> None:
        self.kernel = kernel
        self.alpha = alpha
        self.feature = feature
        self.strength = strength
        self.game = game
        self.n_coalitions = n_coalitions
        self.cme_regularization = cme_regularization
        self.n_background = n_background
        self.random_state = random_state
        self.value = value

    # -- validation -------------------------------------------------------------------------------
    def _check_params(self, d: int, columns: list[str] | None) -> int:
        for name in ("alpha", "strength"):
            v = check_scalar(getattr(self, name), name, Real, min_val=0.0)
            if not np.isfinite(v):
                raise ValueError(f"{name} must be a non-negative finite number, got {v!r}.")
        game = renamed_keyword(type(self).__name__, "game", self.game, "value", self.value, "interventional", 4)
        if game not in _VALUES:
            raise ValueError(f"game must be one of {_VALUES}, got {game!r}.")
        self.game_ = game
        eta = check_scalar(
            self.cme_regularization, "cme_regularization", Real, min_val=0.0, include_boundaries="neither"
        )
        if not np.isfinite(eta):
            raise ValueError(f"cme_regularization must be a positive finite number, got {eta!r}.")
        check_scalar(self.n_coalitions, "n_coalitions", Integral, min_val=1)
        if self.n_background is not None:
            check_scalar(self.n_background, "n_background", Integral, min_val=1)
        check_random_state(self.random_state)  # a bad seed is named before any work
        f = self.feature
        if isinstance(f, str):
            if columns is None or f not in columns:
                raise ValueError(f"feature {f!r} is not a column of X (columns: {columns}).")
            return columns.index(f)
        what = f"a column index in [0, {d}) or a column name"
        return int(check_param(f, "feature", Integer(-d, d, closed="left"), what=what)) % d

    def _make_kernel(self, X: np.ndarray, d: int) -> Kernel:
        if self.kernel is None:
            return default_kernel(X)
        if not isinstance(self.kernel, Kernel) or isinstance(self.kernel, SumKernel):
            raise TypeError(
                "kernel must be a kexplain product kernel (kx.kernels.RBF, Laplacian, Cauchy or "
                f"ProductKernel), got {type(self.kernel).__name__}."
            )
        self.kernel.check_n_features(d)
        return self.kernel

    # -- fitting ----------------------------------------------------------------------------------
    def fit(self, X: Any, y: Any) -> ShapleyRegularizedKernelRidge:
        """Fit the regularised kernel ridge regression in closed form.

        Parameters
        ----------
        X : array-like of shape (n, d) or DataFrame
            Training rows.
        y : array-like of shape (n,)
            Training targets.

        Returns
        -------
        ShapleyRegularizedKernelRidge
            The fitted estimator (self).

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.rkhs import ShapleyRegularizedKernelRidge
        >>> X = np.random.default_rng(0).normal(size=(20, 2))
        >>> m = ShapleyRegularizedKernelRidge(strength=1.0).fit(X, X[:, 0])
        >>> m.dual_coef_.shape, m.zeta_.shape
        ((20,), (20, 20))
        """
        X, y = validate_data(
            self, X, y, dtype=np.float64, y_numeric=True, ensure_all_finite=False, ensure_min_samples=2
        )
        X = check_data(X, name="X")  # NaN and infinities, named by row and column
        names = getattr(self, "feature_names_in_", None)
        columns = None if names is None else [str(c) for c in names]
        n, d = X.shape
        self.feature_index_ = self._check_params(d, columns)
        self.kernel_ = self._make_kernel(X, d)
        self.X_fit_ = X
        self.intercept_ = float(np.mean(y))
        yc = y - self.intercept_
        K = self.kernel_(X, X)
        penalty: Any = 0.0
        if self.strength > 0:
            self.zeta_: np.ndarray | None = self._zeta(X)
            penalty = (self.strength / n) * (self.zeta_ @ self.zeta_.T)
        else:
            self.zeta_ = None
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

    def _zeta(self, X: np.ndarray) -> np.ndarray:
        rng = check_random_state(self.random_state)
        A = self.feature_index_
        n, d = X.shape
        if self.game_ == "interventional":
            Z = X
            if self.n_background is not None and self.n_background < n:
                Z = X[np.sort(rng.choice(n, self.n_background, replace=False))]
            game = _FeatureShapleyGame(self.kernel_, X, Z)
            res = solve_product_game(game)
            phi = res.values[:, A, 0].reshape(n, n)  # [i, m]
            return _kernel_amplitude(self.kernel_) * phi.T  # [m, i]
        from .cme import ProductCME

        em = KernelExpansion(X, np.zeros(n), self.kernel_)
        cme_game = ProductCME(em, X, self.cme_regularization).game(X)
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
            zeta += cme_game.basis_values(SA) - cme_game.basis_values(S)
        return zeta / self.n_coalitions

    # -- prediction -------------------------------------------------------------------------------
    def predict(self, X: Any) -> np.ndarray:
        """Predictions of the fitted model.

        Parameters
        ----------
        X : array-like of shape (N, d)
            Rows to predict, with the training rows' columns.

        Returns
        -------
        ndarray of shape (N,)
            The prediction at each row, intercept included.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.rkhs import ShapleyRegularizedKernelRidge
        >>> X = np.random.default_rng(0).normal(size=(20, 2))
        >>> ShapleyRegularizedKernelRidge().fit(X, X[:, 0]).predict(X[:3]).shape
        (3,)
        """
        check_is_fitted(self, "dual_coef_")
        X = validate_data(self, X, reset=False, dtype=np.float64, ensure_all_finite=False)
        X = check_data(X, name="X", n_features=self.n_features_in_)
        return self.kernel_(X, self.X_fit_) @ self.dual_coef_ + self.intercept_

    def to_kernel_expansion(self) -> KernelExpansion:
        """The fitted model as a kx.KernelExpansion.

        Explain it with RKHSExplainer or ProductKernelExplainer.

        Returns
        -------
        KernelExpansion
            The training rows, the dual coefficients, the kernel and the intercept.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.rkhs import ShapleyRegularizedKernelRidge
        >>> X = np.random.default_rng(0).normal(size=(20, 2))
        >>> m = ShapleyRegularizedKernelRidge().fit(X, X[:, 0])
        >>> bool(np.allclose(m.to_kernel_expansion().predict(X), m.predict(X)))
        True
        """
        check_is_fitted(self, "dual_coef_")
        names = None if not hasattr(self, "feature_names_in_") else [str(c) for c in self.feature_names_in_]
        return KernelExpansion(self.X_fit_, self.dual_coef_, self.kernel_, self.intercept_, feature_names=names)

    def feature_shapley_values(self) -> np.ndarray:
        """Shapley values of the regularised feature at the training rows (zeta^T coef).

        This is the quantity whose mean square the regulariser penalises; computed on demand when
        ``strength`` is 0.

        Returns
        -------
        ndarray of shape (n,)
            The Shapley value of the regularised feature at each training row.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.rkhs import ShapleyRegularizedKernelRidge
        >>> X = np.random.default_rng(0).normal(size=(20, 2))
        >>> ShapleyRegularizedKernelRidge(feature=1).fit(X, X[:, 0]).feature_shapley_values().shape
        (20,)
        """
        check_is_fitted(self, "dual_coef_")
        zeta = self.zeta_ if self.zeta_ is not None else self._zeta(self.X_fit_)
        return zeta.T @ self.dual_coef_

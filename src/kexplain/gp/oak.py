"""Orthogonal additive Gaussian process regression (OAK) with exact Shapley explanations.

The kernel is k(x, x') = sum_{q=0}^{Q} sigma_q^2 e_q(k~_1(x_1, x'_1), ..., k~_d(x_d, x'_d)), with k~_j
the base kernel of feature j made orthogonal to that feature's input measure (``kernels.py``) and
e_q the elementary symmetric polynomials (sum over all q-subsets of features of the product), built
by the stable recursion e_q <- e_q + k~_j e_{q-1}.  Because the constrained kernels integrate to zero,
the posterior mean splits into a functional ANOVA decomposition

    f(x) = f_0 + sum_{T nonempty} f_T(x),  f_T(x) = sigma_|T|^2 sum_i alpha_i prod_{j in T} k~_j(x_j, X_ij),

and both explanations of seed 001 are additive games solved by ``kexplain.shapley.additive``:

- local (Lemma 1): phi_j(x) = sum_{T containing j} f_T(x) / |T|, the Shapley value of the game
  v(S) = sum_{T subset S} f_T(x) (which is also E[f(x_S, X_rest)] with X_rest drawn from the measure);
- global (Theorem 1): Phi_j = sum_{T containing j} Var f_T / |T|, the Shapley value of the game
  v(S) = Var E[f | x_S] = sum_{T subset S} Var f_T, with Var f_T = sigma_|T|^4 alpha' Gamma_T alpha and
  Gamma_T the elementwise product of Gamma_j = int k~_j(s, X_.j) k~_j(s, X_.j)' dp_j(s).

Training is plain numpy/scipy: the negative log marginal likelihood and its analytic gradient
(derivatives in the order variances are the e_q matrices themselves; the derivative in a lengthscale
needs sum_q sigma_q^2 e_{q-1}(k~ without j), the leave-one-out sums the additive-game solver already
computes) are minimised with L-BFGS-B.  No torch: CI has none, and at the sizes exact GPs reach
(n of a few thousand) the cost is the Cholesky factorisation, which LAPACK does as well as torch.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy import linalg, optimize
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._validation import check_data, feature_names_of
from ..explanation import Explanation
from ..shapley.additive import (
    DenseAdditiveGame,
    _block_core,
    _order_coefficients,
    elementary_symmetric,
    solve_additive_game,
)
from .kernels import Categorical, EmpiricalRBF, GaussianRBF

#: above this many training rows ``n_inducing=None`` switches to the sparse mode
SPARSE_THRESHOLD = 5000
#: inducing points used by the automatic sparse mode
DEFAULT_INDUCING = 500
#: hyperparameters are fitted on at most this many (randomly chosen) rows
MAX_FIT_ROWS = 1000
#: a declared categorical feature with non-integer numbers may have at most this many levels
MAX_FLOAT_LEVELS = 50
#: bound, in bytes, for the temporaries of kernel blocks
_BLOCK_BYTES = 64 * 2**20

_MEASURES = ("gaussian", "empirical")

# log-space bounds of the hyperparameters (targets are standardised, inputs roughly unit scale)
_LOG_L = (np.log(1e-2), np.log(1e3))
_LOG_VAR = (np.log(1e-8), np.log(1e3))
_LOG_NOISE = (np.log(1e-6), np.log(10.0))


@dataclass
class GlobalImportance:
    """Exact variance decomposition of a fitted OAK model over its input measure.

    ``values`` are the global Shapley values (seed 001 Theorem 1); they sum to ``variance``.
    ``first_order`` and ``total`` are the first-order and total Sobol indices (fractions of
    ``variance``); ``component_variance[q]`` is the variance carried by all interactions of order q.
    """

    values: np.ndarray
    variance: float
    first_order: np.ndarray
    total: np.ndarray
    component_variance: np.ndarray
    feature_names: list

    def to_frame(self):
        from .._optional import require

        pd = require("pandas", "GlobalImportance.to_frame")
        return pd.DataFrame(
            {
                "shapley": self.values,
                "shapley_fraction": self.values / self.variance if self.variance > 0 else np.nan,
                "first_order_sobol": self.first_order,
                "total_sobol": self.total,
            },
            index=pd.Index(self.feature_names, name="feature"),
        )

    def ranking(self) -> list:
        """Feature names, most important first."""
        return [self.feature_names[j] for j in np.argsort(-self.values, kind="stable")]


class OAKRegressor(RegressorMixin, BaseEstimator):
    """Orthogonal additive Gaussian process regressor with exact local and global Shapley values.

    Parameters
    ----------
    max_interaction_order : int or None
        Highest interaction order Q (1 = additive model). None means all orders (Q = d).
    input_measure : {"gaussian", "empirical"}
        The measure the base kernels are made orthogonal to. "gaussian": N(mean, std^2) of each
        (transformed) feature, every integral in closed form. "empirical": the training values of
        each feature (compressed to at most 1000 weighted points), exact for that measure.
        Categorical features always use their category frequencies.
    normalize_inputs : bool
        Fit a Yeo-Johnson power transform (standardised) per continuous feature first, so the
        Gaussian measure fits the data (the role of the paper's normalising flow). Yeo-Johnson
        rather than a quantile transform: it is smooth and strictly monotone, extrapolates beyond
        the training range (a quantile map clips there, making every component flat), and has one
        parameter per feature, so it does not overfit small samples.
    categorical_features : None, list of column indices or names, or boolean mask
        Features with discrete measures (binary or categorical, integer codes or labels). None:
        the columns holding non-numeric labels.
    n_inducing : int or None
        Sparse mode with this many inducing points (a random subset of the training rows) and the
        DTC/projected-process posterior. None: exact for n <= 5000, else 500 inducing points.
        In both modes the hyperparameters are fitted on at most 1000 random rows (the marginal
        likelihood's gradient holds rows^2 x d arrays); the posterior then uses every row.
    max_iter : int
        L-BFGS-B iterations for the marginal likelihood (0 keeps the initial hyperparameters).
    n_restarts : int
        Extra optimisations from random starting points; the best marginal likelihood wins.
    random_state : int, RandomState or None
    """

    def __init__(
        self,
        max_interaction_order=None,
        input_measure="gaussian",
        normalize_inputs=True,
        categorical_features=None,
        n_inducing=None,
        max_iter=200,
        n_restarts=0,
        random_state=None,
    ):
        self.max_interaction_order = max_interaction_order
        self.input_measure = input_measure
        self.normalize_inputs = normalize_inputs
        self.categorical_features = categorical_features
        self.n_inducing = n_inducing
        self.max_iter = max_iter
        self.n_restarts = n_restarts
        self.random_state = random_state

    # ------------------------------------------------------------------ input handling
    def _categorical_mask(self, X, names, d):
        cf = self.categorical_features
        if cf is None:
            arr = X.to_numpy() if hasattr(X, "to_numpy") else np.asarray(X)
            mask = np.zeros(d, dtype=bool)
            if arr.dtype == object or arr.dtype.kind in "USb":
                for j in range(d):
                    try:
                        np.asarray(arr[:, j]).astype(np.float64)
                    except (TypeError, ValueError):
                        mask[j] = True
            return mask
        cf_arr = np.asarray(cf)
        if cf_arr.dtype == bool:
            if cf_arr.shape != (d,):
                raise ValueError(
                    f"categorical_features as a boolean mask needs one entry per feature ({d}), "
                    f"got shape {cf_arr.shape}."
                )
            return cf_arr.copy()
        mask = np.zeros(d, dtype=bool)
        for f in np.atleast_1d(cf_arr).tolist():
            if isinstance(f, str):
                if names is None or f not in names:
                    raise ValueError(
                        f"categorical_features names {f!r}, which is not a column of X "
                        f"({names if names is not None else 'X has no column names'})."
                    )
                mask[names.index(f)] = True
            elif isinstance(f, (int, np.integer)) and -d <= f < d:
                mask[f] = True
            else:
                raise ValueError(
                    f"categorical_features accepts column indices in [0, {d}), column names or a boolean "
                    f"mask; got {f!r}."
                )
        return mask

    def _encode_categorical_fit(self, col, j):
        vals = np.asarray(col, dtype=object)
        numeric = True
        try:
            f = vals.astype(np.float64)
        except (TypeError, ValueError):
            numeric = False
        if numeric:
            levels = np.unique(f)
            # non-integer numbers are fine as a few levels (a scaled binary column), not as a
            # continuum: that is a continuous feature declared categorical by mistake
            limit = max(2, min(MAX_FLOAT_LEVELS, f.shape[0] // 2))
            if np.any(f != np.round(f)) and levels.shape[0] > limit:
                raise ValueError(
                    f"categorical_features declares feature {self._names[j]!r} categorical, but it holds "
                    f"continuous values ({levels.shape[0]} distinct non-integer numbers, e.g. "
                    f"{float(levels[1]):.6g}); categorical features accept labels, integer codes or at most "
                    f"{limit} distinct numbers. Leave it out of categorical_features to model it as continuous."
                )
            codes = np.searchsorted(levels, f)
        else:
            levels, codes = np.unique(vals.astype(str), return_inverse=True)
        return levels, codes.astype(np.float64)

    def _encode_categorical(self, col, j):
        levels = self.categories_[j]
        if levels.dtype.kind == "f":
            try:
                f = np.asarray(col, dtype=object).astype(np.float64)
            except (TypeError, ValueError):
                raise ValueError(
                    f"feature {self._names[j]!r} was numeric codes in training but X holds labels."
                ) from None
        else:
            f = np.asarray(col, dtype=object).astype(str)
        pos = np.clip(np.searchsorted(levels, f), 0, len(levels) - 1)
        # an unseen category gets code -1: zero kernel against every training category
        return np.where(levels[pos] == f, pos, -1).astype(np.float64)

    def _encode(self, X, name="X"):
        """Validated, encoded and transformed copy of X as float64 (categories as codes)."""
        check_is_fitted(self, "alpha_")
        Xv = check_data(X, name=name, n_features=self.n_features_in_, numeric_mask=~self.categorical_mask_,
                        feature_names=getattr(self, "feature_names_in_", None))
        Z = np.empty(Xv.shape)
        for j in range(Xv.shape[1]):
            if self.categorical_mask_[j]:
                Z[:, j] = self._encode_categorical(Xv[:, j], j)
            else:
                Z[:, j] = np.asarray(Xv[:, j], dtype=np.float64)
        cont = ~self.categorical_mask_
        if self.transformer_ is not None and cont.any():
            Z[:, cont] = self.transformer_.transform(Z[:, cont])
        return Z

    # ------------------------------------------------------------------ kernel pieces
    def _feature_kernels(self, A, B, ls):
        """Constrained kernel matrices k~_j(A_j, B_j), stacked to (len A, len B, d)."""
        z = np.stack([b.k(A[:, j], B[:, j], ls[j]) for j, b in enumerate(self.bases_)])
        return np.moveaxis(z, 0, -1)       # feature-leading memory, as the ESP recursion wants it

    def _kernel(self, A, B, ls, s2):
        """Additive kernel matrix sum_q s2[q] e_q(k~), in row blocks to bound memory."""
        d = A.shape[1]
        Q = s2.shape[0] - 1
        per_row = 8 * max(1, B.shape[0]) * (d + Q + 2) * 2
        step = max(1, _BLOCK_BYTES // per_row)
        out = np.empty((A.shape[0], B.shape[0]))
        for a0 in range(0, A.shape[0], step):
            sl = slice(a0, a0 + step)
            out[sl] = elementary_symmetric(self._feature_kernels(A[sl], B, ls), Q) @ s2
        return out

    def _kernel_diag(self, A, ls, s2):
        kd = np.stack([b.diag(A[:, j], ls[j]) for j, b in enumerate(self.bases_)], axis=-1)
        return elementary_symmetric(kd, s2.shape[0] - 1) @ s2

    # ------------------------------------------------------------------ marginal likelihood
    def _unpack(self, theta):
        d = len(self.bases_)
        ls = np.ones(d)
        nl = int(self._has_l.sum())
        ls[self._has_l] = np.exp(theta[:nl])
        s2 = np.exp(theta[nl : nl + self._Q + 1])
        noise = float(np.exp(theta[-1]))
        return ls, s2, noise

    def _nll(self, theta, Z, y):
        ls, s2, noise = self._unpack(theta)
        n, d = Z.shape
        Q = self._Q
        Kt = self._feature_kernels(Z, Z, ls)                 # (n, n, d)
        E = elementary_symmetric(Kt, Q)                      # (n, n, Q + 1)
        K = E @ s2
        K[np.diag_indices_from(K)] += noise
        try:
            L = linalg.cholesky(K, lower=True)
        except linalg.LinAlgError:
            return 1e25, np.zeros_like(theta)
        alpha = linalg.cho_solve((L, True), y)
        nll = 0.5 * y @ alpha + np.log(np.diag(L)).sum() + 0.5 * n * np.log(2 * np.pi)
        W = np.outer(alpha, alpha) - linalg.cho_solve((L, True), np.eye(n))
        grad = np.empty_like(theta)
        nl = int(self._has_l.sum())
        # order variances: dK/dlog s2_q = s2_q e_q
        grad[nl : nl + Q + 1] = -0.5 * s2 * np.einsum("ab,abq->q", W, E)
        grad[-1] = -0.5 * noise * np.trace(W)
        if nl:
            # lengthscales: dK/dlog l_j = (sum_q s2_q e_{q-1}(k~ without j)) * dk~_j/dlog l_j, summed
            # against W over the upper triangle (W and K are symmetric)
            iu = np.triu_indices(n)
            mult = np.where(iu[0] == iu[1], 1.0, 2.0)
            dK = np.zeros((len(iu[0]), d))
            for j, b in enumerate(self.bases_):
                if self._has_l[j]:
                    dK[:, j] = b.dk_dlog_l(Z[:, j], Z[:, j], ls[j])[iu]
            game = DenseAdditiveGame(Kt[iu][None], (W[iu] * mult)[:, None], s2, y=dK[None])
            res = solve_additive_game(game, index="total")
            grad[:nl] = -0.5 * res.values[0, self._has_l, 0]
        return float(nll), grad

    def _initial_theta(self, rng=None):
        nl = int(self._has_l.sum())
        if rng is None:
            log_l = np.log(self._scales[self._has_l])
            log_s2 = np.log(np.r_[1.0, np.full(self._Q, 0.5)])
            log_noise = np.log(0.1)
        else:
            log_l = np.log(self._scales[self._has_l]) + rng.uniform(-1.0, 1.5, nl)
            log_s2 = rng.uniform(np.log(0.05), np.log(2.0), self._Q + 1)
            log_noise = rng.uniform(np.log(1e-3), np.log(0.5))
        return np.r_[log_l, log_s2, log_noise]

    def _bounds(self):
        nl = int(self._has_l.sum())
        bl = [(lo + np.log(s), hi + np.log(s)) for s, (lo, hi) in zip(self._scales[self._has_l], [_LOG_L] * nl)]
        return bl + [_LOG_VAR] * (self._Q + 1) + [_LOG_NOISE]

    def _optimise(self, Z, y, rng):
        starts = [self._initial_theta()] + [self._initial_theta(rng) for _ in range(int(self.n_restarts))]
        best = None
        for theta0 in starts:
            if self.max_iter == 0:
                val, _ = self._nll(theta0, Z, y)
                cand = (val, theta0)
            else:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    res = optimize.minimize(self._nll, theta0, args=(Z, y), jac=True, method="L-BFGS-B",
                                            bounds=self._bounds(), options={"maxiter": int(self.max_iter)})
                cand = (float(res.fun), res.x)
            if best is None or cand[0] < best[0]:
                best = cand
        if best[0] >= 1e25:
            raise np.linalg.LinAlgError(
                "the OAK kernel matrix was not positive definite at any hyperparameter tried; "
                "check X for duplicated constant columns."
            )
        return best

    # ------------------------------------------------------------------ fit / predict
    def _check_params(self, d):
        if self.input_measure not in _MEASURES:
            raise ValueError(f"input_measure must be one of {_MEASURES}, got {self.input_measure!r}.")
        Q = self.max_interaction_order
        if Q is None:
            Q = d
        elif isinstance(Q, (bool, np.bool_)) or not isinstance(Q, (int, np.integer)) or Q < 1:
            raise ValueError(f"max_interaction_order must be a positive integer or None, got {Q!r}.")
        elif Q > d:
            raise ValueError(
                f"max_interaction_order={Q} is above the number of features ({d}); it accepts 1..{d} or None."
            )
        for name in ("max_iter", "n_restarts"):
            v = getattr(self, name)
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 0:
                raise ValueError(f"{name} must be a non-negative integer, got {v!r}.")
        m = self.n_inducing
        if m is not None and (isinstance(m, (bool, np.bool_)) or not isinstance(m, (int, np.integer)) or m < 1):
            raise ValueError(f"n_inducing must be a positive integer or None, got {m!r}.")
        return int(Q)

    def fit(self, X, y):
        """Fit the base-kernel measures, the input transform and the hyperparameters; returns self."""
        names = feature_names_of(X)
        arr = X.to_numpy() if hasattr(X, "to_numpy") else np.asarray(X)
        if arr.ndim != 2:
            raise ValueError(f"X must be a 2-D array of shape (n_samples, n_features), got shape {arr.shape}.")
        n, d = arr.shape
        Q = self._check_params(d)
        mask = self._categorical_mask(X, names, d)
        Xv = check_data(X, name="X", numeric_mask=~mask, min_rows=2)
        y = np.asarray(y, dtype=np.float64) if not hasattr(y, "to_numpy") else y.to_numpy().astype(np.float64)
        if y.ndim == 2 and y.shape[1] == 1:
            y = y[:, 0]
        if y.ndim != 1 or y.shape[0] != n:
            raise ValueError(f"y must be 1-D with one target per row of X ({n}), got shape {y.shape}.")
        if not np.all(np.isfinite(y)):
            raise ValueError("y contains NaN or infinite values.")
        self._names = names if names is not None else [f"x{j}" for j in range(d)]
        if names is not None:
            self.feature_names_in_ = np.asarray(names, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self.n_features_in_ = d
        self.categorical_mask_ = mask
        self._Q = Q
        Z = np.empty((n, d))
        self.categories_ = [None] * d
        for j in range(d):
            if mask[j]:
                self.categories_[j], Z[:, j] = self._encode_categorical_fit(Xv[:, j], j)
            else:
                Z[:, j] = np.asarray(Xv[:, j], dtype=np.float64)
        cont = ~mask
        for j in np.nonzero(cont)[0]:
            if np.ptp(Z[:, j]) == 0:
                raise ValueError(f"X column {self._names[j]!r} is constant; drop it (it cannot explain anything).")
        self.transformer_ = None
        if self.normalize_inputs and cont.any():
            from sklearn.preprocessing import PowerTransformer

            self.transformer_ = PowerTransformer(method="yeo-johnson", standardize=True).fit(Z[:, cont])
            Z[:, cont] = self.transformer_.transform(Z[:, cont])
        bases = []
        for j in range(d):
            if mask[j]:
                probs = np.bincount(Z[:, j].astype(int), minlength=len(self.categories_[j])) / n
                bases.append(Categorical(probs))
            elif self.input_measure == "gaussian":
                bases.append(GaussianRBF(Z[:, j].mean(), Z[:, j].std()))
            else:
                bases.append(EmpiricalRBF(Z[:, j]))
        self.bases_ = bases
        self._has_l = np.array([b.has_lengthscale for b in bases])
        self._scales = np.where(cont, np.r_[[Z[:, j].std() if cont[j] else 1.0 for j in range(d)]], 1.0)
        self.y_mean_ = float(y.mean())
        self.y_std_ = float(y.std()) if y.std() > 0 else 1.0
        ys = (y - self.y_mean_) / self.y_std_
        rng = check_random_state(self.random_state)
        m = self.n_inducing
        if m is None and n > SPARSE_THRESHOLD:
            m = DEFAULT_INDUCING
        self.sparse_ = m is not None and m < n
        # the marginal likelihood and its gradient hold (rows^2 x d) arrays: above MAX_FIT_ROWS
        # the hyperparameters come from a random subset, the posterior still from every row
        if n > MAX_FIT_ROWS:
            fit_rows = np.sort(rng.choice(n, MAX_FIT_ROWS, replace=False))
        else:
            fit_rows = np.arange(n)
        nll, theta = self._optimise(Z[fit_rows], ys[fit_rows], rng)
        ls, s2, noise = self._unpack(theta)
        self.lengthscales_ = np.where(self._has_l, ls, np.nan)
        self.order_variances_ = s2
        self.noise_variance_ = noise
        self.log_marginal_likelihood_value_ = -nll
        if not self.sparse_:
            self.support_ = Z
            K = self._kernel(Z, Z, ls, s2)
            K[np.diag_indices_from(K)] += noise
            self._L = linalg.cholesky(K, lower=True)
            self.alpha_ = linalg.cho_solve((self._L, True), ys)
        else:
            self.support_ = Z[np.sort(rng.choice(n, m, replace=False))]
            self._fit_sparse(Z, ys, ls, s2, noise)
        return self

    def _fit_sparse(self, Z, ys, ls, s2, noise):
        """DTC / projected-process posterior mean over the inducing points."""
        S = self.support_
        m = S.shape[0]
        Kmm = self._kernel(S, S, ls, s2)
        Kmm[np.diag_indices_from(Kmm)] += 1e-8 * max(1.0, np.trace(Kmm) / m)
        A = noise * Kmm
        b = np.zeros(m)
        step = max(1, _BLOCK_BYTES // (8 * m * (Z.shape[1] + s2.shape[0] + 2) * 2))
        for r0 in range(0, Z.shape[0], step):
            Kmn = self._kernel(S, Z[r0 : r0 + step], ls, s2)
            A += Kmn @ Kmn.T
            b += Kmn @ ys[r0 : r0 + step]
        self._Lmm = linalg.cholesky(Kmm, lower=True)
        self._LA = linalg.cholesky(A, lower=True)
        self.alpha_ = linalg.cho_solve((self._LA, True), b)

    def _mean_encoded(self, Z):
        ls = np.nan_to_num(self.lengthscales_, nan=1.0)
        return self.y_mean_ + self.y_std_ * (self._kernel(Z, self.support_, ls, self.order_variances_) @ self.alpha_)

    def predict(self, X, return_std=False):
        """Posterior mean (and, with ``return_std``, the standard deviation of the latent f)."""
        Z = self._encode(X)
        ls = np.nan_to_num(self.lengthscales_, nan=1.0)
        Kxs = self._kernel(Z, self.support_, ls, self.order_variances_)
        mean = self.y_mean_ + self.y_std_ * (Kxs @ self.alpha_)
        if not return_std:
            return mean
        kdiag = self._kernel_diag(Z, ls, self.order_variances_)
        if not self.sparse_:
            v = linalg.solve_triangular(self._L, Kxs.T, lower=True)
            var = kdiag - (v**2).sum(axis=0)
        else:
            v1 = linalg.solve_triangular(self._Lmm, Kxs.T, lower=True)
            v2 = linalg.solve_triangular(self._LA, Kxs.T, lower=True)
            var = kdiag - (v1**2).sum(axis=0) + self.noise_variance_ * (v2**2).sum(axis=0)
        return mean, self.y_std_ * np.sqrt(np.clip(var, 0.0, None))

    # ------------------------------------------------------------------ explanations
    @property
    def feature_names_(self):
        check_is_fitted(self, "alpha_")
        return list(self._names)

    @property
    def constant_(self) -> float:
        """f_0: the constant ANOVA component (the mean of f under the input measure)."""
        check_is_fitted(self, "alpha_")
        return self.y_mean_ + self.y_std_ * self.order_variances_[0] * self.alpha_.sum()

    def explain(self, X, *, progress=False):
        """Exact local Shapley values (seed 001 Lemma 1): phi_j(x) = sum_{T containing j} f_T(x) / |T|.

        Returns an Explanation whose base value is the constant component f_0 and whose values
        sum with it to ``predict(X)`` (efficiency is exact). The game is v(S) = sum_{T in S} f_T(x),
        i.e. E[f(x_S, X_rest)] with X_rest drawn from the model's input measure.
        """
        Xv = X.to_numpy() if hasattr(X, "to_numpy") else X
        Z = self._encode(X)
        game = _LocalGame(self, Z)
        res = solve_additive_game(game, progress=progress)
        base = self.y_mean_ + res.v_empty[:, 0]
        return Explanation(
            res.values[:, :, 0],
            base,
            data=np.asarray(Xv),
            feature_names=self.feature_names_,
            game="oak-anova",
            info={"predictions": self.y_mean_ + res.v_full[:, 0], "max_interaction_order": self._Q},
        )

    def _support_factors(self, ls):
        """For bases with a discrete measure: k~_j(s, support_j) at the measure's points and weights."""
        out = []
        for j, b in enumerate(self.bases_):
            if isinstance(b, EmpiricalRBF):
                out.append((b.at_measure(self.support_[:, j], ls[j]), b.weights))
            elif isinstance(b, Categorical):
                levels = np.arange(b.probs.size, dtype=np.float64)
                out.append((b.k(levels, self.support_[:, j]), b.probs))
            else:
                out.append(None)
        return out

    def global_importance(self):
        """Exact global variance Shapley values (seed 001 Theorem 1) with Sobol indices.

        The variance is that of the posterior mean f under the product of the per-feature input
        measures (in original target units); the Shapley values sum to it exactly.
        """
        check_is_fitted(self, "alpha_")
        ls = np.nan_to_num(self.lengthscales_, nan=1.0)
        S = self.support_
        m, d = S.shape
        Q = self._Q
        w = np.r_[0.0, self.order_variances_[1:] ** 2]           # Var f_T = s2_|T|^2 a' Gamma_T a
        a = self.alpha_ * self.y_std_
        factors = self._support_factors(ls)
        phi = np.zeros(d)
        total = np.zeros(d)
        first = np.zeros(d)
        comp = np.zeros(Q + 1)
        beta_shapley = _order_coefficients(w, d, "shapley")
        beta_total = _order_coefficients(w, d, "total")
        per_row = 8 * m * (2 * (d + 1) * (Q + 1) + 5 * d + Q + 2)
        # small chunks along a keep the wasted part below the diagonal small
        step = max(1, min(_BLOCK_BYTES // per_row, m // 16))
        for a0 in range(0, m, step):
            a1 = min(m, a0 + step)
            G = np.empty((d, a1 - a0, m - a0))                  # pairs (a, b) with b >= a0
            for j, b in enumerate(self.bases_):
                if factors[j] is None:
                    G[j] = b.gamma(S[a0:a1, j], S[a0:, j], ls[j])
                else:
                    F, wt = factors[j]
                    G[j] = (F[:, a0:a1] * wt[:, None]).T @ F[:, a0:]
            # upper triangle only: weight 2 off the diagonal, 0 below it
            rows = np.arange(a0, a1)[:, None]
            cols = np.arange(a0, m)[None, :]
            mult = np.where(cols > rows, 2.0, np.where(cols == rows, 1.0, 0.0))
            c = (a[a0:a1, None] * a[None, a0:] * mult).reshape(-1, 1)
            zt = G.reshape(d, 1, -1)                             # feature-leading, contiguous
            # one pass gives the Shapley values, the total effects and sum_pairs c e_q(Gamma)
            (ph, tt), orders = _block_core(zt, c, w, [beta_shapley, beta_total])
            phi += ph[0, :, 0]
            total += tt[0, :, 0]
            comp += w * orders[0, :, 0]
            first += w[1] * np.einsum("jr,ro->j", zt[:, 0], c)
        variance = float(comp.sum())
        if variance <= 0:
            first_o = np.zeros(d)
            total_o = np.zeros(d)
        else:
            first_o = first / variance
            total_o = total / variance
        return GlobalImportance(phi, float(variance), first_o, total_o, comp, self.feature_names_)

    def _feature_index(self, f):
        if isinstance(f, str):
            if f not in self._names:
                raise ValueError(f"features names {f!r}, which is not one of {self._names}.")
            return self._names.index(f)
        if isinstance(f, (int, np.integer)) and not isinstance(f, bool) and -len(self._names) <= f < len(self._names):
            return int(f) % len(self._names)
        raise ValueError(f"features accepts feature indices in [0, {len(self._names)}) or names; got {f!r}.")

    def component(self, features, X):
        """The fitted ANOVA component f_T(x) for the feature subset T = ``features`` (int, name or list).

        ``component([], X)`` is the constant f_0; components above the interaction order are zero.
        """
        check_is_fitted(self, "alpha_")
        if isinstance(features, (str, int, np.integer)):
            features = [features]
        idx = sorted({self._feature_index(f) for f in features})
        if len(idx) != len(list(features)):
            raise ValueError(f"features lists a feature twice: {features!r}.")
        Z = self._encode(X)
        if not idx:
            return np.full(Z.shape[0], self.constant_)
        if len(idx) > self._Q:
            return np.zeros(Z.shape[0])
        ls = np.nan_to_num(self.lengthscales_, nan=1.0)
        prod = np.ones((Z.shape[0], self.support_.shape[0]))
        for j in idx:
            prod *= self.bases_[j].k(Z[:, j], self.support_[:, j], ls[j])
        return self.y_std_ * self.order_variances_[len(idx)] * (prod @ self.alpha_)

    def sample_input_measure(self, n, random_state=None):
        """n rows drawn from the product of the per-feature input measures, in the model's encoded
        (transformed) space; evaluate them with ``_mean_encoded``. For Monte Carlo checks."""
        check_is_fitted(self, "alpha_")
        rng = check_random_state(random_state)
        return np.column_stack([b.sample(n, rng) for b in self.bases_])


class _LocalGame:
    """The additive game of local explanations: rows are the support points."""

    def __init__(self, model, Z):
        self.model = model
        self.Z = Z
        self.ls = np.nan_to_num(model.lengthscales_, nan=1.0)
        self.weights = model.order_variances_
        self.n_points = Z.shape[0]
        self.n_rows = model.support_.shape[0]
        self.n_features = Z.shape[1]
        self.n_outputs = 1
        self.c = (model.alpha_ * model.y_std_)[:, None]

    def block(self, points, rows):
        S = self.model.support_[rows]
        Zp = self.Z[points]
        z = np.stack([b.k(Zp[:, j], S[:, j], self.ls[j]) for j, b in enumerate(self.model.bases_)])
        # a (p, r, d) view of feature-leading memory: the solver's layout, so it needs no copy
        return np.moveaxis(z, 0, -1), self.c[rows]

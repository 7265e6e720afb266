"""ConditionalMeanEmbedding: the kernel ridge estimate of E[phi(Y) | X = x].

The conditional mean embedding (CME) of Y given X is the element mu_{Y|x} = E[l(Y, .) | X = x] of
the RKHS of a kernel l on Y; its kernel ridge estimate from rows (x_i, y_i), i = 1..n, is
mu_{Y|x} = sum_i beta_i(x) l(y_i, .) with

    beta(x) = (K + n eta I)^-1 k(X, x)

(Song, Huang, Smola & Fukumizu, 2009; the regression view in Chau, 2023, thesis section 4.2 and
appendix C.4; Chau, Hu, Gonzalez & Sejdinovic, 2022, section 2.2, where it estimates RKHS-SHAP's
observational game).  The ridge is **n * eta** throughout ``kexplain.embeddings`` (the convention of
RKHS-SHAP; the thesis writes N lambda in chapter 3 and lambda in chapter 4: lambda = n * eta).
Row weights w (summing to one) give D (D K D + n eta I)^-1 D k(X, x) with D = diag(sqrt(n w)),
which equals repeating rows in proportion to their weights.

The code lives by idea in three modules, every name imported from here:

- this module: the estimator (its parameters, ``fit`` and the choice of the regularisation,
  expectations and ``predict``, computed in blocks of ``BLOCK_BYTES``);
- ``_cme_queries``: the weights, embeddings and inner products of a fitted embedding (a mix-in);
- ``cme_selection``: the two criteria the regularisation is chosen by,
  :func:`cme_cv_loss_from_grams` and :func:`cme_log_marginal_likelihood`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from scipy.optimize import minimize_scalar
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from .._params import Integer, Options, check_param
from .._params import Real as RealNumber
from .._typing import RandomStateLike
from .._validation import check_data, check_random_state, to_array
from ._cme_queries import EmbeddingQueries
from .cme_selection import cme_cv_loss_from_grams as cme_cv_loss_from_grams
from .cme_selection import cme_log_marginal_likelihood as cme_log_marginal_likelihood
from .gram import as_2d, resolve_kernel
from .ridge import ExactRidge, NystroemRidge, choose_landmarks

_SELECTORS = ("cv", "marginal_likelihood")
#: bytes of the (n, rows) weights and cross-kernel per block of query rows in ``expectation`` and
#: ``predict`` (the output and the fitted n x n factor come on top)
BLOCK_BYTES = 2**26

#: default grid of eta for ``regularization="cv"``
DEFAULT_GRID = (1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0)


class ConditionalMeanEmbedding(EmbeddingQueries, RegressorMixin, BaseEstimator):
    """Conditional mean embedding of Y given X by kernel ridge regression (exact or Nystroem).

    After ``fit(X, Y)``, ``weights(x)`` gives beta(x) over the training rows, so that
    E[g(Y) | X = x] ~ sum_i beta_i(x) g(y_i) for any function g (``expectation``); ``embedding``
    evaluates mu_{Y|x}(y), ``inner_product`` gives <mu_{Y|x}, mu_{Y|x'}> in the target RKHS and
    ``predict`` the conditional mean E[Y | X = x] (g the identity), so the estimator is also a
    scikit-learn regressor.  beta(x) = D (D K D + n eta I)^-1 D k(X, x) with D = diag(sqrt(n w))
    for sample weights w normalised to sum to one (D = I without weights); with
    ``approximation="nystroem"`` the regression lives in the span of ``n_landmarks`` landmark
    rows' feature maps, beta(x) = D^2 K_XL (K_LX D^2 K_XL + n eta K_LL)^-1 k(L, x) (the
    push-through form; O(n m^2) instead of O(n^3)).  See Chau, 2023, thesis section 4.2 and
    appendix C.4, and Chau, Hu, Gonzalez & Sejdinovic, 2022, section 2.2.

    Parameters
    ----------
    kernel : None, kexplain kernel or callable
        Kernel k on X; None is kexplain's default RBF (``kx.kernels.default_kernel``) on the
        training X; a callable k(A, B) returns the (len(A), len(B)) Gram matrix.
    target_kernel : None, kexplain kernel or callable
        Kernel l on Y, used by ``embedding``, ``inner_product`` and the regularisation selectors;
        None is kexplain's default RBF on the training Y.
    regularization : float or {"cv", "marginal_likelihood"}
        eta (the ridge is n * eta); "cv" picks it from ``grid`` by ``n_folds``-fold
        cross-validation of the held-out squared RKHS error; "marginal_likelihood" maximises the
        log marginal likelihood of the Bayesian CME whose posterior mean is this estimator
        (``cme_log_marginal_likelihood``) over log10(eta) in [-8, 2].  The selectors use the
        exact system on at most ``max_selection_rows`` rows, unweighted.
    approximation : None or "nystroem"
        None for the exact ridge; "nystroem" for the Nystroem approximation on ``n_landmarks`` landmark
        rows.
    n_landmarks : int
        Landmark rows of the Nystroem approximation (all rows when there are fewer).
    grid : sequence of float, optional
        Candidates for ``regularization="cv"``; default 1e-6, 1e-5, ..., 1.
    n_folds : int
        Number of cross-validation folds of ``regularization="cv"``.
    max_selection_rows : int
        The largest number of rows the selection of ``regularization`` solves on (a random subset
        beyond).
    random_state : None, int or numpy Generator
        Picks the landmarks, the folds and the selection subsample.

    Attributes
    ----------
    regularization_ : float
        The eta used.
    X_fit_, Y_fit_ : ndarray
        The training rows (``Y_fit_`` is 2-D).
    sample_weight_ : ndarray of shape (n,) or None
        The normalised weights, None without weights.
    landmarks_ : ndarray of int or None
        Indices of the landmark rows (Nystroem).
    scores_ : dict or None
        eta -> held-out loss ("cv") or log marginal likelihood ("marginal_likelihood").
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.embeddings import ConditionalMeanEmbedding
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 1)); Y = X[:, 0] + 0.1 * rng.normal(size=200)
    >>> cme = ConditionalMeanEmbedding(regularization=1e-3).fit(X, Y)
    >>> cme.weights(np.array([[0.5]])).shape
    (200, 1)
    >>> np.round(cme.predict(np.array([[0.0], [1.0]])), 1)
    array([0., 1.])
    >>> np.round(cme.expectation(np.array([[1.0]]), lambda y: y[:, 0] ** 2), 1)   # E[Y^2 | X = 1] = 1.01
    array([0.9])
    """

    def __init__(
        self,
        kernel: Any = None,
        target_kernel: Any = None,
        *,
        regularization: float | str = 1e-3,
        approximation: str | None = None,
        n_landmarks: int = 300,
        grid: Sequence[float] | None = None,
        n_folds: int = 5,
        max_selection_rows: int = 1000,
        random_state: RandomStateLike = None,
    ) -> None:
        self.kernel = kernel
        self.target_kernel = target_kernel
        self.regularization = regularization
        self.approximation = approximation
        self.n_landmarks = n_landmarks
        self.grid = grid
        self.n_folds = n_folds
        self.max_selection_rows = max_selection_rows
        self.random_state = random_state

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = True
        return tags

    # -- fitting ------------------------------------------------------------------------------------
    def _check_params(self) -> None:
        r = self.regularization
        what = f"a positive number or one of {_SELECTORS}"
        # a string names a selector; anything else must be the ridge itself (so an array is never
        # compared with the names)
        check_param(
            r,
            "regularization",
            Options(_SELECTORS) if isinstance(r, str) else RealNumber(0, closed="neither"),
            what=what,
        )
        if self.approximation not in (None, "nystroem"):
            raise ValueError(f"approximation must be None or 'nystroem', got {self.approximation!r}.")
        for name in ("n_landmarks", "max_selection_rows"):
            check_param(getattr(self, name), name, Integer(1))
        if self.grid is not None:
            g = self.grid
            if isinstance(g, (str, bytes)) or np.ndim(g) != 1 or len(g) == 0:
                raise ValueError(f"grid must be a non-empty list of positive numbers (values of eta), got {g!r}.")
            # the message shows the whole grid, not the one bad value: the constraint is asked directly
            if not all(RealNumber(0, closed="neither").is_satisfied_by(v) for v in g):
                raise ValueError(f"grid must be a non-empty list of positive finite numbers, got {g!r}.")
        check_param(self.n_folds, "n_folds", Integer(2))

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> ConditionalMeanEmbedding:
        """Fit the embedding of Y given X.

        Parameters
        ----------
        X : array-like of shape (n, d)
            Rows of the conditioning variable.
        y : array-like of shape (n,) or (n, q)
            The targets Y.
        sample_weight : array-like of shape (n,), optional
            Non-negative row weights (normalised to sum to one).

        Returns
        -------
        ConditionalMeanEmbedding
            self.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.embeddings import ConditionalMeanEmbedding
        >>> X = np.linspace(0, 1, 20)[:, None]
        >>> ConditionalMeanEmbedding(regularization="cv").fit(X, X[:, 0] ** 2).regularization_ > 0
        True
        """
        self._check_params()
        n_rows = check_data(X, name="X", estimator=True, min_features=1, huge=True).shape[0]
        check_data(y, name="y", estimator=True, min_features=1, ndims=(1, 2), n_rows=n_rows, rows_of="X", huge=True)
        if sample_weight is not None:
            sw = check_data(
                sample_weight,
                name="sample_weight",
                estimator=True,
                min_features=1,
                ndims=(1,),
                n_rows=n_rows,
                rows_of="X",
                huge=False,
            )
            if np.any(sw < 0) or not np.any(sw > 0):
                raise ValueError("sample_weight must be non-negative and not all zero (at least one positive weight).")
        X, Y = validate_data(self, X, y, multi_output=True, y_numeric=True, dtype=np.float64)
        n = X.shape[0]
        self._y_1d = np.asarray(Y).ndim == 1
        Y2 = as_2d(Y)
        w = None
        if sample_weight is not None:
            sw = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
            if sw.sum() <= 0:
                raise ValueError("sample_weight must have a positive sum.")
            w = sw / sw.sum()
        self.X_fit_, self.Y_fit_, self.sample_weight_ = X, Y2, w
        self.kernel_ = resolve_kernel(self.kernel, X, "kernel")
        self.target_kernel_ = resolve_kernel(self.target_kernel, Y2, "target_kernel")
        rng = check_random_state(self.random_state)
        self.landmarks_ = (
            None if self.approximation is None else choose_landmarks(n, int(self.n_landmarks), rng, weights=w)
        )
        self.scores_: dict[float, float] | None = None
        if isinstance(self.regularization, str):
            self.regularization_ = self._select(rng)
        else:
            self.regularization_ = float(self.regularization)
        D = None if w is None else np.sqrt(n * w)
        lam = n * self.regularization_
        if self.landmarks_ is None:
            # the Gram matrix is factorised in its own memory: one n x n array at the peak
            K = self._gram(X, X, "X", "kernel")
            self.solver_: ExactRidge | NystroemRidge = ExactRidge(K, lam, D, overwrite_K=True)
            del K
        else:
            L = X[self.landmarks_]
            self.solver_ = NystroemRidge(self._gram(L, X, "X", "kernel"), self._gram(L, L, "X", "kernel"), lam, D)
        return self

    def _select(self, rng: np.random.Generator) -> float:
        X, Y = self.X_fit_, self.Y_fit_
        n = X.shape[0]
        if n > self.max_selection_rows:
            rows = rng.choice(n, int(self.max_selection_rows), replace=False)
            X, Y = X[rows], Y[rows]
            n = X.shape[0]
        K, L = self._gram(X, X, "X", "kernel"), self._gram(Y, Y, "y", "target_kernel")
        if self.regularization == "cv":
            grid = [float(g) for g in (DEFAULT_GRID if self.grid is None else self.grid)]
            if not grid or any(not (np.isfinite(g) and g > 0) for g in grid):
                raise ValueError(f"grid must be a non-empty list of positive numbers, got {grid!r}.")
            k = min(int(self.n_folds), n)
            if k < 2:
                raise ValueError("regularization='cv' needs at least 2 rows.")
            folds = np.array_split(rng.permutation(n), k)
            self.scores_ = {g: cme_cv_loss_from_grams(K, L, g, folds) for g in grid}
            return min(self.scores_, key=lambda g: self.scores_[g])  # type: ignore[index]

        def neg(log_eta: float) -> float:
            return -cme_log_marginal_likelihood(K, L, n * 10.0**log_eta)

        res = minimize_scalar(neg, bounds=(-8.0, 2.0), method="bounded", options={"xatol": 1e-3})
        eta = float(10.0**res.x)
        self.scores_ = {eta: -float(res.fun)}
        return eta

    # -- expectations (weights, embeddings, inner products: the EmbeddingQueries mix-in) ------------
    def expectation(self, X: Any, g: Callable[[np.ndarray], Any] | Any) -> np.ndarray:
        """E[g(Y) | X = x] for every row x of ``X``, shape (N,) or (N, o).

        ``g`` is a callable applied to the training targets (a 2-D (n, q) array; it returns (n,)
        or (n, o)), or the values g(y_i) themselves, shape (n,) or (n, o).

        Parameters
        ----------
        X : array-like of shape (N, d)
            Query rows of the conditioning variable.
        g : callable or array-like
            A function of the training targets (applied to the (n, q) array), or its values at them.

        Returns
        -------
        ndarray of shape (N,) or (N, o)
            E[g(Y) | X = x] for every query row.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.embeddings import ConditionalMeanEmbedding
        >>> X = np.linspace(0, 1, 30)[:, None]
        >>> cme = ConditionalMeanEmbedding(regularization=1e-6).fit(X, 2 * X[:, 0])
        >>> np.round(cme.expectation(np.array([[0.5]]), 2 * X[:, 0]), 2)
        array([1.])
        """
        check_is_fitted(self, "solver_")
        Xv = self._check_X(X)
        G = to_array(g(self.Y_fit_) if callable(g) else g, "g")
        n = self.Y_fit_.shape[0]
        if G.ndim == 0 or G.shape[0] != n or G.ndim > 2 or G.dtype.kind not in "biuf":
            raise ValueError(
                f"g must give one real value (or one row of values) per training row, {n} rows; got "
                f"{'shape ' + str(G.shape) if G.dtype.kind in 'biuf' else 'dtype ' + str(G.dtype)}."
            )
        G = G.astype(np.float64)
        if not np.all(np.isfinite(G)):
            raise ValueError("g gave NaN or infinite values at training rows; E[g(Y) | X] needs finite g(y_i).")
        # beta(x) is (n, rows): blocks of query rows keep it (and the cross-kernel) within BLOCK_BYTES
        step = max(1, BLOCK_BYTES // (16 * n))
        out = np.empty((Xv.shape[0],) + G.shape[1:])
        for s in range(0, Xv.shape[0], step):
            out[s : s + step] = self._beta(Xv[s : s + step]).T @ G
        return out

    def predict(self, X: Any) -> np.ndarray:
        """The conditional mean E[Y | X = x] (g the identity), shape (N,) or (N, q) as Y was.

        Computed in blocks of query rows: memory is the fitted factor (n x n exact, n x m
        Nystroem) plus the output plus ``BLOCK_BYTES`` (64 MiB) of weights at a time.

        Parameters
        ----------
        X : array-like of shape (N, d)
            Query rows of the conditioning variable.

        Returns
        -------
        ndarray of shape (N,) or (N, q)
            The conditional mean E[Y | X = x].

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.embeddings import ConditionalMeanEmbedding
        >>> X = np.linspace(0, 1, 30)[:, None]
        >>> np.round(ConditionalMeanEmbedding(regularization=1e-6).fit(X, X[:, 0]).predict([[0.5]]), 2)
        array([0.5])
        """
        check_is_fitted(self, "solver_")
        out = self.expectation(X, self.Y_fit_)
        return out[:, 0] if self._y_1d else out

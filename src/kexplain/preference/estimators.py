"""PreferenceClassifier: kernel logistic regression on Nystroem features of the preferential kernel.

The generalised preference model (GPM) of Chau (2023, Sections 6.3 and 7.2) fitted on a CPU:
the logit g(x^l, x^r, c) = sum_j beta_j k_E((x^l, x^r), (L_j, R_j)) k_U(c, C_j) over a few hundred
landmark duels, with weights from an L2-penalised logistic regression on the Nystroem features
K_{x,landmarks} K_{landmarks}^{-1/2} and no intercept (so p(l > r) + p(r > l) = 1).  Lengthscales and
the regularisation are chosen by cross-validated accuracy over a small grid unless given.

The estimator and the predict / predict_proba / score it shares with PreferenceGPClassifier live
here; its numerical fit (the Nystroem map, the Newton logistic regression) in ``_nystroem_fit``,
whose names are still imported from here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import KFold
from sklearn.utils.validation import check_is_fitted, check_scalar
from threadpoolctl import threadpool_limits

from .._typing import RandomStateLike
from .._validation import check_random_state, check_weights
from ..kernels.base import RBF
from ._checks import check_duels, check_labels, fitted_columns, reference_lengthscale, side_names
from ._nystroem_fit import _EIG_RTOL, _fit_flipped, _float_array, _landmark_map  # noqa: F401  (_EIG_RTOL: a name of this module before the split)
from .expansion import MODEL_TYPES, PreferenceExpansion


class _PreferenceMixin(ClassifierMixin):
    """predict / predict_proba / score shared by the preference estimators (decision_function given)."""

    classes_: np.ndarray
    #: the logit g of "left wins" (defined by each estimator)
    decision_function: Callable[..., np.ndarray]

    def _latent_scale(self, X_left: ArrayLike, X_right: ArrayLike, context: ArrayLike | None) -> np.ndarray | float:
        return 1.0

    def predict_proba(self, X_left: ArrayLike, X_right: ArrayLike, context: ArrayLike | None = None) -> np.ndarray:
        """Probabilities [p(right wins), p(left wins)] per duel, shape (n, 2), columns in ``classes_`` order."""
        g = self.decision_function(X_left, X_right, context)
        a = g / self._latent_scale(X_left, X_right, context)
        return np.column_stack([expit(-a), expit(a)])

    def predict(self, X_left: ArrayLike, X_right: ArrayLike, context: ArrayLike | None = None) -> np.ndarray:
        """``classes_[1]`` where the left item is predicted to win (g > 0), else ``classes_[0]``."""
        g = self.decision_function(X_left, X_right, context)
        return self.classes_[(g > 0).astype(np.int64)]

    def score(
        self,
        X_left: ArrayLike,
        X_right: ArrayLike,
        y: ArrayLike,
        context: ArrayLike | None = None,
        sample_weight: ArrayLike | None = None,
    ) -> float:
        """Accuracy of the predicted winners (``y`` coded 0/1 or -1/+1, 1: left wins)."""
        y01, _ = check_labels(y, len(np.asarray(X_left)))
        pred = self.decision_function(X_left, X_right, context) > 0
        w = np.ones(len(y01)) if sample_weight is None else check_weights(sample_weight, len(y01), "sample_weight")
        return float(np.average(pred == (y01 == 1), weights=w))


class PreferenceClassifier(_PreferenceMixin, BaseEstimator):
    """Generalised preference model by Nystroem kernel logistic regression (no intercept).

    Models p(left wins) = sigmoid(g(x^l, x^r, c)) with g in the RKHS of the generalised
    preferential kernel k_E((l, r), (L, R)) = k(l, L) k(r, R) - k(l, R) k(r, L) (Chau, 2023,
    Section 6.3), times an RBF kernel on the context when one is given (the C-GPM, Section 6.4).
    ``utility=True`` fits the rankable utility model g = f(x^l) - f(x^r) instead (a kernel
    Bradley-Terry model).  g is skew-symmetric: g(r, l) = -g(l, r) and g(x, x) = 0, so
    p(l > r) + p(r > l) = 1.  Each training duel is also used flipped ((r, l), 1 - y) inside
    ``fit`` (never before a train/test split).

    Parameters
    ----------
    utility : bool
        Fit the rankable utility model instead of the generalised one.
    lengthscale : float or array of shape (d,), optional
        RBF lengthscale(s) of the item kernel, in the units of the features.  None: chosen by
        cross-validation over ``lengthscale_grid`` times a reference (the median heuristic on
        standardised items, times each feature's standard deviation).
    C : float, optional
        Inverse L2 regularisation of the logistic regression; None: chosen over ``C_grid``.
    context_lengthscale : float or array of shape (p,), optional
        RBF lengthscale(s) of the context kernel; None: the grid factor times the context's
        reference lengthscale.
    n_components : int
        Number of landmark duels (a random subset of the training duels).
    lengthscale_grid, C_grid : sequences of float
        Grids searched when ``lengthscale`` / ``C`` are None.
    cv : int
        Folds of the cross-validation.
    cv_max_duels : int
        The cross-validation uses at most this many training duels (a random subset).
    max_iter, tol : int, float
        Newton iterations at most, and the relative decrease of the objective at which they stop.
    random_state : None, int, numpy Generator, RandomState or SeedSequence
        Seeds the landmarks, the CV subset and the folds.

    Attributes
    ----------
    classes_ : ndarray, [0, 1] or [-1, 1] as in ``y`` (the second means "left wins")
    lengthscale_, context_lengthscale_ : ndarray of the fitted lengthscales (per feature)
    C_ : float
    coef_ : ndarray (n_landmarks,), weights of the landmark duels
    landmark_indices_ : ndarray, rows of the training duels used as landmarks
    cv_results_ : dict mapping (lengthscale factor, C) to mean held-out accuracy (empty when both given)
    n_features_in_, n_context_features_ : int
    feature_names_, context_names_ : list of str
    item_columns_, context_columns_ : list of str or None
        The DataFrame columns seen in fit (None for arrays): DataFrames given later must have
        exactly these columns in this order, else a ValueError says which differ.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.preference import PreferenceClassifier
    >>> rng = np.random.default_rng(0)
    >>> L, R = rng.normal(size=(200, 2)), rng.normal(size=(200, 2))
    >>> y = (L[:, 0] > R[:, 0]).astype(int)  # the larger first feature wins
    >>> model = PreferenceClassifier(n_components=50, random_state=0).fit(L, R, y)
    >>> print(f"{model.score(L, R, y):.2f}")
    1.00
    >>> p = model.predict_proba(L[:3], R[:3])[:, 1] + model.predict_proba(R[:3], L[:3])[:, 1]
    >>> np.round(p, 12)
    array([1., 1., 1.])
    """

    def __init__(
        self,
        utility: bool = False,
        lengthscale: float | ArrayLike | None = None,
        C: float | None = None,
        context_lengthscale: float | ArrayLike | None = None,
        n_components: int = 300,
        lengthscale_grid: Sequence[float] = (0.25, 0.5, 1.0, 2.0),
        C_grid: Sequence[float] = (0.1, 1.0, 10.0, 100.0),
        cv: int = 3,
        cv_max_duels: int = 4000,
        max_iter: int = 100,
        tol: float = 1e-10,
        random_state: RandomStateLike = None,
    ) -> None:
        self.utility = utility
        self.lengthscale = lengthscale
        self.C = C
        self.context_lengthscale = context_lengthscale
        self.n_components = n_components
        self.lengthscale_grid = lengthscale_grid
        self.C_grid = C_grid
        self.cv = cv
        self.cv_max_duels = cv_max_duels
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    # -- fitting ------------------------------------------------------------------------------
    def _check_params(self) -> None:
        for name in ("n_components", "cv", "cv_max_duels", "max_iter"):
            if isinstance(getattr(self, name), (bool, np.bool_)):  # check_scalar takes True for 1
                raise TypeError(f"{name} must be an integer, got {getattr(self, name)!r}.")
        check_scalar(self.n_components, "n_components", int, min_val=1)
        check_scalar(self.cv, "cv", int, min_val=2)
        check_scalar(self.cv_max_duels, "cv_max_duels", int, min_val=2)
        check_scalar(self.max_iter, "max_iter", int, min_val=1)
        check_scalar(self.tol, "tol", float, min_val=0.0, include_boundaries="neither")
        if not np.isfinite(self.tol):
            raise ValueError(f"tol must be a positive finite number, got {self.tol!r}.")
        if self.C is not None:
            check_scalar(self.C, "C", float, min_val=0.0, include_boundaries="neither")
            # check_scalar lets NaN through (every comparison with it is False), and C = inf is no
            # penalty at all: the weights of separable duels diverge
            if not np.isfinite(self.C):
                raise ValueError(f"C must be a positive finite number (the inverse regularisation), got {self.C!r}.")
        for name in ("lengthscale_grid", "C_grid"):
            grid = _float_array(getattr(self, name), name, "a non-empty sequence of positive numbers")
            if grid.ndim != 1 or grid.size == 0 or not np.all(np.isfinite(grid)) or np.any(grid <= 0):
                raise ValueError(
                    f"{name} must be a non-empty sequence of positive numbers, got {getattr(self, name)!r}."
                )

    @staticmethod
    def _lengthscale(value: Any, d: int, name: str) -> np.ndarray:
        ls = _float_array(value, name, f"a positive number or {d} positive numbers (one per feature)")
        if ls.ndim == 0:
            ls = np.full(d, float(ls))
        if ls.shape != (d,) or not np.all(np.isfinite(ls)) or np.any(ls <= 0):
            raise ValueError(
                f"{name} must be a positive number or {d} positive numbers (one per feature), got {value!r}."
            )
        return ls

    def _expansion(self, ls: np.ndarray, cls: np.ndarray | None, beta: np.ndarray) -> PreferenceExpansion:
        idx = self.landmark_indices_
        return PreferenceExpansion(
            self._Xl[idx],
            self._Xr[idx],
            beta,
            RBF(ls),
            kind="utility" if self.utility else "general",
            context=None if self._C is None else self._C[idx],
            context_kernel=None if cls is None else RBF(cls),
            feature_names=self.feature_names_,
            context_names=self.context_names_ if self._C is not None else None,
            columns=getattr(self, "item_columns_", None),
            context_columns=getattr(self, "context_columns_", None),
        )

    def _features(
        self, ls: np.ndarray, cls: np.ndarray | None, rows: np.ndarray | slice
    ) -> tuple[np.ndarray, np.ndarray]:
        """Nystroem features of the training duels ``rows`` and the map M to landmark weights."""
        land = self._expansion(ls, cls, np.zeros(len(self.landmark_indices_)))
        M = _landmark_map(land._gram(land.left, land.right, land.context))
        Kx = land._gram(self._Xl[rows], self._Xr[rows], None if self._C is None else self._C[rows])
        return Kx @ M, M

    def fit(
        self, X_left: ArrayLike, X_right: ArrayLike, y: ArrayLike, context: ArrayLike | None = None
    ) -> PreferenceClassifier:
        """Fit on duels: ``y`` is 1 (or True) where the left item won, 0 or -1 where the right one did.

        Parameters
        ----------
        X_left, X_right : array-like of shape (n, d)
            Items on each side of the duels.
        y : array-like of shape (n,)
            Outcomes coded 0/1 or -1/+1 (1: left wins); one class only (e.g. winners always on
            the left) is accepted.
        context : array-like of shape (n, p), optional
            Context of each duel (the C-GPM); then every later call needs one too.

        Returns
        -------
        PreferenceClassifier
            The fitted estimator.
        """
        self._check_params()
        # the linear algebra is on k x k matrices (k landmarks): one BLAS thread is fastest and
        # avoids oversubscription when the caller runs several fits in parallel
        with threadpool_limits(1, user_api="blas"):
            return self._fit(X_left, X_right, y, context)

    def _fit(
        self, X_left: ArrayLike, X_right: ArrayLike, y: ArrayLike, context: ArrayLike | None
    ) -> PreferenceClassifier:
        Xl, Xr, Cx = check_duels(X_left, X_right, context)
        y01, self.classes_ = check_labels(y, len(Xl))
        n, d = Xl.shape
        self.n_features_in_ = d
        self.n_context_features_ = 0 if Cx is None else Cx.shape[1]
        self.feature_names_ = side_names(X_left, d, "x")
        self.context_names_ = side_names(context, self.n_context_features_, "c") if Cx is not None else []
        self.item_columns_ = fitted_columns(X_left, d)
        self.context_columns_ = None if Cx is None else fitted_columns(context, self.n_context_features_)
        self._Xl, self._Xr, self._C = Xl, Xr, Cx
        rng = check_random_state(self.random_state)
        m = min(self.n_components, n)
        self.landmark_indices_ = np.sort(rng.choice(n, size=m, replace=False))
        ref = reference_lengthscale(Xl, Xr)
        cref = None if Cx is None else reference_lengthscale(Cx)
        ls_given = None if self.lengthscale is None else self._lengthscale(self.lengthscale, d, "lengthscale")
        cls_given = None
        if Cx is not None and self.context_lengthscale is not None:
            cls_given = self._lengthscale(self.context_lengthscale, Cx.shape[1], "context_lengthscale")
        all_given = ls_given is not None and (Cx is None or cls_given is not None)
        factors = [1.0] if all_given else list(self.lengthscale_grid)
        Cs = [float(self.C)] if self.C is not None else [float(c) for c in self.C_grid]

        def scales(f: float) -> tuple[np.ndarray, np.ndarray | None]:
            ls = ls_given if ls_given is not None else f * ref
            cls = None if cref is None else (cls_given if cls_given is not None else f * cref)
            return ls, cls

        self.cv_results_: dict[tuple[float, float], float] = {}
        best = (factors[0], Cs[0])
        if len(factors) * len(Cs) > 1:
            if n < self.cv:
                raise ValueError(
                    f"{n} duels are too few for {self.cv}-fold cross-validation of the lengthscale and C; "
                    "give both (lengthscale=..., C=...) or more duels."
                )
            sub = np.sort(rng.choice(n, size=min(n, self.cv_max_duels), replace=False))
            folds = list(KFold(self.cv, shuffle=True, random_state=int(rng.integers(2**31))).split(sub))
            best_acc = -1.0
            for f in factors:
                Phi, _ = self._features(*scales(f), sub)
                for c in Cs:
                    accs = []
                    for tr, te in folds:
                        w = _fit_flipped(Phi[tr], y01[sub[tr]], c, self.max_iter, self.tol)
                        accs.append(np.mean((Phi[te] @ w > 0) == (y01[sub[te]] == 1)))
                    acc = float(np.mean(accs))
                    self.cv_results_[(f, c)] = acc
                    if acc > best_acc:
                        best_acc, best = acc, (f, c)
        ls, cls = scales(best[0])
        self.C_ = best[1]
        Phi, M = self._features(ls, cls, slice(None))
        w = _fit_flipped(Phi, y01, self.C_, self.max_iter, self.tol)
        self.coef_ = M @ w
        self.lengthscale_ = ls
        self.context_lengthscale_ = cls
        self.expansion_ = self._expansion(ls, cls, self.coef_)
        del self._Xl, self._Xr, self._C
        return self

    # -- prediction ---------------------------------------------------------------------------
    def decision_function(self, X_left: ArrayLike, X_right: ArrayLike, context: ArrayLike | None = None) -> np.ndarray:
        """The logit g(x^l, x^r, c) of "left wins", shape (n,); skew-symmetric in (x^l, x^r).

        Parameters
        ----------
        X_left : array-like of shape (n, d)
            Features of the left item of each duel.
        X_right : array-like of shape (n, d)
            Features of the right item of each duel.
        context : array-like of shape (n, p), optional
            Features of the context of each duel.

        Returns
        -------
        ndarray of shape (n,)
            The logit of "left wins".
        """
        check_is_fitted(self, "expansion_")
        Xl, Xr, C = check_duels(
            X_left,
            X_right,
            context,
            n_features=self.n_features_in_,
            n_context=self.n_context_features_,
            fitted=True,
            columns=getattr(self, "item_columns_", None),
            context_columns=getattr(self, "context_columns_", None),
        )
        return self.expansion_._logit(Xl, Xr, C)

    def to_expansion(self) -> PreferenceExpansion:
        """The fitted model as a :class:`PreferenceExpansion` over its landmark duels (what PREF-SHAP reads).

        Returns
        -------
        PreferenceExpansion
            The fitted model over its landmark duels.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.preference import PreferenceClassifier
        >>> rng = np.random.default_rng(1)
        >>> L, R = rng.normal(size=(40, 2)), rng.normal(size=(40, 2))
        >>> model = PreferenceClassifier(lengthscale=1.0, C=1.0, n_components=10, random_state=0)
        >>> model.fit(L, R, L[:, 0] > R[:, 0]).to_expansion().n_support
        10
        """
        check_is_fitted(self, "expansion_")
        return self.expansion_


MODEL_TYPES.append(PreferenceClassifier)

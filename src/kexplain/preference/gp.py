"""PreferenceGPClassifier: the exact generalised preferential GP (Laplace), scikit-learn's GPC inside.

Chau (2023, Section 6.3): a GP prior with the generalised preferential kernel k_E on duels, a
logistic likelihood, the Laplace approximation, and hyperparameters (item and context
lengthscales, amplitude) by maximising the approximate marginal likelihood.  Cubic in the number
of duels: meant for a few thousand; :class:`~kexplain.preference.PreferenceClassifier` scales further.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, clone
from sklearn.gaussian_process import GaussianProcessClassifier
from sklearn.gaussian_process.kernels import RBF as SkRBF
from sklearn.gaussian_process.kernels import ConstantKernel
from sklearn.gaussian_process.kernels import Kernel as SkKernel
from sklearn.utils.validation import check_is_fitted, check_scalar
from threadpoolctl import threadpool_limits

from ..exceptions import UnsupportedModelError
from ..kernels.base import SumKernel
from ..kernels.sklearn import from_sklearn
from ._checks import check_duels, check_labels, fitted_columns, flip_alternate, reference_lengthscale, side_names
from .estimators import _PreferenceMixin
from .expansion import MODEL_TYPES, PreferenceExpansion
from .kernel import PreferenceKernel

#: fits on at most this many duels run with one BLAS thread
_SMALL_FIT = 1000


#: rows of query duels per block of ``decision_function`` for kernels without a product form
_PREDICT_BLOCK = 2048


def _kexplain_kernel(kernel: SkKernel, d: int, name: str) -> Any:
    """A learned scikit-learn kernel (RBF times a constant) as a kexplain RBF with amplitude, or
    None when it has no exact product form (Matern, RationalQuadratic, ...)."""
    try:
        k, const = from_sklearn(kernel, d)
    except UnsupportedModelError:
        return None
    if k is None or const != 0.0 or isinstance(k, SumKernel):
        return None
    return k


class PreferenceGPClassifier(_PreferenceMixin, BaseEstimator):
    """Generalised preferential Gaussian process classifier (Laplace approximation).

    scikit-learn's GaussianProcessClassifier with the :class:`PreferenceKernel` on stacked duels
    ``[X_left, X_right(, context)]``; hyperparameters by the Laplace marginal likelihood (Chau,
    2023, Section 6.3; with a context the C-GPM of Section 6.4).  ``decision_function`` is the
    posterior mean of the logit g, ``predict_proba`` averages the sigmoid over the latent posterior
    with MacKay's probit approximation sigmoid(mu / sqrt(1 + pi var / 8)), which keeps
    p(l > r) + p(r > l) = 1 (the variance is the same for (l, r) and (r, l)).  Inside ``fit`` the
    duels are oriented winner-left and every second one is flipped; with a skew-symmetric kernel
    that leaves the posterior unchanged and lets one-sided data (winners always on the left) fit.

    Parameters
    ----------
    kernel : scikit-learn kernel, optional
        Item kernel k (default ``ConstantKernel(1.0) * RBF(l)`` with one lengthscale per feature,
        started at the median-heuristic reference).  Any scikit-learn kernel fits and predicts
        (a Matern, a RationalQuadratic, sums ...); PREF-SHAP (``to_expansion``) needs a product
        kernel: an RBF (ARD or not) times a constant.
    context_kernel : scikit-learn kernel, optional
        Kernel on the context (default ``RBF`` with one lengthscale per context feature); an RBF
        for PREF-SHAP, like ``kernel``.
    utility : bool
        The rankable utility kernel instead of the generalised one.
    optimizer : "fmin_l_bfgs_b" or None
        None keeps the given hyperparameters.
    n_restarts_optimizer, max_iter_predict : int
        Passed to GaussianProcessClassifier.
    random_state : int or None
        Passed to GaussianProcessClassifier (restarts).

    Attributes
    ----------
    gpc_ : the fitted GaussianProcessClassifier
    kernel_ : the learned PreferenceKernel
    expansion_ : PreferenceExpansion or None
        The posterior mean over the training duels (None when a kernel has no product form).
    classes_, n_features_in_, n_context_features_, feature_names_, context_names_
    item_columns_, context_columns_ : list of str or None
        The DataFrame columns seen in fit (None for arrays): DataFrames given later must have
        exactly these columns in this order, else a ValueError says which differ.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.preference import PreferenceGPClassifier
    >>> rng = np.random.default_rng(0)
    >>> L, R = rng.normal(size=(60, 2)), rng.normal(size=(60, 2))
    >>> y = (L[:, 0] > R[:, 0]).astype(int)
    >>> model = PreferenceGPClassifier().fit(L, R, y)
    >>> print(f"{model.score(L, R, y):.2f}")
    1.00
    >>> np.round(model.decision_function(L[:2], L[:2]), 12)  # g(x, x) = 0
    array([0., 0.])
    """

    def __init__(
        self,
        kernel: SkKernel | None = None,
        context_kernel: SkKernel | None = None,
        utility: bool = False,
        optimizer: str | None = "fmin_l_bfgs_b",
        n_restarts_optimizer: int = 0,
        max_iter_predict: int = 100,
        random_state: int | None = None,
    ) -> None:
        self.kernel = kernel
        self.context_kernel = context_kernel
        self.utility = utility
        self.optimizer = optimizer
        self.n_restarts_optimizer = n_restarts_optimizer
        self.max_iter_predict = max_iter_predict
        self.random_state = random_state

    def fit(
        self, X_left: ArrayLike, X_right: ArrayLike, y: ArrayLike, context: ArrayLike | None = None
    ) -> PreferenceGPClassifier:
        """Fit on duels: ``y`` is 1 (or True) where the left item won, 0 or -1 where the right one did.

        Parameters
        ----------
        X_left, X_right : array-like of shape (n, d)
            Features of the left and of the right item of each duel.
        y : array-like of shape (n,)
            Outcomes coded 0/1 or -1/+1 (1: left wins); one class only is accepted.
        context : array-like of shape (n, p), optional
            Features of the context of each duel.

        Returns
        -------
        PreferenceGPClassifier
            The fitted estimator.
        """
        for name in ("n_restarts_optimizer", "max_iter_predict"):
            if isinstance(getattr(self, name), (bool, np.bool_)):  # check_scalar takes True for 1
                raise TypeError(f"{name} must be an integer, got {getattr(self, name)!r}.")
        check_scalar(self.n_restarts_optimizer, "n_restarts_optimizer", int, min_val=0)
        check_scalar(self.max_iter_predict, "max_iter_predict", int, min_val=1)
        Xl, Xr, C = check_duels(X_left, X_right, context)
        y01, self.classes_ = check_labels(y, len(Xl))
        if len(Xl) < 2:
            raise ValueError("PreferenceGPClassifier needs at least 2 duels.")
        d = Xl.shape[1]
        self.n_features_in_ = d
        self.n_context_features_ = 0 if C is None else C.shape[1]
        self.feature_names_ = side_names(X_left, d, "x")
        self.context_names_ = side_names(context, self.n_context_features_, "c") if C is not None else []
        self.item_columns_ = fitted_columns(X_left, d)
        self.context_columns_ = None if C is None else fitted_columns(context, self.n_context_features_)
        base = self.kernel
        if base is None:
            base = ConstantKernel(1.0) * SkRBF(length_scale=reference_lengthscale(Xl, Xr))
        ctx = None
        if C is not None:
            ctx = self.context_kernel
            if ctx is None:
                ctx = SkRBF(length_scale=reference_lengthscale(C))
        pk = PreferenceKernel(
            clone(base),
            n_item_features=d,
            utility=bool(self.utility),
            context_kernel=None if ctx is None else clone(ctx),
        )
        L, R, yy = flip_alternate(Xl, Xr, y01)
        Z = np.hstack([L, R] + ([] if C is None else [C]))
        gpc = GaussianProcessClassifier(
            kernel=pk,
            optimizer=self.optimizer,
            n_restarts_optimizer=self.n_restarts_optimizer,
            max_iter_predict=self.max_iter_predict,
            random_state=self.random_state,
        )
        # up to ~1,000 duels the factorisations are small: one BLAS thread is faster there (threads
        # only add overhead and oversubscribe a busy machine); larger fits use every thread
        with threadpool_limits(1 if len(Z) <= _SMALL_FIT else None, user_api="blas"):
            self.gpc_ = gpc.fit(Z, yy)
        self.kernel_ = self.gpc_.kernel_
        binary = self.gpc_.base_estimator_
        coef = binary.y_train_ - binary.pi_
        item = _kexplain_kernel(self.kernel_.base_kernel, d, "item kernel")
        ctx_k = None if C is None else _kexplain_kernel(self.kernel_.context_kernel, C.shape[1], "context kernel")
        # the Laplace posterior mean is sum_i coef_i k_E(duel, duel_i): an expansion over a product
        # kernel when the kernels have that form, else the stacked training duels themselves
        self._Z_train: np.ndarray | None = Z
        self._coef: np.ndarray | None = coef
        self.expansion_: PreferenceExpansion | None = None
        if item is not None and (C is None or ctx_k is not None):
            self.expansion_ = PreferenceExpansion(
                L,
                R,
                coef,
                item,
                kind="utility" if self.utility else "general",
                context=C,
                context_kernel=ctx_k,
                feature_names=self.feature_names_,
                context_names=self.context_names_ if C is not None else None,
                columns=self.item_columns_,
                context_columns=self.context_columns_,
            )
            self._Z_train, self._coef = None, None  # the expansion holds them
        return self

    def _stacked(
        self, X_left: ArrayLike, X_right: ArrayLike, context: ArrayLike | None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        check_is_fitted(self, "gpc_")
        return check_duels(
            X_left,
            X_right,
            context,
            n_features=self.n_features_in_,
            n_context=self.n_context_features_,
            fitted=True,
            columns=getattr(self, "item_columns_", None),
            context_columns=getattr(self, "context_columns_", None),
        )

    def decision_function(self, X_left: ArrayLike, X_right: ArrayLike, context: ArrayLike | None = None) -> np.ndarray:
        """Posterior mean of the logit g(x^l, x^r, c) of "left wins", shape (n,); skew-symmetric.

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
            The posterior mean of the logit of "left wins".
        """
        Xl, Xr, C = self._stacked(X_left, X_right, context)
        if self.expansion_ is not None:
            return self.expansion_._logit(Xl, Xr, C)
        # no product form: the preferential kernel itself (skew-symmetric in floating point too)
        Z = np.hstack([Xl, Xr] + ([] if C is None else [C]))
        assert self._Z_train is not None and self._coef is not None
        out = np.empty(len(Z))
        for s in range(0, len(Z), _PREDICT_BLOCK):
            out[s : s + _PREDICT_BLOCK] = self.kernel_(Z[s : s + _PREDICT_BLOCK], self._Z_train) @ self._coef
        return out

    def latent_variance(self, X_left: ArrayLike, X_right: ArrayLike, context: ArrayLike | None = None) -> np.ndarray:
        """Posterior variance of g at each duel (the same for (l, r) and (r, l)), shape (n,).

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
            The posterior variance of the logit at each duel.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.preference import PreferenceGPClassifier
        >>> rng = np.random.default_rng(0)
        >>> L, R = rng.normal(size=(30, 1)), rng.normal(size=(30, 1))
        >>> model = PreferenceGPClassifier().fit(L, R, L[:, 0] > R[:, 0])
        >>> v = model.latent_variance(L[:3], R[:3])
        >>> bool(np.allclose(v, model.latent_variance(R[:3], L[:3])))
        True
        """
        Xl, Xr, C = self._stacked(X_left, X_right, context)
        Z = np.hstack([Xl, Xr] + ([] if C is None else [C]))
        _, var = self.gpc_.base_estimator_.latent_mean_and_variance(Z)
        return np.maximum(var, 0.0)

    def _latent_scale(self, X_left: ArrayLike, X_right: ArrayLike, context: ArrayLike | None) -> np.ndarray | float:
        return np.sqrt(1.0 + np.pi * self.latent_variance(X_left, X_right, context) / 8.0)

    def to_expansion(self) -> PreferenceExpansion:
        """The posterior mean of g as a :class:`PreferenceExpansion` over the training duels.

        The Laplace posterior mean is sum_i (y_i - pi_i) k((x^l, x^r, c), duel_i), with pi the
        probabilities at the posterior mode (Rasmussen & Williams, 2006, Algorithm 3.2).

        Returns
        -------
        PreferenceExpansion
            The posterior mean of g over the training duels.

        Raises
        ------
        UnsupportedModelError
            When a fitted kernel has no product form (a Matern, a RationalQuadratic, a sum).

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.preference import PreferenceGPClassifier
        >>> rng = np.random.default_rng(0)
        >>> L, R = rng.normal(size=(20, 2)), rng.normal(size=(20, 2))
        >>> PreferenceGPClassifier().fit(L, R, L[:, 0] > R[:, 0]).to_expansion().n_support
        20
        """
        check_is_fitted(self, "gpc_")
        if self.expansion_ is None:
            raise UnsupportedModelError(
                f"the fitted kernel {self.kernel_!r} has no product form, so this PreferenceGPClassifier cannot be "
                "written as a PreferenceExpansion (what PREF-SHAP and comparable_clusters read): they need an item "
                "kernel RBF (ARD or not) times a constant, and an RBF on the context; refit with "
                "kernel=ConstantKernel() * RBF(...) (the default)."
            )
        return self.expansion_


MODEL_TYPES.append(PreferenceGPClassifier)

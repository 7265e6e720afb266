"""RKHSExplainer: observational and interventional Shapley values of kernel models (RKHS-SHAP).

One explainer for three kinds of model, one result type (kx.Explanation):

- product-kernel models (anything ``kx.models.as_kernel_expansion`` accepts, or an estimator with
  ``to_kernel_expansion()``): observational values through conditional mean embeddings
  (seed 003 Proposition 3, ``cme.ProductCMEGame``); interventional values from the exact
  product-game engine (``ProductKernelExplainer.explain(X, background=X_ref)``);
- scikit-learn kernel models whose kernel is not a product (Matern, RationalQuadratic, polynomial,
  ...): observational values through the CME of the whole feature map given X_S with the kernel
  restricted to S (thesis appendix C.3); interventional values by the generic solvers;
- any prediction callable (or object with ``predict``) with reference rows: interventional values
  by the generic solvers; observational values through a CME with an RBF kernel on S
  (median-heuristic lengthscales on X_ref).

Coalitions are enumerated exactly (``kx.exact_shapley``) when d <= ``max_exact_features``
(default 12), otherwise sampled (``kx.sampled_shapley``) with standard errors.
"""
from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from .._validation import check_data, feature_names_of
from ..exceptions import UnsupportedModelError
from ..explanation import Explanation
from ..kernels.base import RBF
from ..kernels.heuristics import median_heuristic
from ..models.expansion import KernelExpansion
from ..models.sklearn import as_kernel_expansion
from ..shapley.enumeration import exact_shapley
from ..shapley.sampling import sampled_shapley
from .cme import (
    DEFAULT_CME_REGULARIZATION,
    GenericCMEGame,
    ProductCMEGame,
    choose_landmarks,
    cme_cv_loss,
)
from .restricted_kernels import SUPPORTED_NON_PRODUCT, kernel_of

_VALUES = ("observational", "interventional")
_SVM = ("SVR", "NuSVR", "SVC", "NuSVC")


def _final_estimator(model):
    if type(model).__name__ == "Pipeline" and hasattr(model, "steps"):
        return model.steps[-1][1]
    return model


def _predict_fn(model):
    """The output explained for a non-product model: decision_function for classifiers that have
    one, else predict, else the callable itself."""
    est = _final_estimator(model)
    if hasattr(model, "decision_function") and getattr(est, "_estimator_type", "") == "classifier":
        return model.decision_function
    if hasattr(model, "predict"):
        return model.predict
    if callable(model):
        return model
    raise UnsupportedModelError(
        f"model of type {type(model).__name__} has neither predict nor __call__. RKHSExplainer "
        f"accepts product-kernel models (see kx.models.SUPPORTED_MODELS), {SUPPORTED_NON_PRODUCT}, "
        "or any prediction callable with X_ref."
    )


class RKHSExplainer:
    """Observational (and interventional) Shapley values of kernel models, RKHS-SHAP style.

    Parameters
    ----------
    model : fitted model
        A product-kernel model (see ``kx.models.SUPPORTED_MODELS``) or ``kx.KernelExpansion``; a
        scikit-learn kernel model with another kernel (Matern, RationalQuadratic, polynomial, ...);
        or any prediction callable / object with ``predict`` (then ``X_ref`` is required).
    X_ref : array-like (n, d), optional
        Reference rows: the data distribution the expectations are taken over.  Defaults to the
        model's training rows (KernelRidge, Gaussian processes, KernelExpansion reference points).
        Support-vector machines keep only their support vectors, so they need ``X_ref``.
    cme_regularization : float
        eta in the CME ridge (K_S + n eta I); the default 1e-3 suits kernels with unit diagonal and
        a few thousand rows.  ``select_cme_regularization`` picks it by cross-validation.
    approximation : None or "nystroem"
        None solves every CME exactly (O(n^3) per coalition, for n up to a few thousand);
        "nystroem" uses ``n_landmarks`` landmark rows of X_ref (O(n m^2) per coalition).
    n_landmarks : int
        Landmarks for the Nystroem approximation.
    max_exact_features : int
        Enumerate all coalitions up to this many features; sample beyond.
    random_state : None or int
        Picks the landmarks.
    feature_names : list of str, optional
    """

    def __init__(self, model, X_ref=None, cme_regularization: float = DEFAULT_CME_REGULARIZATION,
                 approximation=None, n_landmarks: int = 300, max_exact_features: int = 12,
                 random_state=0, feature_names=None):
        self.model = model
        self.cme_regularization = cme_regularization
        self.approximation = approximation
        self.n_landmarks = n_landmarks
        self.max_exact_features = max_exact_features
        self.random_state = random_state
        self._check_params()
        self.expansion = self._product_expansion(model, feature_names)
        est = _final_estimator(model)
        if self.expansion is not None:
            self.kind = "product"
            self.d = self.expansion.n_features
            default_ref = None if type(est).__name__ in _SVM else self.expansion.X_ref
            self.feature_names = list(feature_names) if feature_names is not None else self.expansion.feature_names
        else:
            kern = kernel_of(est, _n_features(est)) if est is model else None
            self.kind = "kernel" if kern is not None else "agnostic"
            self._kernel_full, self._kernel_on = kern if kern is not None else (None, None)
            self._predict = _predict_fn(model)
            default_ref = None
            if kern is not None:
                default_ref = getattr(est, "X_fit_", None)
                if default_ref is None:
                    default_ref = getattr(est, "X_train_", None)
            self.d = _n_features(est)
            names = getattr(model, "feature_names_in_", None)
            self.feature_names = list(feature_names) if feature_names is not None else (
                None if names is None else [str(n) for n in names])
        if X_ref is None:
            if default_ref is None:
                raise ValueError(
                    f"X_ref is required for a model of type {type(est).__name__}: it does not keep its "
                    "training rows. Pass the rows whose distribution the expectations are taken over."
                )
            X_ref = default_ref
        self.X_ref = check_data(X_ref, name="X_ref", n_features=self.d,
                                numeric_mask=None if self.expansion is None else self.expansion.numeric_mask)
        if self.d is None:
            self.d = self.X_ref.shape[1]
        if self.X_ref.shape[0] < 2:
            raise ValueError(f"X_ref must have at least 2 rows, got {self.X_ref.shape[0]}.")

    # -- construction helpers ---------------------------------------------------------------------
    def _check_params(self):
        eta = self.cme_regularization
        if isinstance(eta, bool) or not isinstance(eta, Real) or not (np.isfinite(eta) and eta > 0):
            raise ValueError(f"cme_regularization must be a positive finite number, got {eta!r}.")
        if self.approximation not in (None, "nystroem"):
            raise ValueError(f"approximation must be None or 'nystroem', got {self.approximation!r}.")
        for name in ("n_landmarks", "max_exact_features"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, Integral) or v < 1:
                raise ValueError(f"{name} must be a positive integer, got {v!r}.")

    @staticmethod
    def _product_expansion(model, feature_names):
        if isinstance(model, KernelExpansion):
            return model
        if hasattr(model, "to_kernel_expansion"):
            return model.to_kernel_expansion()
        try:
            return as_kernel_expansion(model, feature_names=feature_names)
        except UnsupportedModelError:
            return None

    def _landmarks(self):
        if self.approximation != "nystroem":
            return None
        return choose_landmarks(self.X_ref.shape[0], self.n_landmarks, self.random_state)

    def _names(self, X):
        if self.feature_names is not None:
            return self.feature_names
        names = feature_names_of(X)
        return names if names is not None else [f"x{j}" for j in range(self.d)]

    def _check_X(self, X):
        if self.expansion is not None:
            return self.expansion.check_input(X, name="X")
        return check_data(X, name="X", n_features=self.d)

    # -- games --------------------------------------------------------------------------------------
    def value_function(self, X, value="observational"):
        """The game v(S) over coalitions for the rows of X: a callable taking a boolean array
        (n_coalitions, d) and returning (n_coalitions, N, n_outputs)."""
        if value not in _VALUES:
            raise ValueError(f"value must be one of {_VALUES}, got {value!r}.")
        Xv = self._check_X(X)
        return self._game(Xv, value)

    def _game(self, Xv, value):
        eta = self.cme_regularization
        if self.kind == "product":
            if value == "observational":
                return ProductCMEGame(self.expansion, Xv, self.X_ref, eta, landmarks=self._landmarks())
            return _ProductInterventional(self.expansion, Xv, self.X_ref)
        f_x = self._outputs(Xv)
        if value == "interventional":
            return _CallableInterventional(self._outputs, Xv, self.X_ref, f_x.shape[1])
        return GenericCMEGame(self._restricted(), Xv, self.X_ref, self._outputs(self.X_ref), f_x, eta,
                              landmarks=self._landmarks())

    def _restricted(self):
        if self.kind == "kernel":
            return self._kernel_on
        ls = np.atleast_1d(median_heuristic(self.X_ref, per_feature=True))
        return lambda S_idx: RBF(lengthscale=ls[S_idx])

    def _outputs(self, X):
        out = np.asarray(self._predict(X), dtype=np.float64)
        if out.ndim == 1:
            out = out[:, None]
        if out.ndim != 2 or out.shape[0] != X.shape[0]:
            raise ValueError(f"the model returned outputs of shape {out.shape} for {X.shape[0]} rows.")
        if not np.all(np.isfinite(out)):
            raise ValueError("the model returned NaN or infinite predictions.")
        return out

    # -- explanations -------------------------------------------------------------------------------
    def explain(self, X, value: str = "observational", budget=None, random_state=None,
                tol=None) -> Explanation:
        """Shapley values of each row of ``X``.

        Parameters
        ----------
        X : array-like (N, d)
        value : "observational" (default) or "interventional"
        budget : int, optional
            Coalition evaluations for the sampled solver.  None: exact enumeration when
            d <= max_exact_features, else 64 * d evaluations (at least 1024).  Giving a budget
            always uses the sampled solver.
        random_state : None or int
            Seeds the sampled solver.
        tol : float, optional
            Early stop of the sampled solver once every standard error is below it.
        """
        if value not in _VALUES:
            raise ValueError(f"value must be one of {_VALUES}, got {value!r}.")
        Xv = self._check_X(X)
        names = self._names(X)
        d = self.d
        if self.kind == "product" and value == "interventional" and budget is None:
            return self._interventional_engine(X, Xv, names)
        game = self._game(Xv, value)
        if budget is None and d <= self.max_exact_features:
            res = exact_shapley(game, d, batch_size=256)
            se = None
        else:
            if budget is None:
                budget = max(1024, 64 * d)
            res = sampled_shapley(game, d, budget, random_state=random_state, tol=tol, batch_size=64)
            se = res.standard_errors
        values = res.values                                  # (N, d, o)
        base = np.asarray(res.v_empty)                       # (N, o)
        output_names = self.expansion.output_names if self.expansion is not None else None
        single = values.shape[2] == 1
        if single:
            values, base = values[:, :, 0], base[:, 0]
            se = None if se is None else se[:, :, 0]
        return Explanation(values=values, base_values=base, data=Xv, feature_names=names,
                           output_names=output_names if not single or output_names else None,
                           standard_errors=se, game=value,
                           info={"v_full": np.asarray(res.v_full), "solver": "exact" if se is None else "sampled",
                                 "cme_regularization": self.cme_regularization,
                                 "approximation": self.approximation})

    def _interventional_engine(self, X, Xv, names):
        from ..explainers.product_kernel import ProductKernelExplainer

        ex = ProductKernelExplainer(self.expansion, feature_names=names).explain(Xv, background=self.X_ref)
        ex.info.update(solver="product-game engine")
        return ex

    # -- choosing the CME regularisation ------------------------------------------------------------
    def select_cme_regularization(self, grid=(1e-5, 1e-4, 1e-3, 1e-2, 1e-1), n_folds: int = 3,
                                  n_coalitions: int = 8, max_rows: int = 500, random_state=0):
        """Pick eta by K-fold cross-validation of the conditional mean embeddings.

        The loss is the held-out squared RKHS distance between the embedded target and its CME
        prediction, summed over ``n_coalitions`` random non-empty proper coalitions, on at most
        ``max_rows`` rows of X_ref.  Sets ``self.cme_regularization`` to the best value and returns
        it; the losses are in ``self.cme_cv_scores_`` (a dict eta -> loss).
        """
        grid = [float(g) for g in grid]
        if not grid or any(not (np.isfinite(g) and g > 0) for g in grid):
            raise ValueError(f"grid must be a non-empty list of positive numbers, got {grid!r}.")
        if isinstance(n_folds, bool) or not isinstance(n_folds, Integral) or n_folds < 2:
            raise ValueError(f"n_folds must be an integer >= 2, got {n_folds!r}.")
        rng = np.random.default_rng(random_state)
        R = self.X_ref
        if R.shape[0] > max_rows:
            R = R[rng.choice(R.shape[0], max_rows, replace=False)]
        d = self.d
        if d < 2:
            raise ValueError("the CME regularisation matters only with at least 2 features.")
        coals = []
        for _ in range(n_coalitions):
            s = rng.integers(1, d)
            S = np.zeros(d, dtype=bool)
            S[rng.choice(d, s, replace=False)] = True
            coals.append(S)
        cond, target = self._cv_kernels()
        scores = {g: cme_cv_loss(cond, target, R, g, coals, n_folds, np.random.default_rng(random_state))
                  for g in grid}
        best = min(scores, key=scores.get)
        self.cme_cv_scores_ = scores
        self.cme_regularization = best
        return best

    def _cv_kernels(self):
        d = self.d
        if self.kind == "product":
            terms, amps = self.expansion.terms, np.asarray(self.expansion.amplitudes)
            w = amps / amps.sum()

            def on(cols):
                def k(A, B):
                    if cols.size == 0:
                        return np.ones((A.shape[0], B.shape[0]))
                    return sum(wt * np.prod(t.feature_values(A, B)[:, :, cols], axis=-1) for wt, t in zip(w, terms))
                return k

            return on, lambda S_idx: on(np.setdiff1d(np.arange(d), S_idx))
        restricted = self._restricted()
        full = np.arange(d)
        return (lambda S_idx: (lambda A, B: restricted(S_idx)(A[:, S_idx], B[:, S_idx])),
                lambda S_idx: (lambda A, B: restricted(full)(A, B)))


class _ProductInterventional:
    """Interventional game of a product-kernel expansion through kernel mean embeddings (seed 003
    Proposition 3): v(S) = sum_t amp_t coef^T (K_tS(X_i, x) * mean_r K_tSc(X_i, R_r)) + b0.
    The mean embedding of the absent features is shared by all explained points, so a coalition
    costs O(n_model n_ref |Sc| + N n_model).  ``explain`` uses the exact product-game engine by
    default; this game serves the sampled solver and ``value_function``."""

    def __init__(self, em, X, Z):
        from .cme import _FeatureProducts

        self.em = em
        self.fx = [_FeatureProducts(t, em.X_ref, X) for t in em.terms]
        self.fmZ = [_FeatureProducts(t, em.X_ref, Z) for t in em.terms]

    def __call__(self, coalitions):
        em = self.em
        out = []
        for S in np.asarray(coalitions, dtype=bool):
            S_idx, Sc_idx = np.flatnonzero(S), np.flatnonzero(~S)
            B = sum(a * fx.prod(S_idx) * fz.prod(Sc_idx).mean(axis=1)[:, None]
                    for a, fx, fz in zip(em.amplitudes, self.fx, self.fmZ))       # (n_model, N)
            out.append(B.T @ em.coef + em.intercept)
        return np.stack(out)


class _CallableInterventional:
    def __init__(self, outputs, X, Z, n_outputs):
        self.outputs, self.X, self.Z = outputs, X, Z

    def __call__(self, coalitions):
        return _hybrid_mean(self.outputs, self.X, self.Z, coalitions)


def _as2d(a):
    a = np.asarray(a, dtype=np.float64)
    return a[:, None] if a.ndim == 1 else a


def _hybrid_mean(outputs, X, Z, coalitions, max_rows=200_000):
    """v(S)(x) = mean_z f(x_S, z_Sc) for every coalition and point, in bounded batches."""
    N, nb = X.shape[0], Z.shape[0]
    res = []
    for S in np.asarray(coalitions, dtype=bool):
        H = np.repeat(Z[None, :, :], N, axis=0)          # (N, nb, d)
        H[:, :, S] = X[:, None, S]
        H = H.reshape(N * nb, -1)
        out = np.concatenate([outputs(H[lo:lo + max_rows]) for lo in range(0, N * nb, max_rows)])
        res.append(out.reshape(N, nb, -1).mean(axis=1))
    return np.stack(res)


def _n_features(est):
    n = getattr(est, "n_features_in_", None)
    return None if n is None else int(n)

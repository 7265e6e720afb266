"""scikit-learn estimators for RKHS Weightings of functions and their STAR versions."""
from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.preprocessing import LabelBinarizer
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .instantiations import INSTANTIATIONS
from .model import StarModel
from .subsets import SUBSET_DISTRIBUTIONS, SubsetDistribution, make_subset_distribution
from .weighting import RKHSWeighting, weighting_star_model


class _RKHSWeightingBase(BaseEstimator):
    def __init__(self, instantiation="relu", n_parameters=1000, interaction_order=None, subsets="size",
                 regularization=1e-5, sigma=1.0, c=0.5, gamma=None, epsilon=1e-10, standardize=True,
                 random_state=None):
        self.instantiation = instantiation
        self.n_parameters = n_parameters
        self.interaction_order = interaction_order
        self.subsets = subsets
        self.regularization = regularization
        self.sigma = sigma
        self.c = c
        self.gamma = gamma
        self.epsilon = epsilon
        self.standardize = standardize
        self.random_state = random_state

    # -- validation of hyper-parameters (at fit, as scikit-learn does) -------------------------
    def _check_params(self, n_features):
        if self.instantiation not in INSTANTIATIONS:
            raise ValueError(f"instantiation must be one of {sorted(INSTANTIATIONS)}, got {self.instantiation!r}.")
        T = self.n_parameters
        if isinstance(T, (bool, np.bool_)) or not isinstance(T, numbers.Integral) or T < 1:
            raise ValueError(f"n_parameters must be a positive integer (T, the number of sampled parameters), got {T!r}.")
        k = self.interaction_order
        if k is not None and (isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral) or k < 1):
            raise ValueError(f"interaction_order must be None or a positive integer, got {k!r}.")
        if not isinstance(self.subsets, SubsetDistribution) and self.subsets not in SUBSET_DISTRIBUTIONS:
            raise ValueError(f"subsets must be one of {sorted(SUBSET_DISTRIBUTIONS)}, got {self.subsets!r}.")
        for name in ("regularization", "epsilon"):
            v = getattr(self, name)
            if not isinstance(v, numbers.Real) or not np.isfinite(v) or v < 0:
                raise ValueError(f"{name} must be a non-negative number, got {v!r}.")
        if self.gamma is None and self.c is None:
            raise ValueError("give gamma (kernel width) or c in (0, 1) (equation 65), not both None.")
        inst = INSTANTIATIONS[self.instantiation](sigma=self.sigma, gamma=self.gamma,
                                                  c=None if self.gamma is not None else self.c)
        if k is None:
            dist = None
        else:
            if k > n_features:
                raise ValueError(
                    f"interaction_order={k} exceeds the number of features: X has {n_features} "
                    f"feature(s) (n_features={n_features}); use an order between 1 and {n_features}."
                )
            dist = make_subset_distribution(self.subsets, n_features, int(k))
        if inst.single_feature and dist is not None and dist.order != 1:
            raise ValueError(
                "instantiation='stumps' is already additive (each stump reads one feature): "
                f"interaction_order must be None or 1, got {k}."
            )
        return inst, dist

    def _fit_weighting(self, X, Y):
        n_features = X.shape[1]
        inst, dist = self._check_params(n_features)
        if self.standardize:
            self.x_mean_ = X.mean(axis=0)
            scale = X.std(axis=0)
            self.x_scale_ = np.where(scale > 0, scale, 1.0)
            Xs = (X - self.x_mean_) / self.x_scale_
        else:
            self.x_mean_ = np.zeros(n_features)
            self.x_scale_ = np.ones(n_features)
            Xs = X
        rng = check_random_state(self.random_state)
        # numpy Generator seeded from sklearn's RandomState, so random_state fixes the draw
        gen = np.random.default_rng(rng.randint(np.iinfo(np.int32).max))
        w = RKHSWeighting(inst, n_features, dist).sample(int(self.n_parameters), gen)
        w.fit_coefficients(Xs, Y, float(self.regularization), float(self.epsilon))
        self.weighting_ = w
        self.coef_ = w.coef_
        return Xs

    def _raw_output(self, X):
        check_is_fitted(self, "weighting_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        Xs = (X - self.x_mean_) / self.x_scale_
        return self.weighting_.design_matrix(Xs) @ self.coef_

    def _star(self, out_scale, intercept, output_names):
        check_is_fitted(self, "weighting_")
        names = getattr(self, "feature_names_in_", None)
        return weighting_star_model(
            self.weighting_, self.coef_, intercept=intercept, x_mean=self.x_mean_, x_scale=self.x_scale_,
            out_scale=out_scale, feature_names=None if names is None else list(names), output_names=output_names,
        )


class RKHSWeightingRegressor(RegressorMixin, _RKHSWeightingBase):
    """RKHS Weighting of functions for regression (RWRelu, RWSign, RWStumps and STAR versions).

    Parameters
    ----------
    instantiation : {"relu", "sign", "stumps"}
        Base predictor: max(0, <w, x>), sign(<w, x>), or decision stumps sign(x_j - theta).
    n_parameters : int
        T, the number of parameters w_t sampled from p (appendix E's least-squares fit).
    interaction_order : None or int
        None: the original instantiation (over all features; stumps are a GAM anyway).  k: the
        STAR version (Table 4) whose parameters read feature subsets drawn from ``subsets``; the
        model is then a STAR model with terms of at most k features.
    subsets : {"size", "up_to", "sequences", "sequences_up_to"} or a SubsetDistribution
        Uniform over subsets of size k, over sizes 1..k, over runs of k adjacent features, or
        over runs of length 1..k.
    regularization : float
        lambda, the RKHS-norm penalty (equation 63).
    sigma : float
        Standard deviation of p = N(0, sigma^2 I).
    c : float in (0, 1)
        Kernel width through equation 65 (gamma^2 = 2 sigma^2 / (c^(-4/dim) - 1), dim the
        parameter dimension), used when ``gamma`` is None.
    gamma : float, optional
        Kernel width, overriding ``c``.
    epsilon : float
        Tiny ridge of equation 63 for numerical stability.
    standardize : bool
        Scale features and target to mean 0 and standard deviation 1 (as the paper does); the
        fitted model and its STAR terms take and return the original units.
    random_state : int, RandomState or None
    """

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        if self.standardize:
            self.y_mean_ = float(y.mean())
            s = float(y.std())
            self.y_scale_ = s if s > 0 else 1.0
        else:
            self.y_mean_, self.y_scale_ = 0.0, 1.0
        self._fit_weighting(X, (y - self.y_mean_) / self.y_scale_)
        self.intercept_ = self.y_mean_
        return self

    def predict(self, X):
        return self._raw_output(X) * self.y_scale_ + self.y_mean_

    def to_star_model(self) -> StarModel:
        """The fitted model as a StarModel (one term per distinct feature subset) in original units."""
        return self._star(self.y_scale_, self.y_mean_, None)


class RKHSWeightingClassifier(ClassifierMixin, _RKHSWeightingBase):
    """RKHS Weighting classifier: least squares on +-1 class indicators (one column per class when
    there are more than two), decision by the sign (two classes) or the largest score.

    Same parameters as ``RKHSWeightingRegressor``.  ``decision_function`` is the explained output
    (``to_star_model``): one score for two classes (positive means ``classes_[1]``), one per class
    otherwise.
    """

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        self._binarizer = LabelBinarizer(neg_label=-1, pos_label=1)
        Y = self._binarizer.fit_transform(y).astype(np.float64)
        self.classes_ = self._binarizer.classes_
        if self.classes_.size < 2:
            raise ValueError(
                f"the classifier needs at least two classes in y, got {self.classes_.size} class: {self.classes_.tolist()}."
            )
        if Y.shape[1] == 1:
            Y = Y[:, 0]
        self.intercept_ = Y.mean(axis=0)
        self._fit_weighting(X, Y - self.intercept_)
        return self

    def decision_function(self, X):
        return self._raw_output(X) + self.intercept_

    def predict(self, X):
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]

    def to_star_model(self) -> StarModel:
        """The decision function as a StarModel (several outputs for more than two classes)."""
        check_is_fitted(self, "weighting_")
        names = None if np.ndim(self.intercept_) == 0 else [f"score({c})" for c in self.classes_]
        if names is None:
            names = [f"score({self.classes_[1]})"]
        return self._star(1.0, self.intercept_, names)

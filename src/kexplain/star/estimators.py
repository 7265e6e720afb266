"""scikit-learn estimators for RKHS Weightings of functions and their STAR versions.

RKHS Weightings (Dubé & Marchand, "Shapley Values of Structured Additive Regression Models and
Application to RKHS Weightings of Functions", section 2.3) predict
Lambda alpha(x) = sum_t a_t E_{w ~ p}[K(w_t, w) phi(w, x)] with T parameters w_t drawn from p and
coefficients a fitted by regularised least squares (their appendix E, equations 63-64).  With
``interaction_order`` set they are STAR models (section 4.3, Table 4) and
:class:`~kexplain.star.StarExplainer` explains them exactly.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.preprocessing import LabelBinarizer
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._params import Boolean, Integer, Options, Real, check_param, validate_params
from .._typing import RandomStateLike
from .._validation import check_legacy_random_state
from .instantiations import INSTANTIATIONS, _GaussianInstantiation
from .model import StarModel
from .subsets import SUBSET_DISTRIBUTIONS, SubsetDistribution, make_subset_distribution
from .weighting import RKHSWeighting, weighting_star_model


class _RKHSWeightingBase(BaseEstimator):
    """Shared parameters, validation and fitting of the RKHS Weighting estimators."""

    def __init__(
        self,
        instantiation: str = "relu",
        n_parameters: int = 1000,
        interaction_order: int | None = None,
        subsets: str | SubsetDistribution = "size",
        regularization: float = 1e-5,
        sigma: float = 1.0,
        c: float | None = 0.5,
        gamma: float | None = None,
        epsilon: float = 1e-10,
        standardize: bool = True,
        random_state: RandomStateLike = None,
    ) -> None:
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

    #: what each hyper-parameter accepts, checked at fit (as scikit-learn's ``_parameter_constraints``;
    #: another name, so that scikit-learn's own machinery never reads kexplain's constraints)
    _param_constraints: ClassVar[dict[str, list[Any]]] = {
        "instantiation": [Options(sorted(INSTANTIATIONS))],
        "interaction_order": [None, Integer(1)],
        "regularization": [Real(0)],
        "epsilon": [Real(0)],
        "standardize": [Boolean()],
    }

    # -- validation of hyper-parameters (at fit, as scikit-learn does) -------------------------
    def _check_params(self, n_features: int) -> tuple[_GaussianInstantiation, SubsetDistribution | None]:
        check_param(self.instantiation, "instantiation", *self._param_constraints["instantiation"])
        check_param(self.n_parameters, "n_parameters", Integer(1), note="T, the number of sampled parameters")
        validate_params(self.get_params(deep=False), self._param_constraints)
        if not isinstance(self.subsets, SubsetDistribution) and self.subsets not in SUBSET_DISTRIBUTIONS:
            raise ValueError(f"subsets must be one of {sorted(SUBSET_DISTRIBUTIONS)}, got {self.subsets!r}.")
        if self.gamma is None and self.c is None:
            raise ValueError("give gamma (kernel width) or c in (0, 1) (equation 65), not both None.")
        k = self.interaction_order
        inst = INSTANTIATIONS[self.instantiation](
            sigma=self.sigma, gamma=self.gamma, c=None if self.gamma is not None else self.c
        )
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

    def _fit_weighting(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
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
        rng = check_legacy_random_state(self.random_state)
        # numpy Generator seeded from sklearn's RandomState, so random_state fixes the draw
        gen = np.random.default_rng(rng.randint(np.iinfo(np.int32).max))
        w = RKHSWeighting(inst, n_features, dist).sample(int(self.n_parameters), gen)
        w.fit_coefficients(Xs, Y, float(self.regularization), float(self.epsilon))
        self.weighting_ = w
        self.coef_ = w.coef_
        return Xs

    def _raw_output(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "weighting_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        Xs = (X - self.x_mean_) / self.x_scale_
        return self.weighting_.design_matrix(Xs) @ self.coef_

    def _star(self, out_scale: float, intercept: Any, output_names: list[str] | None, output: str) -> StarModel:
        check_is_fitted(self, "weighting_")
        names = getattr(self, "feature_names_in_", None)
        return weighting_star_model(
            self.weighting_,
            self.coef_,
            intercept=intercept,
            x_mean=self.x_mean_,
            x_scale=self.x_scale_,
            out_scale=out_scale,
            feature_names=None if names is None else list(names),
            output_names=output_names,
            output=output,
        )


_PARAMETERS = """
    Parameters
    ----------
    instantiation : {"relu", "sign", "stumps"}
        Base predictor phi: max(0, <w, x>) (RWRelu), sign(<w, x>) (RWSign), or decision stumps
        sign(x_j - theta) (RWStumps); Table 3 of Dubé & Marchand.
    n_parameters : int
        T, the number of parameters w_t sampled from p.
    interaction_order : None or int
        None: the original instantiation (over all features; stumps are a GAM anyway).  k: the
        STAR version (section 4.3, Table 4) whose parameters read feature subsets drawn from
        ``subsets``; the model is then a STAR model with terms of at most k features.
    subsets : {"size", "up_to", "sequences", "sequences_up_to"} or SubsetDistribution
        Uniform over subsets of size k, over sizes 1..k, over runs of k adjacent features, or
        over runs of length 1..k.
    regularization : float
        lambda, the RKHS-norm penalty (appendix E, equation 63).
    sigma : float
        Standard deviation of p = N(0, sigma^2 I).
    c : float in (0, 1) or None
        Kernel width through appendix E, equation 65, used when ``gamma`` is None; see
        :func:`~kexplain.star.gamma_from_c` (gamma^2 = 2 sigma^2 / (c^(-4/dim) - 1), dim the
        parameter dimension).
    gamma : float, optional
        Kernel width, overriding ``c``.
    epsilon : float
        Tiny ridge of equation 63 for numerical stability.
    standardize : bool
        Scale features and target to mean 0 and standard deviation 1 (as the paper does); the
        fitted model and its STAR terms take and return the original units.
    random_state : None, int or RandomState
        Seeds the draw of the parameters.
"""


class RKHSWeightingRegressor(RegressorMixin, _RKHSWeightingBase):
    __doc__ = (
        """RKHS Weighting of functions for regression (RWRelu, RWSign, RWStumps and STAR versions).

    A weighted sum of T closed-form expectations E_{w ~ p}[K(w_t, w) phi(w, x)] (Dubé & Marchand,
    "Shapley Values of Structured Additive Regression Models and Application to RKHS Weightings
    of Functions", section 2.3 and Theorem 4.1), fitted by least squares (appendix E).  With
    ``interaction_order`` set it is a STAR model that :class:`~kexplain.star.StarExplainer`
    explains exactly.
"""
        + _PARAMETERS
        + """
    Attributes
    ----------
    weighting_ : RKHSWeighting
        The sampled parameters and the fitted coefficients.
    coef_ : ndarray of shape (n_parameters,)
        The coefficients a_t (on the standardised scale).
    intercept_ : float
        Mean of the training target (0 without standardisation).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.star import RKHSWeightingRegressor, StarExplainer
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3))
    >>> y = X[:, 0] * X[:, 1] + X[:, 2]
    >>> est = RKHSWeightingRegressor(n_parameters=50, interaction_order=2, random_state=0).fit(X, y)
    >>> bool(est.score(X, y) > 0.9)
    True
    >>> ex = StarExplainer(est, X[:20]).explain(X[:2])
    >>> bool(np.allclose(ex.predictions, est.predict(X[:2])))
    True
    """
    )

    def fit(self, X: Any, y: Any) -> RKHSWeightingRegressor:
        """Sample the parameters and fit the coefficients.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training rows.
        y : array-like of shape (n_samples,)
            Targets.

        Returns
        -------
        self
            The fitted estimator.
        """
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

    def predict(self, X: Any) -> np.ndarray:
        """Predictions for the rows of ``X``, shape (n_samples,).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows.

        Returns
        -------
        ndarray of shape (n_samples,)
            The predictions.
        """
        return self._raw_output(X) * self.y_scale_ + self.y_mean_

    def to_star_model(self) -> StarModel:
        """The fitted model as a StarModel (one term per distinct feature subset) in original units.

        Returns
        -------
        StarModel
            Its ``predict`` equals this estimator's; its ``output`` is
            ``"predict of RKHSWeightingRegressor"``.
        """
        check_is_fitted(self, "weighting_")
        return self._star(self.y_scale_, self.y_mean_, None, f"predict of {type(self).__name__}")


class RKHSWeightingClassifier(ClassifierMixin, _RKHSWeightingBase):
    __doc__ = (
        """RKHS Weighting classifier (RWRelu, RWSign, RWStumps and STAR versions).

    Least squares on +-1 class indicators (one column per class when there are more than two),
    decision by the sign (two classes) or the largest score.  ``decision_function`` is the output
    that :class:`~kexplain.star.StarExplainer` explains (``to_star_model``): one score for two
    classes (positive means ``classes_[1]``), one per class otherwise.
"""
        + _PARAMETERS
        + """
    Attributes
    ----------
    classes_ : ndarray
        The class labels.
    weighting_ : RKHSWeighting
        The sampled parameters and the fitted coefficients.
    coef_ : ndarray of shape (n_parameters,) or (n_parameters, n_classes)
        The coefficients a_t.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.star import RKHSWeightingClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 2))
    >>> y = (X[:, 0] + X[:, 1] > 0).astype(int)
    >>> clf = RKHSWeightingClassifier(n_parameters=40, random_state=0).fit(X, y)
    >>> bool(clf.score(X, y) > 0.9)
    True
    """
    )

    def fit(self, X: Any, y: Any) -> RKHSWeightingClassifier:
        """Sample the parameters and fit the coefficients to +-1 class indicators.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training rows.
        y : array-like of shape (n_samples,)
            Class labels (at least two classes).

        Returns
        -------
        self
            The fitted estimator.
        """
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        self._binarizer = LabelBinarizer(neg_label=-1, pos_label=1)
        Y = self._binarizer.fit_transform(y).astype(np.float64)
        self.classes_ = self._binarizer.classes_
        if self.classes_.size < 2:
            raise ValueError(
                f"the classifier needs at least two classes in y, got {self.classes_.size} class: "
                f"{self.classes_.tolist()}."
            )
        if Y.shape[1] == 1:
            Y = Y[:, 0]
        self.intercept_ = Y.mean(axis=0)
        self._fit_weighting(X, Y - self.intercept_)
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        """Scores: shape (n_samples,) for two classes, (n_samples, n_classes) otherwise.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            The scores: one column for two classes, one per class otherwise.
        """
        return self._raw_output(X) + self.intercept_

    def predict(self, X: Any) -> np.ndarray:
        """Predicted class labels, shape (n_samples,).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows.

        Returns
        -------
        ndarray of shape (n_samples,)
            The predicted class labels.
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]

    def to_star_model(self) -> StarModel:
        """The decision function as a StarModel (several outputs for more than two classes).

        Returns
        -------
        StarModel
            Its ``predict`` equals ``decision_function``; its ``output`` is
            ``"decision_function of RKHSWeightingClassifier"``.
        """
        check_is_fitted(self, "weighting_")
        names = None if np.ndim(self.intercept_) == 0 else [f"score({c})" for c in self.classes_]
        if names is None:
            names = [f"score({self.classes_[1]})"]
        return self._star(1.0, self.intercept_, names, f"decision_function of {type(self).__name__}")

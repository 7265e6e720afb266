"""ObservationalExplainer: observational Shapley values through conditional mean embeddings.

The observational game, v_x(S) = E[f(x_S, X_Sc) | X_S = x_S], estimated with conditional mean
embeddings of the absent features given the present ones, for three kinds of model:

- product-kernel models (anything ``kx.models.as_kernel_expansion`` accepts, or an estimator with
  ``to_kernel_expansion()``): Chau, Hu, Gonzalez & Sejdinovic, 2022, section 3, Proposition 3
  (``cme.ProductCME``), with GP-SHAP's posterior covariance for Gaussian processes
  (``gpshap``; Chau, Muandet & Sejdinovic, 2023);
- scikit-learn kernel models whose kernel is not a product (Matern, RationalQuadratic,
  polynomial, ...): the CME of the whole feature map given X_S with the kernel restricted to S
  (Chau, 2023, thesis appendix C.3; ``cme.GenericCME``);
- any prediction callable (or object with ``predict``) with background rows: a CME with an RBF
  kernel on S (kexplain's default lengthscales on the background,
  ``kx.kernels.default_lengthscale``).

Coalitions are enumerated (``kx.exact_shapley``) when d <= ``max_exact_features`` (default 12),
otherwise sampled (``kx.sampled_shapley``) with standard errors
(``kexplain.explainers.coalitions``).

The explainer's GP-SHAP path (``explain(X, uncertainty=True)``) is a mix-in in
``_observational_uncertainty``; its CME state (the landmarks, the CME built once, the lock that
guards it) and the game of a batch of points are a mix-in in ``_observational_cme``; the kernels
of the CMEs that are not products and the cross-validation of eta (``select_eta``) are in
``_observational_kernels``.  Every name of this module is still imported from here.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._typing import RandomStateLike
from .._validation import check_bool, check_random_state
from ..base import Explainer, background_rows, check_explain_options, row_index
from ..explainers.coalitions import Game, explain_coalitions, to_explanation
from ..explanation import Explanation
from ..shapley.result import ShapleyValues
from ._models import _check_options, _resolve
from ._observational_cme import ObservationalCME
from ._observational_kernels import _cv_kernels, _DefaultRBF, _restricted, select_eta  # noqa: F401  (the old names)
from ._observational_uncertainty import ObservationalUncertainty
from .cme import DEFAULT_CME_REGULARIZATION, GenericCME, ProductCME, choose_landmarks  # noqa: F401  (the same)


class ObservationalExplainer(Explainer, ObservationalUncertainty, ObservationalCME):
    """Observational Shapley values of kernel models and of any prediction function (RKHS-SHAP).

    The game, v_x(S) = E[f(x_S, X_Sc) | X_S = x_S], is estimated with conditional mean
    embeddings of the absent features given the present ones (Chau, Hu, Gonzalez & Sejdinovic,
    2022, "RKHS-SHAP: Shapley Values for Kernel Methods", section 3, Propositions 2-3; Chau, 2023,
    thesis appendix C for kernels that are not products).  Correlated features share the credit.

    Everything that depends only on the model and the background is computed here, once: the
    kernel tables of the background rows, the landmarks of the Nystroem approximation, and
    (within a memory budget) the per-coalition factors of the conditional mean embeddings, which
    every later ``explain`` call reuses.  ``kx.RKHSExplainer(model)`` (its default game) routes
    here.

    Parameters
    ----------
    model : fitted model
        A product-kernel model (see ``kx.models.SUPPORTED_MODELS``), ``kx.KernelExpansion`` or an
        estimator with ``to_kernel_expansion()``; a scikit-learn kernel model with another kernel
        (Matern, RationalQuadratic, polynomial, ...); or any prediction callable / object with
        ``predict`` (then ``background`` is required).
    background : array-like of shape (n, d), optional
        Rows whose distribution the conditional expectations are taken over (at least 2).  When
        None, the model's training rows where the model keeps them: ``X_fit_`` of KernelRidge
        and of ShapleyRegularizedKernelRidge, ``X_train_`` of Gaussian processes, the support
        points of a ``KernelExpansion`` (for a Pipeline mapped back to the input scale).
        Support-vector machines keep only their support vectors and callables keep nothing, so
        they need it.
    background_weights : array-like of shape (n,), optional
        Non-negative weights of the background rows (normalised to sum to one): a weighted
        conditional mean embedding, D (D K_S D + n eta I)^-1 D k_S with D = diag(sqrt(n w)),
        which reduces to the unweighted one for equal weights.
    feature_names : sequence of str, optional
        Labels of the features; default the model's, else the columns of ``X``, else x0, x1, ...
    cme_regularization : float
        eta in the CME ridge (K_S + n eta I); the default 1e-3 suits kernels with unit diagonal and
        a few thousand rows.  ``select_cme_regularization`` picks it by cross-validation.
    approximation : None or "nystroem"
        None solves every CME exactly (O(n^3) per coalition, for n up to a few thousand);
        "nystroem" uses ``n_landmarks`` landmark rows of the background (O(n m^2) per coalition).
    n_landmarks : int
        Landmarks for the Nystroem approximation.
    max_exact_features : int
        Enumerate all coalitions up to this many features; sample beyond.
    random_state : None, int or numpy Generator/RandomState
        Picks the Nystroem landmarks (as in scikit-learn's ``Nystroem``); the sampled solver is
        seeded by ``explain(random_state=...)``.

    Attributes
    ----------
    game : str
        ``"observational"``.
    output : str
        The model output explained, e.g. ``"predict of KernelRidge"``.
    background : ndarray of shape (n, d)
        The validated background rows.
    background_weights : ndarray of shape (n,) or None
        The normalised weights, None for equal weights.
    kind : str
        ``"product"`` (product-kernel model), ``"kernel"`` (other kernel model) or ``"agnostic"``.
    expansion : KernelExpansion or None
        The model as a kernel expansion (product-kernel models).
    n_features : int

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> from kexplain.rkhs import ObservationalExplainer
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 3))
    >>> model = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, X[:, 0] + X[:, 1] * X[:, 2])
    >>> ex = ObservationalExplainer(model)     # background: the training rows (model.X_fit_)
    >>> ex.game, ex.kind
    ('observational', 'product')
    >>> bool(np.allclose(ex.explain(X[:2]).predictions, model.predict(X[:2])))
    True
    """

    game = "observational"

    def __init__(
        self,
        model: Any,
        background: Any = None,
        *,
        background_weights: Any = None,
        feature_names: Sequence[str] | None = None,
        cme_regularization: float = DEFAULT_CME_REGULARIZATION,
        approximation: str | None = None,
        n_landmarks: int = 300,
        max_exact_features: int = 12,
        random_state: RandomStateLike = 0,
    ) -> None:
        background = background_rows(background)  # a shap Independent masker gives its rows
        super().__init__(model, background, background_weights=background_weights, feature_names=feature_names)
        self.cme_regularization = cme_regularization
        self.approximation = approximation
        self.n_landmarks = n_landmarks
        self.max_exact_features = max_exact_features
        self.random_state = random_state
        _check_options(
            self.game,
            cme_regularization,
            approximation,
            random_state,
            n_landmarks=n_landmarks,
            max_exact_features=max_exact_features,
        )
        self._model = m = _resolve(model, background, background_weights, self.feature_names)
        self.kind, self.expansion, self.output = m.kind, m.expansion, m.output
        self.feature_names, self.n_features = m.feature_names, m.n_features
        self.background, self.background_weights = m.background, m.background_weights
        self._landmarks = self._choose_landmarks()
        self._lock = threading.Lock()
        self._cme: ProductCME | GenericCME = self._build_cme()

    def value_function(self, X: Any) -> Game:
        """The observational game (its CME estimate) at the rows of ``X``.

        Parameters
        ----------
        X : array-like of shape (N, d)
            The points whose coalitions are valued.

        Returns
        -------
        callable
            Takes a boolean array of coalitions (n_coalitions, d) and returns the values
            v_x(S), shape (n_coalitions, N, n_outputs), the intercept included.

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> from kexplain.rkhs import ObservationalExplainer
        >>> X = np.random.default_rng(0).normal(size=(20, 2))
        >>> em = kx.KernelExpansion(X, np.ones(20), kx.kernels.RBF(1.0))
        >>> v = ObservationalExplainer(em).value_function(X[:3])
        >>> v(np.array([[True, True]])).shape
        (1, 3, 1)
        """
        return self._game_at(self._check_X(X))

    def explain(
        self,
        X: Any,
        *,
        interactions: bool | str | None = False,
        progress: bool = False,
        n_jobs: int | None = None,
        random_state: RandomStateLike = None,
        budget: int | None = None,
        tol: float | None = None,
        uncertainty: bool = False,
        joint: bool = False,
    ) -> Explanation:
        """Observational Shapley values of each row of ``X``.

        Estimated through conditional mean embeddings (Chau, Hu, Gonzalez & Sejdinovic, 2022,
        section 3).  When no background was given the expectations are taken over the model's
        training rows (see the class docstring).  Correlated features share the credit; for
        shap's interventional values use ``kx.RKHSExplainer(model, background,
        game="interventional")`` (see the documentation page "Which game should I use?").

        Parameters
        ----------
        X : array-like of shape (N, d) or DataFrame
            The points to explain (a DataFrame is matched to the model's columns by name).
        interactions : bool or {"sii", "stii"}
            Also compute pairwise interaction values in shap's layout (each row of the d x d
            matrix sums to the feature's Shapley value): True or "sii" the Shapley interaction
            index (shap's ``TreeExplainer`` convention), "stii" the Shapley-Taylor index of
            order 2 (shap's ``ExactExplainer``); ``interaction_index`` says which.
            Needs enumerated coalitions (d <= ``max_exact_features`` and no ``budget``).
        progress : bool
            Show a progress bar over coalition evaluations.
        n_jobs : int, optional
            Threads over blocks of rows; the values do not depend on it (the sampled solver draws
            the same coalitions for every block).  With ``tol`` the stopping rule looks at every
            point, so the rows are solved in one block.  The enumerated game of a product-kernel
            model uses the threads over coalitions instead (each coalition's CME factor is built
            once for all rows).
        random_state : None, int or numpy Generator/RandomState
            Seeds the sampled solver; no effect on enumerated values.
        budget : int, optional
            Coalition evaluations for the sampled solver.  None: exact enumeration when
            d <= max_exact_features, else 64 * d evaluations (at least 1024).  Giving a budget
            always uses the sampled solver.
        tol : float, optional
            Early stop of the sampled solver once every standard error is below it.
        uncertainty : bool
            GP-SHAP (Chau, Muandet & Sejdinovic, NeurIPS 2023): for a Gaussian-process model
            (GaussianProcessRegressor, binary GaussianProcessClassifier, ``kx.models.GPPosterior``;
            see ``kx.models.gp_posterior``), the values are the posterior means and the
            Explanation gets ``covariance`` (N, d, d), ``base_variance`` and
            ``prediction_variance``.  The covariance is the posterior uncertainty of f
            propagated exactly through the CME estimate of the game; it does NOT include the
            estimation error of the conditional mean embedding (the CME weights are taken as
            fixed), and a constant kernel part adds nothing to it (``kexplain.rkhs.gpshap``).
            Needs ``approximation=None`` and enumerated coalitions; the cost is
            O(3^d n^2 + 4^d n) per point (n background rows): about 1.6 s per point at d = 10,
            n = 100 on one core.
        joint : bool
            With ``uncertainty``, also the covariance between the values of every pair of
            points, ``joint_covariance`` (N, d, N, d) (rows in one block).

        Returns
        -------
        Explanation
            ``game`` is ``"observational"``, ``output`` is ``self.output``; sampled values carry
            ``standard_errors``.

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> from kexplain.rkhs import ObservationalExplainer
        >>> X = np.random.default_rng(0).normal(size=(30, 3))
        >>> em = kx.KernelExpansion(X, np.ones(30) / 30, kx.kernels.RBF(1.5))
        >>> e = ObservationalExplainer(em).explain(X[:2], interactions=True)
        >>> e.interactions.shape
        (2, 3, 3)
        >>> np.allclose(e.interactions.sum(axis=2), e.values)
        True
        """
        interactions, progress, n_jobs = check_explain_options(interactions, progress, n_jobs)
        check_random_state(random_state)
        Xv = self._check_X(X)
        d = self.n_features
        names = self._names(X, d)
        index = row_index(X)
        uncertainty, joint = check_bool(uncertainty, "uncertainty"), check_bool(joint, "joint")
        if uncertainty or joint:
            if not uncertainty:
                raise ValueError("joint=True needs uncertainty=True.")
            return self._explain_uncertain(Xv, names, index, interactions, budget, n_jobs, joint)
        ex = explain_coalitions(
            self._game_at,
            lambda res, rows: self._to_explanation(res, rows, names),
            Xv,
            d,
            max_exact_features=self.max_exact_features,
            interactions=interactions,
            progress=progress,
            n_jobs=n_jobs,
            random_state=random_state,
            budget=budget,
            tol=tol,
            threads_over_coalitions=self.kind == "product",
            system_size=self._system_size(),
        )
        ex.index = index
        return ex

    def _to_explanation(self, res: ShapleyValues, Xv: np.ndarray, names: list[str]) -> Explanation:
        return to_explanation(
            res,
            Xv,
            names,
            game=self.game,
            output=self.output,
            output_names=self.expansion.output_names if self.expansion is not None else None,
            info={"cme_regularization": self.cme_regularization, "approximation": self.approximation},
        )

    def select_cme_regularization(
        self,
        grid: Sequence[float] = (1e-5, 1e-4, 1e-3, 1e-2, 1e-1),
        n_folds: int = 3,
        n_coalitions: int = 8,
        max_rows: int = 500,
        random_state: RandomStateLike = 0,
    ) -> float:
        """Pick eta by K-fold cross-validation of the conditional mean embeddings.

        The loss is the held-out squared RKHS distance between the embedded target and its CME
        prediction, summed over ``n_coalitions`` random non-empty proper coalitions, on at most
        ``max_rows`` background rows (unweighted).  Sets ``self.cme_regularization`` to the best
        value (the per-coalition CME factors are recomputed on the next ``explain``; the kernel
        tables of the background are kept) and returns it; the losses
        are in ``self.cme_cv_scores_`` (a dict eta -> loss).

        Parameters
        ----------
        grid : sequence of float
            Candidate values of eta.
        n_folds : int
            Folds of the cross-validation (at least 2).
        n_coalitions : int
            Random coalitions the loss is summed over (at least 1).
        max_rows : int
            Background rows used at most (a random subsample; at least 1).
        random_state : None, int or numpy Generator
            Seeds the subsample, the coalitions and the folds.

        Returns
        -------
        float
            The chosen eta.

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> from kexplain.rkhs import ObservationalExplainer
        >>> X = np.random.default_rng(0).normal(size=(30, 2))
        >>> ex = ObservationalExplainer(kx.KernelExpansion(X, np.ones(30), kx.kernels.RBF(1.0)))
        >>> ex.select_cme_regularization(grid=(1e-3, 1.0), n_coalitions=2)
        0.001
        """
        best, self.cme_cv_scores_ = select_eta(self._model, grid, n_folds, n_coalitions, max_rows, random_state)
        self.cme_regularization = best
        return best

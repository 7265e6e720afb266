"""RKHSExplainer: RKHS-SHAP's entry, which routes each model and game to the explainer for it.

- ``game="observational"`` (default): ``ObservationalExplainer``, the conditional-mean-embedding
  game for product-kernel models, other kernel models and any callable (Chau, Hu, Gonzalez &
  Sejdinovic, 2022, section 3), with GP-SHAP for Gaussian processes;
- ``game="interventional"`` and a product-kernel model: ``kx.ProductKernelExplainer``, the exact
  product-game engine, on the same background;
- ``game="interventional"`` and any other model: ``kexplain.explainers.ModelAgnosticExplainer``
  (the model's own outputs at hybrid rows, coalitions enumerated or sampled); a product-kernel
  model with a sampling ``budget`` goes there too, on the expansion's ``predict``.

The class keeps the routing and the public methods; the interventional game's paths past the
routed explainer (the sampled solver of a product-kernel model, the posterior engine, the checks
and relabelling of the results) are a mix-in in ``_interventional``, the CME regularisation eta
(``cme_regularization``, ``select_cme_regularization``) a mix-in in ``_regularization``.  Every
name of this module is still imported from here.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Sequence
from typing import Any

from .._deprecation import renamed_keyword
from .._typing import RandomStateLike
from ..base import Explainer, background_rows
from ..exceptions import foreign_model_error
from ..explainers.coalitions import Game
from ..explainers.model_agnostic import DEFAULT_MAX_BLOCK_BYTES, ModelAgnosticExplainer
from ..explainers.product_kernel import ProductKernelExplainer
from ..explanation import Explanation
from ._interventional import RKHSInterventional
from ._models import _check_options, _EmbeddingSampled, _resolve  # noqa: F401  (_EmbeddingSampled: imported here before the split)
from ._regularization import CMERegularization
from .cme import DEFAULT_CME_REGULARIZATION
from .observational import ObservationalExplainer, select_eta  # noqa: F401  (select_eta: imported here before the split)

__all__ = ["DEFAULT_MAX_BLOCK_BYTES", "RKHSExplainer"]


class RKHSExplainer(Explainer, RKHSInterventional, CMERegularization):
    """Observational or interventional Shapley values of kernel models (RKHS-SHAP).

    The observational game, v_x(S) = E[f(x_S, X_Sc) | X_S = x_S], is estimated with conditional
    mean embeddings of the absent features given the present ones (Chau, Hu, Gonzalez &
    Sejdinovic, 2022, "RKHS-SHAP: Shapley Values for Kernel Methods", section 3, Propositions 2-3;
    Chau, 2023, thesis appendix C for kernels that are not products) by
    ``kexplain.rkhs.ObservationalExplainer``.  The interventional game, v_x(S) = mean over the
    background rows z of f(x_S, z_Sc), is exact: for product-kernel models it is solved by the
    exact product-game engine (``kx.ProductKernelExplainer``), for other models by enumerating
    (or sampling) coalitions (``kexplain.explainers.ModelAgnosticExplainer``).  This class
    chooses between them once, at construction (``self.explainer``), and relabels their results
    with its own ``game`` and ``output``.

    Parameters
    ----------
    model : fitted model
        A product-kernel model (see ``kx.models.SUPPORTED_MODELS``), ``kx.KernelExpansion`` or an
        estimator with ``to_kernel_expansion()``; a scikit-learn kernel model with another kernel
        (Matern, RationalQuadratic, polynomial, ...); or any prediction callable / object with
        ``predict`` (then ``background`` is required).
    background : array-like of shape (n, d), optional
        Rows whose distribution the expectations are taken over (at least 2).  When None, the
        model's training rows where the model keeps them: ``X_fit_`` of KernelRidge and of
        ShapleyRegularizedKernelRidge, ``X_train_`` of Gaussian processes, the support points of
        a ``KernelExpansion`` (for a Pipeline mapped back to the input scale).  Support-vector
        machines keep only their support vectors and callables keep nothing, so they need it.
    background_weights : array-like of shape (n,), optional
        Non-negative weights of the background rows (normalised to sum to one).  The
        interventional game takes the weighted mean over the rows; the observational game uses
        a weighted conditional mean embedding, D (D K_S D + n eta I)^-1 D k_S with
        D = diag(sqrt(n w)), which reduces to the unweighted one for equal weights.
    feature_names : sequence of str, optional
        Labels of the features; default the model's, else the columns of ``X``, else x0, x1, ...
    game : {"observational", "interventional"}, optional
        The game ``explain`` solves (``self.game``); None (the default) means "observational".
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
    max_block_bytes : int
        Bound, in bytes, on the hybrid rows (x_S, z_Sc) that the interventional game of a model
        that is not a product-kernel expansion builds at once, with the model's outputs and
        kernel rows on them (default 64 MiB; see ``ModelAgnosticExplainer``).  The values do not
        depend on it (to rounding).
    random_state : None, int or numpy Generator/RandomState
        Picks the Nystroem landmarks (as in scikit-learn's ``Nystroem``); the sampled solver is
        seeded by ``explain(random_state=...)``.
    value : {"observational", "interventional"}, optional
        Deprecated spelling of ``game`` (a FutureWarning); passing both is a TypeError.

    Attributes
    ----------
    game : str
        The game ``explain`` solves.
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
    explainer : ObservationalExplainer, ProductKernelExplainer or ModelAgnosticExplainer
        The explainer the game and the model were routed to.
    n_features : int

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 3))
    >>> model = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, X[:, 0] + X[:, 1] * X[:, 2])
    >>> ex = kx.RKHSExplainer(model)            # background: the training rows (model.X_fit_)
    >>> ex.game, ex.output, type(ex.explainer).__name__
    ('observational', 'predict of KernelRidge', 'ObservationalExplainer')
    >>> e = ex.explain(X[:2])
    >>> bool(np.allclose(e.predictions, model.predict(X[:2])))
    True
    >>> itv = kx.RKHSExplainer(model, X, game="interventional")
    >>> type(itv.explainer).__name__
    'ProductKernelExplainer'
    >>> e = itv.explain(X[:2])
    >>> bool(np.allclose(e.values.sum(axis=1), model.predict(X[:2]) - model.predict(X).mean()))
    True
    """

    def __init__(
        self,
        model: Any,
        background: Any = None,
        *,
        background_weights: Any = None,
        feature_names: Sequence[str] | None = None,
        game: str | None = None,
        cme_regularization: float = DEFAULT_CME_REGULARIZATION,
        approximation: str | None = None,
        n_landmarks: int = 300,
        max_exact_features: int = 12,
        max_block_bytes: int = DEFAULT_MAX_BLOCK_BYTES,
        random_state: RandomStateLike = 0,
        value: str | None = None,
    ) -> None:
        game = renamed_keyword("RKHSExplainer", "game", game, "value", value, "observational")
        background = background_rows(background)  # a shap Independent masker gives its rows
        super().__init__(model, background, background_weights=background_weights, feature_names=feature_names)
        _check_options(
            game,
            cme_regularization,
            approximation,
            random_state,
            n_landmarks=n_landmarks,
            max_exact_features=max_exact_features,
            max_block_bytes=max_block_bytes,
        )
        self.game = game
        self._cme_regularization = cme_regularization
        self.approximation = approximation
        self.n_landmarks = n_landmarks
        self.max_exact_features = max_exact_features
        self.max_block_bytes = max_block_bytes
        self.random_state = random_state
        self._lock = threading.Lock()
        self._given_weights = background_weights
        self.explainer: ObservationalExplainer | ProductKernelExplainer | ModelAgnosticExplainer
        if game == "observational":
            self.explainer = obs = ObservationalExplainer(
                model,
                background,
                background_weights=background_weights,
                feature_names=self.feature_names,
                cme_regularization=cme_regularization,
                approximation=approximation,
                n_landmarks=n_landmarks,
                max_exact_features=max_exact_features,
                random_state=random_state,
            )
            self._model = obs._model
        else:
            self._model = _resolve(model, background, background_weights, self.feature_names)
        m = self._model
        self.kind, self.expansion, self.output = m.kind, m.expansion, m.output
        self.feature_names, self.n_features = m.feature_names, m.n_features
        self.background, self.background_weights = m.background, m.background_weights
        if game == "interventional":
            if m.kind == "product":
                # the exact engine, one implementation of the product game
                self.explainer = ProductKernelExplainer(
                    m.expansion,
                    background=m.background,
                    background_weights=m.background_weights,
                    feature_names=m.feature_names,
                )
            elif foreign_model_error(model) is not None:
                # a GPyTorch / BoTorch / GPflow model with a Matérn or rational quadratic kernel: the
                # product explainer converts it itself and reports the mixture's error bound
                self.explainer = ProductKernelExplainer(
                    model,
                    background=m.background,
                    background_weights=m.background_weights,
                    feature_names=m.feature_names,
                )
            else:
                self.explainer = self._agnostic(model)

    @property
    def value(self) -> str:
        """Deprecated name of ``game`` (a FutureWarning)."""
        warnings.warn("RKHSExplainer.value is deprecated; read RKHSExplainer.game.", FutureWarning, stacklevel=2)
        return self.game

    def value_function(self, X: Any) -> Game:
        """The game ``self.game`` at the rows of ``X``.

        Parameters
        ----------
        X : array-like of shape (N, d)
            The rows to explain (one game per row).

        Returns
        -------
        callable
            Takes a boolean array of coalitions (n_coalitions, d) and returns the values
            v_x(S), shape (n_coalitions, N, n_outputs), the intercept included.

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> X = np.random.default_rng(0).normal(size=(20, 2))
        >>> em = kx.KernelExpansion(X, np.ones(20), kx.kernels.RBF(1.0))
        >>> v = kx.RKHSExplainer(em, game="interventional").value_function(X[:3])
        >>> v(np.array([[True, True]])).shape
        (1, 3, 1)
        """
        if isinstance(self.explainer, ProductKernelExplainer):
            assert self.expansion is not None
            self.expansion.check_input(X, name="X")  # the model's own column checks first
            return self._sampled_product().value_function(X)
        return self.explainer.value_function(X)

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
        """Shapley values of each row of ``X`` in the game ``self.game``.

        Solves the game chosen at construction: ``game="observational"`` (default), estimated
        through conditional mean embeddings (Chau, Hu, Gonzalez & Sejdinovic, 2022, section 3),
        or ``game="interventional"``, exact.  When no background was given the expectations are
        taken over the model's training rows (see the class docstring).  A shap user gets shap's
        interventional values (shap's ExactExplainer with an independent masker on the same
        background rows) with ``RKHSExplainer(model, background, game="interventional")``; shap's
        sampling explainers (``KernelExplainer``, ``PermutationExplainer``) estimate those same
        interventional values.  The observational game (the default here) lets correlated
        features share the credit; ``kx.ProductKernelExplainer(model)`` with no background gives
        PKeX's functional game (see the documentation page "Which game should I use?").

        Parameters
        ----------
        X : array-like of shape (N, d) or DataFrame
            The rows to explain.
        interactions : bool or {"sii", "stii"}
            Also compute pairwise interaction values in shap's layout (each row of the d x d
            matrix sums to the feature's Shapley value): True or "sii" the Shapley interaction
            index (shap's ``TreeExplainer`` convention), "stii" the Shapley-Taylor index of
            order 2 (shap's ``ExactExplainer``); ``interaction_index`` says which.
            Supported when coalitions are enumerated (d <= ``max_exact_features`` and no
            ``budget``) and by the exact product engine (interventional game of a product-kernel
            model); the sampled solver raises.
        progress : bool
            Show a progress bar over coalition evaluations (or points, for the product engine).
        n_jobs : int, optional
            Threads over blocks of rows; the values do not depend on it (the sampled solver draws
            the same coalitions for every block).  With ``tol`` the stopping rule looks at every
            point, so the rows are solved in one block.  The enumerated observational game of a
            product-kernel model uses the threads over coalitions instead (each coalition's CME
            factor is built once for all rows).
        random_state : None, int or numpy Generator/RandomState
            Seeds the sampled solver; no effect on exact values (enumeration or the engine).
        budget : int, optional
            Coalition evaluations for the sampled solver.  None: exact enumeration when
            d <= max_exact_features, else 64 * d evaluations (at least 1024).  Giving a budget
            always uses the sampled solver (for a product-kernel model in the interventional
            game, on the expansion's ``predict`` at hybrid rows: N * n_background model rows
            per coalition, far slower than the exact engine, which needs no budget).
        tol : float, optional
            Early stop of the sampled solver once every standard error is below it.
        uncertainty : bool
            GP-SHAP (Chau, Muandet & Sejdinovic, NeurIPS 2023): for a Gaussian-process model
            (GaussianProcessRegressor, binary GaussianProcessClassifier, ``kx.models.GPPosterior``;
            see ``kx.models.gp_posterior``) and the observational game, the values are the
            posterior means and the Explanation gets ``covariance`` (N, d, d), ``base_variance``
            and ``prediction_variance`` (see ``ObservationalExplainer.explain``).  With
            ``game="interventional"`` the exact covariance of the interventional values comes
            from ``kx.ProductKernelExplainer(model, background)`` (its
            ``explain(X, uncertainty=True)``; interactions then as that explainer allows).
        joint : bool
            With ``uncertainty``, also the covariance between the values of every pair of
            points, ``joint_covariance`` (N, d, N, d) (rows in one block).

        Returns
        -------
        Explanation
            ``game`` is ``self.game``, ``output`` is ``self.output``; sampled values carry
            ``standard_errors``.

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> X = np.random.default_rng(0).normal(size=(30, 3))
        >>> em = kx.KernelExpansion(X, np.ones(30) / 30, kx.kernels.RBF(1.5))
        >>> e = kx.RKHSExplainer(em).explain(X[:2], interactions=True)
        >>> e.interactions.shape
        (2, 3, 3)
        >>> np.allclose(e.interactions.sum(axis=2), e.values)
        True
        """
        options: dict[str, Any] = dict(interactions=interactions, progress=progress, n_jobs=n_jobs)
        if isinstance(self.explainer, ObservationalExplainer):
            self.explainer.cme_regularization = self._cme_regularization
            return self.explainer.explain(
                X, random_state=random_state, budget=budget, tol=tol, uncertainty=uncertainty, joint=joint, **options
            )
        return self._explain_interventional(
            X,
            interactions=interactions,
            progress=progress,
            n_jobs=n_jobs,
            random_state=random_state,
            budget=budget,
            tol=tol,
            uncertainty=uncertainty,
            joint=joint,
        )

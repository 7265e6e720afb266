"""RKHSExplainer: observational and interventional Shapley values of kernel models (RKHS-SHAP).

One explainer for three kinds of model, one result type (kx.Explanation):

- product-kernel models (anything ``kx.models.as_kernel_expansion`` accepts, or an estimator with
  ``to_kernel_expansion()``): observational values through conditional mean embeddings
  (Chau, Hu, Gonzalez & Sejdinovic, 2022, section 3, Proposition 3; ``cme.ProductCME``);
  interventional values from the exact product-game engine (``kx.ProductKernelExplainer``
  built once on the same background);
- scikit-learn kernel models whose kernel is not a product (Matern, RationalQuadratic, polynomial,
  ...): observational values through the CME of the whole feature map given X_S with the kernel
  restricted to S (Chau, 2023, thesis appendix C.3); interventional values by the generic solvers;
- any prediction callable (or object with ``predict``) with background rows: interventional values
  by the generic solvers; observational values through a CME with an RBF kernel on S
  (kexplain's default lengthscales on the background, ``kx.kernels.default_lengthscale``).

Coalitions are enumerated exactly (``kx.exact_shapley``) when d <= ``max_exact_features``
(default 12), otherwise sampled (``kx.sampled_shapley``) with standard errors.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from numbers import Integral
from typing import Any

import numpy as np

from .._validation import check_bool, check_data, check_random_state, check_weights
from ..base import Explainer, check_explain_options, explain_in_blocks, row_index
from ..exceptions import UnsupportedModelError
from ..explanation import Explanation
from ..kernels.base import RBF
from ..kernels.heuristics import default_lengthscale
from ..kernels.mixture import ScaleMixtureKernel
from ..models.expansion import KernelExpansion
from ..models.posterior import GPPosterior, gp_posterior, record_accuracy, warn_accuracy
from ..models.sklearn import as_kernel_expansion
from ..shapley.enumeration import exact_shapley
from ..shapley.sampling import sampled_shapley
from ._games import (
    Game,
    _blas_threads,
    _CallableInterventional,
    _check_eta,
    _Counted,
    _n_features,
    _ProductMeanEmbedding,
)
from ._outputs import _describe_product, _final_estimator, _predict_fn
from .cme import (
    DEFAULT_CME_REGULARIZATION,
    GenericCME,
    ProductCME,
    choose_landmarks,
    cme_cv_loss,
)
from .restricted_kernels import kernel_of

_VALUES = ("observational", "interventional")

_SVM = ("SVR", "NuSVR", "SVC", "NuSVC")
#: default bound, in bytes, on the rows the interventional game of a non-product model builds in
#: one block (hybrid rows x_S, z_Sc with the model's outputs on them)
DEFAULT_MAX_BLOCK_BYTES = 64 * 2**20


class RKHSExplainer(Explainer):
    """Observational or interventional Shapley values of kernel models (RKHS-SHAP).

    The observational game, v_x(S) = E[f(x_S, X_Sc) | X_S = x_S], is estimated with conditional
    mean embeddings of the absent features given the present ones (Chau, Hu, Gonzalez &
    Sejdinovic, 2022, "RKHS-SHAP: Shapley Values for Kernel Methods", section 3, Propositions 2-3;
    Chau, 2023, thesis appendix C for kernels that are not products).  The interventional game,
    v_x(S) = mean over the background rows z of f(x_S, z_Sc), is exact: for product-kernel models
    it is solved by the exact product-game engine (``kx.ProductKernelExplainer``), for other
    models by enumerating (or sampling) coalitions.

    Everything that depends only on the model and the background is computed here, once: the
    kernel tables of the background rows, the landmarks of the Nystroem approximation, the
    model's outputs on the background, the product-game engine of the interventional game, and
    (within a memory budget) the per-coalition factors of the conditional mean embeddings, which
    every later ``explain`` call reuses.

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
    value : {"observational", "interventional"}
        The game ``explain`` solves (``self.game``).
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
        that is not a product-kernel expansion builds at once, with the model's outputs on them
        (default 64 MiB): the model is called on blocks of at most
        ``max_block_bytes // (8 * (d + n_outputs + n_support))`` rows, where ``n_support`` is the
        number of training rows a scikit-learn kernel model compares each row with (0 for a
        callable), so its kernel rows stay within the bound too.  Each ``n_jobs`` thread holds one
        block.  The values do not depend on it (to rounding).
    random_state : None, int or numpy Generator/RandomState
        Picks the Nystroem landmarks (as in scikit-learn's ``Nystroem``); the sampled solver is
        seeded by ``explain(random_state=...)``.

    Attributes
    ----------
    game : str
        ``value``: the game ``explain`` solves.
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
    >>> import kexplain as kx
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 3))
    >>> model = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, X[:, 0] + X[:, 1] * X[:, 2])
    >>> ex = kx.RKHSExplainer(model)            # background: the training rows (model.X_fit_)
    >>> ex.game, ex.output
    ('observational', 'predict of KernelRidge')
    >>> e = ex.explain(X[:2])
    >>> bool(np.allclose(e.predictions, model.predict(X[:2])))
    True
    >>> itv = kx.RKHSExplainer(model, X, value="interventional").explain(X[:2])
    >>> bool(np.allclose(itv.values.sum(axis=1), model.predict(X[:2]) - model.predict(X).mean()))
    True
    """

    def __init__(
        self,
        model: Any,
        background: Any = None,
        *,
        background_weights: Any = None,
        feature_names: Sequence[str] | None = None,
        value: str = "observational",
        cme_regularization: float = DEFAULT_CME_REGULARIZATION,
        approximation: str | None = None,
        n_landmarks: int = 300,
        max_exact_features: int = 12,
        max_block_bytes: int = DEFAULT_MAX_BLOCK_BYTES,
        random_state: Any = 0,
    ) -> None:
        super().__init__(model, background, background_weights=background_weights, feature_names=feature_names)
        self.max_block_bytes = max_block_bytes
        self.value = value
        self.cme_regularization = cme_regularization
        self.approximation = approximation
        self.n_landmarks = n_landmarks
        self.max_exact_features = max_exact_features
        self.random_state = random_state
        self._check_params()
        self.game = value
        self.expansion = self._product_expansion(model, self.feature_names)
        est = _final_estimator(model)
        default_ref: Any = None
        n_features: int | None
        self._predict: Callable[[np.ndarray], Any] | None = None
        self._kernel_on: Callable[[np.ndarray], Any] | None = None
        if self.expansion is not None:
            self.kind = "product"
            n_features = self.expansion.n_features
            default_ref = None if type(est).__name__ in _SVM else self.expansion.X_ref
            if self.feature_names is None and self.expansion.feature_names is not None:
                self.feature_names = list(self.expansion.feature_names)
            self.output = _describe_product(model)
        else:
            kern = kernel_of(est, _n_features(est)) if est is model else None
            self.kind = "kernel" if kern is not None else "agnostic"
            if kern is not None:
                self._kernel_on = kern[1]
                default_ref = getattr(est, "X_fit_", None)
                if default_ref is None:
                    default_ref = getattr(est, "X_train_", None)
            self._predict, self.output = _predict_fn(model)
            n_features = _n_features(est)
            names = getattr(model, "feature_names_in_", None)
            if self.feature_names is None and names is not None:
                self.feature_names = [str(n) for n in names]
        self._n_outputs: int | None = None
        if background is None:
            if default_ref is None:
                raise ValueError(
                    f"background is required for a model of type {type(est).__name__}: it does not keep its "
                    "training rows. Pass the rows whose distribution the expectations are taken over."
                )
            background = default_ref
        R = check_data(
            background,
            name="background",
            n_features=n_features,
            numeric_mask=None if self.expansion is None else self.expansion.numeric_mask,
        )
        if R.shape[0] < 2:
            raise ValueError(f"background must have at least 2 rows, got {R.shape[0]}.")
        self.background = R
        self.n_features = int(R.shape[1] if n_features is None else n_features)
        self.background_weights = None if background_weights is None else check_weights(background_weights, R.shape[0])
        if self._predict is not None:
            self._n_outputs = int(self._outputs(R[:1]).shape[1])  # sizes the blocks of the interventional game
        self._landmarks = self._choose_landmarks()
        self._lock = threading.Lock()
        self._cme: ProductCME | GenericCME | None = None
        self._mean_embedding: _ProductMeanEmbedding | None = None
        self._engine: Any = None
        if self.game == "observational":
            self._cme = self._build_cme()
        elif self.kind == "product":
            from ..explainers.product_kernel import ProductKernelExplainer

            self._engine = ProductKernelExplainer(
                self.expansion,
                background=R,
                background_weights=self.background_weights,
                feature_names=self.feature_names,
            )

    # -- construction helpers ---------------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        # the lock guards lazy construction within one process; a copy (pickle, a Dask worker)
        # gets a fresh one, so the explainer can be shipped to other processes
        state = self.__dict__.copy()
        state.pop("_lock", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def _check_params(self) -> None:
        if self.value not in _VALUES:
            raise ValueError(f"value must be one of {_VALUES}, got {self.value!r}.")
        _check_eta(self.cme_regularization)
        if self.approximation not in (None, "nystroem"):
            raise ValueError(f"approximation must be None or 'nystroem', got {self.approximation!r}.")
        for name in ("n_landmarks", "max_exact_features", "max_block_bytes"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, Integral) or v < 1:
                raise ValueError(f"{name} must be a positive integer, got {v!r}.")
        check_random_state(self.random_state)

    @staticmethod
    def _product_expansion(model: Any, feature_names: Sequence[str] | None) -> KernelExpansion | None:
        if isinstance(model, KernelExpansion):
            return model
        if isinstance(model, GPPosterior):
            return model.expansion()
        if hasattr(model, "to_kernel_expansion"):
            return model.to_kernel_expansion()
        try:
            em = as_kernel_expansion(model, feature_names=feature_names)
        except UnsupportedModelError:
            return None
        # a Matérn or rational quadratic kernel is a discretised sum of RBFs, with an error bound that
        # only ProductKernelExplainer reports: here it keeps the generic route on the model's own kernel
        return None if isinstance(em.kernel, ScaleMixtureKernel) else em

    def _choose_landmarks(self) -> np.ndarray | None:
        if self.approximation != "nystroem":
            return None
        return choose_landmarks(
            self.background.shape[0], self.n_landmarks, self.random_state, weights=self.background_weights
        )

    def _build_cme(self) -> ProductCME | GenericCME:
        eta = _check_eta(self.cme_regularization)
        R, w = self.background, self.background_weights
        if self.kind == "product":
            return ProductCME(self.expansion, R, eta, weights=w, landmarks=self._landmarks)
        return GenericCME(self._restricted(), R, self._outputs(R), eta, weights=w, landmarks=self._landmarks)

    def _observational(self) -> ProductCME | GenericCME:
        """The CME state; its per-coalition factors are dropped when ``cme_regularization`` changed."""
        with self._lock:
            if self._cme is None:
                self._cme = self._build_cme()
            else:
                self._cme.set_regularization(_check_eta(self.cme_regularization))
            return self._cme

    def _interventional_embedding(self) -> _ProductMeanEmbedding:
        with self._lock:
            if self._mean_embedding is None:
                assert self.expansion is not None
                self._mean_embedding = _ProductMeanEmbedding(self.expansion, self.background, self.background_weights)
            return self._mean_embedding

    def _system_size(self) -> int:
        """Size of the per-coalition linear systems: landmarks with Nystroem, else background rows."""
        return self.background.shape[0] if self._landmarks is None else int(self._landmarks.size)

    def _check_X(self, X: Any) -> np.ndarray:
        if self.expansion is not None:
            return np.asarray(self.expansion.check_input(X, name="X"))
        return np.asarray(check_data(X, name="X", n_features=self.n_features))

    # -- games --------------------------------------------------------------------------------------
    def value_function(self, X: Any) -> Game:
        """The game ``self.game`` at the rows of ``X``.

        Parameters
        ----------
        X : array-like of shape (N, d)

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
        >>> v = kx.RKHSExplainer(em, value="interventional").value_function(X[:3])
        >>> v(np.array([[True, True]])).shape
        (1, 3, 1)
        """
        return self._game_at(self._check_X(X))

    def _game_at(self, Xv: np.ndarray, n_jobs: int = 1) -> Game:
        if self.game == "observational":
            cme = self._observational()
            if isinstance(cme, ProductCME):
                return cme.game(Xv, n_jobs)
            return cme.game(Xv, self._outputs(Xv))
        if self.kind == "product":
            return self._interventional_embedding().game(Xv)
        assert self._predict is not None
        return _CallableInterventional(
            self._outputs, Xv, self.background, self.background_weights, self._rows_per_call()
        )

    def _rows_per_call(self) -> int:
        """Hybrid rows per model call: ``max_block_bytes`` over the bytes one row takes (its d
        features, the outputs and, for a kernel model, its kernel row against the training rows)."""
        est = _final_estimator(self.model)
        support = 0
        if self.kind == "kernel":
            for attr in ("X_fit_", "X_train_", "support_vectors_"):
                ref = getattr(est, attr, None)
                if ref is not None and hasattr(ref, "shape"):
                    support = int(ref.shape[0])
                    break
        n_out = self._n_outputs if self._n_outputs is not None else 1
        return max(1, int(self.max_block_bytes) // (8 * (self.n_features + n_out + support)))

    def _restricted(self) -> Callable[[np.ndarray], Any]:
        if self._kernel_on is not None:
            return self._kernel_on
        ls = np.atleast_1d(default_lengthscale(self.background))
        return lambda S_idx: RBF(lengthscale=ls[S_idx])

    def _outputs(self, X: np.ndarray) -> np.ndarray:
        assert self._predict is not None
        out = np.asarray(self._predict(X), dtype=np.float64)
        if out.ndim == 1:
            out = out[:, None]
        if out.ndim != 2 or out.shape[0] != X.shape[0]:
            raise ValueError(f"the model returned outputs of shape {out.shape} for {X.shape[0]} rows.")
        if not np.all(np.isfinite(out)):
            raise ValueError("the model returned NaN or infinite predictions.")
        return out

    # -- explanations -------------------------------------------------------------------------------
    def explain(
        self,
        X: Any,
        *,
        interactions: bool | str | None = False,
        progress: bool = False,
        n_jobs: int | None = None,
        random_state: Any = None,
        budget: int | None = None,
        tol: float | None = None,
        uncertainty: bool = False,
        joint: bool = False,
    ) -> Explanation:
        """Shapley values of each row of ``X`` in the game ``self.game``.

        Solves the game chosen at construction: ``value="observational"`` (default), estimated
        through conditional mean embeddings (Chau, Hu, Gonzalez & Sejdinovic, 2022, section 3),
        or ``value="interventional"``, exact.  When no background was given the expectations are
        taken over the model's training rows (see the class docstring).  A shap user gets shap's
        interventional values (shap's ExactExplainer with an independent masker on the same
        background rows) with ``RKHSExplainer(model, background, value="interventional")``; shap's
        sampling explainers (``KernelExplainer``, ``PermutationExplainer``) estimate those same
        interventional values.  The observational game (the default here) lets correlated
        features share the credit; ``kx.ProductKernelExplainer(model)`` with no background gives
        PKeX's functional game (see the documentation page "Which game should I use?").

        Parameters
        ----------
        X : array-like of shape (N, d) or DataFrame
        interactions : bool or {"sii", "stii"}
            Also compute pairwise interaction values in shap's layout (each row of the d x d
            matrix sums to the feature's Shapley value): True or "sii" the Shapley interaction
            index (shap's ``TreeExplainer`` convention), "stii" the Shapley-Taylor index of
            order 2 (shap's ``ExactExplainer``); ``info["interaction_index"]`` says which.
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
            always uses the sampled solver.
        tol : float, optional
            Early stop of the sampled solver once every standard error is below it.
        uncertainty : bool
            GP-SHAP (Chau, Muandet & Sejdinovic, NeurIPS 2023): for a Gaussian-process model
            (GaussianProcessRegressor, binary GaussianProcessClassifier, ``kx.models.GPPosterior``;
            see ``kx.models.gp_posterior``) and the observational game, the values are the
            posterior means and the Explanation gets ``covariance`` (N, d, d), ``base_variance``
            and ``prediction_variance``.  The covariance is the posterior uncertainty of f
            propagated exactly through the CME estimate of the game; it does NOT include the
            estimation error of the conditional mean embedding (the CME weights are taken as
            fixed), and a constant kernel part adds nothing to it (``kexplain.rkhs.gpshap``).
            Needs ``approximation=None`` and enumerated coalitions; the cost is
            O(3^d n^2 + 4^d n) per point (n background rows): about 1.6 s per point at d = 10,
            n = 100 on one core.  With ``value="interventional"`` the exact covariance of the
            interventional values comes from ``kx.ProductKernelExplainer(model, background)``
            (its ``explain(X, uncertainty=True)``; interactions then as that explainer allows).
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
        if self._engine is not None and budget is None:
            ex = self._engine.explain(X, interactions=interactions, progress=progress, n_jobs=n_jobs)
            ex.feature_names = names
            ex.game, ex.output, ex.index = self.game, self.output, index
            ex.info.update(solver="product-game engine")
            return ex
        sampled = budget is not None or d > self.max_exact_features
        seed: Any = None
        n_budget: Any = budget
        if sampled:
            if interactions:
                raise ValueError(
                    "interactions=True needs enumerated coalitions (d <= max_exact_features and budget=None) "
                    "or the exact product engine (a product-kernel model with value='interventional'); "
                    "the sampled solver estimates Shapley values only."
                )
            if budget is None:
                n_budget = max(1024, 64 * d)
            # every block draws the same coalitions: one seed, shared
            if isinstance(random_state, (Integral, np.integer)) and not isinstance(random_state, bool):
                seed = int(random_state)
            else:
                seed = int(check_random_state(random_state).integers(2**31 - 1))
            if tol is not None:
                n_jobs = 1
        coalition_jobs = 1
        if not sampled and self.game == "observational" and self.kind == "product" and n_jobs > 1:
            # threads over coalitions instead of rows: each coalition's CME factor is then built once
            # (row blocks would each build it); the values are the same
            coalition_jobs, n_jobs = n_jobs, 1
        N = Xv.shape[0]
        n_blocks = min(n_jobs, N) if n_jobs > 1 and N >= 2 else 1
        bar = None
        if progress:
            from tqdm.auto import tqdm

            per_block = int(n_budget) if sampled else 2**d
            bar = tqdm(total=per_block * n_blocks, desc="kexplain", unit="coalition")

        def block(rows: slice) -> Explanation:
            game = self._game_at(Xv[rows], coalition_jobs)
            if bar is not None:
                game = _Counted(game, bar)
            if sampled:
                res = sampled_shapley(game, d, n_budget, random_state=seed, tol=tol, batch_size=64)
            else:
                # one batch of all 2^d coalitions: the CME game then builds its kernel products once per
                # coalition and complement (ProductCMEGame.__call__)
                res = exact_shapley(game, d, interactions=interactions, batch_size=max(256, 2**d))
            return self._to_explanation(res, Xv[rows], names)

        try:
            with _blas_threads(self._system_size()):
                ex = explain_in_blocks(block, N, n_jobs)
        finally:
            if bar is not None:
                bar.close()
        ex.data, ex.index = Xv, index
        return ex

    def _explain_uncertain(
        self, Xv: np.ndarray, names: list[str], index: Any, interactions: Any, budget: Any, n_jobs: int, joint: bool
    ) -> Explanation:
        """GP-SHAP: posterior mean and covariance of the observational values (``kexplain.rkhs.gpshap``)."""
        from .gpshap import ObservationalGPSHAP

        if self.game != "observational":
            if self.kind != "product" or budget is not None:
                raise ValueError(
                    "uncertainty=True in the interventional game needs a Gaussian-process model with a product "
                    "kernel and the exact engine (no budget); see kx.ProductKernelExplainer."
                )
            # the interventional covariance is the product-kernel explainer's (one implementation)
            with self._lock:
                engine = getattr(self, "_uncertain_engine", None)
                if engine is None:
                    from ..explainers.product_kernel import ProductKernelExplainer

                    engine = self._uncertain_engine = ProductKernelExplainer(
                        self.model, self.background, background_weights=self.background_weights
                    )
            ex = engine.explain(Xv, interactions=interactions, n_jobs=n_jobs, uncertainty=True, joint=joint)
            ex.feature_names, ex.game, ex.index = names, self.game, index
            return ex
        if self._landmarks is not None:
            raise ValueError("uncertainty=True needs the exact CME (approximation=None).")
        if interactions or budget is not None or self.n_features > self.max_exact_features:
            raise ValueError(
                "uncertainty=True needs enumerated coalitions (d <= max_exact_features, no budget) and gives "
                "no interactions."
            )
        eta = _check_eta(self.cme_regularization)
        with self._lock:
            gs = getattr(self, "_gpshap", None)
            if gs is None:
                post = gp_posterior(self.model)  # a clear UnsupportedModelError for models without a posterior
                cme = ProductCME(post.expansion(), self.background, eta, weights=self.background_weights)
                gs = self._gpshap = ObservationalGPSHAP(post, cme)
            gs.cme.set_regularization(eta)
        post = gs.post
        em = gs.cme.em
        base = float(em.intercept[0] + gs.cme.mean_basis @ em.coef[:, 0])
        base_var = gs.base_variance()

        def block(rows: slice) -> Explanation:
            X = Xv[rows]
            mean, cov, bound = gs.moments_and_bound(X, joint=joint)
            pvar, pbound = post.variance_and_bound(X)
            ex = Explanation(
                values=mean,
                base_values=np.full(X.shape[0], base),
                data=X,
                feature_names=names,
                covariance=None if joint else cov,
                joint_covariance=cov if joint else None,
                base_variance=np.full(X.shape[0], base_var),
                prediction_variance=pvar,
                game=self.game,
                output=post.output,
                info={
                    "solver": "exact (GP-SHAP covariance)",
                    "cme_regularization": eta,
                    "approximation": None,
                    "v_full": em.predict(X),
                },
            )
            record_accuracy(ex, post, bound, pbound)
            return ex

        with _blas_threads(self._system_size()):
            ex = block(slice(0, Xv.shape[0])) if joint else explain_in_blocks(block, Xv.shape[0], n_jobs)
        ex.data, ex.index = Xv, index
        warn_accuracy(ex)
        return ex

    def _to_explanation(self, res: Any, Xv: np.ndarray, names: list[str]) -> Explanation:
        values = np.asarray(res.values)  # (N, d, o)
        base = np.asarray(res.v_empty)  # (N, o)
        se = res.standard_errors
        inter = None if res.interactions is None else np.asarray(res.interactions)  # shap's layout
        output_names = self.expansion.output_names if self.expansion is not None else None
        single = values.shape[2] == 1
        if single:
            values, base = values[:, :, 0], base[:, 0]
            se = None if se is None else se[:, :, 0]
            inter = None if inter is None else inter[..., 0]
        return Explanation(
            values=values,
            base_values=base,
            data=Xv,
            feature_names=names,
            output_names=output_names if not single or output_names else None,
            interactions=inter,
            standard_errors=se,
            game=self.game,
            output=self.output,
            info={
                "v_full": np.asarray(res.v_full),
                "solver": "exact" if se is None else "sampled",
                "interaction_index": getattr(res, "interaction_index", None),
                "cme_regularization": self.cme_regularization,
                "approximation": self.approximation,
            },
        )

    # -- choosing the CME regularisation ------------------------------------------------------------
    def select_cme_regularization(
        self,
        grid: Sequence[float] = (1e-5, 1e-4, 1e-3, 1e-2, 1e-1),
        n_folds: int = 3,
        n_coalitions: int = 8,
        max_rows: int = 500,
        random_state: Any = 0,
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
        >>> X = np.random.default_rng(0).normal(size=(30, 2))
        >>> ex = kx.RKHSExplainer(kx.KernelExpansion(X, np.ones(30), kx.kernels.RBF(1.0)))
        >>> ex.select_cme_regularization(grid=(1e-3, 1.0), n_coalitions=2)
        0.001
        """
        grid = [float(g) for g in grid]
        if not grid or any(not (np.isfinite(g) and g > 0) for g in grid):
            raise ValueError(f"grid must be a non-empty list of positive numbers, got {grid!r}.")
        if isinstance(n_folds, bool) or not isinstance(n_folds, Integral) or n_folds < 2:
            raise ValueError(f"n_folds must be an integer >= 2, got {n_folds!r}.")
        for name, v in (("n_coalitions", n_coalitions), ("max_rows", max_rows)):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, Integral) or v < 1:
                raise ValueError(f"{name} must be a positive integer, got {v!r}.")
        rng = check_random_state(random_state, "random_state")
        R = self.background
        if R.shape[0] > max_rows:
            R = R[rng.choice(R.shape[0], max_rows, replace=False)]
        d = self.n_features
        if d < 2:
            raise ValueError("the CME regularisation matters only with at least 2 features.")
        coals = []
        for _ in range(n_coalitions):
            s = rng.integers(1, d)
            S = np.zeros(d, dtype=bool)
            S[rng.choice(d, s, replace=False)] = True
            coals.append(S)
        cond, target = self._cv_kernels()
        with _blas_threads(R.shape[0]):
            scores = {
                g: cme_cv_loss(cond, target, R, g, coals, n_folds, check_random_state(random_state)) for g in grid
            }
        best = min(scores, key=lambda g: scores[g])
        self.cme_cv_scores_ = scores
        self.cme_regularization = best
        return best

    def _cv_kernels(self) -> tuple[Callable[[np.ndarray], Any], Callable[[np.ndarray], Any]]:
        d = self.n_features
        if self.kind == "product":
            assert self.expansion is not None
            terms, amps = self.expansion.terms, np.asarray(self.expansion.amplitudes)
            w = amps / amps.sum()

            def on(cols: np.ndarray) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
                def k(A: np.ndarray, B: np.ndarray) -> np.ndarray:
                    if cols.size == 0:
                        return np.ones((A.shape[0], B.shape[0]))
                    return sum(wt * np.prod(t.feature_values(A, B)[:, :, cols], axis=-1) for wt, t in zip(w, terms))

                return k

            return on, lambda S_idx: on(np.setdiff1d(np.arange(d), S_idx))
        restricted = self._restricted()
        full = np.arange(d)
        return (
            lambda S_idx: lambda A, B: restricted(S_idx)(A[:, S_idx], B[:, S_idx]),
            lambda S_idx: lambda A, B: restricted(full)(A, B),
        )

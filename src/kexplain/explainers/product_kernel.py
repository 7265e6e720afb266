"""ProductKernelExplainer: exact Shapley values of product-kernel models."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .._params import Integer, check_param
from .._typing import RandomStateLike
from .._validation import (
    check_bool,
    check_data,
    check_interactions,
    check_n_jobs,
    check_weights,
    feature_names_of,
    is_sparse,
    to_array,
    validate_n_jobs,
)
from ..base import Explainer, background_rows, check_explain_options, explain_in_blocks, row_index
from ..exceptions import UnsupportedModelError
from ..explanation import Explanation
from ..interaction_explanation import interaction_explanation
from ..kernels.mixture import ScaleMixtureKernel, check_kernel_tol
from ..models.dot_product import PolynomialExpansion, as_polynomial_expansion
from ..models.expansion import KernelExpansion
from ..models.posterior import GPPosterior, gp_posterior, record_accuracy, warn_accuracy
from ..models.sklearn import as_kernel_expansion, describe_output
from ..shapley.array_api import array_namespace, device_of, is_foreign_array, resolve_dtype, to_numpy
from ..shapley.higher_order import (
    InteractionTable,
    banzhaf_cheaper_than_subsets,
    banzhaf_interventional,
    check_interaction_spec,
    interactions_and_shapley_from_values,
    interactions_from_values,
    solve_product_interactions,
    table_from_dense,
)
from ..shapley.monomials import MonomialGame
from ..shapley.polynomial import solve_polynomial_game
from ..shapley.product import DEFAULT_BLOCK_BYTES, efficiency_error, solve_product_game
from ..shapley.quadrature import nodes_for_degree
from ..shapley.result import ShapleyValues
from ..shapley.routes import BACKGROUND_TABLE_BYTES, choose_route
from ..shapley.subsets import SubsetGame, compiled_available
from .mixture_range import MixtureRange, value_error_bound
from .polynomial_games import (
    PolynomialFunctionalGame,
    PolynomialInterventionalGame,
    centred,
    monomial_game,
    use_monomials,
)
from .posterior_games import PosteriorCovariance, summarize_background
from .product_games import (
    BackgroundFactors,
    FunctionalGame,
    InterventionalGame,
    present_factors,
    subset_game,
)
from .sparse_games import SparseProductGames, sparse_games, sparse_refusal
from .variance_games import PosteriorVarianceGame

#: block bound of the array API path (a torch or CuPy ``X``): devices want large blocks
DEVICE_BLOCK_BYTES = 512 * 2**20


#: the game name of the interventional game over a k-means summary of the background
SUMMARISED_GAME = "interventional (summarised background)"
#: the game of explain(X, target="variance") for each game of the mean
VARIANCE_GAMES = {
    "interventional": "posterior variance (interventional)",
    "baseline": "posterior variance (baseline)",
    SUMMARISED_GAME: "posterior variance (summarised background)",
}


class ProductKernelExplainer(Explainer):
    """Exact Shapley values of a model whose kernel is a product over features.

    Every game is solved exactly in polynomial time (O(d^2) per explained point, expansion row
    and background row instead of 2^d model calls), following PKeX-Shapley (Mohammadi, Chau &
    Muandet, 2025, sections 3.1-3.2).  The game is decided by what is given here:

    - neither ``background`` nor ``baseline`` (the default): PKeX's **functional baseline**,
      absent features are integrated out of the kernel (k_j = 1); the base value is the sum of
      the coefficients times the kernel's amplitude, plus the intercept (``game="functional"``);
    - ``background=B``: **interventional** SHAP, v(S) = E_z f(x_S, z_not S) over the (weighted)
      rows of B; the base value is the mean prediction over B (``game="interventional"``).  These
      are the values shap's ``ExactExplainer`` gives with an independent masker on the same rows
      (``shap.maskers.Independent(B, max_samples=len(B))``): a shap user who wants shap's
      interventional values passes ``background=B``;
    - ``baseline=z``: **baseline** Shapley against one reference row z; the base value is f(z)
      (``game="baseline"``).

    Everything that depends only on the model and the background is built here, once, and
    reused by every ``explain`` call: the per-feature kernel factors of the support points
    against the background rows and, for few features and many background rows, the table of
    absent-set values of the subset route (``kexplain.shapley.subsets``).  A cost model
    (:func:`~kexplain.shapley.routes.choose_route`) picks the cheaper exact route.
    These tables are kept when they take at most
    ``kexplain.shapley.routes.BACKGROUND_TABLE_BYTES`` (256 MiB); larger background
    factors are recomputed block by block, and the subset route is then not used.

    Parameters
    ----------
    model : fitted scikit-learn estimator, Pipeline, or kx.KernelExpansion
        See ``kx.models.SUPPORTED_MODELS``; anything else raises ``kx.UnsupportedModelError``.
    background : array-like, DataFrame or scipy sparse matrix of shape (n_background, d), optional
        Rows over which absent features are averaged (interventional game).  A sparse matrix is
        kept sparse and makes every ``explain`` call take the sparse route (see ``explain``).
    background_weights : array-like of shape (n_background,), optional
        Non-negative weights of the background rows (normalised to sum to one).
    baseline : array-like or scipy sparse matrix of shape (d,) or (1, d), optional
        One reference row (baseline game).  Not together with ``background``.
    feature_names : sequence of str, optional
        Labels of the features; defaults to the model's ``feature_names_in_``, else the columns
        of the explained (or background) DataFrame.
    max_block_bytes : int
        Bound on the largest temporary array of the solver (memory per block), at least 65536.
    background_summary : int, optional
        Replace the background by this many k-means centres weighted by the (weighted) number of
        rows they hold (:func:`~kexplain.explainers.posterior_games.summarize_background`); the
        values and their covariance are then exact for the game on the summarised background.
        The covariance (``explain(X, uncertainty=True)``) costs about B^2 d^4 / 4 operations per
        point for B background rows, so summarising a large background is what makes it cheap.  Rows
        with given weights: pass them with ``background_weights`` instead.  The summarised game
        is another game: ``game`` is then "interventional (summarised background)", the centres
        and weights are ``summary_centres`` and ``summary_weights`` (and
        ``info["background_summary"]`` of every explanation), and the repr says so.
    kernel_tol : float, optional
        For Matérn and rational quadratic kernels (a
        :class:`~kexplain.kernels.ScaleMixtureKernel`): the uniform kernel error allowed, relative
        to the kernel's amplitude, in (0, 1); default 1e-12.  A looser tolerance needs fewer RBF
        terms (faster); ``explain`` reports the resulting bound as ``Explanation.kernel_error_bound``.

    Attributes
    ----------
    game : str
        "functional", "interventional", "baseline", or "interventional (summarised background)"
        with ``background_summary`` smaller than the background.
    summary_centres, summary_weights : ndarray or None
        With ``background_summary``: the k-means centres (k, d) and their weights (k,) the game
        was solved over; None otherwise.
    output : str
        The explained model output, e.g. "predict of SVR".
    expected_value : float or ndarray of shape (n_outputs,)
        The base value of the game (the value of the empty coalition, intercept included).
    expansion : KernelExpansion
        The model written as a kernel expansion.
    route : str
        "quadrature" or "subsets" (the exact route of the interventional and baseline games;
        "quadrature" for the functional game); "polynomial" or "monomials" for linear and
        polynomial kernels; "sparse" with a scipy sparse background or baseline.

    Notes
    -----
    Linear and polynomial kernels (``kernel="linear"``, ``"poly"``, GP ``DotProduct`` and its integer
    powers, KernelRidge's ``additive_chi2``) are not products over features; their models are
    explained exactly through :mod:`kexplain.shapley.polynomial` (each coalition value is a
    polynomial of a sum of per-feature terms) or, for small degrees, :mod:`kexplain.shapley.monomials`
    (the model multiplied out into monomials); ``route`` is then "polynomial" or "monomials".
    KernelRidge's ``chi2`` kernel is a product kernel (:class:`kexplain.kernels.Chi2`).

    Stochastic Shapley values: for a Gaussian-process model (a GaussianProcessRegressor, a
    binary GaussianProcessClassifier, or a :class:`kexplain.models.GPPosterior`) the values are
    those of the posterior mean, and ``explain(X, uncertainty=True)`` also gives their exact
    posterior covariance (Chau, Muandet & Sejdinovic, 2023, treat Shapley values of a GP as
    Gaussian; here the covariance of the interventional and baseline games is exact, see
    ``kexplain.shapley.stochastic``).

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from sklearn.svm import SVR
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(30, 3))
    >>> model = SVR().fit(X, X[:, 0] - X[:, 1] * X[:, 2])
    >>> explainer = kx.ProductKernelExplainer(model, background=X[:10])
    >>> explainer.game, explainer.output
    ('interventional', 'predict of SVR')
    >>> ex = explainer.explain(X[:2])
    >>> bool(np.allclose(ex.base_values + ex.values.sum(axis=1), model.predict(X[:2])))
    True
    >>> print(f"{explainer.expected_value:.3f}")
    0.059
    """

    summary_centres: np.ndarray | None = None
    summary_weights: np.ndarray | None = None
    expected_value: float | np.ndarray
    _summary_note = ""

    def __init__(
        self,
        model: Any,
        background: Any = None,
        *,
        background_weights: Any = None,
        baseline: Any = None,
        feature_names: Sequence[str] | None = None,
        max_block_bytes: int = DEFAULT_BLOCK_BYTES,
        background_summary: int | None = None,
        kernel_tol: float | None = None,
    ) -> None:
        background = background_rows(background)  # a shap Independent masker gives its rows
        self.kernel_tol = check_kernel_tol(kernel_tol)
        # the expansion keeps the model's own column names (feature_names_in_) for validating
        # DataFrames; ``feature_names`` only labels the explanation
        # linear, polynomial, DotProduct and additive chi-squared kernels: the polynomial route
        poly = None if isinstance(model, GPPosterior) else as_polynomial_expansion(model)
        em: KernelExpansion | PolynomialExpansion = (
            model.expansion() if isinstance(model, GPPosterior) else poly or as_kernel_expansion(model)
        )
        if feature_names is not None:
            if isinstance(feature_names, str) or not hasattr(feature_names, "__len__"):
                raise ValueError(f"feature_names must be a list of {em.n_features} names, got {feature_names!r}.")
            if len(feature_names) != em.n_features:
                raise ValueError(f"feature_names has {len(feature_names)} names for {em.n_features} features.")
        super().__init__(model, background, background_weights=background_weights, feature_names=feature_names)
        max_block_bytes = check_param(max_block_bytes, "max_block_bytes", Integer(2**16))
        if background is not None and baseline is not None:
            raise ValueError("give either background (interventional game) or baseline (one reference row), not both.")
        if background_weights is not None and background is None:
            raise ValueError("background_weights needs a background.")
        self.expansion: KernelExpansion | PolynomialExpansion = em
        self.baseline = baseline
        self.max_block_bytes = int(max_block_bytes)
        self.output = model.output if isinstance(model, GPPosterior) else describe_output(model)
        if self.feature_names is None and em.feature_names is not None:
            self.feature_names = [str(n) for n in em.feature_names]
        # a model fitted without column names still needs explained columns that match the
        # background's, when the background is a DataFrame
        self._columns = em.feature_names if em.feature_names is not None else feature_names_of(background)
        self._background_factors: BackgroundFactors | None = None
        self._subset_game: SubsetGame | None = None
        self._monomial_game: MonomialGame | None = None
        self.route = "quadrature"
        Z: np.ndarray | None = None
        #: the sparse games, built once; a sparse background or baseline is kept sparse (CSR) in them
        self._sparse_games: SparseProductGames | None = None
        self._sparse_argument = ""
        if is_sparse(background) or is_sparse(baseline):
            self._init_sparse(background, background_weights, baseline, background_summary)
            return
        if background is not None:
            if not (
                hasattr(background, "columns")
                or (hasattr(background, "nnz") and hasattr(background, "toarray"))
                or to_array(background, "background").ndim == 2
            ):
                raise ValueError(
                    "background must be a 2-D array or DataFrame of rows (n_rows, n_features), got shape "
                    f"{np.shape(background)}."
                )
            Z = em.check_input(background, name="background", feature_names=self._columns)
            w = (
                np.full(Z.shape[0], 1.0 / Z.shape[0])
                if background_weights is None
                else check_weights(background_weights, Z.shape[0])
            )
            self.game = "interventional"
            if background_summary is not None:
                n_rows = Z.shape[0]
                Z, w = summarize_background(Z, w, background_summary)
                if Z.shape[0] < n_rows:
                    # a different game: say so in its name, and keep what it was solved over
                    self.game = SUMMARISED_GAME
                    self.summary_centres, self.summary_weights = Z, w
                    self._summary_note = f" summarised by {Z.shape[0]} k-means centres"
        elif baseline is not None:
            if hasattr(baseline, "columns") and len(baseline) == 1:
                z = baseline
            else:
                z = to_array(baseline, "baseline")
                if z.ndim == 1:
                    z = z[None, :]
                if z.ndim != 2 or z.shape[0] != 1:
                    raise ValueError(
                        f"baseline must be one row of shape (d,) or (1, d), got shape {np.shape(baseline)}."
                    )
            Z = em.check_input(z, name="baseline", feature_names=self._columns)
            w = np.ones(1)
            self.game = "baseline"
        else:
            self.game = "functional"
        if background_summary is not None and self.game not in ("interventional", SUMMARISED_GAME):
            raise ValueError("background_summary summarises a background: give background= too.")
        self._covariance: PosteriorCovariance | None = None
        # a Matérn or rational quadratic kernel: discretise it for the box of the support points
        # and the background (widened by explain when explained points fall outside)
        self._mixture: MixtureRange | None = None
        if isinstance(em.kernel, ScaleMixtureKernel):
            self._mixture = MixtureRange(self.kernel_tol, em.X_ref if Z is None else np.vstack([em.X_ref, Z]))
            self.expansion = em = self._mixture.refit_expansion(em)
        self._Z, self._w = Z, (w if Z is not None else None)
        self._build_tables()

    def _init_sparse(self, background: Any, weights: Any, baseline: Any, summary: Any) -> None:
        """A scipy sparse background (or baseline): kept in CSR, every table and value sparse."""
        arg = "background" if background is not None else "baseline"
        self._sparse_argument = arg
        em = self.expansion
        self._covariance, self._mixture, self._Z = None, None, None
        self._background_factors, self._subset_game, self._monomial_game = None, None, None
        if summary is not None:
            raise sparse_refusal(arg, "background_summary (k-means centres) needs dense rows")
        Zs = check_data(background if background is not None else baseline, name=arg, sparse="keep")
        self.game, w = "interventional", None
        if background is None:
            if Zs.shape[0] != 1:
                raise ValueError(f"baseline must be one row of shape (d,) or (1, d), got shape {Zs.shape}.")
            self.game, w = "baseline", np.ones(1)
        elif weights is not None:
            w = check_weights(weights, Zs.shape[0])
        else:
            w = np.full(Zs.shape[0], 1.0 / Zs.shape[0])
        self._sparse_games = sparse_games(em, arg, Zs, w, max_block_bytes=self.max_block_bytes)
        self.route = "sparse"
        self._w = w
        base = w @ self._sparse_games.predict(Zs) + em.intercept
        self.expected_value = float(base[0]) if em.single_output else base

    def _build_tables(self) -> None:
        """The background tables of the chosen route and the base value (from ``self.expansion``)."""
        em, Z, w = self.expansion, self._Z, self._w
        assert (Z is None) == (w is None)
        self._background_factors = None
        self._subset_game = None
        self._covariance = None
        self._monomial_game = None
        if Z is not None and w is not None:
            if isinstance(em, PolynomialExpansion):
                self.route = "polynomial"
                if use_monomials(em, Z.shape[0]):
                    self.route, self._monomial_game = "monomials", monomial_game(em, Z, w)
            elif em.n_rows:
                self.route = choose_route(
                    em.n_features,
                    em.n_rows,
                    Z.shape[0],
                    em.n_outputs,
                    max_block_bytes=self.max_block_bytes,
                    compiled=compiled_available(),
                )
                if self.route == "subsets":
                    self._subset_game = subset_game(em, Z, w, max_block_bytes=self.max_block_bytes)
                else:
                    self._background_factors = BackgroundFactors(em, Z, w)
            base = w @ em.predict(Z, validate=False).reshape(Z.shape[0], -1)
        elif isinstance(em, PolynomialExpansion):
            self.route = "polynomial"
            if use_monomials(em, 1):
                # the functional game of a dot-product kernel: absent features at the kernel's centre
                centre = np.broadcast_to(em.kernel.center, (1, em.n_features))
                self.route, self._monomial_game = "monomials", monomial_game(em, centre, np.ones(1))
            base = em.functional_base()
        else:
            base = em.term_weights.sum(axis=0) * em.coef.sum(axis=0) + em.intercept
        base = np.asarray(base, dtype=np.float64).reshape(em.n_outputs)
        self.expected_value = float(base[0]) if em.single_output else base

    @property
    def n_features(self) -> int:
        """Number of features of the model."""
        return int(self.expansion.n_features)

    def __repr__(self) -> str:
        """The model, the background (and its summary) and the game.

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> em = kx.KernelExpansion(np.zeros((1, 1)), [1.0], kx.kernels.RBF(1.0))
        >>> Z = np.array([[0.0], [0.1], [5.0], [5.1]])
        >>> kx.ProductKernelExplainer(em, background=Z, background_summary=2)
        ProductKernelExplainer(KernelExpansion, background of 4 rows summarised by 2 k-means centres, \
game='interventional (summarised background)')
        """
        bg = "" if self.background is None else f", background of {np.shape(self.background)[0]} rows"
        return f"{type(self).__name__}({type(self.model).__name__}{bg}{self._summary_note}, game={self.game!r})"

    def predict(self, X: Any) -> np.ndarray:
        """The explained output of the model at ``X``, computed from its kernel expansion.

        Parameters
        ----------
        X : array-like or DataFrame of shape (N, d)
            Rows.

        Returns
        -------
        ndarray of shape (N,) or (N, n_outputs)
            The model's explained output at every row (one column per output for several).

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> em = kx.KernelExpansion(np.zeros((1, 2)), [2.0], kx.kernels.RBF(1.0), intercept=0.5)
        >>> kx.ProductKernelExplainer(em).predict(np.zeros((1, 2)))
        array([2.5])
        """
        return self.expansion.predict(X)

    def product_game(self, Xv: np.ndarray) -> FunctionalGame | InterventionalGame:
        """The product game whose Shapley values explain the validated rows ``Xv``.

        The functional game, or the interventional (baseline) game over the explainer's
        background; a model that is not a product-kernel expansion has no such game.  This is
        what :class:`kexplain.shapiq_games.ProductShapiqGame` hands to shapiq.

        Parameters
        ----------
        Xv : ndarray of shape (N, d)
            Rows already validated (``explainer.expansion.check_input``).

        Returns
        -------
        FunctionalGame or InterventionalGame
            The game, with its per-row tables.

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> em = kx.KernelExpansion(np.zeros((1, 2)), [2.0], kx.kernels.RBF(1.0))
        >>> ex = kx.ProductKernelExplainer(em, background=np.ones((3, 2)))
        >>> game = ex.product_game(np.zeros((1, 2)))
        >>> type(game).__name__, game.n_rows
        ('InterventionalGame', 3)
        """
        em = self.expansion
        if self._sparse_argument:
            raise sparse_refusal(self._sparse_argument, "product_game gives dense blocks")
        if not isinstance(em, KernelExpansion):
            raise TypeError(
                "product_game needs a product-kernel model; a linear or polynomial kernel model is not one."
            )
        if self.game == "functional":
            return FunctionalGame(em, Xv)
        assert self._Z is not None and self._w is not None  # interventional or baseline game
        return InterventionalGame(em, Xv, self._background_factors or BackgroundFactors(em, self._Z, self._w))

    def player_names(self, X: Any) -> list[str]:
        """The names the explanations of ``X`` give its features.

        The explicit ``feature_names``, else the columns of a DataFrame ``X`` (or of the
        DataFrame the explainer was built on), else ``x0, x1, ...``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (N, d)
            Rows (only their columns are read).

        Returns
        -------
        list of str
            One name per feature.

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> em = kx.KernelExpansion(np.zeros((1, 2)), [2.0], kx.kernels.RBF(1.0))
        >>> kx.ProductKernelExplainer(em).player_names(np.zeros((1, 2)))
        ['x0', 'x1']
        """
        return self._names(X, self.expansion.n_features)

    def _names(self, X: Any, d: int) -> list[str]:
        return list(self._label_names(X))

    def _label_names(self, X: Any) -> Sequence[str]:
        """The feature names of the explanations of ``X`` (``player_names``), not copied: the
        names that do not depend on ``X`` are built once (an Explanation copies them)."""
        if self.feature_names is not None:
            return self.feature_names
        names = feature_names_of(X)
        if names is not None:
            return names
        fixed = self.__dict__.get("_fixed_names")
        if fixed is None:
            cols = self._columns
            d = self.expansion.n_features
            fixed = self._fixed_names = (
                tuple(str(c) for c in cols) if cols is not None else tuple(f"x{j}" for j in range(d))
            )
        return fixed

    def explain(
        self,
        X: Any,
        *,
        interactions: bool | str | Mapping[str, Any] | None = False,
        progress: bool = False,
        n_jobs: int | None = None,
        random_state: RandomStateLike = None,
        dtype: str | None = None,
        uncertainty: bool = False,
        joint: bool = False,
        noisy: bool = False,
        target: str = "mean",
    ) -> Explanation:
        """Exact Shapley values of each row of ``X`` for the game chosen at construction.

        The game is ``self.game``: with no background (the default) the functional baseline of
        PKeX (Mohammadi, Chau & Muandet, 2025, section 3.1); with ``background=B`` at
        construction the interventional game over the rows of B, the values shap's
        ``ExactExplainer`` gives with ``shap.maskers.Independent(B, max_samples=len(B))`` (a shap
        user who wants shap's interventional values builds the explainer with ``background=B``);
        with ``baseline=z`` baseline Shapley against z.  The background tables built at
        construction are reused by every call.

        Which game?  The default (no background) is not shap's game: its base value is the sum of
        the coefficients, not a prediction, and rankings can differ sharply (on the README's
        diabetes SVR, ``age`` ranks 3rd of 10 there and 8th in the interventional game).  shap's
        ``KernelExplainer``, ``PermutationExplainer`` and ``SamplingExplainer`` on a background B
        estimate the interventional values this explainer computes exactly with ``background=B``;
        ``kx.RKHSExplainer`` gives the observational game (features share credit with the ones
        they are correlated with).  See the documentation page "Which game should I use?".

        Parameters
        ----------
        X : array-like, DataFrame or scipy sparse matrix of shape (N, d)
            Rows to explain; a DataFrame's index is kept by ``Explanation.to_frame``.  A scipy
            sparse matrix (CSR; other formats are converted) takes the sparse route: the
            functional, baseline and interventional games of product kernels with work that
            follows the non-zeros of X, the support points and the background, values equal to
            the dense path's (``info["route"] == "sparse"``; module
            ``kexplain.explainers.sparse_games``).  What has no sparse path (interactions,
            uncertainty, ``target="variance"``, float32 or device arrays, polynomial and Matérn
            kernels) raises a TypeError saying to densify: ``X.toarray()``.
        interactions : bool or {"sii", "stii"}
            Also compute pairwise interaction values (every game supports them).  True or "sii":
            the Shapley interaction index, in shap's ``TreeExplainer`` layout (half the index off
            the diagonal, the main effect on it); "stii": the Shapley-Taylor index of order 2,
            as shap's ``ExactExplainer(...)(X, interactions=True)`` gives it.  Each row of the
            d x d matrix sums to the feature's Shapley value; ``interaction_index``
            records the index.  A mapping ``{"index": "k-SII" | "SII" | "STII" | "FSII" | "BII" |
            "BV" | "Moebius" | "SV", "max_order": k, "top_k": n, "threshold": x}`` asks for an index
            of any order, exactly, and returns a :class:`kexplain.InteractionExplanation` (see
            the documentation page "Interactions"); ``top_k`` / ``threshold`` keep only the
            largest values of each order per point.
        progress : bool
            Show a progress bar over points.
        n_jobs : int, optional
            Threads over blocks of rows (None or 1: one; -1: all cores).  The values do not
            depend on it.
        random_state : None, int or numpy Generator
            Accepted for the shared contract; it has no effect (the values are exact).
        dtype : {None, "float64", "float32"}
            Precision of the engine; None means float64.  float32 is opt-in (faster on GPUs,
            agreeing with float64 to about 1e-5 of the largest value); the efficiency error
            is reported in ``efficiency_error`` whatever the dtype.
        uncertainty : bool
            For a Gaussian-process model: also the exact posterior covariance of each point's
            values, ``covariance`` (N, d, d), with ``base_variance`` and ``prediction_variance``
            (single output; interventional and baseline games; numpy float64 only).  The
            values are jointly Gaussian with mean ``values``; efficiency holds in distribution:
            the covariance of their sum is the posterior variance of f(x) minus the background
            mean.  ``ex.std`` and ``ex.interval(0.95)`` give credible intervals.  Cost per point:
            about B^2 d^4 / 4 operations for B background rows (see ``background_summary``);
            0.03 s at d = 10 and 0.6 s at d = 50 on one core for B = 50, n = 300.
            The functional game has no stochastic version here: PKeX's functional baseline
            integrates absent features against the constant function 1, which is not in the RKHS
            of an RBF (or Laplacian, Cauchy) kernel, so the plug-in "covariance" is not positive
            semi-definite; it would be valid for kernels whose factors contain constants
            (1 + theta * k_j: the functional-ANOVA game), which kexplain's kernels cannot
            express.  Such a request raises a ValueError.
        joint : bool
            With ``uncertainty``: also ``joint_covariance`` (N, d, N, d) between the values of
            all pairs of points (N^2 times the per-point cost; computed in one thread).
        noisy : bool
            With ``uncertainty``: explain the noisy observation y = f + noise (the model's
            ``noise_variance``: a WhiteKernel and scalar ``alpha`` of a GaussianProcessRegressor)
            rather than the latent f; the values' means do not change, their covariance grows.
            With ``target="variance"``: add the noise variance to the explained variance (a
            constant: it moves the base value and the prediction, not the values).
        target : {"mean", "variance"}
            "mean" (default): the model's output (a GP's posterior mean).  "variance" (Gaussian
            processes, interventional and baseline games): the exact Shapley values of the
            posterior predictive variance sigma^2(x) of the latent f, v(S) = E_z sigma^2(x_S,
            z_{-S}); the base value is the background mean of sigma^2 and the values sum to
            sigma^2(x) minus it (``kexplain.explainers.variance_games``).  Cost per point about
            B n^2 d^2 / 2 operations for n training rows and B background rows.

        Returns
        -------
        Explanation
            ``values`` (N, d) or (N, d, n_outputs), ``base_values``, ``game``, ``output``,
            ``interactions`` when asked, ``v_full`` (the model output at each point),
            ``info["route"]`` and ``efficiency_error`` (the largest
            ``|sum_j phi_j - (f(x) - base value)|`` relative to ``max(|f(x)|, |base value|)``);
            ``kernel_error_bound`` and ``info["kernel_error"]``, ``info["mixture_terms"]`` for a
            scale-mixture kernel.

        Notes
        -----
        GPU / array API path: when ``X`` is a PyTorch tensor (CPU or CUDA), a CuPy array or any
        other array API array, the product-game engine runs in that namespace on ``X``'s device
        (kernel factors of the explained rows are computed on the host and moved there, the
        background's factors once per device), through the quadrature route, with blocks of up
        to ``max(max_block_bytes, DEVICE_BLOCK_BYTES)`` (512 MiB).  The Explanation holds numpy
        arrays (``data`` is ``X`` copied to the host); ``info["device"]`` names the device.  The
        same path runs for numpy ``X`` with ``dtype="float32"``.  It needs ``array_api_compat``.

        Matérn and rational quadratic kernels (any game, interactions and ``uncertainty``): the
        kernel is a positive sum of RBF kernels within a uniform error eps measured on the range of
        the data (support points, background and ``X``; see
        :class:`~kexplain.kernels.ScaleMixtureKernel`).  The values are the exact Shapley values of
        that sum, itself a valid kernel model within ``eps sum_i |c_i|`` of the model everywhere on the
        data's range, and ``ex.kernel_error_bound`` = ``2 eps sum_i |c_i|`` bounds their distance to
        the values of the model's own kernel (``info["interaction_error_bound"]`` bounds each
        interaction entry off the diagonal, and d times it each entry on the diagonal).  The
        posterior covariance of ``uncertainty=True`` uses the same sum for the prior and the data
        terms.

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> em = kx.KernelExpansion(np.zeros((1, 2)), [1.0], kx.kernels.RBF(1.0))
        >>> ex = kx.ProductKernelExplainer(em).explain(np.ones((1, 2)), interactions=True)
        >>> ex.game, np.round(ex.values, 3)
        ('functional', array([[-0.316, -0.316]]))
        >>> np.round(ex.interactions[0], 3)
        array([[-0.393,  0.077],
               [ 0.077, -0.393]])

        Stochastic Shapley values of a Gaussian process: the values with their posterior covariance.

        >>> from sklearn.gaussian_process import GaussianProcessRegressor
        >>> X = np.random.default_rng(0).normal(size=(20, 3))
        >>> gpr = GaussianProcessRegressor(alpha=0.01).fit(X, X[:, 0] - X[:, 1])
        >>> ex = kx.ProductKernelExplainer(gpr, background=X[:5]).explain(X[:2], uncertainty=True)
        >>> ex.covariance.shape, ex.std.shape
        ((2, 3, 3), (2, 3))
        >>> lower, upper = ex.interval(0.95)
        >>> np.round(ex.std[0], 3)
        array([0.02 , 0.005, 0.028])

        Where the uncertainty comes from: Shapley values of the posterior variance.

        >>> ex = kx.ProductKernelExplainer(gpr, background=X[:5]).explain(X[:2] + 3, target="variance")
        >>> std = gpr.predict(X[:2] + 3, return_std=True)[1]
        >>> ex.output, bool(np.allclose(ex.base_values + ex.values.sum(axis=1), std**2))
        ('posterior variance of latent f of GaussianProcessRegressor', True)
        """
        if is_sparse(X) or self._sparse_argument:
            return self._explain_sparse(X, interactions, progress, n_jobs, dtype, uncertainty, joint, noisy, target)
        if isinstance(interactions, Mapping):
            if uncertainty or dtype not in (None, "float64") or is_foreign_array(X) or target != "mean":
                raise ValueError(
                    "interactions={...} (any order) runs in numpy float64 without uncertainty, for the mean: pass a "
                    "numpy X, dtype=None, uncertainty=False and target='mean'."
                )
            if not isinstance(self.expansion, KernelExpansion):
                raise ValueError(
                    "interactions={...} (any order) needs a product-kernel model; for a linear or polynomial kernel "
                    "use interactions=True ('sii') or 'stii' (pairwise, exact)."
                )
            return self._explain_any_order(X, interactions, progress=progress, n_jobs=n_jobs)
        if target != "mean":
            interactions, progress, n_jobs = check_explain_options(interactions, progress, n_jobs)
            resolve_dtype(np, dtype)
            return self._explain_variance(X, target, interactions, progress, n_jobs, dtype, uncertainty, joint, noisy)
        # n_jobs is checked here and resolved (a lookup of joblib's active backend, as long as a
        # small call's bookkeeping) only when there is more than one row to share out
        interactions = check_interactions(interactions)
        progress, n_jobs_given = check_bool(progress, "progress"), validate_n_jobs(n_jobs)
        resolve_dtype(np, dtype)
        em = self.expansion
        xp, device = None, None
        if is_foreign_array(X):
            xp, device = array_namespace(X), device_of(X)
            X = to_numpy(X)
        array_path = xp is not None or dtype not in (None, "float64")
        if isinstance(em, PolynomialExpansion) and (array_path or uncertainty):
            raise ValueError(
                "a linear, polynomial or chi-squared kernel model is explained in numpy float64 only (its exact "
                "polynomial route has no array API path and no posterior covariance): pass a numpy X, dtype=None "
                "and uncertainty=False."
            )
        cov_solver = self._covariance_solver(uncertainty, joint, noisy, array_path)
        Xv = self._check_X(X)
        if self._mixture is not None and self._mixture.grow(Xv):
            # explained points outside the box: a wider range needs the mixture refitted
            assert isinstance(em, KernelExpansion)
            self.expansion = em = self._mixture.refit_expansion(em)
            self._build_tables()
            cov_solver = self._covariance_solver(uncertainty, joint, noisy, array_path)
        n_jobs = check_n_jobs(n_jobs_given) if Xv.shape[0] > 1 or progress else 1
        names = self._label_names(X)
        index = row_index(X)
        route = "quadrature" if array_path else self.route
        made: list[Explanation] = []

        def run(rows: slice) -> Explanation:
            Xr = Xv if rows.start == 0 and rows.stop >= Xv.shape[0] else Xv[rows]
            res = self._solve(Xr, interactions, progress and n_jobs <= 1, xp=xp, device=device, dtype=dtype)
            ex = self._to_explanation(res, Xr, names, None if index is None else index[rows], route=route)
            if xp is not None:
                ex.info["device"] = str(device)
            if cov_solver is not None and not joint:
                self._add_uncertainty(ex, cov_solver, Xr, noisy, joint=False)
            made.append(ex)
            return ex

        ex = explain_in_blocks(run, Xv.shape[0], n_jobs)
        if cov_solver is not None and joint:
            self._add_uncertainty(ex, cov_solver, Xv, noisy, joint=True)
        if cov_solver is not None:
            warn_accuracy(ex)
        if len(made) != 1 or ex is not made[0]:
            # blocks stacked (threads or a block runner): the largest gap over all the rows
            values, v_full = np.asarray(ex.values), np.asarray(ex.v_full)
            if em.single_output:
                values, v_full = values[:, :, None], v_full
            v_full = v_full.reshape(values.shape[0], -1)
            ex.efficiency_error = efficiency_error(values, v_full, np.asarray(ex.base_values).reshape(v_full.shape))
        if self._mixture is not None:
            kernel = em.kernel
            assert isinstance(kernel, ScaleMixtureKernel) and isinstance(em, KernelExpansion)
            ex.kernel_error_bound = value_error_bound(em)
            ex.info["kernel_error"] = kernel.error
            ex.info["mixture_terms"] = kernel.n_mixture_terms
            if interactions:
                ex.info["interaction_error_bound"] = ex.kernel_error_bound
        return ex

    def _check_X(self, X: Any) -> np.ndarray:
        """``self.expansion.check_input(X, name="X", feature_names=self._columns)``, with the
        expansion's numeric mask read once: all numeric is passed as None, which ``check_data``
        reads the same way, so that a float64 array takes its fast path."""
        em = self.expansion
        if not isinstance(em, KernelExpansion):
            return em.check_input(X, name="X", feature_names=self._columns)
        mask = em.numeric_mask
        cached = self.__dict__.get("_numeric_mask_of")
        if cached is None or cached[0] is not mask:
            cached = self._numeric_mask_of = (mask, None if mask is None or bool(np.all(mask)) else mask)
        return check_data(X, name="X", n_features=em.n_features, numeric_mask=cached[1], feature_names=self._columns)

    def _explain_sparse(self, X: Any, interactions: Any, progress: Any, n_jobs: Any, *options: Any) -> Explanation:
        """``explain`` with a scipy sparse X or background: the sparse games (``sparse_games``), no densifying."""
        arg = "X" if is_sparse(X) else self._sparse_argument
        dtype, uncertainty, joint, noisy, target = options
        asked = [
            (interactions is not None and interactions is not False, f"interactions={interactions!r} needs dense rows"),
            (uncertainty or joint or noisy, "uncertainty=True (joint, noisy) needs dense rows"),
            (dtype not in (None, "float64") or is_foreign_array(X), "the array API path needs dense rows"),
            (target != "mean", f"target={target!r} needs dense rows"),
        ]
        for bad, reason in asked:
            if bad:
                raise sparse_refusal(arg, reason)
        _, progress, n_jobs = check_explain_options(False, progress, n_jobs)
        games = self._sparse_games
        if games is None:  # a dense (or no) background and a sparse X: the dense background as CSR
            Zs = None if self._Z is None else check_data(_csr(self._Z), name="background", sparse="keep")
            games = self._sparse_games = sparse_games(
                self.expansion, arg, Zs, self._w, max_block_bytes=self.max_block_bytes
            )
        em = self.expansion
        Xs: Any = check_data(
            X if is_sparse(X) else _csr(em.check_input(X)), name="X", n_features=em.n_features, sparse="keep"
        )
        names = self._names(X, em.n_features)

        def run(rows: slice) -> Explanation:
            Xr = Xs[rows]
            ex = self._to_explanation(games.solve(Xr), Xr.toarray(), names, None)
            ex.info["route"] = "sparse"
            return ex

        ex = explain_in_blocks(run, Xs.shape[0], n_jobs)
        values = np.asarray(ex.values).reshape(Xs.shape[0], em.n_features, -1)
        v_full = np.asarray(ex.v_full).reshape(values.shape[0], -1)
        ex.efficiency_error = efficiency_error(values, v_full, np.asarray(ex.base_values).reshape(v_full.shape))
        return ex

    def _explain_variance(
        self, X: Any, target: Any, interactions: Any, progress: bool, n_jobs: int, dtype: Any, *flags: Any
    ) -> Explanation:
        """``explain(X, target="variance")``: Shapley values of the posterior variance (module
        ``variance_games``)."""
        uncertainty, joint, noisy = flags
        if target != "variance":
            raise ValueError(f"target must be 'mean' or 'variance', got {target!r}.")
        check_bool(noisy, "noisy")
        if uncertainty or joint or dtype not in (None, "float64") or is_foreign_array(X):
            raise ValueError(
                "target='variance' runs in numpy float64 without uncertainty=True/joint=True (the variance is "
                "already a posterior quantity)."
            )
        try:
            post = gp_posterior(self.model)
        except UnsupportedModelError as exc:
            raise UnsupportedModelError(f"target='variance' on {type(self.model).__name__}: {exc}") from None
        if self.game == "functional":
            raise ValueError(
                "target='variance' needs the interventional game (background=B) or the baseline game (baseline=z): "
                "the functional game integrates absent features against the constant 1, which is no input point, "
                "so the posterior variance there is undefined."
            )
        Xv = self.expansion.check_input(X, name="X", feature_names=self._columns)
        names, index = self._names(X, self.expansion.n_features), row_index(X)
        extra = post.scale**2 * post.noise_variance if noisy else 0.0
        # the posterior variance is another game than the mean's: its base value is a mean variance
        variance_game = VARIANCE_GAMES[self.game]
        Z, w = self._Z, self._w
        assert Z is not None and w is not None  # not the functional game (refused above)

        def run(rows: slice) -> Explanation:
            game = PosteriorVarianceGame(post, Xv[rows], Z, w)
            res = solve_product_game(
                game, interactions=interactions, max_block_bytes=self.max_block_bytes, progress=progress and n_jobs <= 1
            )
            const = game.constant + extra
            inter = None if res.interactions is None else res.interactions[..., 0]
            return Explanation(
                values=res.values[:, :, 0],
                base_values=res.v_empty[:, 0] + const,
                data=Xv[rows],
                feature_names=names,
                interactions=inter,
                game=variance_game,
                info={"route": "quadrature", "target": "variance", "noisy": noisy},
                v_full=res.v_full[:, 0] + const,
                output=f"posterior {'predictive variance of y' if noisy else 'variance'} of {post.output}",
                index=None if index is None else index[rows],
            )

        ex = explain_in_blocks(run, Xv.shape[0], n_jobs)
        vals, v_full = np.asarray(ex.values)[:, :, None], np.asarray(ex.v_full)[:, None]
        ex.efficiency_error = efficiency_error(vals, v_full, np.asarray(ex.base_values)[:, None])
        return ex

    def _explain_any_order(
        self, X: Any, interactions: Mapping[str, Any], *, progress: bool, n_jobs: Any
    ) -> Explanation:
        """``explain`` with ``interactions`` a mapping: the Shapley values, then the index of any order."""
        em = self.expansion
        assert isinstance(em, KernelExpansion)  # polynomial models are refused by explain
        spec = check_interaction_spec(interactions, em.n_features)
        sub = self._interaction_subset_game()
        if spec.index == "BV" and sub is not None and self._mixture is None:
            fast = self._banzhaf_from_factors(X, spec)  # None: the subset route is the cheaper one
            if fast is not None:
                return fast
        if sub is not None and self._mixture is None:
            return self._any_order_from_subsets(X, sub, spec)
        ex = self.explain(X, interactions=False, progress=progress, n_jobs=n_jobs)
        Xv = np.asarray(ex.data, dtype=np.float64)
        game: Any
        if sub is not None:
            # few features: the 2^d values of each point from the tabulated absent sets, then Möbius
            R, step = em.n_rows, max(1, 2**22 // (2**em.n_features * em.n_outputs + em.n_rows * em.n_features))
            parts = [
                interactions_from_values(sub.values(em.row_factors(Xv[p0 : p0 + step], slice(0, R))[0]), spec)
                for p0 in range(0, Xv.shape[0], step)
            ]
            table = InteractionTable.concatenate(parts)
            return interaction_explanation(ex, table.shifted(em.intercept), single_output=em.single_output)
        if em.n_rows == 0:
            game = _ZeroGame(Xv.shape[0], em.n_features, em.n_outputs)
        elif self.game == "functional":
            game = FunctionalGame(em, Xv)
        else:
            assert self._Z is not None and self._w is not None  # interventional or baseline game
            if self._background_factors is None:  # the subset route was chosen for the values: build once
                self._background_factors = BackgroundFactors(em, self._Z, self._w)
            game = InterventionalGame(em, Xv, self._background_factors)
        table = solve_product_interactions(game, spec, max_block_bytes=self.max_block_bytes, progress=progress)
        return interaction_explanation(ex, table.shifted(em.intercept), single_output=em.single_output)

    def _banzhaf_from_factors(self, X: Any, spec: Any) -> Explanation | None:
        """Banzhaf values (``index="BV"``) on their one quadrature node, without the 2^d values
        (and without Shapley values: ``efficiency_error`` is None, Banzhaf values are not efficient)."""
        em = self.expansion
        assert isinstance(em, KernelExpansion) and self._Z is not None and self._w is not None
        if not banzhaf_cheaper_than_subsets(em.n_features, self._Z.shape[0]):
            return None
        if self._background_factors is None:
            self._background_factors = BackgroundFactors(em, self._Z, self._w)
        F = self._background_factors.factors
        if F is None:  # too large to keep: the subset route
            return None
        Xv = em.check_input(X, name="X", feature_names=self._columns)
        a, c = em.row_factors(Xv, slice(0, em.n_rows))
        got = banzhaf_interventional(a, c, F, self._w)
        if got is None:
            return None
        bv, mean, v_full, v_empty = got
        names, index = self._names(X, em.n_features), row_index(X)
        table = table_from_dense({0: mean[None], 1: np.moveaxis(bv, 1, 0)}, spec, em.n_features, v_full, v_empty)
        ex = self._to_explanation(ShapleyValues(values=bv, v_full=v_full, v_empty=v_empty), Xv, names, index)
        ex.efficiency_error = None
        return interaction_explanation(ex, table.shifted(em.intercept), single_output=em.single_output)

    def _any_order_from_subsets(self, X: Any, sub: SubsetGame, spec: Any) -> Explanation:
        """Few features with a background: the 2^d values of each point, computed once, give the
        Shapley values and the indices through one Möbius transform (no second pass of the
        quadrature for the values: at d = 12 that pass and its result were half the time)."""
        em = self.expansion
        assert isinstance(em, KernelExpansion)
        Xv = em.check_input(X, name="X", feature_names=self._columns)
        names, index = self._names(X, em.n_features), row_index(X)
        R, step = em.n_rows, max(1, 2**22 // (2**em.n_features * em.n_outputs + em.n_rows * em.n_features))
        tables, phis = [], []
        for p0 in range(0, Xv.shape[0], step):
            tab, phi = interactions_and_shapley_from_values(
                sub.values(em.row_factors(Xv[p0 : p0 + step], slice(0, R))[0]), spec
            )
            tables.append(tab)
            phis.append(phi)
        table = InteractionTable.concatenate(tables)
        res = ShapleyValues(values=np.concatenate(phis), v_full=table.v_full, v_empty=table.v_empty)
        ex = self._to_explanation(res, Xv, names, index)
        base = (table.v_empty + em.intercept[None, :]).reshape(table.v_full.shape)
        ex.efficiency_error = efficiency_error(res.values, table.v_full + em.intercept[None, :], base)
        return interaction_explanation(ex, table.shifted(em.intercept), single_output=em.single_output)

    def _interaction_subset_game(self) -> SubsetGame | None:
        """The subset route's game for interactions, built once when it is the cheaper route.

        Interactions of order k cost the quadrature about 20 elementwise passes over
        (rows, background rows, nodes, d) before the matrix products; the subset route 2^d steps
        per row plus O(d^2 2^d) per point for the Möbius transform, whatever the order.
        """
        if self._subset_game is not None:
            return self._subset_game
        em = self.expansion
        if self.game == "functional" or em.n_rows == 0 or em.n_features > MAX_INTERACTION_SUBSET_FEATURES:
            return None
        assert isinstance(em, KernelExpansion) and self._Z is not None and self._w is not None
        d, nb = em.n_features, self._Z.shape[0]
        if 2**d * em.n_rows * 8 > BACKGROUND_TABLE_BYTES or 2**d >= 20 * nb * d * nodes_for_degree(d):
            return None
        cached = getattr(self, "_interactions_subsets", None)
        if cached is None:
            cached = subset_game(em, self._Z, self._w, max_block_bytes=self.max_block_bytes)
            self._interactions_subsets = cached
        return cached

    def _covariance_solver(
        self, uncertainty: Any, joint: Any, noisy: Any, array_path: bool
    ) -> PosteriorCovariance | None:
        """The posterior-covariance solver for ``explain(uncertainty=True)``, built once; None without."""
        for name, flag in (("uncertainty", uncertainty), ("joint", joint), ("noisy", noisy)):
            check_bool(flag, name)
        if not uncertainty:
            if joint or noisy:
                raise ValueError("joint=True and noisy=True apply to uncertainty=True.")
            return None
        if array_path:  # checked on every call, not only when the solver is first built
            raise ValueError("uncertainty=True runs in numpy float64 only: pass a numpy X and dtype=None.")
        if self._covariance is not None:
            self._covariance.posterior._check_noisy(noisy)
            return self._covariance
        try:
            post = gp_posterior(self.model)
        except UnsupportedModelError as exc:
            raise UnsupportedModelError(f"uncertainty=True on {type(self.model).__name__}: {exc}") from None
        if self.game == "functional":
            raise ValueError(
                "uncertainty=True needs the interventional game (background=B) or the baseline game (baseline=z): "
                "the functional game integrates absent features against the constant function 1, which is not in "
                "the RKHS of the RBF (Laplacian, Cauchy) kernel, so its plug-in covariance is not positive "
                "semi-definite and no stochastic version exists for these kernels."
            )
        post._check_noisy(noisy)
        if self._mixture is not None:
            post = self._mixture.refit_posterior(post)
        assert self._Z is not None and self._w is not None  # not the functional game
        self._covariance = PosteriorCovariance(post, self._Z, self._w, max_block_bytes=self.max_block_bytes)
        return self._covariance

    def _add_uncertainty(
        self, ex: Explanation, solver: PosteriorCovariance, Xv: np.ndarray, noisy: bool, *, joint: bool
    ) -> None:
        """Set the covariance fields of ``ex`` (explained rows ``Xv``) from the posterior."""
        cov, bound = solver.values_covariance_and_bound(Xv, noisy=noisy, joint=joint)
        N = Xv.shape[0]
        if joint:
            ex.joint_covariance = cov
            ex.covariance = cov[np.arange(N), :, np.arange(N), :]
        else:
            ex.covariance = cov
        ex.base_variance = np.full(N, solver.base_variance(noisy=noisy))
        pvar, pbound = solver.posterior.variance_and_bound(Xv, noisy=noisy)
        ex.prediction_variance = pvar
        ex.info["noisy"] = noisy
        record_accuracy(ex, solver.posterior, bound, pbound)

    def _solve(
        self,
        Xv: np.ndarray,
        interactions: str | None,
        progress: bool,
        *,
        xp: Any = None,
        device: Any = None,
        dtype: str | None = None,
    ) -> ShapleyValues:
        em = self.expansion
        N, d, o = Xv.shape[0], em.n_features, em.n_outputs
        if em.n_rows == 0:
            # a constant model: every coalition has the intercept's value
            zeros = np.zeros((N, o))
            return ShapleyValues(
                values=np.zeros((N, d, o)),
                v_full=zeros,
                v_empty=zeros.copy(),
                interactions=np.zeros((N, d, d, o)) if interactions else None,
                interaction_index=interactions,
            )
        if self._monomial_game is not None:
            assert isinstance(em, PolynomialExpansion)
            return self._monomial_game.solve(centred(em, Xv), interactions, max_block_bytes=self.max_block_bytes)
        if isinstance(em, PolynomialExpansion):
            pgame: PolynomialFunctionalGame | PolynomialInterventionalGame = (
                PolynomialFunctionalGame(em, Xv)
                if self.game == "functional"
                else PolynomialInterventionalGame(em, Xv, _given(self._Z), _given(self._w))
            )
            return solve_polynomial_game(
                pgame, interactions=interactions, max_block_bytes=self.max_block_bytes, progress=progress
            )
        assert isinstance(em, KernelExpansion)
        array_path = xp is not None or dtype not in (None, "float64")
        if array_path:
            return self._solve_array(Xv, interactions, progress, xp=xp, device=device, dtype=dtype)
        if self._subset_game is not None:
            return self._subset_game.solve(
                lambda pts: present_factors(em, Xv[pts]),
                n_points=N,
                interactions=interactions,
                max_block_bytes=self.max_block_bytes,
                progress=progress,
            )
        if self._background_factors is not None:
            game: FunctionalGame | InterventionalGame = InterventionalGame(em, Xv, self._background_factors)
        else:
            game = FunctionalGame(em, Xv)
        return solve_product_game(
            game, interactions=interactions, max_block_bytes=self.max_block_bytes, progress=progress
        )

    def _solve_array(
        self, Xv: np.ndarray, interactions: str | None, progress: bool, *, xp: Any, device: Any, dtype: str | None
    ) -> ShapleyValues:
        """The quadrature route through the array API engine, results moved back to numpy."""
        em = self.expansion
        assert isinstance(em, KernelExpansion)
        game: FunctionalGame | InterventionalGame
        if self.game == "functional":
            game = FunctionalGame(em, Xv, xp=xp, device=device)
        else:
            if self._background_factors is None:  # the subset route was chosen for numpy: build once
                assert self._Z is not None and self._w is not None
                self._background_factors = BackgroundFactors(em, self._Z, self._w)
            game = InterventionalGame(em, Xv, self._background_factors, xp=xp, device=device)
        res = solve_product_game(
            game,
            interactions=interactions,
            max_block_bytes=max(self.max_block_bytes, DEVICE_BLOCK_BYTES if xp is not None else 0),
            progress=progress,
            dtype=dtype,
        )
        return ShapleyValues(
            values=to_numpy(res.values).astype(np.float64),
            v_full=to_numpy(res.v_full).astype(np.float64),
            v_empty=to_numpy(res.v_empty).astype(np.float64),
            interactions=None if res.interactions is None else to_numpy(res.interactions).astype(np.float64),
            interaction_index=res.interaction_index,
        )

    def _summary_info(self) -> dict[str, Any]:
        """``info["background_summary"]``: the centres, weights and original row count (a dict, not sliced by rows)."""
        if self.summary_centres is None:
            return {}
        return {
            "background_summary": {
                "centres": self.summary_centres,
                "weights": self.summary_weights,
                "n_background_rows": int(np.shape(self.background)[0]),
            }
        }

    def _to_explanation(
        self,
        res: ShapleyValues,
        Xv: np.ndarray,
        names: Sequence[str],
        index: list[Any] | None,
        *,
        route: str | None = None,
    ) -> Explanation:
        """The explanation of ``res`` (the points ``Xv``), its ``efficiency_error`` set."""
        em = self.expansion
        values = res.values
        base = res.v_empty + em.intercept[None, :]
        v_full = res.v_full + em.intercept[None, :]
        inter = res.interactions  # (N, d, d, o), already in shap's layout
        if em.single_output:
            values, base = values[:, :, 0], base[:, 0]
            inter = None if inter is None else inter[..., 0]
        # the gap of the explanation's own arrays, laid out as explain has always measured them
        # (the values of one output seen through a new axis: the same sums, in the same order)
        err = _efficiency_error(values[:, :, None] if em.single_output else values, v_full, base.reshape(v_full.shape))
        info = {"route": self.route if route is None else route, **self._summary_info()}
        if inter is None and type(values) is np.ndarray and values.dtype == np.float64 and math.isfinite(err):
            # finite: so are the values, base values and v_full; the checks of __init__ are made
            return Explanation._from_engine(
                values, base, Xv, names, em.output_names, self.game, info, self.output, index, v_full, err
            )
        return Explanation(
            values=values,
            base_values=base,
            data=Xv,
            feature_names=names,
            output_names=em.output_names,
            interactions=inter,
            game=self.game,
            info=info,
            output=self.output,
            index=index,
            v_full=v_full,
            interaction_index=res.interaction_index,
            efficiency_error=err,
        )


def _efficiency_error(values: np.ndarray, v_full: np.ndarray, v_empty: np.ndarray) -> float:
    """:func:`~kexplain.shapley.product.efficiency_error` of numpy float64 arrays: its operations
    in its order (the same number), without its conversions to numpy and float64."""
    if not (values.dtype == v_full.dtype == v_empty.dtype == np.float64):
        return efficiency_error(values, v_full, v_empty)
    if v_full.size == 1 and values.shape[0] == 1:
        # one point, one output: numpy's sum of the values, the rest in Python floats (the same
        # IEEE operations; a NaN or infinity in any input still makes the gap, and so the result,
        # not finite); at one explained point each numpy call on a single number costs as much
        vf, ve = float(v_full.item(0)), float(v_empty.item(0))
        gap1 = abs(float(np.add.reduce(values, axis=None)) - (vf - ve))
        return gap1 / max(abs(vf), abs(ve), 1e-300)
    gap = np.abs(values.sum(axis=1, dtype=np.float64) - (v_full - v_empty))
    scale = np.maximum(np.maximum(np.abs(v_full), np.abs(v_empty)), 1e-300)
    return float(np.maximum.reduce(gap / scale, axis=None)) if gap.size else 0.0


def _csr(arr: np.ndarray) -> Any:
    """Dense validated rows as a CSR matrix (for the sparse games)."""
    from scipy import sparse

    return sparse.csr_matrix(arr)


def _given(arr: np.ndarray | None) -> np.ndarray:
    """``arr``, which the game's construction guarantees is set (for the type checker)."""
    assert arr is not None
    return arr


#: interactions take the subset route up to this many features, when it is the cheaper one
MAX_INTERACTION_SUBSET_FEATURES = 16


class _ZeroGame:
    """The product game of a model without rows (a constant): every value is 0."""

    n_rows = 0

    def __init__(self, n_points: int, d: int, o: int) -> None:
        self.n_points, self.n_features, self.n_outputs = n_points, d, o

    def block(self, points: slice, rows: slice) -> tuple[np.ndarray, float, np.ndarray]:
        return np.zeros((1, 0, self.n_features)), 1.0, np.zeros((0, self.n_outputs))

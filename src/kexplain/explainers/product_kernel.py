"""ProductKernelExplainer: exact Shapley values of product-kernel models.

This module holds the public face: the constructor and the public methods.  ``explain``, which
hands each request to its path, is the base class ``ExplainRouting`` of ``_product_kernel_explain``
(the class's API page lists it with the other methods).  The paths are the base classes of that one,
in sibling modules, one idea each:

- ``product_kernel_base``: the state, the background tables of the chosen route (the cost model
  ``choose_route`` is called there), the explained rows' names and the Explanation of a result;
- ``product_kernel_posterior``: a Gaussian process's posterior covariance and variance;
- ``product_kernel_dense``: ``explain`` of dense rows, its exact routes and the array API path;
- ``product_kernel_sparse``: scipy sparse backgrounds, baselines and rows;
- ``product_kernel_interactions``: interactions of any order (``MAX_INTERACTION_SUBSET_FEATURES``).

The names this module defined before the split are imported here again; a test that replaces one
(``choose_route``, ``MAX_INTERACTION_SUBSET_FEATURES``) must replace it in the module that uses it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._params import Integer, check_param
from .._validation import feature_names_of, is_sparse
from ..base import background_rows
from ..kernels.mixture import check_kernel_tol
from ..models.dot_product import PolynomialExpansion, as_polynomial_expansion
from ..models.expansion import KernelExpansion
from ..models.posterior import GPPosterior
from ..models.sklearn import as_kernel_expansion, describe_output
from ..shapley.monomials import MonomialGame
from ..shapley.product import DEFAULT_BLOCK_BYTES
from ..shapley.subsets import SubsetGame
from ._product_kernel_explain import ExplainRouting
from .product_games import BackgroundFactors, FunctionalGame, InterventionalGame
from .product_kernel_base import SUMMARISED_GAME, _efficiency_error  # noqa: F401  (the names of the old module)
from .product_kernel_dense import DEVICE_BLOCK_BYTES, DensePath, _given  # noqa: F401
from .product_kernel_interactions import (  # noqa: F401
    MAX_INTERACTION_SUBSET_FEATURES,
    AnyOrderInteractions,
    _ZeroGame,
)
from .product_kernel_posterior import VARIANCE_GAMES  # noqa: F401
from .product_kernel_sparse import SparsePaths, _csr  # noqa: F401
from .sparse_games import SparseProductGames, sparse_refusal


class ProductKernelExplainer(ExplainRouting):
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
        #: the sparse games, built once; a sparse background or baseline is kept sparse (CSR) in them
        self._sparse_games: SparseProductGames | None = None
        self._sparse_argument = ""
        if is_sparse(background) or is_sparse(baseline):
            self._init_sparse(background, background_weights, baseline, background_summary)
            return
        self._init_dense(background, background_weights, baseline, background_summary)

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

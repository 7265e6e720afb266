"""ProductKernelExplainer: exact Shapley values of product-kernel models."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validation import check_weights, feature_names_of, to_array
from ..base import Explainer, background_rows, check_explain_options, explain_in_blocks, row_index
from ..exceptions import UnsupportedModelError
from ..explanation import Explanation
from ..models.expansion import KernelExpansion
from ..models.posterior import GPPosterior, gp_posterior
from ..models.sklearn import as_kernel_expansion, describe_output
from ..shapley._array_api import array_namespace, device_of, is_foreign_array, resolve_dtype, to_numpy
from ..shapley.product import DEFAULT_BLOCK_BYTES, efficiency_error, solve_product_game
from ..shapley.result import ShapleyValues
from ..shapley.subsets import SubsetGame, compiled_available
from .posterior_games import PosteriorCovariance, summarize_background
from .product_games import (
    BackgroundFactors,
    FunctionalGame,
    InterventionalGame,
    choose_route,
    subset_game,
)

#: block bound of the array API path (a torch or CuPy ``X``): devices want large blocks
DEVICE_BLOCK_BYTES = 512 * 2**20


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
    reused by every ``explain`` call: the per-feature kernel factors of the reference points
    against the background rows and, for few features and many background rows, the table of
    absent-set values of the subset route (``kexplain.shapley.subsets``).  A cost model
    (:func:`~kexplain.explainers.product_games.choose_route`) picks the cheaper exact route.
    These tables are kept when they take at most
    ``kexplain.explainers.product_games.BACKGROUND_TABLE_BYTES`` (256 MiB); larger background
    factors are recomputed block by block, and the subset route is then not used.

    Parameters
    ----------
    model : fitted scikit-learn estimator, Pipeline, or kx.KernelExpansion
        See ``kx.models.SUPPORTED_MODELS``; anything else raises ``kx.UnsupportedModelError``.
    background : array-like or DataFrame of shape (n_background, d), optional
        Rows over which absent features are averaged (interventional game).
    background_weights : array-like of shape (n_background,), optional
        Non-negative weights of the background rows (normalised to sum to one).
    baseline : array-like of shape (d,) or (1, d), optional
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
        with given weights: pass them with ``background_weights`` instead.

    Notes
    -----
    Stochastic Shapley values: for a Gaussian-process model (a GaussianProcessRegressor, a
    binary GaussianProcessClassifier, or a :class:`kexplain.models.GPPosterior`) the values are
    those of the posterior mean, and ``explain(X, uncertainty=True)`` also gives their exact
    posterior covariance (Chau, Muandet & Sejdinovic, 2023, treat Shapley values of a GP as
    Gaussian; here the covariance of the interventional and baseline games is exact, see
    ``kexplain.shapley.stochastic``).

    Attributes
    ----------
    game : str
        "functional", "interventional" or "baseline".
    output : str
        The explained model output, e.g. "predict of SVR".
    expected_value : float or ndarray of shape (n_outputs,)
        The base value of the game (the value of the empty coalition, intercept included).
    expansion : KernelExpansion
        The model written as a kernel expansion.
    route : str
        "quadrature" or "subsets" (the exact route of the interventional and baseline games;
        "quadrature" for the functional game).

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
    ) -> None:
        background = background_rows(background)  # a shap Independent masker gives its rows
        # the expansion keeps the model's own column names (feature_names_in_) for validating
        # DataFrames; ``feature_names`` only labels the explanation
        em = model.expansion() if isinstance(model, GPPosterior) else as_kernel_expansion(model)
        if feature_names is not None:
            if isinstance(feature_names, str) or not hasattr(feature_names, "__len__"):
                raise ValueError(f"feature_names must be a list of {em.n_features} names, got {feature_names!r}.")
            if len(feature_names) != em.n_features:
                raise ValueError(f"feature_names has {len(feature_names)} names for {em.n_features} features.")
        super().__init__(model, background, background_weights=background_weights, feature_names=feature_names)
        if (
            isinstance(max_block_bytes, (bool, np.bool_))
            or not isinstance(max_block_bytes, (int, np.integer))
            or max_block_bytes < 2**16
        ):
            raise ValueError(f"max_block_bytes must be an integer >= 65536, got {max_block_bytes!r}.")
        if background is not None and baseline is not None:
            raise ValueError("give either background (interventional game) or baseline (one reference row), not both.")
        if background_weights is not None and background is None:
            raise ValueError("background_weights needs a background.")
        self.expansion: KernelExpansion = em
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
        self.route = "quadrature"
        Z: np.ndarray | None = None
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
            if background_summary is not None:
                Z, w = summarize_background(Z, w, background_summary)
            self.game = "interventional"
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
        if background_summary is not None and self.game != "interventional":
            raise ValueError("background_summary summarises a background: give background= too.")
        self._covariance: PosteriorCovariance | None = None
        if Z is not None:
            self._Z, self._w = Z, w
            if em.n_rows:
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
        else:
            base = em.term_weights.sum(axis=0) * em.coef.sum(axis=0) + em.intercept
        base = np.asarray(base, dtype=np.float64).reshape(em.n_outputs)
        self.expected_value: float | np.ndarray = float(base[0]) if em.single_output else base

    @property
    def n_features(self) -> int:
        """Number of features of the model."""
        return int(self.expansion.n_features)

    def predict(self, X: Any) -> np.ndarray:
        """The explained output of the model at ``X``, computed from its kernel expansion.

        Parameters
        ----------
        X : array-like or DataFrame of shape (N, d)

        Returns
        -------
        ndarray of shape (N,) or (N, n_outputs)

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> em = kx.KernelExpansion(np.zeros((1, 2)), [2.0], kx.kernels.RBF(1.0), intercept=0.5)
        >>> kx.ProductKernelExplainer(em).predict(np.zeros((1, 2)))
        array([2.5])
        """
        return self.expansion.predict(X)

    def _names(self, X: Any, d: int) -> list[str]:
        if self.feature_names is not None:
            return list(self.feature_names)
        names = feature_names_of(X)
        if names is None and self._columns is not None:
            names = [str(c) for c in self._columns]
        return names if names is not None else [f"x{j}" for j in range(d)]

    def explain(
        self,
        X: Any,
        *,
        interactions: bool | str | None = False,
        progress: bool = False,
        n_jobs: int | None = None,
        random_state: Any = None,
        dtype: str | None = None,
        uncertainty: bool = False,
        joint: bool = False,
        noisy: bool = False,
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
        X : array-like or DataFrame of shape (N, d)
            Rows to explain; a DataFrame's index is kept by ``Explanation.to_frame``.
        interactions : bool or {"sii", "stii"}
            Also compute pairwise interaction values (every game supports them).  True or "sii":
            the Shapley interaction index, in shap's ``TreeExplainer`` layout (half the index off
            the diagonal, the main effect on it); "stii": the Shapley-Taylor index of order 2,
            as shap's ``ExactExplainer(...)(X, interactions=True)`` gives it.  Each row of the
            d x d matrix sums to the feature's Shapley value; ``info["interaction_index"]``
            records the index.
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
            is reported in ``info["efficiency_error"]`` whatever the dtype.
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

        Notes
        -----
        GPU / array API path: when ``X`` is a PyTorch tensor (CPU or CUDA), a CuPy array or any
        other array API array, the product-game engine runs in that namespace on ``X``'s device
        (kernel factors of the explained rows are computed on the host and moved there, the
        background's factors once per device), through the quadrature route, with blocks of up
        to ``max(max_block_bytes, DEVICE_BLOCK_BYTES)`` (512 MiB).  The Explanation holds numpy
        arrays (``data`` is ``X`` copied to the host); ``info["device"]`` names the device.  The
        same path runs for numpy ``X`` with ``dtype="float32"``.  It needs ``array_api_compat``.

        Returns
        -------
        Explanation
            ``values`` (N, d) or (N, d, n_outputs), ``base_values``, ``game``, ``output``,
            ``interactions`` when asked, ``info["v_full"]`` (the model output at each point),
            ``info["route"]`` and ``info["efficiency_error"]`` (the largest
            ``|sum_j phi_j - (f(x) - base value)|`` relative to ``max(|f(x)|, |base value|)``).

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
        """
        interactions, progress, n_jobs = check_explain_options(interactions, progress, n_jobs)
        resolve_dtype(np, dtype)
        em = self.expansion
        xp, device = None, None
        if is_foreign_array(X):
            xp, device = array_namespace(X), device_of(X)
            X = to_numpy(X)
        array_path = xp is not None or dtype not in (None, "float64")
        cov_solver = self._covariance_solver(uncertainty, joint, noisy, array_path)
        Xv = em.check_input(X, name="X", feature_names=self._columns)
        names = self._names(X, em.n_features)
        index = row_index(X)

        def run(rows: slice) -> Explanation:
            res = self._solve(Xv[rows], interactions, progress and n_jobs <= 1, xp=xp, device=device, dtype=dtype)
            ex = self._to_explanation(res, Xv[rows], names, None if index is None else index[rows])
            if xp is not None or dtype not in (None, "float64"):
                ex.info["route"] = "quadrature"
            if xp is not None:
                ex.info["device"] = str(device)
            if cov_solver is not None and not joint:
                self._add_uncertainty(ex, cov_solver, Xv[rows], noisy, joint=False)
            return ex

        ex = explain_in_blocks(run, Xv.shape[0], n_jobs)
        if cov_solver is not None and joint:
            self._add_uncertainty(ex, cov_solver, Xv, noisy, joint=True)
        values, v_full = np.asarray(ex.values), np.asarray(ex.info["v_full"])
        if em.single_output:
            values, v_full = values[:, :, None], v_full
        v_full = v_full.reshape(values.shape[0], -1)
        ex.info["efficiency_error"] = efficiency_error(values, v_full, np.asarray(ex.base_values).reshape(v_full.shape))
        return ex

    def _covariance_solver(
        self, uncertainty: Any, joint: Any, noisy: Any, array_path: bool
    ) -> PosteriorCovariance | None:
        """The posterior-covariance solver for ``explain(uncertainty=True)``, built once; None without."""
        for name, flag in (("uncertainty", uncertainty), ("joint", joint), ("noisy", noisy)):
            if not isinstance(flag, (bool, np.bool_)):
                raise TypeError(f"{name} must be True or False, got {flag!r}.")
        if not uncertainty:
            if joint or noisy:
                raise ValueError("joint=True and noisy=True apply to uncertainty=True.")
            return None
        if self._covariance is not None:
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
        if array_path:
            raise ValueError("uncertainty=True runs in numpy float64 only: pass a numpy X and dtype=None.")
        self._covariance = PosteriorCovariance(post, self._Z, self._w, max_block_bytes=self.max_block_bytes)
        return self._covariance

    def _add_uncertainty(
        self, ex: Explanation, solver: PosteriorCovariance, Xv: np.ndarray, noisy: bool, *, joint: bool
    ) -> None:
        """Set the covariance fields of ``ex`` (explained rows ``Xv``) from the posterior."""
        cov = solver.values_covariance(Xv, noisy=noisy, joint=joint)
        N = Xv.shape[0]
        if joint:
            ex.joint_covariance = cov
            ex.covariance = cov[np.arange(N), :, np.arange(N), :]
        else:
            ex.covariance = cov
        ex.base_variance = np.full(N, solver.base_variance(noisy=noisy))
        ex.prediction_variance = solver.posterior.variance(Xv, noisy=noisy)
        ex.info["noisy"] = noisy

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
        array_path = xp is not None or dtype not in (None, "float64")
        if array_path:
            return self._solve_array(Xv, interactions, progress, xp=xp, device=device, dtype=dtype)
        if self._subset_game is not None:
            R = em.n_rows
            return self._subset_game.solve(
                lambda pts: em.row_factors(Xv[pts], slice(0, R))[0],
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
        game: FunctionalGame | InterventionalGame
        if self.game == "functional":
            game = FunctionalGame(em, Xv, xp=xp, device=device)
        else:
            if self._background_factors is None:  # the subset route was chosen for numpy: build once
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

    def _to_explanation(
        self, res: ShapleyValues, Xv: np.ndarray, names: list[str], index: list[Any] | None
    ) -> Explanation:
        em = self.expansion
        values = res.values
        base = res.v_empty + em.intercept[None, :]
        v_full = res.v_full + em.intercept[None, :]
        inter = res.interactions  # (N, d, d, o), already in shap's layout
        if em.single_output:
            values, base = values[:, :, 0], base[:, 0]
            inter = None if inter is None else inter[..., 0]
        return Explanation(
            values=values,
            base_values=base,
            data=Xv,
            feature_names=names,
            output_names=em.output_names,
            interactions=inter,
            game=self.game,
            info={"v_full": v_full, "route": self.route, "interaction_index": res.interaction_index},
            output=self.output,
            index=index,
        )

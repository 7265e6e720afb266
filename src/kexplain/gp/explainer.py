"""Exact local Shapley values of a fitted OAK model, in the explainer contract of kexplain."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from sklearn.exceptions import NotFittedError

from .._typing import RandomStateLike
from .._validation import check_bool, check_weights
from ..base import Explainer, background_rows, check_explain_options, explain_in_blocks, row_index
from ..exceptions import UnsupportedModelError
from ..explanation import Explanation
from ..shapley.additive import solve_additive_game
from ._games import AnovaGame, BackgroundTables, InterventionalGame
from ._interactions import explain_interactions
from ._uncertainty import OAKPosteriorShapley

_FITTED = ("alpha_", "bases_", "support_", "order_variances_", "lengthscales_", "y_std_", "y_mean_")


class OAKExplainer(Explainer):
    """Exact local Shapley values of an orthogonal additive GP (:class:`~kexplain.gp.OAKRegressor`).

    The game follows from what is given at construction:

    - no background: ``game = "anova"``, the functional-ANOVA game of "Exact Shapley Value for
      Local and Global Explanation of Additive Gaussian Processes" (section 3, Lemma 1),
      v(S) = sum_{T subset S} f_T(x), which equals E[f(x_S, X_rest)] with X_rest drawn from the
      model's input measure (the product of the per-feature measures its kernels are orthogonal
      to).  ``phi_j = sum_{T containing j} f_T(x) / |T|``; the base value is the constant component f_0.
    - a background: ``game = "interventional"``, v(S) = sum_b w_b f(x_S, z_b,notS) over the
      background rows z_b, exactly (the values of shap's ``ExactExplainer`` with an independent
      masker on the same rows); the base value is the weighted mean prediction on the background.

    ``explain(X, uncertainty=True)`` also gives the exact posterior covariance of the values in
    either game (see :meth:`explain`).

    Both are additive games with absent values solved exactly by
    :func:`kexplain.shapley.additive_block_values`; the kernel tables of the support points
    against the background rows are built here, once.

    Parameters
    ----------
    model : OAKRegressor
        A fitted model.
    background : array-like of shape (n_background, d), optional
        Rows over which absent features are averaged (raw inputs, as given to ``predict``).
    background_weights : array-like of shape (n_background,), optional
        Non-negative weights of the background rows (default equal).
    feature_names : sequence of str, optional
        Labels in the explanation (default: the model's feature names).

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(30, 3))
    >>> gp = kx.gp.OAKRegressor(max_interaction_order=2, max_iter=0).fit(X, X[:, 0] * X[:, 1])
    >>> ex = kx.gp.OAKExplainer(gp, X[:10]).explain(X[:2])
    >>> ex.game, bool(np.allclose(ex.predictions, gp.predict(X[:2])))
    ('interventional', True)
    """

    output = "predict of OAKRegressor"

    def __init__(
        self,
        model: Any,
        background: Any = None,
        *,
        background_weights: Any = None,
        feature_names: Sequence[str] | None = None,
    ) -> None:
        background = background_rows(background)  # a shap Independent masker gives its rows
        super().__init__(model, background, background_weights=background_weights, feature_names=feature_names)
        if not all(hasattr(model, a) for a in _FITTED) or not hasattr(model, "_encode"):
            if type(model).__name__ == "OAKRegressor":
                raise NotFittedError("OAKExplainer needs a fitted OAKRegressor: call fit first.")
            raise UnsupportedModelError(
                f"OAKExplainer explains a fitted kexplain.gp.OAKRegressor, got {type(model).__name__}; "
                "use kx.ProductKernelExplainer or kx.RKHSExplainer for other kernel models."
            )
        d = int(model.n_features_in_)
        if self.feature_names is not None and len(self.feature_names) != d:
            raise ValueError(f"feature_names has {len(self.feature_names)} names for the model's {d} features.")
        self._ls = np.nan_to_num(model.lengthscales_, nan=1.0)
        self._coef = model.alpha_ * model.y_std_
        self._tables: BackgroundTables | None = None
        self._Zb: np.ndarray | None = None
        self._w: np.ndarray | None = None
        self._posterior: OAKPosteriorShapley | None = None  # built on the first uncertainty=True
        if background is None:
            if background_weights is not None:
                raise ValueError("background_weights needs a background.")
            self.game = "anova"
        else:
            Zb = model._encode(background, name="background")
            w = (
                np.full(Zb.shape[0], 1.0 / Zb.shape[0])
                if background_weights is None
                else check_weights(background_weights, Zb.shape[0])
            )
            self._tables = BackgroundTables(model.bases_, model.support_, self._ls, self._coef, Zb, w)
            self._Zb, self._w = Zb, w
            self.game = "interventional"

    def explain(
        self,
        X: Any,
        *,
        interactions: bool | str | Mapping[str, Any] | None = False,
        progress: bool = False,
        n_jobs: int | None = None,
        random_state: RandomStateLike = None,
        uncertainty: bool = False,
        joint: bool = False,
    ) -> Explanation:
        """Exact Shapley values of each row of ``X``, optionally with their exact posterior covariance.

        Solves the game chosen at construction: with no background, the functional-ANOVA game
        (the default; values sum with the constant component f_0 to ``predict(X)``); with a
        background, the exact interventional game over its rows.  A shap user gets the same
        interventional values from ``shap.ExactExplainer(model.predict, shap.maskers.Independent(B,
        max_samples=len(B)))`` with the same background rows ``B`` (shap's ``KernelExplainer`` and
        ``PermutationExplainer`` estimate them); the default functional-ANOVA game is not shap's
        (see the documentation page "Which game should I use?").

        Parameters
        ----------
        X : array-like of shape (N, d)
            Rows to explain (raw inputs, as given to ``predict``).
        interactions : mapping, optional
            ``{"index": "k-SII" | "SII" | "STII" | "FSII" | "BII" | "BV" | "Moebius" | "SV",
            "max_order": k, "top_k": ..., "threshold": ...}``: interactions of any order and index
            of either game, exactly and in closed form from the model's ANOVA components (the
            Möbius coefficients of the functional-ANOVA game are the components f_T(x); see
            :mod:`kexplain.gp._interactions` and the documentation page "Interactions of any
            order"); returns a :class:`kexplain.InteractionExplanation`, without ``uncertainty``.
            True, "sii" and "stii" (shap's pairwise layout) are not supported here (a ValueError
            says so).
        progress : bool
            Show a progress bar over the rows.
        n_jobs : int, optional
            Threads over row blocks; the values do not depend on it.
        random_state : None
            Accepted for the shared signature; the values are exact, so it has no effect.
        uncertainty : bool
            Also give the exact posterior covariance of the values (stochastic Shapley values,
            Chau, Muandet & Sejdinovic, 2023): the values of a posterior draw of the latent f are
            jointly Gaussian with mean ``values`` and, per row, covariance ``covariance`` (N, d, d),
            exactly, from the additive structure of the OAK kernel (see
            :mod:`kexplain.gp._uncertainty`); also ``base_variance`` (the variance of the game's
            v(empty set): of f_0 in the functional-ANOVA game, of the weighted background mean of
            f in the interventional game) and ``prediction_variance`` (of f(x)).  In target units.
        joint : bool
            With ``uncertainty``: also ``joint_covariance`` (N, d, N, d), the covariance between
            the values of different rows (the rows are then explained in one block).

        Returns
        -------
        Explanation
            ``base_values + values.sum(axis=1) == model.predict(X)`` to rounding.

        Examples
        --------
        >>> import numpy as np
        >>> import kexplain as kx
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(30, 3))
        >>> gp = kx.gp.OAKRegressor(max_iter=0).fit(X, np.sin(X[:, 0]) + X[:, 1])
        >>> ex = kx.gp.OAKExplainer(gp).explain(X[:2])
        >>> ex.game, bool(np.allclose(ex.predictions, gp.predict(X[:2])))
        ('anova', True)
        >>> ex = kx.gp.OAKExplainer(gp, X[:5]).explain(X[:2], uncertainty=True)  # credible intervals
        >>> lower, upper = ex.interval(0.95)
        >>> ex.covariance.shape, bool(np.all(lower <= ex.values)), bool(np.all(ex.values <= upper))
        ((2, 3, 3), True, True)
        """
        if isinstance(interactions, Mapping):
            if uncertainty is not False or joint is not False:
                raise ValueError(
                    "interactions={...} (any order) gives no posterior covariance: pass uncertainty=False."
                )
            return explain_interactions(self, X, interactions, progress=progress, n_jobs=n_jobs)
        interactions, progress, n_jobs = check_explain_options(interactions, progress, n_jobs)
        if interactions:
            raise ValueError(
                f"OAKExplainer does not compute interactions in shap's pairwise layout (game {self.game!r}): pass "
                "interactions={'index': 'SII', 'max_order': 2} (any index and order) or interactions=False."
            )
        uncertainty = check_bool(uncertainty, "uncertainty")
        if check_bool(joint, "joint") and not uncertainty:
            raise ValueError("joint=True gives the covariance between rows' values: it needs uncertainty=True.")
        model = self.model
        Xv = model._validated(X)  # shapes named before scikit-learn's checks (which name no argument)
        Z = model._encoder.transform(Xv)
        names = list(self.feature_names) if self.feature_names is not None else model.feature_names_
        index = row_index(X)
        post = self._posterior_tables() if uncertainty else None  # once, before the threads

        def run(rows: slice) -> Explanation:
            Zr = Z[rows]
            game: AnovaGame | InterventionalGame
            if self._tables is None:
                game = AnovaGame(model.bases_, model.support_, self._ls, model.order_variances_, self._coef, Zr)
            else:
                game = InterventionalGame(
                    model.bases_, model.support_, self._ls, model.order_variances_, self._tables, Zr
                )
            res = solve_additive_game(game, progress=progress and n_jobs <= 1)
            extra: dict[str, Any] = {}
            if post is not None:
                cov, pred_var = post.point_covariance(Zr)
                extra = {
                    "covariance": cov,
                    "base_variance": np.full(Zr.shape[0], post.base_variance),
                    "prediction_variance": pred_var,
                }
                if joint:
                    extra["joint_covariance"] = post.joint_covariance(Zr)
            return Explanation(
                res.values[:, :, 0],
                model.y_mean_ + res.v_empty[:, 0],
                data=Xv[rows],
                feature_names=names,
                game=self.game,
                output=self.output,
                index=None if index is None else index[rows],
                info={"max_interaction_order": model.max_order_},
                v_full=model.y_mean_ + res.v_full[:, 0],
                **extra,
            )

        if joint:  # the covariance between rows needs every row in one block
            return run(slice(0, Z.shape[0]))
        return explain_in_blocks(run, Z.shape[0], n_jobs)

    def _posterior_tables(self) -> OAKPosteriorShapley:
        """The model's and background's tables for the covariance of the values, built once."""
        if self._posterior is None:
            self._posterior = OAKPosteriorShapley(self.model, self._Zb, self._w)
        return self._posterior

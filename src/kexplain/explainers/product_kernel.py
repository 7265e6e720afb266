"""ProductKernelExplainer: exact Shapley values of product-kernel models."""
from __future__ import annotations

import numpy as np

from .._validation import check_weights, feature_names_of
from ..explanation import Explanation
from ..models.sklearn import as_kernel_expansion
from ..shapley.product import (
    DEFAULT_BLOCK_BYTES,
    ProductGameResult,
    interaction_values,
    solve_product_game,
)
from .product_games import FunctionalGame, InterventionalGame


class ProductKernelExplainer:
    """Exact Shapley values of a model whose kernel is a product over features.

    Parameters
    ----------
    model : fitted scikit-learn estimator, Pipeline, or kx.KernelExpansion
        See ``kx.models.SUPPORTED_MODELS``; anything else raises ``kx.UnsupportedModelError``.
    feature_names : list of str, optional
        Defaults to the model's ``feature_names_in_`` or to the columns of the explained DataFrame.
    max_block_bytes : int
        Bound on the largest temporary array of the solver (memory per block).

    Three games, all exact, all O(n d^2) per point and row instead of O(2^d):

    - ``explain(X)``: the functional baseline of PKeX (absent features are integrated out of the
      kernel: k_j = 1), base value = sum of coefficients + intercept;
    - ``explain(X, background=B)``: interventional SHAP, v(S) = E_z f(x_S, z_not S) over the rows of
      B (the values shap's ExactExplainer gives with an independent masker), base value = mean
      prediction over B;
    - ``explain(X, baseline=z)``: baseline Shapley against one reference row z, base value = f(z).
    """

    def __init__(self, model, feature_names=None, max_block_bytes: int = DEFAULT_BLOCK_BYTES):
        self.model = model
        # the expansion keeps the model's own column names (feature_names_in_) for validating
        # DataFrames; ``feature_names`` only labels the explanation
        self.expansion = as_kernel_expansion(model)
        if feature_names is not None:
            if isinstance(feature_names, str) or not hasattr(feature_names, "__len__"):
                raise ValueError(
                    f"feature_names must be a list of {self.expansion.n_features} names, got {feature_names!r}."
                )
            if len(feature_names) != self.expansion.n_features:
                raise ValueError(
                    f"feature_names has {len(feature_names)} names for {self.expansion.n_features} features."
                )
        self.feature_names = (
            [str(n) for n in feature_names] if feature_names is not None else self.expansion.feature_names
        )
        if isinstance(max_block_bytes, (bool, np.bool_)) or not isinstance(max_block_bytes, (int, np.integer)) \
                or max_block_bytes < 2**16:
            raise ValueError(f"max_block_bytes must be an integer >= 65536, got {max_block_bytes!r}.")
        self.max_block_bytes = int(max_block_bytes)

    @property
    def n_features(self):
        return self.expansion.n_features

    def predict(self, X):
        """The explained output of the model, computed from its kernel expansion."""
        return self.expansion.predict(X)

    def _names(self, X):
        if self.feature_names is not None:
            return self.feature_names
        names = feature_names_of(X)
        return names if names is not None else [f"x{j}" for j in range(self.n_features)]

    def explain(
        self,
        X,
        background=None,
        baseline=None,
        interactions: bool = False,
        progress: bool = False,
        background_weights=None,
    ) -> Explanation:
        """Exact Shapley values of each row of ``X``.

        Parameters
        ----------
        X : array-like (N, d) or DataFrame
        background : array-like (n_b, d), optional
            Rows over which absent features are averaged (interventional game).
        baseline : array-like (d,) or (1, d), optional
            One reference row (baseline Shapley).  Not together with ``background``.
        interactions : bool
            Also compute pairwise Shapley interaction values (shap's convention: each row of the
            d x d matrix sums to the feature's Shapley value).
        progress : bool
            Show a progress bar over points.
        background_weights : array (n_b,), optional
            Non-negative weights of the background rows (normalised to sum to one).
        """
        em = self.expansion
        if not isinstance(interactions, (bool, np.bool_)):
            raise TypeError(f"interactions must be True or False, got {interactions!r}.")
        if not isinstance(progress, (bool, np.bool_)):
            raise TypeError(f"progress must be True or False, got {progress!r}.")
        if background is not None and baseline is not None:
            raise ValueError("give either background (interventional game) or baseline (one reference row), not both.")
        if background_weights is not None and background is None:
            raise ValueError("background_weights needs a background.")
        Xv = em.check_input(X, name="X")
        # a model fitted without column names still needs background columns that match X's
        columns = em.feature_names if em.feature_names is not None else feature_names_of(X)
        if background is not None:
            if not (hasattr(background, "columns") or (hasattr(background, "nnz") and hasattr(background, "toarray"))
                    or np.ndim(background) == 2):
                _bad_background(background)
            Z = em.check_input(background, name="background", feature_names=columns)
            w = np.full(Z.shape[0], 1.0 / Z.shape[0]) if background_weights is None else check_weights(
                background_weights, Z.shape[0])
            game, kind = InterventionalGame(em, Xv, Z, w), "interventional"
        elif baseline is not None:
            if hasattr(baseline, "columns") and len(baseline) == 1:
                z = baseline
            else:
                z = baseline.to_numpy() if hasattr(baseline, "to_numpy") else np.asarray(baseline)
                if z.ndim == 1:
                    z = z[None, :]
                if z.ndim != 2 or z.shape[0] != 1:
                    raise ValueError(
                        f"baseline must be one row of shape (d,) or (1, d), got shape {np.shape(baseline)}."
                    )
            Z = em.check_input(z, name="baseline", feature_names=columns)
            game, kind = InterventionalGame(em, Xv, Z, np.ones(1)), "baseline"
        else:
            game, kind = FunctionalGame(em, Xv), "functional"
        if em.n_rows == 0:
            # a constant model: every coalition has the intercept's value
            N, d, o = Xv.shape[0], em.n_features, em.n_outputs
            res = ProductGameResult(np.zeros((N, d, o)), np.zeros((N, o)), np.zeros((N, o)),
                                    np.zeros((N, d, d, o)) if interactions else None)
        else:
            res = solve_product_game(game, interactions=interactions, max_block_bytes=self.max_block_bytes,
                                     progress=progress)
        values = res.values
        base = res.v_empty + em.intercept[None, :]
        inter = None
        if interactions:
            # (N, d, d, o) -> shap's convention per output
            phi_o = np.moveaxis(values, 2, 1)                     # (N, o, d)
            I_o = np.moveaxis(res.interactions, 3, 1)             # (N, o, d, d)
            inter = np.moveaxis(interaction_values(phi_o, I_o), 1, 3)
        if em.single_output:
            values, base = values[:, :, 0], base[:, 0]
            inter = None if inter is None else inter[..., 0]
        return Explanation(
            values=values,
            base_values=base,
            data=Xv,
            feature_names=self._names(X),
            output_names=em.output_names,
            interactions=inter,
            game=kind,
            info={"v_full": res.v_full + em.intercept[None, :]},
        )


def _bad_background(background):
    raise ValueError(
        f"background must be a 2-D array or DataFrame of rows (n_rows, n_features), got shape {np.shape(background)}."
    )

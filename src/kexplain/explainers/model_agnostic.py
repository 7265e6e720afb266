"""ModelAgnosticExplainer: interventional Shapley values of any prediction function.

The game is v_x(S) = mean over the background rows z of f(x_S, z_Sc), evaluated on the model's
own outputs at the hybrid rows (x_S, z_Sc); its coalitions are enumerated (``kx.exact_shapley``)
up to ``max_exact_features`` features and sampled (``kx.sampled_shapley``) with standard errors
beyond.  Exact for any model, at a cost exponential in d; kernel models with a product kernel are
explained in polynomial time by ``kx.ProductKernelExplainer`` (``kx.RKHSExplainer`` routes them
there).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._params import check_positive_int
from .._typing import RandomStateLike
from .._validation import check_data, check_random_state, check_weights
from ..base import Explainer, background_rows, check_explain_options, row_index
from ..explanation import Explanation
from ..shapley.result import ShapleyValues
from .coalitions import Game, explain_coalitions, to_explanation
from .outputs import check_outputs, final_estimator, model_output

#: default bound, in bytes, on the hybrid rows (x_S, z_Sc) built in one block, with the model's
#: outputs on them
DEFAULT_MAX_BLOCK_BYTES = 64 * 2**20

#: attributes in which estimators keep the rows each prediction is compared with (kernel rows)
_SUPPORT_ATTRIBUTES = ("X_fit_", "X_train_", "support_vectors_", "X_ref")


class _HybridMean:
    """v(S)(x) = (weighted) mean over the background rows z of f(x_S, z_Sc), for a block of points,
    with the model called on at most ``rows_per_call`` hybrid rows at a time."""

    def __init__(
        self,
        outputs: Callable[[np.ndarray], np.ndarray],
        X: np.ndarray,
        Z: np.ndarray,
        w: np.ndarray | None,
        rows_per_call: int,
    ) -> None:
        self.outputs, self.X, self.Z, self.w = outputs, X, Z, w
        self.rows_per_call = rows_per_call

    def __call__(self, coalitions: np.ndarray) -> np.ndarray:
        return _hybrid_mean(self.outputs, self.X, self.Z, coalitions, self.w, self.rows_per_call)


def _hybrid_mean(
    outputs: Callable[[np.ndarray], np.ndarray],
    X: np.ndarray,
    Z: np.ndarray,
    coalitions: np.ndarray,
    w: np.ndarray | None = None,
    max_rows: int = 200_000,
) -> np.ndarray:
    """v(S)(x) = (weighted) mean_z f(x_S, z_Sc) for every coalition and point, shape (B, N, o).

    The hybrid rows are built and evaluated in blocks of at most ``max_rows`` rows: whole points
    (all their background rows) when a point's rows fit, else blocks of background rows of one
    point, whose weighted sums are added up.  Memory is O(max_rows * (d + o)), whatever N and
    the number of background rows.
    """
    N, nb = X.shape[0], Z.shape[0]
    wz = np.full(nb, 1.0 / nb) if w is None else np.asarray(w, dtype=np.float64)
    p_step = max(1, min(N, max_rows // nb))  # points per block
    z_step = max(1, min(nb, max_rows))  # background rows per block (all of them when p_step > 1)
    coalitions = np.asarray(coalitions, dtype=bool)
    res: np.ndarray | None = None
    for c, S in enumerate(coalitions):
        for p0 in range(0, N, p_step):
            ps = slice(p0, min(N, p0 + p_step))
            Xp = X[ps]
            for z0 in range(0, nb, z_step):
                zs = slice(z0, min(nb, z0 + z_step))
                H = np.repeat(Z[None, zs, :], Xp.shape[0], axis=0)  # (p, z, d)
                H[:, :, S] = Xp[:, None, S]
                out = outputs(H.reshape(-1, H.shape[2]))
                out = out.reshape(Xp.shape[0], H.shape[1], -1)
                part = np.einsum("pzo,z->po", out, wz[zs])
                if res is None:
                    res = np.zeros((coalitions.shape[0], N, out.shape[2]))
                res[c, ps] += part
    assert res is not None
    return res


class ModelAgnosticExplainer(Explainer):
    """Interventional Shapley values of any prediction function, exact or sampled.

    The game is v_x(S) = mean over the background rows z of f(x_S, z_Sc) (shap's interventional
    game: shap's ``ExactExplainer`` with an independent masker on the same background rows), with
    f the model's own output.  Coalitions are enumerated (``kx.exact_shapley``) when
    d <= ``max_exact_features``, otherwise sampled (``kx.sampled_shapley``) with standard errors.
    The cost is exponential in d; for a kernel model with a product kernel
    ``kx.ProductKernelExplainer`` gives the same values in polynomial time.

    Parameters
    ----------
    model : fitted model or callable
        Any prediction callable or object with ``predict``.  Classifiers are explained on
        ``decision_function`` where they have one, else on ``predict_proba``; a ``Pipeline`` on its
        own output.
    background : array-like of shape (n, d), optional
        Rows whose distribution the absent features are averaged over (at least 2).  When None,
        the training rows of an estimator that keeps them (``X_fit_``, ``X_train_``); a callable
        needs it.
    background_weights : array-like of shape (n,), optional
        Non-negative weights of the background rows (normalised to sum to one).
    feature_names : sequence of str, optional
        Labels of the features; default the model's (``feature_names_in_``), else the columns of
        ``X``, else x0, x1, ...
    max_exact_features : int
        Enumerate all coalitions up to this many features; sample beyond.
    max_block_bytes : int
        Bound, in bytes, on the hybrid rows (x_S, z_Sc) built at once, with the model's outputs on
        them (default 64 MiB): the model is called on blocks of at most
        ``max_block_bytes // (8 * (d + n_outputs + n_support))`` rows, where ``n_support`` is the
        number of training rows a kernel model compares each row with (0 for a callable), so its
        kernel rows stay within the bound too.  Each ``n_jobs`` thread holds one block.  The
        values do not depend on it (to rounding).

    Attributes
    ----------
    game : str
        ``"interventional"``.
    output : str
        The model output explained, e.g. ``"predict of KernelRidge"``.
    background : ndarray of shape (n, d)
        The validated background rows.
    background_weights : ndarray of shape (n,) or None
        The normalised weights, None for equal weights.
    n_features : int

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.explainers import ModelAgnosticExplainer
    >>> rng = np.random.default_rng(0)
    >>> B = rng.normal(size=(30, 3))
    >>> def f(X):
    ...     return X[:, 0] * X[:, 1] + X[:, 2]
    >>> ex = ModelAgnosticExplainer(f, B)
    >>> ex.game, ex.output
    ('interventional', 'f (callable)')
    >>> e = ex.explain(B[:2])
    >>> bool(np.allclose(e.values.sum(axis=1), f(B[:2]) - f(B).mean()))
    True
    """

    game = "interventional"

    def __init__(
        self,
        model: Any,
        background: Any = None,
        *,
        background_weights: Any = None,
        feature_names: Sequence[str] | None = None,
        max_exact_features: int = 12,
        max_block_bytes: int = DEFAULT_MAX_BLOCK_BYTES,
    ) -> None:
        background = background_rows(background)  # a shap Independent masker gives its rows
        super().__init__(model, background, background_weights=background_weights, feature_names=feature_names)
        self.max_exact_features = check_positive_int(max_exact_features, "max_exact_features")
        self.max_block_bytes = check_positive_int(max_block_bytes, "max_block_bytes")
        est = final_estimator(model)
        self._predict, self.output = model_output(model)
        n = getattr(est, "n_features_in_", None)
        n_features = None if n is None else int(n)
        names = getattr(model, "feature_names_in_", None)
        if self.feature_names is None and names is not None:
            self.feature_names = [str(c) for c in names]
        # a model that says which features are labels (a KernelExpansion) has its rows checked so
        self._numeric_mask = getattr(model, "numeric_mask", None)
        if background is None:
            background = None if est is not model else getattr(est, "X_fit_", getattr(est, "X_train_", None))
            if background is None:
                raise ValueError(
                    f"background is required for a model of type {type(est).__name__}: it does not keep its "
                    "training rows. Pass the rows whose distribution the expectations are taken over."
                )
        R = check_data(background, name="background", n_features=n_features, numeric_mask=self._numeric_mask)
        if R.shape[0] < 2:
            raise ValueError(f"background must have at least 2 rows, got {R.shape[0]}.")
        self.background = R
        self.n_features = int(R.shape[1] if n_features is None else n_features)
        self.background_weights = None if background_weights is None else check_weights(background_weights, R.shape[0])
        self._n_outputs = int(self._outputs(R[:1]).shape[1])  # sizes the blocks of hybrid rows

    def _outputs(self, X: np.ndarray) -> np.ndarray:
        return check_outputs(self._predict, X)

    def _check_X(self, X: Any) -> np.ndarray:
        return np.asarray(check_data(X, name="X", n_features=self.n_features, numeric_mask=self._numeric_mask))

    def _rows_per_call(self) -> int:
        """Hybrid rows per model call: ``max_block_bytes`` over the bytes one row takes (its d
        features, the outputs and, for a kernel model, its kernel row against the training rows)."""
        est = final_estimator(self.model)
        support = 0
        for attr in _SUPPORT_ATTRIBUTES:
            ref = getattr(est, attr, None)
            if ref is not None and hasattr(ref, "shape"):
                support = int(ref.shape[0])
                break
        return max(1, self.max_block_bytes // (8 * (self.n_features + self._n_outputs + support)))

    def _game_at(self, Xv: np.ndarray, coalition_jobs: int = 1) -> Game:
        return _HybridMean(self._outputs, Xv, self.background, self.background_weights, self._rows_per_call())

    def value_function(self, X: Any) -> Game:
        """The interventional game at the rows of ``X``.

        Parameters
        ----------
        X : array-like of shape (N, d)
            The points whose coalitions are valued.

        Returns
        -------
        callable
            Takes a boolean array of coalitions (n_coalitions, d) and returns the values
            v_x(S), shape (n_coalitions, N, n_outputs).

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.explainers import ModelAgnosticExplainer
        >>> B = np.random.default_rng(0).normal(size=(20, 2))
        >>> v = ModelAgnosticExplainer(lambda X: X.sum(axis=1), B).value_function(B[:3])
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
    ) -> Explanation:
        """Interventional Shapley values of each row of ``X``.

        The game is the mean over the background rows z of f(x_S, z_Sc); shap's
        ``ExactExplainer`` with an independent masker on the same background rows gives the same
        values (its sampling explainers estimate them).

        Parameters
        ----------
        X : array-like of shape (N, d) or DataFrame
            The points to explain (a DataFrame is matched to the model's columns by name).
        interactions : bool or {"sii", "stii"}
            Also compute pairwise interaction values in shap's layout: True or "sii" the Shapley
            interaction index, "stii" the Shapley-Taylor index of order 2 (shap's
            ``ExactExplainer``).  Needs enumerated coalitions (d <= ``max_exact_features``, no
            ``budget``).
        progress : bool
            Show a progress bar over coalition evaluations.
        n_jobs : int, optional
            Threads over blocks of rows; the values do not depend on it.  With ``tol`` the rows
            are solved in one block.
        random_state : None, int or numpy Generator/RandomState
            Seeds the sampled solver; no effect on enumerated values.
        budget : int, optional
            Coalition evaluations for the sampled solver.  None: exact enumeration when
            d <= max_exact_features, else 64 * d evaluations (at least 1024).  Giving a budget
            always uses the sampled solver.
        tol : float, optional
            Early stop of the sampled solver once every standard error is below it.

        Returns
        -------
        Explanation
            ``game`` is ``"interventional"``; sampled values carry ``standard_errors``.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.explainers import ModelAgnosticExplainer
        >>> B = np.random.default_rng(0).normal(size=(20, 2))
        >>> e = ModelAgnosticExplainer(lambda X: 2.0 * X[:, 0], B).explain(B[:1])
        >>> bool(np.isclose(e.values[0, 0], 2.0 * (B[0, 0] - B[:, 0].mean()))), float(e.values[0, 1])
        (True, 0.0)
        """
        interactions, progress, n_jobs = check_explain_options(interactions, progress, n_jobs)
        check_random_state(random_state)
        Xv = self._check_X(X)
        names = self._names(X, self.n_features)
        ex = explain_coalitions(
            self._game_at,
            lambda res, rows: self._to_explanation(res, rows, names),
            Xv,
            self.n_features,
            max_exact_features=self.max_exact_features,
            interactions=interactions,
            progress=progress,
            n_jobs=n_jobs,
            random_state=random_state,
            budget=budget,
            tol=tol,
            system_size=self.background.shape[0],
        )
        ex.index = row_index(X)
        return ex

    def _to_explanation(self, res: ShapleyValues, Xv: np.ndarray, names: list[str]) -> Explanation:
        return to_explanation(res, Xv, names, game=self.game, output=self.output)

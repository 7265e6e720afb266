"""STAR-SHAP: exact interventional Shapley values of structured additive models.

For a STAR model h(x) = sum_t f_t(x_{I_t}) and the interventional game
v(S) = E_z h(x_S, z_{not S}) (z uniform, or weighted, over background rows), Shapley values are
linear in the game, and the game of term t depends on S only through S & I_t.  A player outside
I_t is null in it, and the Shapley value of a player of I_t in a game that ignores every other
player equals its Shapley value in the sub-game over I_t alone.  So

    phi_j = sum_{t: j in I_t} phi_j(v_t),   v_t(A) = E_z f_t(r_A(z, x)_{I_t}),  A subset of I_t,

which is Theorem 3.1 (equation 23) of Dubé & Marchand, "Shapley Values of Structured Additive
Regression Models and Application to RKHS Weightings of Functions", regrouped: each term's
2^|I_t| sub-coalition values are evaluated once and shared by all its features (their
Algorithm 1); terms over the same feature set share one sub-game.  The sub-games are solved by
kexplain's enumeration solver, so the cost is O(m N 2^k F(k)) (their section 3) and does not
depend on the total number of features.  The pairwise Shapley interaction index decomposes the
same way (null players do not change it), so interactions come from the same sub-games.

Only the empty coalition of a sub-game reads the background alone; its values (one per block of
background rows) and the base value are computed once, when the explainer is built.

This module holds the explainer, :func:`explain_star` and the cut of the solver's batches with
interactions; the sub-games (the terms grouped by feature set, their values for a block of
points) live in ``_subgames``, the STAR view of the model against the background in
``_model_view``.  Every name this module defined before that split is still imported from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._params import Integer, check_param
from .._typing import RandomStateLike
from .._validation import check_data, check_weights, feature_names_of
from ..base import Explainer, background_rows, check_explain_options, explain_in_blocks, row_index
from ..explanation import Explanation
from ..shapley import exact_shapley
from ..shapley.enumeration import MAX_ENUMERATION_FEATURES
from ._model_view import _is_bare_term, _star_model_for  # noqa: F401  (_is_bare_term: a name of the module before the split)
from ._subgames import (  # noqa: F401  (_Member, _evaluate_members: names of the module before the split)
    _add_outputs,
    _evaluate_members,
    _Group,
    _group_by_subset,
    _Member,
    _SubsetGame,
)
from .adapters import as_star_model  # noqa: F401  (imported here before the split)
from .model import StarModel, StarTerm, evaluate_term  # noqa: F401  (imported here before the split)

#: default bound on the number of rows one term evaluation sees (coalitions x points x background)
DEFAULT_MAX_ROWS = 2**18
#: with ``interactions=True`` the enumeration solver holds a handful of (batch, k, k) arrays per
#: batch of coalitions; the batch is cut so that one such array takes at most a quarter of this
#: many bytes (about 4.6 GB for one 20-feature term with the values-only batch of 2^18)
INTERACTION_BLOCK_BYTES = 64 * 2**20


class StarExplainer(Explainer):
    """Exact interventional Shapley values of a STAR model (STAR-SHAP).

    STAR-SHAP (Dubé & Marchand, "Shapley Values of Structured Additive Regression Models and
    Application to RKHS Weightings of Functions", Theorem 3.1 and Algorithm 1) explains a
    structured additive model h(x) = intercept + sum_I f_I(x_I) exactly, at a cost that grows as
    2^k in the largest term size k but does not depend on the number of features.

    Parameters
    ----------
    model : StarModel, list of (features, function) pairs, or fitted estimator
        A :class:`StarModel`; a list of (features, function) pairs; a fitted
        :class:`RKHSWeightingRegressor` / :class:`RKHSWeightingClassifier`; or a fitted interpret
        ``ExplainableBoostingRegressor`` / ``ExplainableBoostingClassifier`` (see
        :func:`as_star_model`).
    background : array-like of shape (m, d)
        Required: rows over which absent features are averaged (the interventional game has no
        meaning without them); the base value is the (weighted) mean model output over them.
        A training sample of a few hundred rows is typical.
    background_weights : array-like of shape (m,), optional
        Non-negative weights of the background rows (normalised to sum to one).
    feature_names : sequence of str, optional
        Labels of the features; by default the model's, else the background's columns.
    max_rows : int
        Bound on the rows passed to a term function in one call (memory); values do not depend
        on it.  With ``interactions=True`` the coalitions per solver call are further bounded so
        that the solver's (coalitions, k, k) temporaries stay within ``INTERACTION_BLOCK_BYTES``
        (64 MiB; one point and one background row of a 20-feature term peak well under 500 MB).

    Attributes
    ----------
    game : str
        ``"interventional"``: the game every call of ``explain`` solves.
    output : str
        Which model output is explained (``"predict of RKHSWeightingRegressor"``,
        ``"sum of terms"`` for a list of terms).
    star_model : StarModel
        The STAR view of ``model``.
    expected_value : ndarray of shape (n_outputs,)
        The base value: the weighted mean model output over the background.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.star import StarExplainer
    >>> terms = [((0,), lambda X: X[:, 0] ** 2), ((0, 1), lambda X: X[:, 0] * X[:, 1])]
    >>> background = np.array([[0.0, 0.0], [1.0, -1.0]])
    >>> explainer = StarExplainer(terms, background)
    >>> ex = explainer.explain(np.array([[2.0, 1.0]]))
    >>> np.round(ex.values, 3), np.round(ex.base_values, 3), explainer.game
    (array([[4., 2.]]), array([0.]), 'interventional')
    >>> np.round(ex.predictions, 3)              # 2^2 + 2 * 1
    array([6.])
    """

    game = "interventional"

    def __init__(
        self,
        model: Any,
        background: Any = None,
        *,
        background_weights: Any = None,
        feature_names: Sequence[str] | None = None,
        max_rows: int = DEFAULT_MAX_ROWS,
    ) -> None:
        background = background_rows(background)  # a shap Independent masker gives its rows
        if background is None:
            raise ValueError(
                "StarExplainer needs a background: STAR-SHAP solves the interventional game, which averages "
                "the absent features over background rows, and there is no default. Pass the rows as the "
                "second argument, e.g. StarExplainer(model, X_train) or StarExplainer(model, X_train[:200])."
            )
        try:
            ndim = np.ndim(background)
        except ValueError:  # ragged rows: check_data below says which row
            ndim = 2
        if ndim != 2 and not hasattr(background, "columns"):
            raise ValueError(
                "background must be a 2-D array or DataFrame of rows (m, n_features), got shape "
                f"{np.shape(background)}."
            )
        super().__init__(model, background, background_weights=background_weights, feature_names=feature_names)
        Z = check_data(background, name="background", min_rows=1)
        m, d = Z.shape
        self.star_model: StarModel = _star_model_for(model, d)
        self._width_from_background = isinstance(model, (list, tuple)) and not isinstance(model, StarTerm)
        self.background = Z
        self.background_weights = (
            np.full(m, 1.0 / m) if background_weights is None else check_weights(background_weights, m)
        )
        check_param(max_rows, "max_rows", Integer(1))
        self.max_rows = int(max_rows)
        too_big = [t.name for t in self.star_model.terms if t.size > MAX_ENUMERATION_FEATURES]
        if too_big:
            raise ValueError(
                f"term(s) {too_big[:3]} have more than {MAX_ENUMERATION_FEATURES} features; STAR-SHAP costs "
                f"2^|I| evaluations per term and accepts terms of at most {MAX_ENUMERATION_FEATURES} features."
            )
        if self.feature_names is None:
            self.feature_names = self.star_model.feature_names or feature_names_of(background)
        if self.feature_names is not None and len(self.feature_names) != d:
            raise ValueError(f"feature_names has {len(self.feature_names)} names for {d} features.")
        self.output = self.star_model.output
        # everything that depends only on the model and the background
        self._groups = [
            _Group(feats, members, Z, self.background_weights, self.max_rows)
            for feats, members in _group_by_subset(self.star_model.terms)
        ]
        total = self.star_model.intercept.astype(np.float64).copy()
        for g in self._groups:
            for e in g.empty:
                total = _add_outputs(total, e)
        self.expected_value: np.ndarray = total

    @property
    def n_features(self) -> int:
        """Number of features d of the explained rows."""
        return self.star_model.n_features

    def explain(
        self,
        X: Any,
        *,
        interactions: bool | str | None = False,
        progress: bool = False,
        n_jobs: int | None = None,
        random_state: RandomStateLike = None,
    ) -> Explanation:
        """Exact interventional Shapley values of each row of ``X`` against the background.

        The game solved is the interventional one, v(S) = sum_z w_z h(x_S, z_{not S}) over the
        background rows z given at construction (there is no default game: a background is
        required).  These are the values of shap's ``ExactExplainer`` with an independent masker
        on the same rows: ``shap.explainers.ExactExplainer(predict, shap.maskers.Independent(
        background, max_samples=len(background)))``, with ``predict`` the explained output;
        shap's sampling explainers (``KernelExplainer``, ``PermutationExplainer``) estimate the
        same values.  For the observational game use ``kx.RKHSExplainer`` (see the documentation
        page "Which game should I use?").

        Parameters
        ----------
        X : array-like of shape (N, d)
            The rows to explain.
        interactions : bool or {"sii", "stii"}
            Also compute pairwise interaction values in shap's layout (off-diagonal I_jk / 2,
            diagonal phi_j - sum_{k != j}; each row sums to phi_j).  True or "sii": the Shapley
            interaction index (shap's ``TreeExplainer`` convention); "stii": the Shapley-Taylor
            index of order 2 (shap's ``ExactExplainer``).  ``interaction_index`` says which.
        progress : bool
            Show a progress bar over the terms' feature sets.
        n_jobs : int, optional
            Threads over blocks of rows (None: 1; -1: every core); the values do not depend on it.
        random_state : None, int or Generator
            Accepted for the shared call shape; it has no effect, STAR-SHAP is exact.

        Returns
        -------
        Explanation
            ``values`` of shape (N, d), or (N, d, n_outputs) for several outputs; ``game`` is
            ``"interventional"``, ``output`` says which model output is explained.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain.star import StarExplainer
        >>> explainer = StarExplainer([((0, 1), lambda X: X[:, 0] * X[:, 1])], np.zeros((1, 2)))
        >>> ex = explainer.explain(np.array([[2.0, 3.0]]), interactions=True)
        >>> np.round(ex.values, 3)              # x0 * x1 splits equally
        array([[3., 3.]])
        >>> np.round(ex.interactions[0], 3)
        array([[0., 3.],
               [3., 0.]])
        """
        interactions, progress, n_jobs = check_explain_options(interactions, progress, n_jobs)
        d = self.n_features
        try:
            ndim = np.ndim(X)
        except ValueError:  # ragged rows: check_data below says which row
            ndim = 2
        if ndim == 1 and not hasattr(X, "columns"):
            raise ValueError(
                f"X must be 2-D with shape (n_samples, {d}); got a 1-D array. Use X.reshape(1, -1) for a single row."
            )
        try:
            Xv = check_data(X, name="X", n_features=d)
        except ValueError as exc:
            if self._width_from_background and "but the model expects" in str(exc):
                # the terms were given as a list: their width is the background's, not a fitted model's
                where = "the width of the background the terms were given with"
                raise ValueError(f"{str(exc).rstrip('.')} ({where}).") from None
            raise
        index = row_index(X)
        names = self._names(X, d)

        def block(rows: slice) -> Explanation:
            show = progress and rows.start == 0
            values, base, inter = self._explain_rows(Xv[rows], interactions, show)
            return Explanation(
                values=values,
                base_values=base,
                data=Xv[rows],
                feature_names=names,
                output_names=self.star_model.output_names,
                interactions=inter,
                game=self.game,
                info={
                    "method": "STAR-SHAP",
                    "n_terms": len(self.star_model.terms),
                    "max_order": self.star_model.max_order,
                },
                interaction_index=interactions,
                output=self.output,
                index=None if index is None else index[rows],
            )

        return explain_in_blocks(block, Xv.shape[0], n_jobs)

    def _explain_rows(
        self, Xv: np.ndarray, interactions: str | None, progress: bool
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        N, d = Xv.shape
        Z, w = self.background, self.background_weights
        o = self.expected_value.size
        values = np.zeros((N, d, o))
        inter = np.zeros((N, d, d, o)) if interactions else None
        groups: Any = self._groups
        if progress:
            from tqdm.auto import tqdm

            groups = tqdm(groups, desc="STAR-SHAP", unit="subset")
        for g in groups:
            feats = g.feats
            k = len(feats)
            XI, ZI = Xv[:, feats], Z[:, feats]
            batch = _interaction_batch(g.batch, k) if interactions else g.batch
            m_chunk = g.chunks[0].stop - g.chunks[0].start
            p_chunk = min(N, max(1, g.per_coalition // m_chunk))
            for p0 in range(0, N, p_chunk):
                ps = np.arange(p0, min(N, p0 + p_chunk))
                for zs, empty in zip(g.chunks, g.empty):
                    game = _SubsetGame(g.members, XI[ps], ZI[zs], w[zs], empty)
                    # shap's layout is linear in the game: the sub-games' layouts add up
                    res = exact_shapley(game, k, interactions=interactions, batch_size=batch)
                    # a one-output term in a several-output model adds to every output, as in predict
                    values[np.ix_(ps, feats)] += res.values  # (p, k, o)
                    if inter is not None:
                        inter[np.ix_(ps, feats, feats, np.arange(o))] += res.interactions
        if not np.all(np.isfinite(values)):
            raise FloatingPointError("non-finite Shapley values: a term returned values that overflow.")
        base = np.broadcast_to(self.expected_value, (N, o)).copy()
        shap_inter = inter
        if o == 1:
            return values[:, :, 0], base[:, 0], None if shap_inter is None else shap_inter[..., 0]
        return values, base, shap_inter


def explain_star(
    model: Any,
    X: Any,
    background: Any,
    *,
    background_weights: Any = None,
    feature_names: Sequence[str] | None = None,
    max_rows: int = DEFAULT_MAX_ROWS,
    interactions: bool | str | None = False,
    progress: bool = False,
    n_jobs: int | None = None,
    random_state: RandomStateLike = None,
) -> Explanation:
    """One-shot STAR-SHAP: exact interventional Shapley values of a STAR model.

    The same as ``StarExplainer(model, background, ...).explain(X, ...)`` with the same keyword
    names; build a :class:`StarExplainer` instead to explain several batches against one
    background.

    Parameters
    ----------
    model : StarModel, list of (features, function) pairs, or fitted estimator
        See :class:`StarExplainer`.
    X : array-like of shape (N, d)
        The rows to explain.
    background : array-like of shape (m, d)
        Rows over which absent features are averaged (required).
    background_weights : array-like of shape (m,), optional
        Non-negative weights of the background rows, as in :class:`StarExplainer`.
    feature_names : sequence of str, optional
        Labels of the features, as in :class:`StarExplainer`.
    max_rows : int
        Bound on the rows passed to a term function in one call, as in :class:`StarExplainer`.
    interactions : bool or {"sii", "stii"}
        Also compute pairwise interaction values, as in :meth:`StarExplainer.explain`.
    progress : bool
        Show a progress bar over the terms' feature sets.
    n_jobs : int, optional
        Threads over blocks of rows (None: 1; -1: every core).
    random_state : None, int or Generator
        Accepted for the shared call shape; it has no effect, the values are exact.

    Returns
    -------
    Explanation
        The exact interventional Shapley values of the rows of ``X``.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.star import explain_star
    >>> ex = explain_star([((0,), lambda X: 3 * X[:, 0])], np.array([[1.0]]), np.array([[0.0], [2.0]]))
    >>> np.round(ex.values, 3), np.round(ex.base_values, 3)
    (array([[0.]]), array([3.]))
    """
    explainer = StarExplainer(
        model, background, background_weights=background_weights, feature_names=feature_names, max_rows=max_rows
    )
    return explainer.explain(X, interactions=interactions, progress=progress, n_jobs=n_jobs, random_state=random_state)


def _interaction_batch(batch: int, k: int) -> int:
    """Coalitions per solver call with interactions: one (batch, k, k) float array in a quarter of
    ``INTERACTION_BLOCK_BYTES`` (the solver holds a handful of them), at most ``batch``."""
    return max(1, min(batch, INTERACTION_BLOCK_BYTES // (4 * 8 * k * k)))

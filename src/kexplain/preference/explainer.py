"""PREF-SHAP: Shapley values of preference models over item features and context features.

Chau's thesis (2023), chapter 7: a duel (x^l, x^r) (with a context u) is explained by a game
whose players are the d item features, removed from BOTH items at once (d players, not 2d), or
the p context features, or both.  The games of a kernel preference model are product games, so
the interventional values are exact (``kexplain.preference._games``); the observational item and
context values go through the conditional mean embeddings of RKHS-SHAP.

The class is assembled here (its constructor, ``explain`` and the deprecated ``value``); it reads
and checks its input through ``_duel_inputs``; its base class ``_prefshap_solve.PrefShapSolver``
builds its game, solves blocks of duels and builds their Explanation.  Every name of the module
before those splits is still imported from here.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from .._deprecation import renamed_keyword
from .._params import Integer, check_param
from .._typing import RandomStateLike
from .._validation import check_random_state
from ..base import Explainer, check_explain_options, row_index
from ..explanation import Explanation
from ._duel_inputs import (  # noqa: F401  (_distinct_rows, _difference: names of the module before the split)
    _backgrounds,
    _check_choice,
    _check_options,
    _difference,
    _distinct_rows,
    _duels,
    _orientation,
)
from ._games import (  # noqa: F401  (_QuadratureGame: a name of the module before the split)
    BLOCK_BYTES,
    LEVELS,
    MAX_SUBSET_PLAYERS,
    ObservationalPreferenceGame,
    PreferenceGame,
    _QuadratureGame,
)
from ._prefshap_solve import DEFAULT_BUDGET, MAX_OBSERVATIONAL_ENUMERATION, PrefShapSolver  # noqa: F401
from .data import DuelData, Duels
from .expansion import PreferenceExpansion, preference_expansion

VALUES = ("interventional", "observational")
ROUTES = ("auto", "subsets", "quadrature")

#: a default background of the quadrature route keeps at most this many rows
DEFAULT_QUADRATURE_BACKGROUND = 32

OUTPUT = "decision_function: logit of p(left beats right)"


class PrefShapExplainer(PrefShapSolver, Explainer):
    """PREF-SHAP (Chau, 2023, thesis chapter 7): Shapley values of a preference model's duels.

    The explained output is the logit g(x^l, x^r[, u]) of "left beats right" of a preference
    model of :mod:`kexplain.preference` (a :class:`PreferenceClassifier`, a
    :class:`PreferenceGPClassifier` or a :class:`PreferenceExpansion`).  The players are, by
    ``level``:

    - ``"item"``: the d item features; a coalition S keeps x^l_S and x^r_S and removes the other
      features from BOTH items (d players, not 2d, as the thesis's Definition 7.3.1 asks).  A
      context model is explained at each duel's own context.  The base value is 0 (v(empty) = 0
      by the skew-symmetry of the kernel), so the values sum to g.
    - ``"context"``: the p context features of a context model (thesis Proposition 7.3.4), the
      items held at the explained duel.  The base value is the duel's logit averaged over the
      context background, E_U g(x^l, x^r, U); the values sum to g minus it.
    - ``"joint"``: item and context features together (d + p players).  The base value is 0.

    ``game="interventional"`` removes features by the background's marginal distribution: the
    left item's absent features from a background row z, the right item's from an independent row
    z' (the reference factorises over the two items), a context's from a context background row.
    These games are product games (rows: support duel x term of the kernel x background rows),
    solved exactly by kexplain's product-game engine, or, for up to 12 players when cheaper, by
    tabulating the absent sets once (the subset route).  ``game="observational"`` conditions on
    the kept features through conditional mean embeddings (thesis Proposition 7.3.3, corrected:
    the embedding is regressed on the item pool with the ridge K_S + n eta I) for the item and
    context levels: exact enumeration of the 2^d coalitions up to 12 players, sampled coalitions
    with standard errors beyond.

    Parameters
    ----------
    model : PreferenceClassifier, PreferenceGPClassifier or PreferenceExpansion
        A fitted preference model.
    background : array-like (n_background, d), optional
        Item rows over which absent item features are averaged (item and joint levels), or
        the item pool of the observational embeddings.  Default: the distinct items of the
        model's support duels (left and right); with more than 12 players, where only the
        quadrature route applies (its cost grows with n_background ** 2 for the general kernel),
        32 of them, evenly spaced in their order of appearance.  The default does not depend on
        ``route``, so ``route`` never changes the values (up to rounding).
    background_weights : array-like (n_background,), optional
        Weights of the background items.
    feature_names : sequence of str, optional
        Names of the players: d item names, p context names, or d + p (joint).  Default: the
        model's names.
    level : {"item", "context", "joint"}
    game : {"interventional", "observational"}, optional
        How absent features are removed; None (the default) means "interventional".
    context_background : array-like (n_contexts, p), optional
        Context rows (context and joint levels).  Default: the distinct contexts of the support
        duels (32 of them, evenly spaced, with more than 12 players).
    context_background_weights : array-like (n_contexts,), optional
        Weights of the context background rows (needs ``context_background``).
    cme_regularization : float, optional
        eta in the CME ridge (K_S + n eta I) of the observational games; None (the default) means
        1e-3 (the keyword of ``kx.RKHSExplainer``).
    n_landmarks : int, optional
        Nystroem landmarks for the observational embeddings (chosen with a fixed seed); None
        solves exactly.
    route : {"auto", "subsets", "quadrature"}
        Exact route of the interventional games; "auto" takes the cheaper one.
    max_block_bytes : int
        Bound on the work arrays of one block (default 32 MiB): the interventional games bound
        their product-game blocks by it, the observational games explain the duels in blocks
        whose kernel tables fit in it.  Peak memory is about the output, the model's and the
        background's tables and a few times this bound (one block per thread with ``n_jobs``).
    value : {"interventional", "observational"}, optional
        Deprecated spelling of ``game`` (a FutureWarning); passing both is a TypeError.
    regularization : float, optional
        Deprecated spelling of ``cme_regularization`` (a FutureWarning); passing both is a
        TypeError.

    Attributes
    ----------
    expansion : PreferenceExpansion
    game : str
        The game ``explain`` solves, e.g. ``"preferential item (interventional)"``.
    output : str
    route : str
        "subsets", "quadrature", "enumeration" or "sampling".

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.kernels import RBF
    >>> from kexplain.preference import Duels, PreferenceExpansion
    >>> from kexplain.preference.explainer import PrefShapExplainer
    >>> rng = np.random.default_rng(0)
    >>> L, R = rng.normal(size=(5, 3)), rng.normal(size=(5, 3))
    >>> pe = PreferenceExpansion(L, R, rng.normal(size=5), RBF(1.0))
    >>> ex = PrefShapExplainer(pe, rng.normal(size=(8, 3))).explain(Duels(L[:2], R[:2]))
    >>> ex.game, bool(np.abs(ex.values.sum(axis=1) - pe.decision_function(L[:2], R[:2])).max() < 1e-12)
    ('preferential item (interventional)', True)
    >>> np.round(ex.values[0], 3)
    array([-0.385, -0.285, -0.269])
    """

    def __init__(
        self,
        model: Any,
        background: Any = None,
        *,
        background_weights: Any = None,
        feature_names: Sequence[str] | None = None,
        level: str = "item",
        game: str | None = None,
        context_background: Any = None,
        context_background_weights: Any = None,
        cme_regularization: float | None = None,
        n_landmarks: int | None = None,
        route: str = "auto",
        max_block_bytes: int = BLOCK_BYTES,
        value: str | None = None,
        regularization: float | None = None,
    ) -> None:
        self.level = _check_choice(level, "level", LEVELS)
        game = renamed_keyword("PrefShapExplainer", "game", game, "value", value, "interventional")
        game = self._removal = _check_choice(game, "game", VALUES)
        eta = renamed_keyword(
            "PrefShapExplainer", "cme_regularization", cme_regularization, "regularization", regularization, 1e-3
        )
        route = _check_choice(route, "route", ROUTES)
        pe = preference_expansion(model)
        super().__init__(model, background, background_weights=background_weights, feature_names=feature_names)
        self.expansion: PreferenceExpansion = pe
        _check_options(
            pe, self.level, game, background, background_weights, context_background, context_background_weights
        )
        max_block_bytes = check_param(max_block_bytes, "max_block_bytes", Integer(2**16))
        uses_items = self.level in ("item", "joint")
        uses_contexts = self.level in ("context", "joint")
        if background is not None and not uses_items:
            raise ValueError(
                "background holds items, which level='context' does not remove; pass context rows as "
                "context_background."
            )
        if context_background is not None and not uses_contexts:
            raise ValueError("context_background is used by level='context' and level='joint' only.")
        d, p = pe.n_features, pe.n_context_features
        n_players = (d if uses_items else 0) + (p if uses_contexts else 0)
        # the quadrature route costs (background rows)^2 per support duel: a default background is
        # capped where it is the only route (more players than the subset route takes).  The cap
        # depends on the number of players only, never on ``route``: a different background is a
        # different game, and route= must choose how the same game is solved, not which game.
        cap = DEFAULT_QUADRATURE_BACKGROUND if game == "interventional" and n_players > MAX_SUBSET_PLAYERS else None
        Z, wz, U, wu = _backgrounds(
            pe,
            d,
            p,
            cap,
            uses_items,
            uses_contexts,
            background,
            background_weights,
            context_background,
            context_background_weights,
        )
        self.n_features = (d if uses_items else 0) + (p if uses_contexts else 0)
        names = list(pe.feature_names) if uses_items else []
        if uses_contexts:
            names += list(pe.context_names or [f"c{j}" for j in range(p)])
        if self.feature_names is not None and len(self.feature_names) != self.n_features:
            raise ValueError(
                f"feature_names has {len(self.feature_names)} names for the {self.n_features} players of "
                f"level={self.level!r}."
            )
        self._default_names = names
        self.game = f"preferential {self.level} ({game})"
        self.output = OUTPUT
        self.max_block_bytes = int(max_block_bytes)
        self._build_game(game, route, Z, wz, U, wu, background_weights, context_background_weights, n_landmarks, eta)

    @property
    def value(self) -> str:
        """Deprecated (a FutureWarning): the ``game=`` option given, ``game`` is the whole label.

        "interventional" or "observational".
        """
        warnings.warn(
            "PrefShapExplainer.value is deprecated; the option is game= and the attribute game holds its label.",
            FutureWarning,
            stacklevel=2,
        )
        return self._removal

    def explain(
        self,
        X: Duels | DuelData | Any,
        X_right: Any = None,
        context: Any = None,
        *,
        y: Any = None,
        interactions: bool | str | Mapping[str, Any] | None = False,
        progress: bool = False,
        n_jobs: int | None = None,
        random_state: RandomStateLike = None,
        budget: int | None = None,
        tol: float | None = None,
    ) -> Explanation:
        """PREF-SHAP values of the duels ``X`` (left[i] vs right[i], in context[i]).

        Solves ``self.game`` (see the class): the interventional games exactly (the product-game
        engine or the subset route, ``info["route"]``), the observational ones by enumerating
        all coalitions (up to 12 players) or by sampled coalitions with standard errors.  With
        no background at construction, absent features come from the distinct items (contexts)
        of the model's support duels.  A shap user gets the same interventional item values
        from shap's ``ExactExplainer`` on the d-player function S -> g(hybrid duel) with an
        independent masker whose background holds every pair (z_b, z_b') of background items
        (examples in ``benchmarks/bench_preference_shap.py``); shap has no two-item masker of
        its own, and applying it to the concatenated 2d-vector gives a different game (2d
        players, each feature valued twice).

        Parameters
        ----------
        X : Duels or DuelData, or array-like (N, d)
            The duels: ``Duels(X_left, X_right, context)`` (or a ``DuelData``, whose items and
            contexts are read), the one input every explainer's ``explain`` takes.  The
            shorthand ``explain(X_left, X_right, context)`` gives the same values.
        X_right : array-like (N, d), optional
            With the shorthand: the right items.
        context : array-like (N, p), optional
            With the shorthand: the context of each duel; required exactly when the model has
            one.
        y : array-like (N,), optional
            Outcomes (1/True: the left item won; 0, -1 or False: the right one).  When given,
            each duel is explained as winner vs loser, as the thesis plots it: by
            skew-symmetry the values (and base value and interactions) of duels the right item
            won change sign, and ``data`` holds winner - loser.
        interactions : bool or {"sii", "stii"}
            Pairwise interaction values in shap's layout (half the index off the diagonal, the
            main effect on it; each row sums to the feature's value): True or "sii" the Shapley
            interaction index, "stii" the Shapley-Taylor index of order 2.  Exact games only.
            A mapping ``{"index": ..., "max_order": k, "top_k": ..., "threshold": ...}`` asks for
            any index of any order (SV, BV, SII, k-SII, STII, FSII, BII, Moebius) and returns a
            :class:`kexplain.InteractionExplanation`: exact at any number of players for the
            interventional games, by enumeration (up to 12 players) for the observational ones.
        progress : bool
            Show a progress bar over duels.
        n_jobs : int, optional
            Threads over blocks of duels; the values do not depend on it.
        random_state : None, int or numpy Generator
            Seeds the sampled observational game (more than 12 players); no effect on the exact
            games.
        budget : int, optional
            Coalition evaluations per duel of the sampled observational game (default 2048).
        tol : float, optional
            Stop sampling once the largest standard error falls below it (checked per block of
            duels, so with ``tol`` the values may depend on ``n_jobs`` and ``max_block_bytes``).

        Returns
        -------
        Explanation
            ``values`` (N, players); ``base_values`` (0 for the item and joint levels, up to
            rounding; E_U g for the context level); ``data``: X_left - X_right (winner - loser
            with ``y``; the context rows for the context level, appended for the joint level;
            None for categorical items); ``v_full`` the explained logit,
            ``info["left"]``/``info["right"]`` the items, ``info["route"]``,
            ``efficiency_error``; ``standard_errors`` for sampled values.

        Examples
        --------
        Skew-symmetry: swapping the items changes the sign of every value.

        >>> import numpy as np
        >>> from kexplain.kernels import RBF
        >>> from kexplain.preference import PreferenceExpansion
        >>> from kexplain.preference import Duels
        >>> from kexplain.preference.explainer import PrefShapExplainer
        >>> rng = np.random.default_rng(1)
        >>> L, R = rng.normal(size=(4, 2)), rng.normal(size=(4, 2))
        >>> explainer = PrefShapExplainer(PreferenceExpansion(L, R, rng.normal(size=4), RBF(1.0)))
        >>> a, b = explainer.explain(Duels(L[:1], R[:1])), explainer.explain(Duels(R[:1], L[:1]))
        >>> bool(np.allclose(a.values, -b.values))
        True
        """
        X_left, X_right, context = _duels(X, X_right, context)
        if isinstance(interactions, Mapping):
            return self._explain_any_order(X_left, X_right, context, y, interactions, progress, n_jobs)
        interactions, progress, n_jobs = check_explain_options(interactions, progress, n_jobs)
        pe = self.expansion
        index = row_index(X_left)
        Xl, Xr, C = pe.check_duels(X_left, X_right, context)
        N = Xl.shape[0]
        sign = None if y is None else _orientation(y, N)
        sampled = self._observational is not None and self.route == "sampling"
        if interactions and sampled:
            raise ValueError(
                f"interactions need an exact game; the observational game of {self.n_features} players is "
                f"sampled (exact up to {MAX_OBSERVATIONAL_ENUMERATION} players)."
            )
        if budget is not None and not sampled:
            raise ValueError("budget applies to the sampled observational game (more than 12 players) only.")
        seed = int(check_random_state(random_state).integers(2**63)) if sampled else 0
        names = list(self.feature_names) if self.feature_names is not None else list(self._default_names)

        return self._solve_blocks(Xl, Xr, C, names, sign, index, interactions, progress, n_jobs, seed, budget, tol)

    def __call__(self, X: Any, X_right: Any = None, context: Any = None, **options: Any) -> Explanation:
        """Same as ``explain(X, X_right, context, **options)``."""
        return self.explain(X, X_right, context, **options)

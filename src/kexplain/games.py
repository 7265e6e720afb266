"""The games kexplain solves, declared once.

A Shapley value answers "how much did feature j contribute?" only once a game says what the model
does when a feature is absent: a value v(S) for every coalition S of present features.  Each game
kexplain solves is one :class:`Game` record in the table below (in the spirit of shapiq's
``game_theory/indices.py``): its name (the string results carry in ``Explanation.game``), a
one-line description, what the value of the empty coalition is (the base value), the paper and
section it comes from, and which explainers and functions give it.  Plots read their base-value
labels here, the report its descriptions, the command line its "which game" text, and the
documentation page "Which game should I use?" its table (a test keeps the page equal to
:func:`games_table`).

This module sits at the lowest floor: it imports only the standard library.

Examples
--------
>>> import kexplain as kx
>>> g = kx.games.get_game("functional")
>>> g.base_label
'v(∅) = sum of the coefficients + intercept'
>>> [g.name for g in kx.games.games()][:3]
['functional', 'interventional', 'interventional (summarised background)']
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

#: shap's base-value label (the mean prediction over the background); plots replace it by the
#: game's own label where the game's base value is something else
SHAP_BASE_LABEL = "E[f(X)]"


@dataclass(frozen=True)
class Game:
    """One game kexplain solves: a row of the games table.

    Parameters
    ----------
    name : str
        What results carry in ``Explanation.game`` (and ``GlobalAttribution.game``).
    description : str
        One line: what an absent feature becomes, and the base value.
    value_function : str
        v(S) in plain text.
    base_label : str
        What the value of the empty coalition (the base value) is, in plain text.
    base_label_math : str
        The same as matplotlib mathtext, for plots (shap's ``E[f(X)]`` where that is true).
    paper : str
        Authors, year, title and section the game comes from.
    given_by : tuple of str
        The explainers and functions that return it.
    title : str
        A short noun phrase for sentences ("interventional game").
    label : str
        A shorter label for legends and column headers.
    result : str
        The result type: ``"Explanation"``, ``"GlobalAttribution"`` or both, joined by " and ".
    aliases : tuple of str
        Other strings accepted for this game.
    notes : str
        Anything else a user should know (e.g. that ``uncertainty=True`` gives the game's
        stochastic Shapley values).

    Examples
    --------
    >>> from kexplain.games import Game
    >>> g = Game("toy", "a toy game.", "v(S) = |S|", "0", "0", "none", ("my_function",))
    >>> g.title, g.label
    ('toy game', 'toy')
    """

    name: str
    description: str
    value_function: str
    base_label: str
    base_label_math: str
    paper: str
    given_by: tuple[str, ...]
    title: str = ""
    label: str = ""
    result: str = "Explanation"
    aliases: tuple[str, ...] = field(default_factory=tuple)
    notes: str = ""

    def __post_init__(self) -> None:
        for attr in ("name", "description", "value_function", "base_label", "base_label_math", "paper"):
            value = getattr(self, attr)
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"Game.{attr} must be a non-empty string, got {value!r}.")
        if isinstance(self.given_by, str) or not all(isinstance(g, str) for g in self.given_by):
            raise TypeError(f"Game.given_by must be a tuple of strings, got {self.given_by!r}.")
        # frozen: defaults derived from the name are set through object.__setattr__
        if not self.title:
            object.__setattr__(self, "title", f"{self.name} game")
        if not self.label:
            object.__setattr__(self, "label", self.name)
        object.__setattr__(self, "given_by", tuple(self.given_by))
        object.__setattr__(self, "aliases", tuple(self.aliases))


_PKEX = "Mohammadi, Chau & Muandet (2025), PKeX-Shapley"
_RKHS_SHAP = "Chau, Hu, Gonzalez & Sejdinovic (2022), RKHS-SHAP"
_OAK = "Exact Shapley Value for Local and Global Explanation of Additive Gaussian Processes"
_PREF = "Chau (2023), thesis, chapter 7 (PREF-SHAP), section 7.3"
_GP_SHAP = "Chau, Muandet & Sejdinovic (2023), stochastic Shapley values (GP-SHAP), section 3"
_UNCERTAIN = f"explain(X, uncertainty=True) gives its stochastic Shapley values ({_GP_SHAP})."

_TABLE: tuple[Game, ...] = (
    Game(
        "functional",
        "functional baseline (PKeX): an absent feature is integrated out of the kernel (its "
        "kernel factor is set to 1); base value = sum of the coefficients + intercept.",
        "v(S) = sum_i alpha_i prod_{j in S} k_j(x_j, X_ij) + b",
        "v(∅) = sum of the coefficients + intercept",
        "v(\\emptyset)",
        f"{_PKEX}, section 3.1",
        ("kexplain.ProductKernelExplainer(model)",),
        title="functional-baseline game",
        label="functional baseline",
    ),
    Game(
        "interventional",
        "interventional SHAP: an absent feature takes the values of the background rows, "
        "averaged over them; base value = mean prediction over the background.",
        "v(S) = sum_z w_z f(x_S, z_notS) over the background rows z",
        "E[f(X)] = mean prediction over the background",
        SHAP_BASE_LABEL,
        f"{_RKHS_SHAP}, section 3, Propositions 2-3 (interventional value functional); "
        "Dubé & Marchand (2024), STAR-SHAP, Theorem 3.1, for STAR models",
        (
            "kexplain.ProductKernelExplainer(model, background)",
            "kexplain.RKHSExplainer(model, background, game='interventional')",
            "kexplain.star.StarExplainer(model, background)",
            "kexplain.gp.OAKExplainer(gp, background)",
        ),
        title="interventional game",
        notes=_UNCERTAIN,
    ),
    Game(
        "interventional (summarised background)",
        "interventional SHAP over a weighted k-means summary of the background; base value = "
        "weighted mean prediction over the summary centres.",
        "v(S) = sum_c w_c f(x_S, c_notS) over the summary centres c",
        "E[f(X)] over the summary centres",
        "\\hat{E}[f(X)]",
        f"{_RKHS_SHAP}, section 3 (interventional value functional), on a summarised background",
        ("kexplain.ProductKernelExplainer(model, background, background_summary=k)",),
        notes=_UNCERTAIN,
        title="interventional game on a summarised background",
        label="interventional (summary)",
    ),
    Game(
        "baseline",
        "baseline Shapley: an absent feature takes its value in one reference row; "
        "base value = prediction at that row.",
        "v(S) = f(x_S, z_notS) for one reference row z",
        "f(baseline) = prediction at the reference row",
        "f(\\mathrm{baseline})",
        "Sundararajan & Najmi (2020), The many Shapley values for model explanation (Baseline Shapley)",
        ("kexplain.ProductKernelExplainer(model, baseline=z)",),
        notes=_UNCERTAIN,
        title="baseline Shapley",
    ),
    Game(
        "anova",
        "functional ANOVA of an orthogonal additive GP: an absent feature's components are dropped; "
        "base value = the constant component f_0.",
        "v(S) = sum of the components f_T with T a subset of S",
        "f_0 = the constant component",
        "f_0",
        f"{_OAK}, section 3, Lemma 1",
        ("kexplain.gp.OAKExplainer(gp)",),
        notes=_UNCERTAIN,
        title="functional-ANOVA game",
        label="functional ANOVA",
    ),
    Game(
        "observational",
        "observational SHAP: the conditional expectation of the prediction given the present "
        "features, by conditional mean embeddings; base value = mean prediction over the background.",
        "v(S) = E[f(X) | X_S = x_S], estimated from the background rows",
        "E[f(X)] = mean prediction over the background",
        SHAP_BASE_LABEL,
        f"{_RKHS_SHAP}, section 3, Propositions 2-3 (observational value functional)",
        (
            "kexplain.RKHSExplainer(model, background)",
            "kexplain.RKHSExplainer(model, background, game='observational')",
        ),
        title="observational game",
        notes=_UNCERTAIN,
    ),
    Game(
        "preferential item (interventional)",
        "PREF-SHAP on items: an absent item feature of both sides of a duel takes the values of the "
        "item background rows; base value = 0 up to rounding (the preference of an item over itself).",
        "v(S) = E_z g(x_S, z_notS ; x'_S, z_notS) over the item background",
        "0 (an item against itself)",
        "0",
        f"{_PREF}, Proposition 7.3.1",
        ("kexplain.preference.PrefShapExplainer(model, background, level='item')",),
        title="preferential item game (interventional)",
        label="item (interventional)",
    ),
    Game(
        "preferential item (observational)",
        "PREF-SHAP on items, observational: absent item features are conditioned on the present ones "
        "by conditional mean embeddings; base value = 0 up to rounding.",
        "v(S) = E[g(X, X') | X_S = x_S, X'_S = x'_S]",
        "0 (an item against itself)",
        "0",
        f"{_PREF}, Proposition 7.3.3",
        ("kexplain.preference.PrefShapExplainer(model, background, level='item', game='observational')",),
        title="preferential item game (observational)",
        label="item (observational)",
    ),
    Game(
        "preferential context (interventional)",
        "PREF-SHAP on contexts: an absent context feature takes the values of the context background "
        "rows; base value = E_U g, the mean preference over the context background.",
        "v(S) = E_u g(x, x' ; c_S, u_notS) over the context background",
        "E_U[g] = mean preference over the context background",
        "E_U[g]",
        f"{_PREF}, Proposition 7.3.2",
        ("kexplain.preference.PrefShapExplainer(model, level='context', context_background=U)",),
        title="preferential context game (interventional)",
        label="context (interventional)",
    ),
    Game(
        "preferential context (observational)",
        "PREF-SHAP on contexts, observational: absent context features are conditioned on the present "
        "ones by conditional mean embeddings; base value = E_U g.",
        "v(S) = E[g(x, x' ; C) | C_S = c_S]",
        "E_U[g] = mean preference over the context background",
        "E_U[g]",
        f"{_PREF}, Proposition 7.3.4",
        ("kexplain.preference.PrefShapExplainer(model, level='context', game='observational', context_background=U)",),
        title="preferential context game (observational)",
        label="context (observational)",
    ),
    Game(
        "preferential joint (interventional)",
        "PREF-SHAP on items and contexts together, interventional; base value = 0 up to rounding.",
        "v(S) = E_{z,u} g(x_S, z ; x'_S, z ; c_S, u) over both backgrounds",
        "0 (an item against itself)",
        "0",
        f"{_PREF}, Propositions 7.3.1-7.3.2",
        ("kexplain.preference.PrefShapExplainer(model, background, level='joint', context_background=U)",),
        title="preferential joint game (interventional)",
        label="joint (interventional)",
    ),
    Game(
        "MMD^2",
        "the squared maximum mean discrepancy of two samples with the kernel restricted to the present "
        "features; the empty coalition is 0 and the values sum to MMD^2.",
        "v(S) = MMD^2(P_S, Q_S) with the product kernel over the features in S",
        "0 (MMD^2 of no feature)",
        "0",
        f"{_PKEX}, section 4.1 (explaining the MMD)",
        ("kexplain.stats.mmd_shapley", "kexplain.stats.mmd_test", "kexplain.stats.mmd_interactions"),
        title="MMD^2 game",
        result="GlobalAttribution and Explanation",
    ),
    Game(
        "HSIC",
        "the Hilbert-Schmidt independence criterion with one side's kernel restricted to the present "
        "features; the empty coalition is 0 and the values sum to HSIC.",
        "v(S) = HSIC(X_S, Y) with the product kernel over the features in S",
        "0 (HSIC of no feature)",
        "0",
        f"{_PKEX}, section 4.2 and appendix G (multivariate HSIC)",
        ("kexplain.stats.hsic_shapley", "kexplain.stats.hsic_test", "kexplain.stats.hsic_interactions"),
        title="HSIC game",
        result="GlobalAttribution",
    ),
    Game(
        "variance",
        "closed Sobol index: the variance of the model's conditional mean given the present features "
        "under the input measure; the empty coalition is 0 and the values (Shapley effects) sum to Var f(X).",
        "v(S) = Var(E[f(X) | X_S]) under independent inputs",
        "0 (no feature explains no variance)",
        "0",
        f"Owen (2014); Song, Nelson & Staum (2016), Shapley effects; {_OAK}, section 4, Theorem 1",
        (
            "kexplain.sensitivity.SensitivityAnalysis(model, ...).shapley_effects()",
            "kexplain.sensitivity.sobol_indices(model, ...)",
            "kexplain.gp.OAKRegressor(...).global_importance()",
            "kexplain.gp.OAKRegressor(...).global_interactions(interactions)",
        ),
        title="variance (Sobol) game",
        label="variance",
        result="GlobalAttribution",
    ),
    Game(
        "expected variance",
        "the posterior expectation of the closed Sobol index of a Gaussian-process model; the empty "
        "coalition is 0 and the values sum to E_f Var f(X).",
        "v(S) = E_f Var(E[f(X) | X_S]) under the GP posterior",
        "0 (no feature explains no variance)",
        "0",
        "Owen (2014) and Song, Nelson & Staum (2016), Shapley effects, taken in posterior expectation "
        "(design notes, kexplain.sensitivity)",
        (
            "kexplain.sensitivity.SensitivityAnalysis(gp, ..., target='posterior_expectation').shapley_effects()",
            "kexplain.sensitivity.sobol_indices(gp, ..., target='posterior_expectation')",
        ),
        title="expected-variance game",
        result="GlobalAttribution",
    ),
    Game(
        "posterior variance (interventional)",
        "the posterior variance of a Gaussian-process model with the absent features taken from the "
        "background rows, averaged; base value = mean posterior variance over the background.",
        "v(S) = sum_z w_z Var[f(x_S, z_notS) | data]",
        "E[Var f(X)] = mean posterior variance over the background",
        "E[\\sigma^2(X)]",
        f"{_GP_SHAP}, applied to the posterior variance (design notes, explain(X, target='variance'))",
        ("kexplain.ProductKernelExplainer(gp, background).explain(X, target='variance')",),
        title="posterior-variance game (interventional)",
        label="posterior variance (interventional)",
    ),
    Game(
        "posterior variance (summarised background)",
        "the posterior variance of a Gaussian-process model with the absent features taken from the "
        "summary centres of the background, weighted; base value = their weighted mean posterior variance.",
        "v(S) = sum_c w_c Var[f(x_S, c_notS) | data] over the summary centres c",
        "E[Var f(X)] over the summary centres",
        "\\hat{E}[\\sigma^2(X)]",
        f"{_GP_SHAP}, applied to the posterior variance (design notes, explain(X, target='variance'))",
        ("kexplain.ProductKernelExplainer(gp, background, background_summary=k).explain(X, target='variance')",),
        title="posterior-variance game (summarised background)",
        label="posterior variance (summary)",
    ),
    Game(
        "posterior variance (baseline)",
        "the posterior variance of a Gaussian-process model with the absent features taken from one "
        "reference row; base value = posterior variance at that row.",
        "v(S) = Var[f(x_S, z_notS) | data] for one reference row z",
        "Var f(baseline) = posterior variance at the reference row",
        "\\sigma^2(\\mathrm{baseline})",
        f"{_GP_SHAP}, applied to the posterior variance (design notes, explain(X, target='variance'))",
        ("kexplain.ProductKernelExplainer(gp, baseline=z).explain(X, target='variance')",),
        title="posterior-variance game (baseline)",
        label="posterior variance (baseline)",
    ),
)

_GAMES: dict[str, Game] = {}
_ALIASES: dict[str, str] = {}

#: the record of a game not in the table (a user's own string given to ``kx.Explanation``)
CUSTOM = Game(
    "custom",
    "a game not in kexplain's table, named by whoever built the explanation; base value = v(∅), "
    "the value of its empty coalition.",
    "v(S) as its author defined it",
    "v(∅) = the value of the empty coalition",
    "v(\\emptyset)",
    "none (not one of kexplain's games)",
    ("kexplain.Explanation(values, base_values, game='<your text>')",),
    title="custom game",
)


def register_game(game: Game, *, replace: bool = False) -> Game:
    """Add a game to the table (a new capability's game is declared once, here).

    Parameters
    ----------
    game : Game
        The record; its ``name`` and ``aliases`` must be new unless ``replace``.
    replace : bool, default False
        Replace the record of a game of the same name.

    Returns
    -------
    Game
        ``game``, now found by :func:`get_game` under its name and aliases.

    Examples
    --------
    >>> import kexplain as kx
    >>> g = kx.games.Game("witness", "MMD witness attribution.", "v(S) = witness_S(x)", "0", "0",
    ...                   "my notes", ("my_witness_attribution",))
    >>> kx.games.register_game(g).name
    'witness'
    >>> kx.games.get_game("witness").base_label
    '0'
    >>> kx.games.unregister_game("witness")
    """
    if not isinstance(game, Game):
        raise TypeError(f"game must be a kexplain.games.Game, got {type(game).__name__}.")
    if game.name == CUSTOM.name:
        raise ValueError(f"the name {CUSTOM.name!r} is reserved for games not in the table.")
    taken = [n for n in (game.name, *game.aliases) if n in _GAMES or n in _ALIASES]
    if replace and game.name in _GAMES:
        unregister_game(game.name)
        taken = [n for n in (game.name, *game.aliases) if n in _GAMES or n in _ALIASES]
    if taken:
        raise ValueError(f"the game names {taken} are already in the table; pass replace=True to replace a game.")
    _GAMES[game.name] = game
    for alias in game.aliases:
        _ALIASES[alias] = game.name
    return game


def unregister_game(name: str) -> None:
    """Remove a game added by :func:`register_game` (for tests and notebooks).

    Parameters
    ----------
    name : str
        The game's name.

    Examples
    --------
    >>> import kexplain as kx
    >>> kx.games.unregister_game("not a game")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: unknown game 'not a game'. ...
    """
    game = get_game(name)
    del _GAMES[game.name]
    for alias in game.aliases:
        _ALIASES.pop(alias, None)


def games() -> tuple[Game, ...]:
    """Every game of the table, in the table's order.

    Returns
    -------
    tuple of Game
        The records, the package's own first.

    Examples
    --------
    >>> import kexplain as kx
    >>> "observational" in [g.name for g in kx.games.games()]
    True
    """
    return tuple(_GAMES.values())


def game_names() -> list[str]:
    """The names of the games of the table.

    Returns
    -------
    list of str
        The names (without the aliases), in the table's order.

    Examples
    --------
    >>> import kexplain as kx
    >>> kx.games.game_names()[:2]
    ['functional', 'interventional']
    """
    return list(_GAMES)


class _FieldView(Mapping[str, str]):
    """{game name: one field of its record}, read live from the table (see :func:`field_view`)."""

    def __init__(self, field_name: str) -> None:
        self._field = field_name

    def __getitem__(self, game: str) -> str:
        if not is_game(game):
            raise KeyError(game)
        return str(getattr(get_game(game), self._field))

    def __iter__(self) -> Iterator[str]:
        return iter(game_names())

    def __len__(self) -> int:
        return len(_GAMES)

    def __repr__(self) -> str:
        return repr(dict(self))


def field_view(field_name: str) -> Mapping[str, str]:
    """A read-only ``{game name: field}`` mapping over one field of every record, read live.

    Plots take their base-value labels and the report its descriptions from such views, so a game
    registered later (:func:`register_game`) shows up in them without a second table.

    Parameters
    ----------
    field_name : str
        A text field of :class:`Game`: ``"description"``, ``"value_function"``, ``"base_label"``,
        ``"base_label_math"``, ``"paper"``, ``"title"``, ``"label"``, ``"result"`` or ``"notes"``.

    Returns
    -------
    Mapping of str to str
        Keys are the game names in the table's order (aliases also look up); values are the field.

    Examples
    --------
    >>> import kexplain as kx
    >>> descriptions = kx.games.field_view("description")
    >>> descriptions["functional"] == kx.games.get_game("functional").description
    True
    >>> list(descriptions)[:2]
    ['functional', 'interventional']
    """
    fields = (
        "description",
        "value_function",
        "base_label",
        "base_label_math",
        "paper",
        "title",
        "label",
        "result",
        "notes",
    )
    if field_name not in fields:
        raise ValueError(f"field_name must be one of {list(fields)}, got {field_name!r}.")
    return _FieldView(field_name)


def is_game(name: object) -> bool:
    """Whether ``name`` is the name or an alias of a game of the table.

    Parameters
    ----------
    name : object
        Anything; only strings can name a game.

    Returns
    -------
    bool
        True for a name or an alias of the table.

    Examples
    --------
    >>> import kexplain as kx
    >>> kx.games.is_game("anova"), kx.games.is_game("toy")
    (True, False)
    """
    return isinstance(name, str) and (name in _GAMES or name in _ALIASES)


def _near(name: str, cutoff: float) -> str | None:
    """The table name ``name`` is a likely typo of (compared without case and outer spaces), or None."""
    lowered = {n.lower(): n for n in _GAMES}
    close = difflib.get_close_matches(name.strip().lower(), list(lowered), n=1, cutoff=cutoff)
    return lowered[close[0]] if close else None


def _unknown(name: object) -> ValueError:
    close = _near(str(name), 0.8)
    hint = f" Did you mean {close!r}?" if close else ""
    return ValueError(
        f"unknown game {name!r}.{hint} The games of kexplain's table are {list(_GAMES)} "
        "(kexplain.games.games(); a new one is added with kexplain.games.register_game)."
    )


def get_game(name: str) -> Game:
    """The record of a game of the table, by name or alias; an unknown name is refused.

    Parameters
    ----------
    name : str
        A name or an alias of the table.

    Returns
    -------
    Game
        The game's record.

    Raises
    ------
    ValueError
        For a name that is not in the table; the message lists the known names.

    Examples
    --------
    >>> import kexplain as kx
    >>> kx.games.get_game("baseline").base_label_math
    'f(\\\\mathrm{baseline})'
    >>> kx.games.get_game("interventinal")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: unknown game 'interventinal'. Did you mean 'interventional'? ...
    """
    if not isinstance(name, str):
        raise TypeError(f"a game is named by a string, got {type(name).__name__}.")
    if name in _GAMES:
        return _GAMES[name]
    if name in _ALIASES:
        return _GAMES[_ALIASES[name]]
    raise _unknown(name)


def describe(game: str) -> Game:
    """The record an explanation's ``game`` string stands for: a table entry, or :data:`CUSTOM`.

    Strings of the table (names and aliases) give their record.  Any other string is a game of
    the user's own (``kx.Explanation(..., game="my game")``) and gives :data:`CUSTOM`, whose base
    value is labelled v(∅) (never shap's E[f(X)], which would claim a mean prediction), unless it
    is one or two letters (or only case and spaces) off a name of the table: that is refused as a
    likely typo.  The empty
    string (no game said) is custom too.

    Parameters
    ----------
    game : str
        What an explanation's ``game`` holds.

    Returns
    -------
    Game
        The table's record, or :data:`CUSTOM` for a game of the user's own.

    Raises
    ------
    ValueError
        For a near miss of a table name (``"interventinal"``).

    Examples
    --------
    >>> import kexplain as kx
    >>> kx.games.describe("anova").name, kx.games.describe("my own game").name
    ('anova', 'custom')
    """
    if not isinstance(game, str):
        raise TypeError(f"game must be a string (a name of kexplain.games.games()), got {type(game).__name__}.")
    if is_game(game):
        return get_game(game)
    if game and _near(game, 0.85):
        raise _unknown(game)
    return CUSTOM


def games_table() -> str:
    """The games table as a reST list-table (pasted into ``docs/which_game.rst``).

    Returns
    -------
    str
        The list-table, one row per game.

    Examples
    --------
    >>> import kexplain as kx
    >>> print(kx.games.games_table().splitlines()[0])
    .. list-table::
    """
    rows = [
        ".. list-table::",
        "   :header-rows: 1",
        "   :widths: 18 36 20 26",
        "",
        "   * - ``game``",
        "     - what it is",
        "     - base value",
        "     - paper; given by",
    ]
    for g in _GAMES.values():
        given = "; ".join(f"``{x}``" for x in g.given_by)
        notes = f" {g.notes}" if g.notes else ""
        rows += [
            f'   * - ``"{g.name}"``',
            f"     - {g.description}{notes}",
            f"     - {g.base_label}",
            f"     - {g.paper}; {given}",
        ]
    return "\n".join(rows) + "\n"


for _game in _TABLE:
    register_game(_game)
del _game

__all__ = [
    "CUSTOM",
    "SHAP_BASE_LABEL",
    "Game",
    "describe",
    "game_names",
    "games",
    "games_table",
    "get_game",
    "is_game",
    "register_game",
    "unregister_game",
]

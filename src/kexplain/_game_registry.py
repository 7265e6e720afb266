"""The registry of games: lookup by name or alias, registration, views and the reST table.

:data:`_GAMES` holds the records of :mod:`kexplain._game_table` (registered when this module is
first imported, in the table's order) and those added by :func:`register_game`; every other
function here reads it.  Only the standard library is imported, so every layer of kexplain can
call :func:`describe` and :func:`get_game`.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping

from ._game_record import CUSTOM, Game
from ._game_table import _TABLE

_GAMES: dict[str, Game] = {}
_ALIASES: dict[str, str] = {}


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

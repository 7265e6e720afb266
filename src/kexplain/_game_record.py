"""What a game of kexplain is: the :class:`Game` record, and the record of a game of the user's own.

A row of the games table (:mod:`kexplain.games`) is one frozen :class:`Game`; :data:`CUSTOM` is
the record a string outside the table stands for.  Everything here is a declaration: the module
imports only the standard library, so every layer of kexplain can read it.
"""

from __future__ import annotations

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

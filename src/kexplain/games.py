"""The games kexplain solves, declared once.

A Shapley value answers "how much did feature j contribute?" only once a game says what the model
does when a feature is absent: a value v(S) for every coalition S of present features.  Each game
kexplain solves is one :class:`Game` record in the games table (in the spirit of shapiq's
``game_theory/indices.py``): its name (the string results carry in ``Explanation.game``), a
one-line description, what the value of the empty coalition is (the base value), the paper and
section it comes from, and which explainers and functions give it.  Plots read their base-value
labels here, the report its descriptions, the command line its "which game" text, and the
documentation page "Which game should I use?" its table (a test keeps the page equal to
:func:`games_table`).

This module is the table's public face; the table lives in three private modules at the lowest
floor, which import only the standard library (so :mod:`kexplain.explanation` and every layer
above can read them): ``_game_record`` (:class:`Game`, :data:`CUSTOM`, :data:`SHAP_BASE_LABEL`),
``_game_table`` (kexplain's own games, in the table's order) and ``_game_registry`` (lookup,
registration, :func:`field_view` and :func:`games_table`).  Every name, private ones included,
is imported from here.

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

from ._game_record import CUSTOM, SHAP_BASE_LABEL, Game
from ._game_registry import _ALIASES as _ALIASES
from ._game_registry import _GAMES as _GAMES
from ._game_registry import _FieldView as _FieldView
from ._game_registry import _near as _near
from ._game_registry import _unknown as _unknown
from ._game_registry import (
    describe,
    game_names,
    games,
    games_table,
    get_game,
    is_game,
    register_game,
    unregister_game,
)
from ._game_registry import field_view as field_view
from ._game_table import _GP_SHAP as _GP_SHAP
from ._game_table import _OAK as _OAK
from ._game_table import _PKEX as _PKEX
from ._game_table import _PREF as _PREF
from ._game_table import _RKHS_SHAP as _RKHS_SHAP
from ._game_table import _TABLE as _TABLE
from ._game_table import _UNCERTAIN as _UNCERTAIN

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

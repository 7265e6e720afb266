"""The split of kexplain.games: one public face, the table in three private modules at the lowest floor.

``_game_record`` holds :class:`~kexplain.games.Game`, ``CUSTOM`` and ``SHAP_BASE_LABEL``;
``_game_table`` kexplain's own games; ``_game_registry`` the lookup, registration, field views and
the reST table.  What the split must not change: every name ``kexplain.games`` had (private ones
included) is importable from it and is its home's object, records pickled when ``Game`` lived in
``kexplain.games`` still load, and there is one registry (a game registered through
``kexplain.games`` is the one the results see).  The table's contents are checked by
tests/test_games_table.py.
"""

from __future__ import annotations

import ast
import importlib
import pathlib
import pickle

import numpy as np
import pytest

import kexplain as kx
from kexplain import _game_record, _game_registry, _game_table, games

SRC = pathlib.Path(kx.__file__).parent
HOMES = (_game_record, _game_table, _game_registry)

#: every name kexplain.games defined before the split
NAMES = (
    "SHAP_BASE_LABEL",
    "Game",
    "CUSTOM",
    "_PKEX",
    "_RKHS_SHAP",
    "_OAK",
    "_PREF",
    "_GP_SHAP",
    "_UNCERTAIN",
    "_TABLE",
    "_GAMES",
    "_ALIASES",
    "register_game",
    "unregister_game",
    "games",
    "game_names",
    "_FieldView",
    "field_view",
    "is_game",
    "_near",
    "_unknown",
    "get_game",
    "describe",
    "games_table",
)

#: ``pickle.dumps(Game("toy", "a toy game.", "v(S) = |S|", "0", "0", "none", ("my_function",)),
#: protocol=2)`` made before the split: the class is named ``kexplain.games.Game``
OLD_GAME = (
    b"\x80\x02ckexplain.games\nGame\nq\x00)\x81q\x01}q\x02(X\x04\x00\x00\x00nameq\x03X\x03\x00\x00\x00toyq"
    b"\x04X\x0b\x00\x00\x00descriptionq\x05X\x0b\x00\x00\x00a toy game.q\x06X\x0e\x00\x00\x00value_function"
    b"q\x07X\n\x00\x00\x00v(S) = |S|q\x08X\n\x00\x00\x00base_labelq\tX\x01\x00\x00\x000q\nX\x0f\x00\x00\x00"
    b"base_label_mathq\x0bh\nX\x05\x00\x00\x00paperq\x0cX\x04\x00\x00\x00noneq\rX\x08\x00\x00\x00given_byq"
    b"\x0eX\x0b\x00\x00\x00my_functionq\x0f\x85q\x10X\x05\x00\x00\x00titleq\x11X\x08\x00\x00\x00toy gameq"
    b"\x12X\x05\x00\x00\x00labelq\x13h\x04X\x06\x00\x00\x00resultq\x14X\x0b\x00\x00\x00Explanationq\x15X"
    b"\x07\x00\x00\x00aliasesq\x16)X\x05\x00\x00\x00notesq\x17X\x00\x00\x00\x00q\x18ub."
)
#: ``pickle.dumps(kexplain.games.field_view("label"), protocol=2)`` made before the split
OLD_VIEW = (
    b"\x80\x02ckexplain.games\n_FieldView\nq\x00)\x81q\x01}q\x02X\x06\x00\x00\x00_fieldq\x03"
    b"X\x05\x00\x00\x00labelq\x04sb."
)


@pytest.mark.parametrize("name", NAMES)
def test_every_name_is_imported_from_games_and_is_its_homes_object(name):
    obj = getattr(games, name)
    assert any(getattr(m, name, None) is obj for m in HOMES), f"kexplain.games.{name} has no home"


def test_the_public_names_are_unchanged():
    assert sorted(games.__all__) == sorted(n for n in NAMES if not n.startswith("_") and n != "field_view")
    assert kx.games is games


@pytest.mark.parametrize("module", [games, *HOMES], ids=lambda m: m.__name__)
def test_each_module_stays_within_its_bound(module):
    # 696 lines before the split
    n = len(pathlib.Path(module.__file__).read_text().splitlines())
    assert n < 400, f"{module.__name__} has {n} lines"


def test_records_pickled_under_the_old_path_still_load():
    g = pickle.loads(OLD_GAME)
    assert type(g) is games.Game
    assert g == games.Game("toy", "a toy game.", "v(S) = |S|", "0", "0", "none", ("my_function",))
    view = pickle.loads(OLD_VIEW)
    assert type(view) is games._FieldView and dict(view) == dict(games.field_view("label"))
    for cls in (games.Game, games._FieldView):  # and pickles made now name a path that resolves
        assert getattr(importlib.import_module(cls.__module__), cls.__qualname__) is cls
    rec = games.get_game("anova")
    assert pickle.loads(pickle.dumps(rec)) == rec


def test_one_registry_for_every_reader():
    assert games._GAMES is _game_registry._GAMES and games._ALIASES is _game_registry._ALIASES
    assert games._TABLE == tuple(games._GAMES.values())[: len(games._TABLE)]
    g = games.Game("witness", "MMD witness.", "v(S) = w_S(x)", "0", "0", "notes", ("kexplain.stats.mmd",))
    try:
        games.register_game(g)
        assert kx.Explanation(np.ones((1, 2)), 0.0, game="witness").game_record is g
        assert games.field_view("title")["witness"] == "witness game"
    finally:
        games.unregister_game("witness")
    assert kx.Explanation(np.ones((1, 2)), 0.0, game="witness").game_record is games.CUSTOM


def _kexplain_imports(path: pathlib.Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            out |= {node.module} if node.module else {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("kexplain"):
            out.add((node.module or "").removeprefix("kexplain."))
    return out


@pytest.mark.parametrize("path", ["explanation.py", *sorted(p.name for p in SRC.glob("_explanation_*.py"))])
def test_the_local_result_reads_the_table_below_it(path):
    """``explanation`` is a lower layer than every public top-level module but ``exceptions``: it reads
    the games table from its private modules, never through the public face ``kexplain.games``."""
    assert "games" not in _kexplain_imports(SRC / path)

"""The splits of five modules of kexplain.preference: one import place each, modules by idea, the
same objects, and pickles made before the split still load.

- expansion: :class:`PreferenceExpansion` and ``preference_expansion`` stay; what the class
  accepts (kernels of amplitude one, arrays of items, column names, duels) is in
  ``_expansion_inputs``.
- ``_games``: the interventional product games stay; the observational games of conditional mean
  embeddings are in ``_observational_games``.
- ``estimators``: PreferenceClassifier and the mix-in it shares with PreferenceGPClassifier stay;
  its numerical fit (the Nystroem map, the Newton logistic regression) is in ``_nystroem_fit``.
- ``data``: the functions that build duels from records stay; the containers DuelData and Duels
  (public classes, so a public module) are in ``duel_data``.
- ``explainer``: PrefShapExplainer stays (its constructor, ``explain``, ``value``,
  ``__call__``); the constructor's option checks are in ``_duel_inputs._check_options``, the
  building of its game and the solving of blocks of duels in its base class
  ``_prefshap_solve.PrefShapSolver`` (``_build_game``, ``_solve_blocks``).

Every name each module defined or imported from its own folder before the split is still imported
from it and is its home's object.  tests/test_prefshap_sklearn_layout.py pins the earlier split of
``explainer``.
"""

from __future__ import annotations

import ast
import base64
import importlib
import pathlib
import pickle
import zlib

import numpy as np
import pytest

from kexplain.preference import (
    _duel_inputs,
    _expansion_inputs,
    _games,
    _nystroem_fit,
    _observational_games,
    _prefshap_solve,
    data,
    duel_data,
    estimators,
    expansion,
    explainer,
)

#: old module -> (its new homes, the names it defined or imported from its own folder before the
#: split; lines before: expansion 434, _games 427, estimators 426, data 424, explainer 411)
SPLITS = {
    expansion: (
        (_expansion_inputs,),
        (
            "KINDS",
            "MODEL_TYPES",
            "as_unit_product_kernel",
            "_item_array",
            "_columns",
            "PreferenceExpansion",
            "check_duel_arrays",
            "preference_expansion",
        ),
    ),
    _games: (
        (_observational_games,),
        (
            "TERMS",
            "LEVELS",
            "MAX_SUBSET_PLAYERS",
            "TABLE_BYTES",
            "BLOCK_BYTES",
            "PreferenceGame",
            "_QuadratureGame",
            "ObservationalPreferenceGame",
            "_item_part",
        ),
    ),
    estimators: (
        (_nystroem_fit,),
        (
            "check_duels",
            "check_labels",
            "fitted_columns",
            "reference_lengthscale",
            "side_names",
            "MODEL_TYPES",
            "PreferenceExpansion",
            "_EIG_RTOL",
            "_PreferenceMixin",
            "_float_array",
            "_landmark_map",
            "_fit_flipped",
            "PreferenceClassifier",
        ),
    ),
    data: (
        (duel_data,),
        ("DuelData", "Duels", "_check_rows", "_check_count", "duels_from_matches", "MODES", "load_modechoice"),
    ),
}

#: where each moved name lives now
MOVED = {
    _expansion_inputs: ("as_unit_product_kernel", "_item_array", "_columns", "check_duel_arrays"),
    _observational_games: ("ObservationalPreferenceGame", "_item_part"),
    _nystroem_fit: ("_EIG_RTOL", "_float_array", "_landmark_map", "_fit_flipped"),
    duel_data: ("DuelData", "Duels", "_check_rows", "_check_count"),
}

MODULES = (
    expansion,
    _expansion_inputs,
    _games,
    _observational_games,
    estimators,
    _nystroem_fit,
    data,
    duel_data,
    explainer,
    _duel_inputs,
    _prefshap_solve,
)

#: ``base64(zlib(pickle.dumps((DuelData, Duels, observational PrefShapExplainer), protocol=4)))``
#: made before the split: it names kexplain.preference.data.DuelData, kexplain.preference.data.Duels
#: and kexplain.preference._games.ObservationalPreferenceGame (see the test for the objects)
OLD_PICKLE = (
    b"eNqVVs1vG0UU99rZJHbiJi2iAiokc3Muhp5AVVFE8yXVxERBlcKhGmbXs56V98PamU0dic9Dk0Z6tw78D1wR3JE4cuMvqMQJDijc"
    b"K5U3s+tdp3WUdC3ZM2/fvM/f742/m/th2KiYB94asvEooH7UGSXMYwmLXNbpU0kVLG6mLNjUy6dq7Xv1tWrD/AEJmCcV3IzScHTU"
    b"IW6csE6YBtKnSUKPFCyThLlxJGSSuhIPgm00FSxE/UzlqepWHqsNy1Enal+1u5b+HCteB7svj0ZMH6p6H6nTJ9n7Glh3Va/Xu/8C"
    b"H/PVrUjlnG4sVvJH4RYWDkjiD7hUfJEvaQ+8ed7+m8WJs3Vzwjqapft4huYCZiTZWKoeNHT+xI/6bIy7JeOy2Nq+ZKHQcr0gAXVY"
    b"oLfzgyROR3rV9BiVacJIREMm1ENMdfyBotDMPZTyOT/yYiw6WEPVtUTq8ArYuiOibMecacZD/LR3JsXYWT/LFoyCnVUkU5jIC01G"
    b"ebuXOvDuLAjkIpYouL6H4s85HW0VsiICO2CHLNDRYsIIGex+GB9SlDRjR7DkkEo/jvTeDuO+1rzIG40Eaip4Y68QbxXSMuMh1hrB"
    b"NGAYhjabVXrIkkgbL9GcSQQ6ifsaidDcy1bdTLXMYEQTaSp+65XDQmbhJ4jf2v697fLUUsCigeTCpQG7KorqNBwFvkz7TBXNwLbO"
    b"PHwDqv4UBfjNSwlwjCiqkj5ihbNp83cu50NmgH98VeYgbODaBLB56Xsw58bMu7QWzwpGBWkYaUqsTCwVIt6Z8ILf1gBtONQdagph"
    b"61+1X53EuFo59+RVv1EeJo+Y5oPx0IN6CTq+C42I5NQUWEK4RvrMozjXCkLyUwpzA9woeG+CXJx6QUsDsNU+h/Y1BfNxKkcp4u79"
    b"PnN97YV4aeTq93daQTzwZSv2WqO2ZnDLQc+iZciKR1dCOiZOELtD4hxJdH4fs6nCCo4ZiT60W0MpbAJ5iWTvzCIXGZgU4NZn08ol"
    b"zXZ0UgWyqziB+S7f4ttghboUNVfn/HZhORly0UEZKajVyKm1sbs1ZUfPg/KUYb+YJvpKxsQZJJ/PMcUfwDJOdeYRgSQVTE9SYgSv"
    b"D4NlvIZY4rskpGKoLiSdc3v63vlq5r1jWcbiPBE4E5nKPX97eUhn6+dCago/GgSM5Eh5AnXTYJeN5KU0yi89G/VDg84HFJb1Jrcm"
    b"LrwGfzvlv+ujS6QYR+KKE0yzZjmzP3VPee3xmqJIU2v/9dti6YEFVoRVhBrDvxo763vO7p///fQcagENcftlvl0oyAvWph43GD4G"
    b"/gxsjcVHVx3C1YNQ8V+hHtCoH9JkqO3VvP398xeAwTiZAjnSZ5VsZwNibyIqbyVdeQ1X6xPF/wHrnv62C3hUj/EW357ZEXx5YqJs"
    b"TaJs/Bg//5n/VfxOR586FIMNsc4vwPpUO2mEjEbEocKf1cRqVoFV+48Pv/nil7/XJ78ZdlzqcjY9M8qsPerKOBH679y2WW4Y3Txh"
    b"qJsJVcymlsDI+L9dC0Fg46SVaHWJGcKZYaNS50R1/gcA69C5"
)


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[1])
def test_each_module_stays_under_380_lines(module):
    n = len(pathlib.Path(module.__file__).read_text().splitlines())
    assert n < 380, f"{module.__name__} has {n} lines"


@pytest.mark.parametrize(
    "old,name",
    [
        pytest.param(old, name, id=f"{old.__name__.rsplit('.', 1)[1]}.{name}")
        for old in SPLITS
        for name in SPLITS[old][1]
    ],
)
def test_every_old_name_is_imported_from_the_old_module_and_is_its_homes_object(old, name):
    homes, _ = SPLITS[old]
    obj = getattr(old, name)
    assert name in vars(old)
    if any(name in names for names in MOVED.values()):
        assert any(vars(m).get(name) is obj for m in homes), f"{old.__name__}.{name} is not its home's object"


@pytest.mark.parametrize("home,name", [(m, n) for m, names in MOVED.items() for n in names])
def test_the_moved_names_are_defined_in_their_new_home(home, name):
    obj = vars(home)[name]
    if callable(obj) and hasattr(obj, "__module__"):
        assert obj.__module__ == home.__name__, name


def test_the_public_names_and_the_registry_are_the_same_objects():
    import kexplain.preference as pref

    assert pref.DuelData is data.DuelData is duel_data.DuelData
    assert pref.Duels is data.Duels is duel_data.Duels
    assert pref.duels_from_matches is data.duels_from_matches
    assert pref.load_modechoice is data.load_modechoice
    assert pref.PreferenceExpansion is expansion.PreferenceExpansion
    assert pref.PreferenceClassifier is estimators.PreferenceClassifier
    assert estimators.MODEL_TYPES is expansion.MODEL_TYPES and pref.PreferenceClassifier in expansion.MODEL_TYPES
    # the classes that stayed keep their import path (pickles name it)
    for cls in (pref.PreferenceExpansion, pref.PreferenceClassifier, pref.PrefShapExplainer, _games.PreferenceGame):
        assert getattr(importlib.import_module(cls.__module__), cls.__qualname__) is cls
    assert pref.PreferenceExpansion.__module__ == "kexplain.preference.expansion"
    assert pref.PreferenceClassifier.__module__ == "kexplain.preference.estimators"
    assert estimators._PreferenceMixin.__module__ == "kexplain.preference.estimators"


def test_the_explainer_keeps_its_methods_and_its_parts_moved_to_its_base_class():
    cls = explainer.PrefShapExplainer
    for name in ("__init__", "value", "explain", "__call__"):
        assert name in vars(cls), name
    for name in ("_build_game", "_solve_blocks", "_solve", "_to_explanation", "_explain_any_order"):
        assert name in vars(_prefshap_solve.PrefShapSolver) and name not in vars(cls), name
    assert explainer._check_options is _duel_inputs._check_options


def test_pickles_made_before_the_split_load_with_the_same_values():
    blob = zlib.decompress(base64.b64decode(OLD_PICKLE))
    assert b"kexplain.preference.data" in blob and b"kexplain.preference._games" in blob
    assert b"duel_data" not in blob and b"_observational_games" not in blob
    dd, du, ex = pickle.loads(blob)
    assert type(dd) is data.DuelData and type(du) is data.Duels
    assert dd.feature_names == ["x0"] and dd.info == {"k": 1} and np.array_equal(dd.X_right, [[1.0]])
    assert du == data.Duels([[0.0, 1.0]], [[1.0, 0.0]])
    assert type(ex) is explainer.PrefShapExplainer
    assert type(ex._observational) is _games.ObservationalPreferenceGame
    values = ex.explain(data.Duels([[0.25]], [[0.75]])).values
    # the value before the split (the same explainer under main, printed to 17 digits)
    np.testing.assert_allclose(values, [[0.18481511904127645]], rtol=1e-14, atol=0)
    # pickles made now name paths that resolve
    for obj in (dd, du, ex._observational):
        cls = type(obj)
        assert getattr(importlib.import_module(cls.__module__), cls.__qualname__) is cls
        assert type(pickle.loads(pickle.dumps(obj))) is cls


def _relative_imports(module) -> set[str]:
    tree = ast.parse(pathlib.Path(module.__file__).read_text())
    return {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level == 1}


def test_the_parts_sit_below_the_modules_that_assemble_them():
    """The new modules never import the old one back: it imports its parts, not the reverse."""
    assert not _relative_imports(_expansion_inputs)
    assert not _relative_imports(_observational_games)
    assert not _relative_imports(_nystroem_fit)
    assert not _relative_imports(duel_data)
    assert "explainer" not in _relative_imports(_prefshap_solve) | _relative_imports(_duel_inputs)

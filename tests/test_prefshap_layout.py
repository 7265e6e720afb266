"""The split of kexplain.preference.explainer: one class, its parts in sibling modules, one import place.

``PrefShapExplainer`` stays in ``explainer`` (its constructor, ``explain``, ``value`` and
``__call__``); what it reads from its input (options, backgrounds, duels, outcomes) lives in
``_duel_inputs``, and its base class ``PrefShapSolver`` in ``_prefshap_solve`` solves a block of
duels, builds its Explanation and answers interactions of any order.  Every name the module
defined before the split is still imported from it, and the class keeps its import path (pickles
load) and every method it had.
"""

from __future__ import annotations

import ast
import pathlib
import pickle

import numpy as np
import pytest

import kexplain as kx
from kexplain.kernels import RBF
from kexplain.preference import Duels, PreferenceExpansion, _duel_inputs, _games, _prefshap_solve, explainer

PREFERENCE = pathlib.Path(explainer.__file__).parent
MODULES = (explainer, _duel_inputs, _prefshap_solve)

#: the names preference/explainer.py defined or imported from its own folder before the split (633 lines)
OLD_NAMES = (
    "VALUES",
    "ROUTES",
    "MAX_OBSERVATIONAL_ENUMERATION",
    "DEFAULT_QUADRATURE_BACKGROUND",
    "DEFAULT_BUDGET",
    "OUTPUT",
    "_distinct_rows",
    "_check_choice",
    "_duels",
    "_orientation",
    "_difference",
    "PrefShapExplainer",
    "BLOCK_BYTES",
    "LEVELS",
    "MAX_SUBSET_PLAYERS",
    "ObservationalPreferenceGame",
    "PreferenceGame",
    "_QuadratureGame",
    "DuelData",
    "Duels",
    "PreferenceExpansion",
    "preference_expansion",
)

#: the methods PrefShapExplainer defined before the split
OLD_METHODS = ("__init__", "value", "explain", "_explain_any_order", "__call__", "_solve", "_to_explanation")


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_each_module_stays_well_under_450_lines(module):
    n = len(pathlib.Path(module.__file__).read_text().splitlines())
    assert n < 430, f"{module.__name__} has {n} lines"


@pytest.mark.parametrize("name", OLD_NAMES)
def test_every_old_name_is_imported_from_explainer_and_is_its_homes_object(name):
    obj = getattr(explainer, name)
    homes = [m for m in (_duel_inputs, _prefshap_solve, _games) if vars(m).get(name) is obj]
    assert homes or name in vars(explainer), name


def test_the_constants_keep_their_values():
    assert explainer.VALUES == ("interventional", "observational")
    assert explainer.ROUTES == ("auto", "subsets", "quadrature")
    assert (explainer.MAX_OBSERVATIONAL_ENUMERATION, explainer.DEFAULT_BUDGET) == (12, 2048)
    assert explainer.DEFAULT_QUADRATURE_BACKGROUND == 32
    assert explainer.OUTPUT == "decision_function: logit of p(left beats right)"


def test_the_class_keeps_its_path_and_every_method():
    cls = explainer.PrefShapExplainer
    assert cls is kx.preference.PrefShapExplainer
    assert (cls.__module__, cls.__qualname__) == ("kexplain.preference.explainer", "PrefShapExplainer")
    missing = [m for m in OLD_METHODS if not hasattr(cls, m)]
    assert not missing, missing
    # the public methods are the class's own (the API page lists what the class defines)
    for name in ("__init__", "value", "explain", "__call__"):
        assert name in vars(cls), name
    assert issubclass(cls, kx.Explainer) and issubclass(cls, _prefshap_solve.PrefShapSolver)


def test_a_pickled_explainer_loads_as_the_same_class_with_the_same_values():
    L, R = np.array([[0.0, 1.0], [1.0, -1.0]]), np.array([[0.5, 0.0], [-1.0, 0.25]])
    pe = PreferenceExpansion(L, R, np.array([0.75, -0.5]), RBF(1.0))
    ex = explainer.PrefShapExplainer(pe, np.array([[0.0, 0.0], [1.0, 1.0]]))
    blob = pickle.dumps(ex)
    assert b"kexplain.preference.explainer" in blob and b"PrefShapSolver" not in blob
    loaded = pickle.loads(blob)
    assert type(loaded) is explainer.PrefShapExplainer
    a, b = ex.explain(Duels(L, R)), loaded.explain(Duels(L, R))
    assert np.array_equal(a.values, b.values) and np.array_equal(a.base_values, b.base_values)
    # the values before the split (the same data explained under main, printed to 17 digits)
    want = [[0.21056883562448475, 0.43416824094954015], [-0.3458834372539901, -0.31662049083774807]]
    np.testing.assert_allclose(a.values, want, rtol=1e-14, atol=0)


def _relative_imports(module) -> set[str]:
    tree = ast.parse(pathlib.Path(module.__file__).read_text())
    return {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level == 1}


def test_the_parts_sit_below_the_class():
    """The sibling modules never import explainer: the class imports its parts, not the reverse."""
    for module in (_duel_inputs, _prefshap_solve):
        assert "explainer" not in _relative_imports(module), module.__name__
    assert "_prefshap_solve" not in _relative_imports(_duel_inputs)

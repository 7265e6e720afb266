"""The splits of kexplain.preference.explainer and kexplain.models.sklearn: one import place each,
modules by idea, the same objects.

``PrefShapExplainer`` stays in ``preference/explainer.py`` (its constructor, ``explain``, ``value``
and ``__call__``); what it reads from its input (options, backgrounds, duels, outcomes) lives in
``_duel_inputs``, and its base class ``PrefShapSolver`` in ``_prefshap_solve`` solves a block of
duels, builds its Explanation and answers interactions of any order.

The adapters of the supported scikit-learn estimators and the refusals that name what is supported
(``SUPPORTED_MODELS``) live in ``models/sklearn_estimators.py``, the steps of a Pipeline and the
folding of its scalers into the kernel in ``_sklearn_pipeline``; ``as_kernel_expansion``,
``_model_parts``, ``describe_output`` and ``model_output`` stay in ``models/sklearn.py``.

Every name either module defined before its split, private ones included, is still imported from
it, the class keeps its import path (pickles load) and every method it had.
"""

from __future__ import annotations

import ast
import pathlib
import pickle

import numpy as np
import pytest

import kexplain as kx
from kexplain.kernels import RBF
from kexplain.models import _sklearn_pipeline, sklearn, sklearn_estimators
from kexplain.preference import Duels, PreferenceExpansion, _duel_inputs, _games, _prefshap_solve, explainer

#: old module -> (the modules its names live in now, the names it defined or imported from its own
#: folder before the split: preference/explainer.py had 633 lines, models/sklearn.py 603)
SPLITS = {
    "preference.explainer": (
        explainer,
        (_duel_inputs, _prefshap_solve, _games),
        (
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
        ),
    ),
    "models.sklearn": (
        sklearn,
        (sklearn_estimators, _sklearn_pipeline),
        (
            "SUPPORTED_MODELS",
            "_Parts",
            "_unsupported",
            "_OTHER_KERNEL_ROUTE",
            "_from_sklearn",
            "_gp_kernel",
            "_check_fitted",
            "_ovr_refusal",
            "_svm_kernel",
            "_svm",
            "_kernel_ridge",
            "_gpr",
            "_binary_gpc_parts",
            "_gpc",
            "_ESTIMATORS",
            "_scaler_affine",
            "_final_step_path",
            "_is_pipeline",
            "_flatten_pipeline",
            "as_kernel_expansion",
            "_model_parts",
            "_unfold",
            "_output_method",
            "describe_output",
            "model_output",
        ),
    ),
}

NEW_MODULES = (explainer, _duel_inputs, _prefshap_solve, sklearn, sklearn_estimators, _sklearn_pipeline)

#: the methods PrefShapExplainer defined before the split
OLD_METHODS = ("__init__", "value", "explain", "_explain_any_order", "__call__", "_solve", "_to_explanation")


@pytest.mark.parametrize("module", NEW_MODULES, ids=lambda m: m.__name__.split(".", 1)[1])
def test_each_module_stays_well_under_450_lines(module):
    n = len(pathlib.Path(module.__file__).read_text().splitlines())
    assert n < 430, f"{module.__name__} has {n} lines"


@pytest.mark.parametrize(
    "old,name", [pytest.param(old, name, id=f"{old}.{name}") for old, (_, _, names) in SPLITS.items() for name in names]
)
def test_every_old_name_is_imported_from_the_old_module_and_is_its_homes_object(old, name):
    module, homes, _ = SPLITS[old]
    obj = getattr(module, name)
    assert any(vars(m).get(name) is obj for m in homes) or name in vars(module), name


def test_the_constants_and_public_names_are_the_same():
    assert explainer.VALUES == ("interventional", "observational")
    assert explainer.ROUTES == ("auto", "subsets", "quadrature")
    assert (explainer.MAX_OBSERVATIONAL_ENUMERATION, explainer.DEFAULT_BUDGET) == (12, 2048)
    assert (explainer.DEFAULT_QUADRATURE_BACKGROUND, explainer.OUTPUT[:17]) == (32, "decision_function")
    for name in ("SUPPORTED_MODELS", "as_kernel_expansion", "describe_output", "model_output"):
        assert getattr(kx.models, name) is getattr(sklearn, name), name
    assert sorted(sklearn._ESTIMATORS) == sorted(
        ["SVR", "NuSVR", "SVC", "NuSVC", "KernelRidge", "GaussianProcessRegressor", "GaussianProcessClassifier"]
    )


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
    # the values before the split (the same explainer under main, printed to 17 digits)
    want = [[0.21056883562448475, 0.43416824094954015], [-0.3458834372539901, -0.31662049083774807]]
    np.testing.assert_allclose(a.values, want, rtol=1e-14, atol=0)


def _relative_imports(module) -> set[str]:
    tree = ast.parse(pathlib.Path(module.__file__).read_text())
    return {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level == 1}


def test_the_parts_sit_below_the_module_that_assembles_them():
    """The new modules never import the old one back: it imports its parts, not the reverse."""
    for module in (_duel_inputs, _prefshap_solve):
        assert "explainer" not in _relative_imports(module), module.__name__
    assert "_prefshap_solve" not in _relative_imports(_duel_inputs)
    assert _relative_imports(sklearn_estimators).isdisjoint({"sklearn", "_sklearn_pipeline"})
    assert "sklearn" not in _relative_imports(_sklearn_pipeline)

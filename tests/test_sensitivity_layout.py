"""The split of kexplain.sensitivity.analysis: one class, its methods in base classes, one import place.

``SensitivityAnalysis`` stays in ``analysis`` with its constructor (the model, the input measure and
the parts) and ``sobol_indices``; it inherits the indices read from the parts from ``SobolIndices``
(``_indices``) and the Gaussian-process posterior's parts and draws from ``PosteriorIndices``
(``_posterior``).  Every name the module defined before the split is still imported from it, the
class keeps its import path and every method it had, the API page lists the inherited methods, and
the moved methods keep the type hints tests/test_contract.py checks on the class's own methods.
"""

from __future__ import annotations

import ast
import inspect
import pathlib

import pytest

import kexplain as kx
from kexplain.sensitivity import _indices, _posterior, analysis

SENSITIVITY = pathlib.Path(analysis.__file__).parent
ROOT = SENSITIVITY.parents[2]

#: the module-level names analysis.py defined before the split (565 lines)
OLD_NAMES = ("TARGETS", "TARGET_GAMES", "SensitivityAnalysis", "sobol_indices")

#: the methods SensitivityAnalysis defined before the split
OLD_METHODS = (
    "__init__",
    "_check_output",
    "_add_posterior_parts",
    "posterior_draws",
    "_value",
    "_subset_mask",
    "_scale",
    "closed_index",
    "first_order",
    "total_order",
    "second_order",
    "shapley_values",
    "shapley_effects",
)


@pytest.mark.parametrize("module", [analysis, _indices, _posterior], ids=lambda m: m.__name__)
def test_each_module_stays_well_under_450_lines(module):
    path = pathlib.Path(module.__file__)
    assert len(path.read_text().splitlines()) < 400, f"{path.name} has 400 lines or more"


def test_every_old_name_is_imported_from_analysis_and_is_the_same_object():
    for name in OLD_NAMES:
        obj = getattr(analysis, name)
        homes = [m for m in (_indices, _posterior) if name in vars(m) and vars(m)[name] is obj]
        assert homes or getattr(obj, "__module__", analysis.__name__) == analysis.__name__, name
    assert kx.sensitivity.SensitivityAnalysis is analysis.SensitivityAnalysis
    assert kx.sensitivity.sobol_indices is analysis.sobol_indices
    assert set(analysis.TARGETS) == set(analysis.TARGET_GAMES)


def test_the_class_keeps_its_path_and_every_method():
    cls = analysis.SensitivityAnalysis
    assert (cls.__module__, cls.__qualname__) == ("kexplain.sensitivity.analysis", "SensitivityAnalysis")
    missing = [m for m in OLD_METHODS if not hasattr(cls, m)]
    assert not missing, missing
    assert cls.__mro__[1:] == (_indices.SobolIndices, _posterior.PosteriorIndices, object)
    # the bases live in private modules: tests/test_docstrings.py validates their methods as the class's own
    for base in cls.__mro__[1:-1]:
        assert base.__module__.split(".")[-1].startswith("_"), base


def test_the_moved_methods_keep_their_type_hints():
    # test_contract.py reads the class's own __dict__ only: the inherited methods are checked here
    cls = analysis.SensitivityAnalysis
    for name in OLD_METHODS:
        sig = inspect.signature(getattr(cls, name))
        missing = [
            p
            for p, v in sig.parameters.items()
            if p != "self"
            and v.annotation is inspect.Parameter.empty
            and v.kind not in (v.VAR_POSITIONAL, v.VAR_KEYWORD)
        ]
        assert not missing, f"{name} lacks type hints for {missing}"
        if name != "__init__":
            assert sig.return_annotation is not inspect.Signature.empty, f"{name} lacks a return type"


def test_the_api_page_lists_the_inherited_methods():
    tree = ast.parse((ROOT / "docs" / "conf.py").read_text())
    context = next(
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "autosummary_context" for t in node.targets)
    )
    assert "kexplain.sensitivity.SensitivityAnalysis" in context["mixin_classes"]


def _relative_imports(module) -> set[str]:
    tree = ast.parse(pathlib.Path(module.__file__).read_text())
    return {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level == 1}


def test_the_bases_sit_below_the_class():
    """The base classes never import analysis (the class imports them), nor each other."""
    assert "analysis" not in _relative_imports(_indices) | _relative_imports(_posterior)
    assert "_posterior" not in _relative_imports(_indices) and "_indices" not in _relative_imports(_posterior)

"""The split of kexplain.models.sklearn: one import place, modules by idea, the same objects.

The adapters of the supported estimators and the refusals that name what is supported
(``SUPPORTED_MODELS``) live in ``sklearn_estimators``, the steps of a Pipeline and the folding of
its scalers into the kernel in ``_sklearn_pipeline``; ``as_kernel_expansion``, ``_model_parts``,
``describe_output`` and ``model_output`` stay in ``sklearn``.  Every name the module defined before
the split, private ones included, is still imported from ``kexplain.models.sklearn`` (and the
public ones from ``kexplain.models``).
"""

from __future__ import annotations

import ast
import pathlib

import pytest

import kexplain as kx
from kexplain.models import _sklearn_pipeline, sklearn, sklearn_estimators

MODULES = (sklearn, sklearn_estimators, _sklearn_pipeline)

#: every name models/sklearn.py defined before the split (603 lines)
OLD_NAMES = (
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
)


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_each_module_stays_well_under_450_lines(module):
    n = len(pathlib.Path(module.__file__).read_text().splitlines())
    assert n < 350, f"{module.__name__} has {n} lines"


@pytest.mark.parametrize("name", OLD_NAMES)
def test_every_old_name_is_imported_from_sklearn_and_is_its_homes_object(name):
    obj = getattr(sklearn, name)
    homes = [m for m in (sklearn_estimators, _sklearn_pipeline) if vars(m).get(name) is obj]
    assert homes or name in vars(sklearn), name


def test_the_public_names_are_the_same_objects_everywhere():
    for name in ("SUPPORTED_MODELS", "as_kernel_expansion", "describe_output", "model_output"):
        assert getattr(kx.models, name) is getattr(sklearn, name), name
    assert sklearn.SUPPORTED_MODELS is sklearn_estimators.SUPPORTED_MODELS
    # the dispatch table still names the adapters by estimator
    assert sorted(sklearn._ESTIMATORS) == sorted(
        ["SVR", "NuSVR", "SVC", "NuSVC", "KernelRidge", "GaussianProcessRegressor", "GaussianProcessClassifier"]
    )


def _relative_imports(module) -> set[str]:
    tree = ast.parse(pathlib.Path(module.__file__).read_text())
    return {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level == 1}


def test_the_parts_sit_below_the_facade():
    """The adapters import neither sklearn nor the pipeline module; the pipeline module only the adapters'
    refusal: sklearn assembles them, not the reverse."""
    assert _relative_imports(sklearn_estimators).isdisjoint({"sklearn", "_sklearn_pipeline"})
    assert "sklearn" not in _relative_imports(_sklearn_pipeline)

"""The split of kexplain._validation: one import place, sibling modules by idea.

``_validation`` keeps the array entry (check_data, the magnitude bound, match_columns,
check_weights) and imports the rest from ``_validation_columns``, ``_validation_sparse`` and
``_validation_options``; every other module imports the checks from ``_validation`` only.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

import kexplain._validation as validation
from kexplain import _validation_columns, _validation_options, _validation_sparse

SRC = pathlib.Path(validation.__file__).parent
SIBLINGS = ("_validation_columns", "_validation_options", "_validation_sparse")

#: every public name the module had before the split
NAMES = {
    "INTERACTION_INDICES",
    "MAGNITUDE_LIMIT",
    "SPARSE_POLICIES",
    "check_bool",
    "check_data",
    "check_interactions",
    "check_legacy_random_state",
    "check_magnitude",
    "check_n_jobs",
    "check_random_state",
    "check_sparse_data",
    "check_weights",
    "column_label",
    "feature_names_of",
    "is_missing",
    "is_sparse",
    "match_columns",
    "to_array",
    "validate_n_jobs",
}


@pytest.mark.parametrize("path", sorted(SRC.glob("_validation*.py")), ids=lambda p: p.name)
def test_each_module_stays_well_under_600_lines(path):
    assert len(path.read_text().splitlines()) < 450, f"{path.name} has 450 lines or more"


def test_every_name_is_imported_from_validation_and_is_the_same_object():
    assert set(validation.__all__) == NAMES
    for name in NAMES:
        homes = [m for m in (_validation_columns, _validation_options, _validation_sparse) if name in vars(m)]
        obj = getattr(validation, name)
        assert all(getattr(m, name) is obj for m in homes), name
        if callable(obj):
            assert obj.__module__ in ("kexplain._validation", *(f"kexplain.{s}" for s in SIBLINGS)), name


def test_only_validation_imports_its_siblings():
    bad = []
    for path in sorted(SRC.rglob("*.py")):
        if path.name == "_validation.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            modules = []
            if isinstance(node, ast.ImportFrom):
                modules = [node.module or ""] + [a.name for a in node.names]
            elif isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            if any(m.rsplit(".", 1)[-1] in SIBLINGS for m in modules):
                bad.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert not bad, "import the checks from kexplain._validation: " + ", ".join(bad)

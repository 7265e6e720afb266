"""The split of kexplain.shapley.polynomial: one import place, modules by idea, the same objects.

The polynomial itself (its check, degree and Taylor coefficients) lives in ``polynomial_terms``,
the truncated power series of the generating functions in ``_polynomial_series``, the pairwise
indices of one block in ``_polynomial_pairs``; the game protocol, the block's values and the
blocked solver stay in ``polynomial`` itself.  Every name the module defined before the split,
private ones included, is still imported from ``kexplain.shapley.polynomial`` (the kernels and
explainers folders and the tests import from there).  The module defines no class that is
pickled (``PolynomialGame`` is a protocol), so no pickle has to keep loading.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

from kexplain.shapley import _polynomial_pairs, _polynomial_series, polynomial, polynomial_terms

SHAPLEY = pathlib.Path(polynomial.__file__).parent
SIBLINGS = (polynomial_terms, _polynomial_series, _polynomial_pairs)

#: the module-level names polynomial.py defined before the split (488 lines)
OLD_NAMES = (
    "PolynomialTerms",
    "check_polynomial",
    "polynomial_degree",
    "taylor_coefficients",
    "PolynomialGame",
    "_times_factor",
    "_times_series",
    "_prefix_suffix",
    "polynomial_game_block",
    "_resolve_backend",
    "_pair_indices",
    "solve_polynomial_game",
    "DEFAULT_BLOCK_BYTES",
)


@pytest.mark.parametrize("module", (polynomial, *SIBLINGS), ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_each_module_stays_well_under_450_lines(module):
    path = pathlib.Path(module.__file__)
    assert len(path.read_text().splitlines()) < 400, f"{path.name} has 400 lines or more"


def test_every_old_name_is_imported_from_polynomial_and_is_the_same_object():
    for name in OLD_NAMES:
        obj = getattr(polynomial, name)
        homes = [m for m in SIBLINGS if name in vars(m) and vars(m)[name] is obj]
        defined_here = getattr(obj, "__module__", polynomial.__name__) == polynomial.__name__
        assert homes or defined_here, name


def test_each_name_lives_where_the_docstring_says():
    for name in ("check_polynomial", "polynomial_degree", "taylor_coefficients"):
        assert getattr(polynomial, name).__module__ == polynomial_terms.__name__, name
    for name in ("_times_factor", "_times_series", "_prefix_suffix"):
        assert getattr(polynomial, name).__module__ == _polynomial_series.__name__, name
    assert polynomial._pair_indices.__module__ == _polynomial_pairs.__name__
    for name in ("PolynomialGame", "polynomial_game_block", "_resolve_backend", "solve_polynomial_game"):
        assert getattr(polynomial, name).__module__ == polynomial.__name__, name


def _relative_imports(module) -> set[str]:
    tree = ast.parse(pathlib.Path(module.__file__).read_text())
    return {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level == 1}


def test_the_siblings_sit_below_the_solver():
    """The siblings never import the solver module (it imports them); the terms and series need no sibling."""
    for module in SIBLINGS:
        assert "polynomial" not in _relative_imports(module), module.__name__
    assert not {"_polynomial_series", "_polynomial_pairs"} & _relative_imports(polynomial_terms)
    assert not {"polynomial_terms", "_polynomial_pairs"} & _relative_imports(_polynomial_series)

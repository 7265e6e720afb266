"""The split of kexplain.shapley._product_numba: one import place, modules by idea, the same kernels.

``_product_numba`` keeps ``weighted_loo_integrals`` (its block transposition ``_gather4``, the
blocks ``_pair_blocks`` and the division scheme ``_one_pair_big``); the node passes every
quadrature kernel inlines live in ``_loo_passes_numba``, the functional RBF / Laplacian kernel in
``_stationary_loo_numba``, each point's certified node count in ``_node_counts_numba`` and the
subset route's kernel in ``_subset_values_numba``.  Every name the module defined before the split,
private ones included, is still imported from it and is the same object (the same compiled
dispatcher: one compilation, one disk cache entry).  The numbers are the existing kernel suites'
(test_engine_kernel.py, test_fused_*.py, test_certified_nodes.py, test_engine.py).
"""

from __future__ import annotations

import ast
import inspect
import pathlib

import pytest

pytest.importorskip("numba", reason="the compiled kernels need numba")

from kexplain.shapley import (  # noqa: E402  (after the skip: these modules import numba)
    _loo_passes_numba,
    _node_counts_numba,
    _product_fused_numba,
    _product_numba,
    _stationary_loo_numba,
    _subset_values_numba,
)

SHAPLEY = pathlib.Path(_product_numba.__file__).parent
PARTS = (_loo_passes_numba, _stationary_loo_numba, _node_counts_numba, _subset_values_numba)

#: every name _product_numba.py defined before its split, and its home since
NAMES = {
    "_TINY": _loo_passes_numba,
    "_HUGE": _loo_passes_numba,
    "_c_rows": _loo_passes_numba,
    "_flag_bad": _loo_passes_numba,
    "_pairs_nodes3": _loo_passes_numba,
    "_pairs_nodes4": _loo_passes_numba,
    "_pairs_nodes5": _loo_passes_numba,
    "_pairs_node1": _loo_passes_numba,
    "_node_groups": _loo_passes_numba,
    "_one_pair_big": _product_numba,
    "_gather4": _product_numba,
    "_pair_blocks": _product_numba,
    "weighted_loo_integrals": _product_numba,
    "stationary_loo_integrals": _stationary_loo_numba,
    "point_node_counts": _node_counts_numba,
    "_SPLIT_FEATURES": _subset_values_numba,
    "subset_table_layout": _subset_values_numba,
    "subset_values": _subset_values_numba,
}


@pytest.mark.parametrize("name", sorted(NAMES))
def test_every_name_is_still_imported_from_product_numba_and_is_its_homes_object(name):
    home = NAMES[name]
    assert getattr(_product_numba, name) is getattr(home, name)
    assert name in vars(home)
    if callable(getattr(home, name)) and hasattr(getattr(home, name), "py_func"):
        assert getattr(home, name).py_func.__module__ == home.__name__  # defined there, not re-exported


def test_the_fused_kernels_take_the_same_helpers():
    # the same row gather and the same node grouping (one ``_node_pass`` under both loops), so the
    # fused kernels give the unfused kernel's numbers pair by pair
    for name in ("_c_rows", "_gather4"):
        assert getattr(_product_fused_numba, name) is getattr(_product_numba, name), name
    assert _product_fused_numba._node_groups_ok is _loo_passes_numba._node_groups_ok
    assert _product_numba._node_groups is _loo_passes_numba._node_groups
    for loop in ("_node_groups", "_node_groups_ok"):
        assert "_node_pass(" in inspect.getsource(getattr(_loo_passes_numba, loop).py_func), loop


@pytest.mark.parametrize("module", (_product_numba, *PARTS), ids=lambda m: m.__name__.rsplit(".", 1)[1])
def test_each_module_stays_under_380_lines(module):
    n = len(pathlib.Path(module.__file__).read_text().splitlines())
    assert n < 380, f"{module.__name__} has {n} lines"


@pytest.mark.parametrize("module", PARTS, ids=lambda m: m.__name__.rsplit(".", 1)[1])
def test_no_part_imports_product_numba_back(module):
    """_product_numba imports every part to re-export its names: a part importing it is a circle."""
    tree = ast.parse(pathlib.Path(module.__file__).read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not imported & {"_product_numba", "_product_fused_numba", "kexplain.shapley._product_numba"}, imported


def test_product_numba_docstring_names_its_parts():
    doc = _product_numba.__doc__
    for module in PARTS:
        assert module.__name__.rsplit(".", 1)[1] in doc

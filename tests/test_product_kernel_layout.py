"""The split of kexplain.explainers.product_kernel: one class, its paths in sibling modules, one import place.

``ProductKernelExplainer`` stays in ``product_kernel`` (its constructor, public methods and
``explain``); it inherits its paths from base classes in ``product_kernel_base`` (state, tables,
names, the Explanation of a result), ``product_kernel_posterior``, ``product_kernel_dense``,
``product_kernel_sparse`` and ``product_kernel_interactions``.  Every name the module defined before
the split is still imported from it, the class keeps its import path (pickles load) and every
method it had.
"""

from __future__ import annotations

import ast
import pathlib
import pickle

import numpy as np
import pytest

import kexplain as kx
from kexplain.explainers import (
    product_kernel,
    product_kernel_base,
    product_kernel_dense,
    product_kernel_interactions,
    product_kernel_posterior,
    product_kernel_sparse,
)

EXPLAINERS = pathlib.Path(product_kernel.__file__).parent
SIBLINGS = (
    product_kernel_base,
    product_kernel_posterior,
    product_kernel_dense,
    product_kernel_sparse,
    product_kernel_interactions,
)

#: the module-level names product_kernel.py defined before the split (1,180 lines)
OLD_NAMES = (
    "DEVICE_BLOCK_BYTES",
    "SUMMARISED_GAME",
    "VARIANCE_GAMES",
    "ProductKernelExplainer",
    "_efficiency_error",
    "_csr",
    "_given",
    "MAX_INTERACTION_SUBSET_FEATURES",
    "_ZeroGame",
)

#: the methods ProductKernelExplainer defined before the split
OLD_METHODS = (
    "__init__",
    "_init_sparse",
    "_build_tables",
    "n_features",
    "__repr__",
    "predict",
    "product_game",
    "player_names",
    "_names",
    "_label_names",
    "explain",
    "_check_X",
    "_explain_sparse",
    "_explain_variance",
    "_explain_any_order",
    "_banzhaf_from_factors",
    "_any_order_from_subsets",
    "_interaction_subset_game",
    "_covariance_solver",
    "_add_uncertainty",
    "_solve",
    "_solve_array",
    "_summary_info",
    "_to_explanation",
)


@pytest.mark.parametrize("path", sorted(EXPLAINERS.glob("product_kernel*.py")), ids=lambda p: p.name)
def test_each_module_stays_well_under_600_lines(path):
    assert len(path.read_text().splitlines()) < 550, f"{path.name} has 550 lines or more"


def test_every_old_name_is_imported_from_product_kernel_and_is_the_same_object():
    for name in OLD_NAMES:
        obj = getattr(product_kernel, name)
        homes = [m for m in SIBLINGS if name in vars(m) and vars(m)[name] is obj]
        assert homes or name in vars(product_kernel), name
    assert product_kernel.VARIANCE_GAMES[product_kernel.SUMMARISED_GAME].endswith("(summarised background)")


def test_the_class_keeps_its_path_and_every_method():
    cls = kx.ProductKernelExplainer
    assert cls is kx.explainers.ProductKernelExplainer is product_kernel.ProductKernelExplainer
    assert (cls.__module__, cls.__qualname__) == ("kexplain.explainers.product_kernel", "ProductKernelExplainer")
    missing = [m for m in OLD_METHODS if not hasattr(cls, m)]
    assert not missing, missing
    # the public methods are the class's own (the API page lists what the class defines)
    for name in ("__init__", "n_features", "__repr__", "predict", "product_game", "player_names", "explain"):
        assert name in vars(cls), name
    assert issubclass(cls, kx.Explainer)


def test_a_pickled_explainer_loads_as_the_same_class_with_the_same_values():
    rng = np.random.default_rng(0)
    em = kx.KernelExpansion(rng.normal(size=(5, 3)), rng.normal(size=5), kx.kernels.RBF(1.2), intercept=0.3)
    explainer = kx.ProductKernelExplainer(em, background=rng.normal(size=(4, 3)))
    blob = pickle.dumps(explainer)
    assert b"kexplain.explainers.product_kernel" in blob and b"ProductKernelExplainer" in blob
    loaded = pickle.loads(blob)
    assert type(loaded) is kx.ProductKernelExplainer
    X = rng.normal(size=(3, 3))
    a, b = explainer.explain(X), loaded.explain(X)
    assert np.array_equal(a.values, b.values) and np.array_equal(a.base_values, b.base_values)


def _relative_imports(module) -> set[str]:
    tree = ast.parse(pathlib.Path(module.__file__).read_text())
    return {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level == 1}


def test_the_paths_sit_below_the_class():
    """The sibling modules never import product_kernel: the class imports its paths, not the reverse."""
    for module in SIBLINGS:
        assert "product_kernel" not in _relative_imports(module), module.__name__
    assert _relative_imports(product_kernel_base).isdisjoint(
        {"product_kernel_posterior", "product_kernel_dense", "product_kernel_sparse", "product_kernel_interactions"}
    )

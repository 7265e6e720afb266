"""The split of kexplain.shapley.higher_order: one import place, modules by idea, the numpy seams kept.

The code of the any-order interactions lives in ``higher_order_indices``, ``higher_order_product``
(its log-space routes in ``_higher_order_logspace``), ``higher_order_table``,
``higher_order_banzhaf`` and ``higher_order`` itself; every name the module defined before the
splits, private ones included, is still imported from ``kexplain.shapley.higher_order``, and every
name of ``higher_order_product`` from there.  The tests that replace a compiled loader
(``mock.patch.object(ho, "_compiled_butterfly", ...)``, ``mock.patch.object(hob,
"_compiled_banzhaf", ...)``) must still reach the code that calls it, or they would compare the
compiled pass with itself.  No class moved (InteractionTable and InteractionSpec moved in the
first split and kept their pickles' paths; ``_Rule`` stays in ``higher_order_product``), so no
pickle has to keep loading from a new place.
"""

from __future__ import annotations

import pathlib
from unittest import mock

import numpy as np
import pytest

from kexplain._optional import compiled_or_none
from kexplain.shapley import _higher_order_logspace as logspace
from kexplain.shapley import higher_order as ho
from kexplain.shapley import higher_order_banzhaf as hob
from kexplain.shapley import higher_order_indices, higher_order_product, higher_order_table

SHAPLEY = pathlib.Path(ho.__file__).parent
HOMES = (higher_order_indices, higher_order_product, higher_order_table, hob)

#: the module-level names higher_order.py held before the split of its Banzhaf pass (451 lines)
OLD_NAMES = (
    "EFFICIENT_INDICES",
    "INDICES",
    "InteractionSpec",
    "_popcount",
    "bernoulli_numbers",
    "check_interaction_spec",
    "combinations_array",
    "fsii_weights",
    "ksii_from_sii",
    "moebius_weights",
    "product_interactions",
    "solve_product_interactions",
    "InteractionTable",
    "table_from_dense",
    "moebius_transform",
    "_superset_sums",
    "_compiled_butterfly",
    "_butterfly",
    "_sets_to_masks",
    "indices_from_moebius",
    "_moebius_plan",
    "_masks",
    "_indices_from_moebius",
    "shapley_from_moebius",
    "interactions_from_values",
    "interactions_and_shapley_from_values",
    "_from_values",
    "banzhaf_interventional",
    "_compiled_banzhaf",
    "_banzhaf_loo_numpy",
    "banzhaf_cheaper_than_subsets",
)

#: the module-level names higher_order_product.py held before the split of its log-space routes (424 lines)
OLD_PRODUCT_NAMES = (
    "EFFICIENT_INDICES",
    "INDICES",
    "InteractionSpec",
    "_is_int",
    "combinations_array",
    "fsii_weights",
    "ksii_from_sii",
    "InteractionTable",
    "table_from_dense",
    "gauss_legendre_01",
    "nodes_for_degree",
    "_WORK_BYTES",
    "_measure",
    "_log_parts",
    "_sets_chunk",
    "_leave_out_integrals",
    "_size_weighted",
    "product_interactions",
    "_Rule",
    "_rule",
    "_stii_on_common_nodes",
    "_SAFE_LOG_HI",
    "_SAFE_LOG_LO",
    "_integrate_block",
    "_contract",
    "_rows_per_block",
    "solve_product_interactions",
)


#: (the old module, the sibling that holds the code now, the names that moved there)
MOVES = (
    (ho, hob, ("banzhaf_interventional", "banzhaf_cheaper_than_subsets", "_compiled_banzhaf", "_banzhaf_loo_numpy")),
    (
        higher_order_product,
        logspace,
        ("_WORK_BYTES", "_log_parts", "_sets_chunk", "_leave_out_integrals", "_size_weighted"),
    ),
)


def test_every_module_is_under_the_project_bound():
    lines = {p.name: len(p.read_text().splitlines()) for p in SHAPLEY.glob("*higher_order*.py")}
    assert {"higher_order.py", "higher_order_banzhaf.py", "_higher_order_logspace.py"} <= lines.keys()
    assert max(lines.values()) < 380, lines


def test_every_public_name_is_imported_from_higher_order_and_is_the_same_object():
    for name in ho.__all__:
        obj = getattr(ho, name)
        owners = [m for m in HOMES if getattr(m, name, None) is obj]
        assert owners or getattr(obj, "__module__", None) == ho.__name__, name
    from kexplain.shapley import InteractionTable, interactions_from_values, solve_product_interactions

    assert InteractionTable is ho.InteractionTable
    assert interactions_from_values is ho.interactions_from_values
    assert solve_product_interactions is ho.solve_product_interactions


def test_every_old_name_still_resolves_from_its_old_module():
    for module, names in ((ho, OLD_NAMES), (higher_order_product, OLD_PRODUCT_NAMES)):
        missing = [name for name in names if not hasattr(module, name)]
        assert not missing, (module.__name__, missing)
    assert higher_order_product._Rule.__module__ == higher_order_product.__name__  # no pickled class moved


@pytest.mark.parametrize("old,home,names", MOVES, ids=lambda x: getattr(x, "__name__", "names").rsplit(".", 1)[-1])
def test_the_moved_names_are_their_homes_objects(old, home, names):
    for name in names:
        assert getattr(old, name) is vars(home)[name], name
    assert all(getattr(old, n).__module__ == home.__name__ for n in names if callable(getattr(old, n)))


def _recording(calls):
    def load():
        def kernel(*args):
            calls.append(args)
            raise RuntimeError("the patched loader was used")

        return kernel

    return load


def test_patching_the_butterfly_loader_reaches_every_transform():
    v = np.random.default_rng(0).normal(size=(2**4, 1, 1))
    spec = ho.check_interaction_spec({"index": "SII", "max_order": 2})
    calls: list = []
    with mock.patch.object(ho, "_compiled_butterfly", _recording(calls)):
        for run in (
            lambda: ho.moebius_transform(v, 4),
            lambda: ho.interactions_and_shapley_from_values(v, spec),
            lambda: ho.indices_from_moebius(v[:, 0, 0], 4, "SII", 2),
            lambda: ho.shapley_from_moebius(v[:, 0, 0], 4),
        ):
            with pytest.raises(RuntimeError, match="patched loader"):
                run()
    assert len(calls) == 4


def test_patching_the_banzhaf_loader_reaches_the_banzhaf_pass():
    calls: list = []
    with mock.patch.object(hob, "_compiled_banzhaf", _recording(calls)):
        with pytest.raises(RuntimeError, match="patched loader"):
            hob.banzhaf_interventional(np.ones((1, 1, 3)), np.ones((1, 1)), np.zeros((1, 1, 3)), np.ones(1))
    assert len(calls) == 1
    calls.clear()  # the pass is the same object through the old path
    with mock.patch.object(hob, "_compiled_banzhaf", _recording(calls)):
        with pytest.raises(RuntimeError, match="patched loader"):
            ho.banzhaf_interventional(np.ones((1, 1, 3)), np.ones((1, 1)), np.zeros((1, 1, 3)), np.ones(1))
    assert len(calls) == 1


def test_the_loaders_are_cached_and_none_without_their_module():
    assert ho._compiled_butterfly() is ho._compiled_butterfly()
    assert ho._compiled_banzhaf() is ho._compiled_banzhaf()

    @compiled_or_none
    def missing():
        from kexplain.shapley import _no_such_numba_module  # type: ignore[attr-defined]  # noqa: F401

    assert missing() is None
    assert missing.__doc__ is None and missing.__name__ == "missing"

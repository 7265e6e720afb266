"""The split of kexplain.shapley.higher_order: one import place, modules by idea, the numpy seams kept.

The code of the any-order interactions lives in ``higher_order_indices``, ``higher_order_product``,
``higher_order_table`` and ``higher_order`` itself; every public name is still imported from
``kexplain.shapley.higher_order``, and the tests that replace a compiled loader there
(``mock.patch.object(ho, "_compiled_butterfly", ...)``) must still reach the code that calls it,
or they would compare the compiled pass with itself.
"""

from __future__ import annotations

import pathlib
from unittest import mock

import numpy as np
import pytest

from kexplain._optional import compiled_or_none
from kexplain.shapley import higher_order as ho
from kexplain.shapley import higher_order_indices, higher_order_product, higher_order_table

SHAPLEY = pathlib.Path(ho.__file__).parent


@pytest.mark.parametrize("path", sorted(SHAPLEY.glob("higher_order*.py")), ids=lambda p: p.name)
def test_each_module_stays_well_under_600_lines(path):
    assert len(path.read_text().splitlines()) < 500, f"{path.name} has 500 lines or more"


def test_every_public_name_is_imported_from_higher_order_and_is_the_same_object():
    homes = (higher_order_indices, higher_order_product, higher_order_table)
    for name in ho.__all__:
        obj = getattr(ho, name)
        owners = [m for m in homes if getattr(m, name, None) is obj]
        assert owners or getattr(obj, "__module__", None) == ho.__name__, name
    from kexplain.shapley import InteractionTable, interactions_from_values, solve_product_interactions

    assert InteractionTable is ho.InteractionTable
    assert interactions_from_values is ho.interactions_from_values
    assert solve_product_interactions is ho.solve_product_interactions


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
    with mock.patch.object(ho, "_compiled_banzhaf", _recording(calls)):
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

"""The splits of kexplain.dask.explain and kexplain.star.explainer: modules by idea, one import place each.

``dask/explain.py`` keeps the lazy result :class:`~kexplain.dask.DaskExplanation` and the graph
:func:`~kexplain.dask.explain_dask` builds; the tasks the workers run (one ``explain`` call per
row block, the readers of its Explanation) and the explainer's way to them with ``client=`` live
in ``dask/_tasks.py``, the checks of the arguments and the blocks' random streams in
``dask/_inputs.py``.

Every name either module defined before its split, private ones included, is still imported from
it, the same object as in its new home.
"""

from __future__ import annotations

import importlib
import pathlib

import pytest

pytest.importorskip("dask")

from kexplain.dask import _inputs, _memory, _tasks  # noqa: E402

dask_explain = importlib.import_module("kexplain.dask.explain")

#: old module -> every name it defined (or imported from its own folder) before the split, and
#: the module that holds it now (dask/explain.py had 528 lines)
HOMES = {
    dask_explain: {
        "_dask": dask_explain,
        "DaskExplanation": dask_explain,
        "explain_dask": dask_explain,
        "heap_reuse": _memory,
        "_explain_block": _tasks,
        "_values": _tasks,
        "_base_values": _tasks,
        "_interactions": _tasks,
        "_flat_columns": _tasks,
        "_frame": _tasks,
        "_identity": _tasks,
        "_share": _tasks,
        "_check_explainer": _inputs,
        "_check_client": _inputs,
        "_is_dask_array": _inputs,
        "_is_dask_frame": _inputs,
        "_check_random_state": _inputs,
        "_spawn": _inputs,
        "_block_seeds": _inputs,
        "_first_seed": _inputs,
    },
}
MODULES = [dask_explain, _tasks, _inputs]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_each_module_stays_under_450_lines(module):
    n = len(pathlib.Path(module.__file__).read_text().splitlines())
    assert n < 430, f"{module.__name__} has {n} lines"


@pytest.mark.parametrize(
    "module,name", [(m, n) for m, names in HOMES.items() for n in names], ids=lambda v: getattr(v, "__name__", v)
)
def test_every_name_is_imported_from_the_old_module_and_is_its_homes_object(module, name):
    home = HOMES[module][name]
    assert name in vars(home), f"{name} is not defined in {home.__name__}"
    assert getattr(module, name) is vars(home)[name]


def test_the_dask_package_exports_the_same_objects():
    import kexplain.dask as kd

    assert kd.explain_dask is dask_explain.explain_dask
    assert kd.DaskExplanation is dask_explain.DaskExplanation
    assert kd.DaskExplanation.__module__ == "kexplain.dask.explain"  # did not move: its pickles load as before


def test_the_worker_functions_resolve_by_their_module_and_name():
    """Dask pickles the task functions by reference: each one's ``__module__`` leads back to it."""
    for name in ("_explain_block", "_values", "_base_values", "_interactions", "_frame", "_identity"):
        fn = getattr(dask_explain, name)
        assert getattr(importlib.import_module(fn.__module__), fn.__qualname__) is fn

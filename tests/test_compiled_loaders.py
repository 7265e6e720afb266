"""The loaders of compiled (numba) code: one helper, ``kexplain._optional.compiled_or_none``.

Each loader imports its ``_*_numba`` module on first use, once, and gives None where numba is
missing or unusable (the callers' numpy paths give the same numbers).  The tests block numba and
the compiled modules in ``sys.modules`` to check that every loader then gives None, and scan the
source for loaders written by hand instead of with the helper.
"""

from __future__ import annotations

import ast
import pathlib
import sys

import pytest

from kexplain._optional import compiled_or_none
from kexplain.gp import _interactions as gp_interactions
from kexplain.kernels import _gram, stationary
from kexplain.shapley import higher_order as ho
from kexplain.shapley import product as engine
from kexplain.shapley import quadrature, sparse, stochastic
from kexplain.stats import _pairs

SRC = pathlib.Path(ho.__file__).resolve().parents[1]

#: the loaders written with the helper (each cached; cache_clear forgets the result)
LOADERS = {
    "shapley.higher_order._compiled_butterfly": lambda: ho._compiled_butterfly,
    "shapley.higher_order._compiled_banzhaf": lambda: ho._compiled_banzhaf,
    "shapley.stochastic._prior_kernel": lambda: stochastic._prior_kernel,
    "kernels._gram._compiled_rbf_pass": lambda: _gram._compiled_rbf_pass,
    "gp._interactions._compiled": lambda: gp_interactions._compiled,
    "stats._pairs._pairs_numba_module": lambda: _pairs._pairs_numba_module,
    "shapley.product._spread_pass": lambda: engine._spread_pass,
    "shapley.sparse._near_base_kernel": lambda: sparse._near_base_kernel,
    "kernels.stationary._load_exp_numba": lambda: stationary._load_exp_numba,
    "shapley.product._numba_kernel": lambda: engine._numba_kernel,
    "shapley.product._safe_kernel": lambda: engine._safe_kernel,
    "shapley.quadrature._compiled_recurrence": lambda: quadrature._compiled_recurrence,
}

#: functions that still import a compiled module inside try/except themselves, and why; may only shrink
HAND_WRITTEN = {
    # backend="numba" must raise naming the extra where the import fails, so not "None, cached"
    "shapley/subset_tables.py:_subset_kernel": "backend resolver: raises for backend='numba'",
    "shapley/polynomial.py:_resolve_backend": "backend resolver: raises for backend='numba'",
}


@pytest.fixture
def no_numba(monkeypatch):
    """numba and every compiled module of kexplain unimportable; the loaders' caches forgotten before and after."""
    for name in [n for n in sys.modules if n == "numba" or n.startswith("numba.")]:
        monkeypatch.setitem(sys.modules, name, None)
    for name in [n for n in sys.modules if n.startswith("kexplain.") and "numba" in n.rsplit(".", 1)[-1]]:
        monkeypatch.setitem(sys.modules, name, None)
        parent, _, child = name.rpartition(".")
        monkeypatch.delattr(sys.modules[parent], child, raising=False)  # `from . import _x_numba` reads it
    monkeypatch.setitem(sys.modules, "numba", None)  # also where nothing imported numba yet
    for get in LOADERS.values():
        get().cache_clear()
    _pairs._COMPILED.clear()
    yield
    for get in LOADERS.values():
        get().cache_clear()
    _pairs._COMPILED.clear()


def test_the_helper_gives_none_without_numba_and_caches(monkeypatch):
    monkeypatch.setitem(sys.modules, "numba", None)  # `import numba` raises ImportError
    calls = []

    @compiled_or_none
    def load():
        """Doc kept."""
        calls.append(1)
        import numba

        return numba.njit

    assert load() is None and load() is None
    assert calls == [1], "the failed import is not retried"
    assert load.__name__ == "load" and load.__doc__ == "Doc kept."


def test_the_helper_caches_what_it_loaded():
    calls = []

    @compiled_or_none
    def load():
        calls.append(1)
        return object()

    first = load()
    assert first is not None and load() is first and calls == [1]
    load.cache_clear()
    assert load() is not first and calls == [1, 1]


def test_a_bug_in_the_loader_gives_none_too():
    # what the loaders always did: any exception (numba present but unusable) means the numpy path
    @compiled_or_none
    def load():
        raise RuntimeError("no cache location")

    assert load() is None


@pytest.mark.parametrize("name", sorted(LOADERS))
def test_every_loader_gives_none_without_numba(name, no_numba):
    assert LOADERS[name]()() is None


@pytest.mark.parametrize("name", sorted(LOADERS))
def test_every_loader_is_cached(name):
    loader = LOADERS[name]()
    assert loader() is loader()
    assert hasattr(loader, "cache_clear"), f"{name} is not a compiled_or_none loader"


def test_pairs_functions_fall_back_to_numpy_without_numba(no_numba):
    assert _pairs._compiled("tile_pairs") is None and _pairs._factor_kernel() is None


def test_pairs_functions_come_from_the_compiled_module():
    pytest.importorskip("numba")
    module = _pairs._pairs_numba_module()
    if module is None:
        pytest.skip("numba is installed but unusable here")
    assert _pairs._compiled("tile_pairs") is module.tile_pairs
    with pytest.raises(AttributeError):  # a misspelt name is an error, not a silent numpy path
        _pairs._compiled("no_such_pass")


def _hand_written_loaders() -> set[str]:
    """``path:function`` for every function with a try block importing a ``_*_numba`` module."""
    found = set()
    for path in sorted(SRC.rglob("*.py")):
        for fn in ast.walk(ast.parse(path.read_text())):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if not isinstance(node, ast.Try):
                    continue
                for stmt in node.body:
                    if isinstance(stmt, ast.ImportFrom) and (
                        (stmt.module or "").endswith("numba") or any(a.name.endswith("_numba") for a in stmt.names)
                    ):
                        found.add(f"{path.relative_to(SRC).as_posix()}:{fn.name}")
    return found


def test_compiled_code_is_loaded_through_the_helper():
    found = _hand_written_loaders()
    new = sorted(found - set(HAND_WRITTEN))
    assert not new, (
        "load compiled modules with kexplain._optional.compiled_or_none (cached, None without numba), "
        f"not by hand: {new}"
    )
    gone = sorted(set(HAND_WRITTEN) - found)
    assert not gone, f"converted: drop from HAND_WRITTEN: {gone}"


@pytest.mark.parametrize("name", sorted(LOADERS))
def test_every_loader_loads_with_numba(name):
    pytest.importorskip("numba")
    assert LOADERS[name]()() is not None, f"{name} gives None although numba imports"

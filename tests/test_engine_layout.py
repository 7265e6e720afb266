"""The split of kexplain.shapley.product (the product-game engine): one import place, modules by idea.

The engine's code lives in ``_product_loo`` (the leave-one-out pass, the backend choice),
``_product_nodes`` (certified node counts), ``_product_logspace`` (the log-space path),
``_product_block`` (one dense block, the rows form, interaction indices), ``_product_functional``
and ``_product_interventional`` (the two fused routes) and ``product`` itself (``ProductGame``,
``block_shape``, ``solve_product_game``).  Every name the module held before the split, private
ones and imported ones included, is still imported from ``kexplain.shapley.product`` and is the
same object as in its home.  A name patched in a test must be patched in the module that reads
it: the loaders and ``CERTIFY_FROM_NODES`` in their homes (where the code calls them), the
routes solve_product_game calls in ``product`` (its globals); these tests pin that patching
there still reaches the code.  No class moved (``ProductGame`` stays), so no pickle path changed.
"""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

from kexplain.shapley import (
    _product_block,
    _product_functional,
    _product_interventional,
    _product_logspace,
    _product_loo,
    _product_nodes,
)
from kexplain.shapley import product as engine
from kexplain.shapley.quadrature import nodes_for_degree

SHAPLEY = pathlib.Path(engine.__file__).parent

#: the module-level names product.py defined before the split (1,093 lines)
OLD_DEFINED = (
    "_TINY",
    "_HUGE",
    "DEFAULT_BLOCK_BYTES",
    "_WORK_BYTES",
    "_BLOCK_ARRAYS",
    "BACKENDS",
    "NODE_RULES",
    "_numba_kernel",
    "_resolve_backend",
    "_check_nodes",
    "_point_counts_numpy",
    "_block_nodes",
    "CERTIFY_FROM_NODES",
    "_point_nodes",
    "_certified_loo_integrals",
    "_spread_pass",
    "_check_finite",
    "_loo_products_safe",
    "_loo2_products_safe",
    "_weighted_loo_integrals_numpy",
    "_weighted_loo_integrals_safe",
    "_safe_kernel",
    "_weighted_loo_integrals_safe_numpy",
    "_weighted_loo_integrals",
    "compiled_available",
    "leave_one_out_integrals",
    "_interactions_block",
    "efficiency_error",
    "_pairs_block",
    "_stationary_kernel",
    "_rows_in_lanes",
    "_stationary_pairs_block",
    "_rule_table",
    "CERTIFY_FUSED_FROM_NODES",
    "_fused_kernel",
    "_fused_kernel_laid",
    "_fused_pairs_block",
    "product_game_block",
    "ProductGame",
    "block_shape",
    "solve_product_game",
)

#: the names it imported (tests read some of them through the engine, e.g. ``engine.node_limits``)
OLD_IMPORTED = (
    "nullcontext",
    "Any",
    "Protocol",
    "np",
    "compiled_or_none",
    "check_interactions",
    "reuse_heap",
    "_product_game_block_xp",
    "array_namespace",
    "is_foreign_array",
    "resolve_dtype",
    "to_numpy",
    "interaction_layout",
    "interaction_rule",
    "gauss_legendre_01",
    "node_limits",
    "nodes_for_degree",
    "spread_limit",
    "ShapleyValues",
)

#: (the sibling that holds the code now, the names that moved there)
MOVES = (
    (_product_logspace, ("_TINY", "_HUGE", "_WORK_BYTES", "_loo_products_safe", "_loo2_products_safe")),
    (_product_logspace, ("_weighted_loo_integrals_safe", "_safe_kernel", "_weighted_loo_integrals_safe_numpy")),
    (_product_nodes, ("CERTIFY_FROM_NODES", "_point_counts_numpy", "_block_nodes", "_point_nodes", "_spread_pass")),
    (_product_loo, ("BACKENDS", "_numba_kernel", "_resolve_backend", "_check_finite", "_weighted_loo_integrals")),
    (_product_loo, ("_weighted_loo_integrals_numpy", "_certified_loo_integrals", "compiled_available")),
    (_product_loo, ("leave_one_out_integrals",)),
    (_product_block, ("NODE_RULES", "_check_nodes", "_interactions_block", "efficiency_error", "_pairs_block")),
    (_product_block, ("product_game_block",)),
    (_product_functional, ("_stationary_kernel", "_rows_in_lanes", "_stationary_pairs_block")),
    (_product_functional, ("_rule_table", "CERTIFY_FUSED_FROM_NODES")),
    (_product_interventional, ("_fused_kernel", "_fused_kernel_laid", "_fused_pairs_block")),
)


def test_every_module_is_under_the_project_bound():
    lines = {p.name: len(p.read_text().splitlines()) for p in SHAPLEY.glob("*.py")}
    names = ("product.py", *(m.__name__.rsplit(".", 1)[-1] + ".py" for m, _ in MOVES))
    assert max(lines[n] for n in names) < 380, {n: lines[n] for n in names}


def test_every_old_name_still_resolves_from_product():
    missing = [name for name in OLD_DEFINED + OLD_IMPORTED if not hasattr(engine, name)]
    assert not missing, missing
    moved = {name for _, names in MOVES for name in names}
    stayed = set(OLD_DEFINED) - moved
    assert stayed == {"DEFAULT_BLOCK_BYTES", "_BLOCK_ARRAYS", "ProductGame", "block_shape", "solve_product_game"}
    for name in stayed:
        obj = getattr(engine, name)
        assert not callable(obj) or obj.__module__ == engine.__name__, name
    assert engine.ProductGame.__module__ == engine.__name__  # no class moved: no pickle path changed


@pytest.mark.parametrize("home,names", MOVES, ids=lambda x: getattr(x, "__name__", "names").rsplit(".", 1)[-1])
def test_the_moved_names_are_their_homes_objects(home, names):
    for name in names:
        assert getattr(engine, name) is vars(home)[name], name
    assert all(getattr(engine, n).__module__ == home.__name__ for n in names if callable(getattr(engine, n)))


def test_the_public_names_are_the_same_objects_from_the_package():
    from kexplain import shapley

    for name in ("product_game_block", "solve_product_game", "ProductGame", "block_shape", "efficiency_error"):
        if hasattr(shapley, name):
            assert getattr(shapley, name) is getattr(engine, name), name


def test_the_solver_calls_the_routes_directly():
    """solve_product_game finds the routes in its own module's globals (patchable there, no facade
    lookup per block); each route finds its loader in its own module."""
    g = engine.solve_product_game.__globals__
    for name in ("_stationary_pairs_block", "_fused_pairs_block", "_pairs_block", "_rows_in_lanes", "_check_finite"):
        assert g[name] is getattr(engine, name), name
    assert _product_interventional._fused_pairs_block.__globals__["_point_nodes"] is _product_nodes._point_nodes


def test_patching_certify_from_nodes_in_its_home_reaches_both_readers(monkeypatch):
    """``CERTIFY_FROM_NODES`` has one home, ``_product_nodes``, read at call time by ``_point_nodes``
    and by the fused interventional route."""
    rng = np.random.default_rng(0)
    d, p, r = 12, 2, 3  # 6 exact nodes: below the default, so no certificate unless lowered
    a2 = np.exp(rng.normal(0.0, 0.01, (p * r, d)))
    b2 = np.ones((1, d))
    assert _product_nodes._point_nodes(a2, None, b2, p, r).tolist() == [nodes_for_degree(d - 1)] * p
    seen = []
    real = _product_nodes._point_nodes

    def spy(*args):
        seen.append(1)
        return real(*args)

    monkeypatch.setattr(_product_nodes, "CERTIFY_FROM_NODES", 1)
    assert engine._point_nodes(a2, None, b2, p, r).max() < nodes_for_degree(d - 1)
    monkeypatch.setattr(_product_interventional, "_point_nodes", spy)
    c = rng.normal(size=(r, 1))
    _product_interventional._fused_pairs_block(a2, np.arange(p * r), b2, c, p, n_nodes=None)
    assert seen or _product_interventional._fused_kernel() is None


def test_patching_the_spread_pass_in_its_home_reaches_point_nodes(monkeypatch):
    rng = np.random.default_rng(1)
    d = 40
    a2 = np.exp(rng.normal(0.0, 0.02, (6, d)))
    b2 = np.ones((1, d))

    def no_pass():
        raise AssertionError("patched")

    monkeypatch.setattr(_product_nodes, "_spread_pass", no_pass)
    with pytest.raises(AssertionError, match="patched"):
        engine._point_nodes(a2, None, b2, 2, 3)


def test_patching_the_stationary_kernel_in_its_home_reaches_the_functional_route(monkeypatch):
    def kernel(*args):
        raise AssertionError("patched")

    monkeypatch.setattr(_product_functional, "_stationary_kernel", lambda: kernel)
    X, Y = np.zeros((1, 3)), np.ones((2, 3))
    with pytest.raises(AssertionError, match="patched"):
        engine._stationary_pairs_block(X, Y, np.ones(3), False, np.ones((2, 1)), None)


def test_patching_the_fused_loaders_in_their_home_reaches_the_interventional_route(monkeypatch):
    monkeypatch.setattr(_product_interventional, "_fused_kernel", lambda: None)
    a2 = np.full((2, 3), 0.5)
    assert engine._fused_pairs_block(a2, np.arange(2), np.ones((1, 3)), np.ones((2, 1)), 1, n_nodes=2) is None


def test_patching_the_safe_kernel_in_its_home_reaches_the_log_space_path(monkeypatch):
    calls = []
    monkeypatch.setattr(_product_logspace, "_safe_kernel", lambda: None)
    real = _product_logspace._weighted_loo_integrals_safe_numpy
    monkeypatch.setattr(_product_logspace, "_weighted_loo_integrals_safe_numpy", lambda *a: calls.append(1) or real(*a))
    a = np.full((1, 1, 400), 1e-3)  # products far below the range: the log-space path
    phi = engine.product_game_block(a, 1.0, np.ones(1))[0]
    assert calls and np.all(np.isfinite(phi))

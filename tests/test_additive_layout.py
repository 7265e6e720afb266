"""The split of kexplain.shapley.additive: one import place, modules by idea, the same objects and pickles.

The elementary symmetric polynomials live in ``additive_polynomials``, the pass over one dense
block (with the checks and the private helpers it shares) in ``additive_block``, the game
protocol, the blocked solver, ``DenseAdditiveGame`` and ``additive_shapley`` in ``additive``
itself; every name the module defined before the split, private ones included, is still imported
from ``kexplain.shapley.additive`` (the gp folder, the tests and the benchmarks import from there),
and a ``DenseAdditiveGame`` pickled before the split still loads.
"""

from __future__ import annotations

import ast
import pathlib
import pickle

import numpy as np
import pytest

import kexplain.shapley as shapley
from kexplain.shapley import additive, additive_block, additive_polynomials

SHAPLEY = pathlib.Path(additive.__file__).parent
SIBLINGS = (additive_block, additive_polynomials)

#: the module-level names additive.py defined before the split (658 lines)
OLD_NAMES = (
    "DEFAULT_BLOCK_BYTES",
    "_INDICES",
    "_check_weights",
    "_order_coefficients",
    "elementary_symmetric",
    "leave_one_out_esp",
    "_block_core",
    "_contract",
    "_order_sums",
    "_as_players_first",
    "additive_block_values",
    "additive_game_block",
    "AdditiveGame",
    "_chunks",
    "solve_additive_game",
    "DenseAdditiveGame",
    "additive_shapley",
)

#: ``DenseAdditiveGame(z, c, [0, 1, 1], absent=b)`` pickled (protocol 2) before the split, its arrays
#: written as ``numpy.array(list)`` so that the bytes do not depend on numpy's private module names
OLD_PICKLE = (
    b"\x80\x02ckexplain.shapley.additive\nDenseAdditiveGame\nq\x00)\x81q\x01}q\x02(X\x01\x00\x00\x00z"
    b"q\x03cnumpy\narray\nq\x04]q\x05]q\x06(]q\x07(G?\xf0\x00\x00\x00\x00\x00\x00G@\x00\x00\x00\x00"
    b"\x00\x00\x00e]q\x08(G@\x08\x00\x00\x00\x00\x00\x00G?\xe0\x00\x00\x00\x00\x00\x00eea\x85q\tRq\nX"
    b"\x01\x00\x00\x00cq\x0bh\x04]q\x0c(]q\rG?\xf0\x00\x00\x00\x00\x00\x00a]q\x0eG\xbf\xf0\x00\x00\x00"
    b"\x00\x00\x00ae\x85q\x0fRq\x10X\x01\x00\x00\x00yq\x11NX\x06\x00\x00\x00absentq\x12h\x04]q\x13(]q"
    b"\x14(G?\xe0\x00\x00\x00\x00\x00\x00G?\xd0\x00\x00\x00\x00\x00\x00e]q\x15(G?\xf0\x00\x00\x00\x00"
    b"\x00\x00G@\x00\x00\x00\x00\x00\x00\x00ee\x85q\x16Rq\x17X\n\x00\x00\x00has_absentq\x18\x88X\x07"
    b"\x00\x00\x00weightsq\x19h\x04]q\x1a(G\x00\x00\x00\x00\x00\x00\x00\x00G?\xf0\x00\x00\x00\x00\x00"
    b"\x00G?\xf0\x00\x00\x00\x00\x00\x00e\x85q\x1bRq\x1cX\x08\x00\x00\x00n_pointsq\x1dK\x01X\x06\x00"
    b"\x00\x00n_rowsq\x1eK\x02X\n\x00\x00\x00n_featuresq\x1fK\x02X\t\x00\x00\x00n_outputsq K\x01ub."
)


@pytest.mark.parametrize("path", sorted(SHAPLEY.glob("additive*.py")), ids=lambda p: p.name)
def test_each_module_stays_well_under_450_lines(path):
    assert len(path.read_text().splitlines()) < 400, f"{path.name} has 400 lines or more"


def test_every_old_name_is_imported_from_additive_and_is_the_same_object():
    for name in OLD_NAMES:
        obj = getattr(additive, name)
        homes = [m for m in SIBLINGS if name in vars(m) and vars(m)[name] is obj]
        defined_here = getattr(obj, "__module__", additive.__name__) == additive.__name__
        assert homes or defined_here, name
    for name in shapley.__all__:
        if name in OLD_NAMES:
            assert getattr(shapley, name) is getattr(additive, name), name


def test_the_classes_keep_their_path():
    for cls in (additive.AdditiveGame, additive.DenseAdditiveGame):
        assert cls.__module__ == "kexplain.shapley.additive", cls


def test_a_game_pickled_before_the_split_loads_and_solves_to_the_same_numbers():
    game = pickle.loads(OLD_PICKLE)
    assert type(game) is additive.DenseAdditiveGame
    res = additive.solve_additive_game(game)
    # the values main gave for this game (exact in binary)
    assert res.values.tolist() == [[[-3.4375], [7.5625]]]
    assert res.v_full.tolist() == [[0.0]] and res.v_empty.tolist() == [[-4.125]]
    assert np.array_equal(
        res.values, additive.additive_shapley(game.z, game.c, game.weights, absent=game.absent).values
    )


def _relative_imports(module) -> set[str]:
    tree = ast.parse(pathlib.Path(module.__file__).read_text())
    return {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level == 1}


def test_the_siblings_sit_below_the_solver():
    """The block pass and the polynomials never import the solver module: it imports them."""
    for module in SIBLINGS:
        assert "additive" not in _relative_imports(module), module.__name__
    assert "additive_polynomials" not in _relative_imports(additive_block)

"""The split of kexplain.shapley.subsets: one import place, modules by idea, old pickles still load.

The tables of the subset route (``subset_products``, ``absent_set_table``) and the pass forming a
point's game values from them (``_subset_kernel``, ``_subset_values_numpy``,
``compiled_available``) live in ``subset_tables``; :class:`SubsetGame` stays in ``subsets``.  Every
name the module defined before the split, private ones included, is still imported from
``kexplain.shapley.subsets`` (the explainers, gp and rkhs folders and the tests import from there).
A SubsetGame on the numpy backend pickles its kernel, a function, by its module path: a pickle made
before the split names ``kexplain.shapley.subsets._subset_values_numpy`` and must still load.
"""

from __future__ import annotations

import pathlib
import pickle

import numpy as np

from kexplain.shapley import subset_tables, subsets

#: the module-level names of subsets.py (425 lines before the split) that moved to subset_tables
MOVED = (
    "SubsetKernel",
    "subset_products",
    "absent_set_table",
    "_subset_values_numpy",
    "_subset_kernel",
    "compiled_available",
)

#: every module-level name subsets.py defined before the split
OLD_NAMES = MOVED + (
    "check_interactions",
    "MAX_ENUMERATION_FEATURES",
    "_cached_batch_coefficients",
    "exact_shapley",
    "ShapleyValues",
    "_WORK_BYTES",
    "DEFAULT_BLOCK_BYTES",
    "_ONE_BATCH",
    "_KEEP_UNIT_WEIGHTS",
    "_TableLookup",
    "SubsetGame",
)

#: pickle.dumps(SubsetGame(np.array([[1.0, 0.5, 2.0, 0.25]]), np.array([2.0]), backend="numpy"),
#: protocol=4) under main before the split
OLD_PICKLE = (
    b"\x80\x04\x955\x01\x00\x00\x00\x00\x00\x00\x8c\x18kexplain.shapley.subsets\x94\x8c\nSubsetGame\x94\x93\x94)"
    b"\x81\x94}\x94(\x8c\nn_features\x94K\x02\x8c\x06n_rows\x94K\x01\x8c\tn_outputs\x94K\x01\x8c\x07_kernel\x94h"
    b"\x00\x8c\x14_subset_values_numpy\x94\x93\x94\x8c\x06_table\x94\x8c\x16numpy._core.multiarray\x94\x8c\x0c"
    b"_reconstruct\x94\x93\x94\x8c\x05numpy\x94\x8c\x07ndarray\x94\x93\x94K\x00\x85\x94C\x01b\x94\x87\x94R\x94(K"
    b"\x01K\x01K\x04K\x01\x87\x94h\x0f\x8c\x05dtype\x94\x93\x94\x8c\x02f8\x94\x89\x88\x87\x94R\x94(K\x03\x8c\x01<"
    b"\x94NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00t\x94b\x89C \x00\x00\x00\x00\x00\x00\xe0?\x00\x00\x00\x00\x00"
    b"\x00\x10@\x00\x00\x00\x00\x00\x00\xf0?\x00\x00\x00\x00\x00\x00\x00@\x94t\x94bub."
)


def test_both_modules_are_under_the_project_bound():
    lines = {m.__name__: len(pathlib.Path(m.__file__).read_text().splitlines()) for m in (subsets, subset_tables)}
    assert max(lines.values()) < 380, lines


def test_every_old_name_is_imported_from_subsets_and_the_moved_ones_are_the_same_objects():
    for name in OLD_NAMES:
        assert hasattr(subsets, name), name
    for name in MOVED:
        assert getattr(subsets, name) is vars(subset_tables)[name], name
    for name in ("subset_products", "absent_set_table", "_subset_values_numpy", "_subset_kernel", "compiled_available"):
        assert getattr(subsets, name).__module__ == subset_tables.__name__, name
    for obj in (subsets.SubsetGame, subsets._TableLookup):
        assert obj.__module__ == subsets.__name__  # the classes did not move: their pickles' paths hold


def test_a_subset_game_pickled_before_the_split_loads_and_gives_the_same_numbers():
    game = pickle.loads(OLD_PICKLE)
    assert type(game) is subsets.SubsetGame
    assert game._kernel is subsets._subset_values_numpy
    present = np.array([[[3.0, 5.0]]])
    # the numbers main gave for this game (exact in binary)
    assert game.values(present)[:, 0, 0].tolist() == [0.5, 12.0, 5.0, 30.0]
    res = game.solve(present)
    assert res.values.tolist() == [[[18.25], [11.25]]]
    assert res.v_full.tolist() == [[30.0]] and res.v_empty.tolist() == [[0.5]]
    fresh = subsets.SubsetGame(np.array([[1.0, 0.5, 2.0, 0.25]]), np.array([2.0]), backend="numpy")
    assert np.array_equal(pickle.loads(pickle.dumps(fresh)).solve(present).values, res.values)

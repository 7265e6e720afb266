"""The split of kexplain.stats.hsic and kexplain.stats.mmd: modules by idea, one import place, the same pickles.

Each statistic keeps its public module (``hsic``: :func:`~kexplain.stats.hsic` and
:func:`~kexplain.stats.hsic_shapley`; ``mmd``: :func:`~kexplain.stats.mmd` and
:func:`~kexplain.stats.mmd_shapley`); its permutation test lives in ``hsic_permutation`` /
``mmd_permutation``, the inputs (validation, default kernels) in ``_hsic_inputs`` / ``_mmd_inputs``
and the pair games in ``_hsic_game`` / ``_mmd_game``.  Every name the two modules defined before the
split is still imported from them, the same object as in its new home; the games' classes, which
Dask ships to workers by pickle, load from pickles made when they lived in ``hsic`` and ``mmd``.
"""

from __future__ import annotations

import base64
import importlib
import pathlib
import pickle
import zlib

import numpy as np
import pytest

import kexplain.stats as ks
from kexplain.kernels import RBF
from kexplain.stats import _hsic_game, _hsic_inputs, _mmd_game, _mmd_inputs, hsic_permutation, mmd_permutation

# ``from kexplain.stats import hsic`` gives the function (the package re-exports it over the module)
hsic_module = importlib.import_module("kexplain.stats.hsic")
mmd_module = importlib.import_module("kexplain.stats.mmd")

#: every name each module defined before the split, and the module that holds it now
HOMES = {
    hsic_module: {
        "ATTRIBUTES": _hsic_inputs,
        "_label_columns": _hsic_inputs,
        "_prepare_side": _hsic_inputs,
        "_prepare": _hsic_inputs,
        "_check_attribute": _hsic_inputs,
        "_sides": _hsic_inputs,
        "_GRAM_BLOCK_ELEMS": _hsic_game,
        "_row_sums": _hsic_game,
        "_CentredWeights": _hsic_game,
        "_HSICPairs": _hsic_game,
        "_HSICDraws": _hsic_game,
        "_hsic_game": _hsic_game,
        "_permutations": hsic_permutation,
        "hsic_test": hsic_permutation,
        "hsic": hsic_module,
        "hsic_shapley": hsic_module,
    },
    mmd_module: {
        "_prepare": _mmd_inputs,
        "_weights": _mmd_game,
        "_PooledPairs": _mmd_game,
        "_pooled_game": _mmd_game,
        "_finish_pooled": _mmd_game,
        "_DrawnPairs": _mmd_game,
        "_add_moments": _mmd_game,
        "_finish_incomplete": _mmd_game,
        "_incomplete": _mmd_game,
        "_relabellings": mmd_permutation,
        "mmd_test": mmd_permutation,
        "_GRAM_BLOCK_ELEMS": mmd_module,
        "_gram_sum": mmd_module,
        "mmd": mmd_module,
        "mmd_shapley": mmd_module,
    },
}
MODULES = [hsic_module, _hsic_inputs, _hsic_game, hsic_permutation, mmd_module, _mmd_inputs, _mmd_game, mmd_permutation]
CLASSES = [
    (hsic_module, "_CentredWeights"),
    (hsic_module, "_HSICPairs"),
    (hsic_module, "_HSICDraws"),
    (mmd_module, "_PooledPairs"),
    (mmd_module, "_DrawnPairs"),
]

#: ``base64(zlib(pickle.dumps(objs, protocol=4)))``, made before the split, of ``objs`` =
#: ``(_HSICPairs(B, RBF(2.0), w, np.arange(4)[None, :]), _HSICDraws(B, RBF(2.0), w, 8, 7, 0),
#: _PooledPairs(RBF(1.0), B, labels, 2, 2, "unbiased"), _DrawnPairs(RBF(1.0), B[:2], B[2:], 8, 5))``
#: with ``w = _CentredWeights(RBF(1.0), B, "biased")`` and B, labels as in ``_games``: the classes are
#: named ``kexplain.stats.hsic.X`` and ``kexplain.stats.mmd.X``
OLD_PICKLE = (
    "eNrdVUuLE1kUrltdqSS2Q0tLu1AH2hf0gAQUGYYZJdqRnselG1EbRRiKm1TZt0zqJlbdqA0OjAvjtJzF0H3cuRv37mY2OrOS"
    "+QEiKroQFzPb/gd66pF0EiK2uBEr4b7qnHNzvu+cL79ad9aKRvLMwPa6d63VEL4qRVroqCQjv4awxfnhzI+VU8IPI1zDr27g"
    "LzgD9gnHFVog7FDtoLVccmrN0CsF7Yb2RRiKZYStTujVmirSYbumyRFyiSVCXrmpyRpy4yZWWBVv4Wmc4YxbnHVQFiHn6uWW"
    "FzuZF7/Bld/S92PAjuLCwsJPb+hJBm5orK5Upo2BZ72czoXj6Tx5HMkM7LoXKq+BsKuXZnoSJen6TSVC+nljp2fnNvIcb3hq"
    "ScuoJhoefp8FNKAoglbD122XDsvr6WG7Cvmrnr8kdYTSgAmn4ikdeu657KwbU+6UX2ar6Z6z3NMfh82inICiF2k/ELoZIthV"
    "X0Sei8AUcgvYiY17CSM6nxrizmklhMGWOVGjCCdjsnpZsUWUBTkewy+/GAR/arNw5uq+cqMRcRhtJsH0+4iTO0bRVujekMQb"
    "89WVd0Sb6tmulxPbQuBHBExNvtchDd6uysMdKqYwGJV36jD99dG/9livn5cfP3i5eu//F+Xb9r6/7648LduHj8F/3z5JbzaX"
    "KIQNdlwQIiRE5VSlcHHrwze3/3hWxg6FhFxWLOUHl//dTV/iM9fywmAkVtwizGf7MGfZbGbzWF8a8mBMvYucATuL3IaicroV"
    "R91haZ/unb+8W5bkoazCjnwsz/K70RDPDkEs595HxasEQTm/acpUB2k0MgE6GYqrfU2UkxMDjdRtzYFGknvlgRg0eYkzWSfA"
    "8irrC16AfNyeTVIkngcr8qmVuQG5mmyrOs4vLkJBOcmGjNlngijGiMLkkFQEgRvL9alms+G5gzq/Ga06F2uV3RBVUtJ3ygoJ"
    "QvVQv5JfH6nkFmOZHLAFzHjbO9O7bmPxz6ts0c1QY0ywDOZX93+aZK1/KFmPkvK/D+NOXPrqg4kxz4sRdJjd9LcNp5/q24XN"
    "OA1hdJCbwALkZswX6V/810g7+li3UK5SM8nfeQ7srJ1+ppgGNzrUV8loxqMn//xorj4L3i+Z1AIx9RpLbwFjaeES"
)


def _games():
    B = np.array([[0.0], [1.0], [3.0], [4.5]])
    labels = np.array([[True], [True], [False], [False]])
    w = hsic_module._CentredWeights(RBF(1.0), B, "biased")
    return (
        hsic_module._HSICPairs(B, RBF(2.0), w, np.arange(4)[None, :]),
        hsic_module._HSICDraws(B, RBF(2.0), w, 8, 7, 0),
        mmd_module._PooledPairs(RBF(1.0), B, labels, 2, 2, "unbiased"),
        mmd_module._DrawnPairs(RBF(1.0), B[:2], B[2:], 8, 5),
    )


def _same(a, b):
    """Task outputs (lists of tuples of arrays and numbers) equal bit for bit."""
    assert type(a) is type(b)
    if isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    else:
        np.testing.assert_array_equal(a, b, strict=True)


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_each_module_stays_well_under_its_bound(module):
    n = len(pathlib.Path(module.__file__).read_text().splitlines())
    assert n < 300, f"{module.__name__} has {n} lines"


@pytest.mark.parametrize(
    "module,name", [(m, n) for m, names in HOMES.items() for n in names], ids=lambda v: getattr(v, "__name__", v)
)
def test_every_name_is_imported_from_the_old_module_and_is_its_homes_object(module, name):
    home = HOMES[module][name]
    assert name in vars(home), f"{name} is not defined in {home.__name__}"
    assert getattr(module, name) is vars(home)[name]


def test_the_package_exports_the_same_objects():
    for name in ("hsic", "hsic_shapley", "hsic_test"):
        assert getattr(ks, name) is getattr(hsic_module, name)
    for name in ("mmd", "mmd_shapley", "mmd_test"):
        assert getattr(ks, name) is getattr(mmd_module, name)


@pytest.mark.parametrize("module,name", CLASSES, ids=[n for _, n in CLASSES])
def test_class_paths_resolve(module, name):
    """Pickles name a class by ``__module__`` and ``__qualname__``: both lead back to it."""
    cls = getattr(module, name)
    assert getattr(importlib.import_module(cls.__module__), cls.__qualname__) is cls


def test_games_pickled_under_the_old_paths_still_load():
    old = pickle.loads(zlib.decompress(base64.b64decode("".join(OLD_PICKLE))))
    for got, ref in zip(old, _games(), strict=True):
        assert type(got) is type(ref)
        _same(got.task(0, 1), ref.task(0, 1))
    assert old[0].weights is old[1].weights  # one weights object, shared as when it was pickled


def test_every_game_loads_under_the_old_path():
    """A pickle made now, its module names turned back into the old ones, loads the same classes."""
    for game in _games():
        data = pickle.dumps(game, protocol=2)
        for home, old in ((_hsic_game, hsic_module), (_mmd_game, mmd_module)):
            data = data.replace(f"c{home.__name__}\n".encode(), f"c{old.__name__}\n".encode())
        assert b"_game\n" not in data
        loaded = pickle.loads(data)
        assert type(loaded) is type(game)
        _same(loaded.task(0, 1), game.task(0, 1))

"""The split of kexplain.stats._pairs_numba: one import place, the same compiled functions.

The product game's leave-one-out pass ``loo_b1`` (with its threshold ``_TINY`` and
``_compile_vectorised``, which compiles it with LLVM's superword-level vectoriser at import) lives in
``_pairs_loo_numba``; ``_pairs_numba`` keeps the pair indices, the factors, the MMD weighting and
``pooled_tiles``, which chains them, and imports the three names back: ``_pairs`` looks every compiled
function up on ``_pairs_numba`` by name.
"""

from __future__ import annotations

import importlib
import pathlib

import numpy as np
import pytest

pytest.importorskip("numba", reason="the compiled pair loops need numba")

from kexplain.stats import _pairs  # noqa: E402

_pairs_numba = importlib.import_module("kexplain.stats._pairs_numba")
_pairs_loo_numba = importlib.import_module("kexplain.stats._pairs_loo_numba")

#: every name _pairs_numba defined before the split, and the module that holds it now
HOMES = {
    "tile_factors": _pairs_numba,
    "_EXP_CHUNK": _pairs_numba,
    "triangle_pairs": _pairs_numba,
    "tile_pairs": _pairs_numba,
    "weigh_pooled": _pairs_numba,
    "pooled_tiles": _pairs_numba,
    "_TINY": _pairs_loo_numba,
    "loo_b1": _pairs_loo_numba,
    "_compile_vectorised": _pairs_loo_numba,
}
MODULES = [_pairs_numba, _pairs_loo_numba]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_each_module_stays_well_under_its_bound(module):
    n = len(pathlib.Path(module.__file__).read_text().splitlines())
    assert n < 380, f"{module.__name__} has {n} lines"


@pytest.mark.parametrize("name", sorted(HOMES))
def test_every_name_is_imported_from_pairs_numba_and_is_its_homes_object(name):
    home = HOMES[name]
    assert name in vars(home), f"{name} is not defined in {home.__name__}"
    assert getattr(_pairs_numba, name) is vars(home)[name]


def test_the_loader_hands_out_the_moved_function():
    module = _pairs._pairs_numba_module()
    if module is None:
        pytest.skip("numba is installed but not usable here")
    assert module is _pairs_numba and module.loo_b1 is _pairs_loo_numba.loo_b1


def test_loo_b1_is_compiled_vectorised_on_import():
    """Importing _pairs_numba compiles loo_b1 for C-contiguous float64 arrays (the signature
    ``_compile_vectorised`` compiles with the SLP vectoriser) before any call."""
    loo_b1 = _pairs_numba.loo_b1
    if not hasattr(loo_b1, "signatures"):  # NUMBA_DISABLE_JIT
        pytest.skip("numba's JIT is disabled")
    assert any(all(getattr(arg, "layout", None) == "C" for arg in sig) for sig in loo_b1.signatures)


def test_pooled_tiles_equals_its_steps_bit_for_bit():
    """``pooled_tiles`` calls the moved ``loo_b1`` across the module boundary: the same numbers as
    the four steps called one by one."""
    rng = np.random.default_rng(3)
    n, d, tile = 23, 4, 40
    U = rng.normal(size=(n, d))
    kinds = np.array([0, 1, 0, 2], dtype=np.int64)
    inv, mismatch = rng.uniform(0.5, 2.0, d), np.zeros(d)
    t, w = rng.uniform(0.0, 1.0, 5), rng.uniform(0.0, 1.0, 5)
    labels = rng.random(n) < 0.5
    T = n * (n - 1) // 2
    nt = -(-T // tile)
    stat, phi, ok = np.zeros((nt, 1)), np.zeros((nt, d)), np.zeros(nt, dtype=np.bool_)
    _pairs_numba.pooled_tiles(n, 0, nt, tile, T, U, kinds, inv, mismatch, labels, 0.4, -0.3, 0.2, t, w, stat, phi, ok)
    assert ok.all()
    for s in range(nt):
        k0, k1 = s * tile, min(T, (s + 1) * tile)
        i, j = np.empty(k1 - k0, np.int64), np.empty(k1 - k0, np.int64)
        _pairs_numba.tile_pairs(n, k0, k1, i, j)
        a = np.empty((k1 - k0, d))
        _pairs_numba.tile_factors(U, U, i, j, kinds, inv, mismatch, a)
        psi, kval = np.empty((k1 - k0, d)), np.empty(k1 - k0)
        assert _pairs_loo_numba.loo_b1(a, t, w, psi, kval)
        st, ph = np.zeros(1), np.zeros(d)
        _pairs_numba.weigh_pooled(i, j, labels, 0.4, -0.3, 0.2, kval, psi, st, ph)
        np.testing.assert_array_equal(stat[s], st, strict=True)
        np.testing.assert_array_equal(phi[s], ph, strict=True)

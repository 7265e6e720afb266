"""The solver's heap reuse (issue 26): glibc's malloc thresholds raised once, values unchanged.

Blocks of the solver allocate and free arrays of a few MB each; with glibc's dynamic thresholds
the freed top of the heap went back to the system after every block and was page-faulted in
again by the next (about 65 faults per block of 32 MiB).  ``reuse_heap`` keeps it: a multi-block
solve repeated in one process then takes (almost) no minor page faults.  The values cannot
change (only where the bytes live): a multi-block solve equals the one-block solve up to the
order of its row sums (bit for bit with and without the raised thresholds, measured out of
process: thresholds cannot be lowered back within one).
"""

from __future__ import annotations

import resource
import sys

import numpy as np
import pytest

import kexplain as kx
from kexplain.explainers.product_games import FunctionalGame
from kexplain.shapley import _heap, product
from kexplain.shapley.product import solve_product_game


def _game(n_points=60, n_ref=400, d=20, seed=0):
    rng = np.random.default_rng(seed)
    em = kx.KernelExpansion(rng.normal(size=(n_ref, d)), rng.normal(size=n_ref), kx.kernels.RBF(np.sqrt(d)))
    return FunctionalGame(em, em.check_input(rng.normal(size=(n_points, d))))


def test_solver_raises_thresholds_only_for_several_blocks(monkeypatch):
    calls = []
    monkeypatch.setattr(product, "reuse_heap", lambda: calls.append(1) or True)
    game = _game()
    solve_product_game(game)  # one block: nothing to reuse
    assert calls == []
    solve_product_game(game, max_block_bytes=2**18)
    assert calls == [1]


def test_many_blocks_equal_one_block():
    game = _game()
    one = solve_product_game(game)
    many = solve_product_game(game, max_block_bytes=2**18)  # 6 x 2 blocks, thresholds raised
    # the row blocks' sums are added in another order: equal up to rounding
    scale = np.abs(one.values).max()
    assert np.allclose(many.values, one.values, rtol=0, atol=1e-13 * scale)
    assert np.allclose(many.v_full, one.v_full, rtol=0, atol=1e-13 * np.abs(one.v_full).max())


def test_environment_thresholds_are_left_alone(monkeypatch):
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")
    assert _heap._raise_thresholds() is False
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_")
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "131072")
    assert _heap._raise_thresholds() is False


def test_reuse_heap_is_idempotent():
    first = _heap.reuse_heap()
    assert isinstance(first, bool)
    assert _heap.reuse_heap() is first


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc")
def test_repeated_multi_block_solve_takes_few_page_faults():
    if not _heap.reuse_heap():
        pytest.skip("glibc's thresholds fixed by the environment or not settable here")
    game = _game(n_points=200, n_ref=2000)
    solve_product_game(game)  # warm: compiled kernel, heap grown to one block's arrays
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    solve_product_game(game)  # 12 blocks of 32 MiB at d = 20
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    # without the raised thresholds: about 65 faults per block of 32 MiB (over 10,000 here)
    assert faults < 2_000, faults

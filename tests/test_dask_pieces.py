"""How the Dask runner regroups a statistic's runs of tiles into tasks (issue 26, item 4).

The runner must hand every tile to exactly one task, in tile order (the partial sums are added in
that order, so the numbers do not depend on the grouping), with a few tasks per worker thread and
no task longer than ``MAX_RANGES_PER_TASK`` runs.
"""

import numpy as np
import pytest

import kexplain as kx
from kexplain.dask.context import MAX_RANGES_PER_TASK, TASKS_PER_THREAD, _pack, _stats_pieces, _unpack
from kexplain.stats._pairs import task_ranges
from kexplain.stats.runner import use_runner


def _tiles(pieces):
    return [t for a, b in pieces for t in range(a, b)]


@pytest.mark.parametrize("n_items", [1, 7, 1000, 137_000 * 1456])
@pytest.mark.parametrize("per_task", [1, 4, 32])
@pytest.mark.parametrize("threads", [1, 2, 16])
def test_pieces_cover_every_tile_once_in_order(n_items, per_task, threads):
    ranges = task_ranges(n_items, 1456, per_task)
    pieces = _stats_pieces(ranges, threads)
    n_tiles = ranges[-1][1]
    if n_tiles <= 10**5:
        assert _tiles(pieces) == list(range(n_tiles))
    assert pieces[0][0] == 0 and pieces[-1][1] == n_tiles
    assert all(a < b for a, b in pieces)
    assert all(p[1] == q[0] for p, q in zip(pieces[:-1], pieces[1:]))
    assert max(b - a for a, b in pieces) <= MAX_RANGES_PER_TASK * per_task
    if n_tiles >= TASKS_PER_THREAD * threads:
        assert len(pieces) >= TASKS_PER_THREAD * threads


def test_large_statistics_get_few_tasks_not_one_per_run():
    """The complete MMD^2 attribution at n = m = 10,000 (about 137,000 tiles of 1,456 pairs in runs
    of 32): one task per run would be some 4,300 tasks; grouped, a few hundred."""
    n_pairs = 20_000 * 19_999 // 2
    ranges = task_ranges(n_pairs, 1456, 32)
    assert len(ranges) > 4000
    pieces = _stats_pieces(ranges, 2)
    assert len(pieces) <= len(ranges) // MAX_RANGES_PER_TASK + 1


def test_runs_with_gaps_are_split_within_each_run():
    ranges = [(0, 10), (20, 30)]
    pieces = _stats_pieces(ranges, 1)
    assert _tiles(pieces) == list(range(10)) + list(range(20, 30))


def _same(x, y):
    """Same Python type, and for arrays the same dtype, shape and bits."""
    assert type(x) is type(y)
    if isinstance(x, np.ndarray):
        assert x.dtype == y.dtype and x.shape == y.shape
        assert x.tobytes() == y.tobytes()
    elif isinstance(x, tuple):
        assert len(x) == len(y)
        for a, b in zip(x, y):
            _same(a, b)
    else:
        assert x == y or (x != x and y != y)


@pytest.mark.parametrize(
    "results",
    [
        [],
        [(np.arange(3.0), np.ones((3, 4)), 7)],
        [(np.full(2, k, float), np.full((2, 5), -k, float), 100 + k) for k in range(9)],
        # incomplete statistics: group, arrays, Python floats, counts
        [(k % 3, np.arange(4.0) * k, np.arange(4.0) ** 2, float(k) / 3, 0.1 * k, 256) for k in range(7)],
        [(float(k) * 0.7, 0) for k in range(5)],  # Gram sums: floats and zeros
        [np.arange(5.0) + k for k in range(4)],  # row sums: bare arrays
        [np.arange(k + 1.0) for k in range(4)],  # arrays of different lengths stay a list
        [(np.float64(1.5), np.zeros(0)), (np.float64(2.5), np.zeros(0))],  # NumPy scalars, empty arrays
        [(np.array(1.0), np.arange(2, dtype=np.int32)), (np.array(2.0), np.arange(2, dtype=np.int64))],
        [(np.array([np.nan, -0.0]),), (np.array([np.inf, 1e-320]),)],
    ],
)
def test_packed_task_results_come_back_the_same(results):
    """A statistic's task result travels as stacked fields and one pickle (``_pack``): what
    comes back is the same list, element by element, types and bits included."""
    from distributed.protocol import deserialize, serialize

    packed = _pack(results)
    for back in (_unpack(packed), _unpack(deserialize(*serialize(packed)))):  # in a process, and across
        assert len(back) == len(results)
        for x, y in zip(results, back):
            _same(x, y)


def test_packed_real_tiles_add_to_the_same_sums():
    """The MMD^2 attribution's own tiles, packed and unpacked, add up to the same bits in order."""
    rng = np.random.default_rng(0)
    X, Z = rng.normal(size=(60, 3)), rng.normal(size=(50, 3)) + 0.5
    captured = []

    def runner(task, ranges):
        for r in ranges:
            out = task(*r)
            captured.append(out)
            yield _unpack(_pack(out))

    with use_runner(runner):
        packed = kx.stats.mmd_shapley(X, Z, max_block_bytes=2**16)
    assert len(captured) > 1
    direct = kx.stats.mmd_shapley(X, Z, max_block_bytes=2**16)
    assert np.array_equal(packed.values, direct.values)
    assert packed.total == direct.total

"""How the Dask runner regroups a statistic's runs of tiles into tasks (issue 26, item 4).

The runner must hand every tile to exactly one task, in tile order (the partial sums are added in
that order, so the numbers do not depend on the grouping), with a few tasks per worker thread and
no task longer than ``MAX_RANGES_PER_TASK`` runs.
"""

import pytest

from kexplain.dask.context import MAX_RANGES_PER_TASK, TASKS_PER_THREAD, _stats_pieces
from kexplain.stats._pairs import task_ranges


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

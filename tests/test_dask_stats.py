"""kexplain.dask.stats on a LocalCluster: the same numbers as kexplain.stats, for any workers and chunks."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("dask.distributed")

import dask.array as da  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402

import kexplain as kx  # noqa: E402
from kexplain.dask import stats as dstats  # noqa: E402

# these tests keep calling the deprecated client= aliases (tests/test_dask_on.py tests kexplain.dask.on)
pytestmark = pytest.mark.filterwarnings("ignore:kexplain.dask.*is deprecated:FutureWarning")


@pytest.fixture(scope="module")
def client2():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster:
        with Client(cluster) as client:
            yield client


@pytest.fixture(scope="module")
def client1():
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster:
        with Client(cluster) as client:
            yield client


@pytest.fixture(autouse=True)
def small_tiles(monkeypatch):
    """Tiles of 64 pairs and random streams of 256 pairs, so that every call spreads many tasks."""
    from kexplain.stats import _pairs

    monkeypatch.setattr(_pairs, "TILE_BYTES", 4096)
    monkeypatch.setattr(_pairs, "DRAW_CHUNK_BYTES", 4096)
    assert _pairs.tile_length(3, 1) == 64 and _pairs.draw_chunk(3) == 256


@pytest.fixture
def XZ():
    rng = np.random.default_rng(3)
    return rng.normal(size=(45, 3)), rng.normal(size=(38, 3)) + [0.0, 0.8, 0.0]


def _close(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)


def test_complete_statistics_equal_the_in_process_ones(client2, XZ):
    X, Z = XZ
    Xd, Zd = da.from_array(X, chunks=(7, 3)), da.from_array(Z, chunks=(20, 3))
    ref = kx.stats.mmd_shapley(X, Z, max_block_bytes=20_000)
    got = dstats.mmd_shapley(Xd, Zd, max_block_bytes=20_000, client=client2)
    _close(got.values, ref.values)
    _close(got.total, ref.total)
    assert np.array_equal(got.values, ref.values)  # the same tiles added in the same order
    _close(dstats.mmd(Xd, Zd, client=client2), kx.stats.mmd(X, Z))
    y = np.sin(X[:, 1])
    _close(dstats.hsic(Xd, da.from_array(y, chunks=10), client=client2), kx.stats.hsic(X, y))
    hx, hy = dstats.hsic_shapley(Xd, np.c_[y, X[:, 0]], attribute="both", client=client2)
    rx, ry = kx.stats.hsic_shapley(X, np.c_[y, X[:, 0]], attribute="both")
    _close(hx.values, rx.values)
    _close(hy.values, ry.values)


def test_permutation_tests_equal_the_in_process_ones(client2, XZ):
    X, Z = XZ
    ref = kx.stats.mmd_test(X, Z, n_permutations=40, random_state=5)
    got = dstats.mmd_test(da.from_array(X, chunks=11), Z, n_permutations=40, random_state=5, client=client2)
    _close(got.null_attributions, ref.null_attributions)
    _close(got.null_distribution, ref.null_distribution)
    assert got.p_value == ref.p_value
    y = np.cos(2 * X[:, 2])
    href = kx.stats.hsic_test(X, y, n_permutations=30, random_state=1)
    hgot = dstats.hsic_test(da.from_array(X, chunks=9), y, n_permutations=30, random_state=1, client=client2)
    _close(hgot.null_attributions, href.null_attributions)
    assert np.array_equal(hgot.feature_p_values, href.feature_p_values)


def test_incomplete_statistics_reproducible_for_any_workers_and_chunks(client1, client2, XZ):
    X, Z = XZ
    ref = kx.stats.mmd_shapley(X, Z, n_pairs=3000, random_state=7)
    runs = [
        dstats.mmd_shapley(da.from_array(X, chunks=c), Z, n_pairs=3000, random_state=7, client=cl, max_block_bytes=b)
        for cl, c, b in ((client1, 45, 2**25), (client2, 10, 2**25), (client2, 4, 50_000))
    ]
    for r in runs:
        assert np.array_equal(r.values, ref.values)
        assert np.array_equal(r.standard_errors, ref.standard_errors)
    y = X[:, 0] ** 2
    href = kx.stats.hsic_shapley(X, y, n_pairs=2000, random_state=4)
    for cl in (client1, client2):
        h = dstats.hsic_shapley(da.from_array(X, chunks=6), y, n_pairs=2000, random_state=4, client=cl)
        _close(h.values, href.values)
        _close(h.total, href.total)


def test_without_a_client_the_message_says_how_to_get_one(XZ, monkeypatch):
    import distributed

    def none():
        raise ValueError("No clients found")

    monkeypatch.setattr(distributed, "get_client", none)
    with pytest.raises(ValueError, match="need a dask.distributed Client"):
        dstats.mmd(*XZ)


def test_standardize_is_passed_through(client1):
    # features on very different scales, so standardize=False changes the bandwidth and the numbers
    rng = np.random.default_rng(7)
    X = rng.normal(size=(30, 3)) * [1.0, 50.0, 0.1]
    Z = rng.normal(size=(25, 3)) * [1.0, 50.0, 0.1] + [0.7, 0.0, 0.05]
    y = np.sin(X[:, 0]) + X[:, 2]
    Xd = da.from_array(X, chunks=8)
    for standardize in (False, True):
        opts = dict(standardize=standardize)
        _close(dstats.mmd(Xd, Z, client=client1, **opts), kx.stats.mmd(X, Z, **opts))
        _close(dstats.mmd_shapley(Xd, Z, client=client1, **opts).values, kx.stats.mmd_shapley(X, Z, **opts).values)
        got = dstats.mmd_test(Xd, Z, n_permutations=19, random_state=2, client=client1, **opts)
        ref = kx.stats.mmd_test(X, Z, n_permutations=19, random_state=2, **opts)
        _close(got.null_attributions, ref.null_attributions)
        _close(dstats.hsic(Xd, y, client=client1, **opts), kx.stats.hsic(X, y, **opts))
        _close(dstats.hsic_shapley(Xd, y, client=client1, **opts).values, kx.stats.hsic_shapley(X, y, **opts).values)
        got = dstats.hsic_test(Xd, y, n_permutations=19, random_state=2, client=client1, **opts)
        ref = kx.stats.hsic_test(X, y, n_permutations=19, random_state=2, **opts)
        _close(got.null_attributions, ref.null_attributions)
    # the option matters on these data: the raw-scale bandwidth gives other values
    raw = dstats.mmd_shapley(Xd, Z, standardize=False, client=client1).values
    assert not np.allclose(raw, dstats.mmd_shapley(Xd, Z, client=client1).values)


def _test_numbers(res):
    return np.concatenate([[res.statistic, res.p_value], res.attribution.values, res.attribution.p_values])


@pytest.mark.slow
@pytest.mark.skipif(
    not os.environ.get("KEXPLAIN_TEST_PROCESSES"),
    reason="starting worker processes takes 40-60 s on the shared 2-core machine; set KEXPLAIN_TEST_PROCESSES=1",
)
def test_process_workers_give_the_in_process_numbers_bit_for_bit(XZ):
    """With worker processes, every task's tiles cross a process boundary packed (stacked fields,
    kexplain.dask.context._pack): the sums are still the in-process ones, bit for bit, for the
    complete, permutation and incomplete statistics."""
    import kexplain.dask

    X, Z = XZ
    y = X[:, 0] + 0.3 * X[:, 1]
    calls = {
        "mmd_shapley": lambda: kx.stats.mmd_shapley(X, Z).values,
        "mmd_test": lambda: _test_numbers(kx.stats.mmd_test(X, Z, n_permutations=20, random_state=0)),
        "mmd_incomplete": lambda: kx.stats.mmd_shapley(X, Z, n_pairs=3000, random_state=1).values,
        "hsic_shapley": lambda: kx.stats.hsic_shapley(X, y).values,
    }
    expected = {name: fn() for name, fn in calls.items()}
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=50
        ) as cluster,
        Client(cluster) as client,
        kexplain.dask.on(client),
    ):
        for name, fn in calls.items():
            assert np.array_equal(fn(), expected[name]), name

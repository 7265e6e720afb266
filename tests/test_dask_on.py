"""``with kexplain.dask.on(client):``: the ordinary statistics and explainers, their blocks on a LocalCluster."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest

pytest.importorskip("dask.distributed")

import dask.array as da  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402
from sklearn.svm import SVR  # noqa: E402

import kexplain as kx  # noqa: E402
import kexplain.dask as kd  # noqa: E402
from kexplain.star import StarExplainer, unanimity_data, unanimity_model  # noqa: E402


@pytest.fixture(scope="module")
def client2():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster:
        with Client(cluster) as client:
            yield client


@pytest.fixture(autouse=True)
def small_tiles(monkeypatch):
    """Tiles of 64 pairs, so that every statistic spreads many tasks."""
    from kexplain.stats import _pairs

    monkeypatch.setattr(_pairs, "TILE_BYTES", 4096)
    monkeypatch.setattr(_pairs, "DRAW_CHUNK_BYTES", 4096)


@pytest.fixture
def XZ():
    rng = np.random.default_rng(3)
    return rng.normal(size=(45, 3)), rng.normal(size=(38, 3)) + [0.0, 0.8, 0.0]


class _Counting:
    """Counts the tasks submitted to a client (to see that work went to the cluster)."""

    def __init__(self, client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        self.n = 0
        submit = client.submit

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.n += 1
            return submit(*args, **kwargs)

        monkeypatch.setattr(client, "submit", counted)


def test_statistics_inside_on_are_the_in_process_ones_bit_for_bit(client2, XZ, monkeypatch):
    X, Z = XZ
    y = np.sin(X[:, 1])
    refs = {
        "mmd": kx.stats.mmd(X, Z),
        "mmd_shapley": kx.stats.mmd_shapley(X, Z).values,
        "mmd_shapley_incomplete": kx.stats.mmd_shapley(X, Z, n_pairs=3000, random_state=7).values,
        "mmd_test": kx.stats.mmd_test(X, Z, n_permutations=20, random_state=5).null_attributions,
        "hsic": kx.stats.hsic(X, y),
        "hsic_shapley": kx.stats.hsic_shapley(X, y).values,
        "hsic_test": kx.stats.hsic_test(X, y, n_permutations=20, random_state=1).null_attributions,
    }
    count = _Counting(client2, monkeypatch)
    Xd = da.from_array(X, chunks=(7, 3))  # dask inputs are computed into memory
    with kd.on(client2) as c:
        assert c is client2
        got = {
            "mmd": kx.stats.mmd(Xd, Z),
            "mmd_shapley": kx.stats.mmd_shapley(Xd, Z, n_jobs=2).values,  # n_jobs: no effect here
            "mmd_shapley_incomplete": kx.stats.mmd_shapley(X, Z, n_pairs=3000, random_state=7).values,
            "mmd_test": kx.stats.mmd_test(X, Z, n_permutations=20, random_state=5).null_attributions,
            "hsic": kx.stats.hsic(Xd, da.from_array(y, chunks=10)),
            "hsic_shapley": kx.stats.hsic_shapley(X, y).values,
            "hsic_test": kx.stats.hsic_test(X, y, n_permutations=20, random_state=1).null_attributions,
        }
    assert count.n > 7  # every statistic sent tasks (one shipped description plus its tiles each)
    for name, ref in refs.items():
        assert np.array_equal(got[name], ref), name
    # outside the block the statistics run in-process again
    count.n = 0
    kx.stats.mmd(X, Z)
    assert count.n == 0


def test_explainers_inside_on_match_the_in_process_values(client2, monkeypatch):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 5))
    model = SVR(C=3.0).fit(X, np.sin(X[:, 0]) + X[:, 1] * X[:, 2])
    P = rng.normal(size=(37, 5))
    functional = kx.ProductKernelExplainer(model)
    interventional = kx.ProductKernelExplainer(model, background=X[:20])
    star = StarExplainer(unanimity_model(8, 3, 6, random_state=1), unanimity_data(6, 8, random_state=2))
    S = unanimity_data(30, 8, random_state=3)
    ref_f, ref_i = functional.explain(P), interventional.explain(P, interactions=True)
    ref_s = star.explain(S)
    count = _Counting(client2, monkeypatch)
    with kd.on(client2):
        got_f = functional.explain(P)
        got_i = interventional.explain(P, interactions=True)
        got_s = star.explain(S)
    assert count.n >= 3 * 2  # a shipped block function and its blocks, per explain call
    # functional game: bit-identical; others as for another n_jobs (rounding of the row-block size)
    np.testing.assert_array_equal(got_f.values, ref_f.values)
    np.testing.assert_array_equal(got_f.base_values, ref_f.base_values)
    for got, ref in ((got_i, ref_i), (got_s, ref_s)):
        np.testing.assert_allclose(got.values, ref.values, rtol=0, atol=1e-12 * np.abs(ref.values).max())
        np.testing.assert_allclose(got.base_values, ref.base_values, rtol=0, atol=1e-12)
        assert got.game == ref.game and got.feature_names == ref.feature_names
    np.testing.assert_allclose(got_i.interactions, ref_i.interactions, atol=1e-12 * np.abs(ref_i.values).max())
    # efficiency holds for the stacked blocks
    np.testing.assert_allclose(got_f.values.sum(axis=1) + got_f.base_values, model.predict(P), atol=1e-10)


def test_on_is_local_to_the_thread_and_nests(client2, XZ, monkeypatch):
    X, Z = XZ
    count = _Counting(client2, monkeypatch)
    seen: list[int] = []

    def elsewhere() -> None:
        before = count.n
        kx.stats.mmd(X, Z)
        seen.append(count.n - before)

    with kd.on(client2):
        with kd.on(client2):
            kx.stats.mmd(X, Z)
        inner = count.n
        assert inner > 0
        kx.stats.mmd(X, Z)  # still on the cluster after the inner block ends
        assert count.n > inner
        t = threading.Thread(target=elsewhere)
        t.start()
        t.join()
    assert seen == [0]  # another thread did not enter the block


def test_on_without_a_client_says_how_to_get_one(monkeypatch):
    import distributed

    def none():
        raise ValueError("No clients found")

    monkeypatch.setattr(distributed, "get_client", none)
    with pytest.raises(ValueError, match=r"need a dask.distributed Client: pass one \(kexplain.dask.on\(client\)\)"):
        with kd.on():
            pass
    with pytest.raises(TypeError, match="client must be a distributed.Client"):
        with kd.on("tcp://localhost:8786"):
            pass


def test_deprecated_aliases_warn_and_give_the_same_numbers(client2, XZ):
    X, Z = XZ
    y = X[:, 0] ** 2
    cases = [
        ("mmd", (X, Z), {}),
        ("mmd_shapley", (X, Z), {"n_pairs": 500, "random_state": 3}),
        ("mmd_test", (X, Z), {"n_permutations": 9, "random_state": 0}),
        ("hsic", (X, y), {}),
        ("hsic_shapley", (X, y), {}),
        ("hsic_test", (X, y), {"n_permutations": 9, "random_state": 0}),
    ]
    for name, data, opts in cases:
        with pytest.warns(FutureWarning, match=rf"kexplain.dask.{name}\(\.\.\., client=client\) is deprecated"):
            got = getattr(kd, name)(*[da.from_array(a, chunks=11) for a in data], client=client2, **opts)
        ref = getattr(kx.stats, name)(*data, **opts)
        if isinstance(ref, float):
            assert got == ref
        else:
            key = "null_attributions" if name.endswith("_test") else "values"
            assert np.array_equal(getattr(got, key), getattr(ref, key)), name
    assert "on" in kd.__all__ and "mmd" not in kd.__all__

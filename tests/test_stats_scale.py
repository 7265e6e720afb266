"""n_jobs, block sizes and random streams of the kernel statistics, and the defects of issue 11."""

from __future__ import annotations

import numpy as np
import pytest

import kexplain as kx
from kexplain.stats import hsic, hsic_shapley, hsic_test, mmd, mmd_shapley, mmd_test


@pytest.fixture
def small_tiles(monkeypatch):
    """Tiles of 64 pairs and random streams of 256 pairs: many tiles even on small samples."""
    from kexplain.stats import _pairs

    monkeypatch.setattr(_pairs, "TILE_BYTES", 4096)
    monkeypatch.setattr(_pairs, "DRAW_CHUNK_BYTES", 4096)


@pytest.fixture
def XZ():
    rng = np.random.default_rng(11)
    return rng.normal(size=(50, 4)), rng.normal(size=(44, 4)) + [0.0, 0.7, 0.0, 0.2]


SETTINGS = [(1, 2**25), (2, 2**25), (2, 3000), (3, 1)]


@pytest.mark.parametrize("n_jobs, max_block_bytes", SETTINGS)
def test_mmd_results_are_identical_for_every_n_jobs_and_block_size(small_tiles, XZ, n_jobs, max_block_bytes):
    X, Z = XZ
    ref = mmd_shapley(X, Z)
    got = mmd_shapley(X, Z, n_jobs=n_jobs, max_block_bytes=max_block_bytes)
    assert np.array_equal(got.values, ref.values) and got.total == ref.total
    inc = mmd_shapley(X, Z, n_pairs=2000, random_state=2)
    inc2 = mmd_shapley(X, Z, n_pairs=2000, random_state=2, n_jobs=n_jobs, max_block_bytes=max_block_bytes)
    assert np.array_equal(inc.values, inc2.values) and np.array_equal(inc.standard_errors, inc2.standard_errors)
    t = mmd_test(X, Z, n_permutations=20, random_state=0)
    t2 = mmd_test(X, Z, n_permutations=20, random_state=0, n_jobs=n_jobs, max_block_bytes=max_block_bytes)
    assert np.array_equal(t.null_attributions, t2.null_attributions)
    assert np.array_equal(t.null_distribution, t2.null_distribution)
    assert mmd(X, Z) == mmd(X, Z, n_jobs=n_jobs)


@pytest.mark.parametrize("n_jobs, max_block_bytes", SETTINGS)
def test_hsic_results_are_identical_for_every_n_jobs_and_block_size(small_tiles, XZ, n_jobs, max_block_bytes):
    X = XZ[0]
    Y = np.c_[np.sin(X[:, 0]), X[:, 1] ** 2]
    rx, ry = hsic_shapley(X, Y, attribute="both")
    gx, gy = hsic_shapley(X, Y, attribute="both", n_jobs=n_jobs, max_block_bytes=max_block_bytes)
    assert np.array_equal(rx.values, gx.values) and np.array_equal(ry.values, gy.values)
    inc = hsic_shapley(X, Y, n_pairs=900, random_state=3)
    inc2 = hsic_shapley(X, Y, n_pairs=900, random_state=3, n_jobs=n_jobs, max_block_bytes=max_block_bytes)
    assert np.array_equal(inc.values, inc2.values)
    t = hsic_test(X, Y, n_permutations=15, random_state=0)
    t2 = hsic_test(X, Y, n_permutations=15, random_state=0, n_jobs=n_jobs, max_block_bytes=max_block_bytes)
    assert np.array_equal(t.null_attributions, t2.null_attributions)
    np.testing.assert_allclose(hsic(X, Y, n_jobs=n_jobs), hsic(X, Y), rtol=1e-12)


def test_compiled_and_numpy_pair_paths_agree(XZ, monkeypatch):
    from kexplain.stats import _pairs

    X, Z = XZ
    fast = mmd_shapley(X, Z, kernel=kx.kernels.Laplacian(1.3))
    monkeypatch.setattr(_pairs, "factor_data", lambda kernel, data: None)
    slow = mmd_shapley(X, Z, kernel=kx.kernels.Laplacian(1.3))
    np.testing.assert_allclose(fast.values, slow.values, rtol=1e-12, atol=1e-15)


# ---- issue 11, defect 3: a memory setting never changes a sampled result -------------------------


def test_incomplete_mmd_does_not_depend_on_max_block_bytes(XZ):
    X, Z = XZ
    a = mmd_shapley(X, Z, n_pairs=20_000, random_state=2)
    b = mmd_shapley(X, Z, n_pairs=20_000, random_state=2, max_block_bytes=5_000)
    assert np.array_equal(a.values, b.values) and a.total == b.total


# ---- issue 11, defect 2: one label column does not switch every column to a delta kernel ---------


def test_hsic_default_kernel_gives_the_delta_kernel_only_to_label_columns():
    rng = np.random.default_rng(0)
    n = 80
    driver, noise = rng.normal(size=n), rng.normal(size=n)
    flag = rng.random(n) < 0.5  # a bool column, independent of y
    X = np.empty((n, 3), dtype=object)
    X[:, 0], X[:, 1], X[:, 2] = driver, noise, flag
    y = np.sin(2 * driver) + 0.1 * rng.normal(size=n)
    att = hsic_shapley(X, y)
    assert att.ranking()[0] == "x0"
    assert att.values[0] > 5 * abs(att.values[1])  # the driver and the noise no longer tie
    assert any("['x2']" in note and "delta kernel" in note for note in att.info["notes"])
    assert isinstance(att.kernel, kx.kernels.ProductKernel)
    res = hsic_test(X, y, n_permutations=19, random_state=0)
    assert res.attribution.values[0] > 5 * abs(res.attribution.values[1])


def test_hsic_default_kernel_on_a_dataframe_with_a_bool_column():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(1)
    n = 60
    df = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "flag": rng.random(n) < 0.5})
    y = df["a"].to_numpy() ** 2
    att = hsic_shapley(df, y)
    assert att.ranking()[0] == "a"
    assert "['flag']" in att.info["notes"][0]


# ---- issue 11, defect 11: an impossible number of permutations is refused up front ----------------


@pytest.mark.parametrize("fn", [mmd_test, hsic_test])
def test_huge_n_permutations_is_refused_up_front(fn, XZ):
    X, Z = XZ
    Y = Z[: len(X)] if fn is mmd_test else X[:, 0]
    with pytest.raises(ValueError, match=r"n_permutations=1000000000 needs about .* GiB"):
        fn(X, Y if fn is hsic_test else Z, n_permutations=10**9)


# ---- issue 11, defect 12: errors that name the right argument ------------------------------------


def test_different_feature_counts_name_both_samples(XZ):
    X, Z = XZ
    with pytest.raises(ValueError, match="X has 2 features but Z has 4"):
        mmd_shapley(X[:, :2], Z)


def test_data_scaled_by_1e300_gives_the_same_attribution(XZ):
    X, Z = XZ
    ref = mmd_shapley(X, Z)
    big = mmd_shapley(X * 1e300, Z * 1e300)
    np.testing.assert_allclose(big.values, ref.values, rtol=1e-10, atol=1e-14)
    assert big.info["data_scale"] > 1e299
    with pytest.raises(ValueError, match="X and Z hold values up to .*overflow"):
        mmd_shapley(X * 1e300, Z * 1e300, kernel=kx.kernels.RBF(1.0))


# ---- issue 15: the compiled b = 1 pass over a tile matches the product-game engine -----------


def _engine_contributions(a):
    from kexplain.shapley.product import _numba_kernel, _weighted_loo_integrals
    from kexplain.shapley.quadrature import gauss_legendre_01, nodes_for_degree

    t, w = gauss_legendre_01(nodes_for_degree(a.shape[1] - 1))
    return _weighted_loo_integrals(np.ascontiguousarray(a), np.ones((1, a.shape[1])), t, w, _numba_kernel())


@pytest.mark.parametrize("d", [1, 2, 3, 5, 20, 23, 50, 400])
@pytest.mark.parametrize("case", ["narrow", "wide", "zeros_and_ones"])
def test_tile_contributions_match_the_engine(d, case):
    from kexplain.stats import _pairs

    rng = np.random.default_rng(d)
    r = 301  # not a multiple of the compiled pass's block of pairs
    scale = {"narrow": 0.3, "wide": 3.0, "zeros_and_ones": 40.0}[case]
    a = np.exp(-0.5 * (rng.normal(size=(r, d)) * scale) ** 2)
    if case == "zeros_and_ones":  # factors that underflowed to exactly 0, and exact 1s
        a[rng.random((r, d)) < 0.3] = 0.0
        a[rng.random((r, d)) < 0.1] = 1.0
    psi, kval = _pairs.contributions(a)
    ref_psi, ref_kval = _engine_contributions(a)
    np.testing.assert_allclose(psi, ref_psi, rtol=1e-12, atol=0)
    np.testing.assert_allclose(kval, ref_kval, rtol=1e-12, atol=0)
    np.testing.assert_allclose(psi.sum(axis=1), kval - 1.0, rtol=1e-9, atol=1e-12)


def test_tile_contributions_outside_the_fast_path():
    from kexplain.stats import _pairs

    a = np.full((70, 3), 0.5)
    a[5, 1] = 1.5  # a factor above 1 (e.g. a Categorical mismatch > 1): the engine's path
    psi, kval = _pairs.contributions(a)
    ref_psi, ref_kval = _engine_contributions(a)
    np.testing.assert_array_equal(psi, ref_psi)
    np.testing.assert_array_equal(kval, ref_kval)
    a[5, 1] = np.nan
    with pytest.raises(FloatingPointError, match="NaN or infinite"):
        _pairs.contributions(a)
    psi, kval = _pairs.contributions(np.zeros((0, 4)))
    assert psi.shape == (0, 4) and kval.shape == (0,)


def test_compiled_within_pairs_matches_numpy(monkeypatch):
    from kexplain.stats import _pairs

    rng = np.random.default_rng(3)
    for n in (2, 3, 50, 100_003, 3_000_000):
        T = n * (n - 1) // 2
        k = np.unique(np.r_[0, rng.integers(0, T, 5000), T - 1])
        got = _pairs.within_pairs(n, k)
        monkeypatch.setitem(_pairs._COMPILED, "triangle_pairs", None)
        ref = _pairs.within_pairs(n, k)
        monkeypatch.undo()
        np.testing.assert_array_equal(got[0], ref[0])
        np.testing.assert_array_equal(got[1], ref[1])
        assert np.all(got[0] < got[1])


def test_numpy_fallback_without_the_compiled_pass(XZ, monkeypatch):
    from kexplain.stats import _pairs

    X, Z = XZ
    fast = mmd_shapley(X, Z)
    for name in ("loo_b1", "triangle_pairs", "tile_pairs", "weigh_pooled", "tile_factors"):
        monkeypatch.setitem(_pairs._COMPILED, name, None)
    slow = mmd_shapley(X, Z)
    np.testing.assert_allclose(fast.values, slow.values, rtol=1e-12, atol=1e-15)


# ---- issue 26: the vectorised b = 1 pass and the exp-only factor loop ---------------------------


def test_loo_b1_is_compiled_with_the_slp_vectoriser_and_the_setting_is_restored():
    pytest.importorskip("numba")
    from numba.core import config

    from kexplain.stats import _pairs_numba

    if not hasattr(_pairs_numba.loo_b1, "signatures"):
        pytest.skip("numba's JIT is disabled")
    before = config.SLP_VECTORIZE
    _pairs_numba._compile_vectorised()  # idempotent: the signature is there already
    assert config.SLP_VECTORIZE == before
    assert any(all(arg.layout == "C" for arg in sig) for sig in _pairs_numba.loo_b1.signatures)


@pytest.mark.parametrize("d", [1, 2, 4, 7, 31])  # odd and even node counts (nodes go two at a time)
@pytest.mark.parametrize("r", [1, 8, 13])  # a short last block of pairs (pairs go eight at a time)
def test_tile_contributions_on_short_blocks_match_the_engine(d, r):
    from kexplain.stats import _pairs

    rng = np.random.default_rng(10 * d + r)
    a = np.exp(-0.5 * rng.normal(size=(r, d)) ** 2)
    psi, kval = _pairs.contributions(a)
    ref_psi, ref_kval = _engine_contributions(a)
    np.testing.assert_allclose(psi, ref_psi, rtol=1e-12, atol=0)
    np.testing.assert_allclose(kval, ref_kval, rtol=1e-12, atol=0)


def test_compiled_factors_of_rbf_and_laplacian_features_match_the_kernel():
    from kexplain.kernels import RBF, Laplacian, ProductKernel
    from kexplain.stats import _pairs

    rng = np.random.default_rng(4)
    d = 9
    kernel = ProductKernel([RBF(0.7) if f % 3 else Laplacian(1.9) for f in range(d)])
    W = rng.normal(size=(40, d))
    fd = _pairs.factor_data(kernel, W)
    if fd is None:
        pytest.skip("no compiled factor path here")
    i, j = rng.integers(0, 40, 500), rng.integers(0, 40, 500)
    got = _pairs.factors(kernel, W, i, W, j, (fd, fd))
    np.testing.assert_allclose(got, kernel.pair_values(W[i], W[j]), rtol=1e-14, atol=0)


# ---- issue 26 (the complete MMD^2 attribution at n = m = 10,000): vectorised exp, compiled tiles ---


def _ulps(a, b):
    """Distance in units in the last place between float64 arrays of one sign (and of finite values)."""
    return np.abs(a.view(np.int64) - b.view(np.int64))


def test_vectorised_exp_is_within_one_ulp_of_numpy_everywhere():
    pytest.importorskip("numba")
    from kexplain._exp_numba import exp_into

    rng = np.random.default_rng(26)
    z = np.concatenate(
        [
            -0.5 * (rng.normal(size=200_000) * 3.0) ** 2,  # RBF exponents
            -np.abs(rng.normal(size=100_000) * 5.0),  # Laplacian exponents
            rng.uniform(-1.0, 1.0, 100_000),
            rng.uniform(-760.0, 720.0, 200_000),  # subnormal, underflowing and overflowing results too
            [0.0, -0.0, -708.0, 709.0, -708.0000001, 709.0000001, -745.1, -746.0, 709.8, 710.0, 1e-300],
            [np.nan, np.inf, -np.inf],
        ]
    )
    got = np.empty_like(z)
    exp_into(z, got)
    with np.errstate(over="ignore"):
        ref = np.exp(z)
    finite = np.isfinite(ref)
    assert np.array_equal(np.isnan(got), np.isnan(ref))
    assert np.array_equal(got[~finite & ~np.isnan(ref)], ref[~finite & ~np.isnan(ref)])
    assert _ulps(got[finite], ref[finite]).max() <= 1  # subnormal results included
    # exact where the result is exact: 1 at 0, 0 below the range, inf above it
    assert got[z == 0.0].tolist() == [1.0, 1.0]
    assert np.all(got[(z < -746.0) & np.isfinite(z)] == 0.0) and np.all(got[z > 710.0] == np.inf)


def test_pair_range_matches_within_pairs(monkeypatch):
    from kexplain.stats import _pairs

    for n in (2, 3, 7, 50, 4001):
        T = n * (n - 1) // 2
        for k0, k1 in [(0, T), (0, 1), (T - 1, T), (0, 0), (T // 3, T // 3 + min(T, 2 * n + 5))]:
            k1 = min(k1, T)
            got = _pairs.pair_range(n, k0, k1)
            ref = _pairs.within_pairs(n, np.arange(k0, k1))
            np.testing.assert_array_equal(got[0], ref[0])
            np.testing.assert_array_equal(got[1], ref[1])
    monkeypatch.setitem(_pairs._COMPILED, "tile_pairs", None)  # the numpy path: the same
    got = _pairs.pair_range(50, 100, 300)
    np.testing.assert_array_equal(got[0], _pairs.within_pairs(50, np.arange(100, 300))[0])


def test_compiled_weighting_of_one_labelling_matches_the_matrix_products():
    from kexplain.stats import _pairs

    weigh = _pairs._compiled("weigh_pooled")
    if weigh is None:
        pytest.skip("no compiled path here")
    rng = np.random.default_rng(5)
    N, r, d = 60, 997, 7
    labels = rng.random(N) < 0.4
    i, j = _pairs.pair_range(N, 13, 13 + r)
    kval = rng.random(r)
    psi = -rng.random((r, d))
    wxx, wzz, wxz = 0.3, 0.2, -0.45
    stat, phi = np.zeros(1), np.zeros(d)
    weigh(i, j, labels, wxx, wxz, wzz, kval, psi, stat, phi)
    li, lj = labels[i], labels[j]
    w = np.where(li & lj, wxx, np.where(li | lj, wxz, wzz))
    np.testing.assert_allclose(stat[0], w @ kval, rtol=1e-13)
    np.testing.assert_allclose(phi, w @ psi, rtol=1e-13)


def test_one_labelling_and_the_permutation_path_agree(XZ):
    X, Z = XZ
    att = mmd_shapley(X, Z)  # one labelling: the compiled weighting
    res = mmd_test(X, Z, n_permutations=3, random_state=0)  # several: the matrix products
    np.testing.assert_allclose(res.attribution.values, att.values, rtol=1e-12, atol=1e-13 * np.abs(att.values).max())


def test_fused_tiles_equal_the_per_tile_calls_bit_for_bit(small_tiles, monkeypatch):
    from kexplain.stats import _pairs

    if _pairs._compiled("pooled_tiles") is None:
        pytest.skip("no compiled path here")
    rng = np.random.default_rng(8)
    X, Z = rng.normal(size=(30, 120)), rng.normal(size=(25, 120)) + 0.3
    X[3] += 60.0  # an outlier: at d = 120 its pairs' node products underflow, so tiles are declined
    compiled = _pairs._compiled("pooled_tiles")
    declined = []

    def recording(*args):
        compiled(*args)
        declined.append(int(np.sum(~args[-1])))

    for kernel in (kx.kernels.RBF(1.0), kx.kernels.Laplacian(2.0)):
        declined.clear()
        monkeypatch.setitem(_pairs._COMPILED, "pooled_tiles", recording)
        fused = mmd_shapley(X, Z, kernel=kernel, standardize=False, n_jobs=2, max_block_bytes=20_000)
        assert len(declined) > 1 and sum(declined) > 0  # several runs of tiles, some tiles declined
        monkeypatch.undo()
        monkeypatch.setattr(_pairs, "TILE_BYTES", 4096)
        monkeypatch.setitem(_pairs._COMPILED, "pooled_tiles", None)
        per_tile = mmd_shapley(X, Z, kernel=kernel, standardize=False)
        monkeypatch.undo()
        monkeypatch.setattr(_pairs, "TILE_BYTES", 4096)
        assert np.array_equal(fused.values, per_tile.values) and fused.total == per_tile.total
        ref = kx.stats.mmd(X, Z, kernel=fused.kernel)
        assert fused.total == pytest.approx(ref, rel=1e-10)
        assert fused.values.sum() == pytest.approx(ref, rel=1e-9)


def test_statistics_run_with_numba_jit_disabled():
    # the vectorised exp's intrinsics cannot run as Python: without the JIT numpy's exp stands in
    import os
    import subprocess
    import sys

    code = (
        "import numpy as np, kexplain as kx\n"
        "rng = np.random.default_rng(0)\n"
        "X, Z = rng.normal(size=(12, 3)), rng.normal(size=(10, 3))\n"
        "print(repr(kx.stats.mmd_shapley(X, Z).values.tolist()))\n"
    )
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    rng = np.random.default_rng(0)
    X, Z = rng.normal(size=(12, 3)), rng.normal(size=(10, 3))
    np.testing.assert_allclose(eval(out.stdout), mmd_shapley(X, Z).values, rtol=1e-12, atol=1e-15)

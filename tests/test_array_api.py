"""The product-game engine on array API namespaces (array-api-strict, CPU PyTorch) against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import kexplain as kx
from kexplain.shapley import product_game_block, solve_product_game
from kexplain.shapley.array_api import to_numpy
from kexplain.shapley.product import efficiency_error


def _namespaces():
    out = []
    for name in ("array_api_strict", "torch"):
        try:
            mod = __import__(name)
        except ImportError:
            out.append(pytest.param(name, marks=pytest.mark.skip(reason=f"{name} not installed")))
            continue
        out.append(pytest.param(name, id=name))
        del mod
    return out


NAMESPACES = _namespaces()


def _conv(name):
    pytest.importorskip("array_api_compat")
    mod = pytest.importorskip(name)
    return mod.asarray


def _module_of(x):
    return type(x).__module__.split(".")[0]


def _rel(x, ref):
    x, ref = to_numpy(x).astype(np.float64), np.asarray(ref)
    return float(np.max(np.abs(x - ref)) / max(np.max(np.abs(ref)), 1e-300))


def _game(rng, p, r, d, o, lo=0.1, hi=1.0, point_b=False):
    a = rng.uniform(lo, hi, (p, r, d))
    b = rng.uniform(lo, hi, (p, r, d) if point_b else (r, d))
    c = rng.normal(size=(r, o))
    return a, b, c


def _zeros_and_signs(rng, r):
    """A game whose factors hold exact zeros and negative values (some pairs' products need log space)."""
    a = rng.normal(size=(2, r, 8))
    a[0, 0, 2] = 0.0
    a[1, 1, :3] = 0.0
    b = rng.normal(size=(2, r, 8))
    b[0, 2, 1] = 0.0
    return a, b, rng.normal(size=(r, 2))


@pytest.mark.parametrize("name", NAMESPACES)
@pytest.mark.parametrize("d", [1, 2, 5, 13])
@pytest.mark.parametrize("point_b", [False, True])
def test_block_equals_numpy(name, d, point_b):
    asarray = _conv(name)
    rng = np.random.default_rng(d)
    a, b, c = _game(rng, 3, 9, d, 2, point_b=point_b)
    ref = product_game_block(a, b, c, interactions=True)
    out = product_game_block(asarray(a), asarray(b), asarray(c), interactions=True)
    assert len(out) == 4
    for x, r in zip(out, ref):
        assert _module_of(x) == name  # results come back in the input's namespace
        assert tuple(x.shape) == r.shape
        assert _rel(x, r) <= 1e-12


@pytest.mark.parametrize("name", NAMESPACES)
def test_scalar_b_and_vector_c(name):
    asarray = _conv(name)
    rng = np.random.default_rng(3)
    a = rng.uniform(0.2, 1.5, (2, 6, 4))
    c = rng.normal(size=6)
    ref = product_game_block(a, 1.0, c)
    out = product_game_block(asarray(a), 1.0, asarray(c))
    for x, r in zip(out, ref):
        assert _rel(x, r) <= 1e-12


@pytest.mark.parametrize("name", NAMESPACES)
def test_log_space_path(name):
    """Products far below float64's range, exact zeros and negative factors: the log-space path."""
    asarray = _conv(name)
    rng = np.random.default_rng(1)
    d = 300
    a = rng.uniform(0.01, 0.2, (2, 5, d))
    b = rng.uniform(0.01, 0.2, (5, d))
    c = rng.normal(size=(5, 1)) * 1e250
    ref = product_game_block(a, b, c)
    assert np.max(np.abs(ref[0])) < 1e-10  # the products underflow: only log space gets these
    out = product_game_block(asarray(a), asarray(b), asarray(c))
    for x, r in zip(out, ref):
        assert _rel(x, r) <= 1e-12
    a, b, c = _zeros_and_signs(rng, 5)
    ref = product_game_block(a, b, c, interactions=True)
    out = product_game_block(asarray(a), asarray(b), asarray(c), interactions=True)
    for x, r in zip(out, ref):
        assert _rel(x, r) <= 1e-12


@pytest.mark.parametrize("name", NAMESPACES)
def test_float32(name):
    """float32 agrees with float64 to 1e-5 of the largest value, efficiency to 1e-5 relative."""
    asarray = _conv(name)
    rng = np.random.default_rng(2)
    a, b, c = _game(rng, 4, 50, 12, 1, lo=0.3, hi=1.0)
    ref = product_game_block(a, b, c)
    out = product_game_block(asarray(a), asarray(b), asarray(c), dtype="float32")
    assert "float32" in str(out[0].dtype)
    assert _rel(out[0], ref[0]) <= 1e-5
    assert efficiency_error(*out) <= 1e-5
    assert efficiency_error(*ref) <= 1e-13
    # float32's log-space path: products below float32's range, values scaled back into it
    a, b, c = _game(rng, 2, 5, 60, 1, lo=0.1, hi=0.3)
    c = c * 1e30
    ref = product_game_block(a, b, c)
    out = product_game_block(asarray(a), asarray(b), asarray(c), dtype="float32")
    assert _rel(out[0], ref[0]) <= 2e-3  # documented: about 1e-3 in float32 log space


def test_float32_numpy_and_errors():
    pytest.importorskip("array_api_compat")
    rng = np.random.default_rng(4)
    a, b, c = _game(rng, 2, 7, 6, 1)
    ref = product_game_block(a, b, c)
    out = product_game_block(a, b, c, dtype="float32")
    assert isinstance(out[0], np.ndarray) and out[0].dtype == np.float32
    assert _rel(out[0], ref[0]) <= 1e-5
    with pytest.raises(ValueError, match="dtype"):
        product_game_block(a, b, c, dtype="float16")
    with pytest.raises(ValueError, match="numpy float64"):
        product_game_block(a, b, c, dtype="float32", backend="numba")


@pytest.mark.parametrize("name", NAMESPACES)
def test_non_finite_rejected(name):
    asarray = _conv(name)
    a = np.ones((1, 2, 3))
    a[0, 1, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        product_game_block(asarray(a), 1.0, asarray(np.ones(2)))


@pytest.mark.parametrize("name", NAMESPACES)
def test_solver_and_explainer(name):
    """solve_product_game over blocks of another namespace, and explain(X) with X of that namespace."""
    asarray = _conv(name)
    from sklearn.svm import SVR

    from kexplain.explainers.product_games import BackgroundFactors, InterventionalGame

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 5))
    model = SVR().fit(X, X[:, 0] * X[:, 1] - X[:, 2])
    em = kx.models.as_kernel_expansion(model)
    bg = BackgroundFactors(em, X[:20], np.full(20, 1 / 20))
    ref = solve_product_game(InterventionalGame(em, X[:6], bg), max_block_bytes=2**16)
    res = solve_product_game(InterventionalGame(em, X[:6], bg, xp=ref_xp(name)), max_block_bytes=2**16)
    assert _module_of(res.values) == name
    assert _rel(res.values, ref.values) <= 1e-12
    for kw in ({}, {"background": X[:20]}, {"baseline": X[0]}):
        explainer = kx.ProductKernelExplainer(model, **kw)
        want = explainer.explain(X[:5], interactions=True)
        got = explainer.explain(asarray(X[:5]), interactions=True)
        assert isinstance(got.values, np.ndarray)  # the Explanation holds numpy arrays
        assert _rel(got.values, want.values) <= 1e-12
        assert _rel(got.interactions, want.interactions) <= 1e-12
        assert _rel(got.base_values, want.base_values) <= 1e-12
        assert got.info["route"] == "quadrature" and "device" in got.info
        assert got.efficiency_error <= 1e-12
        f32 = explainer.explain(asarray(X[:5]), dtype="float32")
        assert _rel(f32.values, want.values) <= 1e-5
        assert f32.efficiency_error <= 1e-5


def ref_xp(name):
    import array_api_compat

    return array_api_compat.array_namespace(__import__(name).asarray([1.0]))


def test_skips_cleanly_without_array_api_compat(monkeypatch):
    """numpy float64 never needs array_api_compat."""
    import kexplain.shapley.array_api as aa

    monkeypatch.setattr(aa, "_compat", lambda: None)
    phi, v_full, v_empty = product_game_block(np.full((1, 1, 2), 2.0), 1.0, np.ones(1))
    np.testing.assert_allclose(phi[0, :, 0], [1.5, 1.5])


# --- the fused torch reductions (``_product_torch``): used on CUDA devices; here forced on CPU tensors


@pytest.fixture
def fused_calls(monkeypatch):
    """Route torch CPU tensors through the fused reductions (eager), counting their calls."""
    pytest.importorskip("array_api_compat")
    pytest.importorskip("torch")
    from kexplain.shapley import _product_torch, _product_xp

    calls = []

    def count(fn):
        def wrapped(*args):
            calls.append(fn.__name__)
            return fn(*args)

        return wrapped

    eager = _product_torch.fused_kernels
    monkeypatch.setattr(
        _product_xp,
        "fused_kernels",
        lambda x: tuple(count(f) for f in eager(x, compiled=False)) if eager(x, compiled=False) else None,
    )
    return calls


@pytest.mark.parametrize("d", [1, 2, 5, 13, 40])
@pytest.mark.parametrize("point_b", [False, True])
def test_fused_torch_equals_numpy(fused_calls, d, point_b):
    import torch

    rng = np.random.default_rng(100 + d)
    a, b, c = _game(rng, 3, 9, d, 2, point_b=point_b)
    ref = product_game_block(a, b, c)
    out = product_game_block(torch.asarray(a), torch.asarray(b), torch.asarray(c))
    assert {"node_products", "weighted_inverse_sums"} <= set(fused_calls)  # the fused path ran
    for x, r in zip(out, ref):
        assert _module_of(x) == "torch"
        assert _rel(x, r) <= 1e-12
    out32 = product_game_block(torch.asarray(a), torch.asarray(b), torch.asarray(c), dtype="float32")
    assert out32[0].dtype == torch.float32
    assert _rel(out32[0], ref[0]) <= 1e-5


def test_fused_torch_log_space(fused_calls):
    """Underflowing products, exact zeros and negative factors: the fused path's per-pair fallback."""
    import torch

    rng = np.random.default_rng(7)
    a = rng.uniform(0.01, 0.2, (2, 5, 300))
    b = rng.uniform(0.01, 0.2, (5, 300))
    c = rng.normal(size=(5, 1)) * 1e250
    ref = product_game_block(a, b, c)
    out = product_game_block(torch.asarray(a), torch.asarray(b), torch.asarray(c))
    assert fused_calls
    assert _rel(out[0], ref[0]) <= 1e-12
    # only some pairs leave the safe range: the others keep the fused values
    a, b, c = _zeros_and_signs(rng, 6)
    ref = product_game_block(a, b, c)
    out = product_game_block(torch.asarray(a), torch.asarray(b), torch.asarray(c))
    for x, r in zip(out, ref):
        assert _rel(x, r) <= 1e-12


def test_fused_kernels_selection(monkeypatch):
    """Fused only for torch tensors on a CUDA device, unless KEXPLAIN_GPU_KERNELS=generic; a bad value raises."""
    torch = pytest.importorskip("torch")
    from kexplain.shapley._product_torch import KERNELS_ENV, fused_kernels

    assert fused_kernels(np.ones(3)) is None
    assert fused_kernels(torch.ones(3)) is None  # a CPU tensor keeps the generic path
    assert fused_kernels(torch.ones(3), compiled=False) is not None
    monkeypatch.setenv(KERNELS_ENV, "generic")
    assert fused_kernels(torch.ones(3)) is None
    monkeypatch.setenv(KERNELS_ENV, "fastest")
    with pytest.raises(ValueError, match="KEXPLAIN_GPU_KERNELS.*'compile', 'generic'"):
        fused_kernels(torch.ones(3))


def test_fused_torch_compiled_on_cpu():
    """The reductions through torch.compile (TorchInductor's CPU code here; Triton on a GPU) equal the
    generic path, for two shapes compiled once (dynamic shapes)."""
    pytest.importorskip("array_api_compat")
    torch = pytest.importorskip("torch")
    import array_api_compat

    from kexplain.shapley._product_torch import compiled_kernels
    from kexplain.shapley._product_xp import _weighted_loo_integrals_xp, _xp_limits
    from kexplain.shapley.quadrature import gauss_legendre_01

    xp = array_api_compat.array_namespace(torch.ones(1))
    rng = np.random.default_rng(11)
    for K, d in ((40, 6), (300, 25)):
        a2 = torch.asarray(rng.uniform(0.2, 1.2, (K, d)))
        b2 = torch.asarray(rng.uniform(0.2, 1.2, (K, d)))
        tn, wn = gauss_legendre_01((d + 1) // 2)
        t, w = torch.asarray(tn), torch.asarray(wn)
        limits = _xp_limits(xp, torch.float64)
        want = _weighted_loo_integrals_xp(xp, a2, b2, t, w, limits, kernels=None)
        got = _weighted_loo_integrals_xp(xp, a2, b2, t, w, limits, kernels=compiled_kernels())
        assert _rel(got, want.numpy()) <= 1e-13


def test_background_factors_cached_on_device(monkeypatch):
    """Factors too large for the host's table are computed once and cached on a (non-host) device."""
    pytest.importorskip("array_api_compat")
    torch = pytest.importorskip("torch")
    from kexplain.explainers import _background_factors
    from kexplain.explainers.product_games import BackgroundFactors, InterventionalGame

    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 4))
    em = kx.KernelExpansion(X, rng.normal(size=30), kx.kernels.RBF(1.5))
    w = np.full(12, 1 / 12)
    ref = solve_product_game(InterventionalGame(em, X[:3], BackgroundFactors(em, X[:12], w)))
    bg = BackgroundFactors(em, X[:12], w, max_bytes=0)  # the host keeps no table
    assert bg.factors is None
    xp = ref_xp("torch")
    res = solve_product_game(InterventionalGame(em, X[:3], bg, xp=xp, device="cpu"), max_block_bytes=2**12)
    assert "_on_device" not in bg.__dict__  # host memory: recomputed per block, as before
    assert _rel(res.values, ref.values) <= 1e-12
    # the bounds are read where BackgroundFactors lives (product_games re-exports them)
    monkeypatch.setattr(_background_factors, "_is_host", lambda device: False)
    monkeypatch.setattr(_background_factors, "DEVICE_TABLE_BYTES", 10**6)
    res = solve_product_game(InterventionalGame(em, X[:3], bg, xp=xp, device="cpu"), max_block_bytes=2**12)
    (cached,) = bg.__dict__["_on_device"].values()
    assert tuple(cached.shape) == (30, 12, 4)
    assert _rel(res.values, ref.values) <= 1e-12
    np.testing.assert_array_equal(cached.numpy(), bg.rows(slice(0, 30)))
    del torch

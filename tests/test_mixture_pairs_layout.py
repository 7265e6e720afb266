"""The splits of kexplain.kernels.mixture and kexplain.stats._pairs_numba: one import place, the same objects.

``ScaleMixtureKernel`` stays in ``kernels/mixture.py``; the parts it is written in
(``MixtureFactor``, ``MixtureComponent``) live in ``_mixture_factors`` and its settings (the
defaults, ``check_kernel_tol``, the parameter checks, ``data_span`` and ``_sq_range``) in
``_mixture_params``; kernels pickled before the split load.  The product game's compiled
leave-one-out pass ``loo_b1`` (with its threshold ``_TINY`` and ``_compile_vectorised``, which compiles
it with LLVM's superword-level vectoriser at import) lives in ``stats/_pairs_loo_numba``;
``_pairs_numba`` keeps the pair indices, the factors, the MMD weighting and ``pooled_tiles``, which
chains them, and imports the three back (``_pairs`` looks every compiled function up on it by name).
Every name each module defined before its split, private ones included, is still imported from it,
the same object as in its new home.
"""

from __future__ import annotations

import ast
import base64
import importlib
import pathlib
import pickle
import zlib

import numpy as np
import pytest

import kexplain.kernels as kk
from kexplain.kernels import _mixture_factors, _mixture_params, mixture

#: every name mixture.py defined before the split, and the module that holds it now
MIXTURE_HOMES = {
    "DEFAULT_KERNEL_TOL": _mixture_params,
    "DEFAULT_MAX_SQ_DIST": _mixture_params,
    "check_kernel_tol": _mixture_params,
    "_check_inv_sq": _mixture_params,
    "_check_shape_param": _mixture_params,
    "_sq_range": _mixture_params,
    "data_span": _mixture_params,
    "MixtureFactor": _mixture_factors,
    "MixtureComponent": _mixture_factors,
    "ScaleMixtureKernel": mixture,
}
#: every name _pairs_numba.py defined before the split: those not named here stayed in it
PAIRS_MOVED = ("_TINY", "loo_b1", "_compile_vectorised")
PAIRS_KEPT = ("tile_factors", "_EXP_CHUNK", "triangle_pairs", "tile_pairs", "weigh_pooled", "pooled_tiles")
#: (old module, name, new home), module names relative to kexplain
HOMES = [("kernels.mixture", n, "kernels." + m.__name__.rsplit(".", 1)[-1]) for n, m in MIXTURE_HOMES.items()]
HOMES += [("stats._pairs_numba", n, "stats._pairs_loo_numba") for n in PAIRS_MOVED]
HOMES += [("stats._pairs_numba", n, "stats._pairs_numba") for n in PAIRS_KEPT]
MODULES = ["kernels.mixture", "kernels._mixture_factors", "kernels._mixture_params"]
MODULES += ["stats._pairs_numba", "stats._pairs_loo_numba"]


def _module(name):
    """kexplain.<name>; the compiled pair loops need numba (an optional dependency)."""
    if name.startswith("stats._pairs"):
        pytest.importorskip("numba", reason="the compiled pair loops need numba")
    return importlib.import_module("kexplain." + name)


@pytest.mark.parametrize("name", MODULES)
def test_each_module_stays_well_under_its_bound(name):
    n = len(pathlib.Path(_module(name).__file__).read_text().splitlines())
    assert n < 380, f"{name} has {n} lines"


@pytest.mark.parametrize("old,name,home", HOMES, ids=[f"{o}.{n}" for o, n, _ in HOMES])
def test_every_name_is_imported_from_the_old_module_and_is_its_homes_object(old, name, home):
    assert name in vars(_module(home)), f"{name} is not defined in {home}"
    assert getattr(_module(old), name) is vars(_module(home))[name]


#: ``base64(zlib(pickle.dumps(objs, protocol=4)))``, made before the split (when the two parts were
#: ``kexplain.kernels.mixture.MixtureFactor`` and ``.MixtureComponent``), of ``objs`` =
#: ``(MixtureFactor("matern", 2.5, np.array([1.0, 0.25])), MixtureComponent(2.0, 0.5,
#: (MixtureFactor("rq", 0.7, 1.0),)), ScaleMixtureKernel.rational_quadratic(1.0, alpha=0.7, tol=1e-2,
#: span=[2.0]))``
OLD_PICKLE = (
    "eNp9Uk1rE0EY3iRNU5Nag4iUCOJHqfVgwEqhB2WLkS4Y7CGCBaGss8mks3S/MjuriSJUsdTASKF9q/8iFw/eeu01ID2rYBUCQg+C"
    "xzi7O23ASuewOx/vx/M877M6tP0ppUSLj6/gpmch0ymuYOpgyy/aZpMFFAM//SDezaMqcylswfVX8BKm+HAd2abVAj5sIyaSgKc9"
    "RJEN2tyQrDpsOk91vwH8vBPYXquoV12Ki3ZgMRNRikTuqE5x1XV8RoMqE7V5OooEnnFqccgWlJU1KCUMWIcKTJUT5eQakFGerrGW"
    "h8OUZH0W2m/j1xRP3IaFhYX7fbGiT1lhYLRL+RjSgRr/uyqI68AgCs9LfiXX9lwHO2xA8RSyPctkQQ0LUooklaVGXZfENPWrvM3U"
    "I3l8IMk4maR5kjaAZDT1Rz1aZERTD+LwwFiDqPnZh1VkYYmgHEk/aJ+tHkLyYQnIRVn48lEZckWTqBRyddCYTJ7UFfEUcy0B/c3z"
    "b1rn3As+5HvIAZIjY6HSJH+oc0IcxtulEdlhLlSMp2lg4RDOEvCJY6bRpWv0RoBqFMUGykl6FZF5RO4flDxno6ZQVK+ZPhNiy3GR"
    "WwOYWU9YxfRN4Zb/gE3GYPN/nuzuTnS66u9f73v3HqVi0Jln2Fwm7KS86V5hY2xmX+32O4WdzT01JospFZbX1Nfvblza/eAJ8RCp"
    "HB5XeVr43g7FmOIXjmnhM8QEWESFm1OVu/ODueYs7Cwz4oejF8X7i7M3r30+E851f2Zso9CbFtZYlDI91tTv25N3fn75GL7vbe4U"
    "Ov1uYODAWIfiX1iLZ2s="
)


def test_the_package_exports_the_same_kernel():
    assert kk.ScaleMixtureKernel is mixture.ScaleMixtureKernel
    assert mixture.ScaleMixtureKernel.__module__ == mixture.__name__


@pytest.mark.parametrize("name", ["MixtureFactor", "MixtureComponent", "ScaleMixtureKernel"])
def test_class_paths_resolve(name):
    """Pickles name a class by ``__module__`` and ``__qualname__``: both lead back to it, and so does
    the path pickles made before the split name (``kexplain.kernels.mixture``)."""
    cls = getattr(mixture, name)
    assert getattr(importlib.import_module(cls.__module__), cls.__qualname__) is cls
    assert getattr(importlib.import_module("kexplain.kernels.mixture"), name) is cls


def test_pickles_made_before_the_split_load():
    data = zlib.decompress(base64.b64decode(OLD_PICKLE))
    assert b"kexplain.kernels.mixture" in data and b"_mixture_factors" not in data
    factor, component, kernel = pickle.loads(data)
    assert type(factor) is mixture.MixtureFactor and type(component) is mixture.MixtureComponent
    assert (factor.family, factor.param) == ("matern", 2.5)
    np.testing.assert_array_equal(factor.inv_sq, [1.0, 0.25], strict=True)
    assert (component.amplitude, component.rbf_inv_sq) == (2.0, 0.5)
    assert component.factors == (mixture.MixtureFactor("rq", 0.7, 1.0),)
    ref = mixture.ScaleMixtureKernel.rational_quadratic(1.0, alpha=0.7, tol=1e-2, span=[2.0])
    assert type(kernel) is mixture.ScaleMixtureKernel and repr(kernel) == repr(ref)
    assert type(kernel.components[0].factors[0]) is mixture.MixtureFactor
    X = np.array([[0.0], [0.5], [1.7]])
    np.testing.assert_array_equal(kernel(X), ref(X), strict=True)
    np.testing.assert_array_equal(kernel.exact(X), ref.exact(X), strict=True)
    assert kernel.error == ref.error


def test_the_parts_import_nothing_of_mixture_py():
    """What mixture.py imports may not import it back (an import circle); the docstrings' examples
    import from kexplain.kernels.mixture, which is text, not an import of the module."""
    for part in (_mixture_factors, _mixture_params):
        tree = ast.parse(pathlib.Path(part.__file__).read_text())
        modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert not modules & {"mixture", "kexplain.kernels.mixture"}, modules


def test_the_loader_hands_out_the_moved_function():
    pairs_numba, loo = _module("stats._pairs_numba"), _module("stats._pairs_loo_numba")
    from kexplain.stats import _pairs

    module = _pairs._pairs_numba_module()
    if module is None:
        pytest.skip("numba is installed but not usable here")
    assert module is pairs_numba and module.loo_b1 is loo.loo_b1


def test_loo_b1_is_compiled_vectorised_on_import():
    """Importing _pairs_numba compiles loo_b1 for C-contiguous float64 arrays (the signature
    ``_compile_vectorised`` compiles with the SLP vectoriser) before any call."""
    loo_b1 = _module("stats._pairs_numba").loo_b1
    if not hasattr(loo_b1, "signatures"):  # NUMBA_DISABLE_JIT
        pytest.skip("numba's JIT is disabled")
    assert any(all(getattr(arg, "layout", None) == "C" for arg in sig) for sig in loo_b1.signatures)


def test_pooled_tiles_equals_its_steps_bit_for_bit():
    """``pooled_tiles`` calls the moved ``loo_b1`` across the module boundary: the same numbers as
    the four steps called one by one."""
    pn, loo = _module("stats._pairs_numba"), _module("stats._pairs_loo_numba")
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
    pn.pooled_tiles(n, 0, nt, tile, T, U, kinds, inv, mismatch, labels, 0.4, -0.3, 0.2, t, w, stat, phi, ok)
    assert ok.all()
    for s in range(nt):
        k0, k1 = s * tile, min(T, (s + 1) * tile)
        i, j = np.empty(k1 - k0, np.int64), np.empty(k1 - k0, np.int64)
        pn.tile_pairs(n, k0, k1, i, j)
        a = np.empty((k1 - k0, d))
        pn.tile_factors(U, U, i, j, kinds, inv, mismatch, a)
        psi, kval = np.empty((k1 - k0, d)), np.empty(k1 - k0)
        assert loo.loo_b1(a, t, w, psi, kval)
        st, ph = np.zeros(1), np.zeros(d)
        pn.weigh_pooled(i, j, labels, 0.4, -0.3, 0.2, kval, psi, st, ph)
        np.testing.assert_array_equal(stat[s], st, strict=True)
        np.testing.assert_array_equal(phi[s], ph, strict=True)

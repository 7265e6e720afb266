"""The split of kexplain.gp.kernels: one import place, modules by idea, the same objects and pickles.

``ConstrainedGaussianRBF`` (with the quadrature of its Gamma matrix) lives in ``kernels_gaussian``,
``ConstrainedEmpiricalRBF`` (with the compression of large measures) in ``kernels_empirical``,
``ConstrainedCategorical`` in ``kernels_categorical`` and the helpers the two RBF kernels share in
``_kernel_math``; ``ConstrainedKernel`` stays in ``kernels``.  Every name, private ones included,
is still imported from ``kexplain.gp.kernels``, and kernels (and OAK models holding them) pickled
when the classes lived there still load.
"""

from __future__ import annotations

import importlib
import pathlib
import pickle

import numpy as np
import pytest

import kexplain as kx
from kexplain.gp import _kernel_math, kernels, kernels_categorical, kernels_empirical, kernels_gaussian

HOMES = (kernels_gaussian, kernels_empirical, kernels_categorical, _kernel_math)

#: every name kexplain.gp.kernels defined before the split
NAMES = (
    "MAX_MEASURE_POINTS",
    "ConstrainedKernel",
    "_sq",
    "_lengthscale",
    "GAMMA_QUADRATURE_RATIO",
    "GAMMA_QUADRATURE_NODES",
    "_hermite_rule",
    "_HERMITE_CACHE",
    "ConstrainedGaussianRBF",
    "_compress",
    "ConstrainedEmpiricalRBF",
    "ConstrainedCategorical",
)

#: ``pickle.dumps(ConstrainedGaussianRBF(0.5, 2.0), protocol=2)`` made before the split
OLD_PICKLE = (
    b"\x80\x02ckexplain.gp.kernels\nConstrainedGaussianRBF\nq\x00)\x81q\x01}q\x02(X\x02\x00\x00\x00muq\x03G?"
    b"\xe0\x00\x00\x00\x00\x00\x00X\x06\x00\x00\x00delta2q\x04G@\x10\x00\x00\x00\x00\x00\x00ub."
)


@pytest.mark.parametrize("module", [kernels, *HOMES], ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_each_module_stays_well_under_450_lines(module):
    n = len(pathlib.Path(module.__file__).read_text().splitlines())
    assert n < 450, f"{module.__name__} has {n} lines"


@pytest.mark.parametrize("name", NAMES)
def test_every_name_is_imported_from_kernels_and_is_its_homes_object(name):
    obj = getattr(kernels, name)
    assert any(getattr(m, name, None) is obj for m in HOMES) or obj.__module__ == kernels.__name__


def test_the_package_and_the_old_path_give_the_same_classes():
    for name in kx.gp.__all__:
        if name.startswith("Constrained"):
            assert getattr(kx.gp, name) is getattr(kernels, name), name


@pytest.mark.parametrize("name", [n for n in NAMES if n.startswith("Constrained")])
def test_class_paths_resolve(name):
    """Pickles name a class by ``__module__`` and ``__qualname__``: both must lead back to it."""
    cls = getattr(kernels, name)
    assert getattr(importlib.import_module(cls.__module__), cls.__qualname__) is cls


def test_the_quadrature_cache_is_one_object():
    """``_hermite_rule`` fills the cache of ``kernels_gaussian``: the name in ``kernels`` is that dict."""
    assert kernels._HERMITE_CACHE is kernels_gaussian._HERMITE_CACHE
    u, w = kernels._hermite_rule()
    assert kernels_gaussian._HERMITE_CACHE[kernels.GAMMA_QUADRATURE_NODES][0] is u and w.sum() == pytest.approx(1.0)


def test_a_kernel_pickled_under_the_old_path_still_loads():
    k = pickle.loads(OLD_PICKLE)
    ref = kernels.ConstrainedGaussianRBF(0.5, 2.0)
    assert type(k) is kernels.ConstrainedGaussianRBF and vars(k) == vars(ref)
    x = np.array([-1.0, 0.5, 3.0])
    for l in (0.7, 10.0):  # the closed form and the quadrature of gamma
        np.testing.assert_array_equal(k.gamma(x, x, l), ref.gamma(x, x, l))


def _as_before_the_split(data: bytes) -> bytes:
    """A protocol-2 pickle names ``module\\nname``: renamed to kexplain.gp.kernels, as it was."""
    for home in HOMES:
        data = data.replace(f"c{home.__name__}\n".encode(), b"ckexplain.gp.kernels\n")
    assert b"ckexplain.gp.kernels\n" in data and b"kexplain.gp.kernels_" not in data
    return data


def test_every_kernel_class_and_an_oak_model_load_under_the_old_path():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=40), rng.normal(size=40), rng.integers(0, 3, size=40)])
    y = np.sin(X[:, 0]) + X[:, 1] * (X[:, 2] == 1)
    x = np.array([0.0, 1.0, 2.0, -1.5])
    for k in (
        kernels.ConstrainedGaussianRBF(0.2, 1.5),
        kernels.ConstrainedEmpiricalRBF(rng.normal(size=30)),
        kernels.ConstrainedCategorical([0.2, 0.5, 0.3]),
    ):
        old = pickle.loads(_as_before_the_split(pickle.dumps(k, protocol=2)))
        assert type(old) is type(k)
        np.testing.assert_array_equal(old.k(x, x, 0.8), k.k(x, x, 0.8))
    for measure in ("gaussian", "empirical"):
        gp = kx.gp.OAKRegressor(max_interaction_order=2, input_measure=measure, categorical_features=[2], max_iter=3)
        gp = gp.fit(X, y)
        old = pickle.loads(_as_before_the_split(pickle.dumps(gp, protocol=2)))
        assert [type(b) for b in old.bases_] == [type(b) for b in gp.bases_]
        np.testing.assert_array_equal(old.predict(X[:5]), gp.predict(X[:5]))

"""The split of kexplain.kernels.mixture: one import place, modules by idea, the same objects and pickles.

``ScaleMixtureKernel`` stays in ``kernels/mixture.py``; the parts it is written in
(``MixtureFactor``, ``MixtureComponent``) live in ``_mixture_factors`` and its settings (the
defaults, ``check_kernel_tol``, the parameter checks, ``data_span`` and ``_sq_range``) in
``_mixture_params``.  Every name mixture.py defined before the split, private ones included, is still
imported from it, the same object as in its new home, and kernels pickled before the split load.
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
HOMES = {
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
MODULES = [mixture, _mixture_factors, _mixture_params]

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


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_each_module_stays_well_under_its_bound(module):
    n = len(pathlib.Path(module.__file__).read_text().splitlines())
    assert n < 380, f"{module.__name__} has {n} lines"


@pytest.mark.parametrize("name", sorted(HOMES))
def test_every_name_is_imported_from_mixture_and_is_its_homes_object(name):
    home = HOMES[name]
    assert name in vars(home), f"{name} is not defined in {home.__name__}"
    assert getattr(mixture, name) is vars(home)[name]


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

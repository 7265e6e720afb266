"""The split of kexplain.kernels.dot_product: one import place, modules by idea, the same objects and pickles.

``PolynomialOfSum`` (the class every dot-product kernel is, with its sums, products and powers)
lives in ``kernels/polynomial_of_sum.py``, the conversion of scikit-learn's DotProduct kernels
(``has_dot_product``, ``polynomial_from_sklearn``) in ``kernels/dot_product_sklearn.py``;
dot_product.py keeps the named kernels ``Polynomial``, ``Linear`` and ``AdditiveChi2`` (so their
pickles name the same module) and imports every other name, private ones included, from its home.
Kernels pickled when PolynomialOfSum lived in dot_product.py still load.
"""

from __future__ import annotations

import ast
import importlib
import pathlib
import pickle

import numpy as np
import pytest

from kexplain.kernels import dot_product, dot_product_sklearn, polynomial_of_sum

#: every name other modules, tests and docs import from kexplain.kernels.dot_product, and its home
NAMES = {
    "INNER_KINDS": polynomial_of_sum,
    "PolynomialOfSum": polynomial_of_sum,
    "_finite": polynomial_of_sum,
    "_per_feature": polynomial_of_sum,
    "has_dot_product": dot_product_sklearn,
    "polynomial_from_sklearn": dot_product_sklearn,
    "_expand": dot_product_sklearn,
    "Polynomial": dot_product,
    "Linear": dot_product,
    "AdditiveChi2": dot_product,
    "_check_degree": dot_product,
}

#: ``pickle.dumps(k, protocol=2)`` of ``polynomial_from_sklearn(ConstantKernel(2.0) *
#: DotProduct(sigma_0=0.5) ** 2 + ConstantKernel(0.25), 3)``, made before the split: the class is
#: named ``kexplain.kernels.dot_product.PolynomialOfSum``
OLD_PICKLE = (
    b"\x80\x02ckexplain.kernels.dot_product\nPolynomi"
    b"alOfSum\nq\x00)\x81q\x01}q\x02(X\x05\x00\x00\x00termsq\x03]q\x04(G@\x00\x00\x00\x00"
    b"\x00\x00\x00cnumpy._core.multiarray\n_reconstruct\n"
    b"q\x05cnumpy\nndarray\nq\x06K\x00\x85q\x07c_codecs\nencode\n"
    b"q\x08X\x01\x00\x00\x00bq\tX\x06\x00\x00\x00latin1q\n\x86q\x0bRq\x0c\x87q\rRq\x0e(K\x01K\x02"
    b"\x85q\x0fcnumpy\ndtype\nq\x10X\x02\x00\x00\x00f8q\x11\x89\x88\x87q\x12Rq\x13(K\x03X\x01"
    b"\x00\x00\x00<q\x14NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00tq\x15b\x89h\x08X\x12\x00\x00\x00\x00\x00\x00\x00\x00\x00\xc3"
    b"\x90?\x00\x00\x00\x00\x00\x00\xc3\x90?q\x16h\n\x86q\x17Rq\x18tq\x19b\x86q\x1aG?\xd0\x00\x00\x00\x00\x00\x00h\x05h"
    b"\x06K\x00\x85q\x1bh\x0c\x87q\x1cRq\x1d(K\x01K\x00\x85q\x1eh\x13\x89c__builtin__\nby"
    b'tes\nq\x1f)Rq tq!b\x86q"eX\x05\x00\x00\x00innerq#X\x03\x00\x00\x00dotq$'
    b"X\x05\x00\x00\x00gammaq%G?\xf0\x00\x00\x00\x00\x00\x00X\x06\x00\x00\x00centerq&G\x00\x00\x00\x00\x00"
    b"\x00\x00\x00ub."
)


@pytest.mark.parametrize("module", [dot_product, polynomial_of_sum, dot_product_sklearn], ids=lambda m: m.__name__)
def test_each_module_stays_within_its_bound(module):
    """dot_product.py had 547 lines before the split; each part stays well under 450."""
    n = len(pathlib.Path(module.__file__).read_text().splitlines())
    assert n < 400, f"{module.__name__} has {n} lines"


@pytest.mark.parametrize("name", sorted(NAMES))
def test_every_name_is_imported_from_dot_product_and_is_its_homes_object(name):
    home = NAMES[name]
    assert getattr(dot_product, name) is getattr(home, name)
    obj = getattr(home, name)
    if callable(obj):
        assert obj.__module__ == home.__name__


def test_the_package_exports_the_same_objects():
    import kexplain.kernels as kk

    for name in ("AdditiveChi2", "Linear", "Polynomial", "PolynomialOfSum"):
        assert getattr(kk, name) is getattr(dot_product, name)


def test_the_homes_name_nothing_of_dot_product_py():
    """dot_product.py imports both parts, so neither may import it back (an import circle)."""
    for part in (polynomial_of_sum, dot_product_sklearn):
        tree = ast.parse(pathlib.Path(part.__file__).read_text())
        modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert not modules & {"dot_product", "kexplain.kernels.dot_product"}, modules


@pytest.mark.parametrize("name", ["PolynomialOfSum", "Polynomial", "Linear", "AdditiveChi2"])
def test_class_paths_resolve(name):
    """Pickles name a class by ``__module__`` and ``__qualname__``: both must lead back to it."""
    cls = getattr(dot_product, name)
    assert getattr(importlib.import_module(cls.__module__), cls.__qualname__) is cls


def test_kernels_pickled_under_the_old_path_still_load():
    from sklearn.gaussian_process.kernels import ConstantKernel, DotProduct

    k = pickle.loads(OLD_PICKLE)
    ref = dot_product.polynomial_from_sklearn(
        ConstantKernel(2.0) * DotProduct(sigma_0=0.5) ** 2 + ConstantKernel(0.25), 3
    )
    assert type(k) is dot_product.PolynomialOfSum and repr(k) == repr(ref)
    X = np.random.default_rng(0).normal(size=(5, 3))
    np.testing.assert_array_equal(k(X), ref(X))


def test_every_kernel_class_loads_under_the_old_path():
    """A protocol-2 pickle names ``module\\nname``: renamed to kexplain.kernels.dot_product, every
    class of the family loads (sums, products, rescaled per-feature arrays included)."""
    kernels = [
        dot_product.Polynomial(degree=3, gamma=[0.5, 2.0], coef0=0.5),
        dot_product.Linear(gamma=0.3, amplitude=2.0),
        dot_product.AdditiveChi2(amplitude=0.5),
        (dot_product.Polynomial(2) * dot_product.Linear() + 1.0) ** 2,
        dot_product.Linear().rescaled(np.array([2.0, 0.5]), np.array([1.0, -1.0])),
    ]
    X = np.array([[0.0, 1.0], [1.0, 0.5], [2.0, 1.0]])
    for k in kernels:
        data = pickle.dumps(k, protocol=2).replace(
            f"c{polynomial_of_sum.__name__}\n".encode(), b"ckexplain.kernels.dot_product\n"
        )
        assert b"ckexplain.kernels.dot_product\n" in data and b"polynomial_of_sum" not in data
        old = pickle.loads(data)
        assert type(old) is type(k) and repr(old) == repr(k)
        np.testing.assert_array_equal(old(X), k(X))

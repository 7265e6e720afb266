"""The split of kexplain.causal.bayesimp: the class and its pickles stay, its per-method algebra moved.

``BayesIMP`` keeps its parameters, their checks, ``fit`` with its two marginal likelihoods, and the
public methods (``predict``, ``cross_cov``, ``bo_prior``) in ``bayesimp``; what ``fit`` prepares for
each method and the mean and covariance parts at queries (``_prepare``, ``_parts``) are the mix-in
``_MethodAlgebra`` of ``_method_algebra``, a base of the class.  Every name of the module is still
imported from ``kexplain.causal.bayesimp``, and the class keeps its module, so pickles name the same
path as before.
"""

from __future__ import annotations

import ast
import pathlib
import pickle

import numpy as np
import pytest

import kexplain as kx
from kexplain.causal import _method_algebra, bayesimp

#: every name bayesimp.py defined or imported before the split (all still there)
OLD_NAMES = (
    "BayesIMP _METHODS _ADJUSTMENTS _rows _ls Any np cho_solve minimize minimize_scalar NotFittedError "
    "check_positive check_data feature_names_of match_columns nuclear_dominant_rbf rbf _logdet _chol "
    "default_lengthscale InterventionalGPPrior InterventionalPrediction Stage1"
).split()

#: BayesIMP's members before the split (its own, or the mix-in's now)
MEMBERS = "__init__ fit _select_regularization _nll _prepare _check _parts predict cross_cov bo_prior".split()


@pytest.mark.parametrize("module", [bayesimp, _method_algebra], ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_each_module_stays_under_380_lines(module):
    n = len(pathlib.Path(module.__file__).read_text().splitlines())
    assert n < 380, f"{module.__name__} has {n} lines"


@pytest.mark.parametrize("name", OLD_NAMES)
def test_every_old_name_is_imported_from_bayesimp(name):
    assert hasattr(bayesimp, name), name


def test_the_package_gives_the_same_class_and_its_members():
    cls = bayesimp.BayesIMP
    assert kx.causal.BayesIMP is cls
    assert cls.__mro__ == (cls, _method_algebra._MethodAlgebra, object)
    assert cls.__module__ == bayesimp.__name__  # pickles name the class by this path
    assert cls._prepare is _method_algebra._MethodAlgebra._prepare
    assert cls._parts is _method_algebra._MethodAlgebra._parts
    missing = [m for m in MEMBERS if not any(m in vars(k) for k in cls.__mro__[:-1])]
    assert not missing, f"BayesIMP lost {missing}"


def test_the_mixin_names_nothing_of_bayesimp():
    """bayesimp imports the mix-in, which may not import it back (an import circle)."""
    tree = ast.parse(pathlib.Path(_method_algebra.__file__).read_text())
    modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not modules & {"bayesimp", "kexplain.causal.bayesimp"}, modules


@pytest.mark.parametrize("method", ["imp", "bayesime", "bayesimp"])
def test_a_fitted_model_round_trips_through_pickle_under_its_old_path(method):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(15, 1))
    Y = X + 0.2 * rng.normal(size=(15, 1))
    model = bayesimp.BayesIMP(method, optimize=False).fit(X, Y, Y[:10], np.sin(Y[:10, 0]))
    data = pickle.dumps(model, protocol=2)
    assert b"ckexplain.causal.bayesimp\nBayesIMP\n" in data and b"_method_algebra" not in data
    again = pickle.loads(data)
    q = np.array([[0.0], [0.7]])
    a, b = again.predict(q, return_cov=True), model.predict(q, return_cov=True)
    np.testing.assert_array_equal(a.mean, b.mean)
    np.testing.assert_array_equal(a.cov, b.cov)

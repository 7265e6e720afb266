"""The splits of kexplain.causal.bayesimp, .embeddings.bayesian and .models.gpytorch, by idea.

- ``BayesIMP`` keeps its parameters, their checks, ``fit`` with its two marginal likelihoods and the
  public methods in ``bayesimp``; what ``fit`` prepares for each method and the mean and covariance
  parts at queries (``_prepare``, ``_parts``) are the mix-in ``_MethodAlgebra`` of
  ``_method_algebra``, a base of the class.
- ``BayesianCME`` stays in ``bayesian``; the closed form of the nuclear dominant kernel of the RBF,
  ``nuclear_dominant_rbf``, which the estimator and BayesIMP build on, lives in ``nuclear``.
- Reading a fitted GPyTorch / BoTorch model (the exact and variational parts, the transforms,
  ``_refuse`` and ``SUPPORTED_GPYTORCH_MODELS``) lives in ``_gpytorch_parts``; converting its kernel
  and building the KernelExpansion or the GPPosterior parts stay in ``gpytorch``.

Every name is still imported from the old module, and the two classes keep their module, so
pickles name the same paths as before (gpytorch.py defines no class).
"""

from __future__ import annotations

import ast
import pathlib
import pickle

import numpy as np
import pytest

import kexplain as kx
from kexplain.causal import _method_algebra, bayesimp
from kexplain.embeddings import bayesian, nuclear
from kexplain.kernels import gpytorch as kernels_gpytorch
from kexplain.models import _gpytorch_parts, gpytorch

#: every name the three modules defined before the split, with the module that holds it now
NAMES = {
    bayesimp: {
        "BayesIMP": bayesimp,
        "_METHODS": bayesimp,
        "_ADJUSTMENTS": bayesimp,
        "_rows": bayesimp,
        "_ls": bayesimp,
        "nuclear_dominant_rbf": nuclear,
    },
    bayesian: {"BayesianCME": bayesian, "nuclear_dominant_rbf": nuclear},
    gpytorch: {
        "SUPPORTED_GPYTORCH_MODELS": _gpytorch_parts,
        "_ALLOWED_CHILDREN": _gpytorch_parts,
        "_refuse": _gpytorch_parts,
        "_np": _gpytorch_parts,
        "_affine_input": _gpytorch_parts,
        "_outcome": _gpytorch_parts,
        "_exact_parts": _gpytorch_parts,
        "_variational_parts": _gpytorch_parts,
        "is_torch_gp": gpytorch,
        "_single_model_parts": gpytorch,
        "_all_parts": gpytorch,
        "_expansion_of": gpytorch,
        "gpytorch_polynomial_parts": gpytorch,
        "gpytorch_expansion": gpytorch,
        "gpytorch_parts_for_posterior": gpytorch,
        "describe_torch_output": gpytorch,
        "GPYTORCH_ROUTE": kernels_gpytorch,
        "SUPPORTED_GPYTORCH_KERNELS": kernels_gpytorch,
        "from_gpytorch": kernels_gpytorch,
    },
}

#: the other names the modules imported before the split: still attributes of them
IMPORTED = {
    bayesimp: "Any np cho_solve minimize minimize_scalar NotFittedError check_positive check_data "
    "feature_names_of match_columns rbf _logdet _chol default_lengthscale InterventionalGPPrior "
    "InterventionalPrediction Stage1",
    bayesian: "Any np ArrayLike cho_factor cho_solve minimize_scalar BaseEstimator check_is_fitted validate_data "
    "Options check_param check_positive RealNumber check_data match_columns RBF default_lengthscale "
    "check_gram_output as_2d resolve_kernel jittered_cholesky",
    gpytorch: "Sequence Any np require UnsupportedModelError PolynomialOfSum ScaleMixtureKernel KernelExpansion",
}

#: each new module, and the old one that imports it (and that it may not import back)
NEW = {_method_algebra: bayesimp, nuclear: bayesian, _gpytorch_parts: gpytorch}


def _short(m):
    return m.__name__.rsplit(".", 1)[-1]


@pytest.mark.parametrize("module", [*NAMES, *NEW], ids=_short)
def test_each_part_stays_under_380_lines(module):
    n = len(pathlib.Path(module.__file__).read_text().splitlines())
    assert n < 380, f"{module.__name__} has {n} lines"


@pytest.mark.parametrize("old", list(NAMES), ids=_short)
def test_every_old_name_is_still_imported_from_the_old_module(old):
    for name, home in NAMES[old].items():
        assert getattr(old, name) is getattr(home, name), name
        if callable(getattr(home, name)) and home in (old, *NEW):
            assert getattr(home, name).__module__ == home.__name__, name
    missing = [n for n in IMPORTED[old].split() if not hasattr(old, n)]
    assert not missing, f"{old.__name__} lost {missing}"


@pytest.mark.parametrize("new", list(NEW), ids=_short)
def test_a_new_part_names_nothing_of_its_old_module(new):
    """The old module imports the new part, which may not import it back (an import circle)."""
    tree = ast.parse(pathlib.Path(new.__file__).read_text())
    modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    old = NEW[new]
    assert not modules & {_short(old), old.__name__}, modules


def test_the_packages_give_the_same_objects():
    assert kx.causal.BayesIMP is bayesimp.BayesIMP
    assert kx.embeddings.BayesianCME is bayesian.BayesianCME
    assert kx.embeddings.nuclear_dominant_rbf is nuclear.nuclear_dominant_rbf
    assert kx.models.gpytorch is gpytorch
    from kexplain.models import posterior, sklearn

    assert posterior.is_torch_gp is sklearn.is_torch_gp is gpytorch.is_torch_gp


def test_bayesimp_keeps_its_members_and_module():
    cls = bayesimp.BayesIMP
    assert cls.__mro__ == (cls, _method_algebra._MethodAlgebra, object)
    assert cls.__module__ == bayesimp.__name__  # pickles name the class by this path
    members = "__init__ fit _select_regularization _nll _prepare _check _parts predict cross_cov bo_prior".split()
    missing = [m for m in members if not any(m in vars(k) for k in cls.__mro__[:-1])]
    assert not missing, f"BayesIMP lost {missing}"
    assert cls._prepare is _method_algebra._MethodAlgebra._prepare
    assert cls._parts is _method_algebra._MethodAlgebra._parts


@pytest.mark.parametrize("method", ["imp", "bayesime", "bayesimp"])
def test_a_fitted_bayesimp_round_trips_through_pickle_under_its_old_path(method):
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


def test_a_fitted_bayesian_cme_round_trips_through_pickle_under_its_old_path():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 2))
    Y = X[:, :1] + 0.1 * rng.normal(size=(20, 1))
    model = bayesian.BayesianCME(regularization="marginal_likelihood").fit(X, Y)
    data = pickle.dumps(model, protocol=2)
    assert b"ckexplain.embeddings.bayesian\nBayesianCME\n" in data and b"nuclear" not in data
    again = pickle.loads(data)
    for a, b in zip(again.predict(X[:3], Y[:4], return_cov=True), model.predict(X[:3], Y[:4], return_cov=True)):
        np.testing.assert_array_equal(a, b)

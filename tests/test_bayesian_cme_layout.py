"""The split of kexplain.embeddings.bayesian: the estimator stays, the nuclear dominant kernel moved.

``BayesianCME`` (its parameters, ``fit``, the marginal likelihood of its ridge, ``predict`` and
``expectation``) stays in ``bayesian``; the closed form of the nuclear dominant kernel of the RBF,
``nuclear_dominant_rbf``, a function of its own that the estimator and BayesIMP build on, lives in
``nuclear``.  Every name is still imported from ``kexplain.embeddings.bayesian``, and the class
keeps its module, so pickles name the same path as before.
"""

from __future__ import annotations

import ast
import pathlib
import pickle

import numpy as np
import pytest

import kexplain as kx
from kexplain.causal import bayesimp
from kexplain.embeddings import bayesian, nuclear

#: every name bayesian.py defined or imported before the split (all still there)
OLD_NAMES = (
    "nuclear_dominant_rbf BayesianCME Any np ArrayLike cho_factor cho_solve minimize_scalar BaseEstimator "
    "check_is_fitted validate_data Options check_param check_positive RealNumber check_data match_columns RBF "
    "default_lengthscale check_gram_output as_2d resolve_kernel jittered_cholesky"
).split()


@pytest.mark.parametrize("module", [bayesian, nuclear], ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_each_module_stays_under_380_lines(module):
    n = len(pathlib.Path(module.__file__).read_text().splitlines())
    assert n < 380, f"{module.__name__} has {n} lines"


@pytest.mark.parametrize("name", OLD_NAMES)
def test_every_old_name_is_imported_from_bayesian(name):
    assert hasattr(bayesian, name), name


def test_the_kernel_is_one_object_wherever_it_is_imported_from():
    f = nuclear.nuclear_dominant_rbf
    assert f.__module__ == nuclear.__name__
    assert bayesian.nuclear_dominant_rbf is f and kx.embeddings.nuclear_dominant_rbf is f
    assert bayesimp.nuclear_dominant_rbf is f
    assert kx.embeddings.BayesianCME is bayesian.BayesianCME


def test_the_kernel_module_names_nothing_of_bayesian():
    """bayesian imports nuclear, which may not import it back (an import circle)."""
    tree = ast.parse(pathlib.Path(nuclear.__file__).read_text())
    modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not modules & {"bayesian", "kexplain.embeddings.bayesian"}, modules


def test_a_fitted_embedding_round_trips_through_pickle_under_its_old_path():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 2))
    Y = X[:, :1] + 0.1 * rng.normal(size=(20, 1))
    model = bayesian.BayesianCME(regularization="marginal_likelihood").fit(X, Y)
    data = pickle.dumps(model, protocol=2)
    assert b"ckexplain.embeddings.bayesian\nBayesianCME\n" in data and b"nuclear" not in data
    again = pickle.loads(data)
    for a, b in zip(again.predict(X[:3], Y[:4], return_cov=True), model.predict(X[:3], Y[:4], return_cov=True)):
        np.testing.assert_array_equal(a, b)

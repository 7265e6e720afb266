"""The split of kexplain.models.posterior: one import place, modules by idea, the same numbers.

``GPPosterior`` lives in ``posterior_parts``, the checks and factors of its precision in
``posterior_factors``, the rounding bounds' record and warnings in ``posterior_accuracy``, and
``gp_posterior`` in ``posterior`` itself; every name is still imported from
``kexplain.models.posterior`` (and ``GPPosterior``, ``gp_posterior`` from ``kexplain.models``).

posterior_parts.py (488 lines) was split in turn: ``GPPosterior`` keeps its parts, their checks,
the prior and the mean, and what it computes from the factor of its precision (whitening, rounding
bounds, covariance, variance) is the mix-in ``_PosteriorDataTerm`` of ``_posterior_data_term``, a
base of the class; the class itself, and so its pickles, stay in posterior_parts.
"""

from __future__ import annotations

import ast
import dataclasses
import pathlib
import pickle

import numpy as np
import pytest

import kexplain as kx
from kexplain.models import _posterior_data_term, posterior, posterior_accuracy, posterior_factors, posterior_parts

MODELS = pathlib.Path(posterior.__file__).parent


@pytest.mark.parametrize("path", sorted(MODELS.glob("*posterior*.py")), ids=lambda p: p.name)
def test_each_module_stays_well_under_600_lines(path):
    assert len(path.read_text().splitlines()) < 500, f"{path.name} has 500 lines or more"


def test_every_name_is_imported_from_posterior_and_is_the_same_object():
    homes = (posterior_parts, posterior_accuracy)
    for name in posterior.__all__:
        obj = getattr(posterior, name)
        assert any(getattr(m, name, None) is obj for m in homes) or name in vars(posterior), name
    assert kx.models.GPPosterior is posterior.GPPosterior is posterior_parts.GPPosterior
    assert kx.models.gp_posterior is posterior.gp_posterior


def test_precision_and_cholesky_factors_give_the_same_data_term():
    """The two factorisations ``GPPosterior`` checks its input with: F^T F = A, and L L^T = A^-1."""
    rng = np.random.default_rng(0)
    M = rng.normal(size=(6, 6))
    B = M @ M.T + 6 * np.eye(6)
    A, F, norm, cond = posterior_factors._precision_factor(np.linalg.inv(B), 6)
    L, D, norm_l, cond_l = posterior_factors._cholesky_factor(np.linalg.cholesky(B), None, 6)
    assert D is None and np.array_equal(A, A.T)
    assert np.abs(F.T @ F - A).max() <= 1e-14 * np.abs(A).max()
    assert np.abs(np.linalg.inv(L @ L.T) - A).max() <= 1e-12 * np.abs(A).max()
    eig = np.linalg.eigvalsh(B)
    assert norm == pytest.approx(1 / eig[0]) and cond == pytest.approx(eig[-1] / eig[0])
    assert norm_l >= eig[-1] and cond_l >= 0.5 * eig[-1] / eig[0]  # a bound, and an estimate
    with pytest.raises(ValueError, match="precision must be a symmetric matrix"):
        posterior_factors._precision_factor(A + np.triu(np.ones((6, 6)), 1), 6)
    with pytest.raises(ValueError, match="cholesky must be lower triangular"):
        posterior_factors._cholesky_factor(L.T, None, 6)
    with pytest.raises(ValueError, match="cholesky_scale must hold 6"):
        posterior_factors._cholesky_factor(L, -np.ones(6), 6)


def test_the_parts_of_gpposterior_stay_well_under_450_lines():
    for module in (posterior_parts, _posterior_data_term):
        n = len(pathlib.Path(module.__file__).read_text().splitlines())
        assert n < 400, f"{module.__name__} has {n} lines"


#: every name posterior_parts.py had before its split, and its home since
PARTS_NAMES = {
    "GPPosterior": posterior_parts,
    "_BOUND_FACTOR": posterior_factors,
    "_EPS": posterior_factors,
    "_cholesky_factor": posterior_factors,
    "_precision_factor": posterior_factors,
    "_real_array": posterior_factors,
}

#: GPPosterior's members before the split (its own, or the mix-in's now)
MEMBERS = (
    "__post_init__ n_features prior expansion mean condition_number whiten error_radius precision_matrix "
    "_check_noisy covariance variance variance_and_bound"
).split()

FIELDS = (
    "X_train kernel coef precision offset scale constant noise_variance output feature_names cholesky "
    "cholesky_scale sample_noise"
).split()


@pytest.mark.parametrize("name", sorted(PARTS_NAMES))
def test_every_name_of_posterior_parts_is_imported_from_it(name):
    assert getattr(posterior_parts, name) is getattr(PARTS_NAMES[name], name)


def test_gpposterior_keeps_its_members_fields_and_module():
    cls = posterior_parts.GPPosterior
    assert cls.__mro__ == (cls, _posterior_data_term._PosteriorDataTerm, object)
    assert cls.__module__ == posterior_parts.__name__  # pickles name the class by this path
    missing = [m for m in MEMBERS if not any(m in vars(k) for k in cls.__mro__[:-1])]
    assert not missing, f"GPPosterior lost {missing}"
    # the mix-in only declares the attributes it reads: the dataclass fields are GPPosterior's own
    assert [f.name for f in dataclasses.fields(cls)] == FIELDS
    assert not dataclasses.is_dataclass(_posterior_data_term._PosteriorDataTerm)


def test_the_mixin_names_nothing_of_posterior_parts():
    """posterior_parts imports the mix-in, which may not import it back (an import circle)."""
    tree = ast.parse(pathlib.Path(_posterior_data_term.__file__).read_text())
    modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not modules & {"posterior_parts", "posterior", "kexplain.models.posterior_parts"}, modules


def test_a_posterior_round_trips_through_pickle_under_its_old_path():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(8, 2))
    k = kx.kernels.RBF(1.0)
    B = k(X) + 0.1 * np.eye(8)
    for post in (
        posterior_parts.GPPosterior(X, k, rng.normal(size=8), np.linalg.inv(B), offset=0.5, scale=2.0),
        posterior_parts.GPPosterior(X, k, rng.normal(size=8), cholesky=np.linalg.cholesky(B), noise_variance=0.1),
    ):
        data = pickle.dumps(post, protocol=2)
        assert b"ckexplain.models.posterior_parts\nGPPosterior\n" in data and b"_posterior_data_term" not in data
        again = pickle.loads(data)
        Z = rng.normal(size=(4, 2))
        np.testing.assert_array_equal(again.covariance(Z), post.covariance(Z))
        np.testing.assert_array_equal(again.variance_and_bound(Z)[1], post.variance_and_bound(Z)[1])


def test_the_api_page_lists_the_mixins_methods():
    """The class template lists inherited members (whiten, covariance, ...) for ``mixin_classes``."""
    tree = ast.parse((pathlib.Path(__file__).resolve().parents[1] / "docs" / "conf.py").read_text())
    context = next(
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "autosummary_context"
    )
    assert "kexplain.models.GPPosterior" in context["mixin_classes"]


def _defined_names(path: pathlib.Path) -> set[str]:
    tree = ast.parse(path.read_text())
    out = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.Assign):
            out.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
    return out


@pytest.mark.parametrize("module", ["posterior.py", "dot_product.py"])
def test_private_adapter_names_come_from_the_modules_that_hold_them(module):
    """models/sklearn.py re-exports its parts' names for callers outside; its siblings import each
    name from the module that defines it (sklearn_estimators.py, _sklearn_pipeline.py, sklearn.py)."""
    homes = {m: _defined_names(MODELS / f"{m}.py") for m in ("sklearn", "sklearn_estimators", "_sklearn_pipeline")}
    tree = ast.parse((MODELS / module).read_text())
    found = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module in homes:
            for alias in node.names:
                found += 1
                assert alias.name in homes[node.module], f"{module} imports {alias.name} from .{node.module}"
    assert found

"""The split of kexplain.embeddings.cme and .deconditional: one import place each, modules by idea.

``ConditionalMeanEmbedding`` stays in ``cme`` (its parameters, ``fit``, the choice of the
regularisation, ``expectation`` and ``predict``); the weights, embeddings and inner products of a
fitted embedding are the mix-in ``EmbeddingQueries`` of ``_cme_queries``, and the two selection
criteria live in ``cme_selection``.  ``DeconditionalGPRegressor`` stays in ``deconditional`` (its
checks, ``fit``, ``predict``); its likelihood, gradient, posterior and ELBO are the mix-in
``DeconditionalLikelihood`` of ``_deconditional_likelihood``.  Every name is still imported from
the old modules, and the two classes keep their module, so pickles name the same paths as before.
"""

from __future__ import annotations

import ast
import pathlib
import pickle

import numpy as np
import pytest

import kexplain as kx
from kexplain.embeddings import _cme_queries, _deconditional_likelihood, cme, cme_selection, deconditional

DOCS_CONF = pathlib.Path(__file__).resolve().parents[1] / "docs" / "conf.py"

MODULES = (cme, cme_selection, _cme_queries, deconditional, _deconditional_likelihood)

#: every name the two modules defined before the split (and ``rbf``, which examples import from
#: deconditional), with the module that holds it now
NAMES = {
    cme: {
        "ConditionalMeanEmbedding": cme,
        "cme_log_marginal_likelihood": cme_selection,
        "cme_cv_loss_from_grams": cme_selection,
        "BLOCK_BYTES": cme,
        "DEFAULT_GRID": cme,
        "_SELECTORS": cme,
    },
    deconditional: {
        "DeconditionalGPRegressor": deconditional,
        "_ESTIMATORS": deconditional,
        "_LOG_BOUNDS": deconditional,
        "_sqdist": _deconditional_likelihood,
        "_bag_sums": _deconditional_likelihood,
        "rbf": _deconditional_likelihood,
        "_chol": _deconditional_likelihood,
        "_logdet": _deconditional_likelihood,
    },
}


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_each_module_stays_well_under_450_lines(module):
    n = len(pathlib.Path(module.__file__).read_text().splitlines())
    assert n < 450, f"{module.__name__} has {n} lines"


@pytest.mark.parametrize("old", list(NAMES), ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_every_name_is_imported_from_the_old_module_and_is_its_homes_object(old):
    for name, home in NAMES[old].items():
        assert getattr(old, name) is getattr(home, name), name


def test_the_package_gives_the_same_objects():
    for name in ("ConditionalMeanEmbedding", "cme_log_marginal_likelihood", "cme_cv_loss_from_grams"):
        assert getattr(kx.embeddings, name) is getattr(cme, name), name
    assert kx.embeddings.DeconditionalGPRegressor is deconditional.DeconditionalGPRegressor


@pytest.mark.parametrize(
    "home,cls,mixin,methods",
    [
        (cme, cme.ConditionalMeanEmbedding, _cme_queries.EmbeddingQueries, ("weights", "embedding", "inner_product")),
        (
            deconditional,
            deconditional.DeconditionalGPRegressor,
            _deconditional_likelihood.DeconditionalLikelihood,
            ("elbo",),
        ),
    ],
    ids=["cme", "deconditional"],
)
def test_the_classes_keep_their_module_and_take_their_mixin_first(home, cls, mixin, methods):
    """Pickles name the class by its module, unchanged; the mix-in precedes scikit-learn's bases (whose
    ``__sklearn_tags__`` and ``get_params`` then still come from BaseEstimator)."""
    assert cls.__module__ == home.__name__ and cls.__mro__[1] is mixin
    assert all(m in vars(mixin) and m not in vars(cls) for m in methods)
    assert f"c{home.__name__}\n{cls.__name__}\n".encode() in pickle.dumps(cls(), protocol=2)


def test_predict_blocks_are_read_from_cme():
    """tests/test_reliability_surfaces.py shrinks ``cme.BLOCK_BYTES`` to check blocked predictions:
    ``expectation``, which reads it, must be defined in cme itself."""
    assert "expectation" in vars(cme.ConditionalMeanEmbedding) and "predict" in vars(cme.ConditionalMeanEmbedding)
    assert cme.ConditionalMeanEmbedding.expectation.__globals__ is vars(cme)


def test_the_api_pages_list_the_mixins_methods():
    """The class template lists inherited members for the classes named in ``mixin_classes``."""
    tree = ast.parse(DOCS_CONF.read_text())
    context = next(
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "autosummary_context"
    )
    for cls in ("kexplain.embeddings.ConditionalMeanEmbedding", "kexplain.embeddings.DeconditionalGPRegressor"):
        assert cls in context["mixin_classes"], cls


def test_fitted_models_round_trip_through_pickle():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    model = cme.ConditionalMeanEmbedding().fit(X, X[:, 0] ** 2)
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.inner_product(X[:3]), model.inner_product(X[:3]))
    bags = [rng.normal(loc=c, size=(5, 1)) for c in np.linspace(-1, 1, 6)]
    gp = deconditional.DeconditionalGPRegressor("variational", n_inducing=4, random_state=0, max_iter=5)
    gp = gp.fit(bags, np.linspace(0, 1, 6))
    again = pickle.loads(pickle.dumps(gp))
    assert again.elbo() == gp.elbo()
    np.testing.assert_array_equal(again.predict(X[:3, :1]), gp.predict(X[:3, :1]))

"""The splits of kexplain.dask.explain and kexplain.star.explainer: modules by idea, one import place each.

``dask/explain.py`` keeps the graph :func:`~kexplain.dask.explain_dask` builds; the lazy result
:class:`~kexplain.dask.DaskExplanation` lives in ``dask/result.py`` (since the second split: a
result pickled when it lived in ``dask/explain.py`` must still load), the tasks the workers run
(one ``explain`` call per row block, the readers of its Explanation) and the explainer's way to
them with ``client=`` in ``dask/_tasks.py``, the checks of the arguments and the blocks' random
streams in ``dask/_inputs.py``.

``star/explainer.py`` keeps :class:`~kexplain.star.StarExplainer`, :func:`~kexplain.star.explain_star`
and the cut of the solver's batches with interactions (``INTERACTION_BLOCK_BYTES``,
``_interaction_batch``); the sub-games (the terms grouped by feature set, ``_Group``, and their
game for a block of points, ``_SubsetGame``) live in ``star/_subgames.py``, the STAR view of the
model against the background in ``star/_model_view.py``.  A StarExplainer holds its ``_Group``
objects, so explainers pickled when ``_Group`` lived in ``star/explainer.py`` must still load.

Every name either module defined before its split, private ones included, is still imported from
it, the same object as in its new home.
"""

from __future__ import annotations

import base64
import functools
import importlib
import operator
import pathlib
import pickle
import zlib

import numpy as np
import pytest

pytest.importorskip("dask")

from kexplain.dask import _inputs, _memory, _tasks, result  # noqa: E402
from kexplain.star import StarExplainer, StarModel, _model_view, _subgames, adapters, model  # noqa: E402

dask_explain = importlib.import_module("kexplain.dask.explain")
star_explainer = importlib.import_module("kexplain.star.explainer")

#: old module -> {the module that holds them now: the names the old module defined (or imported
#: from its own folder) before the split}; dask/explain.py had 528 lines (417 before the second
#: split), star/explainer.py 493
WHERE = {
    dask_explain: {
        dask_explain: "explain_dask",
        result: "_dask DaskExplanation",
        _memory: "heap_reuse",
        _tasks: "_explain_block _values _base_values _interactions _flat_columns _frame _identity _share",
        _inputs: "_check_explainer _check_client _is_dask_array _is_dask_frame _check_random_state _spawn "
        "_block_seeds _first_seed",
    },
    star_explainer: {
        star_explainer: "DEFAULT_MAX_ROWS INTERACTION_BLOCK_BYTES StarExplainer explain_star _interaction_batch",
        importlib.import_module("kexplain.shapley"): "exact_shapley",  # test_star_explainer patches it here
        adapters: "as_star_model",
        model: "StarModel StarTerm evaluate_term",
        _subgames: "_Member _Group _group_by_subset _evaluate_members _SubsetGame _add_outputs",
        _model_view: "_star_model_for _is_bare_term",
    },
}
#: old module -> {name: the module that holds it now}
HOMES = {old: {n: home for home, names in homes.items() for n in names.split()} for old, homes in WHERE.items()}
MODULES = [dask_explain, result, _tasks, _inputs, star_explainer, _subgames, _model_view]

#: ``base64(zlib(pickle.dumps(explainer, protocol=4)))``, made before the split (its ``_Group``
#: objects named ``kexplain.star.explainer._Group``), of ``StarExplainer(StarModel(TERMS,
#: n_features=2), BACKGROUND, max_rows=4)``
OLD_PICKLE = (
    "eNqNVDtv1EAQti/neykJgkgBKiKqS4pTaFCEkIKIUEQsXPAoI2tt791aOT+03iWXIhIUFzhpuiw/hToVNRU9DT2/IGF27cslEAhT"
    "eHdm5/F9s7N+V/90WreMwO09OsqHJE57hSC8VymUK1h4hYZn5/qxWn2vDlUXnCSL6FDB0uXIytrWUS/MfhYhKE8Ktau6rAEt7fAa"
    "DeW5px1afUqE5LRQrjVWqMo0FHGW4jbLKSciQzydWNBkQIUwYKAVyHgo4rRQ4BTDOKRo9Dzvg3qJSY7UGFeopyShCmqjdSWPVMAW"
    "q4LspmtrJ7YEbVMry4aYp5kTLmKikYOTyiQ/wBQ5zyI06HxdtrZ6iCYyihGpXXgCc94DZ/RgrapAoZP6MzI1aMcp4g1pLhQsm5Q9"
    "P8w47SUSwRPOCdaY9zkNs7QQXIYCa7EuNNOoPDw2LdmyA6WZdRG3PdYOTiQOcs0Zav0NNflYns6B/Vh3YecMxXxcC0FOtlpWJQpV"
    "WKgg+ro/hfJgPpMil+Jcb5Q6QitkspL1V8oblAF0AhLuDXgm00ixh2xDo2OPptjm3Bp29elka926JD83q82TSj8p1++b09XgujVL"
    "7u/TeMBEcVWRsSlx542Rb5u/rzoV2/ago+fSL+eStWHZ348jwfw+zxL/AosJtBIy8nm2jzdWZ8/ZDjR9fZaXI2tBw9/W6oWBdXQD"
    "9bFrEWgmNAko1yq74Vo4ggScgIiQ6QlYwAHGKyfD2Ew0Whohk+lemfyua7k1M7S4rblzZkvBoUkuDozHH/Ttkn6rpPujpHuN1xfj"
    "Rc0j8KePIMD0WN6mLELk911710RaFAmwAbaCuTaLpyjtKUr7CsAs+yfUi8N3LaGT//H6PCNEYRF/RDQUNPLfkqGk6u/Bp/pJnH01"
    "wTLo/QJ+1d+w"
)
TERMS = [((0,), operator.itemgetter((slice(None), 0))), ((1, 0), functools.partial(np.prod, axis=1))]
BACKGROUND = np.array([[0.0, 1.0], [2.0, -1.0], [0.5, 0.5]])


def test_each_module_stays_well_under_450_lines():
    sizes = {m.__name__: len(pathlib.Path(m.__file__).read_text().splitlines()) for m in MODULES}
    assert max(sizes.values()) < 430, sizes


def test_every_old_name_is_still_imported_from_its_old_module_as_its_homes_object():
    missing = [f"{home.__name__}.{n}" for names in HOMES.values() for n, home in names.items() if n not in vars(home)]
    assert not missing, f"not defined in their new home: {missing}"
    other = [
        f"{m.__name__}.{n}"
        for m, names in HOMES.items()
        for n, home in names.items()
        if getattr(m, n, None) is not vars(home)[n]
    ]
    assert not other, f"the old module gives another object (or none): {other}"


def test_the_dask_package_exports_the_same_objects():
    import kexplain.dask as kd

    assert kd.explain_dask is dask_explain.explain_dask
    assert kd.DaskExplanation is dask_explain.DaskExplanation
    assert kd.DaskExplanation is result.DaskExplanation
    # its home moved; a pickle names the class by module and name, and the old path still resolves
    assert kd.DaskExplanation.__module__ == "kexplain.dask.result"
    assert getattr(dask_explain, kd.DaskExplanation.__qualname__) is kd.DaskExplanation


#: ``base64(zlib(pickle.dumps(result, protocol=2)))`` made before the second split (the class named
#: ``kexplain.dask.explain.DaskExplanation``), of ``DaskExplanation(np.array([[1.0, -2.0]]),
#: np.array([0.5]), None, [], feature_names=["a", "b"], output_names=["y"], game="functional",
#: output="predict of KernelExpansion")`` (arrays in place of the dask collections, which pickle
#: the same way, by their own classes)
OLD_RESULT = (
    "eJxVUctO3DAUzQxTKAZamL4ofU3pK9CSlh0LJDbtppGyyMqbUeQ4pokm4+Q4dsUskOgCKH/BJ/Qf+mGt4wmqei1Z93nOufZZn0/ESV2y"
    "QgYZayZBF5DPNvjS+pLpopIE3s4P9E7R9+mi53nfWWlEgwUuzbSeBQmvlAimptQFU4rNSKIEr2SjleGaYDBvIzKbV3Er9M6xyO1YJnhD"
    "hGwdgiXas9gpbjuO0jLLfSxfgMRYucRqjDU/7NnTv8CdDjLTs9pO3qV9O3F8gPWrn5fYiDH0wwWHdoh7URR9/WPNXaGncT+9ypfo0Lux"
    "37+ObrwzPMgt48MYjzQ2U7rSCmKNSLqNH+eD3Knfyq2kJzGeOknneJYPW9Dlf6DXR3jeYr2IMdJ4mdJVmy2kForx9k0bbEdu0bSs+KTB"
    "qzFe07V2DcG0USKRbGoZ34zx1nerMLzrHsgXDqwyuja669sZY9eVZ3jP6MA632weHyhpIY10nKzEnuOcjyKgWzaolcgKrkfV8SgUSorS"
    "/jyTje3HR7rxv+qkkJk4wafIpMFf2CeswA=="
)


def test_a_dask_explanation_pickled_before_the_second_split_loads():
    data = zlib.decompress(base64.b64decode(OLD_RESULT))
    assert b"ckexplain.dask.explain\nDaskExplanation\n" in data
    old = pickle.loads(data)
    assert type(old) is result.DaskExplanation
    np.testing.assert_array_equal(old.values, [[1.0, -2.0]], strict=True)
    assert (old.feature_names, old.output_names, old.game, old.npartitions) == (["a", "b"], ["y"], "functional", 0)
    assert repr(old) == "kexplain.dask.DaskExplanation(game='functional', values shape=(1, 2), 0 blocks)"
    # and one pickled now names the new home and loads the same
    assert b"kexplain.dask.result\n" in pickle.dumps(old, protocol=2)
    again = pickle.loads(pickle.dumps(old))
    assert type(again) is result.DaskExplanation and again.interactions is None


def test_the_worker_functions_resolve_by_their_module_and_name():
    """Dask pickles the task functions by reference: each one's ``__module__`` leads back to it."""
    for name in ("_explain_block", "_values", "_base_values", "_interactions", "_frame", "_identity"):
        fn = getattr(dask_explain, name)
        assert getattr(importlib.import_module(fn.__module__), fn.__qualname__) is fn


def test_the_star_package_exports_the_same_objects():
    import kexplain.star as ks

    assert ks.StarExplainer is star_explainer.StarExplainer
    assert ks.explain_star is star_explainer.explain_star
    assert ks.StarExplainer.__module__ == "kexplain.star.explainer"


def test_the_groups_class_path_resolves():
    """Pickles name a class by ``__module__`` and ``__qualname__``: both lead back to it."""
    for name in ("_Group", "_SubsetGame"):
        cls = getattr(star_explainer, name)
        assert getattr(importlib.import_module(cls.__module__), cls.__qualname__) is cls


def test_star_explainers_pickled_before_the_split_still_load():
    old = pickle.loads(zlib.decompress(base64.b64decode(OLD_PICKLE)))
    new = StarExplainer(StarModel(TERMS, n_features=2), BACKGROUND, max_rows=4)
    assert type(old) is StarExplainer
    assert [type(g) for g in old._groups] == [_subgames._Group] * 2
    for g, h in zip(old._groups, new._groups, strict=True):
        assert (g.feats, g.batch, g.per_coalition, g.chunks) == (h.feats, h.batch, h.per_coalition, h.chunks)
        np.testing.assert_array_equal(np.array(g.empty), np.array(h.empty), strict=True)
    X = np.array([[2.0, 1.0], [-1.0, 3.0]])
    got, ref = old.explain(X, interactions=True), new.explain(X, interactions=True)
    np.testing.assert_array_equal(got.values, ref.values, strict=True)
    np.testing.assert_array_equal(got.interactions, ref.interactions, strict=True)
    # the values the explainer gave before it was pickled (x0 + x0 * x1 over BACKGROUND)
    np.testing.assert_allclose(got.values, [[2.20833333, 1.54166667], [-4.375, 0.125]], rtol=1e-8)


def test_a_group_pickled_under_the_old_path_loads():
    """A pickle made now, its module name turned back into the old one, loads the same class."""
    explainer = StarExplainer(StarModel(TERMS, n_features=2), BACKGROUND, max_rows=4)
    data = pickle.dumps(explainer._groups[1], protocol=2)
    assert b"kexplain.star._subgames\n" in data
    data = data.replace(b"kexplain.star._subgames\n", b"kexplain.star.explainer\n")
    loaded = pickle.loads(data)
    assert type(loaded) is _subgames._Group
    assert loaded.feats == [0, 1] and loaded.chunks == explainer._groups[1].chunks

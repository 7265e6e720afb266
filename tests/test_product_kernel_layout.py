"""The split of kexplain.explainers.product_kernel: one class, its paths in sibling modules, one import place.

``ProductKernelExplainer`` stays in ``product_kernel`` (its constructor and public methods); it
inherits ``explain`` (the routing of a request to its path) from ``ExplainRouting`` in
``_product_kernel_explain`` and its paths from base classes in ``product_kernel_base`` (state,
tables, names, the Explanation of a result), ``product_kernel_posterior``, ``product_kernel_dense``,
``product_kernel_sparse`` and ``product_kernel_interactions``.  Every name the module defined before
the split is still imported from it, the class keeps its import path (pickles load, also those made
before the split) and every method it had.
"""

from __future__ import annotations

import ast
import base64
import pathlib
import pickle
import zlib

import numpy as np
import pytest

import kexplain as kx
from kexplain.explainers import (
    _product_kernel_explain,
    product_kernel,
    product_kernel_base,
    product_kernel_dense,
    product_kernel_interactions,
    product_kernel_posterior,
    product_kernel_sparse,
)

EXPLAINERS = pathlib.Path(product_kernel.__file__).parent
SIBLINGS = (
    _product_kernel_explain,
    product_kernel_base,
    product_kernel_posterior,
    product_kernel_dense,
    product_kernel_sparse,
    product_kernel_interactions,
)

#: the module-level names product_kernel.py defined before the split (1,180 lines)
OLD_NAMES = (
    "DEVICE_BLOCK_BYTES",
    "SUMMARISED_GAME",
    "VARIANCE_GAMES",
    "ProductKernelExplainer",
    "_efficiency_error",
    "_csr",
    "_given",
    "MAX_INTERACTION_SUBSET_FEATURES",
    "_ZeroGame",
)

#: the methods ProductKernelExplainer defined before the split
OLD_METHODS = (
    "__init__",
    "_init_sparse",
    "_build_tables",
    "n_features",
    "__repr__",
    "predict",
    "product_game",
    "player_names",
    "_names",
    "_label_names",
    "explain",
    "_check_X",
    "_explain_sparse",
    "_explain_variance",
    "_explain_any_order",
    "_banzhaf_from_factors",
    "_any_order_from_subsets",
    "_interaction_subset_game",
    "_covariance_solver",
    "_add_uncertainty",
    "_solve",
    "_solve_array",
    "_summary_info",
    "_to_explanation",
)


@pytest.mark.parametrize("path", sorted(EXPLAINERS.glob("*product_kernel*.py")), ids=lambda p: p.name)
def test_each_module_stays_under_the_project_bound(path):
    """The project check flags modules of 400 lines or more; the split leaves each under 380."""
    assert len(path.read_text().splitlines()) < 380, f"{path.name} has 380 lines or more"


def test_every_old_name_is_imported_from_product_kernel_and_is_the_same_object():
    for name in OLD_NAMES:
        obj = getattr(product_kernel, name)
        homes = [m for m in SIBLINGS if name in vars(m) and vars(m)[name] is obj]
        assert homes or name in vars(product_kernel), name
    assert product_kernel.VARIANCE_GAMES[product_kernel.SUMMARISED_GAME].endswith("(summarised background)")


def test_the_class_keeps_its_path_and_every_method():
    cls = kx.ProductKernelExplainer
    assert cls is kx.explainers.ProductKernelExplainer is product_kernel.ProductKernelExplainer
    assert (cls.__module__, cls.__qualname__) == ("kexplain.explainers.product_kernel", "ProductKernelExplainer")
    missing = [m for m in OLD_METHODS if not hasattr(cls, m)]
    assert not missing, missing
    # the public methods are the class's own, but ``explain``, which its base ExplainRouting defines
    # (the API page lists the inherited members too: the class is in docs/conf.py's mixin_classes)
    for name in ("__init__", "n_features", "__repr__", "predict", "product_game", "player_names"):
        assert name in vars(cls), name
    assert "explain" not in vars(cls) and cls.explain is _product_kernel_explain.ExplainRouting.explain
    assert cls.__mro__[1] is _product_kernel_explain.ExplainRouting
    assert cls.__mro__[2:5] == (
        product_kernel_interactions.AnyOrderInteractions,
        product_kernel_sparse.SparsePaths,
        product_kernel_dense.DensePath,
    )
    assert issubclass(cls, kx.Explainer)


def test_the_api_page_lists_the_inherited_explain():
    conf = (EXPLAINERS.parents[2] / "docs" / "conf.py").read_text()
    assert '"kexplain.ProductKernelExplainer",' in conf.split('"mixin_classes"')[1].split("]")[0]


def test_a_pickled_explainer_loads_as_the_same_class_with_the_same_values():
    rng = np.random.default_rng(0)
    em = kx.KernelExpansion(rng.normal(size=(5, 3)), rng.normal(size=5), kx.kernels.RBF(1.2), intercept=0.3)
    explainer = kx.ProductKernelExplainer(em, background=rng.normal(size=(4, 3)))
    blob = pickle.dumps(explainer)
    assert b"kexplain.explainers.product_kernel" in blob and b"ProductKernelExplainer" in blob
    loaded = pickle.loads(blob)
    assert type(loaded) is kx.ProductKernelExplainer
    X = rng.normal(size=(3, 3))
    a, b = explainer.explain(X), loaded.explain(X)
    assert np.array_equal(a.values, b.values) and np.array_equal(a.base_values, b.base_values)


#: ``base64(zlib(pickle.dumps(explainer, protocol=4)))`` under main before ``explain`` moved to its
#: base class, for ``explainer = kx.ProductKernelExplainer(em, background=B)`` with the ``em`` and
#: ``B`` of the test below
MAIN_PICKLE = (
    "eNq1GEtsG8d1d0mJEiXqZ30oGU7GjtNQtkRJ/sSxHcfRxxYSwUTiJKgTR10td5fcFZe71H5ESV0WCtokErAHCtkgdKuDggap"
    "gbSoG/STnhz00t5qtykqIDAaFPClJ6ZA0aCX9s3skiIlOb6kFHY0896b95s3M+/NavDdr3oo8nOOZMSlnMLJatz/L+pGPKdr"
    "gsWbbEbUVVFxnd4XPMAMGV+qELrvuINvuAU35oQ9StbUFHf6wsJ7N94Y/ken05DVBDy9vyqDAAwsilMNWVNdp73K04dUeTZW"
    "pB+sTvcgRtwwORNoOX3ZdQJXJy7vTGpRRDVtSgbPKaI7ffEr38pmLptTZNMSMLDsAa2k03qN1cUUa+Q43RDdhNPIEgAYrFrZ"
    "3HKc5TVdjGctxZQ5XedAWivgeU01TB3cAWKdBkLpOiFV8EjecWeoN91JOum+7V51YzP0DDPDvOVK/U6DYC7nRDyJST3lrq95"
    "+IBDP+0mEonn/ws/0sxQpptcn0RU3a98cdf/2y6QOa0gX9Rlns1yRsaVotJBLF46VBUOgyMOkxyrFWjvK5ChacKykTUkDhT1"
    "FHeCvAYu2YfzDA1mPb4+2eEp9IWvGPUp4RIxZDWtiKxmmTnLdNecZlk1RZ0Xc+Y+zOg3Casmj8Odi4RFA9BnDXfWlTo4pxUP"
    "fG7GfhyIOmPrk74VLWx1zY2HCix7AiMpkTMtXWRVLguzEk6rJ88fz4IzUrGlQZeD2AknOT6T1jVLFfZhHyBrDgJGqX1/lVWk"
    "nq2sZsWJRJGuHeZsXpTTEpickL6dcJp3to4UdpqSnCEqsBVB1fYst8QmFY3PsMllE7R9HtgxTqPvf6dv10aDTS4KMgSx0wRh"
    "rlhZFRt8gK2RnOJ4U9OJH1jDShqiyabBEa4Tre5IHCmKuBz30IbrhF8ivWlMt3M8qKzvWQOiymlUWV3Lk26zWl3SGdoJVU+c"
    "bgjrJBcn+8+A+OYUeQUEt/GWYWpZ2IRJS1YEkCCZTpS11JzMZyDY2EmCf4GMMHpCa6eo1eC7Qrt/EhyoYayLaRl2MuzeyOQL"
    "r0zJcA6YvETONax10LJkwXWOPpl8UhwdO3Nq+Ix45qnhU6Mnzw4n+af44dPc6eTomZMnkwJsZyeUW2ZTlsq7ziFfhKJZgqdX"
    "bR+MgL2aEQmx6Z14MSnkRFhskimrbOWUaJqE0/JlPHiTRFVwhoK/gzNtzwcoip4YCFLUe5RNzVeD6nWAF4KFhkKjTddAga4Q"
    "KjQVmgthgS60CIzdsgKUdjhD8HqbDbCVCFDtwd1qMwM7QTvPVHp2gx1OMR/SFPURXYEVWh9I27SHNvIA2vAuujYhUGg3Qzu0"
    "drCeYooq0rNvFzrqaBp208z+vNApBO1Wu1OgU8zTABOYQlfdnJY9c84WDtiU3WF32gdSgf4qZaG7bl7Xnnl9hR4sye5JMTuz"
    "7O6VBmgxvMvuWQGIp4cTtbuEhpUu4NvlnLMDWF7dvMjX6Ww3fgi++4j5hrSOPEDryNdr7dyq4x3aw/tXhd46iqY9FD8u9NVR"
    "hPdQhApRodFus6NEftND1vtyoZNo3VdrTaH/ITKOFaJYwhKzVOuDfrJq0VpOxCu03Wv3EUywHoP3Eh/gPU8dd6YfIvWoJ7VG"
    "zwG73R6wB1bCsOaNGbK6K20Ax1AGZIaJ/CheD1jp3lSASHrc+cD5dZF21u32lyg3du1nsPEXr2eHUG4ILcyiC8iwsqyM8tdh"
    "LM+iCf76AnSGUHYW4YSP/e48klWULSCOUAyh+VmU0nQkLor6MvJOeJRFsaRsonlg5x/paH4wHg4j+M3NTfBzc5iJKYlI4Zbh"
    "aEdaCp3DR925Of8KMbkknNQedg7F/ON/CKmsBDLxxYD7ijZ43meaB56xnAbpg+HhBxEHYnOiPkygGIb8WxL4qaKB8pLoKYHJ"
    "PRwZGnAtIc70TSKzK8q/jNGejXD7mSKKzc096JqbmxuMezMAvQwZM1HIwOkGsT6vIYlTFkXQF6QS9ilZN0ykaOkTMWIc4lTB"
    "01A0zHOI82U/YSA/+UYyGCODRQpYB9xSO6hBtOShJLCLcK/HI1POYicMDhEpIsdLFYoT34kJIycGK5Se4uTiQcllJGhWEtKJ"
    "NPat5x3MgEgAR4LJl3E4YHbeqhH2WAnCnpiDjUMcz1uQNXM4e8BQcAnceL7XgdMThr+0BjqGxhXtOiz8uVnoezGJ44BAvGCC"
    "FUWQc5ty2tIsMJIzjPNI1UwJawrhZUBqAIYJRGscC7LHPq/LpimqnhN208f8pRxC9ZEFXsdqIkgjID8Cky9hc2HnIG3RY28g"
    "3VI9CaAclqfpgqifJ+bX+RUDKi4F31s5ZGoESCZgVWAg68jPs/xAvCrCrlJJDAO6sv0WOcUSKyZhLVOyKuMoXULDEA4XLqBR"
    "4CMrBtmyCS5BrJZVQiaLBsSCoRH+pgQbgENQISnAXRVFwQDvELdilXBcaXnVM3dubhFvPpiAF6FSIQqez2Cb4tqnupiy4ekU"
    "WxyMA/PYIEzlNQM7w0BZC9wI/zkE+puSbzzy8j3Yg5gFVE4z9Fq1QJthpisnognpWINXlTiMmoOyS8zmTEjcGnROTYsuxtMc"
    "4CYg/6IX4cvDl4DvKnyQxNEa5O74hIEuS7oKQBgBUs3AOO4GxjEuAJHrOo2eHUAKkmg8RYJvHug5aOgsfAswwBMYPJeGvJde"
    "AiWc8yN5Tc+M5M0R4+wwOQ+Gc5kRQ+dHKkfJiH+UjLCVItvLFnENGfFPSLLWxp7xlb8xE3+Ey2CVKn+Lau9w0m9Mr46vLqwd"
    "3u7rd5fuBrthZK69WAxuN4dXJ7ZbWovM+pmi8KfwwJ3wwHZTeI1bD60x5QDVGqnF3A+3OrHieNEsnr0bPvRZ+NDq5L0HgU6t"
    "x5346uR2pHP18r1IV3Fs/ZpzrUwdbBj9Ejdr9L3O3uLCRtSNlqm25j7SrI1vRw+uTRbp4lgxuP7cdkfn2vi9noHSiY1X3VfL"
    "VDDSR5oivd0Dc0uHSy8W8+5rReZe/yOlhRvRTWBFd54kTXF8++gTN+mbYzeDHzx3i3k/UZws0aUxIDtdatq4UrwCzIsvbjSC"
    "LHo72o95lY5uhvYTXlrYeN19/f8nvtwMTP8Vprr6Kv5oaR4lDSjQe7A0tZFxM2UqHBklDcgbeHQreOP45nEs6ghpihPbjxwG"
    "GczGdHG6Rp9A5yXaa4vYt6Xxkl66tBkujt975LGtqRuZTWBM92Aa3JYYTDNRCpVCm6GtsS0D9E/ePP3ByvvP3Jq4tfDJkU+4"
    "T7tu2Z+dmrr72NTd6BQmvAFfOYBn399RK9A5ShpQCzPcDIH07oESt3X4hrhl/FC5232seHk7PgKBkyyd2pC3jmyoW9zNzju9"
    "x+52H7/TfbwcwizawdwvA9gbUaq1a/WKO0m5g4MmlDjkAYdlc1CBcmko5lynY/cNjKtVUo1j7KN77uf6TUWIUzKuC13ppJVI"
    "JLAUqLW6qsUXi+8AkzNxwSWNF7AK0oU9G7GVZRcsTqnI3Y1uZ1lOhQuGPEoZQFHARR6byQtiirMUE4NwDc3WjcMsmwVlPe2e"
    "gdqXFTQe9zuwE6BiNPBLBKbsY2vqR1yJe/PIgwSQphUtySmeXOkAmNcMJHI2p+m1L1S4hjSst9y3ro46jYoGx7+B9YyYnJ4W"
    "TS1HdCdL0KBqaVlx15wmVcstmxKUqGtOSxI/CRhQHvMZN2E5LTynsryWzYF7AR005DTWBwTEiSj8OY1esrf3fcR7sGFmgiZ5"
    "JHn24/GfRP9g/fVi4ae/3xob+vzif77/g49/d/vzi5VHkS++N/fsj/5+/7Yt/+b+K2b59j9/8Evqz+/9+3bti5OVxJW1pmpZ"
    "mVO8h4oE3A84l4PqvPpAEfGf+wgFftvoqADAEVYWLifXoeCG8F462sij1SJA8Xujgv3Na4ucLnMqj/k3sVl5CWfB0GfY1775"
    "lyCGze/H1Hu9ir5Cfn+5uPs/mdoGu0PkTVHwAtWdvv2LC7/dSpXPWcn4/wCyLvt1"
)
#: ``explainer.explain(X_MAIN)`` under main: values, then base values (float repr, exact)
X_MAIN = np.array([[0.3, -0.7], [1.1, 0.4]])
VALUES_MAIN = [[-0.23591365520158625, -0.9470294883498154], [-0.3844215612954195, -0.23643299159046288]]
BASE_MAIN = [-0.06734810033862082, -0.06734810033862082]


def test_an_explainer_pickled_under_main_loads_and_explains_the_same_numbers():
    loaded = pickle.loads(zlib.decompress(base64.b64decode(MAIN_PICKLE)))
    assert type(loaded) is kx.ProductKernelExplainer and loaded.game == "interventional"
    ex = loaded.explain(X_MAIN)
    assert ex.values.tolist() == VALUES_MAIN and ex.base_values.tolist() == BASE_MAIN
    # and the same numbers as an explainer built now
    em = kx.KernelExpansion(np.array([[0.0, 1.0], [1.0, -1.0]]), [0.5, -2.0], kx.kernels.RBF(1.5), intercept=0.25)
    fresh = kx.ProductKernelExplainer(em, background=np.array([[0.0, 0.0], [1.0, 2.0], [-1.0, 0.5]]))
    assert np.array_equal(fresh.explain(X_MAIN).values, ex.values)


def _relative_imports(module) -> set[str]:
    tree = ast.parse(pathlib.Path(module.__file__).read_text())
    return {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level == 1}


def test_the_paths_sit_below_the_class():
    """The sibling modules never import product_kernel: the class imports its paths, not the reverse."""
    for module in SIBLINGS:
        assert "product_kernel" not in _relative_imports(module), module.__name__
    assert _relative_imports(product_kernel_base).isdisjoint(
        {
            "_product_kernel_explain",
            "product_kernel_posterior",
            "product_kernel_dense",
            "product_kernel_sparse",
            "product_kernel_interactions",
        }
    )

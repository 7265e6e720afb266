"""The layout of the local result: ``Explanation`` is assembled in ``kexplain/explanation.py`` from
mix-ins, one private module per idea (``_explanation_fields``, ``_explanation_rows``,
``_explanation_uncertainty``, ``_explanation_draws``, ``_explanation_convert``).

What the split must not change: every name ``kexplain.explanation`` had is importable from it,
pickles name ``kexplain.explanation`` only (so they load in versions before and after the split),
selections and stacks build the classes they built, and the memory budgets of the draws are still
settings of ``kexplain.explanation``.  The numbers themselves are checked by tests/test_explanation.py.
"""

from __future__ import annotations

import ast
import pathlib
import pickle
import pickletools

import numpy as np
import pytest

import kexplain as kx
import kexplain.explanation as kexp

SRC = pathlib.Path(kx.__file__).parent
MIXINS = [
    "_explanation_fields",
    "_explanation_rows",
    "_explanation_uncertainty",
    "_explanation_draws",
    "_explanation_convert",
]

#: the names kexplain.explanation defined before it was split (all still importable from it)
NAMES = [
    "Explanation",
    "ExplanationInfo",
    "PROMOTED_INFO_KEYS",
    "BASE_COLUMN",
    "SAMPLE_BLOCK_BYTES",
    "SAMPLE_LIST_BYTES",
    "_EXPLANATION_OVERHEAD_BYTES",
    "_check_covariance",
    "_symmetric_root",
]


def _explanation(n: int = 3) -> kx.Explanation:
    rng = np.random.default_rng(0)
    A = rng.normal(size=(n, 2, 2))
    return kx.Explanation(
        rng.normal(size=(n, 2)),
        0.5,
        data=rng.normal(size=(n, 2)),
        feature_names=["a", "b"],
        game="interventional",
        info={"route": "engine", "per_row": np.arange(n)},
        covariance=A @ A.transpose(0, 2, 1),
        v_full=rng.normal(size=n),
        efficiency_error=1e-15,
    )


@pytest.mark.parametrize("name", NAMES)
def test_every_name_is_importable_from_kexplain_explanation(name):
    assert hasattr(kexp, name), f"kexplain.explanation.{name} is gone"


def test_the_classes_keep_their_paths():
    assert kx.Explanation is kexp.Explanation and kx.Explanation.__module__ == "kexplain.explanation"
    assert kexp.ExplanationInfo.__module__ == "kexplain.explanation"


def test_pickles_name_kexplain_explanation_only():
    ex = _explanation()
    blob = pickle.dumps(ex)
    modules = {arg for op, arg, _ in pickletools.genops(blob) if isinstance(arg, str) and arg.startswith("kexplain")}
    assert modules == {"kexplain.explanation"}, modules
    back = pickle.loads(blob)
    assert type(back) is kx.Explanation and type(back.info) is kexp.ExplanationInfo and back.info._owner is back
    for attr in ("values", "base_values", "data", "covariance", "v_full"):
        np.testing.assert_array_equal(getattr(back, attr), getattr(ex, attr))
    assert dict(back.info) == {"route": "engine", "per_row": back.info["per_row"]}
    assert back.efficiency_error == ex.efficiency_error and back.feature_names == ex.feature_names


def test_selections_and_stacks_build_the_classes_they_built():
    class Mine(kx.Explanation):
        pass

    mine = Mine(np.ones((2, 2)), 0.0)
    # a selection is a plain Explanation (InteractionExplanation wraps it in its own type) ...
    assert type(mine[0]) is kx.Explanation and type(mine[:, "x1"]) is kx.Explanation
    # ... a stack is of the class it is called on, and takes any Explanation
    assert type(Mine.concatenate([mine, kx.Explanation(np.zeros((1, 2)), 1.0)])) is Mine
    with pytest.raises(TypeError, match="non-empty sequence of kexplain.Explanation"):
        kx.Explanation.concatenate([mine, "not one"])
    em = kx.KernelExpansion(np.zeros((2, 3)), [1.0, -0.5], kx.kernels.RBF(1.0))
    iex = kx.ProductKernelExplainer(em).explain(np.ones((2, 3)), interactions={"index": "k-SII", "max_order": 2})
    assert type(iex[0]) is kx.InteractionExplanation
    assert type(kx.Explanation.__getitem__(iex, 0)) is kx.Explanation


def test_the_draws_budgets_are_settings_of_kexplain_explanation(monkeypatch):
    ex = _explanation()
    monkeypatch.setattr(kexp, "SAMPLE_LIST_BYTES", 1)
    with pytest.raises(ValueError, match=r"kexplain\.explanation\.SAMPLE_LIST_BYTES"):
        ex.sample(1)
    monkeypatch.undo()
    assert len(ex.sample(1)) == 1
    # SAMPLE_BLOCK_BYTES: tests/test_reliability_numerics.py patches it here and checks the draws


def _kexplain_imports(path: pathlib.Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            out.add(node.module or "")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("kexplain"):
            out.add((node.module or "").removeprefix("kexplain."))
    return out


@pytest.mark.parametrize("module", MIXINS)
def test_the_mixin_modules_are_below_explanation_and_small(module):
    path = SRC / f"{module}.py"
    imports = _kexplain_imports(path)
    # they hold parts of Explanation: none imports the class assembled from them, nor a result above it
    assert not imports & {"explanation", "interaction_explanation", "attribution"}, sorted(imports)
    # and each stands on the fields alone: the mix-ins do not lean on one another
    others = {m for m in imports if m.startswith("_explanation")} - {"_explanation_fields"}
    assert not others, f"{module} imports another mix-in: {sorted(others)}"
    assert len(path.read_text().splitlines()) < 400, f"{module}.py has 400 lines or more"


def test_explanation_module_stays_under_its_bound():
    # 1,063 lines before the first split, 467 before the draws moved out; what is left: construction
    assert len((SRC / "explanation.py").read_text().splitlines()) < 380

"""No folder imports another folder's private names (CONTRIBUTING, "Layout and the layering rule").

Every ``import`` and ``from ... import`` in ``src/kexplain`` (lazy ones inside functions included)
is resolved to an absolute module.  When the importing module and the imported one live in
different folders (the package root counts as one folder), neither a private module on the path
(``kexplain.shapley._array_api``) nor a private name (``_numba_kernel``) may appear.  What one
folder shares with another is given a public name in its owner folder (``kexplain.shapley.routes``,
``kexplain.shapley.product.leave_one_out_integrals``, ``kexplain.stats.runner``,
``kexplain.embeddings.ridge``).

The exceptions are the shared private modules at the package root listed in ``SHARED``, each with
the reason it is shared and still private; names imported from them must be public.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

SRC = pathlib.Path(__file__).resolve().parents[1] / "src" / "kexplain"

#: private modules at the package root that every folder may import, and why each is private
SHARED = {
    "kexplain._validation": "the one array entry (check_data) and the shared input checks every public "
    "boundary calls; private so that users do not take the checks for API",
    "kexplain._params": "option constraints (Integer, Real, Boolean, Options) the boundaries declare; "
    "an implementation detail of the messages, not API",
    "kexplain._optional": "lazy imports of optional dependencies with the extra to install, and the cached "
    "loader of compiled numba code (compiled_or_none); used by every folder that touches one",
    "kexplain._files": "atomic writes of output files, shared by the CLI and the report",
    "kexplain._typing": "type aliases of the annotations (RandomStateLike), one per idea; not API",
    "kexplain._deprecation": "renamed keywords (the old spelling with a FutureWarning), shared by every "
    "explainer and estimator that renamed an option; not API",
    "kexplain._exp_numba": "the vectorised float64 exponential of the kernels' factors and the statistics' "
    "pair factors (numba); one implementation for both folders, not API",
    "kexplain._malloc": "glibc's malloc thresholds, shared by the engine's heap reuse (shapley) and Dask "
    "workers' settings (dask); process tuning, not API",
}


def _private(part: str) -> bool:
    return part.startswith("_") and not part.startswith("__")


def _module_parts(path: pathlib.Path, root: pathlib.Path) -> list[str]:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def _folder(parts: list[str], root: pathlib.Path) -> str:
    """The folder a module belongs to: its subpackage under kexplain, or "" for the package root."""
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and (root / parts[1]).is_dir()) else ""


def _is_module(parts: list[str], root: pathlib.Path) -> bool:
    p = root.parent.joinpath(*parts)
    return p.is_dir() or p.with_suffix(".py").exists()


def _imports(path: pathlib.Path, root: pathlib.Path):
    """(line, absolute module parts, names imported from it) for every kexplain import in the file."""
    mod = _module_parts(path, root)
    package = mod if path.name == "__init__.py" else mod[:-1]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = base + (node.module.split(".") if node.module else [])
            else:
                target = (node.module or "").split(".")
            if target[0] != "kexplain":
                continue
            names = []
            for alias in node.names:
                if _is_module(target + [alias.name], root):  # `from . import stats` imports a module
                    yield node.lineno, target + [alias.name], []
                else:
                    names.append(alias.name)
            if names:
                yield node.lineno, target, names
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "kexplain":
                    yield node.lineno, alias.name.split("."), []


def cross_folder_private_imports(root: pathlib.Path = SRC) -> list[str]:
    """Every import of another folder's private module or name, as ``file:line: what``."""
    bad = []
    for path in sorted(root.rglob("*.py")):
        here = _folder(_module_parts(path, root), root)
        for line, target, names in _imports(path, root):
            if _folder(target, root) == here:
                continue
            dotted = ".".join(target)
            where = f"{path.relative_to(root)}:{line}"
            if any(_private(p) for p in target[1:]) and dotted not in SHARED:
                bad.append(f"{where}: private module {dotted}")
            bad.extend(f"{where}: private name {dotted}.{n}" for n in names if _private(n))
    return bad


def test_no_folder_imports_another_folders_private_names():
    bad = cross_folder_private_imports()
    assert not bad, "cross-folder private imports:\n" + "\n".join(bad)


@pytest.mark.parametrize("module", sorted(SHARED))
def test_shared_private_modules_exist_and_say_why(module):
    assert (SRC.parent / (module.replace(".", "/") + ".py")).exists(), f"{module} is gone: drop it from SHARED"
    assert len(SHARED[module]) > 40


def test_the_check_finds_a_private_import(tmp_path):
    # the check itself can fail: a fake package with each kind of offence
    pkg = tmp_path / "kexplain"
    (pkg / "a").mkdir(parents=True)
    (pkg / "b").mkdir()
    for f in ("__init__.py", "a/__init__.py", "b/__init__.py", "a/_hidden.py", "a/public.py", "_validation.py"):
        (pkg / f).write_text("")
    (pkg / "b" / "user.py").write_text(
        "from ..a._hidden import x\n"
        "from ..a.public import _secret, fine\n"
        "import kexplain.a._hidden\n"
        "from .._validation import check_data, _helper\n"
        "from ..a import public\n"
        "def lazy():\n"
        "    from kexplain.a import _hidden\n"
    )
    (pkg / "a" / "same.py").write_text("from ._hidden import x\nfrom .public import _ok_inside\n")
    bad = cross_folder_private_imports(pkg)
    assert [b.split(": ", 1)[1] for b in bad] == [
        "private module kexplain.a._hidden",
        "private name kexplain.a.public._secret",
        "private module kexplain.a._hidden",
        "private name kexplain._validation._helper",
        "private module kexplain.a._hidden",
    ]


# -- one validation entry --------------------------------------------------------------------------
#: validators folded into kexplain._validation.check_data (issue 22); none may come back elsewhere
FOLDED_VALIDATORS = ("check_array_arg", "check_dense_2d", "refuse_sparse", "check_magnitude", "check_array")


def test_array_validators_are_folded_into_check_data():
    again = []
    for path in sorted(SRC.rglob("*.py")):
        if path.name == "_validation.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in FOLDED_VALIDATORS:
                again.append(f"{path.relative_to(SRC)}:{node.lineno} defines {node.name}")
    assert not again, "array validators beside check_data:\n" + "\n".join(again)


def test_the_magnitude_bound_is_defined_once():
    # 1e150: past it squared distances overflow float64 (kexplain._validation.MAGNITUDE_LIMIT)
    literal = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, float) and node.value == 1e150:
                literal.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert len(literal) == 1 and literal[0].startswith("_validation.py:"), literal

"""numpydoc validation of every public function, class and method (as scikit-learn's maint_tools).

The public objects are the names in the ``__all__`` of the modules the API reference is written
from (``API_MODULES`` in ``docs/conf.py``) and of :mod:`kexplain.dask`, with the public methods and
properties each class defines.  ``numpydoc.validate.validate`` checks each against the checks in
``CHECKS``: every parameter documented with a type and a description, a Returns (or Yields)
section with a description, sections in numpydoc order, one summary line.  Capitalisation and
verb-form checks (SS02, SS05, PR08, PR09, RT04, RT05), See Also descriptions (SA01 to SA04),
the Extended Summary (ES01) and Examples on methods (EX01) are not part of ``CHECKS``.

``docstring_allowlist.txt`` lists the (object, check) pairs that still fail: it may only shrink.
The test fails for a failure not in it, and for a line in it that passes now (delete the line).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

numpydoc_validate = pytest.importorskip("numpydoc.validate", reason="the dev and docs extras install numpydoc")

ROOT = Path(__file__).resolve().parents[1]
ALLOWLIST = Path(__file__).with_name("docstring_allowlist.txt")

#: the numpydoc checks the public docstrings must pass
CHECKS = frozenset(
    {
        "GL02",  # closing quotes on a line of their own
        "GL03",  # no double blank lines
        "GL06",  # unknown section
        "GL07",  # sections in the wrong order
        "GL08",  # no docstring
        "SS01",  # no summary
        "SS06",  # summary on one line
        "PR01",  # parameter not documented
        "PR02",  # documented parameter that does not exist
        "PR03",  # parameters documented in another order than the signature's
        "PR04",  # parameter without a type
        "PR06",  # "boolean"/"integer"/"string" instead of bool/int/str
        "PR07",  # parameter without a description
        "PR10",  # "x:int" without the space before the colon
        "RT01",  # no Returns section
        "RT02",  # Returns' first line is the type alone
        "RT03",  # return value without a description
        "YD01",  # no Yields section
    }
)


def _modules() -> list[str]:
    """The modules of the API reference (docs/conf.py's API_MODULES), then kexplain.dask."""
    tree = ast.parse((ROOT / "docs" / "conf.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "API_MODULES" for t in node.targets):
            return [entry[0] for entry in ast.literal_eval(node.value)] + ["kexplain.dask"]
    raise AssertionError("docs/conf.py no longer defines API_MODULES")


def public_objects() -> Iterator[str]:
    """Import paths of every public function and class and of the public methods classes define."""
    seen: set[int] = set()
    for name in _modules():
        try:
            module = importlib.import_module(name)
        except ImportError:  # an optional extra is missing (kexplain.dask without dask)
            continue
        for attr in getattr(module, "__all__", []):
            obj = getattr(module, attr)
            if id(obj) in seen or not callable(obj):
                continue
            seen.add(id(obj))
            path = f"{name}.{attr}"
            yield path
            if inspect.isclass(obj):
                # a class assembled from mix-ins of kexplain's private modules (Explanation,
                # OAKRegressor) defines their methods as its own: they are checked under its name
                # (a subclass of such a class, InteractionExplanation, inherits them: not its own)
                inherited = {k for base in obj.__mro__[1:] if not _private_mixin(base) for k in base.__mro__}
                own = [k for k in obj.__mro__ if k is obj or (_private_mixin(k) and k not in inherited)]
                done: set[str] = set()
                for klass in own:
                    for member, value in vars(klass).items():
                        if member.startswith("_") or member in done:
                            continue
                        done.add(member)
                        if inspect.isfunction(value) or isinstance(value, (classmethod, staticmethod, property)):
                            yield f"{path}.{member}"


def _private_mixin(klass: type) -> bool:
    """Whether ``klass`` is defined in a private module of kexplain (a part of the class's code)."""
    parts = klass.__module__.split(".")
    return parts[0] == "kexplain" and any(p.startswith("_") and not p.startswith("__") for p in parts[1:])


def failures() -> set[tuple[str, str]]:
    """The (object, check) pairs of CHECKS that fail today."""
    out = set()
    for path in public_objects():
        for code, _message in numpydoc_validate.validate(path)["errors"]:
            if code in CHECKS:
                out.add((path, code))
    return out


def allowed() -> set[tuple[str, str]]:
    pairs = set()
    for line in ALLOWLIST.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            path, code = line.split()
            pairs.add((path, code))
    return pairs


def test_public_objects_are_found():
    paths = list(public_objects())
    assert len(paths) > 300
    assert "kexplain.ProductKernelExplainer.explain" in paths and "kexplain.stats.mmd_shapley" in paths


@pytest.mark.slow  # about 10 s: every public docstring is parsed
def test_public_docstrings_pass_numpydoc_validation():
    failing, allow = failures(), allowed()
    new = sorted(failing - allow)
    fixed = sorted(allow - failing)
    messages = []
    if new:
        details = []
        for path, code in new:
            errors = dict(numpydoc_validate.validate(path)["errors"])
            details.append(f"  {path} {code}: {errors[code]}")
        messages.append("numpydoc validation fails (fix the docstring):\n" + "\n".join(details))
    if fixed:
        messages.append(
            f"these pairs pass now: delete them from {ALLOWLIST.name}:\n" + "\n".join(f"  {p} {c}" for p, c in fixed)
        )
    assert not messages, "\n".join(messages)


def test_every_public_name_is_mentioned_in_a_page():
    """A name in an ``__all__`` is one users call: a page of the documentation says what it is for."""
    pages = [p for p in (ROOT / "docs").rglob("*") if p.suffix in (".rst", ".md")]
    pages = [p for p in pages if not {"_build", "api", "auto_examples"} & set(p.relative_to(ROOT / "docs").parts)]
    text = "\n".join(p.read_text() for p in pages) + (ROOT / "CONTRIBUTING.md").read_text()
    missing = []
    for name in _modules():
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        for attr in getattr(module, "__all__", []):
            if not attr.startswith("__") and not re.search(rf"\b{re.escape(attr)}\b", text):
                missing.append(f"{name}.{attr}")
    assert not missing, f"public names in no page of docs/ (document them, or drop them from __all__): {missing}"


def test_the_cli_package_exports_its_entry_point_only():
    import kexplain.cli

    assert kexplain.cli.__all__ == ["main"]


def test_allowlist_names_only_checks_that_are_run():
    assert {code for _, code in allowed()} <= CHECKS


if __name__ == "__main__":  # print the failing pairs in the allow-list's format (after a merge, to compare)
    for pair in sorted(failures()):
        print(*pair)

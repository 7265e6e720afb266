"""The gallery examples follow the convention of CONTRIBUTING.md ("How to write an example").

What runs where: the structure checks below run in the suite (they parse every example, fast);
CI *runs* every example at its quick size through ``make docs-quick`` (sphinx-gallery executes the
whole gallery with ``KEXPLAIN_QUICK=1``), so the suite does not run them a second time.
``test_example_runs_quick`` runs them in subprocesses, one at a time, when
``KEXPLAIN_TEST_EXAMPLES=1`` is set (about 3.5 CPU minutes for all of them, each in a fresh
interpreter).
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "examples"
EXAMPLES = sorted(p for p in EXAMPLES_DIR.glob("*.py") if not p.name.startswith("_"))
IDS = [p.stem for p in EXAMPLES]


def _source(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_there_are_examples() -> None:
    assert len(EXAMPLES) >= 20
    assert (EXAMPLES_DIR / "README.txt").is_file()


@pytest.mark.parametrize("path", EXAMPLES, ids=IDS)
def test_example_compiles_with_a_titled_docstring(path: Path) -> None:
    tree = ast.parse(_source(path), filename=str(path))
    compile(tree, str(path), "exec")
    doc = ast.get_docstring(tree, clean=False)
    assert doc, f"{path.name}: no module docstring (sphinx-gallery takes the page title from it)"
    lines = doc.strip("\n").splitlines()
    assert len(lines) >= 3, f"{path.name}: the docstring must be a title, its underline and a paragraph"
    title, underline = lines[0], lines[1]
    assert re.fullmatch(r"=+", underline), f"{path.name}: the title's underline must be '='"
    assert len(underline) >= len(title), f"{path.name}: the title's underline is shorter than the title"


@pytest.mark.parametrize("path", EXAMPLES, ids=IDS)
def test_example_runs_under_sphinx_gallery(path: Path) -> None:
    """sphinx-gallery runs the file top to bottom without its docstring and with sphinx-build's argv."""
    src = _source(path)
    tree = ast.parse(src)
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    assert "__doc__" not in names, f"{path.name}: __doc__ is None under sphinx-gallery"
    calls = {n.func.attr for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)}
    assert "parse_args" not in calls, f"{path.name}: use parse_known_args (sphinx-build's argv reaches the example)"
    # the work is module-level code in text-and-code cells, not hidden in a main() behind __main__
    assert src.count("\n# %%") >= 2, f"{path.name}: explain the steps in '# %%' text cells"
    guards = [
        n
        for n in tree.body
        if isinstance(n, ast.If) and isinstance(n.test, ast.Compare) and ast.unparse(n.test.left) == "__name__"
    ]
    assert not guards, f"{path.name}: no `if __name__ == '__main__'` block, the gallery renders module-level code"


@pytest.mark.parametrize("path", EXAMPLES, ids=IDS)
def test_example_has_the_three_sizes_and_a_figure(path: Path) -> None:
    src = _source(path)
    assert "KEXPLAIN_QUICK" in src, f"{path.name}: honour KEXPLAIN_QUICK=1 (CI's size)"
    assert "--quick" in src, f"{path.name}: offer --quick on the command line"
    assert "plt.show()" in src, f"{path.name}: every example shows at least one figure (end its cell with plt.show())"
    # a figure closed inside its cell never reaches the gallery's scraper
    assert "plt.close(" not in src, f"{path.name}: do not close figures, sphinx-gallery collects open ones"


RUN_EXAMPLES = os.environ.get("KEXPLAIN_TEST_EXAMPLES", "0") not in ("", "0")

_RUNNER = """
import runpy, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
sys.argv = [sys.argv[1], "-b", "html", "-W"]  # what sphinx-build's argv may look like
runpy.run_path(sys.argv[0], run_name="__main__")
assert plt.get_fignums(), "no figure open at the end"
print("FIGURES", len(plt.get_fignums()))
"""


@pytest.mark.slow
@pytest.mark.skipif(not RUN_EXAMPLES, reason="CI runs the examples in make docs-quick; KEXPLAIN_TEST_EXAMPLES=1 here")
@pytest.mark.parametrize("path", EXAMPLES, ids=IDS)
def test_example_runs_quick(path: Path, tmp_path: Path) -> None:
    env = {**os.environ, "KEXPLAIN_QUICK": "1", "MPLBACKEND": "Agg"}
    env.pop("KEXPLAIN_FULL", None)
    src_dir = str(Path(__file__).resolve().parent.parent / "src")
    env["PYTHONPATH"] = os.pathsep.join([src_dir, env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", _RUNNER, str(path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    assert "FIGURES" in done.stdout

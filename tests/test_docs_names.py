"""The prose that tells a reader where code lives names things that exist.

docs/design.md and CONTRIBUTING.md (and the other pages of docs/) name modules, functions and
files; modules get split and renamed, and a page that still sends a newcomer to the old place is
worse than none. Every dotted name ``kexplain.x.y`` (or ``kx.x.y``) on these pages must import,
every backticked path ending in ``.py`` must be a file, and every file of the layout blocks of
design.md and CONTRIBUTING.md must be in the folder the block puts it in.
"""

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "src" / "kexplain"
PAGES = ("docs/design.md", "CONTRIBUTING.md")
# every page of the site is checked for dotted names and backticked paths too
_OTHERS = sorted(
    str(p.relative_to(ROOT))
    for pattern in ("docs/*.md", "docs/*.rst", "docs/capabilities/*.rst")
    for p in ROOT.glob(pattern)
    if p.name != "contributing.md"  # it includes CONTRIBUTING.md
)
ALL_PAGES = tuple(dict.fromkeys(PAGES + tuple(_OTHERS)))

# Names the prose uses on purpose for no file: a placeholder (CONTRIBUTING's examples/x.py) and a
# module of the past that design.md's record of changes names (report.py became report/).
PLACEHOLDERS = {"examples/x.py", "report.py"}

DOTTED = re.compile(r"(?<![\w.])(?:kexplain|kx)(?:\.[A-Za-z_]\w*)+")
BACKTICKED = re.compile(r"`([^`\n]+)`")
PATH = re.compile(r"[\w./*-]*/[\w.*-]*\.py\b")
FILE = re.compile(r"(?<![\w/.*-])([\w*/]*[\w*]\.(?:py|html|css|js))\b")


def _text(page):
    # generated reST escapes underscores (kx.exact\\_shapley)
    return (ROOT / page).read_text(encoding="utf-8").replace("\\_", "_")


def resolves(dotted):
    """Whether ``dotted`` (``kx.`` spelled ``kexplain.``) imports as a module or an attribute chain."""
    parts = dotted.split(".")
    if parts[0] == "kx":
        parts[0] = "kexplain"
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError as exc:
            if exc.name and not exc.name.startswith("kexplain"):
                return True  # a module of an extra that is not installed here: nothing to check
            continue
        except ImportError:
            continue
        for name in parts[cut:]:
            if not hasattr(obj, name):
                return False
            obj = getattr(obj, name)
        return True
    return False


def path_exists(path, bases=(ROOT, ROOT / "src", PKG)):
    """Whether ``path`` (a ``*`` glob allowed) names a file under one of ``bases``."""
    return any(any(base.glob(path)) if "*" in path else (base / path).is_file() for base in bases)


def backticked_files(text):
    """Backticked file names without a folder (``_stream.py``): the prose says where, a parser cannot."""
    return sorted({span for span in BACKTICKED.findall(text) if re.fullmatch(r"[\w*]+\.py", span)} - PLACEHOLDERS)


def dotted_names(text):
    return sorted(set(DOTTED.findall(text)))


def backticked_paths(text):
    found = set()
    for span in BACKTICKED.findall(text):
        found.update(PATH.findall(span))
    return sorted(found - PLACEHOLDERS)


def layout_files(text, first_line):
    """(folder, file) for every file named in the indented layout block that starts at ``first_line``.

    An entry line (six spaces in) that starts with ``folder/`` sets the folder of the files named on
    it and its continuation lines; one that starts with a file sets the package root.
    """
    lines = text.splitlines()
    start = lines.index(first_line)
    folder = ""
    out = []
    for line in lines[start + 1 :]:
        if not line.startswith("    ") or line.startswith("    tests/"):  # the block ends
            break
        entry = re.match(r"^ {6}([\w]+/|[\w.]+\.py)", line)
        if entry:
            folder = entry.group(1) if entry.group(1).endswith("/") else ""
        for name in FILE.findall(line):
            out.append((folder, name))
    return out


def _layout_cases():
    cases = []
    for page in PAGES:
        for folder, name in layout_files(_text(page), "    src/kexplain/"):
            cases.append(pytest.param(page, folder, name, id=f"{page}:{folder}{name}"))
    return cases


@pytest.mark.parametrize("page", ALL_PAGES)
def test_dotted_names_import(page):
    missing = [name for name in dotted_names(_text(page)) if not resolves(name)]
    assert not missing, f"{page} names what does not import: {missing}"


@pytest.mark.parametrize("page", ALL_PAGES)
def test_backticked_paths_exist(page):
    missing = [p for p in backticked_paths(_text(page)) if not path_exists(p)]
    assert not missing, f"{page} names files that do not exist: {missing}"


@pytest.mark.parametrize("page", PAGES)
def test_backticked_file_names_exist_somewhere(page):
    trees = [ROOT / "src", ROOT / "tests", ROOT / "benchmarks", ROOT / "examples"]
    missing = [f for f in backticked_files(_text(page)) if not any(any(t.rglob(f)) for t in trees)]
    assert not missing, f"{page} names files that exist nowhere: {missing}"


@pytest.mark.parametrize(("page", "folder", "name"), _layout_cases())
def test_layout_files_are_where_the_page_says(page, folder, name):
    # a bare file name is in the entry's folder; one with a folder is relative to src/kexplain
    base = PKG if "/" in name else PKG / folder
    assert path_exists(name, (base,)), f"{page}: the layout puts {name} in {base.relative_to(ROOT)}"


def test_the_checker_catches_wrong_names():
    text = "`kexplain.shapley.product.no_such_name`, `kx.no_such_module`, `src/kexplain/no_such.py`"
    assert [n for n in dotted_names(text) if not resolves(n)] == [
        "kexplain.shapley.product.no_such_name",
        "kx.no_such_module",
    ]
    assert [p for p in backticked_paths(text) if not path_exists(p)] == ["src/kexplain/no_such.py"]
    assert backticked_files("`_stream.py` (and `kexplain explain`, `a/b.py`)") == ["_stream.py"]
    assert resolves("kx.shapley.product.solve_product_game") and path_exists("shapley/*_numba.py")
    block = "    src/kexplain/\n      stats/  mmd.py, no_such.py\n      base.py\n    tests/\n"
    assert layout_files(block, "    src/kexplain/") == [("stats/", "mmd.py"), ("stats/", "no_such.py"), ("", "base.py")]

"""README's code blocks run exactly as written."""

from __future__ import annotations

import pathlib
import re

import pytest

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_has_python_blocks():
    assert BLOCKS, "README.md has no ```python blocks"


@pytest.mark.slow
@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_block_runs(code):
    pytest.importorskip("shap")
    import matplotlib

    matplotlib.use("Agg")
    namespace: dict = {}
    exec(compile(code, str(README), "exec"), namespace)
    if "ex" in namespace and "model" in namespace and "X" in namespace:
        ex, model, X = namespace["ex"], namespace["model"], namespace["X"]
        assert abs(ex.predictions - model.predict(X[: len(ex)])).max() < 1e-8


@pytest.mark.slow
def test_readme_which_game_output_is_what_the_block_prints():
    """The "which game" block's printed lines are written under it as comments: they must match."""
    import contextlib
    import io

    (code,) = [b for b in BLOCKS if "age ranks" in b]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(README), "exec"), {})
    claimed = [line[2:] for line in code.splitlines() if line.startswith("# ") and "age ranks" in line]
    assert out.getvalue().splitlines() == claimed

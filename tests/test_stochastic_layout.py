"""The split of kexplain.shapley.stochastic: one import place, modules by idea, the same objects.

The numpy pass of the prior term over one block of background pairs and the log-space finish of
the entries near under- or overflow live in ``_stochastic_numpy``; the two public functions, the
loop over blocks of background pairs and the choice between the compiled and the numpy pass stay
in ``stochastic``.  Every name the module defined before the split, private ones included, is
still imported from ``kexplain.shapley.stochastic`` (the explainers folder and the tests import
from there).  The choice of pass reads ``_prior_kernel`` and ``_CHUNK_BYTES`` from
``stochastic`` itself, so the tests that set them there still steer it.  The module defines no
class, so no pickle has to keep loading.
"""

from __future__ import annotations

import ast
import pathlib

import numpy as np
import pytest

from kexplain.shapley import _stochastic_numpy, stochastic

#: the module-level names stochastic.py defined before the split (456 lines)
OLD_NAMES = (
    "_TINY",
    "_HUGE",
    "_SMALL",
    "_PRIOR_ARRAYS",
    "_CONTROLLER",
    "_CHUNK_BYTES",
    "_one_blas_thread",
    "_as_float",
    "_prior_kernel",
    "_prior_block",
    "_finish_in_log_space",
    "_safe_entries",
    "_prior_block_numpy",
    "product_covariance",
    "_accumulate",
    "row_shapley_values",
    "DEFAULT_BLOCK_BYTES",
    "_resolve_backend",
    "_loo_integrals",
)


@pytest.mark.parametrize("module", (stochastic, _stochastic_numpy), ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_each_module_stays_well_under_450_lines(module):
    path = pathlib.Path(module.__file__)
    assert len(path.read_text().splitlines()) < 400, f"{path.name} has 400 lines or more"


def test_every_old_name_is_imported_from_stochastic_and_is_the_same_object():
    for name in OLD_NAMES:
        obj = getattr(stochastic, name)
        if name in vars(_stochastic_numpy):
            assert vars(_stochastic_numpy)[name] is obj, name
    for name in ("_finish_in_log_space", "_safe_entries", "_prior_block_numpy"):
        assert getattr(stochastic, name).__module__ == _stochastic_numpy.__name__, name
    for name in ("_prior_kernel", "_prior_block", "product_covariance", "_accumulate", "row_shapley_values"):
        assert getattr(stochastic, name).__module__ == stochastic.__name__, name


def test_the_numpy_pass_is_chosen_through_the_old_module(monkeypatch):
    """Setting ``stochastic._prior_kernel`` (as tests/test_stochastic.py does) still selects the pass."""
    calls = []

    def spy(*args):
        calls.append(1)
        return _stochastic_numpy._prior_block_numpy(*args)

    monkeypatch.setattr(stochastic, "_prior_kernel", lambda: None)
    monkeypatch.setattr(stochastic, "_prior_block_numpy", spy)
    C = stochastic.product_covariance([[1.0]], [[[0.5]]], [[[0.5]]], [[[1.0]]], [1.0])
    assert calls and C.tolist() == [[[1.0]]]


def _relative_imports(module) -> set[str]:
    tree = ast.parse(pathlib.Path(module.__file__).read_text())
    return {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level == 1}


def test_the_numpy_pass_sits_below_the_driver():
    assert "stochastic" not in _relative_imports(_stochastic_numpy)
    assert "_stochastic_numpy" in _relative_imports(stochastic)
    assert np.isfinite(_stochastic_numpy._TINY) and _stochastic_numpy._TINY > 0

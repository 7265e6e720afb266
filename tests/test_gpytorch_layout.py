"""The split of kexplain.models.gpytorch: one import place, reading the model apart from converting it.

Reading a fitted GPyTorch / BoTorch model (``_exact_parts``, ``_variational_parts``, the transforms
``_affine_input`` and ``_outcome``, ``_refuse`` and ``SUPPORTED_GPYTORCH_MODELS``) lives in
``_gpytorch_parts``; converting its kernel, checking it, and building the KernelExpansion or the
GPPosterior parts (``is_torch_gp``, ``gpytorch_expansion``, ``gpytorch_polynomial_parts``,
``gpytorch_parts_for_posterior``, ``describe_torch_output``) stay in ``gpytorch``.  Every name is
still imported from ``kexplain.models.gpytorch``.  The module defines no class, so no pickle
names it.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

import kexplain as kx
from kexplain.kernels import gpytorch as kernels_gpytorch
from kexplain.models import _gpytorch_parts, gpytorch

#: every name gpytorch.py defined before the split, and its home since
NAMES = {
    "SUPPORTED_GPYTORCH_MODELS": _gpytorch_parts,
    "_ALLOWED_CHILDREN": _gpytorch_parts,
    "_refuse": _gpytorch_parts,
    "_np": _gpytorch_parts,
    "_affine_input": _gpytorch_parts,
    "_outcome": _gpytorch_parts,
    "_exact_parts": _gpytorch_parts,
    "_variational_parts": _gpytorch_parts,
    "is_torch_gp": gpytorch,
    "_single_model_parts": gpytorch,
    "_all_parts": gpytorch,
    "_expansion_of": gpytorch,
    "gpytorch_polynomial_parts": gpytorch,
    "gpytorch_expansion": gpytorch,
    "gpytorch_parts_for_posterior": gpytorch,
    "describe_torch_output": gpytorch,
    # imported by gpytorch.py before the split
    "GPYTORCH_ROUTE": kernels_gpytorch,
    "SUPPORTED_GPYTORCH_KERNELS": kernels_gpytorch,
    "from_gpytorch": kernels_gpytorch,
}


@pytest.mark.parametrize("module", [gpytorch, _gpytorch_parts], ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_each_module_stays_under_380_lines(module):
    n = len(pathlib.Path(module.__file__).read_text().splitlines())
    assert n < 380, f"{module.__name__} has {n} lines"


@pytest.mark.parametrize("name", sorted(NAMES))
def test_every_name_is_imported_from_gpytorch_and_is_its_homes_object(name):
    home = NAMES[name]
    assert getattr(gpytorch, name) is getattr(home, name), name
    if callable(getattr(home, name)) and home is not kernels_gpytorch:
        assert getattr(home, name).__module__ == home.__name__, name


def test_the_package_and_the_other_modules_reach_the_same_objects():
    assert kx.models.gpytorch is gpytorch
    from kexplain.models import posterior, sklearn

    assert posterior.is_torch_gp is sklearn.is_torch_gp is gpytorch.is_torch_gp


def test_the_reading_module_names_nothing_of_gpytorch():
    """gpytorch imports _gpytorch_parts, which may not import it back (an import circle)."""
    tree = ast.parse(pathlib.Path(_gpytorch_parts.__file__).read_text())
    modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not modules & {"gpytorch", "kexplain.models.gpytorch"}, modules
    assert not any(isinstance(n, ast.ClassDef) for n in tree.body)

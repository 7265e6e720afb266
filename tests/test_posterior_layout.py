"""The split of kexplain.models.posterior: one import place, modules by idea, the same numbers.

``GPPosterior`` lives in ``posterior_parts``, the checks and factors of its precision in
``posterior_factors``, the rounding bounds' record and warnings in ``posterior_accuracy``, and
``gp_posterior`` in ``posterior`` itself; every name is still imported from
``kexplain.models.posterior`` (and ``GPPosterior``, ``gp_posterior`` from ``kexplain.models``).
"""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import kexplain as kx
from kexplain.models import posterior, posterior_accuracy, posterior_factors, posterior_parts

MODELS = pathlib.Path(posterior.__file__).parent


@pytest.mark.parametrize("path", sorted(MODELS.glob("posterior*.py")), ids=lambda p: p.name)
def test_each_module_stays_well_under_600_lines(path):
    assert len(path.read_text().splitlines()) < 500, f"{path.name} has 500 lines or more"


def test_every_name_is_imported_from_posterior_and_is_the_same_object():
    homes = (posterior_parts, posterior_accuracy)
    for name in posterior.__all__:
        obj = getattr(posterior, name)
        assert any(getattr(m, name, None) is obj for m in homes) or name in vars(posterior), name
    assert kx.models.GPPosterior is posterior.GPPosterior is posterior_parts.GPPosterior
    assert kx.models.gp_posterior is posterior.gp_posterior


def test_precision_and_cholesky_factors_give_the_same_data_term():
    """The two factorisations ``GPPosterior`` checks its input with: F^T F = A, and L L^T = A^-1."""
    rng = np.random.default_rng(0)
    M = rng.normal(size=(6, 6))
    B = M @ M.T + 6 * np.eye(6)
    A, F, norm, cond = posterior_factors._precision_factor(np.linalg.inv(B), 6)
    L, D, norm_l, cond_l = posterior_factors._cholesky_factor(np.linalg.cholesky(B), None, 6)
    assert D is None and np.array_equal(A, A.T)
    assert np.abs(F.T @ F - A).max() <= 1e-14 * np.abs(A).max()
    assert np.abs(np.linalg.inv(L @ L.T) - A).max() <= 1e-12 * np.abs(A).max()
    eig = np.linalg.eigvalsh(B)
    assert norm == pytest.approx(1 / eig[0]) and cond == pytest.approx(eig[-1] / eig[0])
    assert norm_l >= eig[-1] and cond_l >= 0.5 * eig[-1] / eig[0]  # a bound, and an estimate
    with pytest.raises(ValueError, match="precision must be a symmetric matrix"):
        posterior_factors._precision_factor(A + np.triu(np.ones((6, 6)), 1), 6)
    with pytest.raises(ValueError, match="cholesky must be lower triangular"):
        posterior_factors._cholesky_factor(L.T, None, 6)
    with pytest.raises(ValueError, match="cholesky_scale must hold 6"):
        posterior_factors._cholesky_factor(L, -np.ones(6), 6)

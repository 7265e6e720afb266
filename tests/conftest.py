"""Shared fixtures and slow, obviously-correct references for the foundation tests.

The references here never call the product-game engine: they evaluate value functions on every
coalition and hand them to the enumeration solver, whose own correctness is checked against
permutation averages and textbook games in tests/test_explainer.py.
"""

from __future__ import annotations

import os

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

try:  # keep property tests quick and deterministic on CI
    from hypothesis import HealthCheck, settings

    settings.register_profile(
        "kexplain",
        max_examples=30,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "kexplain"))
except ImportError:  # pragma: no cover
    pass


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def hybrid_points(X, Z, S):
    """Rows x_S z_notS for every (x, z) pair: shape (len(X), len(Z), d), object-safe."""
    X = np.asarray(X)
    Z = np.asarray(Z)
    return np.where(S[None, None, :], X[:, None, :], Z[None, :, :])


def interventional_value_function(predict, X, Z, weights=None):
    """v_x(S) = sum_z w_z f(x_S, z_notS), evaluated by calling ``predict`` on hybrid points.

    ``predict`` maps an (m, d) array to (m,) or (m, o). Returns a value function for
    kx.exact_shapley giving (n_coalitions, N) or (n_coalitions, N, o).
    """
    X = np.asarray(X)
    Z = np.asarray(Z)
    N, nb = len(X), len(Z)
    w = np.full(nb, 1.0 / nb) if weights is None else np.asarray(weights, float) / np.sum(weights)

    def vf(coalitions):
        C, d = coalitions.shape
        # every (coalition, x, z) hybrid row in one batch: (C, N, nb, d)
        H = np.where(coalitions[:, None, None, :], X[None, :, None, :], Z[None, None, :, :])
        f = np.asarray(predict(H.reshape(C * N * nb, d)), dtype=np.float64).reshape(C, N, nb, -1)
        out = np.einsum("cnzo,z->cno", f, w)
        return out[..., 0] if out.shape[-1] == 1 else out

    return vf


def functional_value_function(expansion, X):
    """PKeX's functional baseline v_x(S) = sum_t sum_i amp_t coef_i prod_{j in S} k_tj(x_j, X_ij)
    + intercept: absent features drop out of the kernel (factor 1)."""
    from kexplain.kernels import kernel_terms
    from kexplain.kernels.base import term_amplitude

    X = np.asarray(X)
    parts = [(term_amplitude(t), t.feature_values(X, expansion.X_ref)) for t in kernel_terms(expansion.kernel)]
    coef = expansion.coef  # (n, o)

    def vf(coalitions):
        out = np.zeros((len(coalitions), X.shape[0], coef.shape[1]))
        for c, S in enumerate(coalitions):
            for amp, F in parts:  # F: (N, n, d)
                prod = np.prod(np.where(S[None, None, :], F, 1.0), axis=-1)
                out[c] += amp * prod @ coef
            out[c] += expansion.intercept
        return out[..., 0] if expansion.single_output else out

    return vf


def shap_interaction_convention(phi, I):
    """Phi_jk = I_jk / 2 off the diagonal, Phi_jj = phi_j - sum_{k != j} Phi_jk (the oracle's own
    conversion, written independently of kexplain's)."""
    d = phi.shape[-1]
    out = I / 2.0
    for j in range(d):
        out[..., j, j] = 0.0
    for j in range(d):
        out[..., j, j] = phi[..., j] - out[..., j, :].sum(axis=-1)
    return out


def assert_rel_close(actual, desired, rtol=1e-10, atol_scale=1e-12, err_msg=""):
    """Relative agreement with a floor of ``atol_scale`` times the largest magnitude involved."""
    actual = np.asarray(actual, dtype=np.float64)
    desired = np.asarray(desired, dtype=np.float64)
    scale = max(1.0, float(np.max(np.abs(desired), initial=0.0)))
    np.testing.assert_allclose(actual, desired, rtol=rtol, atol=atol_scale * scale, err_msg=err_msg)

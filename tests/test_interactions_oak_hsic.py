"""Interactions of any order of the HSIC game and of OAK's games, against enumeration.

The references evaluate each game on every coalition from its own definition (the HSIC of the
variables in S through kx.stats.hsic; the OAK model's ANOVA components, its predict on hybrid
rows, the variances of its components) and compute every index from the definitions in
tests/test_interactions_any_order.py (weights times discrete derivatives, FSII by least squares,
k-SII by shapiq's ExactComputer).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_interactions_any_order import TOL, _assert_close, _reference, _table

import kexplain as kx

INDEX_CASES = [("SV", 1), ("BV", 1), ("SII", 2), ("k-SII", 3), ("STII", 2), ("FSII", 2), ("BII", 3), ("Moebius", 4)]


# -- HSIC --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def hsic_data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(14, 4))
    y = np.c_[np.sign(X[:, 0] * X[:, 1]) + 0.2 * rng.normal(size=14), rng.normal(size=14)]
    return X, y


@pytest.mark.parametrize("estimator", ["biased", "unbiased"])
@pytest.mark.parametrize("side", ["x", "y"])
def test_hsic_interactions_against_enumeration(hsic_data, estimator, side):
    X, Y = hsic_data
    kxk, kyk = kx.kernels.RBF(1.3), kx.kernels.RBF(0.8)
    A, B, ka, kb = (X, Y, kxk, kyk) if side == "x" else (Y, X, kyk, kxk)
    d = A.shape[1]

    def v(S):
        if not S.any():
            return 0.0
        return kx.stats.hsic(A[:, S], B, kernel_x=ka, kernel_y=kb, estimator=estimator)

    vt = _table(v, d)
    scale = float(np.abs(vt).max())
    base = kx.stats.hsic_shapley(X, Y, kernel_x=kxk, kernel_y=kyk, attribute=side, estimator=estimator)
    for index, k in INDEX_CASES:
        k = min(k, d)
        ex = kx.stats.hsic_interactions(
            X,
            Y,
            interactions={"index": index, "max_order": k},
            kernel_x=kxk,
            kernel_y=kyk,
            attribute=side,
            estimator=estimator,
        )
        assert isinstance(ex, kx.InteractionExplanation) and ex.game == "HSIC"
        got = ex.interaction_values(0)
        _assert_close(got, _reference(vt, d, index, k), scale, f"HSIC {side} {estimator} {index} k={k}")
        if index != "BV":
            assert np.abs(ex.values[0] - base.values).max() <= TOL * scale
        assert abs(ex.v_full[0] - vt[-1]) <= TOL * scale
        if index in ("SV", "k-SII", "STII", "FSII", "Moebius"):
            assert abs(got[()]) <= TOL * scale  # v(empty set) = 0
            if index != "Moebius" or k == d:
                assert ex.efficiency_error < 1e-10


def test_hsic_interactions_both_sides_and_selection(hsic_data):
    X, Y = hsic_data
    ex_x, ex_y = kx.stats.hsic_interactions(X, Y, interactions={"index": "k-SII", "max_order": 2}, attribute="both")
    assert ex_x.feature_names == ["x0", "x1", "x2", "x3"] and ex_y.feature_names == ["y0", "y1"]
    assert np.isclose(ex_x.values.sum(), ex_y.values.sum(), rtol=1e-12)  # both sum to the same HSIC
    full = kx.stats.hsic_interactions(X, Y, interactions={"index": "Moebius", "max_order": 2}).interaction_values(0)
    top = kx.stats.hsic_interactions(X, Y, interactions={"index": "Moebius", "max_order": 2, "top_k": 1})
    pairs = {T: val for T, val in top.interaction_values(0).items() if len(T) == 2}
    best = max((T for T in full if len(T) == 2), key=lambda T: abs(full[T]))
    assert pairs == {best: full[best]}


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"interactions": {"index": "nope"}}, r"interactions\['index'\]"),
        ({"interactions": {"index": "SII", "max_order": 0}}, r"interactions\['max_order'\]"),
        ({"interactions": {"index": "SII", "max_order": 5}}, r"interactions\['max_order'\]"),
        ({"interactions": {"index": "SII", "top_k": 0}}, r"interactions\['top_k'\]"),
        ({"interactions": "sii"}, "interactions must be a mapping"),
        ({"interactions": {"index": "SII"}, "attribute": "z"}, "attribute"),
        ({"interactions": {"index": "SII"}, "estimator": "fast"}, "estimator"),
    ],
)
def test_hsic_interactions_bad_input(hsic_data, kwargs, match):
    X, Y = hsic_data
    with pytest.raises((ValueError, TypeError), match=match):
        kx.stats.hsic_interactions(X, Y, **kwargs)

"""The per-call fast paths of issue 26 give the numbers of the general code they bypass, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from kexplain._real import _real
from kexplain._validation import check_bool, check_data, check_n_jobs, validate_n_jobs
from kexplain.kernels import RBF, Cauchy, Laplacian
from kexplain.shapley.enumeration import exact_shapley
from kexplain.shapley.subsets import SubsetGame, _TableLookup, absent_set_table


@pytest.mark.parametrize("kind", [RBF, Laplacian, Cauchy])
@pytest.mark.parametrize("lengthscale", [0.7, [0.3, 1.0, 2.5, 1e-3, 40.0]])
def test_stationary_factors_in_place_equal_the_profile(kind, lengthscale):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6, 5)) * np.array([1.0, 1e-3, 10.0, 1.0, 1e3])
    Y = rng.normal(size=(4, 5))
    k = kind(lengthscale=lengthscale)
    u = (X[:, None, :] - Y[None, :, :]) / k.lengthscale
    assert np.array_equal(k.feature_values(X, Y), k._profile(u))


@pytest.mark.parametrize("d", [1, 3, 7, 12])
@pytest.mark.parametrize("outputs", [1, 3])
def test_subset_route_values_equal_enumeration(d, outputs):
    rng = np.random.default_rng(d)
    rows, nb, points = 4, 3, 5
    b = rng.uniform(0.1, 1.0, size=(nb, rows, d))
    game = SubsetGame(absent_set_table(b, np.full(nb, 1.0 / nb)), rng.normal(size=(rows, outputs)))
    a = rng.uniform(0.1, 1.0, size=(points, rows, d))
    res = game.solve(a)
    v = game.values(a)
    ref = exact_shapley(_TableLookup(v, 1 << np.arange(d)), d)
    assert np.array_equal(res.values, np.asarray(ref.values).reshape(points, d, outputs))
    assert np.array_equal(res.v_full, v[-1]) and np.array_equal(res.v_empty, v[0])


def test_fast_checks_refuse_what_the_general_checks_refuse():
    assert check_bool(True, "x") is True and check_bool(np.False_, "x") is False
    assert check_n_jobs(None) == 1 and check_n_jobs(2) == 2
    for bad in (0, -0.5, 1.5, True, "2"):
        with pytest.raises(ValueError, match="n_jobs"):
            check_n_jobs(bad)
    with pytest.raises(TypeError, match="progress"):
        check_bool(1, "progress")
    arr = np.ones((2, 2))
    assert _real(arr, "values") is arr
    arr[0, 1] = np.nan
    with pytest.raises(ValueError, match="values contains NaN"):
        _real(arr, "values")
    assert _real(arr, "standard_errors", allow_nan=True) is arr


def test_validate_n_jobs_refuses_what_check_n_jobs_refuses():
    assert validate_n_jobs(None) is None and validate_n_jobs(3) == 3 and validate_n_jobs(-1) == -1
    for bad in (0, -0.5, 1.5, True, "2"):
        with pytest.raises(ValueError, match="n_jobs"):
            validate_n_jobs(bad)


def _general_check_data(X, **kw):
    """check_data through its general path (a subclass of ndarray is not taken by the fast one)."""

    class Sub(np.ndarray):
        pass

    out = check_data(X.view(Sub), **kw)
    return np.asarray(out)


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("copy", [True, False])
def test_check_data_fast_path_equals_the_general_path(order, copy):
    X = np.asarray(np.random.default_rng(0).normal(size=(4, 3)), order=order)
    fast = check_data(X, n_features=3, feature_names=["a", "b", "c"], copy=copy)
    slow = _general_check_data(X, n_features=3, feature_names=["a", "b", "c"], copy=copy)
    assert type(fast) is np.ndarray and np.array_equal(fast, slow)
    assert fast.flags.c_contiguous == slow.flags.c_contiguous and (fast is X) == (not copy)
    assert not np.shares_memory(fast, X) if copy else fast is X


@pytest.mark.parametrize(
    ("X", "kw", "match"),
    [
        (np.array([[1.0, np.nan, 2.0]]), {}, r"X contains NaN or infinite values at \(row 0, column 1\)"),
        (np.array([[1.0, np.inf]]), {"n_features": 2}, r"X contains NaN or infinite values at \(row 0, column 1\)"),
        (np.ones((2, 3)), {"n_features": 2}, "X has 3 features, but the model expects 2"),
        (np.ones((0, 3)), {}, "at least 1 row"),
        (np.ones((2, 3)), {"n_rows": 3, "rows_of": "y"}, "inconsistent"),
        (np.ones((1, 3)) * 1e200, {"huge": True}, "X"),
    ],
)
def test_check_data_fast_path_leaves_errors_to_the_general_path(X, kw, match):
    with pytest.raises(ValueError, match=match):
        check_data(X, **kw)


def _engine_explanations():
    """Explanations of every shape the product-kernel explainer builds without __init__'s checks."""
    import pandas as pd

    import kexplain as kx

    rng = np.random.default_rng(3)
    X = rng.normal(size=(20, 3))
    one = kx.KernelExpansion(X[:6], rng.normal(size=6), RBF(1.0), intercept=0.5)
    two = kx.KernelExpansion(X[:6], rng.normal(size=(6, 2)), RBF(1.0), intercept=[1.0, -1.0], output_names=["u", "v"])
    frame = pd.DataFrame(X[:2], columns=["a", "b", "c"], index=["p", "q"])
    for em in (one, two):
        for kw in ({}, {"background": X[6:12]}, {"baseline": X[0]}, {"background": X[6:18], "background_summary": 3}):
            explainer = kx.ProductKernelExplainer(em, **kw)
            yield explainer, X[:1]
            yield explainer, X[:3]
            yield explainer, frame


def test_engine_explanation_equals_the_checked_construction():
    import kexplain as kx
    from kexplain import Explanation

    n = 0
    for explainer, X in _engine_explanations():
        ex = explainer.explain(X)
        ref = Explanation(
            ex.values,
            ex.base_values,
            ex.data,
            ex.feature_names,
            ex.output_names,
            None,
            None,
            ex.game,
            dict(ex.info),
            output=ex.output,
            index=ex.index,
            v_full=ex.v_full,
            efficiency_error=ex.efficiency_error,
        )
        assert vars(ex).keys() == vars(ref).keys()
        for key, got in vars(ex).items():
            want = vars(ref)[key]
            if key == "info":
                assert dict(got) == dict(want) and got._owner is ex
            elif isinstance(want, np.ndarray):
                assert type(got) is np.ndarray and got.dtype == want.dtype and np.array_equal(got, want), key
            else:
                assert got == want and type(got) is type(want), key
        assert ex.game_record is kx.games.describe(ex.game)
        n += 1
    assert n == 24


def test_default_options_equal_the_checked_options():
    # explain(X) of a numpy X with every option at its default skips the option checks' calls;
    # the same options spelled otherwise (interactions=None, n_jobs=1, dtype="float64") run the
    # checks: the same explanation, attribute by attribute, bit for bit
    import kexplain as kx

    n = 0
    for explainer, X in _engine_explanations():
        if type(X) is not np.ndarray:
            continue
        fast = explainer.explain(X)
        checked = explainer.explain(X, interactions=None, progress=np.False_, n_jobs=1, dtype="float64")
        assert vars(fast).keys() == vars(checked).keys()
        for key, got in vars(fast).items():
            want = vars(checked)[key]
            if key == "info":
                assert dict(got) == dict(want) and got._owner is fast
            elif isinstance(want, np.ndarray):
                assert type(got) is np.ndarray and got.dtype == want.dtype and np.array_equal(got, want), key
            else:
                assert got == want and type(got) is type(want), key
        n += 1
    assert n == 16
    # bad options are still refused on the checked path, with their messages
    explainer = kx.ProductKernelExplainer(kx.KernelExpansion(np.zeros((2, 2)), [1.0, 2.0], RBF(1.0)))
    with pytest.raises(TypeError, match="progress must be True or False"):
        explainer.explain(np.ones((1, 2)), progress=1)
    with pytest.raises(ValueError, match="joint=True and noisy=True apply to uncertainty=True"):
        explainer.explain(np.ones((1, 2)), joint=True)


def test_engine_explanation_owns_its_names_and_base_values():
    import kexplain as kx

    em = kx.KernelExpansion(np.zeros((2, 2)), [1.0, 2.0], RBF(1.0))
    explainer = kx.ProductKernelExplainer(em, background=np.ones((3, 2)))
    a, b = explainer.explain(np.ones((1, 2))), explainer.explain(np.ones((1, 2)))
    a.feature_names[0] = "changed"
    a.base_values[0] = 99.0
    assert b.feature_names == ["x0", "x1"] and explainer.player_names(np.ones((1, 2))) == ["x0", "x1"]
    assert b.base_values[0] != 99.0


def test_background_pair_tables_equal_what_each_block_forms():
    import kexplain as kx
    from kexplain.explainers.product_games import BackgroundFactors, InterventionalGame

    rng = np.random.default_rng(5)
    em = kx.KernelExpansion(rng.normal(size=(7, 4)), rng.normal(size=(7, 2)), RBF([1.0, 0.5, 2.0, 1.5]))
    Z, w = rng.normal(size=(5, 4)), rng.dirichlet(np.ones(5))
    bg = BackgroundFactors(em, Z, w)
    X = rng.normal(size=(3, 4))
    game = InterventionalGame(em, X, bg)
    for points, rows in ((slice(0, 3), slice(0, 35)), (slice(1, 2), slice(7, 23)), (slice(0, 2), slice(3, 4))):
        for _ in range(2):  # the second time from what the first kept
            a2, ia, b2, c2, pb = game.pair_block(points, rows)
            a3, b3, c3 = game.block(points, rows)
            assert np.array_equal(c2, c3) and not c2.flags.writeable
            assert np.array_equal(a2[ia].reshape(a3.shape), a3)
            assert np.array_equal(b2, b3[0]) and np.array_equal(pb, np.prod(b3[0], axis=-1))


def test_quadrature_route_repeated_calls_equal_a_fresh_explainer():
    import kexplain as kx
    import kexplain.explainers.product_kernel_base as pk  # where the cost model is called

    rng = np.random.default_rng(6)
    em = kx.KernelExpansion(rng.normal(size=(9, 5)), rng.normal(size=9), RBF(1.3))
    Z, X = rng.normal(size=(6, 5)), rng.normal(size=(4, 5))
    saved = pk.choose_route
    pk.choose_route = lambda *a, **k: "quadrature"
    try:
        kept = kx.ProductKernelExplainer(em, background=Z)
        for rows in (slice(0, 1), slice(0, 4), slice(2, 3)):
            ex = kept.explain(X[rows])
            again = kept.explain(X[rows])
            fresh = kx.ProductKernelExplainer(em, background=Z).explain(X[rows])
            assert ex.info["route"] == "quadrature"
            for e in (again, fresh):
                assert np.array_equal(e.values, ex.values) and np.array_equal(e.base_values, ex.base_values)
                assert e.efficiency_error == ex.efficiency_error
    finally:
        pk.choose_route = saved

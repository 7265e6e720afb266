"""ProductKernelExplainer against slow references: enumeration of all coalitions, shap, shapiq."""

from itertools import permutations
from math import factorial

import numpy as np
import pytest
from conftest import (
    assert_rel_close,
    functional_value_function,
    interventional_value_function,
)
from kernel_conformance import stationary_classes

import kexplain as kx
from kexplain.kernels import RBF, Categorical, Cauchy, Laplacian, ProductKernel, SumKernel

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

# -- the enumeration oracle itself ---------------------------------------------------------------


def _permutation_shapley(v, d):
    """Average marginal contribution over all d! orders (the definition)."""
    phi = np.zeros(d)
    for order in permutations(range(d)):
        S = np.zeros(d, dtype=bool)
        prev = v(S)
        for j in order:
            S[j] = True
            cur = v(S)
            phi[j] += cur - prev
            prev = cur
    return phi / factorial(d)


def _interaction_by_definition(v, d, j, k):
    """I_jk = sum_{S subset of D minus {j,k}} |S|!(d-|S|-2)!/(d-1)! Delta_jk v(S)."""
    others = [m for m in range(d) if m not in (j, k)]
    total = 0.0
    for mask in range(2 ** len(others)):
        S = np.zeros(d, dtype=bool)
        for b, m in enumerate(others):
            S[m] = bool(mask >> b & 1)
        s = int(S.sum())
        w = factorial(s) * factorial(d - s - 2) / factorial(d - 1)
        Sj, Sk, Sjk = S.copy(), S.copy(), S.copy()
        Sj[j] = Sk[k] = Sjk[j] = Sjk[k] = True
        total += w * (v(Sjk) - v(Sj) - v(Sk) + v(S))
    return total


def test_exact_shapley_matches_permutation_definition():
    rng = np.random.default_rng(3)
    d = 5
    table = rng.normal(size=2**d)

    def v_single(S):
        return table[int(np.dot(S, 2 ** np.arange(d)))]

    res = kx.exact_shapley(lambda C: np.array([v_single(S) for S in C]), d, interactions=True, batch_size=7)
    np.testing.assert_allclose(res.values, _permutation_shapley(v_single, d), rtol=1e-12, atol=1e-12)
    for j in range(d):
        for k in range(d):
            if j != k:
                # shap's layout: half the index off the diagonal
                assert 2 * res.interactions[j, k] == pytest.approx(
                    _interaction_by_definition(v_single, d, j, k), abs=1e-12
                )
    np.testing.assert_allclose(res.interactions.sum(axis=1), res.values, rtol=1e-12, atol=1e-12)
    assert res.values.sum() == pytest.approx(res.v_full - res.v_empty)


def test_exact_shapley_textbook_games():
    d = 4
    # unanimity game of {0, 2}: the two share the unit value, their interaction index is 1
    res = kx.exact_shapley(lambda C: (C[:, 0] & C[:, 2]).astype(float), d, interactions=True)
    np.testing.assert_allclose(res.values, [0.5, 0, 0.5, 0], atol=1e-15)
    assert res.interactions[0, 2] == pytest.approx(0.5) and res.interactions[1, 3] == pytest.approx(0.0)
    # additive game: values are the weights, interactions vanish
    w = np.array([1.0, -2.0, 0.5, 3.0])
    res = kx.exact_shapley(lambda C: C @ w, d, interactions=True)
    np.testing.assert_allclose(res.values, w, atol=1e-14)
    np.testing.assert_allclose(res.interactions, np.diag(w), atol=1e-14)  # main effects on the diagonal


def test_exact_shapley_batches_points_and_outputs():
    d = 3
    w = np.arange(12.0).reshape(2, 3, 2)  # (N, d, o)
    res = kx.exact_shapley(lambda C: np.einsum("cd,ndo->cno", C.astype(float), w), d)
    assert res.values.shape == (2, 3, 2)
    np.testing.assert_allclose(res.values, w, atol=1e-13)


# -- random kernel expansions ------------------------------------------------------------------

LABELS = np.array(["red", "green", "blue"], dtype=object)


def _make(kind, d, rng, n_ref=5, n_out=1):
    """A random KernelExpansion of the given kernel family and a sampler of matching rows."""
    ls = rng.uniform(0.5, 2.0, size=d)
    cat_cols = np.zeros(d, dtype=bool)
    if kind == "rbf":
        kernel = RBF(float(ls[0]), amplitude=1.7)
    elif kind == "ard":
        kernel = RBF(ls)
    elif kind == "laplacian":
        kernel = Laplacian(ls, amplitude=0.6)
    elif kind == "cauchy":
        kernel = Cauchy(ls)
    elif kind == "categorical":
        kernel, cat_cols = Categorical(mismatch=0.3), np.ones(d, dtype=bool)
    elif kind == "mixed":
        cat_cols = np.arange(d) % 3 == 1
        family = stationary_classes()
        parts = [
            Categorical(mismatch=0.2 + 0.1 * (j % 2)) if cat_cols[j] else family[j % len(family)](float(ls[j]))
            for j in range(d)
        ]
        kernel = ProductKernel(parts, amplitude=1.3)
    elif kind == "sum":
        kernel = SumKernel(
            [RBF(ls, amplitude=2.0), 0.5 * Cauchy(1.5), ProductKernel([Laplacian(1.0)] * d, amplitude=0.7)]
        )
    else:
        raise AssertionError(kind)

    def sample(n):
        if not cat_cols.any():
            return rng.normal(size=(n, d))
        out = np.empty((n, d), dtype=object)
        for j in range(d):
            out[:, j] = rng.choice(LABELS, size=n) if cat_cols[j] else rng.normal(size=n)
        return out

    coef = rng.normal(size=(n_ref, n_out)) if n_out > 1 else rng.normal(size=n_ref)
    intercept = rng.normal(size=n_out) if n_out > 1 else 0.37
    return kx.KernelExpansion(sample(n_ref), coef, kernel, intercept), sample


KINDS = ["rbf", "ard", "laplacian", "cauchy", "categorical", "mixed", "sum"]
CASES = [(k, d) for k in KINDS for d in (1, 2, 5)] + [("ard", 10), ("mixed", 10), ("sum", 8)]


def _expected(em, X, game, Z=None, weights=None, interactions=False):
    d = em.n_features
    if game == "functional":
        vf = functional_value_function(em, X)
    else:
        vf = interventional_value_function(lambda H: em.predict(H, validate=False), X, Z, weights)
    res = kx.exact_shapley(vf, d, interactions=interactions and d > 1)
    return res


def _check_against_enumeration(em, X, ex, res):
    # exact_shapley puts outputs last: (N, d) or (N, d, o), like Explanation.values
    assert ex.values.shape == res.values.shape
    assert_rel_close(ex.values, res.values, rtol=1e-10, atol_scale=1e-12)
    assert_rel_close(ex.base_values, res.v_empty)
    assert_rel_close(ex.base_values + ex.values.sum(axis=1), em.predict(X))


@pytest.mark.parametrize("kind,d", CASES)
@pytest.mark.parametrize("n_out", [1, 3])
def test_functional_game_matches_enumeration(kind, d, n_out):
    rng = np.random.default_rng(10 * d + n_out)
    em, sample = _make(kind, d, rng, n_out=n_out)
    X = sample(3)
    ex = kx.ProductKernelExplainer(em).explain(X)
    res = _expected(em, X, "functional")
    _check_against_enumeration(em, X, ex, res)
    assert ex.game == "functional"
    # PKeX's base value: sum of coefficients times the kernel's amplitude, plus the intercept
    assert_rel_close(
        ex.base_values,
        np.broadcast_to(sum(a * em.coef.sum(0) for a in em.amplitudes) + em.intercept, (3, n_out)).squeeze(),
    )


@pytest.mark.parametrize("kind,d", CASES)
@pytest.mark.parametrize("weighted", [False, True])
def test_interventional_game_matches_enumeration(kind, d, weighted):
    rng = np.random.default_rng(7 * d + weighted)
    em, sample = _make(kind, d, rng, n_out=2 if kind in ("ard", "mixed") else 1)
    X, Z = sample(2), sample(4)
    w = rng.uniform(0.1, 2.0, size=4) if weighted else None
    ex = kx.ProductKernelExplainer(em, background=Z, background_weights=w).explain(X)
    res = _expected(em, X, "interventional", Z, w)
    _check_against_enumeration(em, X, ex, res)
    assert ex.game == "interventional"
    # base value = (weighted) mean prediction over the background
    ww = np.full(4, 0.25) if w is None else w / w.sum()
    assert_rel_close(ex.base_values[0], np.tensordot(ww, em.predict(Z), axes=(0, 0)))


@pytest.mark.parametrize("kind,d", [(k, 4) for k in KINDS] + [("ard", 10)])
def test_baseline_game_matches_enumeration(kind, d):
    rng = np.random.default_rng(d)
    em, sample = _make(kind, d, rng)
    X, z = sample(3), sample(1)
    for baseline in (z, z[0]):
        ex = kx.ProductKernelExplainer(em, baseline=baseline).explain(X)
        res = _expected(em, X, "baseline", z)
        _check_against_enumeration(em, X, ex, res)
        assert_rel_close(ex.base_values, np.full(3, em.predict(z)[0]))
        assert ex.game == "baseline"


def test_duplicated_background_rows_equal_weights():
    rng = np.random.default_rng(5)
    em, sample = _make("ard", 4, rng)
    X, Z = sample(3), sample(3)
    a = kx.ProductKernelExplainer(em, background=Z[[0, 0, 0, 1, 2, 2]]).explain(X)
    b = kx.ProductKernelExplainer(em, background=Z, background_weights=[3, 1, 2]).explain(X)
    assert_rel_close(a.values, b.values)
    assert_rel_close(a.base_values, b.base_values)


@pytest.mark.parametrize("kind,d", [("rbf", 2), ("ard", 5), ("mixed", 6), ("sum", 5), ("laplacian", 3), ("ard", 9)])
@pytest.mark.parametrize("game", ["functional", "interventional", "baseline"])
def test_interaction_values_match_enumerated_interaction_index(kind, d, game):
    rng = np.random.default_rng(d + len(game))
    em, sample = _make(kind, d, rng, n_out=2 if kind == "sum" else 1)
    X = sample(2)
    Z = sample(1 if game == "baseline" else 3)
    kwargs = {"functional": {}, "interventional": {"background": Z}, "baseline": {"baseline": Z}}[game]
    ex = kx.ProductKernelExplainer(em, **kwargs).explain(X, interactions=True)
    res = _expected(em, X, game, Z, interactions=True)
    expected = res.interactions  # (N, d, d[, o]), in shap's layout as the explainer's
    assert ex.interactions.shape == expected.shape
    assert_rel_close(ex.interactions, expected, rtol=1e-10, atol_scale=1e-12)
    # rows sum to the Shapley values, the matrix is symmetric, off-diagonal = I_jk / 2
    assert_rel_close(ex.interactions.sum(axis=2), ex.values)
    np.testing.assert_allclose(ex.interactions, np.swapaxes(ex.interactions, 1, 2), atol=1e-12)
    # the same values come out with and without interactions
    assert_rel_close(kx.ProductKernelExplainer(em, **kwargs).explain(X).values, ex.values)


def test_single_feature_interactions():
    rng = np.random.default_rng(0)
    em, sample = _make("rbf", 1, rng)
    X = sample(2)
    ex = kx.ProductKernelExplainer(em).explain(X, interactions=True)
    assert ex.interactions.shape == (2, 1, 1)
    assert_rel_close(ex.interactions[:, 0, 0], ex.values[:, 0])


def test_small_block_budget_gives_the_same_values():
    rng = np.random.default_rng(2)
    em, sample = _make("mixed", 6, rng, n_ref=40, n_out=2)
    X, Z = sample(9), sample(7)
    big = kx.ProductKernelExplainer(em, background=Z).explain(X, interactions=True)
    small = kx.ProductKernelExplainer(em, background=Z, max_block_bytes=2**16).explain(X, interactions=True)
    assert_rel_close(small.values, big.values)
    assert_rel_close(small.interactions, big.interactions)


def test_progress_bar_does_not_change_values(capsys):
    rng = np.random.default_rng(4)
    em, sample = _make("ard", 3, rng)
    X = sample(4)
    explainer = kx.ProductKernelExplainer(em)
    assert_rel_close(explainer.explain(X, progress=True).values, explainer.explain(X).values)


# -- stability at large d --------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("regime", ["near one", "near zero", "mixed"])
def test_efficiency_at_d_1000(regime):
    rng = np.random.default_rng(11)
    d, n = 1000, 12
    X_ref = rng.normal(size=(n, d))
    if regime == "near one":  # every factor close to 1: k = exp(-u^2/2), u ~ 1e-2
        ls = 100.0
    elif regime == "near zero":  # factors near 0: the products underflow double precision
        ls = 0.3
    else:
        ls = np.where(np.arange(d) % 2 == 0, 50.0, 0.5)
    em = kx.KernelExpansion(X_ref, rng.normal(size=n), RBF(ls), intercept=0.5)
    X = X_ref[:2] + 0.01 * rng.normal(size=(2, d))  # near reference points, so f(x) is not ~ 0
    for kwargs in ({}, {"background": X_ref[5:7]}):
        ex = kx.ProductKernelExplainer(em, **kwargs).explain(X)
        assert np.all(np.isfinite(ex.values))
        f = em.predict(X)
        scale = np.maximum(np.abs(f), np.abs(ex.base_values)) + np.abs(ex.values).sum(axis=1)
        err = np.abs(ex.base_values + ex.values.sum(axis=1) - f) / scale
        assert err.max() <= 1e-9, (regime, kwargs, err)


# -- real fitted models: efficiency against the model's own output -------------------------------


@pytest.fixture(scope="module")
def fitted():
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process import kernels as sk
    from sklearn.kernel_ridge import KernelRidge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC, SVR

    rng = np.random.default_rng(8)
    d = 5
    X = rng.normal(size=(30, d)) * np.array([1, 2, 0.5, 1, 3]) + np.array([0, 1, 2, 3, 4])
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] * X[:, 2] - 0.2 * X[:, 4]
    yc = (y > np.median(y)).astype(int)
    y3 = np.digitize(y, np.quantile(y, [0.33, 0.66]))
    models = {
        "svr": SVR(C=2.0, gamma=0.2).fit(X, y),
        "kernel ridge": KernelRidge(alpha=0.1, kernel="rbf", gamma=0.1).fit(X, y),
        "kernel ridge laplacian": KernelRidge(alpha=0.1, kernel="laplacian", gamma=0.1).fit(X, y),
        "gpr": GaussianProcessRegressor(
            # noise bounded below keeps alpha_ moderate: with noise -> 1e-5 sum|alpha_ k| reaches 1e4 and
            # float64 rounding of the kernel alone moves predictions by ~1e-10
            sk.ConstantKernel(1.0) * sk.RBF(np.ones(d)) + sk.WhiteKernel(0.1, noise_level_bounds=(1e-2, 10.0)),
            normalize_y=True,
        ).fit(X, y),
        "svc": SVC(C=1.0, gamma=0.1).fit(X, yc),
        "svc multiclass": SVC(C=1.0, gamma=0.1, decision_function_shape="ovo").fit(X, y3),
        "pipeline": make_pipeline(StandardScaler(), SVR(C=2.0)).fit(X, y),
    }
    return dict(X=X, Xt=rng.normal(size=(4, d)) + np.array([0, 1, 2, 3, 4]), models=models)


def _model_fn(model):
    from kexplain.models import model_output

    return lambda H: model_output(model, np.asarray(H, dtype=float))


@pytest.mark.parametrize(
    "name", ["svr", "kernel ridge", "kernel ridge laplacian", "gpr", "svc", "svc multiclass", "pipeline"]
)
def test_real_models_all_games_against_enumeration(name, fitted):
    model, X, Xt = fitted["models"][name], fitted["X"], fitted["Xt"]
    Z = X[:6]
    ex = kx.ProductKernelExplainer(model, background=Z).explain(Xt)
    res = kx.exact_shapley(interventional_value_function(_model_fn(model), Xt, Z), X.shape[1])
    assert_rel_close(ex.values, res.values)
    assert_rel_close(ex.predictions, _model_fn(model)(Xt))
    exb = kx.ProductKernelExplainer(model, baseline=X[3]).explain(Xt)
    assert_rel_close(exb.predictions, _model_fn(model)(Xt))
    assert_rel_close(exb.base_values, np.broadcast_to(_model_fn(model)(X[3:4])[0], exb.base_values.shape))
    exf = kx.ProductKernelExplainer(model).explain(Xt)
    assert_rel_close(exf.predictions, _model_fn(model)(Xt))
    if name == "svc multiclass":
        assert ex.values.shape == (4, 5, 3)
        assert ex.output_names == ["0 vs 1", "0 vs 2", "1 vs 2"]


# -- independent libraries as oracles ------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("name", ["svr", "kernel ridge", "gpr", "svc", "pipeline"])
def test_interventional_game_agrees_with_shap_exact_explainer(name, fitted):
    shap = pytest.importorskip("shap")
    model, X, Xt = fitted["models"][name], fitted["X"], fitted["Xt"]
    background = X[:8]
    masker = shap.maskers.Independent(background, max_samples=len(background))
    f = (lambda H: model.decision_function(H)) if name == "svc" else (lambda H: model.predict(H))
    sh = shap.ExactExplainer(f, masker)(Xt, silent=True)
    ex = kx.ProductKernelExplainer(model, background=background).explain(Xt)
    assert_rel_close(ex.values, sh.values, rtol=1e-10, atol_scale=1e-10)
    assert_rel_close(ex.base_values, sh.base_values, rtol=1e-10)


def test_functional_game_agrees_with_shapiq_product_kernel_explainer(fitted):
    pytest.importorskip("shapiq")
    from shapiq.explainer.product_kernel import ProductKernelExplainer as ShapiqPKE

    model, Xt = fitted["models"]["svr"], fitted["Xt"]
    reference = ShapiqPKE(model)
    ex = kx.ProductKernelExplainer(model).explain(Xt)
    for p, x in enumerate(Xt):
        iv = reference.explain(x)
        theirs = np.array([iv[(j,)] for j in range(Xt.shape[1])])
        assert_rel_close(ex.values[p], theirs, rtol=1e-10, atol_scale=1e-10)
        assert ex.base_values[p] == pytest.approx(iv.baseline_value, rel=1e-12)


# -- the explainer contract: game at construction, background tables reused, n_jobs ---------------


def test_game_output_and_expected_value_are_decided_at_construction(fitted):
    model, X, Xt = fitted["models"]["svr"], fitted["X"], fitted["Xt"]
    functional = kx.ProductKernelExplainer(model)
    interventional = kx.ProductKernelExplainer(model, X[:6])
    baseline = kx.ProductKernelExplainer(model, baseline=X[3])
    assert (functional.game, interventional.game, baseline.game) == ("functional", "interventional", "baseline")
    assert isinstance(functional, kx.Explainer)
    assert interventional.output == "predict of SVR"
    assert kx.ProductKernelExplainer(kx.models.as_kernel_expansion(model)).output == "KernelExpansion.predict"
    for explainer in (functional, interventional, baseline):
        ex = explainer.explain(Xt)
        assert ex.game == explainer.game and ex.output == explainer.output
        assert_rel_close(ex.base_values, np.full(len(Xt), explainer.expected_value))
    assert_rel_close(interventional.expected_value, model.predict(X[:6]).mean())
    assert_rel_close(baseline.expected_value, model.predict(X[3:4])[0])
    svc = kx.ProductKernelExplainer(fitted["models"]["svc multiclass"], X[:4])
    assert svc.output.startswith("decision_function of SVC") and svc.expected_value.shape == (3,)


def test_background_and_baseline_are_exclusive(fitted):
    model, X = fitted["models"]["svr"], fitted["X"]
    with pytest.raises(ValueError, match="either background .* or baseline"):
        kx.ProductKernelExplainer(model, X[:5], baseline=X[0])
    with pytest.raises(ValueError, match="background_weights needs a background"):
        kx.ProductKernelExplainer(model, background_weights=[1.0])
    with pytest.raises(ValueError, match="baseline must be one row"):
        kx.ProductKernelExplainer(model, baseline=X[:2])


@pytest.mark.parametrize("route", ["quadrature", "subsets"])
def test_background_tables_are_built_once_and_reused(route, monkeypatch):
    """The constructor tabulates the background; explain calls only compute the explained points'
    own factors, and two calls give the numbers of one call on the stacked rows."""
    rng = np.random.default_rng(21)
    em, sample = _make("ard", 4 if route == "subsets" else 9, rng, n_ref=6)
    X, Z = sample(7), sample(30 if route == "subsets" else 5)
    explainer = kx.ProductKernelExplainer(em, background=Z)
    assert explainer.route == route
    calls = []
    original = em.row_factors

    def spy(rows_X, rows):
        calls.append(len(rows_X))
        return original(rows_X, rows)

    monkeypatch.setattr(em, "row_factors", spy)
    for term in em.terms:  # the subset route takes a one-term model's factors from its kernel directly
        term_values = term.feature_values

        def term_spy(rows_X, ref, term_values=term_values):
            calls.append(len(rows_X))
            return term_values(rows_X, ref)

        monkeypatch.setattr(term, "feature_values", term_spy)
    first, second = explainer.explain(X[:3]), explainer.explain(X[3:])
    both = explainer.explain(X)
    assert calls and set(calls) <= {1, 2, 3, 4, 7}  # explained rows only, never the background (30 or 5)
    np.testing.assert_allclose(np.concatenate([first.values, second.values]), both.values, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(
        np.concatenate([first.base_values, second.base_values]), both.base_values, rtol=1e-13, atol=1e-15
    )
    res = _expected(em, X, "interventional", Z)
    _check_against_enumeration(em, X, both, res)


@pytest.mark.parametrize("kwargs", [{}, {"background": "Z"}, {"baseline": "z"}, {"background": "Z30"}])
def test_values_do_not_depend_on_n_jobs(kwargs):
    rng = np.random.default_rng(9)
    em, sample = _make("mixed", 5, rng, n_ref=8, n_out=2)
    X = sample(11)
    arrays = {"Z": sample(4), "z": sample(1)[0], "Z30": sample(30)}
    explainer = kx.ProductKernelExplainer(em, **{k: arrays[v] for k, v in kwargs.items()})
    one = explainer.explain(X, n_jobs=1, interactions=True)
    two = explainer.explain(X, n_jobs=2, interactions=True)
    np.testing.assert_allclose(two.values, one.values, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(two.base_values, one.base_values, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(two.interactions, one.interactions, rtol=1e-13, atol=1e-15)
    assert two.game == one.game and two.v_full.shape == one.v_full.shape
    assert explainer.explain(X, n_jobs=-1, random_state=0).values.shape == one.values.shape


def test_dataframe_index_and_columns_are_kept():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(3)
    em, sample = _make("ard", 3, rng)
    X = pd.DataFrame(sample(4), columns=["a", "b", "c"], index=[10, 11, 12, 13])
    ex = kx.ProductKernelExplainer(em, background=X.iloc[:2]).explain(X, n_jobs=2)
    assert ex.index == [10, 11, 12, 13] and ex.feature_names == ["a", "b", "c"]
    assert list(ex.to_frame().index) == [10, 11, 12, 13]
    with pytest.raises(ValueError, match="columns of X"):
        kx.ProductKernelExplainer(em, background=X.iloc[:2]).explain(X.rename(columns={"a": "A"}))


def test_interactions_flag_is_checked():
    rng = np.random.default_rng(3)
    em, sample = _make("rbf", 2, rng)
    with pytest.raises(TypeError, match="interactions must be True or False"):
        kx.ProductKernelExplainer(em).explain(sample(2), interactions="yes")

"""RKHSExplainer: observational values through conditional mean embeddings, interventional values,
non-product kernels and model-agnostic models, against dense formulas written here."""

from itertools import combinations
from math import factorial

import numpy as np
import pytest
from kernel_conformance import profile_of, stationary_classes
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import Matern, RationalQuadratic
from sklearn.kernel_ridge import KernelRidge
from sklearn.svm import SVR

import kexplain as kx
from kexplain.kernels import ProductKernel
from kexplain.rkhs.explainer import RKHSExplainer


def shapley_by_permutation_weights(v, d):
    """phi_j = sum_S |S|!(d-|S|-1)!/d! (v(S + j) - v(S)), v taking a tuple of feature indices."""
    phi = np.zeros(d)
    for j in range(d):
        others = [i for i in range(d) if i != j]
        for s in range(d):
            w = factorial(s) * factorial(d - s - 1) / factorial(d)
            for S in combinations(others, s):
                phi[j] += w * (v(tuple(sorted(S + (j,)))) - v(S))
    return phi


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    n, d = 60, 3
    X = rng.normal(size=(n, d))
    X[:, 1] += 0.9 * X[:, 0]  # correlated features
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2] + 0.1 * rng.normal(size=n)
    return X, y


@pytest.fixture(scope="module")
def krr(data):
    X, y = data
    return KernelRidge(kernel="rbf", gamma=0.4, alpha=0.1).fit(X, y)


def dense_observational(f_coef, Xm, R, x, k1d, eta, intercept=0.0):
    """Chau, Hu, Gonzalez & Sejdinovic (2022), Proposition 3, written out densely for one point x:
    v(S) = alpha^T (K_S(Xm, x) * (K_Sc(Xm, R) (K_S(R, R) + n eta I)^-1 K_S(R, x))),
    with k1d(a, b, j) the kernel of feature j; v(empty) = mean over R of f, v(full) = f(x)."""
    d = Xm.shape[1]
    n = R.shape[0]

    def K(A, B, cols):
        out = np.ones((A.shape[0], B.shape[0]))
        for j in cols:
            out *= k1d(A[:, j][:, None], B[:, j][None, :], j)
        return out

    def v(S):
        Sc = [j for j in range(d) if j not in S]
        if not S:
            return intercept + np.mean(K(R, Xm, range(d)) @ f_coef)
        if not Sc:
            return intercept + K(x[None], Xm, range(d))[0] @ f_coef
        beta = np.linalg.solve(K(R, R, S) + n * eta * np.eye(n), K(R, x[None], S))[:, 0]
        return intercept + f_coef @ (K(Xm, x[None], S)[:, 0] * (K(Xm, R, Sc) @ beta))

    return v


def test_observational_matches_dense_formula(data, krr):
    X, _ = data
    eta = 1e-2
    ex = RKHSExplainer(krr, cme_regularization=eta)
    e = ex.explain(X[:3])
    ls2 = 1.0 / (2 * 0.4)
    for p in range(3):
        v = dense_observational(krr.dual_coef_, X, X, X[p], lambda a, b, j: np.exp(-((a - b) ** 2) / (2 * ls2)), eta)
        np.testing.assert_allclose(e.values[p], shapley_by_permutation_weights(v, 3), rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("first", range(len(stationary_classes())))
def test_observational_mixed_product_kernel_and_separate_reference(data, first):
    X, y = data
    rng = np.random.default_rng(1)
    # three registered stationary families, starting at ``first`` (RBF, Laplacian, Cauchy for first=0)
    families = [stationary_classes()[(first + j) % len(stationary_classes())] for j in range(3)]
    lengthscales = [1.3, 0.8, 2.0]
    kern = ProductKernel([cls(ls) for cls, ls in zip(families, lengthscales)], amplitude=1.7)
    coef = rng.normal(size=20)
    em = kx.KernelExpansion(X[:20], coef, kern, intercept=0.3)
    R = X[20:]
    eta = 3e-3
    e = RKHSExplainer(em, R, cme_regularization=eta).explain(X[:2])
    # the registered reference profiles (tests/kernel_conformance.py), not kexplain's
    profiles = [lambda u, c=cls, ls=ls: profile_of(c)(u / ls) for cls, ls in zip(families, lengthscales)]
    # the model's amplitude scales f; the CME regresses with unit-amplitude per-feature kernels
    for p in range(2):
        v = dense_observational(1.7 * coef, X[:20], R, X[p], lambda a, b, j: profiles[j](a - b), eta, intercept=0.3)
        np.testing.assert_allclose(e.values[p], shapley_by_permutation_weights(v, 3), rtol=1e-9, atol=1e-11)


def test_efficiency_base_value_is_mean_prediction(data, krr):
    X, _ = data
    e = RKHSExplainer(krr).explain(X[:10])
    np.testing.assert_allclose(e.base_values, krr.predict(X).mean(), rtol=1e-12)
    np.testing.assert_allclose(e.predictions, krr.predict(X[:10]), atol=1e-10)
    assert e.game == "observational"
    assert e.values.shape == (10, 3)


def test_interventional_engine_matches_mean_embedding_formula(data, krr):
    """The paper's interventional estimator, v(S) = alpha^T (K_S(X, x) * (1/n) K_Sc(X, R) 1),
    enumerated densely, equals the exact product-game engine the explainer delegates to."""
    X, _ = data
    e = RKHSExplainer(krr, game="interventional").explain(X[:4])
    ls2 = 1.0 / (2 * 0.4)

    def K(A, B, cols):
        out = np.ones((A.shape[0], B.shape[0]))
        for j in cols:
            out *= np.exp(-((A[:, j][:, None] - B[:, j][None, :]) ** 2) / (2 * ls2))
        return out

    alpha = krr.dual_coef_

    def value_function(coalitions):
        out = np.empty((len(coalitions), 4))
        for q, S in enumerate(coalitions):
            S_idx, Sc_idx = np.flatnonzero(S), np.flatnonzero(~S)
            mean_emb = K(X, X, Sc_idx).mean(axis=1)  # (1/n) K_Sc(X, R) 1
            out[q] = alpha @ (K(X, X[:4], S_idx) * mean_emb[:, None])
        return out

    ref = kx.exact_shapley(value_function, 3).values
    np.testing.assert_allclose(e.values, ref, rtol=1e-9, atol=1e-11)
    # the explainer's own mean-embedding game (used by the sampled solver) agrees too
    own = kx.exact_shapley(RKHSExplainer(krr, game="interventional").value_function(X[:4]), 3).values
    np.testing.assert_allclose(own[..., 0], ref, rtol=1e-9, atol=1e-11)


def test_interventional_sampled_path_agrees_with_engine(data, krr):
    X, _ = data
    ex = RKHSExplainer(krr, game="interventional")
    exact = ex.explain(X[:3]).values
    est = ex.explain(X[:3], budget=400, random_state=0)
    assert est.standard_errors is not None
    assert np.all(np.abs(est.values - exact) <= 4 * est.standard_errors + 1e-9)


def test_sampled_observational_beyond_max_exact_features(data, krr):
    X, _ = data
    exact = RKHSExplainer(krr).explain(X[:3]).values
    est = RKHSExplainer(krr, max_exact_features=2).explain(X[:3], random_state=0)
    assert est.info["solver"] == "sampled" and est.standard_errors.shape == (3, 3)
    assert np.all(np.abs(est.values - exact) <= 4 * est.standard_errors + 1e-9)


def test_nystroem_with_all_rows_as_landmarks_is_exact(data, krr):
    X, _ = data
    exact = RKHSExplainer(krr).explain(X[:4]).values
    nys = RKHSExplainer(krr, approximation="nystroem", n_landmarks=60).explain(X[:4]).values
    np.testing.assert_allclose(nys, exact, atol=1e-5)
    few = RKHSExplainer(krr, approximation="nystroem", n_landmarks=30, random_state=2).explain(X[:4])
    np.testing.assert_allclose(few.predictions, krr.predict(X[:4]), atol=1e-10)  # endpoints exact
    assert np.abs(few.values - exact).max() < 0.5 * np.abs(exact).max()


def test_independent_features_observational_approaches_interventional():
    rng = np.random.default_rng(3)
    gaps = []
    for n in (40, 400):
        X = rng.normal(size=(n, 2))
        y = np.sin(2 * X[:, 0]) + X[:, 1] ** 2
        m = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.05).fit(X, y)
        Xe = np.array([[0.5, -0.5], [-1.0, 0.3], [0.2, 1.2]])
        obs = RKHSExplainer(m, cme_regularization=1e-3).explain(Xe).values
        itv = RKHSExplainer(m, game="interventional").explain(Xe).values
        gaps.append(np.abs(obs - itv).max() / np.abs(itv).max())
    assert gaps[1] < gaps[0]
    assert gaps[1] < 0.1, gaps


def test_select_cme_regularization(data, krr):
    X, _ = data
    ex = RKHSExplainer(krr)
    grid = (1e-4, 1e-2, 1.0)
    best = ex.select_cme_regularization(grid=grid, n_folds=3, n_coalitions=3)
    assert best in grid and ex.cme_regularization == best
    assert ex.cme_cv_scores_[best] == min(ex.cme_cv_scores_.values())
    assert ex.cme_cv_scores_[1.0] > ex.cme_cv_scores_[best]  # heavy smoothing loses


# -- non-product kernels and model-agnostic models -------------------------------------------------
def test_matern_model_observational_matches_dense_c5(data):
    X, y = data
    kern = Matern(length_scale=[1.0, 2.0, 1.5], nu=1.5)
    m = KernelRidge(kernel=kern, alpha=0.1).fit(X, y)
    eta = 1e-2
    ex = RKHSExplainer(m, cme_regularization=eta)
    assert ex.kind == "kernel"
    e = ex.explain(X[:2])
    n = X.shape[0]
    f_ref = m.predict(X)
    for p in range(2):

        def v(S, p=p):
            if not S:
                return f_ref.mean()
            if len(S) == 3:
                return m.predict(X[p : p + 1])[0]
            kS = Matern(length_scale=np.array([1.0, 2.0, 1.5])[list(S)], nu=1.5)  # thesis eq. C.5
            XS = X[:, list(S)]
            beta = np.linalg.solve(kS(XS) + n * eta * np.eye(n), kS(XS, X[p : p + 1, list(S)]))[:, 0]
            return beta @ f_ref

        np.testing.assert_allclose(e.values[p], shapley_by_permutation_weights(v, 3), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize(
    "model",
    [
        KernelRidge(kernel="poly", degree=2, alpha=0.1),
        GaussianProcessRegressor(RationalQuadratic(), optimizer=None),
    ],
)
def test_other_kernels_efficiency(data, model):
    X, y = data
    m = model.fit(X, y)
    for value in ("observational", "interventional"):
        ex = RKHSExplainer(m, game=value)
        assert ex.kind == "kernel"
        e = ex.explain(X[:3])
        np.testing.assert_allclose(e.predictions, m.predict(X[:3]), atol=1e-9)
        np.testing.assert_allclose(e.base_values, m.predict(X).mean(), atol=1e-9)


def test_model_agnostic_interventional_matches_brute_force(data):
    X, _ = data

    def f(Z):
        return np.tanh(Z[:, 0]) * Z[:, 1] + Z[:, 2] ** 2

    R = X[:15]
    e = RKHSExplainer(f, R, game="interventional").explain(X[:2])
    for p in range(2):

        def v(S, p=p):
            H = R.copy()
            H[:, list(S)] = X[p, list(S)]
            return f(H).mean()

        np.testing.assert_allclose(e.values[p], shapley_by_permutation_weights(v, 3), rtol=1e-10, atol=1e-12)
    obs = RKHSExplainer(f, R).explain(X[:2])
    np.testing.assert_allclose(obs.predictions, f(X[:2]), atol=1e-10)


def test_svr_needs_reference_rows(data):
    X, y = data
    m = SVR(kernel="rbf", gamma=0.5).fit(X, y)
    with pytest.raises(ValueError, match="background is required"):
        RKHSExplainer(m)
    e = RKHSExplainer(m, X).explain(X[:2])
    np.testing.assert_allclose(e.predictions, m.predict(X[:2]), atol=1e-9)


# -- bad input ---------------------------------------------------------------------------------------
def test_unknown_value(data, krr):
    X, _ = data
    with pytest.raises(ValueError, match="game must be one of"):
        RKHSExplainer(krr, game="causal")


def test_nan_in_X(data, krr):
    X, _ = data
    Xn = X[:3].copy()
    Xn[1, 2] = np.nan
    with pytest.raises(ValueError, match=r"X contains NaN or infinite values at \(row 1, column 2\)"):
        RKHSExplainer(krr).explain(Xn)
    with pytest.raises(ValueError, match="background contains NaN"):
        RKHSExplainer(krr, Xn)


def test_wrong_number_of_features(data, krr):
    X, _ = data
    with pytest.raises(ValueError, match="X has 2 features, but the model expects 3"):
        RKHSExplainer(krr).explain(X[:3, :2])


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(cme_regularization=0.0), "cme_regularization must be a positive"),
        (dict(cme_regularization=np.nan), "cme_regularization must be a positive"),
        (dict(approximation="rff"), "approximation must be None or 'nystroem'"),
        (dict(n_landmarks=0), "n_landmarks must be a positive integer"),
    ],
)
def test_bad_parameters(krr, kwargs, match):
    with pytest.raises(ValueError, match=match):
        RKHSExplainer(krr, **kwargs)


def test_bad_budget(data, krr):
    X, _ = data
    with pytest.raises(ValueError, match="budget must be at least d \\+ 1"):
        RKHSExplainer(krr).explain(X[:2], budget=3)


def test_unusable_model():
    with pytest.raises(kx.UnsupportedModelError, match="neither predict nor __call__"):
        RKHSExplainer(object(), np.zeros((3, 2)))


def test_nan_predictions_are_reported(data):
    X, _ = data
    with pytest.raises(ValueError, match="NaN or infinite predictions"):
        RKHSExplainer(lambda Z: np.full(len(Z), np.nan), X[:5], game="interventional").explain(X[:2])


def test_lazy_top_level_name():
    assert kx.RKHSExplainer is RKHSExplainer


def test_sum_kernel_gp_and_scaled_pipeline():
    from sklearn.gaussian_process.kernels import RBF as skRBF
    from sklearn.gaussian_process.kernels import ConstantKernel
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 3))
    y = X[:, 0] + np.sin(X[:, 1])
    gp = GaussianProcessRegressor(
        ConstantKernel(2.0) * skRBF([1.0, 2.0, 3.0]) + ConstantKernel(0.5) * skRBF(5.0), optimizer=None
    ).fit(X, y)
    exact = RKHSExplainer(gp).explain(X[:3])
    np.testing.assert_allclose(exact.predictions, gp.predict(X[:3]), atol=1e-10)
    nys = RKHSExplainer(gp, approximation="nystroem", n_landmarks=40).explain(X[:3])
    np.testing.assert_allclose(nys.values, exact.values, atol=1e-5)
    Xs = X * [1.0, 10.0, 100.0]
    pipe = make_pipeline(StandardScaler(), KernelRidge(kernel="rbf", gamma=0.3)).fit(Xs, y)
    e = RKHSExplainer(pipe).explain(Xs[:3])  # reference rows back on the original scale
    np.testing.assert_allclose(e.predictions, pipe.predict(Xs[:3]), atol=1e-10)
    np.testing.assert_allclose(e.base_values, pipe.predict(Xs).mean(), atol=1e-10)


# -- the explainer contract ----------------------------------------------------------------------------
@pytest.mark.parametrize("value", ["observational", "interventional"])
def test_values_do_not_depend_on_n_jobs(data, krr, value):
    X, _ = data
    ex = RKHSExplainer(krr, game=value)
    one = ex.explain(X[:7], n_jobs=1)
    two = ex.explain(X[:7], n_jobs=3)
    np.testing.assert_allclose(two.values, one.values, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(two.base_values, one.base_values, rtol=1e-12, atol=1e-14)
    # the sampled solver draws the same coalitions for every block of rows
    s1 = ex.explain(X[:7], budget=100, random_state=3, n_jobs=1)
    s2 = ex.explain(X[:7], budget=100, random_state=3, n_jobs=2)
    np.testing.assert_allclose(s2.values, s1.values, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(s2.standard_errors, s1.standard_errors, rtol=1e-10, atol=1e-14)
    # and one point explained alone gets the values it gets in a batch
    alone = ex.explain(X[4:5], budget=100, random_state=3)
    np.testing.assert_allclose(alone.values[0], s1.values[4], rtol=1e-12, atol=1e-14)
    assert not np.allclose(ex.explain(X[:7], budget=100, random_state=4).values, s1.values)


def test_model_agnostic_n_jobs_and_tol(data):
    X, _ = data

    def f(Z):
        return np.tanh(Z[:, 0]) * Z[:, 1] + Z[:, 2] ** 2

    ex = RKHSExplainer(f, X[:15], game="interventional")
    a = ex.explain(X[:5], budget=200, random_state=0, tol=1e-9, n_jobs=1)
    b = ex.explain(X[:5], budget=200, random_state=0, tol=1e-9, n_jobs=2)
    np.testing.assert_array_equal(a.values, b.values)


def test_output_index_and_game(data, krr):
    pd = pytest.importorskip("pandas")
    X, _ = data
    df = pd.DataFrame(X[:3], columns=["a", "b", "c"], index=["p", "q", "r"])
    for value in ("observational", "interventional"):
        e = RKHSExplainer(krr, game=value).explain(df)
        assert e.game == value and e.output == "predict of KernelRidge"
        assert e.index == ["p", "q", "r"] and e.feature_names == ["a", "b", "c"]
        assert list(e.to_frame().index) == ["p", "q", "r"]
        np.testing.assert_allclose(e.predictions, krr.predict(X[:3]), atol=1e-10)
    assert RKHSExplainer(krr, game="interventional").explain(X[:2]).index is None


def test_background_defaults_and_repr(data, krr):
    X, _ = data
    ex = RKHSExplainer(krr)
    np.testing.assert_array_equal(ex.background, krr.X_fit_)
    assert ex.background_weights is None
    assert "observational" in repr(ex)


def test_interactions_enumerated_and_engine(data, krr):
    X, _ = data
    obs = RKHSExplainer(krr).explain(X[:3], interactions=True)
    assert obs.interactions.shape == (3, 3, 3)
    np.testing.assert_allclose(obs.interactions.sum(axis=2), obs.values, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(obs.interactions, np.swapaxes(obs.interactions, 1, 2), atol=1e-12)
    # the enumerated interactions of the observational game, in shap's convention
    game = RKHSExplainer(krr).value_function(X[:3])
    ref = kx.exact_shapley(game, 3, interactions=True)
    np.testing.assert_allclose(obs.interactions[:, 0, 1], ref.interactions[:, 0, 1, 0], rtol=1e-10, atol=1e-12)
    ex = RKHSExplainer(krr, game="interventional")
    itv = ex.explain(X[:3], interactions=True)
    ref = kx.exact_shapley(ex.value_function(X[:3]), 3, interactions=True)
    np.testing.assert_allclose(itv.interactions[:, 0, 2], ref.interactions[:, 0, 2, 0], rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(itv.interactions.sum(axis=2), itv.values, rtol=1e-9, atol=1e-11)
    with pytest.raises(ValueError, match="interactions=True needs enumerated coalitions"):
        ex.explain(X[:3], interactions=True, budget=100)
    with pytest.raises(ValueError, match="interactions=True needs enumerated coalitions"):
        RKHSExplainer(krr, max_exact_features=2).explain(X[:3], interactions=True)


@pytest.mark.parametrize("value", ["observational", "interventional"])
def test_background_weights_equal_repeated_rows(data, value):
    """Integer weights give the values of the background with each row repeated that often
    (the weighted CME is the CME of the repeated sample)."""
    X, y = data
    m = KernelRidge(kernel="rbf", gamma=0.4, alpha=0.1).fit(X, y)
    R = X[:12]
    counts = np.arange(1, 13) % 3 + 1
    Rrep = np.repeat(R, counts, axis=0)
    w = RKHSExplainer(m, R, background_weights=counts, game=value, cme_regularization=1e-2).explain(X[:3])
    rep = RKHSExplainer(m, Rrep, game=value, cme_regularization=1e-2).explain(X[:3])
    np.testing.assert_allclose(w.values, rep.values, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(w.base_values, rep.base_values, rtol=1e-10)
    # the non-product and model-agnostic routes weigh the rows the same way (the agnostic
    # observational game's lengthscales are medians of the rows, which repetition changes)
    mat = KernelRidge(kernel=Matern(length_scale=1.5, nu=1.5), alpha=0.1).fit(X, y)
    for model in (mat, mat.predict) if value == "interventional" else (mat,):
        a = RKHSExplainer(model, R, background_weights=counts, game=value, cme_regularization=1e-2).explain(X[:2])
        b = RKHSExplainer(model, Rrep, game=value, cme_regularization=1e-2).explain(X[:2])
        np.testing.assert_allclose(a.values, b.values, rtol=1e-7, atol=1e-9)
    with pytest.raises(ValueError, match="background_weights must be a 1-D array with one weight per row"):
        RKHSExplainer(m, R, background_weights=np.ones(5), game=value)


def test_weighted_nystroem_keeps_efficiency(data, krr):
    X, _ = data
    w = np.linspace(0.0, 1.0, X.shape[0])
    ex = RKHSExplainer(krr, background_weights=w, approximation="nystroem", n_landmarks=20)
    assert np.all(w[ex.explainer._landmarks] > 0)
    e = ex.explain(X[:3])
    np.testing.assert_allclose(e.predictions, krr.predict(X[:3]), atol=1e-10)
    np.testing.assert_allclose(e.base_values, krr.predict(X) @ (w / w.sum()), rtol=1e-10)


def test_background_work_is_cached_across_calls(data, krr):
    X, _ = data
    ex = RKHSExplainer(krr, cme_regularization=1e-2)
    first = ex.explain(X[:3]).values
    cme = ex.explainer._cme
    n_factors = len(cme.cache)
    assert n_factors == 2**3 - 2  # one factor per proper non-empty coalition
    again = ex.explain(X[:3]).values
    assert ex.explainer._cme is cme and len(cme.cache) == n_factors
    np.testing.assert_array_equal(again, first)
    # a new eta recomputes the factors: the values are those of a fresh explainer
    ex.cme_regularization = 1e-3
    fresh = RKHSExplainer(krr, cme_regularization=1e-3).explain(X[:3]).values
    np.testing.assert_allclose(ex.explain(X[:3]).values, fresh, rtol=1e-12)
    assert ex.explainer._cme is cme and cme.eta == 1e-3 and len(cme.cache) == n_factors
    assert not np.allclose(fresh, first)
    # the interventional game of a product-kernel model is the exact engine's: no CME is built
    itv = RKHSExplainer(krr, game="interventional")
    assert isinstance(itv.explainer, kx.ProductKernelExplainer) and not hasattr(itv.explainer, "_cme")


@pytest.mark.parametrize("approximation", [None, "nystroem"])
@pytest.mark.parametrize("weighted", [False, True])
def test_cache_keeps_packed_factors_only_and_repeats_the_values(data, krr, approximation, weighted):
    """Per coalition only the triangle of the system's factor is kept ((n + 1) n / 2 numbers, m
    landmarks with Nystroem); the tables and the term factors are formed again from the kernel
    tables, so a second call gives the first call's values to the last bit."""
    X, _ = data
    w = np.linspace(0.5, 1.5, X.shape[0]) if weighted else None
    ex = RKHSExplainer(krr, background_weights=w, approximation=approximation, n_landmarks=15)
    first = ex.explain(X[:3]).values
    cme = ex.explainer._cme
    size = X.shape[0] if approximation is None else 15
    assert len(cme.cache) == 2**3 - 2
    assert cme.cache.used == (2**3 - 2) * size * (size + 1) // 2 * 8
    np.testing.assert_array_equal(ex.explain(X[:3]).values, first)
    fresh = RKHSExplainer(krr, background_weights=w, approximation=approximation, n_landmarks=15)
    np.testing.assert_array_equal(fresh.explain(X[:3]).values, first)


def test_explain_options_are_validated(data, krr):
    X, _ = data
    ex = RKHSExplainer(krr)
    with pytest.raises(TypeError, match="interactions"):
        ex.explain(X[:2], interactions=1)
    with pytest.raises(ValueError, match="n_jobs"):
        ex.explain(X[:2], n_jobs=0)
    with pytest.raises(ValueError, match="random_state"):
        ex.explain(X[:2], random_state="seed")
    with pytest.raises(ValueError, match="random_state"):
        RKHSExplainer(krr, random_state=-1)


def test_progress_bar_does_not_change_values(data, krr, capsys):
    pytest.importorskip("tqdm")
    X, _ = data
    ex = RKHSExplainer(krr)
    quiet = ex.explain(X[:4])
    shown = ex.explain(X[:4], progress=True, n_jobs=2)
    np.testing.assert_allclose(shown.values, quiet.values, rtol=1e-12, atol=1e-14)
    assert "coalition" in capsys.readouterr().err
    gen = ex.explain(X[:4], budget=40, random_state=np.random.default_rng(1), progress=True)
    assert gen.standard_errors.shape == (4, 3)


# --- issue 11 -----------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_select_cme_regularization_validates_n_coalitions(data, krr, bad):
    ex = RKHSExplainer(krr, data[0])
    with pytest.raises(ValueError, match="n_coalitions must be a positive integer"):
        ex.select_cme_regularization(n_coalitions=bad)


@pytest.mark.parametrize("kwargs", [{"max_rows": 0}, {"random_state": -1}, {"random_state": "a"}])
def test_select_cme_regularization_names_bad_arguments(data, krr, kwargs):
    ex = RKHSExplainer(krr, data[0])
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        ex.select_cme_regularization(**kwargs)


def test_interventional_callable_is_evaluated_in_bounded_blocks():
    rng = np.random.default_rng(4)
    X, Z = rng.normal(size=(7, 3)), rng.normal(size=(11, 3))
    w = rng.random(11)
    largest = []

    def f(A):
        largest.append(A.shape[0])
        return A[:, 0] + A[:, 1] * A[:, 2] - np.sin(A[:, 2])

    # 8 bytes x (d + 1 output) per row: 2 KiB holds 64 rows, fewer than one point's 11 background rows x 7
    small = RKHSExplainer(f, Z, background_weights=w, game="interventional", max_block_bytes=2048)
    largest.clear()
    a = small.explain(X)
    assert 0 < max(largest) <= 2048 // (8 * 4)
    big = RKHSExplainer(f, Z, background_weights=w, game="interventional").explain(X)
    np.testing.assert_allclose(a.values, big.values, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(a.base_values, big.base_values, rtol=1e-13, atol=1e-14)
    # one background row per call when even one point's rows exceed the block
    tiny = RKHSExplainer(f, Z, game="interventional", max_block_bytes=1)
    largest.clear()
    c = tiny.explain(X[:2])
    assert max(largest) == 1
    np.testing.assert_allclose(c.values.sum(axis=1), f(X[:2]) - f(Z).mean(), atol=1e-13)


@pytest.mark.parametrize("bad", [0, -5, 1.5, True, None])
def test_max_block_bytes_is_validated(bad):
    with pytest.raises(ValueError, match="max_block_bytes must be a positive integer"):
        RKHSExplainer(lambda A: A[:, 0], np.zeros((3, 2)), game="interventional", max_block_bytes=bad)


@pytest.mark.parametrize("kind", ["exact", "weighted", "nystroem", "sum"])
def test_all_coalitions_at_once_equal_coalition_by_coalition(kind):
    """The depth-first products (one batch of every coalition) and the threads over coalitions give
    the per-coalition path's values to the last bit."""
    from kexplain.rkhs.cme import ProductCME

    rng = np.random.default_rng(7)
    X = rng.normal(size=(30, 4))
    X[:, 1] += 0.5 * X[:, 0]
    kernel = kx.kernels.RBF([1.0, 0.8, 1.3, 1.1])
    if kind == "sum":
        kernel = kx.kernels.SumKernel([kernel, kx.kernels.Laplacian(1.5, amplitude=0.4)])
    em = kx.KernelExpansion(X, rng.normal(size=(30, 2)), kernel, intercept=[0.2, -0.1])
    kw = {
        "weighted": dict(weights=np.linspace(1, 2, 30) / np.linspace(1, 2, 30).sum()),
        "nystroem": dict(landmarks=np.arange(0, 30, 3)),
    }.get(kind, {})
    coal = kx.shapley.all_coalitions(4)[rng.permutation(16)]
    Xe = X[:5] + 0.1
    one_by_one = np.concatenate([ProductCME(em, X, 1e-2, **kw).game(Xe)(coal[q : q + 1]) for q in range(16)])
    at_once = ProductCME(em, X, 1e-2, **kw).game(Xe)(coal)
    threads = ProductCME(em, X, 1e-2, **kw).game(Xe, n_jobs=3)(coal)
    np.testing.assert_array_equal(at_once, one_by_one)
    np.testing.assert_array_equal(threads, one_by_one)


def test_observational_n_jobs_threads_over_coalitions(data, krr):
    X, _ = data
    ex = kx.RKHSExplainer(krr, approximation="nystroem", n_landmarks=20)
    np.testing.assert_array_equal(ex.explain(X[:4], n_jobs=2).values, kx.RKHSExplainer(
        krr, approximation="nystroem", n_landmarks=20).explain(X[:4]).values)  # fmt: skip


def test_classifiers_are_explained_through_scores_never_labels():
    # scikit-learn >= 1.6 no longer sets _estimator_type on instances; classifiers must still be
    # explained through decision_function (or predict_proba), not through predicted class labels
    from sklearn.datasets import load_iris
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    X, y = load_iris(return_X_y=True)
    svc = make_pipeline(StandardScaler(), SVC(kernel="poly")).fit(X, y)
    ex = kx.RKHSExplainer(svc, background=X[:20], game="interventional").explain(X[:3])
    assert ex.output.startswith("decision_function")
    np.testing.assert_allclose(ex.values.sum(axis=1) + ex.base_values, svc.decision_function(X[:3]), atol=1e-10)
    knn = KNeighborsClassifier().fit(X, y)
    ex = kx.RKHSExplainer(knn, background=X[:20], game="interventional").explain(X[:3])
    assert ex.output.startswith("predict_proba")
    np.testing.assert_allclose(ex.values.sum(axis=1) + ex.base_values, knn.predict_proba(X[:3]), atol=1e-10)


def test_value_keyword_is_a_deprecated_spelling_of_game(data, krr):
    X, _ = data
    new = RKHSExplainer(krr, X[:20], game="interventional")
    with pytest.warns(FutureWarning, match=r"RKHSExplainer\(value=\.\.\.\) is deprecated.*game='interventional'"):
        old = RKHSExplainer(krr, X[:20], value="interventional")
    assert old.game == new.game == "interventional"
    np.testing.assert_array_equal(old.explain(X[:3]).values, new.explain(X[:3]).values)
    with pytest.raises(TypeError, match="both game='observational' and value='interventional'"):
        RKHSExplainer(krr, game="observational", value="interventional")


def test_sampled_product_game_through_mean_embeddings_equals_the_hybrid_mean():
    """With a budget, a product-kernel model's game is evaluated through the mean embedding of the
    absent features: the same numbers as averaging the model over hybrid rows (weighted too)."""
    from kexplain.explainers.model_agnostic import ModelAgnosticExplainer

    rng = np.random.default_rng(3)
    d = 5
    X = rng.normal(size=(40, d))
    em = kx.KernelExpansion(X[:25], rng.normal(size=(25, 2)), kx.kernels.RBF(np.linspace(0.7, 1.8, d)), [0.5, -1.0])
    w = rng.uniform(0.1, 1.0, size=30)
    C = rng.random((24, d)) < 0.5
    for weights in (None, w):
        r = kx.RKHSExplainer(em, X[:30], background_weights=weights, game="interventional")
        r.explain(X[:3], budget=64, random_state=0)
        game = r._sampled._game_at(X[30:34])
        ref = ModelAgnosticExplainer(em, X[:30], background_weights=weights)._game_at(X[30:34])
        np.testing.assert_allclose(game(C), ref(C), rtol=1e-12, atol=1e-12)

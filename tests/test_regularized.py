"""ShapleyRegularizedKernelRidge: closed form, exact zeta, and the effect of the regulariser."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.estimator_checks import parametrize_with_checks

import kexplain as kx
from kexplain.kernels import RBF
from kexplain.rkhs.regularized import ShapleyRegularizedKernelRidge


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    n, d = 40, 4
    C = np.eye(d)
    C[2, 3] = C[3, 2] = 0.9
    X = rng.multivariate_normal(np.zeros(d), C, size=n)
    y = X @ np.array([1.0, 2.0, 3.0, 4.0]) + 0.1 * rng.normal(size=n)
    return X, y


def test_zero_strength_is_kernel_ridge(data):
    X, y = data
    kern = RBF(2.0)
    m = ShapleyRegularizedKernelRidge(kernel=kern, alpha=0.3).fit(X, y)
    K = kern(X, X)
    coef = np.linalg.solve(K + 0.3 * np.eye(len(X)), y - y.mean())
    np.testing.assert_allclose(m.dual_coef_, coef, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(m.predict(X[:5]), K[:5] @ coef + y.mean(), rtol=1e-6)


def test_interventional_zeta_is_exact_by_enumeration(data):
    """zeta[m, i]: Shapley value of the feature at x_i for the basis function k(., x_m), with the
    training rows as background, enumerated over all coalitions."""
    X, y = data
    X = X[:6]
    kern = RBF(1.5)
    m = ShapleyRegularizedKernelRidge(kernel=kern, alpha=0.1, feature=2, strength=1.0).fit(X, y[:6])
    for mi in (0, 4):

        def vf(coalitions, mi=mi):
            out = np.empty((len(coalitions), len(X)))
            for q, S in enumerate(coalitions):
                H = np.where(S[None, None, :], X[:, None, :], X[None, :, :])  # (i, z, d)
                out[q] = kern(H.reshape(-1, 4), X[mi : mi + 1]).reshape(len(X), len(X)).mean(axis=1)
            return out

        ref = kx.exact_shapley(vf, 4).values[:, 2]  # over points i
        np.testing.assert_allclose(m.zeta_[mi], ref, rtol=1e-9, atol=1e-12)


def test_closed_form_solves_the_penalised_problem(data):
    X, y = data
    m = ShapleyRegularizedKernelRidge(kernel=RBF(2.0), alpha=0.2, feature=3, strength=5.0).fit(X, y)
    K = m.kernel_(X, X)
    n = len(X)
    yc = y - y.mean()

    def loss(c):
        phi = m.zeta_.T @ c
        return np.sum((yc - K @ c) ** 2) + 0.2 * c @ K @ c + 5.0 / n * np.sum(phi**2)

    base = loss(m.dual_coef_)
    rng = np.random.default_rng(1)
    for _ in range(5):
        assert loss(m.dual_coef_ + 1e-3 * rng.normal(size=n)) > base


@pytest.mark.parametrize("value", ["interventional", "observational"])
def test_strength_lowers_mean_squared_shapley_value(data, value):
    X, y = data
    msv = []
    for s in (0.0, 2.0, 20.0, 200.0):
        m = ShapleyRegularizedKernelRidge(
            kernel=RBF(2.0), alpha=0.1, feature=3, strength=s, game=value, n_coalitions=10, random_state=0
        ).fit(X, y)
        msv.append(np.mean(m.feature_shapley_values() ** 2))
    assert all(a > b for a, b in zip(msv, msv[1:])), msv
    assert msv[-1] < 0.5 * msv[0]


def test_regularised_values_agree_with_explainer(data):
    X, y = data
    m = ShapleyRegularizedKernelRidge(kernel=RBF(2.0), alpha=0.1, feature=1, strength=3.0).fit(X, y)
    e = kx.RKHSExplainer(m, game="interventional").explain(X)
    np.testing.assert_allclose(e.values[:, 1], m.feature_shapley_values(), rtol=1e-8, atol=1e-10)


def test_observational_is_reproducible(data):
    X, y = data
    kw = dict(kernel=RBF(2.0), feature=3, strength=5.0, game="observational", n_coalitions=5)
    a = ShapleyRegularizedKernelRidge(random_state=1, **kw).fit(X, y).dual_coef_
    b = ShapleyRegularizedKernelRidge(random_state=1, **kw).fit(X, y).dual_coef_
    np.testing.assert_array_equal(a, b)


def test_sklearn_conventions_and_feature_by_name(data):
    pd = pytest.importorskip("pandas")
    X, y = data
    m = ShapleyRegularizedKernelRidge(feature="c", strength=1.0, n_background=10, random_state=0)
    assert clone(m).get_params()["feature"] == "c"
    with pytest.raises(NotFittedError):
        m.predict(X)
    df = pd.DataFrame(X, columns=list("abcd"))
    assert m.fit(df, y) is m
    assert m.feature_index_ == 2 and m.kernel_ is not None  # median-heuristic RBF
    assert m.predict(df.iloc[:3]).shape == (3,)
    assert m.score(df, y) > 0.5
    with pytest.warns(UserWarning, match="fitted with feature names"):
        m.predict(X[:3])


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(game="causal"), "game must be one of"),
        (dict(alpha=-1.0), "alpha == -1.0, must be >= 0.0"),
        (dict(strength=np.nan), "strength must be a non-negative"),
        (dict(feature=7), "feature must be a column index"),
        (dict(feature="z"), "feature 'z' is not a column"),
        (dict(n_coalitions=0), "n_coalitions == 0, must be >= 1"),
        (dict(n_background=0), "n_background == 0, must be >= 1"),
        (dict(cme_regularization=0.0), "cme_regularization == 0.0, must be > 0.0"),
        (dict(cme_regularization=np.inf), "cme_regularization must be a positive finite number"),
    ],
)
def test_bad_parameters(data, kwargs, match):
    X, y = data
    with pytest.raises(ValueError, match=match):
        ShapleyRegularizedKernelRidge(**kwargs).fit(X, y)


def test_bad_kernel_and_data(data):
    X, y = data
    with pytest.raises(TypeError, match="kernel must be a kexplain product kernel"):
        ShapleyRegularizedKernelRidge(kernel="rbf").fit(X, y)
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match=r"X contains NaN or infinite values at \(row 0, column 0\)"):
        ShapleyRegularizedKernelRidge().fit(Xn, y)
    m = ShapleyRegularizedKernelRidge().fit(X, y)
    with pytest.raises(ValueError, match="X has 3 features, but ShapleyRegularizedKernelRidge is expecting 4"):
        m.predict(X[:, :3])


def test_lazy_top_level_name():
    assert kx.ShapleyRegularizedKernelRidge is ShapleyRegularizedKernelRidge


@pytest.mark.slow
@parametrize_with_checks(
    [
        ShapleyRegularizedKernelRidge(),
        ShapleyRegularizedKernelRidge(strength=1.0, n_background=8, random_state=0),
        ShapleyRegularizedKernelRidge(strength=1.0, game="observational", n_coalitions=2, random_state=0),
    ]
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_nan_in_predict_names_row_and_column(data):
    X, y = data
    m = ShapleyRegularizedKernelRidge().fit(X, y)
    Xn = X[:3].copy()
    Xn[2, 1] = np.inf
    with pytest.raises(ValueError, match=r"X contains NaN or infinite values at \(row 2, column 1\)"):
        m.predict(Xn)


@pytest.mark.parametrize("bad", [-1, "seed", 1.5])
def test_bad_random_state_is_named(data, bad):
    X, y = data
    with pytest.raises(ValueError, match="random_state"):
        ShapleyRegularizedKernelRidge(game="observational", random_state=bad).fit(X, y)


def test_value_keyword_is_a_deprecated_spelling_of_game(data):
    X, y = data
    kw = dict(kernel=RBF(2.0), feature=3, strength=5.0, n_coalitions=5, random_state=0)
    new = ShapleyRegularizedKernelRidge(game="observational", **kw).fit(X, y)
    with pytest.warns(FutureWarning, match=r"pass game='observational' instead"):
        old = ShapleyRegularizedKernelRidge(value="observational", **kw).fit(X, y)
    np.testing.assert_array_equal(old.dual_coef_, new.dual_coef_)
    assert old.game_ == new.game_ == "observational"
    with pytest.raises(TypeError, match="both game='observational' and value='interventional'"):
        ShapleyRegularizedKernelRidge(game="observational", value="interventional", **kw).fit(X, y)

"""Preference models (kexplain.preference): the preferential kernel, the estimators, their expansions.

Checked against brute-force write-outs of k_E and of the models' logits; the structural
properties (skew-symmetry, g(x, x) = 0, p(l > r) + p(r > l) = 1) hold exactly.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.gaussian_process.kernels import RBF as SkRBF
from sklearn.gaussian_process.kernels import ConstantKernel, Matern

from kexplain import UnsupportedModelError
from kexplain.kernels import RBF, Categorical, ProductKernel
from kexplain.preference import (
    PreferenceClassifier,
    PreferenceExpansion,
    PreferenceGPClassifier,
    PreferenceKernel,
    comparable_clusters,
    make_cluster_duels,
    make_latent_state_duels,
    preference_expansion,
)

# noise-free toy outcomes drive the GP amplitude to its bound; that is expected here
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def _rbf(A, B, ls):
    """Brute-force ARD RBF Gram matrix."""
    D = (A[:, None, :] - B[None, :, :]) / np.asarray(ls)
    return np.exp(-0.5 * (D**2).sum(-1))


def _brute_kE(l, r, L, R, ls, utility=False):
    if utility:
        return _rbf(l, L, ls) - _rbf(l, R, ls) - _rbf(r, L, ls) + _rbf(r, R, ls)
    return _rbf(l, L, ls) * _rbf(r, R, ls) - _rbf(l, R, ls) * _rbf(r, L, ls)


@pytest.fixture(scope="module")
def duels():
    rng = np.random.default_rng(0)
    L, R = rng.normal(size=(120, 3)), rng.normal(size=(120, 3))
    C = rng.normal(size=(120, 2))
    # left wins when its first feature is larger, reversed where the context's first entry is positive
    y = ((L[:, 0] > R[:, 0]) ^ (C[:, 0] > 0)).astype(int)
    return L, R, C, y


@pytest.fixture(scope="module")
def y0(duels):
    """Outcomes without the context: the larger first feature wins."""
    L, R, _, _ = duels
    return (L[:, 0] > R[:, 0]).astype(int)


@pytest.fixture(scope="module")
def fitted(duels, y0):
    L, R, C, y = duels
    kw = dict(lengthscale=1.5, C=10.0, n_components=40, random_state=0)
    return {
        "general": PreferenceClassifier(**kw).fit(L, R, y0),
        "utility": PreferenceClassifier(utility=True, **kw).fit(L, R, y0),
        "context": PreferenceClassifier(context_lengthscale=1.0, **kw).fit(L, R, y, context=C),
        "gp": PreferenceGPClassifier().fit(L[:40], R[:40], y0[:40]),
        "gp_context": PreferenceGPClassifier(utility=True).fit(L[:40], R[:40], y[:40], context=C[:40]),
    }


def _ctx(name, C):
    return C if "context" in name else None


# -- the scikit-learn kernel ------------------------------------------------------------------------
@pytest.mark.parametrize("utility", [False, True])
def test_kernel_matches_brute_force_and_is_skew(utility):
    rng = np.random.default_rng(1)
    X, Y = rng.normal(size=(7, 4)), rng.normal(size=(5, 4))
    k = PreferenceKernel(SkRBF([1.0, 2.0]), utility=utility)
    K = k(X, Y)
    ref = _brute_kE(X[:, :2], X[:, 2:], Y[:, :2], Y[:, 2:], [1.0, 2.0], utility)
    assert np.max(np.abs(K - ref)) < 1e-12
    flipped = np.hstack([X[:, 2:], X[:, :2]])
    assert np.array_equal(k(flipped, Y), -K)
    assert np.allclose(np.diag(k(X)), k.diag(X), atol=1e-14)
    assert np.linalg.eigvalsh(k(X)).min() > -1e-12


@pytest.mark.parametrize("utility", [False, True])
def test_kernel_gradient_matches_finite_differences(utility):
    rng = np.random.default_rng(2)
    Z = rng.normal(size=(6, 5))
    k = PreferenceKernel(ConstantKernel(2.0) * SkRBF([1.0, 2.0]), 2, utility, SkRBF(0.7))
    K, dK = k(Z, eval_gradient=True)
    assert dK.shape == (6, 6, 4)
    theta = k.theta.copy()
    for i in range(len(theta)):
        up, down = clone(k), clone(k)
        t = theta.copy()
        t[i] += 1e-6
        up.theta = t
        t[i] -= 2e-6
        down.theta = t
        assert np.max(np.abs((up(Z) - down(Z)) / 2e-6 - dK[..., i])) < 1e-7


def test_kernel_parameters_clone_and_context_split():
    k = PreferenceKernel(SkRBF(1.0), n_item_features=2, context_kernel=SkRBF(2.0))
    names = [h.name for h in k.hyperparameters]
    assert names == ["base_kernel__length_scale", "context_kernel__length_scale"]
    assert k.bounds.shape == (2, 2)
    k2 = clone(k)
    assert k2 == k and k2 is not k
    k2.set_params(base_kernel__length_scale=3.0)
    assert k2.get_params()["base_kernel__length_scale"] == 3.0 and k != k2
    with pytest.raises(ValueError, match="no context columns"):
        k(np.zeros((2, 4)))
    with pytest.raises(ValueError, match="n_item_features is required"):
        PreferenceKernel(context_kernel=SkRBF())(np.zeros((2, 5)))
    with pytest.raises(ValueError, match="even number"):
        PreferenceKernel()(np.zeros((2, 3)))


# -- the expansion ---------------------------------------------------------------------------------
def test_expansion_matches_brute_force_with_amplitudes_folded():
    rng = np.random.default_rng(3)
    L, R, U = rng.normal(size=(6, 3)), rng.normal(size=(6, 3)), rng.normal(size=(6, 2))
    coef = rng.normal(size=6)
    Xl, Xr, C = rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 2))
    ls, cls = np.array([1.0, 0.5, 2.0]), 0.8
    for kind in ("general", "utility"):
        pe = PreferenceExpansion(L, R, coef, 3.0 * RBF(ls), kind=kind, context=U, context_kernel=2.0 * RBF(cls))
        amp = 9.0 if kind == "general" else 3.0
        ref = (_brute_kE(Xl, Xr, L, R, ls, kind == "utility") * 2.0 * _rbf(C, U, [cls, cls])) @ (amp * coef)
        assert np.max(np.abs(pe.decision_function(Xl, Xr, C) - ref)) < 1e-12
        assert pe.item_kernel.total_amplitude == 1.0 and pe.context_kernel.total_amplitude == 1.0
        assert isinstance(pe.item_kernel, ProductKernel) and pe.item_kernel.n_features == 3


def test_expansion_accepts_label_features_and_checks_input():
    L = np.array([[0.0, "a"], [1.0, "b"]], dtype=object)
    R = np.array([[1.0, "b"], [0.0, "a"]], dtype=object)
    pe = PreferenceExpansion(L, R, [1.0, 0.5], ProductKernel([RBF(1.0), Categorical(0.2)]))
    g = pe.decision_function(L, R)
    assert np.array_equal(pe.decision_function(R, L), -g)
    with pytest.raises(ValueError, match="X_right has 3"):
        pe.decision_function(np.zeros((1, 2)), np.zeros((1, 3)))
    with pytest.raises(ValueError, match="fitted without a context"):
        pe.decision_function(L, R, context=np.zeros((2, 1)))
    with pytest.raises(ValueError, match="kind must be one of"):
        PreferenceExpansion(L, R, [1.0, 0.5], RBF(1.0), kind="other")
    with pytest.raises(ValueError, match="coef must have shape"):
        PreferenceExpansion(np.zeros((2, 1)), np.ones((2, 1)), [1.0], RBF(1.0))
    with pytest.raises(ValueError, match="together"):
        PreferenceExpansion(np.zeros((2, 1)), np.ones((2, 1)), [1.0, 2.0], RBF(1.0), context=np.zeros((2, 1)))


def test_preference_expansion_accepts_only_preference_models(fitted):
    pe = fitted["general"].to_expansion()
    assert preference_expansion(pe) is pe
    assert preference_expansion(fitted["gp"]) is fitted["gp"].expansion_
    with pytest.raises(TypeError, match="accepts a PreferenceExpansion"):
        preference_expansion(object())
    for model in (PreferenceClassifier(), PreferenceGPClassifier()):
        with pytest.raises(NotFittedError):
            preference_expansion(model)


# -- the estimators: structural properties ---------------------------------------------------------
NAMES = ["general", "utility", "context", "gp", "gp_context"]


@pytest.mark.parametrize("name", NAMES)
def test_skew_symmetry_zero_diagonal_and_probabilities(fitted, duels, name):
    L, R, C, _ = duels
    model = fitted[name]
    c = _ctx(name, C)
    g = model.decision_function(L, R, c)
    assert np.array_equal(model.decision_function(R, L, c), -g)
    assert np.array_equal(model.decision_function(L, L, c), np.zeros(len(L)))
    p_lr = model.predict_proba(L, R, c)
    p_rl = model.predict_proba(R, L, c)
    assert np.max(np.abs(p_lr.sum(axis=1) - 1.0)) < 1e-15
    assert np.max(np.abs(p_lr[:, 1] + p_rl[:, 1] - 1.0)) < 1e-15
    assert np.array_equal(model.predict(L, R, c), model.classes_[(g > 0).astype(int)])


@pytest.mark.parametrize("name", NAMES)
def test_expansion_equals_estimator_and_brute_force(fitted, duels, name):
    L, R, C, _ = duels
    model = fitted[name]
    c = _ctx(name, C)
    pe = preference_expansion(model)
    g = model.decision_function(L, R, c)
    assert np.max(np.abs(pe.decision_function(L, R, c) - g)) < 1e-10
    ls = pe.item_kernel.parts[0][0].lengthscale
    ref = _brute_kE(L, R, pe.left, pe.right, ls, pe.kind == "utility")
    if c is not None:
        ref = ref * _rbf(c, pe.context, pe.context_kernel.parts[0][0].lengthscale)
    assert np.max(np.abs(ref @ pe.coef - g)) < 1e-10


@pytest.mark.parametrize("name", ["gp", "gp_context"])
def test_gp_expansion_is_the_laplace_posterior_mean(fitted, duels, name):
    L, R, C, _ = duels
    model = fitted[name]
    c = _ctx(name, C)
    Z = np.hstack([L, R] + ([] if c is None else [c]))
    mean, var = model.gpc_.base_estimator_.latent_mean_and_variance(Z)
    assert np.max(np.abs(model.decision_function(L, R, c) - mean)) < 1e-10
    assert np.allclose(model.latent_variance(L, R, c), np.maximum(var, 0))
    # the hyperparameters were learned (they moved from the initial values)
    assert not np.allclose(model.kernel_.theta, clone(model.gpc_.kernel).theta)


def test_utility_model_is_a_difference_of_utilities(fitted, duels):
    L, R, _, _ = duels
    pe = fitted["utility"].to_expansion()
    k = pe.item_kernel

    def f(X):
        return (k.gram(X, pe.left) - k.gram(X, pe.right)) @ pe.coef

    assert np.max(np.abs(pe.decision_function(L, R) - (f(L) - f(R)))) < 1e-10


def test_fit_is_invariant_to_duel_orientation(duels):
    """Flipping duels (with their outcomes) before fit changes nothing: the model is skew-symmetric."""
    L, R, C, y = duels
    flip = np.arange(len(y)) % 3 == 0
    L2 = np.where(flip[:, None], R, L)
    R2 = np.where(flip[:, None], L, R)
    y2 = np.where(flip, 1 - y, y)
    kw = dict(lengthscale=1.5, C=10.0, n_components=40, random_state=0)
    a = PreferenceClassifier(**kw).fit(L, R, y).decision_function(L, R)
    b = PreferenceClassifier(**kw).fit(L2, R2, y2).decision_function(L, R)
    assert np.max(np.abs(a - b)) < 1e-8
    ga = PreferenceGPClassifier(optimizer=None).fit(L[:40], R[:40], y[:40]).decision_function(L, R)
    gb = PreferenceGPClassifier(optimizer=None).fit(L2[:40], R2[:40], y2[:40]).decision_function(L, R)
    assert np.max(np.abs(ga - gb)) < 1e-10


def test_one_sided_and_signed_labels(duels):
    L, R, _, y = duels
    win = y == 1
    W = np.where(win[:, None], L, R)
    Lo = np.where(win[:, None], R, L)
    kw = dict(lengthscale=1.5, C=10.0, n_components=30, random_state=0)
    model = PreferenceClassifier(**kw).fit(W, Lo, np.ones(len(y)))  # winners always on the left
    same = PreferenceClassifier(**kw).fit(L, R, y)
    assert np.max(np.abs(model.decision_function(L, R) - same.decision_function(L, R))) < 1e-8
    signed = PreferenceClassifier(**kw).fit(L, R, 2 * y - 1)
    assert list(signed.classes_) == [-1, 1]
    assert set(np.unique(signed.predict(L, R))) <= {-1, 1}
    assert signed.score(L, R, 2 * y - 1) == PreferenceClassifier(**kw).fit(L, R, y).score(L, R, y)


def test_cross_validation_picks_from_the_grid(duels, y0):
    L, R, _, _ = duels
    y = y0
    model = PreferenceClassifier(n_components=30, lengthscale_grid=(0.5, 2.0), C_grid=(1.0, 100.0), random_state=0)
    model.fit(L, R, y)
    assert set(model.cv_results_) == {(0.5, 1.0), (0.5, 100.0), (2.0, 1.0), (2.0, 100.0)}
    best = max(model.cv_results_, key=model.cv_results_.get)
    assert model.C_ == best[1]
    assert model.score(L, R, y) > 0.85


def test_accuracy_on_cluster_duels_beats_the_utility_model():
    """Chapter 7's non-rankable duels: the generalised model wins clearly (0.87 vs 0.68 here)."""
    data = make_cluster_duels(n_duels=2000, n_items=1000, random_state=0)
    train, test = data.split(0.3, random_state=0)
    kw = dict(lengthscale=3.6, C=100.0, n_components=300, random_state=0)
    gpm = PreferenceClassifier(**kw).fit(train.X_left, train.X_right, train.y)
    upm = PreferenceClassifier(utility=True, **kw).fit(train.X_left, train.X_right, train.y)
    acc_g = gpm.score(test.X_left, test.X_right, test.y)
    acc_u = upm.score(test.X_left, test.X_right, test.y)
    assert acc_g > 0.85 and acc_g > acc_u + 0.15


# -- scikit-learn conventions ----------------------------------------------------------------------
@pytest.mark.parametrize("name", ["general", "context", "gp_context"])
def test_clone_get_params_and_pickle(fitted, duels, name):
    L, R, C, _ = duels
    model = fitted[name]
    c = _ctx(name, C)
    twin = clone(model)
    assert twin.get_params() == model.get_params() or name.startswith("gp")
    assert not hasattr(twin, "expansion_")
    assert twin.set_params(random_state=3).random_state == 3
    restored = pickle.loads(pickle.dumps(model))
    assert np.array_equal(restored.decision_function(L, R, c), model.decision_function(L, R, c))


def test_bad_input_is_named(fitted, duels):
    L, R, C, y = duels
    model = PreferenceClassifier(lengthscale=1.0, C=1.0, n_components=10)
    with pytest.raises(ValueError, match="X_left has 3 features but X_right has 2"):
        model.fit(L, R[:, :2], y)
    bad = L.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="X_left"):
        model.fit(bad, R, y)
    with pytest.raises(ValueError, match="context"):
        model.fit(L, R, y, context=np.full((len(y), 1), np.nan))
    with pytest.raises(ValueError, match="two classes"):
        model.fit(L, R, np.arange(len(y)) % 3)
    with pytest.raises(ValueError, match="two classes"):
        PreferenceGPClassifier().fit(L, R, np.full(len(y), 2))
    with pytest.raises(ValueError, match="y has 5 entries"):
        model.fit(L, R, y[:5])
    with pytest.raises(ValueError, match="fitted with a context"):
        fitted["context"].decision_function(L, R)
    with pytest.raises(ValueError, match="fitted without a context"):
        fitted["general"].predict(L, R, context=C)
    with pytest.raises(ValueError, match="fitted with a context"):
        fitted["gp_context"].predict_proba(L, R)
    with pytest.raises(ValueError, match="fitted with 3"):
        fitted["gp"].decision_function(L[:, :2], R[:, :2])
    with pytest.raises(NotFittedError):
        PreferenceClassifier().decision_function(L, R)
    with pytest.raises(NotFittedError):
        PreferenceGPClassifier().predict(L, R)
    with pytest.raises(ValueError, match="n_components"):
        PreferenceClassifier(n_components=0).fit(L, R, y)
    # kernels without a product form fit and predict (issue 28); PREF-SHAP alone refuses them
    with pytest.raises(UnsupportedModelError, match="PREF-SHAP"):
        PreferenceGPClassifier(kernel=Matern()).fit(L[:10], R[:10], y[:10]).to_expansion()
    with pytest.raises(UnsupportedModelError, match="PREF-SHAP"):
        PreferenceGPClassifier(context_kernel=SkRBF() + ConstantKernel()).fit(
            L[:10], R[:10], y[:10], context=C[:10]
        ).to_expansion()
    with pytest.raises(ValueError, match="too few for 3-fold"):
        PreferenceClassifier().fit(L[:2], R[:2], y[:2])
    with pytest.raises(ValueError, match="lengthscale must be"):
        PreferenceClassifier(lengthscale=[1.0, 2.0], C=1.0).fit(L, R, y)


# -- clusters of comparable items ------------------------------------------------------------------
def test_comparable_clusters_recover_planted_groups():
    rng = np.random.default_rng(5)
    # two groups far apart in feature space; duels only within a group, decided by feature 1
    items = np.vstack([rng.normal(size=(15, 2)), rng.normal(size=(15, 2)) + [8.0, 0.0]])
    truth = np.repeat([0, 1], 15)
    a = rng.integers(30, size=600)
    b = np.where(a < 15, rng.integers(15, size=600), 15 + rng.integers(15, size=600))
    keep = a != b
    a, b = a[keep], b[keep]
    y = (items[a, 1] > items[b, 1]).astype(int)
    model = PreferenceClassifier(lengthscale=2.0, C=10.0, n_components=100, random_state=0)
    model.fit(items[a], items[b], y)
    labels = comparable_clusters(model, items, 2, random_state=0)
    agree = max(np.mean(labels == truth), np.mean(labels != truth))
    assert agree == 1.0
    with pytest.raises(ValueError, match="n_clusters"):
        comparable_clusters(model, items, 0)


def test_comparable_clusters_on_latent_state_duels_runs():
    data = make_latent_state_duels(n_items=20, n_states=2, density=0.8, across="random", random_state=0)
    model = PreferenceClassifier(lengthscale=2.0, C=10.0, n_components=60, random_state=0)
    model.fit(data.X_left, data.X_right, data.y)
    labels = comparable_clusters(model, data.items, 2, random_state=0)
    assert labels.shape == (20,) and set(labels.tolist()) <= {0, 1}

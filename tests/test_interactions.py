"""Interaction conventions (issue 12, item 2): SII by default, STII on request, one layout.

References: shapiq's ExactComputer (index "SII" and "STII", order 2) on small games and models,
and shap's ExactExplainer, whose ``interactions=True`` output is STII in the layout every kexplain
explainer uses (half the pair's index off the diagonal, each row summing to the Shapley value).
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import interventional_value_function

import kexplain as kx
from kexplain.base import check_explain_options
from kexplain.shapley.interactions import interaction_layout
from kexplain.shapley.product import product_game_block

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::FutureWarning")


def _shapiq_matrix(value_function, d, index):
    """shapiq's pairwise index as a (d, d) matrix and its singletons, for a one-point game."""
    shapiq = pytest.importorskip("shapiq")
    computer = shapiq.ExactComputer(lambda S: np.asarray(value_function(np.asarray(S, dtype=bool))), n_players=d)
    iv = computer(index, order=2)
    pairs = np.zeros((d, d))
    singles = np.zeros(d)
    for coalition, pos in iv.interaction_lookup.items():
        if len(coalition) == 2:
            j, k = coalition
            pairs[j, k] = pairs[k, j] = iv.values[pos]
        elif len(coalition) == 1:
            singles[coalition[0]] = iv.values[pos]
    return pairs, singles


def _random_product_game(rng, r, d):
    a = rng.uniform(-0.5, 1.5, (1, r, d))
    b = rng.uniform(-0.5, 1.5, (1, r, d))
    c = rng.normal(size=(r, 1))

    def v(S):
        S = np.atleast_2d(S)
        return np.stack([np.prod(np.where(s, a[0], b[0]), axis=-1) @ c[:, 0] for s in S])

    return a, b, c, v


@pytest.mark.parametrize("d", [2, 3, 5, 7])
@pytest.mark.parametrize("index", ["sii", "stii"])
def test_product_engine_and_enumeration_match_shapiq(d, index):
    rng = np.random.default_rng(d)
    a, b, c, v = _random_product_game(rng, 4, d)
    pairs, singles = _shapiq_matrix(v, d, index.upper())
    phi, _, _, raw = product_game_block(a, b, c, interactions=index)
    np.testing.assert_allclose(raw[0, :, :, 0], pairs, rtol=1e-10, atol=1e-12)
    layout = interaction_layout(phi, raw)[0, :, :, 0]
    enum = kx.exact_shapley(v, d, interactions=index)
    np.testing.assert_allclose(enum.interactions, layout, rtol=1e-10, atol=1e-12)
    off = ~np.eye(d, dtype=bool)
    np.testing.assert_allclose(2 * layout[off], pairs[off], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(layout.sum(axis=1), phi[0, :, 0], rtol=1e-10, atol=1e-12)
    if index == "stii":
        # STII's singletons are the main effects v({j}) - v(empty set): the layout's diagonal
        np.testing.assert_allclose(np.diag(layout), singles, rtol=1e-10, atol=1e-12)


def _svr_setup(d=4, seed=0):
    from sklearn.svm import SVR

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, d))
    y = np.sin(X[:, 0]) * X[:, 1] + X[:, 2] * X[:, 3] + 0.3 * X[:, 0]
    return SVR(C=3.0).fit(X, y), X


@pytest.mark.parametrize("index", ["sii", "stii"])
def test_product_kernel_explainer_matches_shapiq_on_an_svr(index):
    model, X = _svr_setup()
    Z = X[:10]
    explainer = kx.ProductKernelExplainer(model, background=Z)
    ex = explainer.explain(X[30:32], interactions=index)
    assert ex.interaction_index == index
    vf = interventional_value_function(model.predict, X[30:32], Z)
    for p in range(2):
        pairs, singles = _shapiq_matrix(lambda S, p=p: vf(S)[:, p], 4, index.upper())
        off = ~np.eye(4, dtype=bool)
        np.testing.assert_allclose(2 * ex.interactions[p][off], pairs[off], rtol=1e-9, atol=1e-11)
        if index == "stii":
            np.testing.assert_allclose(np.diag(ex.interactions[p]), singles, rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(ex.interactions.sum(axis=2), ex.values, rtol=1e-10, atol=1e-12)


@pytest.mark.slow
def test_stii_equals_shaps_exact_explainer():
    shap = pytest.importorskip("shap")
    model, X = _svr_setup()
    B = X[:5]
    ours = kx.ProductKernelExplainer(model, background=B).explain(X[30:32], interactions="stii")
    theirs = shap.ExactExplainer(model.predict, shap.maskers.Independent(B, max_samples=len(B)))(
        X[30:32], interactions=True
    )
    np.testing.assert_allclose(ours.interactions, theirs.values, rtol=1e-9, atol=1e-11)
    # the default (SII) differs from shap's ExactExplainer off the diagonal on this model
    sii = kx.ProductKernelExplainer(model, background=B).explain(X[30:32], interactions=True)
    assert sii.interaction_index == "sii"
    assert np.max(np.abs(sii.interactions - theirs.values)) > 1e-3


@pytest.mark.parametrize("value", [True, "sii", "SII", "stii", "STII", np.True_])
def test_check_explain_options_normalises_the_index(value):
    index, _, _ = check_explain_options(value, False, None)
    assert index == ("stii" if str(value).lower() == "stii" else "sii")
    assert check_explain_options(False, False, None)[0] is None


@pytest.mark.parametrize("bad", ["shapley", "taylor", 2, 1.0, ["sii"]])
def test_unknown_index_is_refused_by_every_explainer(bad):
    model, X = _svr_setup()
    with pytest.raises(TypeError, match="'sii'.*'stii'"):
        kx.ProductKernelExplainer(model).explain(X[:1], interactions=bad)
    with pytest.raises(TypeError, match="'sii'.*'stii'"):
        kx.exact_shapley(lambda S: S.sum(axis=1).astype(float), 3, interactions=bad)


@pytest.mark.parametrize("index", ["sii", "stii"])
def test_star_and_rkhs_explainers_pass_the_index_through(index):
    from kexplain.star import StarExplainer, StarModel

    rng = np.random.default_rng(4)
    X, Z = rng.normal(size=(2, 4)), rng.normal(size=(5, 4))
    f = lambda A: A[:, 0] * np.exp(A[:, 1]) - A[:, 2] ** 2  # noqa: E731
    model = StarModel([((2, 0, 3), f), ((1, 3), lambda A: A[:, 0] * A[:, 1])], n_features=4)
    ex = StarExplainer(model, Z).explain(X, interactions=index)
    ref = kx.exact_shapley(interventional_value_function(model.predict, X, Z), 4, interactions=index)
    np.testing.assert_allclose(ex.interactions, ref.interactions, atol=1e-10)
    assert ex.interaction_index == index

    svr, Xs = _svr_setup()
    for value in ("observational", "interventional"):
        rk = kx.RKHSExplainer(svr, background=Xs[:12], value=value).explain(Xs[30:32], interactions=index)
        assert rk.interaction_index == index
        np.testing.assert_allclose(rk.interactions.sum(axis=2), rk.values, rtol=1e-9, atol=1e-11)
    observational = kx.RKHSExplainer(svr, background=Xs[:12])
    ref = kx.exact_shapley(observational.value_function(Xs[30:32]), 4, interactions=index)
    got = observational.explain(Xs[30:32], interactions=index)
    np.testing.assert_allclose(got.interactions, ref.interactions[..., 0], rtol=1e-9, atol=1e-11)


@pytest.mark.slow  # importing torch takes seconds
@pytest.mark.parametrize("index", ["sii", "stii"])
def test_functional_game_multi_output_and_torch_path(index):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    k = kx.kernels.SumKernel([kx.kernels.RBF(1.0), kx.kernels.Laplacian(2.0)])
    em = kx.KernelExpansion(rng.normal(size=(6, 5)), rng.normal(size=(6, 2)), k)
    X = rng.normal(size=(3, 5))
    explainer = kx.ProductKernelExplainer(em)
    ex = explainer.explain(X, interactions=index)
    from conftest import functional_value_function

    ref = kx.exact_shapley(functional_value_function(em, X), 5, interactions=index)
    np.testing.assert_allclose(ex.interactions, ref.interactions, rtol=1e-10, atol=1e-12)
    got = explainer.explain(torch.tensor(X), interactions=index)
    np.testing.assert_allclose(got.interactions, ex.interactions, rtol=1e-10, atol=1e-12)
    assert got.interaction_index == index

"""STAR-SHAP (kexplain.star.StarExplainer) against enumeration, shap and closed forms."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kexplain as kx
from kexplain.star import (
    StarExplainer,
    StarModel,
    StarTerm,
    as_star_model,
    explain_star,
    unanimity_data,
    unanimity_model,
)

# smooth, non-additive functions of 1..4 columns, so every sub-coalition value matters
_FUNCS = [
    lambda X: np.sin(X[:, 0]) + 0.5 * X[:, 0] ** 2,
    lambda X: X[:, 0] * np.cos(X[:, -1]) + X.sum(1),
    lambda X: np.exp(0.3 * X.prod(1)) - X[:, 0],
    lambda X: np.tanh(X @ np.arange(1.0, X.shape[1] + 1)) * X[:, -1],
]


def random_star_model(rng, d, n_terms, max_order, n_outputs=1):
    terms = []
    for t in range(n_terms):
        k = int(rng.integers(1, max_order + 1))
        feats = rng.choice(d, k, replace=False)
        f = _FUNCS[t % len(_FUNCS)]
        if n_outputs == 1:
            terms.append((feats, f))
        else:
            w = rng.normal(size=n_outputs)
            terms.append((feats, lambda X, f=f, w=w: f(X)[:, None] * w[None, :]))
    return StarModel(terms, n_features=d, intercept=rng.normal(size=n_outputs) if n_outputs > 1 else 0.7)


def interventional_reference(model, X, Z, weights=None, interactions=False):
    """Enumerate all 2^d coalitions of v(S) = E_z h(x_S, z_notS) with the full model."""
    d = X.shape[1]
    w = np.full(Z.shape[0], 1.0 / Z.shape[0]) if weights is None else weights / weights.sum()

    def vf(S):
        out = []
        for s in S:
            rows = np.where(s[None, None, :], X[:, None, :], Z[None, :, :]).reshape(-1, d)
            pred = model.predict(rows).reshape(X.shape[0], Z.shape[0], -1)
            out.append(np.einsum("nmo,m->no", pred, w))
        return np.array(out)

    return kx.exact_shapley(vf, d, interactions=interactions)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), d=st.integers(1, 7), n_terms=st.integers(1, 5), order=st.integers(1, 4))
def test_equals_enumeration_on_random_star_models(seed, d, n_terms, order):
    rng = np.random.default_rng(seed)
    order = min(order, d)
    model = random_star_model(rng, d, n_terms, order)
    X, Z = rng.normal(size=(3, d)), rng.normal(size=(4, d))
    ex = StarExplainer(model, Z).explain(X, interactions=True)
    ref = interventional_reference(model, X, Z, interactions=True)
    np.testing.assert_allclose(ex.values, ref.values[..., 0], atol=1e-10)
    np.testing.assert_allclose(ex.base_values, ref.v_empty[:, 0], atol=1e-10)
    ref_inter = ref.interactions[..., 0]  # exact_shapley returns shap's layout
    np.testing.assert_allclose(ex.interactions, ref_inter, atol=1e-10)
    # efficiency against the background mean, and interaction rows sum to the values
    np.testing.assert_allclose(ex.predictions, model.predict(X), atol=1e-10)
    np.testing.assert_allclose(ex.interactions.sum(-1), ex.values, atol=1e-10)


def test_d10_model_equals_enumeration():
    rng = np.random.default_rng(3)
    model = random_star_model(rng, 10, 8, 4)
    X, Z = rng.normal(size=(2, 10)), rng.normal(size=(3, 10))
    ex = StarExplainer(model, Z).explain(X)
    ref = interventional_reference(model, X, Z)
    np.testing.assert_allclose(ex.values, ref.values[..., 0], atol=1e-10)


def test_multi_output_terms_and_weights():
    rng = np.random.default_rng(5)
    model = random_star_model(rng, 5, 4, 3, n_outputs=3)
    X, Z = rng.normal(size=(3, 5)), rng.normal(size=(6, 5))
    w = rng.uniform(0.1, 2.0, size=6)
    ex = StarExplainer(model, Z, background_weights=w).explain(X, interactions=True)
    ref = interventional_reference(model, X, Z, weights=w, interactions=True)
    assert ex.values.shape == (3, 5, 3) and ex.interactions.shape == (3, 5, 5, 3)
    np.testing.assert_allclose(ex.values, ref.values, atol=1e-10)
    np.testing.assert_allclose(ex.predictions, model.predict(X), atol=1e-10)
    for o in range(3):
        ref_inter = ref.interactions[..., o]  # exact_shapley returns shap's layout
        np.testing.assert_allclose(ex.interactions[..., o], ref_inter, atol=1e-10)


def test_weights_equal_repeated_rows():
    rng = np.random.default_rng(6)
    model = random_star_model(rng, 4, 3, 3)
    X, Z = rng.normal(size=(2, 4)), rng.normal(size=(3, 4))
    a = StarExplainer(model, Z, background_weights=[1, 2, 3]).explain(X)
    b = StarExplainer(model, np.repeat(Z, [1, 2, 3], axis=0)).explain(X)
    np.testing.assert_allclose(a.values, b.values, atol=1e-12)


def test_chunking_does_not_change_values():
    rng = np.random.default_rng(7)
    model = random_star_model(rng, 6, 5, 4)
    X, Z = rng.normal(size=(7, 6)), rng.normal(size=(9, 6))
    a = StarExplainer(model, Z).explain(X, interactions=True)
    b = StarExplainer(model, Z, max_rows=5).explain(X, interactions=True)
    np.testing.assert_allclose(a.values, b.values, atol=1e-12)
    np.testing.assert_allclose(a.interactions, b.interactions, atol=1e-12)


@pytest.mark.slow
def test_matches_shap_exact_explainer_with_independent_masker():
    shap = pytest.importorskip("shap")
    rng = np.random.default_rng(11)
    model = random_star_model(rng, 6, 6, 3)
    X, Z = rng.normal(size=(4, 6)), rng.normal(size=(8, 6))
    masker = shap.maskers.Independent(Z, max_samples=Z.shape[0])
    sv = shap.explainers.ExactExplainer(model.predict, masker)(X)
    ex = StarExplainer(model, Z).explain(X)
    np.testing.assert_allclose(ex.values, sv.values, atol=1e-9)
    np.testing.assert_allclose(ex.base_values, sv.base_values, atol=1e-9)


def test_gam_closed_form_equation_15():
    rng = np.random.default_rng(2)
    fs = [np.sin, np.square, np.exp, np.tanh]
    model = StarModel([((j,), lambda X, f=f: f(X[:, 0])) for j, f in enumerate(fs)], intercept=1.5)
    X, Z = rng.normal(size=(5, 4)), rng.normal(size=(7, 4))
    ex = StarExplainer(model, Z).explain(X, interactions=True)
    expected = np.stack([f(X[:, j]) - f(Z[:, j]).mean() for j, f in enumerate(fs)], axis=1)
    np.testing.assert_allclose(ex.values, expected, atol=1e-12)
    np.testing.assert_allclose(ex.base_values, 1.5 + sum(f(Z[:, j]).mean() for j, f in enumerate(fs)), atol=1e-12)
    # an additive model has no interactions: the interaction matrix is diagonal
    off = ex.interactions - np.einsum("njj->nj", ex.interactions)[:, :, None] * np.eye(4)
    assert np.abs(off).max() < 1e-12


def test_pure_product_pair_splits_equally():
    # f = x0 * x1 with one background row z: phi_0 = (x0 x1 - z0 x1 + x0 z1 - z0 z1) / 2
    x, z = np.array([[2.0, 3.0, 5.0]]), np.array([[1.0, -1.0, 0.0]])
    ex = StarExplainer([((0, 1), lambda X: X[:, 0] * X[:, 1])], z).explain(x)
    phi0 = 0.5 * ((2 * 3 - 1 * 3) + (2 * -1 - 1 * -1))
    phi1 = 0.5 * ((2 * 3 - 2 * -1) + (1 * 3 - 1 * -1))
    np.testing.assert_allclose(ex.values[0], [phi0, phi1, 0.0], atol=1e-12)


def test_unanimity_model_does_not_depend_on_total_dimension():
    # the same terms embedded in 12 or 400 features give the same values on their features
    model = unanimity_model(12, 3, 10, random_state=0)
    X, Z = unanimity_data(4, 12, random_state=1), unanimity_data(5, 12, random_state=2)
    small = StarExplainer(model, Z).explain(X)
    big_model = StarModel(model.terms, n_features=400)
    Xb, Zb = np.zeros((4, 400)), np.zeros((5, 400))
    Xb[:, :12], Zb[:, :12] = X, Z
    big = StarExplainer(big_model, Zb).explain(Xb)
    np.testing.assert_allclose(big.values[:, :12], small.values, atol=1e-12)
    assert np.all(big.values[:, 12:] == 0.0)


def test_explanation_object_and_one_shot_function():
    rng = np.random.default_rng(4)
    model = random_star_model(rng, 3, 2, 2)
    X, Z = rng.normal(size=(2, 3)), rng.normal(size=(3, 3))
    ex = explain_star(model, X, Z)
    assert isinstance(ex, kx.Explanation) and ex.game == "interventional"
    assert ex.feature_names == ["x0", "x1", "x2"]
    np.testing.assert_allclose(ex.values, StarExplainer(model, Z).explain(X).values)
    assert kx.star.StarExplainer is StarExplainer


# -- bad input --------------------------------------------------------------------------------


def test_terms_out_of_range_are_refused():
    with pytest.raises(ValueError, match="out of range"):
        StarModel([((0, 5), lambda X: X[:, 0])], n_features=3)
    Z = np.zeros((2, 3))
    with pytest.raises(ValueError, match=r"background has 3 columns.*term 0 \(x0\*x3\) reads column\(s\) \[3\]"):
        StarExplainer([((0, 3), lambda X: X[:, 0])], Z)
    with pytest.raises(ValueError, match="background has 3 columns, but the model has 4 features"):
        StarExplainer(StarModel([((0, 3), lambda X: X[:, 0])], n_features=4), Z)
    with pytest.raises(ValueError, match="non-negative"):
        StarTerm((-1,), lambda X: X[:, 0])
    with pytest.raises(ValueError, match="distinct"):
        StarTerm((1, 1), lambda X: X[:, 0])
    with pytest.raises(TypeError, match="integer"):
        StarTerm((0.5,), lambda X: X[:, 0])
    with pytest.raises(TypeError, match="callable"):
        StarTerm((0,), "not a function")


def test_empty_background_and_nan_are_refused():
    model = StarModel([((0,), lambda X: X[:, 0])], n_features=2)
    with pytest.raises(ValueError, match="background must have at least 1 row"):
        StarExplainer(model, np.zeros((0, 2)))
    with pytest.raises(ValueError, match="background"):
        StarExplainer(model, None)
    bad = np.zeros((2, 2))
    bad[1, 0] = np.nan
    with pytest.raises(ValueError, match=r"background contains NaN.*row 1, column 0"):
        StarExplainer(model, bad)
    exp = StarExplainer(model, np.zeros((2, 2)))
    with pytest.raises(ValueError, match=r"X contains NaN"):
        exp.explain(bad)
    with pytest.raises(ValueError, match="model expects 2"):
        exp.explain(np.zeros((1, 3)))
    with pytest.raises(ValueError, match="1-D"):
        exp.explain(np.zeros(2))


def test_bad_term_outputs_are_refused():
    Z, X = np.zeros((2, 2)), np.ones((1, 2))
    with pytest.raises(ValueError, match="NaN or infinite"):
        StarExplainer([((0,), lambda X: np.full(len(X), np.nan))], Z)
    with pytest.raises(ValueError, match="must return shape"):
        StarExplainer([((0,), lambda X: np.zeros(3))], Z)
    flaky = StarExplainer([((0,), lambda X: np.where(X[:, 0] > 0.5, np.inf, 0.0))], Z)
    with pytest.raises(ValueError, match="NaN or infinite"):
        flaky.explain(X)


def test_unsupported_model_names_the_alternatives():
    with pytest.raises(kx.UnsupportedModelError, match="ProductKernelExplainer"):
        as_star_model(object())
    with pytest.raises(TypeError, match="interactions"):
        StarExplainer([((0,), lambda X: X[:, 0])], np.zeros((1, 1))).explain(np.zeros((1, 1)), interactions="yes")


def test_interactions_match_shapiq_exact_sii():
    shapiq = pytest.importorskip("shapiq")
    from kexplain.star import interventional_value_function

    rng = np.random.default_rng(8)
    model = random_star_model(rng, 5, 5, 3)
    X, Z = rng.normal(size=(2, 5)), rng.normal(size=(6, 5))
    ex = StarExplainer(model, Z).explain(X, interactions=True)
    for i in range(2):
        computer = shapiq.ExactComputer(interventional_value_function(model.predict, X[i], Z), n_players=5)
        sii = computer(index="SII", order=2)
        sv = computer(index="SV", order=1)
        for j in range(5):
            assert abs(sv[(j,)] - ex.values[i, j]) < 1e-10
            for k in range(j + 1, 5):
                # shap convention: off-diagonal entries hold half the Shapley interaction index
                assert abs(sii[(j, k)] - 2 * ex.interactions[i, j, k]) < 1e-10


def test_terms_on_the_same_set_in_any_order_are_combined_correctly():
    rng = np.random.default_rng(9)
    X, Z = rng.normal(size=(3, 4)), rng.normal(size=(5, 4))
    f = lambda A: A[:, 0] * np.exp(A[:, 1]) - A[:, 2] ** 2  # noqa: E731  (asymmetric in its columns)
    model = StarModel([((2, 0, 3), f), ((0, 2, 3), f), ((3, 2, 0), f), ((1,), lambda A: A[:, 0] ** 3)], n_features=4)
    ex = StarExplainer(model, Z).explain(X, interactions=True)
    ref = interventional_reference(model, X, Z, interactions=True)
    np.testing.assert_allclose(ex.values, ref.values[..., 0], atol=1e-10)
    np.testing.assert_allclose(ex.interactions, ref.interactions[..., 0], atol=1e-10)


# -- the explainer contract ---------------------------------------------------------------------


def test_background_is_required_and_the_message_says_what_to_pass():
    model = StarModel([((0,), lambda X: X[:, 0])], n_features=2)
    with pytest.raises(ValueError, match=r"needs a background.*interventional.*StarExplainer\(model, X_train\)"):
        StarExplainer(model)
    with pytest.raises(ValueError, match="needs a background"):
        explain_star(model, np.zeros((1, 2)), None)


def test_options_are_keyword_only_and_validated():
    exp = StarExplainer([((0,), lambda X: X[:, 0])], np.zeros((2, 1)))
    with pytest.raises(TypeError):
        exp.explain(np.zeros((1, 1)), True)  # options are keyword-only
    with pytest.raises(TypeError):
        StarExplainer([((0,), lambda X: X[:, 0])], np.zeros((2, 1)), [0.5, 0.5])
    with pytest.raises(TypeError, match="progress"):
        exp.explain(np.zeros((1, 1)), progress="no")
    with pytest.raises(ValueError, match="n_jobs"):
        exp.explain(np.zeros((1, 1)), n_jobs=0)


@pytest.mark.parametrize("n_outputs", [1, 3])
def test_values_do_not_depend_on_n_jobs(n_outputs):
    rng = np.random.default_rng(12)
    model = random_star_model(rng, 6, 6, 3, n_outputs=n_outputs)
    X, Z = rng.normal(size=(9, 6)), rng.normal(size=(7, 6))
    exp = StarExplainer(model, Z)
    one = exp.explain(X, interactions=True, n_jobs=1)
    two = exp.explain(X, interactions=True, n_jobs=2)
    np.testing.assert_allclose(two.values, one.values, rtol=0, atol=1e-12)
    np.testing.assert_allclose(two.interactions, one.interactions, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(two.base_values, one.base_values)
    np.testing.assert_array_equal(two.data, X)
    assert two.values.shape == one.values.shape == ((9, 6) if n_outputs == 1 else (9, 6, n_outputs))


def test_random_state_has_no_effect():
    rng = np.random.default_rng(13)
    model = random_star_model(rng, 4, 3, 2)
    X, Z = rng.normal(size=(3, 4)), rng.normal(size=(5, 4))
    exp = StarExplainer(model, Z)
    np.testing.assert_array_equal(exp.explain(X, random_state=0).values, exp.explain(X, random_state=1).values)


def test_game_output_and_index():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(14)
    model = random_star_model(rng, 3, 2, 2)
    Z = pd.DataFrame(rng.normal(size=(4, 3)), columns=["a", "b", "c"])
    X = pd.DataFrame(rng.normal(size=(3, 3)), columns=["a", "b", "c"], index=["r1", "r2", "r3"])
    exp = StarExplainer(model, Z)
    assert exp.game == "interventional" and exp.output == "sum of terms"
    ex = exp.explain(X, n_jobs=2)
    assert ex.game == "interventional" and ex.output == "sum of terms"
    assert ex.feature_names == ["a", "b", "c"]
    assert ex.index == ["r1", "r2", "r3"]
    assert list(ex.to_frame().index) == ["r1", "r2", "r3"]
    assert exp.explain(X.to_numpy()).index is None


def test_background_only_work_is_done_at_construction():
    """The background alone is read once, when the explainer is built; explain evaluates the
    terms only on rows that contain explained values."""
    calls = []

    def f(A):
        calls.append(A.copy())
        return np.sin(A[:, 0])

    Z = np.arange(10.0).reshape(5, 2)
    X = np.full((3, 2), 100.0)
    exp = StarExplainer([((0,), f), ((1,), lambda A: A[:, 0] ** 2)], Z)
    assert len(calls) == 1 and calls[0].shape == (5, 1)  # the background mean
    np.testing.assert_allclose(exp.expected_value, [np.sin(Z[:, 0]).mean() + (Z[:, 1] ** 2).mean()], atol=1e-12)
    calls.clear()
    for _ in range(2):
        ex = exp.explain(X)
        np.testing.assert_allclose(ex.values[:, 0], np.sin(100.0) - np.sin(Z[:, 0]).mean(), atol=1e-12)
    assert calls and all(np.all(c == 100.0) for c in calls)  # never the background alone


def test_star_folder_has_no_import_circle_and_no_arrow_up():
    import ast
    import pathlib

    import kexplain.star

    folder = pathlib.Path(kexplain.star.__file__).parent
    graph = {}
    forbidden = ("explainers", "rkhs", "gp", "stats", "preference", "causal", "embeddings", "cli", "dask")
    for path in folder.glob("*.py"):
        deps = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level >= 1:
                mod = node.module or ""
                if node.level == 1:
                    deps |= {mod.split(".")[0]} if mod else {a.name for a in node.names}
                else:
                    assert mod.split(".")[0] not in forbidden, f"{path.name} imports ..{mod}"
            if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("kexplain."):
                assert node.module.split(".")[1] not in forbidden, f"{path.name} imports {node.module}"
        graph[path.stem] = deps & {p.stem for p in folder.glob("*.py")}

    def reaches(start, target, seen=()):
        return any(d == target or (d not in seen and reaches(d, target, (*seen, d))) for d in graph.get(start, ()))

    circles = [m for m in graph if reaches(m, m)]
    assert not circles, f"import circle through {circles}"
    assert "ebm" not in graph["model"] and "model" in graph["ebm"]


# --- issue 11 -----------------------------------------------------------------------------------


def test_complex_term_outputs_are_refused_naming_the_term():
    Z = np.zeros((3, 2))

    def wobble(A):  # real on the background (zeros), complex on the explained rows
        return A[:, 0] if np.all(A == 0) else A[:, 0] + 1j

    explainer = StarExplainer([((0,), lambda A: A[:, 0]), ((1,), wobble, "wobble")], Z)
    with pytest.raises(ValueError, match=r"term 1 \(wobble\) returned complex values"):
        explainer.explain(np.ones((1, 2)))
    with pytest.raises(ValueError, match=r"term 0 \(x0\) returned complex values"):
        StarExplainer([((0,), lambda A: A[:, 0].astype(complex))], Z)


def test_non_numeric_term_outputs_are_refused_naming_the_term():
    with pytest.raises(ValueError, match=r"term 0 \(x0\) must return numbers"):
        StarExplainer([((0,), lambda A: np.array(["a"] * len(A)))], np.zeros((3, 2)))


def test_background_with_too_few_columns_is_named():
    with pytest.raises(ValueError, match=r"background has 2 columns.*term 0 \(x0\*x1\*x2\) reads column"):
        StarExplainer([((0, 1, 2), lambda A: A[:, 0])], np.zeros((3, 2)))
    model = StarModel([((0, 2), lambda A: A[:, 0])], n_features=3)
    with pytest.raises(ValueError, match=r"background has 2 columns, but the model has 3 features"):
        StarExplainer(model, np.zeros((3, 2)))


def test_interaction_batches_bound_the_solver_temporaries(monkeypatch):
    from kexplain.star import explainer as star_explainer

    seen = []
    real = star_explainer.exact_shapley

    def spy(game, k, *, interactions=False, batch_size=4096):
        seen.append((k, interactions, batch_size))
        return real(game, k, interactions=interactions, batch_size=batch_size)

    monkeypatch.setattr(star_explainer, "exact_shapley", spy)
    k = 12
    explainer = StarExplainer([(tuple(range(k)), lambda A: A.sum(axis=1) + A[:, 0] * A[:, 1])], np.zeros((1, k)))
    ex = explainer.explain(np.ones((1, k)), interactions=True)
    np.testing.assert_allclose(ex.interactions[0, 0, 1], 0.5, atol=1e-12)
    np.testing.assert_allclose(ex.values[0, :3], [1.5, 1.5, 1.0], atol=1e-12)
    for kk, inter, batch in seen:
        assert inter
        # exact_shapley's interaction temporaries are a handful of (batch, k, k) arrays
        assert batch * kk * kk * 8 <= star_explainer.INTERACTION_BLOCK_BYTES // 4
    explainer.explain(np.ones((1, k)))
    assert seen[-1][2] == min(2**k, explainer.max_rows)  # values only: the batch is not reduced

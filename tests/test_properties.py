"""Shapley axioms as properties of random kernel expansions (hypothesis)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from kernel_conformance import stationary_classes

import kexplain as kx
from kexplain.kernels import RBF, Categorical, Laplacian, ProductKernel, SumKernel

finite = st.floats(-3.0, 3.0, allow_nan=False, allow_infinity=False)
lengthscale = st.floats(0.2, 5.0)
#: every registered stationary kernel family (tests/kernel_conformance.py)
FAMILIES = {cls.__name__.lower(): cls for cls in stationary_classes()}


@st.composite
def problems(draw, min_d=1, max_d=6):
    """A random product-kernel expansion with points to explain and a background."""
    d = draw(st.integers(min_d, max_d))
    n = draw(st.integers(1, 6))
    n_out = draw(st.integers(1, 2))
    family = draw(st.sampled_from(sorted(FAMILIES) + ["mixed", "sum"]))
    ls = draw(arrays(np.float64, d, elements=lengthscale))
    if family in FAMILIES:
        kernel = FAMILIES[family](ls, amplitude=draw(st.floats(0.1, 3.0)))
    elif family == "mixed":
        family_list = list(FAMILIES.values())
        kernel = ProductKernel([family_list[j % len(family_list)](float(ls[j])) for j in range(d)])
    else:
        kernel = SumKernel([RBF(ls), Laplacian(float(ls[0]), amplitude=0.5)])
    X_ref = draw(arrays(np.float64, (n, d), elements=finite))
    coef = draw(arrays(np.float64, (n, n_out) if n_out > 1 else n, elements=finite))
    X = draw(arrays(np.float64, (2, d), elements=finite))
    Z = draw(arrays(np.float64, (draw(st.integers(1, 3)), d), elements=finite))
    intercept = draw(finite)
    game = draw(st.sampled_from(["functional", "interventional", "baseline"]))
    return dict(kernel=kernel, X_ref=X_ref, coef=coef, X=X, Z=Z, intercept=intercept, game=game)


def _explain(p, coef=None, interactions=False, **overrides):
    q = {**p, **overrides}
    em = kx.KernelExpansion(q["X_ref"], q["coef"] if coef is None else coef, q["kernel"], q["intercept"])
    kwargs = {"functional": {}, "interventional": {"background": q["Z"]}, "baseline": {"baseline": q["Z"][0]}}[
        q["game"]
    ]
    return em, kx.ProductKernelExplainer(em, **kwargs).explain(q["X"], interactions=interactions)


def _scale(*arrays_):
    return 1.0 + max(float(np.abs(a).max(initial=0.0)) for a in arrays_)


@given(problems())
def test_efficiency(p):
    em, ex = _explain(p)
    f = em.predict(p["X"])
    assert np.abs(ex.base_values + ex.values.sum(axis=1) - f).max() <= 1e-10 * _scale(f, ex.values, ex.base_values)


@given(problems(max_d=5), st.data())
def test_symmetry_of_identical_features(p, data):
    # copy feature j into feature k everywhere, with the same one-dimensional kernel on both
    d = p["X_ref"].shape[1]
    if d < 2:
        return
    j, k = data.draw(st.permutations(range(d)))[:2]
    q = {key: (v.copy() if isinstance(v, np.ndarray) else v) for key, v in p.items()}
    for key in ("X_ref", "X", "Z"):
        q[key][:, k] = q[key][:, j]
    ls = data.draw(lengthscale)
    q["kernel"] = ProductKernel([RBF(ls) if m in (j, k) else Laplacian(1.0 + 0.1 * m) for m in range(d)])
    _, ex = _explain(q, interactions=True)
    np.testing.assert_allclose(ex.values[:, j], ex.values[:, k], rtol=1e-10, atol=1e-12 * _scale(ex.values))
    np.testing.assert_allclose(
        ex.interactions[:, j, j], ex.interactions[:, k, k], rtol=1e-9, atol=1e-12 * _scale(ex.interactions)
    )


@given(problems(min_d=2), st.data())
def test_null_player_constant_feature(p, data):
    # a feature with the same value in every reference, explained and background row: its kernel
    # factor is exactly 1, so it never changes any coalition's value
    d = p["X_ref"].shape[1]
    j = data.draw(st.integers(0, d - 1))
    value = data.draw(finite)
    q = {key: (v.copy() if isinstance(v, np.ndarray) else v) for key, v in p.items()}
    for key in ("X_ref", "X", "Z"):
        q[key][:, j] = value
    _, ex = _explain(q, interactions=True)
    assert np.all(np.abs(ex.values[:, j]) <= 1e-12 * _scale(ex.values))
    assert np.all(np.abs(ex.interactions[:, j, :]) <= 1e-12 * _scale(ex.interactions))


@given(problems(min_d=2, max_d=5), st.data())
def test_null_player_categorical_feature(p, data):
    # a Categorical feature on which every row has the same label is a null player; the others
    # get the values they would get without it
    d = p["X_ref"].shape[1]
    j = data.draw(st.integers(0, d - 1))
    mismatch = data.draw(st.floats(0.0, 0.9))

    def with_label(A):
        out = A.astype(object)
        out[:, j] = "same"
        return out

    parts = [Categorical(mismatch) if m == j else RBF(1.0 + 0.2 * m) for m in range(d)]
    q = {**p, "kernel": ProductKernel(parts)}
    q.update({key: with_label(p[key]) for key in ("X_ref", "X", "Z")})
    _, ex = _explain(q)
    assert np.all(np.abs(ex.values[:, j]) <= 1e-12 * _scale(ex.values))
    keep = [m for m in range(d) if m != j]
    r = {**p, "kernel": ProductKernel([RBF(1.0 + 0.2 * m) for m in keep])}
    r.update({key: p[key][:, keep] for key in ("X_ref", "X", "Z")})
    _, ex_without = _explain(r)
    np.testing.assert_allclose(ex.values[:, keep], ex_without.values, rtol=1e-10, atol=1e-12 * _scale(ex.values))


@given(problems(), st.floats(-3.0, 3.0), st.data())
def test_linearity_in_the_coefficients(p, lam, data):
    coef2 = data.draw(arrays(np.float64, p["coef"].shape, elements=finite))
    _, e1 = _explain(p, interactions=True)
    _, e2 = _explain(p, coef=coef2, interactions=True)
    _, e12 = _explain(p, coef=p["coef"] + lam * coef2, interactions=True)
    scale = _scale(e1.values, e2.values) * (1 + abs(lam))
    np.testing.assert_allclose(e12.values, e1.values + lam * e2.values, rtol=1e-10, atol=1e-11 * scale)
    np.testing.assert_allclose(
        e12.interactions,
        e1.interactions + lam * e2.interactions,
        rtol=1e-9,
        atol=1e-11 * _scale(e1.interactions, e2.interactions) * (1 + abs(lam)),
    )


@given(problems(min_d=2))
def test_interaction_matrix_is_symmetric_and_rows_sum_to_values(p):
    _, ex = _explain(p, interactions=True)
    scale = _scale(ex.interactions, ex.values)
    np.testing.assert_allclose(ex.interactions, np.swapaxes(ex.interactions, 1, 2), rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(ex.interactions.sum(axis=2), ex.values, rtol=1e-10, atol=1e-12 * scale)


@settings(max_examples=15)
@given(problems(max_d=4))
def test_values_do_not_depend_on_feature_order(p):
    d = p["X_ref"].shape[1]
    perm = np.random.default_rng(d).permutation(d)
    kernel = p["kernel"]
    if isinstance(kernel, (SumKernel, ProductKernel)):
        return
    if np.ndim(kernel.lengthscale):
        kernel = type(kernel)(kernel.lengthscale[perm], amplitude=kernel.amplitude)
    q = {**p, "kernel": kernel, **{key: p[key][:, perm] for key in ("X_ref", "X", "Z")}}
    _, ex = _explain(p)
    _, ex_perm = _explain(q)
    np.testing.assert_allclose(ex_perm.values, ex.values[:, perm], rtol=1e-10, atol=1e-12 * _scale(ex.values))

"""Sparse inputs (issue #26 item 3): the sparse games equal the dense path and enumeration.

The oracles: the dense product-game engine on the densified rows (every game, kernel and weight
below), and enumeration of all 2^d coalitions of the model's own predict on hybrid rows (small d).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse
from sklearn.svm import SVC, SVR

import kexplain as kx
from kexplain._validation import check_data, check_sparse_data
from kexplain.kernels import RBF, Cauchy, Chi2, Laplacian, ProductKernel, SumKernel
from kexplain.kernels.restrict import restrict_features
from kexplain.shapley import exact_shapley
from kexplain.shapley.sparse import solve_rows_near_base, solve_sparse_rows

D = 9


def _sparse_rows(rng, n, d=D, density=0.35, *, explicit_zeros=True, empty_row=None, nonneg=False):
    """Random CSR rows with an all-zero feature (column 0), an empty row and explicit stored zeros."""
    M = sparse.random(n, d, density=density, random_state=np.random.RandomState(int(rng.integers(1 << 30))))
    M = M.tocsr()
    M.data = np.abs(rng.normal(size=M.nnz)) if nonneg else rng.normal(size=M.nnz)
    M = M.tolil()
    M[:, 0] = 0.0  # a feature that is zero everywhere
    if empty_row is not None:
        M[empty_row, :] = 0.0
    M = M.tocsr()
    M.eliminate_zeros()
    if explicit_zeros and M.nnz:
        M.data[:: max(1, M.nnz // 4)] = 0.0  # zeros stored in .data
    return M


def _close(a, b, rtol=1e-12):
    scale = max(1.0, float(np.max(np.abs(b))))
    np.testing.assert_allclose(a, b, rtol=0, atol=rtol * scale)


KERNELS = {
    "rbf": lambda rng: RBF(1.3),
    "rbf-ard": lambda rng: RBF(rng.uniform(0.5, 2.0, size=D)),
    "laplacian": lambda rng: Laplacian(1.7),
    "product": lambda rng: ProductKernel([RBF(rng.uniform(0.5, 2.0, size=4)), Cauchy(1.1), Laplacian([2.0] * 4)]),
    "pointwise": lambda rng: RBF(1.0) * Cauchy(2.0),
    "sum": lambda rng: SumKernel([RBF(0.8), Laplacian(2.0, amplitude=0.5)]),
    "chi2": lambda rng: Chi2(gamma=0.4),
}


@pytest.fixture(scope="module")
def rng_module():
    return np.random.default_rng(26)


@pytest.mark.parametrize("kernel", list(KERNELS))
@pytest.mark.parametrize("game", ["functional", "interventional", "weighted", "baseline"])
def test_sparse_equals_dense(kernel, game, rng_module):
    rng = np.random.default_rng(hash((kernel, game)) % (1 << 30))
    nonneg = kernel == "chi2"
    Xr = _sparse_rows(rng, 14, empty_row=3, nonneg=nonneg)
    X = _sparse_rows(rng, 5, empty_row=1, nonneg=nonneg)
    Z = _sparse_rows(rng, 4, empty_row=2, nonneg=nonneg)
    em = kx.KernelExpansion(Xr, rng.normal(size=(14, 2)), KERNELS[kernel](rng), intercept=[0.3, -0.1])
    dense_em = kx.KernelExpansion(Xr.toarray(), em.coef, em.kernel, intercept=em.intercept)
    opts = {
        "functional": {},
        "interventional": {"background": Z},
        "weighted": {"background": Z, "background_weights": [0.1, 0.2, 0.3, 0.4]},
        "baseline": {"baseline": Z[0]},
    }[game]
    dense_opts = {k: (v.toarray() if sparse.issparse(v) else v) for k, v in opts.items()}
    sp = kx.ProductKernelExplainer(em, **opts)
    dn = kx.ProductKernelExplainer(dense_em, **dense_opts)
    a, b = sp.explain(X), dn.explain(X.toarray())
    assert a.info["route"] == "sparse" and a.game == b.game
    _close(a.values, b.values)
    _close(a.base_values, b.base_values)
    _close(a.v_full, dense_em.predict(X.toarray()))
    np.testing.assert_allclose(sp.expected_value, dn.expected_value, rtol=1e-13, atol=1e-14)
    assert a.efficiency_error < 1e-12
    np.testing.assert_array_equal(a.data, X.toarray())
    # features that are zero in x, every support point and every background row get exactly 0
    assert np.all(a.values[:, 0] == 0.0)
    # the dense explainer given sparse X takes the same sparse route
    _close(dn.explain(X).values, b.values)


@pytest.mark.parametrize("game", ["functional", "interventional", "baseline"])
def test_sparse_equals_enumeration_of_the_models_predict(game):
    rng = np.random.default_rng(7)
    d = 6
    Xt = _sparse_rows(rng, 40, d=d, density=0.5, explicit_zeros=False)
    y = rng.normal(size=40)
    model = SVR(C=3.0, gamma=0.4).fit(Xt, y)
    X = _sparse_rows(rng, 3, d=d, density=0.5, empty_row=2)
    Z = _sparse_rows(rng, 3, d=d, density=0.5)
    Zd, Xd = Z.toarray(), X.toarray()
    if game == "functional":
        ex = kx.ProductKernelExplainer(model).explain(X)
        em = kx.models.as_kernel_expansion(model)
        Xref = em.X_ref
        gamma = model._gamma

        def value(S):  # v(S) = sum_i c_i prod_{j in S} k_j(x_j, X_ij): the kernel on the features of S
            out = np.zeros((S.shape[0], Xd.shape[0]))
            for s, mask in enumerate(S):
                K = np.exp(-gamma * ((Xd[:, None, mask] - Xref[None, :, mask]) ** 2).sum(-1))
                out[s] = K @ em.coef[:, 0]
            return out

    else:
        Zg = Zd if game == "interventional" else Zd[:1]
        explainer = kx.ProductKernelExplainer(
            model, **({"background": Z} if game == "interventional" else {"baseline": Z[0]})
        )
        ex = explainer.explain(X)

        def value(S):  # v(S) = mean over z of predict(x_S, z_not S)
            out = np.zeros((S.shape[0], Xd.shape[0]))
            for s, mask in enumerate(S):
                hybrid = np.where(mask[None, None, :], Xd[:, None, :], Zg[None, :, :])
                out[s] = model.predict(hybrid.reshape(-1, d)).reshape(Xd.shape[0], -1).mean(axis=1)
            return out

    ref = exact_shapley(value, d)
    _close(ex.values, np.asarray(ref.values).reshape(ex.values.shape), rtol=1e-10)


def test_svm_fitted_on_sparse_text_like_data_keeps_sparse_support_vectors():
    rng = np.random.default_rng(3)
    Xt = _sparse_rows(rng, 60, d=30, density=0.1, explicit_zeros=False, nonneg=True)
    y = (Xt[:, 1].toarray().ravel() + Xt[:, 2].toarray().ravel() > 0.5).astype(int)
    y[:2] = [0, 1]
    svc = SVC(gamma=1.0).fit(Xt, y)
    em = kx.models.as_kernel_expansion(svc)
    assert sparse.issparse(em.X_ref_sparse) and em._X_ref is None  # not densified yet
    explainer = kx.ProductKernelExplainer(svc, background=Xt[:8])
    ex = explainer.explain(Xt[10:14])
    assert em._X_ref is None or explainer.expansion is not em  # the sparse path never densified X_ref
    np.testing.assert_allclose(ex.predictions, svc.decision_function(Xt[10:14]), rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(em.X_ref, svc.support_vectors_.toarray())


def test_sparse_rows_solver_against_enumeration():
    rng = np.random.default_rng(0)
    d, n = 7, 6
    widths = np.array([0, 1, 3, 7, 2, 5])
    cols = np.concatenate([rng.choice(d, size=w, replace=False) for w in widths])
    a, b = rng.uniform(0.1, 2.0, size=cols.size), rng.uniform(0.1, 2.0, size=cols.size)
    c = rng.normal(size=(n, 2))
    indptr = np.concatenate([[0], np.cumsum(widths)])
    phi, v_full, v_empty = solve_sparse_rows(indptr, cols, a, b, c, d)
    A, B = np.ones((n, d)), np.ones((n, d))
    for r in range(n):
        A[r, cols[indptr[r] : indptr[r + 1]]] = a[indptr[r] : indptr[r + 1]]
        B[r, cols[indptr[r] : indptr[r + 1]]] = b[indptr[r] : indptr[r + 1]]

    def value(S):
        return np.stack([np.where(m, A, B).prod(axis=1) @ c for m in S])

    ref = exact_shapley(value, d)
    _close(phi, ref.values.T, rtol=1e-13)  # enumeration: (points = outputs here, d)
    _close(v_full, ref.v_full, rtol=1e-14)
    _close(v_empty, ref.v_empty, rtol=1e-14)
    # and in small blocks (one row each), the same numbers
    phi2, _, _ = solve_sparse_rows(indptr, cols, a, b, c, d, max_block_bytes=1)
    _close(phi2, phi, rtol=1e-15)


def test_restricted_kernels_equal_the_columns_of_the_full_one(rng):
    X, Y = np.abs(rng.normal(size=(3, D))), np.abs(rng.normal(size=(4, D)))
    J = np.array([5, 0, 5, 8])
    for make in KERNELS.values():
        k = make(rng)
        for term in kx.kernels.base.kernel_terms(k):
            np.testing.assert_allclose(
                restrict_features(term, J).feature_values(X[:, J], Y[:, J]),
                term.feature_values(X, Y)[:, :, J],
                rtol=1e-15,
            )


def test_check_data_keeps_sparse_matrices_canonical():
    coo = sparse.coo_matrix(([1.0, 2.0, 0.0, 3.0], ([0, 0, 1, 1], [2, 2, 1, 0])), shape=(2, 3))
    M = check_data(coo, name="X", n_features=3, sparse="keep")
    assert sparse.isspmatrix_csr(M) and M.nnz == 2  # duplicates summed, the stored zero dropped
    np.testing.assert_array_equal(M.toarray(), coo.toarray())
    np.testing.assert_array_equal(check_sparse_data(coo.tocsc()).toarray(), coo.toarray())
    with pytest.raises(ValueError, match=r"^X contains NaN or infinite values at \(row 1, column 2\)"):
        check_data(sparse.csr_matrix([[0.0, 1.0, 0.0], [0.0, 0.0, np.nan]]), name="X", sparse="keep")
    with pytest.raises(ValueError, match=r"^X has 3 features, but the model expects 4"):
        check_data(coo, name="X", n_features=4, sparse="keep")


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(11)
    Xt = _sparse_rows(rng, 30, density=0.4, explicit_zeros=False)
    return Xt, SVR(gamma=0.3).fit(Xt, rng.normal(size=30))


@pytest.mark.parametrize(
    "options,needs",
    [
        ({"interactions": True}, "interactions=True needs dense rows"),
        ({"interactions": {"index": "k-SII", "max_order": 2}}, "interactions="),
        ({"dtype": "float32"}, "the array API path"),
        ({"target": "variance"}, "target='variance'"),
        ({"uncertainty": True}, "uncertainty=True"),
    ],
)
def test_what_has_no_sparse_path_is_refused_naming_x_and_the_route(options, needs, fitted):
    Xt, model = fitted
    with pytest.raises(TypeError, match=r"^X is a scipy sparse matrix and " + needs) as info:
        kx.ProductKernelExplainer(model, background=Xt[:5].toarray()).explain(Xt[:2], **options)
    assert "densify it, pass X.toarray()" in str(info.value)


def test_unsupported_models_and_options_are_refused_with_the_densify_route(fitted):
    Xt, model = fitted
    poly = SVR(kernel="poly", degree=2).fit(Xt, np.arange(30.0))
    with pytest.raises(TypeError, match=r"^X is a scipy sparse matrix and a linear or polynomial kernel model"):
        kx.ProductKernelExplainer(poly).explain(Xt[:2])
    with pytest.raises(TypeError, match=r"^background is a scipy sparse matrix and background_summary"):
        kx.ProductKernelExplainer(model, background=Xt[:10], background_summary=3)
    with pytest.raises(TypeError, match=r"^baseline is a scipy sparse matrix .*pass baseline.toarray\(\)"):
        kx.ProductKernelExplainer(poly, baseline=Xt[0])

    class Odd(RBF):  # a kernel the restriction does not know
        pass

    em = kx.KernelExpansion(Xt, np.ones(30), Odd(1.0))
    with pytest.raises(TypeError, match=r"^X is a scipy sparse matrix and the kernel Odd.*has no sparse path"):
        kx.ProductKernelExplainer(em).explain(Xt[:2])
    # a sparse background makes every explain call sparse: a dense-only option names the background
    explainer = kx.ProductKernelExplainer(model, background=Xt[:5])
    with pytest.raises(TypeError, match=r"^background is a scipy sparse matrix and interactions"):
        explainer.explain(Xt[:2].toarray(), interactions=True)
    with pytest.raises(TypeError, match=r"^background is a scipy sparse matrix and product_game"):
        explainer.product_game(Xt[:2].toarray())
    # dense X with a sparse background: converted, the same values as all dense
    dense = kx.ProductKernelExplainer(model, background=Xt[:5].toarray()).explain(Xt[:2].toarray())
    _close(explainer.explain(Xt[:2].toarray()).values, dense.values)
    bad = Xt[:2].copy()
    bad.data[0] = np.inf
    with pytest.raises(ValueError, match=r"^X contains NaN or infinite values at \(row 0, column"):
        explainer.explain(bad)
    with pytest.raises(ValueError, match=r"^X has 4 features, but the model expects 9"):
        explainer.explain(sparse.csr_matrix(np.ones((1, 4))))


def test_csc_and_coo_inputs_are_converted(fitted):
    Xt, model = fitted
    explainer = kx.ProductKernelExplainer(model, background=Xt[:4].tocoo())
    ref = explainer.explain(Xt[5:8])
    for fmt in ("tocsc", "tocoo"):
        _close(explainer.explain(getattr(Xt[5:8], fmt)()).values, ref.values, rtol=0)
    two = explainer.explain(Xt[5:8], n_jobs=2)
    _close(two.values, ref.values, rtol=0)


@pytest.mark.parametrize("compiled", [True, False])
def test_rows_near_base_equal_the_rows_solved_densely(compiled, monkeypatch):
    import kexplain.shapley.sparse as sparse_solver

    if not compiled:  # the numpy version (without numba)
        monkeypatch.setattr(sparse_solver, "_near_base_kernel", lambda: None)
    rng = np.random.default_rng(5)
    k, n = 11, 40
    a0, b0 = rng.uniform(0.2, 1.0, size=k), rng.uniform(0.2, 1.0, size=k)
    mask = rng.random((n, k)) < 0.1
    rows, pos = np.nonzero(mask)
    a, b = rng.uniform(0.2, 1.0, size=rows.size), rng.uniform(0.2, 1.0, size=rows.size)
    W = rng.normal(size=(n, 2))
    A, B = np.tile(a0, (n, 1)), np.tile(b0, (n, 1))
    A[rows, pos], B[rows, pos] = a, b
    perm = rng.permutation(rows.size)  # entries in any order
    got = solve_rows_near_base(a0, b0, rows[perm], pos[perm], a[perm], b[perm], W)
    ref = solve_sparse_rows(np.arange(n + 1) * k, np.tile(np.arange(k), n), A.ravel(), B.ravel(), W, k)
    for g, r in zip(got, ref):
        _close(g, r, rtol=1e-13)
    # a zero factor, or products beyond float64's comfortable range: declined (the caller densifies)
    assert solve_rows_near_base(np.r_[0.0, a0[1:]], b0, rows, pos, a, b, W) is None
    assert solve_rows_near_base(np.full(k, 1e-60), b0, rows, pos, a, b, W) is None


@pytest.mark.parametrize("kernel", [kx.kernels.Categorical(0.0), RBF(0.05)])
def test_interventional_rows_that_decline_the_near_base_route_are_solved_densely(kernel):
    # exact zeros (a mismatch of 0) and factors that underflow (a tiny lengthscale) take the dense rows
    rng = np.random.default_rng(9)
    Xr, X, Z = _sparse_rows(rng, 12, empty_row=2), _sparse_rows(rng, 3), _sparse_rows(rng, 3, empty_row=0)
    coef = rng.normal(size=12)
    em = kx.KernelExpansion(Xr, coef, kernel)
    dense_em = kx.KernelExpansion(Xr.toarray(), coef, kernel)
    a = kx.ProductKernelExplainer(em, background=Z).explain(X)
    b = kx.ProductKernelExplainer(dense_em, background=Z.toarray()).explain(X.toarray())
    _close(a.values, b.values)
    _close(a.base_values, b.base_values)

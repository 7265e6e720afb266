"""Reliability of the numerics (issue #28, numerical part): uncertainty under ill-conditioning,
``background_summary`` recorded, OAK's Gamma at long length scales, the Nystrom jitter, memory.

References are independent of the code under test: 60-digit arithmetic (mpmath) for the posterior
variance of scikit-learn's own fitted hyperparameters, and enumeration of coalition pairs on
scikit-learn's own posterior covariance (``predict(return_cov=True)`` on the hybrid points).
"""

import warnings

import mpmath
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel

import kexplain as kx
from kexplain.exceptions import AccuracyWarning
from kexplain.models.posterior import UNCERTAINTY_RTOL
from kexplain.shapley import all_coalitions
from kexplain.shapley.enumeration import shapley_weights


def _smooth_fit(seed, n=18, d=2):
    """The reviewers' case: the default optimiser on smooth data gives a near-interpolating fit."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, d))
    y = np.sin(X[:, 0]) + X[:, 1] ** 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn's ConvergenceWarning at the length-scale bound
        gpr = GaussianProcessRegressor(ConstantKernel(1.0) * RBF(np.ones(d)), normalize_y=True, random_state=0)
        gpr.fit(X, y)
    return X, gpr, rng


def _mp_variance(gpr, Xq, dps=60):
    """Posterior variance of f at Xq for the fitted hyperparameters, in ``dps``-digit arithmetic."""
    mpmath.mp.dps = dps
    X = gpr.X_train_
    cv = mpmath.mpf(float(gpr.kernel_.k1.constant_value))
    ls = [mpmath.mpf(float(v)) for v in np.atleast_1d(gpr.kernel_.k2.length_scale)]

    def k(a, b):
        s = sum((mpmath.mpf(float(a[j])) - mpmath.mpf(float(b[j]))) ** 2 / ls[j] ** 2 for j in range(len(ls)))
        return cv * mpmath.exp(-s / 2)

    n = X.shape[0]
    K = mpmath.matrix(n, n)
    for i in range(n):
        for j in range(n):
            K[i, j] = k(X[i], X[j]) + (mpmath.mpf(float(gpr.alpha)) if i == j else 0)
    out = []
    for x in Xq:
        kx_ = mpmath.matrix([k(x, X[i]) for i in range(n)])
        u = mpmath.lu_solve(K, kx_)
        out.append(
            float(
                (k(x, x) - (kx_.T * u)[0])
                * mpmath.mpf(float(gpr._y_train_std[0] if np.ndim(gpr._y_train_std) else gpr._y_train_std)) ** 2
            )
        )
    return np.array(out)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_prediction_variance_against_60_digit_arithmetic_on_default_optimiser_fits(seed):
    X, gpr, rng = _smooth_fit(seed)
    post = kx.models.gp_posterior(gpr)
    assert post.condition_number > 1e12  # the case is the ill-conditioned one
    Xq = np.vstack([rng.uniform(-1, 1, size=(3, 2)), X[:2]])
    ref = _mp_variance(gpr, Xq)
    var, bound = post.variance_and_bound(Xq)
    assert np.all(var >= 0)
    # within the recorded bound, and the bound is not vacuous: far below the prior variance
    assert np.all(np.abs(var - ref) <= bound)
    prior = post.scale**2 * (post.kernel.diag_value() + post.constant)
    assert np.all(bound < 1e-8 * prior)
    # where the bound resolves the variance, it is right to the requested relative accuracy
    resolved = bound <= UNCERTAINTY_RTOL * var
    np.testing.assert_array_less(np.abs(var - ref)[resolved], (UNCERTAINTY_RTOL * ref)[resolved] + 1e-300)
    # the explainer says so, and records the bounds
    ex_ = kx.ProductKernelExplainer(gpr, background=X[:4])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ex = ex_.explain(Xq, uncertainty=True)
    np.testing.assert_allclose(ex.prediction_variance, var, rtol=0, atol=0)
    np.testing.assert_array_equal(ex.info["prediction_variance_error_bound"], bound)
    assert ex.info["condition_number"] == post.condition_number
    warned = [w for w in caught if issubclass(w.category, AccuracyWarning)]
    unresolved = not np.all(resolved) or np.any(
        ex.info["variance_error_bound"] > UNCERTAINTY_RTOL * np.diagonal(ex.covariance, axis1=1, axis2=2)
    )
    assert bool(warned) == unresolved
    if warned:
        assert "condition number" in str(warned[0].message)
    assert np.all(np.diagonal(ex.covariance, axis1=1, axis2=2) >= 0)
    assert np.all(ex.std >= 0)


def _enumerated_covariance(gpr, x, Z, w):
    """Cov(phi_j(x), phi_l(x)) of the interventional game by enumerating coalition pairs on
    scikit-learn's own posterior covariance of the hybrid points (x_S, z_b,not S)."""
    d = x.shape[0]
    coal = all_coalitions(d)
    wts = shapley_weights(d)
    size = coal.sum(axis=1)
    H = []
    for S in coal:
        Hs = Z.copy()
        Hs[:, S] = x[S]
        H.append(Hs)
    H = np.concatenate(H)  # (2^d B, d)
    _, cov = gpr.predict(H, return_cov=True)
    B = Z.shape[0]
    # v(S) = sum_b w_b f(h_b^S); phi_j = sum_S c_j(S) v(S)
    Cmat = np.zeros((d, 2**d * B))
    for m, S in enumerate(coal):
        for j in range(d):
            c = wts[size[m] - 1] if S[j] else -wts[size[m]]
            Cmat[j, m * B : (m + 1) * B] = c * w
    return Cmat @ cov @ Cmat.T


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**31 - 1),
    d=st.integers(2, 3),
    n=st.integers(4, 14),
    log_ls=st.lists(st.floats(-0.5, 2.0), min_size=3, max_size=3),
    alpha=st.sampled_from([1e-10, 1e-6, 1e-2]),
    amp=st.floats(0.3, 3.0),
)
def test_random_ard_gp_covariance_against_enumeration_of_coalition_pairs(seed, d, n, log_ls, alpha, amp):
    """Random ARD GPs (long length scales and tiny alpha included: ill-conditioned) against
    enumeration on scikit-learn's posterior covariance: right to 1e-8 relative, or an AccuracyWarning."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.sin(X[:, 0]) + 0.5 * X[:, -1]
    kernel = ConstantKernel(amp) * RBF(10.0 ** np.asarray(log_ls[:d]))
    gpr = GaussianProcessRegressor(kernel, alpha=alpha, optimizer=None, normalize_y=True).fit(X, y)
    Z = rng.normal(size=(2, d))
    Xq = np.vstack([rng.normal(size=(1, d)), X[:1]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ex = kx.ProductKernelExplainer(gpr, background=Z).explain(Xq, uncertainty=True)
    warned = any(issubclass(w.category, AccuracyWarning) for w in caught)
    post = kx.models.gp_posterior(gpr)
    prior = post.scale**2 * (post.kernel.diag_value() + post.constant)
    for p in range(Xq.shape[0]):
        C = ex.covariance[p]
        assert np.all(np.diag(C) >= 0)
        ref = _enumerated_covariance(gpr, Xq[p], Z, np.full(2, 0.5))
        err = np.abs(C - ref)
        # the reference sums 4^d B^2 posterior covariances of O(prior) size: its own rounding
        tol_ref = 64 * np.finfo(float).eps * prior
        bound = ex.info["variance_error_bound"][p]
        # always within the recorded bound (geometric mean for off-diagonal entries)
        assert np.all(err <= np.sqrt(np.outer(bound, bound)) + tol_ref)
        if not warned:
            scale = np.sqrt(np.outer(np.diag(ref), np.diag(ref)))
            assert np.all(err <= 1e-8 * scale + tol_ref), (err, scale)
    assert np.all(ex.prediction_variance >= 0)


def _uncertain_gp(n=30, d=3, seed=0, **kw):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = X[:, 0] - X[:, 1] * X[:, 2]
    gpr = GaussianProcessRegressor(RBF(np.ones(d)), normalize_y=True, random_state=0, **kw).fit(X, y)
    return X, gpr


@pytest.mark.parametrize("value", ["observational", "interventional"])
def test_n_jobs_and_blocks_do_not_change_the_covariance(value):
    X, gpr, _ = _smooth_fit(3, n=16)
    expl = kx.RKHSExplainer(gpr, X[:6], game=value)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AccuracyWarning)
        one = expl.explain(X[6:12], uncertainty=True, n_jobs=1)
        two = expl.explain(X[6:12], uncertainty=True, n_jobs=2)
        blocks = kx.Explanation.concatenate(
            [expl.explain(X[6:8], uncertainty=True), expl.explain(X[8:12], uncertainty=True)]
        )
    scale = np.abs(one.covariance).max()
    for other in (two, blocks):
        assert np.abs(other.covariance - one.covariance).max() <= 1e-12 * scale
        np.testing.assert_allclose(other.prediction_variance, one.prediction_variance, rtol=1e-12, atol=0)
    for e in (one, two, blocks):
        assert np.all(np.diagonal(e.covariance, axis1=1, axis2=2) >= 0)


def test_float32_with_uncertainty_refused_after_a_float64_call():
    X, gpr = _uncertain_gp()
    expl = kx.ProductKernelExplainer(gpr, background=X[:5])
    expl.explain(X[:2], uncertainty=True)
    with pytest.raises(ValueError, match="float64 only"):
        expl.explain(X[:2], uncertainty=True, dtype="float32")
    fresh = kx.ProductKernelExplainer(gpr, background=X[:5])
    with pytest.raises(ValueError, match="float64 only"):
        fresh.explain(X[:2], uncertainty=True, dtype="float32")


def test_per_sample_alpha_is_not_silently_dropped_with_noisy():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(25, 2))
    y = X[:, 0]
    varying = GaussianProcessRegressor(RBF([1.0, 1.0]), alpha=rng.uniform(0.01, 0.1, 25), optimizer=None).fit(X, y)
    expl = kx.ProductKernelExplainer(varying, background=X[:3])
    expl.explain(X[:2], uncertainty=True)  # the latent f is fine
    with pytest.raises(ValueError, match="per-sample noise"):
        expl.explain(X[:2], uncertainty=True, noisy=True)
    with pytest.raises(ValueError, match="alpha"):
        kx.models.gp_posterior(varying).variance(X[:2], noisy=True)
    # a constant alpha array is the scalar alpha
    const = GaussianProcessRegressor(RBF([1.0, 1.0]), alpha=np.full(25, 0.05), optimizer=None).fit(X, y)
    scalar = GaussianProcessRegressor(RBF([1.0, 1.0]), alpha=0.05, optimizer=None).fit(X, y)
    a = kx.ProductKernelExplainer(const, background=X[:3]).explain(X[:2], uncertainty=True, noisy=True)
    b = kx.ProductKernelExplainer(scalar, background=X[:3]).explain(X[:2], uncertainty=True, noisy=True)
    np.testing.assert_allclose(a.covariance, b.covariance, rtol=1e-12)
    assert kx.models.gp_posterior(const).noise_variance == pytest.approx(0.05)


def test_no_explicit_inverse_and_the_data_term_never_exceeds_the_prior():
    X, gpr, rng = _smooth_fit(4)
    post = kx.models.gp_posterior(gpr)
    assert post.precision is None and post.cholesky is not None
    Xq = rng.uniform(-1, 1, size=(50, 2))
    assert np.all(post.variance(Xq) >= 0)
    C = post.covariance(Xq)
    np.testing.assert_array_equal(C, C.T)
    assert np.all(np.diag(C) >= 0)


def test_background_summary_is_recorded():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    from sklearn.svm import SVR

    model = SVR().fit(X, X[:, 0] - X[:, 1] * X[:, 2])
    summ = kx.ProductKernelExplainer(model, background=X[:40], background_summary=8)
    assert summ.game == "interventional (summarised background)"
    assert "40 rows summarised by 8 k-means centres" in repr(summ)
    assert summ.summary_centres.shape == (8, 3) and summ.summary_weights.shape == (8,)
    assert summ.summary_weights.sum() == pytest.approx(1.0)
    ex = summ.explain(X[40:45])
    assert ex.game == summ.game and "summarised" in repr(ex)
    rec = ex.info["background_summary"]
    np.testing.assert_array_equal(rec["centres"], summ.summary_centres)
    np.testing.assert_array_equal(rec["weights"], summ.summary_weights)
    assert rec["n_background_rows"] == 40
    # the recorded centres and weights are the game that was solved
    same = kx.ProductKernelExplainer(model, background=rec["centres"], background_weights=rec["weights"])
    np.testing.assert_allclose(ex.values, same.explain(X[40:45]).values, rtol=1e-12, atol=1e-14)
    # the record follows row selection and concatenation, and a summary as large as the background is no summary
    assert ex[1:3].info["background_summary"]["n_background_rows"] == 40
    full = kx.ProductKernelExplainer(model, background=X[:5], background_summary=5)
    assert full.game == "interventional" and full.summary_centres is None
    assert "summarised" not in repr(full) and "background_summary" not in full.explain(X[:2]).info


@pytest.mark.slow
def test_sample_refuses_a_list_beyond_its_budget_and_sample_values_draws_in_blocks(monkeypatch):
    import tracemalloc

    import kexplain.explanation as kexp

    ex = kx.Explanation(np.zeros((1, 10)), 0.0, data=np.zeros((1, 10)), covariance=0.1 * np.eye(10)[None])
    with pytest.raises(ValueError, match=r"sample_values\(k\)"):
        ex.sample(10**6)
    # the same draws either way
    lst = ex.sample(50, random_state=3)
    arr = ex.sample_values(50, random_state=3)
    np.testing.assert_array_equal(np.stack([e.values for e in lst]), arr)
    # blocks do not change the draws: a tiny block gives the same numbers
    monkeypatch.setattr(kexp, "SAMPLE_BLOCK_BYTES", 512)
    np.testing.assert_array_equal(ex.sample_values(50, random_state=3), arr)
    monkeypatch.undo()
    # memory: the output plus the block budget (10^6 draws of a 10-feature row: 76 MiB of output)
    tracemalloc.start()
    try:
        out = ex.sample_values(10**6, random_state=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= out.nbytes + 2 * kexp.SAMPLE_BLOCK_BYTES
    assert np.abs(out.std(axis=0) - np.sqrt(0.1)).max() < 0.01
    # joint covariance: joint draws in blocks
    J = kx.Explanation(np.zeros((2, 2)), 0.0, joint_covariance=np.eye(4).reshape(2, 2, 2, 2))
    assert J.sample_values(1000, random_state=0).shape == (1000, 2, 2)


def test_gpshap_background_gram_cache_is_bounded(monkeypatch):
    import kexplain.rkhs.gpshap as gpshap

    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4))
    gpr = GaussianProcessRegressor(RBF(np.full(4, 2.0)), alpha=1e-2, optimizer=None).fit(X, X[:, 0])
    ref = kx.RKHSExplainer(gpr, X[:12]).explain(X[:2], uncertainty=True)
    budget = 3 * 12 * 12 * 8  # three 12 x 12 Gram products
    monkeypatch.setattr(gpshap, "_KU_CACHE_BYTES", budget)
    expl = kx.RKHSExplainer(gpr, X[:12])
    small = expl.explain(X[:2], uncertainty=True)
    assert sum(K.nbytes for K in expl.explainer._gpshap._KU.values()) <= budget
    np.testing.assert_array_equal(small.covariance, ref.covariance)


def _mp_gamma(mu, delta, l, a, b):
    """OAK's Gamma for the Gaussian measure: the closed form evaluated in 50-digit arithmetic."""
    mpmath.mp.dps = 50
    mu, delta, l = mpmath.mpf(mu), mpmath.mpf(delta), mpmath.mpf(l)
    s, d2 = l**2, delta**2
    A = s + d2
    E = 1 / (1 / A + 1 / d2)
    v = mpmath.sqrt(s / (s + 2 * d2))
    scale = mpmath.sqrt(s / A) * mpmath.sqrt(E / d2) * mpmath.sqrt(s / (s + E))
    M2 = (s / A) * mpmath.sqrt(A / (A + 2 * d2))

    def m(x):
        return mpmath.sqrt(s / A) * mpmath.exp(-((x - mu) ** 2) / (2 * A))

    def h(x):
        return scale * mpmath.exp(-((x - mu) ** 2) / (2 * (s + E)))

    out = np.zeros((len(a), len(b)))
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            x_, y_ = mpmath.mpf(float(x)), mpmath.mpf(float(y))
            c = (x_ + y_) / 2
            J = mpmath.exp(-((x_ - y_) ** 2) / (4 * s)) * v * mpmath.exp(-((c - mu) ** 2) / (s + 2 * d2))
            out[i, j] = float(J - (m(x_) * h(y_) + h(x_) * m(y_)) / v + m(x_) * m(y_) * M2 / v**2)
    return out


@pytest.mark.parametrize("ratio", [0.3, 1.0, 1.5, 2.0, 3.0, 10.0, 100.0, 1e3, 1e4])
def test_oak_gamma_against_50_digit_arithmetic_up_to_long_length_scales(ratio):
    from kexplain.gp import ConstrainedGaussianRBF

    mu, delta = 0.3, 1.7
    k = ConstrainedGaussianRBF(mu, delta)
    a = mu + delta * np.array([-6.0, -3.0, -1.0, -0.2, 0.0, 0.5, 1.0, 2.5, 6.0])
    b = mu + delta * np.array([-2.0, 0.0, 0.3, 4.0])
    G = k.gamma(a, b, ratio * delta)
    R = _mp_gamma(mu, delta, ratio * delta, a, b)
    Ga, Gb = np.diag(_mp_gamma(mu, delta, ratio * delta, a, a)), np.diag(_mp_gamma(mu, delta, ratio * delta, b, b))
    # relative to the Cauchy-Schwarz scale of each entry (the entry itself on the diagonal)
    assert np.max(np.abs(G - R) / np.sqrt(np.outer(Ga, Gb))) <= 1e-12
    np.testing.assert_allclose(np.diag(k.gamma(a, a, ratio * delta)), Ga, rtol=1e-12, atol=0)


@pytest.mark.slow
@pytest.mark.parametrize(("eta", "weighted"), [(1e-3, False), (1e-5, True)])
def test_nystroem_cme_weights_follow_the_documented_formula(eta, weighted):
    """beta = D^2 K_XL c, (K_LX D^2 K_XL + lam K_LL) c = K_Lx, against 40-digit arithmetic on the same
    float inputs, on CME systems of condition ~1e12 (the relative jitter 1e-9 mean(diag) moved the
    weights by 2e-2 to 0.25 here)."""
    from kexplain.embeddings import NystroemRidge

    rng = np.random.default_rng(0)
    n, m = 200, 40
    X = rng.normal(size=(n, 2))
    k = kx.kernels.RBF(1.0)
    K_LX, K_LL, K_Lx = k(X[:m], X), k(X[:m]), k(X[:m], rng.normal(size=(2, 2)))
    D = np.sqrt(n * np.linspace(0.5, 1.5, n) / np.linspace(0.5, 1.5, n).sum()) if weighted else None
    lam = n * eta
    beta = NystroemRidge(K_LX, K_LL, lam, D).weights(K_Lx)
    mpmath.mp.dps = 40
    A = mpmath.matrix(K_LX.tolist())
    # D^2 K_XL rounded once in float64 (a relative 1e-16 change of an input, far below the tolerance)
    Aw = A if D is None else mpmath.matrix((K_LX * D[None, :] ** 2).tolist())
    M = Aw * A.T + mpmath.mpf(lam) * mpmath.matrix(K_LL.tolist())
    ref = np.column_stack(
        [
            np.array((Aw.T * mpmath.lu_solve(M, mpmath.matrix(K_Lx[:, j].tolist()))).tolist(), dtype=float).ravel()
            for j in range(K_Lx.shape[1])
        ]
    )
    assert np.linalg.cond(K_LL) > 1e8
    assert np.abs(beta - ref).max() <= 1e-8 * np.abs(ref).max()


def test_variational_deconditional_with_every_input_as_documented():
    """The docs say: exact in exact arithmetic only; in floating point within 3e-8 (means) and 3e-3
    (covariances, relative to their scale) of the exact estimator on this case."""
    from kexplain.embeddings.deconditional import DeconditionalGPRegressor

    rng = np.random.default_rng(0)
    X = np.sort(rng.uniform(0, 3, 30))[:, None]
    y = np.sin(2 * X).ravel()
    Xq = np.linspace(0, 3, 7)[:, None]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = DeconditionalGPRegressor("exact", lengthscale=0.2, optimize=False).fit(X, y)
        b = DeconditionalGPRegressor("variational", lengthscale=0.2, n_inducing=30, optimize=False).fit(X, y)
    assert b.inducing_points_.shape[0] == 30
    ma, ca = a.predict(Xq, return_cov=True)
    mb, cb = b.predict(Xq, return_cov=True)
    assert np.abs(ma - mb).max() <= 3e-8
    assert np.abs(ca - cb).max() <= 3e-3 * np.abs(ca).max()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**31 - 1),
    d=st.integers(2, 3),
    n=st.integers(5, 12),
    log_ls=st.lists(st.floats(-0.3, 1.5), min_size=3, max_size=3),
    alpha=st.sampled_from([1e-10, 1e-6, 1e-2]),
)
def test_random_gp_shap_covariance_against_enumeration_of_coalition_pairs(seed, d, n, log_ls, alpha):
    """Observational GP-SHAP (the reviewers' 1 of 546 case): against enumeration of coalition pairs
    on scikit-learn's posterior covariance of the hybrid points (x_S, R_l,not S) weighted by the CME
    weights, right to 1e-8 relative, or an AccuracyWarning."""
    from kexplain.rkhs.gpshap import shapley_coefficients

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.sin(X[:, 0]) + 0.5 * X[:, -1]
    gpr = GaussianProcessRegressor(RBF(10.0 ** np.asarray(log_ls[:d])), alpha=alpha, optimizer=None).fit(X, y)
    x = rng.normal(size=(1, d))
    expl = kx.RKHSExplainer(gpr, X)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ex = expl.explain(x, uncertainty=True)
    warned = any(issubclass(w.category, AccuracyWarning) for w in caught)
    cme = expl.explainer._gpshap.cme
    H, B = [], []
    for m, S in enumerate(all_coalitions(d)):
        Hs = cme.R.copy()
        Hs[:, S] = x[0, S]
        if 0 < m < 2**d - 1:
            k = sum(
                wt * np.prod(t.feature_values(cme.R, x)[:, 0, S], axis=-1) for wt, t in zip(cme.cme_w, cme.em.terms)
            )
            beta = cme.exact_factor(np.flatnonzero(S)).weights(k[:, None])[:, 0]
        else:
            beta = np.full(n, 1.0 / n)
        H.append(Hs)
        B.append(beta)
    Lmat = np.zeros((len(B), len(B) * n))
    for q, beta in enumerate(B):
        Lmat[q, q * n : (q + 1) * n] = beta
    _, cov_H = gpr.predict(np.concatenate(H), return_cov=True)
    Cm = shapley_coefficients(d)
    ref = Cm.T @ (Lmat @ cov_H @ Lmat.T) @ Cm
    C = ex.covariance[0]
    assert np.all(np.diag(C) >= 0)
    prior = float(gpr.kernel_.diag(x)[0])
    # the reference sums 4^d posterior covariances weighted by CME weights: its own rounding
    weight = float(np.abs(Cm).T.sum(axis=1).max() * np.abs(Lmat).sum(axis=1).max()) ** 2
    tol_ref = 64 * np.finfo(float).eps * prior * weight
    err = np.abs(C - ref)
    bound = ex.info["variance_error_bound"][0]
    assert np.all(err <= np.sqrt(np.outer(bound, bound)) + tol_ref)
    if not warned:
        assert np.all(err <= 1e-8 * np.sqrt(np.outer(np.diag(ref), np.diag(ref))) + tol_ref)

"""Stochastic Shapley values of a GP: exact mean and covariance against the alternatives.

For a GP posterior on an ARD RBF kernel (n training rows) and the interventional game over B
background rows, per explained point:

- ours: ``ProductKernelExplainer(posterior, background).explain(x, uncertainty=True)``, the values
  (posterior mean) and their exact d x d covariance;
- (a) enumeration of all 4^d coalition pairs on the posterior covariance at the 2^d * B hybrid
  points (the definition; feasible to d = 10, which takes tens of seconds, run without --quick);
- (b) what a user would write instead: exact Shapley values of S posterior function draws and
  their sample covariance, S = 100 and 1,000.  At d = 6 the draws are exact, joint Gaussian draws
  at the 2^d * B hybrid points (Shapley values by enumeration).  Beyond that a joint draw at all
  hybrid points is out of reach (51,200 points at d = 10), so the draws are pathwise samples
  (Wilson et al., 2020, "Efficiently sampling functions from Gaussian process posteriors"):
  f_s = m + g_s - k(., X) A (g_s(X) + e_s) with g_s a prior draw of L = 1,000 random Fourier
  features; the exact Shapley values of each Fourier feature (a product game with complex
  factors) and of each k(., X_i) are computed once and combined per draw, the cheapest exact
  route for sampled functions.  Its error has a Monte Carlo part (about sqrt(2 / S) relative)
  and, for the pathwise draws, the Fourier approximation of the prior.

First, before/after of the prior term (the bulk of a call at d >= 20): the compiled pass plus one
matrix product per cache-sized chunk (numba) against the numpy path (about ten passes over
(pairs, nodes, nodes, d) arrays, what every call ran before), per explained point of
``explain(x, uncertainty=True)``, interleaved repetitions; also the prior term's share of a call
and its throughput against single-thread DGEMM measured in the same run (2 q m^2 d^2 flops for
q = B (B + 1) / 2 background pairs and m = ceil(d/2) nodes).

The error of (b) is the relative Frobenius error ||C_b - C||_F / ||C||_F of the covariance,
averaged over points.  Times are CPU seconds of this process per explained point (best of the
points measured, warm; BLAS is single-threaded, set before numpy loads, so this is the time on one
core, steadier than wall time on a shared machine); the ratio is (other) / (ours).  Ours costs
about B^2 d^4 / 4 operations per point (the background pairs (b, b') and (b', b) are computed
once).  ``--quick``: n = 200, B = 20, fewer points, no enumeration at d = 10.
"""

from __future__ import annotations

import os

# one BLAS/OpenMP thread for every side, set before numpy (or anything that loads BLAS) is imported:
# set later, the variables are ignored and the baselines run on more than one core
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import math  # noqa: E402
import pathlib  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from _common import compare, fmt_s, load_note, print_table, quick_flag, ratio_line, result, threads_note  # noqa: E402

import kexplain as kx  # noqa: E402
from kexplain.models import GPPosterior  # noqa: E402
from kexplain.shapley import stochastic  # noqa: E402
from kexplain.shapley.quadrature import gauss_legendre_01, nodes_for_degree  # noqa: E402
from kexplain.shapley.stochastic import row_shapley_values  # noqa: E402

QUICK = quick_flag()
N_TRAIN = 200 if QUICK else 300
N_BG = 20 if QUICK else 50
DIMS = (6, 10, 20, 50)
N_POINTS = {6: 2, 10: 2, 20: 2, 50: 1} if QUICK else {6: 2, 10: 2, 20: 2, 50: 2}
ENUM_MAX_D = 6 if QUICK else 10
N_FOURIER = 1000
NOISE = 0.1


def make_posterior(d: int, seed: int = 0):
    """A GP posterior on an ARD RBF kernel with lengthscales about sqrt(d) (so the function is not flat)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N_TRAIN, d))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2 % d] + 0.1 * rng.normal(size=N_TRAIN)
    ls = np.sqrt(d) * rng.uniform(0.7, 1.3, d)
    kernel = kx.kernels.RBF(ls, amplitude=1.5)
    A = np.linalg.inv(kernel(X) + NOISE * np.eye(N_TRAIN))
    post = GPPosterior(X, kernel, A @ y, A)
    Z = rng.normal(size=(N_BG, d))
    Xq = rng.normal(size=(max(N_POINTS.values()), d))
    return post, Z, Xq, ls, rng


# -- (a) enumeration of coalition pairs ---------------------------------------------------------------
def shapley_matrix(d: int):
    """(coalitions (2^d, d), W (d, 2^d)) with phi_j = sum_S W[j, S] v(S)."""
    C = ((np.arange(2**d)[:, None] >> np.arange(d)[None, :]) & 1).astype(bool)
    size = C.sum(axis=1)
    fact = [math.factorial(k) for k in range(d + 1)]
    w_in = np.array([fact[s - 1] * fact[d - s] / fact[d] if s > 0 else 0.0 for s in size])
    w_out = np.array([fact[s] * fact[d - s - 1] / fact[d] if s < d else 0.0 for s in size])
    W = np.where(C.T, w_in[None, :], -w_out[None, :])
    return C, W


def enumeration_covariance(post: GPPosterior, x: np.ndarray, Z: np.ndarray, w: np.ndarray) -> np.ndarray:
    """W V W^T with V[S, T] = sum_{b, b'} w_b w_b' k_post(x_S z_b, x_T z_b'), in blocks of S."""
    d, B = x.shape[0], Z.shape[0]
    C, W = shapley_matrix(d)
    H = np.where(C[:, None, :], x[None, None, :], Z[None, :, :]).reshape(-1, d)  # (2^d B, d)
    G = (post.kernel(H, post.X_train).reshape(2**d, B, -1) * w[None, :, None]).sum(axis=1)  # (2^d, n)
    V = -(G @ post.precision @ G.T)
    step = max(1, 2**22 // (H.shape[0] * B))
    for s0 in range(0, 2**d, step):
        s1 = min(2**d, s0 + step)
        K = post.kernel(H[s0 * B : s1 * B], H).reshape(s1 - s0, B, 2**d, B)
        V[s0:s1] += np.einsum("sbtc,b,c->st", K, w, w)
    return post.scale**2 * (W @ V @ W.T)


# -- (b) Shapley values of posterior function draws ------------------------------------------------------
def exact_basis(post, x, Z, w):
    """What every draw at the hybrid points needs: their mean, a square root of their covariance, W."""
    d, B = x.shape[0], Z.shape[0]
    C, W = shapley_matrix(d)
    H = np.where(C[:, None, :], x[None, None, :], Z[None, :, :]).reshape(-1, d)
    evals, evecs = np.linalg.eigh(post.covariance(H))
    root = evecs * np.sqrt(np.clip(evals, 0.0, None))
    return post.mean(H), root, W, B


def exact_draws(basis, w, S, rng):
    """Joint draws of f at the 2^d * B hybrid points: their Shapley values (S, d) by enumeration."""
    mean, root, W, B = basis
    draws = mean[None, :] + rng.standard_normal((S, mean.shape[0])) @ root.T
    return (draws.reshape(S, -1, B) @ w) @ W.T


def fourier_shapley(omega, phase, x, Z, w):
    """Exact interventional Shapley values of cos(omega_l . x + phase_l), (L, d): complex product games."""
    L, d = omega.shape
    t, wt = gauss_legendre_01(nodes_for_degree(d - 1))
    a = np.exp(1j * omega * x[None, :])  # (L, d): present factors
    out = np.zeros((L, d))
    for b in range(Z.shape[0]):
        bz = np.exp(1j * omega * Z[b][None, :])  # (L, d): absent factors
        g = bz[:, None, :] + t[None, :, None] * (a - bz)[:, None, :]  # (L, m, d)
        pre = np.cumprod(np.concatenate([np.ones((L, len(t), 1)), g[:, :, :-1]], axis=2), axis=2)
        suf = np.cumprod(np.concatenate([np.ones((L, len(t), 1)), g[:, :, :0:-1]], axis=2), axis=2)[:, :, ::-1]
        loo = (pre * suf * wt[None, :, None]).sum(axis=1)  # (L, d)
        out += w[b] * np.real(np.exp(1j * phase)[:, None] * (a - bz) * loo)
    return out


def pathwise_basis(post, ls, x, Z, w, rng):
    """Exact Shapley values of the L Fourier features and of the n functions k(., X_i) at x."""
    d = x.shape[0]
    amp = post.kernel.amplitude
    omega = rng.normal(size=(N_FOURIER, d)) / ls[None, :]
    phase = rng.uniform(0, 2 * np.pi, N_FOURIER)
    scale = np.sqrt(2.0 * amp / N_FOURIER)
    Psi = scale * fourier_shapley(omega, phase, x, Z, w)  # (L, d)
    Xt = post.X_train
    a = post.kernel.feature_values(x[None, :], Xt)
    b = np.ascontiguousarray(post.kernel.feature_values(Z, Xt).transpose(1, 0, 2))
    Phi = amp * row_shapley_values(a, b, w)[0]  # (n, d)
    feats = scale * np.cos(Xt @ omega.T + phase[None, :])  # (n, L): the Fourier features at X
    return Psi, Phi, feats, post.precision


def pathwise_draws(basis, S, rng):
    """Shapley values (S, d) of f_s - m for pathwise draws f_s = m + g_s - k(., X) A (g_s(X) + e_s)."""
    Psi, Phi, feats, A = basis
    theta = rng.standard_normal((S, Psi.shape[0]))
    eps = np.sqrt(NOISE) * rng.standard_normal((S, feats.shape[0]))
    v = (theta @ feats.T + eps) @ A  # (S, n)
    return theta @ Psi - v @ Phi


def rel_err(C_hat, C):
    return float(np.linalg.norm(C_hat - C) / np.linalg.norm(C))


# -- before/after: the prior term's compiled pass against the numpy path -------------------------------
def dgemm_gflops() -> float:
    """Single-thread DGEMM throughput (1000 x 1000, best of 5, CPU time)."""
    a, b = np.random.default_rng(0).random((2, 1000, 1000))
    times = []
    for _ in range(5):
        t0 = time.process_time()
        a @ b
        times.append(time.process_time() - t0)
    return 2e9 / min(times) / 1e9


def bench_prior() -> None:
    loader = stochastic._prior_kernel
    compiled = loader()
    if compiled is None:
        print("numba is not installed: the prior term runs the numpy path only (no before/after)\n")
        return
    peak = dgemm_gflops()
    rows = []
    for d in (20, 50) if QUICK else (20, 50, 100):
        post, Z, Xq, _, _ = make_posterior(d, seed=d)
        expl = kx.ProductKernelExplainer(post, background=Z)
        x = Xq[:1]

        def call(kernel, x=x, expl=expl):
            stochastic._prior_kernel = lambda: kernel
            try:
                return expl.explain(x, uncertainty=True)
            finally:
                stochastic._prior_kernel = loader

        def prior_only(x=x, expl=expl):
            return expl._covariance._prior(x, None, False)

        res = compare({"numpy": lambda: call(None), "compiled": lambda: call(compiled), "prior": prior_only})
        before, after = res["numpy"]["result"], res["compiled"]["result"]
        diff = np.abs(after.covariance - before.covariance).max() / np.abs(before.covariance).max()
        m = nodes_for_degree(d - 1)
        flops = 2 * (N_BG * (N_BG + 1) // 2) * m * m * d * d
        share = res["prior"]["median"] / res["compiled"]["median"]
        pct = 100 * flops / res["prior"]["min"] / 1e9 / peak
        result(f"uncertainty_prior_compiled_vs_numpy_d{d}", res["numpy"]["min"] / res["compiled"]["min"], None, "x")
        result(f"uncertainty_prior_dgemm_share_d{d}", pct, None, "%")
        rows.append(
            [
                d,
                fmt_s(res["numpy"]["min"]),
                fmt_s(res["compiled"]["min"]),
                ratio_line(res["numpy"], res["compiled"]),
                f"{100 * share:.0f}%",
                f"{pct:.0f}%",
                f"{diff:.1e}",
            ]
        )
    print_table(
        f"explain(x, uncertainty=True) per point, B = {N_BG}: numpy prior term (before) vs compiled (after); "
        f"3 interleaved repetitions, CPU time, min (median); single-thread DGEMM {peak:.1f} GFLOP/s",
        ["d", "before", "after", "speed-up", "prior share after", "prior % of DGEMM", "max rel diff of cov"],
        rows,
    )
    print()


def main() -> None:
    from threadpoolctl import threadpool_limits

    # libraries loaded after the environment was read (none expected) are capped as well
    with threadpool_limits(limits=1):
        _main()


def _main() -> None:
    print(__doc__.splitlines()[0])
    print(load_note())
    print(threads_note())
    print(f"n = {N_TRAIN} training rows, B = {N_BG} background rows, L = {N_FOURIER} Fourier features\n")
    bench_prior()
    if "--prior-only" in sys.argv[1:]:
        return
    rows = []
    for d in DIMS:
        post, Z, Xq, ls, rng = make_posterior(d, seed=d)
        w = np.full(N_BG, 1.0 / N_BG)
        expl = kx.ProductKernelExplainer(post, background=Z)
        expl.explain(Xq[:1], uncertainty=True)  # builds the background tables once (not timed per point)
        ours_t, covs = [], []
        for i in range(N_POINTS[d]):
            t0 = time.process_time()
            ex = expl.explain(Xq[i : i + 1], uncertainty=True)
            ours_t.append(time.process_time() - t0)
            covs.append(ex.covariance[0])
        t_ours = min(ours_t)
        enum_t, enum_err = "-", "-"
        if d <= ENUM_MAX_D:
            t0 = time.process_time()
            C_enum = enumeration_covariance(post, Xq[0], Z, w)
            te = time.process_time() - t0
            enum_t = f"{fmt_s(te)} ({te / t_ours:.0f}x)"
            result(f"uncertainty_vs_enumeration_d{d}", te / t_ours, None, "x")
            enum_err = f"{np.abs(C_enum - covs[0]).max() / np.abs(C_enum).max():.1e}"
        row = [d, fmt_s(t_ours), enum_t, enum_err]
        method = "joint draws" if d <= 6 else "pathwise RFF"
        # per point: the basis (shared by both S, its time counted in each) and the draws
        bases = []
        for i in range(N_POINTS[d]):
            t0 = time.process_time()
            if d <= 6:
                basis = exact_basis(post, Xq[i], Z, w)
            else:
                basis = pathwise_basis(post, ls, Xq[i], Z, w, rng)
            bases.append((basis, time.process_time() - t0))
        for S in (100, 1000):
            times, errs = [], []
            for i, (basis, t_basis) in enumerate(bases):
                t0 = time.process_time()
                vals = exact_draws(basis, w, S, rng) if d <= 6 else pathwise_draws(basis, S, rng)
                C_b = np.cov(vals.T)
                times.append(t_basis + time.process_time() - t0)
                errs.append(rel_err(C_b, covs[i]))
            tb = min(times)
            result(f"uncertainty_vs_{S}_draws_d{d}", tb / t_ours, None, "x", note=f"draws' error {np.mean(errs):.3f}")
            row += [f"{fmt_s(tb)} ({tb / t_ours:.1f}x)", f"{np.mean(errs):.3f}"]
        rows.append(row + [method])
        print(f"d = {d}: done", flush=True)
    print()
    print_table(
        "CPU time per point of mean + covariance; (a) enumeration, (b) S posterior draws (ratio to ours)",
        [
            "d",
            "ours",
            "(a) enumeration",
            "(a) max rel diff",
            "(b) S=100",
            "err S=100",
            "(b) S=1000",
            "err S=1000",
            "(b) draws",
        ],
        rows,
    )


if __name__ == "__main__":
    main()

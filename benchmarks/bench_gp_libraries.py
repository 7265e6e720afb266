"""BoTorch SingleTaskGP (Matérn-5/2 ARD, Normalize + Standardize): kexplain against shap's ExactExplainer.

Both sides explain the same posterior mean, model.posterior(X).mean, on the same background and the
same points, one thread each (BLAS and torch).  shap evaluates the model on all 2^d coalitions x
background rows; kexplain converts the model once into a kernel expansion (Matérn as a positive
RBF mixture within its reported bound) and solves the game in polynomial time.  Also timed: the
exact covariance of the values (``uncertainty=True``), which shap does not give.

    python benchmarks/bench_gp_libraries.py [--quick] [--n N] [--d D] [--rsample S]

The issue's sizes are n = 500 with d = 10 and d = 30 (``--n 500 --d 30``: shap's ExactExplainer,
2^30 coalitions, is not run there); ``--quick`` runs n = 60, d = 6.

Posterior samples (d <= 12): the Shapley values of S functions drawn from the posterior with
``model.posterior(H).rsample`` on every hybrid point H of one explained point (2^d coalitions x a
small background, exact Cholesky sampling), whose sample covariance estimates the covariance that
kexplain computes exactly; the table gives both times and the estimate's largest error relative
to the largest exact entry (Monte Carlo error shrinks as 1/sqrt(S)).
"""

from __future__ import annotations

import argparse
import warnings

import _common  # noqa: F401  (first: single-threaded BLAS before numpy loads)
import numpy as np
from _common import fmt_s, load_note, print_table, timed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--d", type=int, default=10)
    parser.add_argument("--background", type=int, default=20)
    parser.add_argument("--points", type=int, default=4)
    parser.add_argument("--rsample", type=int, default=1000, help="posterior samples S (0: skip)")
    parser.add_argument("--rsample-background", type=int, default=5)
    args = parser.parse_args()
    n, d = (60, 6) if args.quick else (args.n, args.d)
    S = 200 if args.quick else args.rsample
    import shap
    import torch
    from botorch.models import SingleTaskGP
    from botorch.models.transforms import Normalize, Standardize
    from gpytorch.kernels import MaternKernel, ScaleKernel

    import kexplain as kx

    torch.set_num_threads(1)
    g = torch.Generator().manual_seed(0)
    X = torch.rand(n, d, dtype=torch.float64, generator=g) * 4
    y = (torch.sin(X[:, 0]) + X[:, 1] * X[:, 2 % d] - 0.3 * X[:, -1] ** 2)[:, None]
    covar = ScaleKernel(MaternKernel(nu=2.5, ard_num_dims=d))
    gp = SingleTaskGP(X, y, covar_module=covar, input_transform=Normalize(d), outcome_transform=Standardize(1))
    with torch.no_grad():
        covar.base_kernel.lengthscale = torch.linspace(0.3, 1.5, d, dtype=torch.float64)
    gp = gp.eval()
    B = X[: args.background].numpy()
    Xq = X[n - args.points :].numpy() * 0.99

    def f(Z):
        with torch.no_grad():
            return gp.posterior(torch.as_tensor(Z)).mean.numpy()[:, 0]

    warnings.simplefilter("ignore")
    explainer, t_build, _ = timed(kx.ProductKernelExplainer, gp, background=B)
    ex, t_ours, _ = timed(explainer.explain, Xq)
    exu, t_unc, _ = timed(explainer.explain, Xq, uncertainty=True)
    own = f(Xq)
    eff = float(np.abs(ex.base_values + ex.values.sum(axis=1) - own).max())
    print(load_note())
    shap_cols = ["n/a (2^d coalitions)"] * 3
    if d <= 16:
        sx = shap.ExactExplainer(f, shap.maskers.Independent(B, max_samples=len(B)))
        sx(Xq[:1])  # warm
        sv, t_shap, _ = timed(sx, Xq)
        err = float(np.abs(sv.values - ex.values).max())
        shap_cols = [fmt_s(t_shap), f"{t_shap / (t_build + t_ours):.1f}x", f"{err:.2e}"]
    print_table(
        f"BoTorch SingleTaskGP Matern-5/2 ARD, n={n}, d={d}, background {len(B)}, {len(Xq)} points, one thread",
        [
            "kexplain build",
            "kexplain explain",
            "kexplain +covariance",
            "shap Exact",
            "ratio shap/(build+explain)",
            "max |diff| vs shap",
            "max |sum - posterior mean|",
        ],
        [[fmt_s(t_build), fmt_s(t_ours), fmt_s(t_unc), *shap_cols, f"{eff:.2e}"]],
    )
    if S and d <= 12:
        _posterior_samples(gp, X.numpy(), Xq[0], args.rsample_background, S, d)


def _posterior_samples(gp, X, x, n_background, S, d):
    """Sample covariance of the values of S posterior draws against kexplain's exact covariance."""
    import math

    import gpytorch
    import torch

    import kexplain as kx

    B = X[:n_background]
    coalitions = np.array([[(m >> k) & 1 for k in range(d)] for m in range(2**d)], dtype=bool)
    W = np.zeros((d, 2**d))  # phi = W @ v
    for c, C in enumerate(coalitions):
        size = int(C.sum())
        for j in range(d):
            if C[j]:
                W[j, c] += math.factorial(size - 1) * math.factorial(d - size) / math.factorial(d)
            else:
                W[j, c] -= math.factorial(size) * math.factorial(d - size - 1) / math.factorial(d)
    H = np.where(coalitions[:, None, :], x[None, None, :], B[None, :, :]).reshape(-1, d)

    def sampled():
        # exact Cholesky sampling (GPyTorch would switch to Lanczos above 800 points)
        with torch.no_grad(), gpytorch.settings.max_cholesky_size(10**6), gpytorch.settings.fast_pred_var(False):
            draws = gp.posterior(torch.as_tensor(H)).rsample(torch.Size([S])).numpy()[..., 0]  # (S, len(H))
        v = draws.reshape(S, 2**d, len(B)).mean(axis=2)  # (S, 2^d)
        phi = v @ W.T  # (S, d)
        return np.cov(phi, rowvar=False)

    explainer = kx.ProductKernelExplainer(gp, background=B)
    explainer.explain(x[None], uncertainty=True)  # warm
    exact, t_exact, _ = timed(lambda: explainer.explain(x[None], uncertainty=True).covariance[0])
    est, t_sampled, _ = timed(sampled)
    scale = float(np.abs(exact).max())
    err = float(np.abs(est - exact).max()) / scale
    print_table(
        f"Covariance of the values of one point, background {len(B)} ({len(H)} hybrid points), one thread",
        ["kexplain exact", f"rsample S={S} + values", "ratio", "max |sampled - exact| / max |exact|"],
        [[fmt_s(t_exact), fmt_s(t_sampled), f"{t_sampled / t_exact:.1f}x", f"{err:.3f}"]],
    )


if __name__ == "__main__":
    main()

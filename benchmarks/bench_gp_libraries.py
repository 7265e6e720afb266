"""BoTorch SingleTaskGP (Matérn-5/2 ARD, Normalize + Standardize): kexplain against shap's ExactExplainer.

Both sides explain the same posterior mean, model.posterior(X).mean, on the same background and the
same points, one thread each (BLAS and torch).  shap evaluates the model on all 2^d coalitions x
background rows; kexplain converts the model once into a kernel expansion (Matérn as a positive
RBF mixture within its reported bound) and solves the game in polynomial time.  Also timed: the
exact covariance of the values (``uncertainty=True``), which shap does not give.

    python benchmarks/bench_gp_libraries.py [--quick] [--n N] [--d D]

The issue's size is n = 500, d = 10 (``--n 500 --d 10``); ``--quick`` runs n = 60, d = 6.
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
    args = parser.parse_args()
    n, d = (60, 6) if args.quick else (args.n, args.d)
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
    sx = shap.ExactExplainer(f, shap.maskers.Independent(B, max_samples=len(B)))
    sx(Xq[:1])  # warm
    sv, t_shap, _ = timed(sx, Xq)
    err = float(np.abs(sv.values - ex.values).max())
    own = f(Xq)
    eff = float(np.abs(ex.base_values + ex.values.sum(axis=1) - own).max())
    print(load_note())
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
        [
            [
                fmt_s(t_build),
                fmt_s(t_ours),
                fmt_s(t_unc),
                fmt_s(t_shap),
                f"{t_shap / (t_build + t_ours):.1f}x",
                f"{err:.2e}",
                f"{eff:.2e}",
            ]
        ],
    )


if __name__ == "__main__":
    main()

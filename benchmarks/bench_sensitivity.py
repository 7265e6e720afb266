"""Exact Sobol indices and Shapley effects against SALib, and variance attribution against enumeration.

Part 1, global sensitivity of one GP surrogate (ARD RBF, n training runs of a test function on
U[0, 1]^d, hyperparameters fixed so that fitting is not timed) at d = 8 and d = 20:

- ours: ``kx.sensitivity.SensitivityAnalysis(gp, distributions=uniform)``: first-order and total
  indices and the Shapley effects, exact for the surrogate (closed-form uniform expectations);
- SALib: Saltelli sampling with Sobol's first-order and total estimators (``calc_second_order=False``)
  at N = 10,000, i.e. N (d + 2) surrogate predictions, plus its bootstrap confidence intervals.
  Reported: its time (sampling, predictions, analysis), its largest error against our exact
  values, and its largest 95% CI half-width.  SALib has no Shapley effects.

Part 2, uncertainty attribution (``explain(x, target="variance")``) of a GP with n = 100 training
rows and B = 10 background rows, per point, at d = 10 (against enumeration of all 2^d coalitions of
scikit-learn's own ``predict(..., return_std=True)`` at the 2^d * B hybrid points) and d = 50 (no
enumeration: 2^50 coalitions; the efficiency error is reported).

Times are wall-clock seconds on one core (BLAS single-threaded); ratio = SALib / ours.
``--quick``: N = 2,000 and fewer points.
"""

from __future__ import annotations

import pathlib
import sys
import time
import warnings

import _common  # noqa: F401  (first: one BLAS thread before numpy loads)
import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from _common import print_table, quick_flag  # noqa: E402

import kexplain as kx  # noqa: E402


def g_function(X):
    """Sobol's G function, a_j = (j - 1) / 2: every input matters, the first ones most."""
    a = (np.arange(X.shape[1])) / 2.0
    return np.prod((np.abs(4 * X - 2) + a) / (1 + a), axis=1)


def surrogate(d, n, seed=0):
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel

    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, d))
    ls = 0.4 + 0.15 * np.arange(d)
    gp = GaussianProcessRegressor(ConstantKernel(1.0) * RBF(ls), alpha=1e-4, normalize_y=True, optimizer=None)
    return gp.fit(X, g_function(X))


def part1(quick):
    import scipy.stats as st
    from SALib.analyze import sobol as sobol_analyze
    from SALib.sample import sobol as sobol_sample

    N = 2_000 if quick else 10_000
    warm = kx.KernelExpansion(np.zeros((2, 2)), [1.0, -1.0], kx.kernels.RBF(1.0))
    kx.sensitivity.SensitivityAnalysis(warm, distributions=[st.uniform(0, 1)] * 2).shapley_effects()  # compile
    rows = []
    for d, n in [(8, 300), (20, 300)]:
        gp = surrogate(d, n)
        t0 = time.perf_counter()
        sa = kx.sensitivity.SensitivityAnalysis(gp, distributions=[st.uniform(0, 1)] * d)
        first, total = sa.first_order(), sa.total_order()
        t_indices = time.perf_counter() - t0
        effects = sa.shapley_effects()
        t_ours = time.perf_counter() - t0
        problem = {"num_vars": d, "names": [f"x{j}" for j in range(d)], "bounds": [[0.0, 1.0]] * d}
        t0 = time.perf_counter()
        with warnings.catch_warnings():  # N = 10,000 as asked, not a power of 2
            warnings.simplefilter("ignore", UserWarning)
            P = sobol_sample.sample(problem, N, calc_second_order=False, scramble=True, seed=1)
        Y = gp.predict(P)
        Si = sobol_analyze.analyze(problem, Y, calc_second_order=False, seed=2)
        t_salib = time.perf_counter() - t0
        err = max(np.abs(Si["S1"] - first).max(), np.abs(Si["ST"] - total).max())
        half = max(Si["S1_conf"].max(), Si["ST_conf"].max())
        covered = np.mean(np.r_[np.abs(Si["S1"] - first) <= Si["S1_conf"], np.abs(Si["ST"] - total) <= Si["ST_conf"]])
        rows.append(
            [
                d,
                n,
                f"{t_indices:.2f}",
                f"{t_ours:.2f}",
                f"{len(P):,}",
                f"{t_salib:.2f}",
                f"{t_salib / t_ours:.1f}",
                f"{err:.3f}",
                f"{half:.3f}",
                f"{100 * covered:.0f}%",
                f"{abs(effects.shapley_effect.sum() - 1):.1e}",
            ]
        )
    print_table(
        f"Part 1: exact Sobol indices / Shapley effects vs SALib Saltelli at N = {N:,} (one core)",
        [
            "d",
            "n",
            "ours S1+ST s",
            "ours +Shapley s",
            "SALib evals",
            "SALib s",
            "ratio",
            "SALib max err",
            "SALib max CI",
            "CI covers ours",
            "|sum Sh - 1|",
        ],
        rows,
    )


def part2(quick):
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel

    rows = []
    for d in (10, 50):
        rng = np.random.default_rng(d)
        X = rng.normal(size=(100, d))
        gp = GaussianProcessRegressor(
            ConstantKernel(1.0) * RBF(np.full(d, np.sqrt(d))), alpha=1e-2, optimizer=None
        ).fit(X, np.sin(X[:, 0]) + X[:, 1])
        Z = X[:10]
        explainer = kx.ProductKernelExplainer(gp, background=Z)
        pts = rng.normal(size=(2 if quick else 3, d)) * 1.5
        explainer.explain(pts[:1], target="variance")  # compile / warm up
        t0 = time.perf_counter()
        ex = explainer.explain(pts, target="variance")
        per_point = (time.perf_counter() - t0) / len(pts)
        enum_t, enum_err = "-", "-"
        if d <= 12:
            t0 = time.perf_counter()

            def v(coalitions, x, Z=Z, d=d, gp=gp):
                h = np.where(coalitions[:, None, :], x[None, None, :], Z[None, :, :]).reshape(-1, d)
                _, std = gp.predict(h, return_std=True)
                return (std**2).reshape(len(coalitions), -1).mean(axis=1)

            ref = np.array([kx.exact_shapley(lambda c, x=x: v(c, x), d).values for x in pts])
            enum_t = f"{(time.perf_counter() - t0) / len(pts):.2f}"
            enum_err = f"{np.abs(ref - ex.values).max() / np.abs(ex.v_full).max():.1e}"
        rows.append([d, 100, 10, f"{per_point:.3f}", enum_t, enum_err, f"{ex.info['efficiency_error']:.1e}"])
    print_table(
        "Part 2: exact Shapley values of the posterior variance, per point (one core)",
        ["d", "n", "B", "ours s/pt", "enumeration s/pt", "max rel. err", "efficiency err"],
        rows,
    )


if __name__ == "__main__":
    quick = quick_flag()
    part1(quick)
    print()
    part2(quick)

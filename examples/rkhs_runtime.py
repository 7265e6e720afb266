"""
Run time of RKHS-SHAP against KernelSHAP
========================================

How long RKHS-SHAP takes against shap's KernelExplainer on the Banana data as the training set
grows (Chau, Hu, Gonzalez & Sejdinovic, 2022, section 5.1, Experiment 2).

For each training-set size n, a kernel ridge regression is explained at N points with the whole
training set as background/reference data:

- RKHS-ISV (engine): exact interventional values from the product-game engine
  (``RKHSExplainer(model, value="interventional").explain``, shap's interventional values);
- RKHS-ISV (mean embedding): the paper's estimator, enumerating the coalitions with the mean
  embedding of the absent features shared across points (RKHSExplainer.value_function);
- RKHS-OSV: observational values through conditional mean embeddings (exact CME);
- KernelSHAP: shap.KernelExplainer(model.predict, X_train) (exact for d = 2: all coalitions).

Every time includes building the explainer (the work on the background done once).  Prints
times, the speed-ups of the RKHS routes over KernelSHAP, and the largest difference of
the interventional values (all three are exact, so it is rounding).  Timings on a shared machine
are inflated by contention; compare the ratios.

    python examples/rkhs_runtime.py                 # n in 100, 500, 1000, 1500
    python examples/rkhs_runtime.py --full          # paper scale: up to n = 5000 (slow: KernelSHAP)
    python examples/rkhs_runtime.py --quick         # n in 100, 300 (also: KEXPLAIN_QUICK=1)
"""

import argparse
import os
import time

import numpy as np
from sklearn.kernel_ridge import KernelRidge

import kexplain as kx
from kexplain.kernels import median_heuristic


def banana(n, b=10.0, v=10.0, rng=None):
    z1 = rng.normal(scale=np.sqrt(v), size=n)
    z2 = rng.normal(size=n)
    X = np.column_stack([z1, (z1**2 - v) / b + z2])
    return X, (X[:, 0] ** 2 - v) / b + X[:, 1]


def timed(fn, *args):
    t0 = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - t0


def engine_values(em, Xe):
    return kx.RKHSExplainer(em, value="interventional").explain(Xe).values


def mean_embedding_values(em, Xe):
    return kx.exact_shapley(kx.RKHSExplainer(em, value="interventional").value_function(Xe), 2).values[..., 0]


def observational_values(em, Xe):
    return kx.RKHSExplainer(em).explain(Xe).values


def kernel_shap_values(em, X, Xe):
    import shap

    ks = shap.KernelExplainer(lambda Z: em.predict(Z, validate=False), X)
    return np.asarray(ks.shap_values(Xe, silent=True))


def main(sizes, N, out):
    rows = []
    # first calls compile/import (the engine may JIT); keep that out of the timings
    Xw, yw = banana(20, rng=np.random.default_rng(0))
    warm = kx.KernelExpansion(Xw, yw, kx.kernels.RBF(1.0))
    kx.RKHSExplainer(warm, value="interventional").explain(Xw[:2])
    kx.RKHSExplainer(warm).explain(Xw[:2])
    print(
        f"{'n':>6}{'ISV engine':>12}{'ISV mean-emb':>14}{'OSV':>10}{'KernelSHAP':>12}"
        f"{'x engine':>10}{'x mean-emb':>12}{'x OSV':>9}{'max |diff|':>12}"
    )
    for n in sizes:
        rng = np.random.default_rng(n)
        X, y = banana(n, rng=rng)
        ls = median_heuristic(X, per_feature=True)
        model = KernelRidge(kernel="precomputed", alpha=0.1)
        kern = kx.kernels.RBF(ls)
        model.fit(kern(X, X), y)
        em = kx.KernelExpansion(X, model.dual_coef_, kern)
        Xe = X[:N]
        isv, t_eng = timed(engine_values, em, Xe)
        isv_me, t_me = timed(mean_embedding_values, em, Xe)
        _, t_osv = timed(observational_values, em, Xe)
        sv, t_k = timed(kernel_shap_values, em, X, Xe)
        diff = max(np.abs(sv - isv).max(), np.abs(isv_me - isv).max())
        rows.append((n, t_eng, t_me, t_osv, t_k))
        print(
            f"{n:>6}{t_eng:>12.3f}{t_me:>14.3f}{t_osv:>10.3f}{t_k:>12.3f}"
            f"{t_k / t_eng:>9.1f}x{t_k / t_me:>11.1f}x{t_k / t_osv:>8.1f}x{diff:>12.1e}"
        )
    if out:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        r = np.array(rows)
        fig, ax = plt.subplots(figsize=(5, 4))
        for k, name in enumerate(["RKHS-ISV (engine)", "RKHS-ISV (mean embedding)", "RKHS-OSV", "KernelSHAP"], start=1):
            ax.plot(r[:, 0], r[:, k], "o-", label=name)
        ax.set(
            xscale="log",
            yscale="log",
            xlabel="n (training = background rows)",
            ylabel="seconds",
            title=f"explaining {N} points",
        )
        ax.legend()
        fig.tight_layout()
        fig.savefig(out, dpi=120)
        print(f"figure saved to {out}")


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--quick", action="store_true")
    g.add_argument("--full", action="store_true")
    p.add_argument("--points", type=int, default=20)
    p.add_argument("--out", default="rkhs_runtime.png")
    a, _ = p.parse_known_args()
    quick = a.quick or os.environ.get("KEXPLAIN_QUICK") == "1"
    sizes = (100, 300) if quick else (100, 500, 1000, 1500, 3000, 5000) if a.full else (100, 500, 1000, 1500)
    main(sizes, a.points, a.out)

"""
Run time of RKHS-SHAP against KernelSHAP
========================================

How long RKHS-SHAP takes against shap's KernelExplainer on the Banana data as the training set
grows (Chau, Hu, Gonzalez & Sejdinovic, 2022, section 5.1, Experiment 2).

For each training-set size n, a kernel ridge regression is explained at N points with the whole
training set as background/reference data:

- RKHS-ISV (engine): exact interventional values from the product-game engine
  (``RKHSExplainer(model, game="interventional").explain``, shap's interventional values);
- RKHS-ISV (mean embedding): the paper's estimator, enumerating the coalitions with the mean
  embedding of the absent features shared across points (RKHSExplainer.value_function);
- RKHS-OSV: observational values through conditional mean embeddings (exact CME);
- KernelSHAP: shap.KernelExplainer(model.predict, X_train) (exact for d = 2: all coalitions).

Every time includes building the explainer (the work on the background done once).  Prints
times, the speed-ups of the RKHS routes over KernelSHAP, and the largest difference of
the interventional values (all three are exact, so it is rounding).  Timings on a shared machine
are inflated by contention; compare the ratios.

``python examples/rkhs_runtime.py`` runs n in 100, 500, 1000, 1500; ``--quick`` or
``KEXPLAIN_QUICK=1`` n in 100, 300; ``--full`` or ``KEXPLAIN_FULL=1`` the paper's scale, up to
n = 5000 (slow: KernelSHAP).
"""

# %%
# The four methods
# ----------------
import argparse
import os
import time

import matplotlib.pyplot as plt
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
    return kx.RKHSExplainer(em, game="interventional").explain(Xe).values


def mean_embedding_values(em, Xe):
    return kx.exact_shapley(kx.RKHSExplainer(em, game="interventional").value_function(Xe), 2).values[..., 0]


def observational_values(em, Xe):
    return kx.RKHSExplainer(em).explain(Xe).values


def kernel_shap_values(em, X, Xe):
    import shap

    ks = shap.KernelExplainer(lambda Z: em.predict(Z, validate=False), X)
    return np.asarray(ks.shap_values(Xe, silent=True))


# %%
# Sizes
# -----
# argparse reads only the options it knows (``parse_known_args``): sphinx-gallery runs this file
# with sphinx-build's command line.
ap = argparse.ArgumentParser(description="RKHS-SHAP run time against KernelSHAP.")
ap.add_argument("--quick", action="store_true", help="n in 100, 300 (KEXPLAIN_QUICK=1)")
ap.add_argument("--full", action="store_true", help="n up to 5000 (KEXPLAIN_FULL=1)")
ap.add_argument("--points", type=int, default=20)
args, _ = ap.parse_known_args()
QUICK = args.quick or os.environ.get("KEXPLAIN_QUICK", "0") not in ("", "0")
FULL = not QUICK and (args.full or os.environ.get("KEXPLAIN_FULL", "0") not in ("", "0"))
sizes = (100, 300) if QUICK else (100, 500, 1000, 1500, 3000, 5000) if FULL else (100, 500, 1000, 1500)
N = args.points

# %%
# Time each method as n grows
# ---------------------------
# The last columns are KernelSHAP's time over each method's, and the largest difference between
# the exact values and KernelSHAP's.

rows = []
# first calls compile/import (the engine may JIT); keep that out of the timings
Xw, yw = banana(20, rng=np.random.default_rng(0))
warm = kx.KernelExpansion(Xw, yw, kx.kernels.RBF(1.0))
kx.RKHSExplainer(warm, game="interventional").explain(Xw[:2])
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
# %%
# The times on log-log axes.
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
plt.show()

"""
STAR-SHAP against SHAP-IQ: accuracy for the time given
======================================================

How close does a sampling estimator get to the exact Shapley values of a structured additive
model for the time it is given?  This reproduces Figure 2 of Dubé & Marchand, "Shapley Values of
Structured Additive Regression Models and Application to RKHS Weightings of Functions" (section
5.2).  For n features in {10, 100, 500} and interaction sizes k: a k-STAR sum-of-unanimity model with
T = 100 terms and 10 rows of +-1 data (explained against themselves).  kexplain's StarExplainer
gives the exact values and its time; shapiq's SHAP-IQ (Shapley values, order 1) runs at growing
budgets, and we report 1 - R^2 of its 10 x n values against the exact ones, with its time.

``python examples/star_accuracy.py`` runs n in {10, 100, 500}, k in {1, 3, 5} and three budgets;
``--quick`` or ``KEXPLAIN_QUICK=1`` n in {10, 100}, k in {1, 3}, two budgets; ``--paper`` (or
``--full``, ``KEXPLAIN_FULL=1``) the paper's k up to 10 and budgets up to 8192 (long).  Writes
star_accuracy.csv and star_accuracy.png into ``--out``.  Timings are from a shared machine.
"""

# %%
# Sizes
# -----
# argparse reads only the options it knows (``parse_known_args``): sphinx-gallery runs this file
# with sphinx-build's command line.
import argparse
import os
import pathlib
import time
import warnings

import matplotlib.pyplot as plt
import numpy as np

from kexplain.star import StarExplainer, interventional_value_function, unanimity_data, unanimity_model

ap = argparse.ArgumentParser(description="STAR-SHAP against SHAP-IQ: accuracy for the time given.")
g = ap.add_mutually_exclusive_group()
g.add_argument("--quick", action="store_true", help="n in {10, 100}, k in {1, 3}, two budgets")
g.add_argument("--paper", "--full", action="store_true", help="k up to 10, budgets up to 8192 (KEXPLAIN_FULL=1)")
ap.add_argument("--seeds", type=int, default=1, help="independent runs averaged (the paper uses 10)")
ap.add_argument("--terms", type=int, default=100)
ap.add_argument("--out", default=".")
args = ap.parse_known_args()[0]
args.quick = args.quick or os.environ.get("KEXPLAIN_QUICK", "0") not in ("", "0")
args.paper = not args.quick and (args.paper or os.environ.get("KEXPLAIN_FULL", "0") not in ("", "0"))
warnings.filterwarnings("ignore", message="Not all budget is required")  # shapiq, at small d
from shapiq.approximator import SHAPIQ

dims = [10, 100] if args.quick else [10, 100, 500]
orders = [1, 3] if args.quick else ([1, 3, 5, 7, 10] if args.paper else [1, 3, 5])
budgets = [64, 256] if args.quick else ([64, 256, 1024, 4096, 8192] if args.paper else [64, 256, 1024])

# %%
# Exact values against SHAP-IQ's estimates
# ----------------------------------------
# For each n and k: the exact STAR-SHAP values and their time, then SHAP-IQ at each budget, scored
# by 1 - R^2 against the exact values.
records = []  # (n, k, method, budget, seconds, 1 - R^2)
for n in dims:
    for k in orders:
        for seed in range(args.seeds):
            model = unanimity_model(n, k, args.terms, random_state=seed + 100 * k + n)
            X = unanimity_data(10, n, random_state=seed + 7)
            t = time.perf_counter()
            exact = StarExplainer(model, X).explain(X).values
            records.append((n, k, "STAR-SHAP", 0, time.perf_counter() - t, 0.0))
            ss = np.sum((exact - exact.mean()) ** 2)
            for b in budgets:
                t = time.perf_counter()
                est = np.stack(
                    [
                        SHAPIQ(n=n, max_order=1, index="SV", random_state=seed)
                        .approximate(b, interventional_value_function(model.predict, x, X))
                        .get_n_order_values(1)
                        for x in X
                    ]
                )
                el = time.perf_counter() - t
                one_minus_r2 = np.sum((est - exact) ** 2) / ss if ss > 0 else np.nan
                records.append((n, k, "SHAP-IQ", b, el, one_minus_r2))
        print(f"n={n} k={k} done", flush=True)

# %%
# The table: STAR-SHAP's time, and SHAP-IQ's time and error at each budget.
out = pathlib.Path(args.out)
out.mkdir(parents=True, exist_ok=True)
with open(out / "star_accuracy.csv", "w") as fh:
    fh.write("n,k,method,budget,seconds,one_minus_r2\n")
    for r in records:
        fh.write(",".join(str(v) for v in r) + "\n")
print(f"\n{'n':>4} {'k':>3} | {'STAR-SHAP [s]':>13} | " + " | ".join(f"SHAP-IQ b={b}: s, 1-R^2" for b in budgets))
for n in dims:
    for k in orders:
        ts = np.mean([r[4] for r in records if r[:3] == (n, k, "STAR-SHAP")])
        cells = []
        for b in budgets:
            sel = [r for r in records if r[:3] == (n, k, "SHAP-IQ") and r[3] == b]
            cells.append(f"{np.mean([r[4] for r in sel]):>8.3f}, {np.mean([r[5] for r in sel]):>10.3g}")
        print(f"{n:>4} {k:>3} | {ts:>13.4f} | " + " | ".join(f"{c:>22}" for c in cells))

# %%
# Figure 2 of the paper: SHAP-IQ's error against its time, the dotted lines the exact method's time.
fig, axes = plt.subplots(1, len(dims), figsize=(4.5 * len(dims), 4), squeeze=False)
for ax, n in zip(axes[0], dims):
    for i, k in enumerate(orders):
        color = f"C{i}"
        sel = [r for r in records if r[:3] == (n, k, "SHAP-IQ")]
        xs = [np.mean([r[4] for r in sel if r[3] == b]) for b in budgets]
        ys = [np.mean([r[5] for r in sel if r[3] == b]) for b in budgets]
        ax.plot(xs, ys, marker="o", color=color, label=f"{k}-SHAP-IQ")
        ax.axvline(
            np.mean([r[4] for r in records if r[:3] == (n, k, "STAR-SHAP")]),
            ls=":",
            color=color,
            label=f"{k}-STAR-SHAP (exact)",
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_title(f"n = {n}, T = {args.terms}")
    ax.set_xlabel("seconds (10 rows)")
    ax.set_ylabel("1 - R^2 against exact values")
axes[0][0].legend(fontsize=7)
fig.tight_layout()
fig.savefig(out / "star_accuracy.png", dpi=120)
print(f"wrote {out / 'star_accuracy.csv'} and {out / 'star_accuracy.png'}")
plt.show()

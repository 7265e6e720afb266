"""
STAR-SHAP timing: exact Shapley values whatever the number of features
======================================================================

The cost of STAR-SHAP grows with the size of the largest term, not with the number of features.
This reproduces Figure 1 of Dubé & Marchand, "Shapley Values of Structured Additive Regression
Models and Application to RKHS Weightings of Functions" (section 5.2): the time to compute the
Shapley values of a 5-STAR model as d grows.

For each d: a 5-STAR sum-of-unanimity model with T = 50 terms (section 5.1) and 10 rows of
+-1 data, explained against the same 10 rows.  Methods: kexplain's StarExplainer (exact),
shap's ExactExplainer (exact, 2^d cost: small d only), shapiq's KernelSHAP, Unbiased KernelSHAP
and SHAP-IQ at budget 256 (approximate).  Also STAR-SHAP on the d-STAR model (all T terms use all
d features), whose cost grows as 2^d like shap's.

``python examples/star_timing.py`` runs d up to 200 (shap up to d = 10); ``--quick`` or
``KEXPLAIN_QUICK=1`` a smaller grid without shap; ``--full`` or ``KEXPLAIN_FULL=1`` the paper's d up
to 1000 (shap up to 12).  Writes star_timing.csv and star_timing.png into ``--out``.  Timings are
from a shared machine: compare methods within one run.
"""

# %%
# The methods
# -----------
import argparse
import os
import pathlib
import time
import warnings

import matplotlib.pyplot as plt
import numpy as np

from kexplain.star import StarExplainer, StarModel, interventional_value_function, unanimity_data, unanimity_model


def timed(fn, *args, **kwargs):
    """Seconds taken by fn(*args, **kwargs), and its result."""
    t = time.perf_counter()
    out = fn(*args, **kwargs)
    return time.perf_counter() - t, out


def star_shap(model, X):
    """Build the explainer (background = X) and explain X: what a user pays for one batch."""
    return StarExplainer(model, X).explain(X)


def approximate(cls, kw, d, seed, budget, model, X):
    """One shapiq approximator on each row of X (the black-box interventional game of the row)."""
    return np.stack(
        [
            cls(n=d, random_state=seed, **kw)
            .approximate(budget, interventional_value_function(model.predict, x, X))
            .get_n_order_values(1)
            for x in X
        ]
    )


# %%
# Sizes
# -----
# argparse reads only the options it knows (``parse_known_args``): sphinx-gallery runs this file
# with sphinx-build's command line.
ap = argparse.ArgumentParser(description="STAR-SHAP timing against the number of features.")
ap.add_argument("--quick", action="store_true", help="smaller grid of d, no shap (KEXPLAIN_QUICK=1)")
ap.add_argument("--full", action="store_true", help="the paper's d up to 1000 (KEXPLAIN_FULL=1)")
ap.add_argument("--repeats", type=int, default=1, help="runs averaged per point (the paper uses 20)")
ap.add_argument("--budget", type=int, default=256)
ap.add_argument("--out", default=".")
args = ap.parse_known_args()[0]
args.quick = args.quick or os.environ.get("KEXPLAIN_QUICK", "0") not in ("", "0")
args.full = not args.quick and (args.full or os.environ.get("KEXPLAIN_FULL", "0") not in ("", "0"))
warnings.filterwarnings("ignore", message="Not all budget is required")  # shapiq, at small d
from shapiq.approximator import SHAPIQ, KernelSHAP, UnbiasedKernelSHAP

dims = [2, 4, 6, 8, 10, 12, 20, 50, 100, 200, 500, 1000] if args.full else [2, 4, 6, 8, 10, 20, 50, 100, 200]
if args.quick:
    dims = [2, 4, 8, 20, 100]
# shap compiles numba code on its first call (tens of seconds): the quick run leaves it out
shap_max_d = 0 if args.quick else 12 if args.full else 10
full_star_max_d = 8 if args.quick else 14
approx = {
    "KernelSHAP": (KernelSHAP, {}),
    "Unbiased KernelSHAP": (UnbiasedKernelSHAP, {}),
    "SHAP-IQ": (SHAPIQ, {"max_order": 1, "index": "SV"}),
}

# %%
# Time every method at every d
# ----------------------------
# The approximations are also scored by their largest error against the exact values.
records = []
if shap_max_d:
    import shap

    # warm shap up so the first d is not charged for its compilation
    Xw = unanimity_data(4, 3, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        shap.explainers.ExactExplainer(
            unanimity_model(3, 2, 2, random_state=0).predict, shap.maskers.Independent(Xw, max_samples=4)
        )(Xw, silent=True)
else:
    print("quick run: shap's ExactExplainer left out (its first call compiles code for tens of seconds)")
for d in dims:
    for rep in range(args.repeats):
        seed = 1000 * d + rep
        k = min(5, d)
        model = unanimity_model(d, k, 50, random_state=seed)
        X = unanimity_data(10, d, random_state=seed + 1)
        t, ex = timed(star_shap, model, X)
        records.append((d, "STAR-SHAP (5-STAR model)", t, 0.0))
        if d <= full_star_max_d:
            rng = np.random.default_rng(seed)
            full = StarModel(
                [(tuple(range(d)), lambda Z, a=a: a * np.all(Z == 1.0, axis=1)) for a in rng.uniform(size=50)]
            )
            t, _ = timed(star_shap, full, X)
            records.append((d, "STAR-SHAP (d-STAR model)", t, 0.0))
        if d <= shap_max_d:
            masker = shap.maskers.Independent(X, max_samples=10)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t, sv = timed(
                    lambda m=model, mk=masker, x=X: shap.explainers.ExactExplainer(m.predict, mk)(x, silent=True)
                )
            records.append((d, "shap ExactExplainer", t, float(np.abs(sv.values - ex.values).max())))
        for name, (cls, kw) in approx.items():
            t, vals = timed(approximate, cls, kw, d, rep, args.budget, model, X)
            records.append((d, f"{name} (budget {args.budget})", t, float(np.abs(vals - ex.values).max())))
    print(f"d={d} done", flush=True)

# %%
# The table of times
# ------------------
methods = list(dict.fromkeys(r[1] for r in records))
out = pathlib.Path(args.out)
out.mkdir(parents=True, exist_ok=True)
with open(out / "star_timing.csv", "w") as fh:
    fh.write("d,method,seconds,max_abs_diff_to_exact\n")
    for r in records:
        fh.write(f"{r[0]},{r[1]},{r[2]:.6f},{r[3]:.3e}\n")
print("\nseconds for 10 rows (d < 5: the 5-STAR model has min(5, d)-way terms)")
print(f"{'d':>5} | " + " | ".join(f"{m[:22]:>22}" for m in methods))
for d in dims:
    cells = []
    for m in methods:
        ts = [r[2] for r in records if r[0] == d and r[1] == m]
        cells.append(f"{np.mean(ts):>22.4f}" if ts else f"{'-':>22}")
    print(f"{d:>5} | " + " | ".join(cells))

# %%
# Figure 1 of the paper: the exact STAR-SHAP time stays flat in d for the 5-STAR model, while the
# d-STAR model and shap's exact explainer grow as 2^d.
fig, ax = plt.subplots(figsize=(7, 4.5))
for m in methods:
    ds = sorted({r[0] for r in records if r[1] == m})
    ax.plot(ds, [np.mean([r[2] for r in records if r[0] == d and r[1] == m]) for d in ds], marker="o", label=m)
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("number of features d")
ax.set_ylabel("seconds for 10 rows")
ax.set_title("Shapley values of a 5-STAR model (T = 50)")
ax.legend(fontsize=7)
fig.tight_layout()
fig.savefig(out / "star_timing.png", dpi=120)
print(f"wrote {out / 'star_timing.csv'} and {out / 'star_timing.png'}")
plt.show()

"""
Explaining a 3-STAR RKHS Weighting on the diabetes data
=======================================================

Beeswarm and waterfall plots of the exact interventional Shapley values of a 3-STAR RWRelu (and
of an EBM when interpret is installed), computed by STAR-SHAP with training rows as background,
as in Figures 3-4 of Dubé & Marchand, "Shapley Values of Structured Additive Regression Models
and Application to RKHS Weightings of Functions" (section 5.5).  The explainer is built once
from the model and the background (``StarExplainer(model, background)``), then explains the
test rows.

``python examples/star_diabetes_plots.py [--no-ebm] [--background N]`` uses T = 1000 and 100
background rows; ``--quick`` or ``KEXPLAIN_QUICK=1`` T = 300, 40 background rows and no EBM;
``--full`` or ``KEXPLAIN_FULL=1`` all 331 training rows as background, as in the paper.
"""

# %%
# Sizes
# -----
# argparse reads only the options it knows (``parse_known_args``): sphinx-gallery runs this file
# with sphinx-build's command line.
import argparse
import os
import time

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.model_selection import train_test_split

import kexplain as kx
from kexplain.star import RKHSWeightingRegressor, StarExplainer

ap = argparse.ArgumentParser(description="Explaining a 3-STAR RKHS Weighting on the diabetes data.")
ap.add_argument("--quick", action="store_true", help="T = 300, 40 background rows, no EBM (KEXPLAIN_QUICK=1)")
ap.add_argument("--full", action="store_true", help="all 331 training rows as background (KEXPLAIN_FULL=1)")
ap.add_argument("--background", type=int, default=100, help="training rows used as background (0: all 331)")
ap.add_argument("--no-ebm", action="store_true")
args, _ = ap.parse_known_args()
QUICK = args.quick or os.environ.get("KEXPLAIN_QUICK", "0") not in ("", "0")
FULL = not QUICK and (args.full or os.environ.get("KEXPLAIN_FULL", "0") not in ("", "0"))

# %%
# Fit the 3-STAR RKHS weighting
# -----------------------------
data = load_diabetes(as_frame=True)
X, y = data.data, data.target
Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=111, random_state=0)
n_bg = 40 if QUICK else len(Xtr) if FULL else (args.background or len(Xtr))
background = Xtr.sample(n=min(n_bg, len(Xtr)), random_state=0)
rw = RKHSWeightingRegressor(
    instantiation="relu",
    interaction_order=3,
    n_parameters=300 if QUICK else 1000,
    c=0.5,
    regularization=1e-6,
    random_state=0,
).fit(Xtr, ytr)

# %%
# Exact Shapley values by STAR-SHAP
# ---------------------------------
# The background-only work is done once, when the explainer is built.
t = time.perf_counter()
explainer = StarExplainer(rw, background)
ex = explainer.explain(Xte)
print(
    f"3-STAR RWRelu: test R^2 {rw.score(Xte, yte):.3f}; {len(rw.to_star_model().terms)} terms; exact Shapley "
    f"values of {len(Xte)} rows against {len(background)} background rows in {time.perf_counter() - t:.1f} s"
)
print(f"efficiency: max |base + sum(values) - prediction| = {np.abs(ex.predictions - rw.predict(Xte)).max():.2e}")
order = np.argsort(-ex.mean_abs())
print("mean |phi| by feature:", ", ".join(f"{ex.feature_names[j]} {ex.mean_abs()[j]:.2f}" for j in order))

# %%
# The beeswarm of all test rows and the waterfall of the first (the paper's figures 3 and 4).
kx.plots.beeswarm(ex)
plt.show()
kx.plots.waterfall(ex, 0)
plt.show()

# %%
# The same for an explainable boosting machine
# --------------------------------------------
# An EBM is a structured additive model too; STAR-SHAP explains it exactly (needs interpret).
if not (QUICK or args.no_ebm):
    try:
        from interpret.glassbox import ExplainableBoostingRegressor
    except ImportError:
        print("interpret is not installed: EBM plots skipped (pip install 'kexplain[star]')")
    else:
        ebm = ExplainableBoostingRegressor(outer_bags=2, max_rounds=5000, random_state=0, n_jobs=1).fit(Xtr, ytr)
        ex_ebm = StarExplainer(ebm, background).explain(Xte)
        mean_abs = ex_ebm.mean_abs()
        print(
            f"EBM: test R^2 {ebm.score(Xte, yte):.3f}; mean |phi| by feature: "
            + ", ".join(f"{ex_ebm.feature_names[j]} {mean_abs[j]:.2f}" for j in np.argsort(-mean_abs))
        )
        kx.plots.beeswarm(ex_ebm)
        plt.show()

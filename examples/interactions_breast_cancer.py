"""
Interactions of order 3 of an SVC on the breast-cancer data, in shapiq's network plot
=====================================================================================

An RBF SVC (in a pipeline with a scaler) on scikit-learn's breast-cancer data, 30 features.  For
one patient, ``ProductKernelExplainer(...).explain(x, interactions={"index": "k-SII",
"max_order": 3, "top_k": 10})`` gives the exact k-SII values of every order up to 3 (4,525 sets
in all) and keeps the ten largest of each order; their sum over all sets is the decision function
minus the base value, checked before the selection.  The same values of order up to 2 then go to
shapiq's network plot unchanged (``to_shapiq``), and the exact values are compared with shapiq's
KernelSHAP-IQ estimate at a budget of 2,000 game evaluations (``kexplain.ProductShapiqGame``).

``python examples/interactions_breast_cancer.py`` uses twenty background rows; ``--quick`` or
``KEXPLAIN_QUICK=1`` four; ``--full`` or ``KEXPLAIN_FULL=1`` a hundred.  Needs shapiq (the
``shapiq`` extra) and matplotlib.
"""

# %%
# The model and the explainer
# ---------------------------
# argparse reads only the options it knows (``parse_known_args``): sphinx-gallery runs this file
# with sphinx-build's command line.
import argparse
import os
import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
import shapiq
from sklearn.datasets import load_breast_cancer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

import kexplain as kx

ap = argparse.ArgumentParser(description="Exact k-SII interactions of an SVC, in shapiq's network plot.")
ap.add_argument("--quick", action="store_true", help="4 background rows (KEXPLAIN_QUICK=1)")
ap.add_argument("--full", action="store_true", help="100 background rows (KEXPLAIN_FULL=1)")
args, _ = ap.parse_known_args()
QUICK = args.quick or os.environ.get("KEXPLAIN_QUICK", "0") not in ("", "0")
FULL = not QUICK and (args.full or os.environ.get("KEXPLAIN_FULL", "0") not in ("", "0"))
n_background = 4 if QUICK else 100 if FULL else 20

data = load_breast_cancer()
X, y = data.data, data.target
names = list(data.feature_names)
model = make_pipeline(StandardScaler(), SVC(gamma=0.01)).fit(X, y)
explainer = kx.ProductKernelExplainer(model, background=X[:n_background], feature_names=names)

# %%
# Exact k-SII up to order 3
# -------------------------
# All 4,525 sets of up to three features, exactly; the efficiency error is checked on all of them
# before the ten largest of each order are kept.
t0 = time.perf_counter()
ex = explainer.explain(X[20:21], interactions={"index": "k-SII", "max_order": 3, "top_k": 10})
print(
    f"k-SII up to order 3 for one patient: {time.perf_counter() - t0:.2f} s, efficiency error {ex.efficiency_error:.1e}"
)
for order in (1, 2, 3):
    print(f"largest of order {order}:")
    for features, value in ex.top(0, n=3, order=order):
        print(f"    {value:+.4f}  {' x '.join(features)}")

# %%
# shapiq's network plot
# ---------------------
# The exact values of order up to 2 go to shapiq unchanged: nodes are the main effects, edges the
# pairs.
pairs = explainer.explain(X[20:21], interactions={"index": "k-SII", "max_order": 2})
iv = pairs.to_shapiq(0)
shapiq.network_plot(iv, feature_names=[n.replace(" ", "\n") for n in names])
plt.title("exact 2-SII, one patient (kexplain -> shapiq)")
plt.show()

# %%
# The exact values against KernelSHAP-IQ
# --------------------------------------
# ``ProductShapiqGame`` hands the same game to shapiq's approximators; at 2,000 evaluations the
# estimate of the 465 sets of order up to 2 is compared with the exact values.
game = kx.ProductShapiqGame.from_explainer(explainer, X[20])
exact = game.exact_values("k-SII", 2)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    estimate = shapiq.KernelSHAPIQ(n=30, max_order=2, index="k-SII", random_state=0).approximate(2000, game)
keys = [T for T in exact.interaction_lookup if T]
err = np.array([estimate[T] - exact[T] for T in keys])
scale = max(abs(exact[T]) for T in keys)
print(
    f"KernelSHAP-IQ at 2,000 evaluations: largest error {np.abs(err).max():.2e} "
    f"({np.abs(err).max() / scale:.1%} of the largest value)"
)

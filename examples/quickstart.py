"""
Quick start: exact Shapley values of an RBF SVR
===============================================

Fit a standardised RBF support-vector regressor on scikit-learn's diabetes data and explain its
held-out predictions exactly, in two games: the functional baseline of PKeX-Shapley (Mohammadi,
Chau & Muandet, 2025), where an absent feature is integrated out of the kernel, and the
interventional game over 100 training rows, which is what shap's ``ExactExplainer`` with an
independent masker on the same rows computes.

``python examples/quickstart.py`` explains the 89 held-out rows against 100 background rows;
``--quick`` or ``KEXPLAIN_QUICK=1`` 20 rows against 30.  The same from the shell, on saved files::

    kexplain explain --model model.skops --data rows.csv --background train.csv --out values.csv
"""

# %%
# Fit the model
# -------------
# argparse reads only the options it knows (``parse_known_args``): sphinx-gallery runs this file
# with sphinx-build's command line.
import argparse
import os

import matplotlib.pyplot as plt
from sklearn.datasets import load_diabetes
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVR

import kexplain as kx

ap = argparse.ArgumentParser(description="Exact Shapley values of an RBF SVR, in two games.")
ap.add_argument("--quick", action="store_true", help="20 rows, 30 background rows (KEXPLAIN_QUICK=1)")
args, _ = ap.parse_known_args()
QUICK = args.quick or os.environ.get("KEXPLAIN_QUICK", "0") not in ("", "0")

X, y = load_diabetes(return_X_y=True, as_frame=True)
X_train, X_test, y_train, _ = train_test_split(X, y, test_size=0.2, random_state=0)
n_background = 30 if QUICK else 100
if QUICK:
    X_test = X_test.iloc[:20]
model = make_pipeline(StandardScaler(), SVR(C=30.0, gamma=0.03)).fit(X_train, y_train)

# %%
# Explain in two games
# --------------------
# The functional baseline needs no background.  The interventional game averages over background
# rows, given when the explainer is built so the kernel tables of the support vectors against it
# are computed once.
functional = kx.ProductKernelExplainer(model).explain(X_test)
explainer = kx.ProductKernelExplainer(model, X_train.iloc[:n_background])
interventional = explainer.explain(X_test)
print(f"explained output: {interventional.output}; games: {functional.game}, {interventional.game}")

# %%
# Efficiency: the values plus the base value reproduce the model's predictions exactly.
err = abs(interventional.predictions - model.predict(X_test)).max()
print(f"max |sum(values) + base - prediction| = {err:.1e}")
print(interventional.to_frame().head())

# %%
# Global importance
# -----------------
# The two games split the same predictions differently: compare the mean absolute values.
print(interventional.to_frame().drop(columns="base_value").abs().mean().sort_values(ascending=False))
kx.plots.compare_importance({"functional": functional, "interventional": interventional})
plt.show()

# %%
# shap's plots take the explanation as it is: the beeswarm of the interventional values.
kx.plots.beeswarm(interventional)
plt.show()

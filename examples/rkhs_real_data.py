"""
RKHS-SHAP on real data
======================

Observational and interventional Shapley values of kernel models on the bundled diabetes and
breast-cancer data sets, with shap summary plots (Chau, 2023, thesis appendix C.5).

- diabetes (442 rows, 10 features): kernel ridge regression with an RBF kernel (median-heuristic
  lengthscales, ridge by cross-validation); observational values by exact enumeration of the
  1,024 coalitions, interventional values from the exact engine;
- breast cancer (569 rows, 30 features): an RBF support-vector classifier on standardised
  features (its decision function is explained); 30 features is beyond enumeration, so the
  observational values come from the sampled solver (with standard errors), the interventional
  ones from the exact engine.

Draws shap beeswarm (summary) plots and prints the mean absolute value ranking of both value types.
Each explainer is built once with its background and game (``value=``); the background defaults
to the model's training rows where the model keeps them (the kernel ridge regression), and is
given for the support-vector classifier, which keeps only its support vectors.

``python examples/rkhs_real_data.py`` explains 50 points per data set (breast cancer: budget 600);
``--quick`` or ``KEXPLAIN_QUICK=1`` the first 100 rows of each data set, 10 points and a budget of
150; ``--full`` or ``KEXPLAIN_FULL=1`` 100 points and a budget of 1000.
"""

# %%
# The two studies
# ---------------
import argparse
import os

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.kernel_ridge import KernelRidge
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

import kexplain as kx
from kexplain.kernels import median_heuristic


def ranking(ex, title):
    imp = ex.mean_abs()
    order = np.argsort(imp)[::-1][:8]
    print(f"  {title}: " + ", ".join(f"{ex.feature_names[j]} {imp[j]:.3g}" for j in order))


def diabetes(n_explain, n_rows=None):
    data = load_diabetes(as_frame=True)
    X, y = data.data.to_numpy()[:n_rows], data.target.to_numpy()[:n_rows]
    kern = kx.kernels.RBF(median_heuristic(X, per_feature=True))
    search = GridSearchCV(KernelRidge(kernel="precomputed"), {"alpha": [1e-2, 1e-1, 1.0]}, cv=3).fit(kern(X, X), y)
    model = kx.KernelExpansion(X, search.best_estimator_.dual_coef_, kern, feature_names=list(data.feature_names))
    ex = kx.RKHSExplainer(model)
    ex.select_cme_regularization(n_coalitions=4, max_rows=300)
    print(f"diabetes: kernel ridge (alpha = {search.best_params_['alpha']}), CME eta = {ex.cme_regularization}")
    Xe = X[:n_explain]
    osv = ex.explain(Xe)
    isv = kx.RKHSExplainer(model, game="interventional").explain(Xe)
    ranking(osv, "observational")
    ranking(isv, "interventional")
    return osv, isv


def breast_cancer(n_explain, budget, n_rows=None):
    data = load_breast_cancer(as_frame=True)
    X, y = data.data.to_numpy()[:n_rows], data.target.to_numpy()[:n_rows]
    model = make_pipeline(StandardScaler(), SVC(kernel="rbf", C=1.0, gamma="scale")).fit(X, y)
    names = list(data.feature_names)
    ex = kx.RKHSExplainer(model, X, feature_names=names)
    print(f"breast cancer: RBF SVC (training accuracy {model.score(X, y):.3f}), sampled budget {budget}")
    Xe = X[:n_explain]
    osv = ex.explain(Xe, budget=budget, random_state=0)
    isv = kx.RKHSExplainer(model, X, feature_names=names, game="interventional").explain(Xe)
    print(
        f"  largest standard error of the sampled observational values: {osv.standard_errors.max():.3g} "
        f"(largest |value| {np.abs(osv.values).max():.3g})"
    )
    ranking(osv, "observational")
    ranking(isv, "interventional")
    return osv, isv


# %%
# Sizes
# -----
# argparse reads only the options it knows (``parse_known_args``): sphinx-gallery runs this file
# with sphinx-build's command line.
ap = argparse.ArgumentParser(description="RKHS-SHAP on two real data sets.")
ap.add_argument("--quick", action="store_true", help="100 rows, 10 points, budget 150 (KEXPLAIN_QUICK=1)")
ap.add_argument("--full", action="store_true", help="100 points, budget 1000 (KEXPLAIN_FULL=1)")
args, _ = ap.parse_known_args()
QUICK = args.quick or os.environ.get("KEXPLAIN_QUICK", "0") not in ("", "0")
FULL = not QUICK and (args.full or os.environ.get("KEXPLAIN_FULL", "0") not in ("", "0"))
n_explain = 10 if QUICK else 100 if FULL else 50
n_rows = 100 if QUICK else None  # quick: the first rows of each data set (training and background)

# %%
# Diabetes: kernel ridge regression
# ---------------------------------
# The observational values (RKHS-SHAP's conditional mean embeddings) against the interventional ones.
osv, isv = diabetes(n_explain, n_rows=n_rows)
kx.plots.beeswarm(osv)
plt.show()
kx.plots.beeswarm(isv)
plt.show()

# %%
# Breast cancer: an RBF support-vector classifier
# -----------------------------------------------
# 30 features: the observational values are sampled with a budget of coalitions (with standard
# errors), the interventional ones are exact.
osv, isv = breast_cancer(n_explain, 150 if QUICK else 1000 if FULL else 600, n_rows=n_rows)
kx.plots.beeswarm(osv)
plt.show()
kx.plots.beeswarm(isv)
plt.show()

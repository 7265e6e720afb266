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

Saves shap beeswarm (summary) plots and prints the mean absolute value ranking of both value types.
Each explainer is built once with its background and game (``value=``); the background defaults
to the model's training rows where the model keeps them (the kernel ridge regression), and is
given for the support-vector classifier, which keeps only its support vectors::

    python examples/rkhs_real_data.py           # 100 explained points per data set
    python examples/rkhs_real_data.py --quick   # 150 rows, 20 points, smaller budget (also: KEXPLAIN_QUICK=1)
"""

import argparse
import os

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


def summary_plot(ex, path, title):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import shap

    plt.figure()
    shap.summary_plot(ex.to_shap(), show=False, max_display=12)
    plt.title(title)
    plt.tight_layout()
    plt.savefig(path, dpi=110)
    plt.close("all")
    print(f"  saved {path}")


def diabetes(n_explain, prefix, n_rows=None):
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
    isv = kx.RKHSExplainer(model, value="interventional").explain(Xe)
    ranking(osv, "observational")
    ranking(isv, "interventional")
    summary_plot(osv, f"{prefix}diabetes_observational.png", "diabetes: observational (RKHS-SHAP)")
    summary_plot(isv, f"{prefix}diabetes_interventional.png", "diabetes: interventional")


def breast_cancer(n_explain, budget, prefix, n_rows=None):
    data = load_breast_cancer(as_frame=True)
    X, y = data.data.to_numpy()[:n_rows], data.target.to_numpy()[:n_rows]
    model = make_pipeline(StandardScaler(), SVC(kernel="rbf", C=1.0, gamma="scale")).fit(X, y)
    names = list(data.feature_names)
    ex = kx.RKHSExplainer(model, X, feature_names=names)
    print(f"breast cancer: RBF SVC (training accuracy {model.score(X, y):.3f}), sampled budget {budget}")
    Xe = X[:n_explain]
    osv = ex.explain(Xe, budget=budget, random_state=0)
    isv = kx.RKHSExplainer(model, X, feature_names=names, value="interventional").explain(Xe)
    print(
        f"  largest standard error of the sampled observational values: {osv.standard_errors.max():.3g} "
        f"(largest |value| {np.abs(osv.values).max():.3g})"
    )
    ranking(osv, "observational")
    ranking(isv, "interventional")
    summary_plot(osv, f"{prefix}breast_cancer_observational.png", "breast cancer: observational (RKHS-SHAP)")
    summary_plot(isv, f"{prefix}breast_cancer_interventional.png", "breast cancer: interventional")


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--prefix", default="rkhs_", help="path prefix of the saved figures")
    a, _ = p.parse_known_args()
    quick = a.quick or os.environ.get("KEXPLAIN_QUICK") == "1"
    # quick: the first 150 rows of each data set (training and background rows), fewer points
    diabetes(20 if quick else 100, a.prefix, n_rows=150 if quick else None)
    breast_cancer(20 if quick else 100, 310 if quick else 1000, a.prefix, n_rows=150 if quick else None)

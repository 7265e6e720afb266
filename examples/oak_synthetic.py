"""
OAK on four synthetic data sets: feature selection and local ranks
==================================================================

The four synthetic data sets of "Exact Shapley Value for Local and Global Explanation of Additive
Gaussian Processes" (appendix B).  Every data set has d = 10 standard normal features, of which the
first 3, 5, 4 and 5 drive the target (data set 4 uses x1..x5; its fifth feature enters only through
exp(-x4 x5))::

    1: y = x1 x2 x3                              ideal mean rank of the true features 2
    2: y = 0.5 (exp(x1 x2 x3) + exp(x4 x5))      ideal 3
    3: y = exp(sum_{i<=4} x_i^2 - 4)             ideal 2.5
    4: y = -10 sin(0.2 x1) + |x2| + x3 + exp(-x4 x5)   ideal 3 (five features, as written)

plus a little noise.  Feature selection ranks all d features once per repetition by: OAK global
Shapley values, HSIC-Lasso (pyHSICLasso, if installed), mutual information, the F-test, Lasso and
RFE (linear).  Local explanations rank features per explained point by absolute value: OAK's exact local
values in the functional-ANOVA game and in the interventional game over 50 training rows
(``kx.gp.OAKExplainer``), shap's KernelExplainer on the same OAK model, and kexplain's exact
interventional game (``kx.ProductKernelExplainer`` with a background) on an RBF-ARD
GaussianProcessRegressor fitted to the same data.  The score is the mean rank of the true features
(lower is better, the ideal is the number above), averaged over repetitions.

The paper uses 100 repetitions (``--full`` or ``KEXPLAIN_FULL=1``; hours); the default here is 3
(``--reps``; a few minutes on a free core).  ``--quick`` (or ``KEXPLAIN_QUICK=1``) runs 1 repetition
on data sets 1 and 4 with fewer rows and no shap comparison.
"""

# %%
# Data sets and competitors
# -------------------------
import argparse
import contextlib
import io
import os
import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
from scipy.stats import rankdata
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_selection import RFE, f_regression, mutual_info_regression
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel
from sklearn.linear_model import LassoCV, LinearRegression

import kexplain as kx

D = 10
TRUE = {1: [0, 1, 2], 2: [0, 1, 2, 3, 4], 3: [0, 1, 2, 3], 4: [0, 1, 2, 3, 4]}


def make(which, n, rng):
    X = rng.standard_normal((n, D))
    x = X.T
    if which == 1:
        y = x[0] * x[1] * x[2]
    elif which == 2:
        y = 0.5 * (np.exp(x[0] * x[1] * x[2]) + np.exp(x[3] * x[4]))
    elif which == 3:
        y = np.exp(np.sum(X[:, :4] ** 2, axis=1) - 4)
    else:
        y = -10 * np.sin(0.2 * x[0]) + np.abs(x[1]) + x[2] + np.exp(-x[3] * x[4])
    return X, y + 0.01 * np.std(y) * rng.standard_normal(n)


def mean_true_rank(importance, true):
    """Mean rank (1 = most important, ties averaged) of the true features."""
    ranks = rankdata(-np.asarray(importance, dtype=float))
    return float(ranks[true].mean())


def hsic_lasso_importance(X, y):
    try:
        from pyHSICLasso import HSICLasso
    except ImportError:
        return None
    h = HSICLasso()
    h.input(X, y, featname=[f"x{j}" for j in range(D)])
    # its LARS path can end before num_feat features enter; ask for fewer until it runs
    for num_feat in range(D - 1, 0, -1):
        try:
            with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                warnings.simplefilter("ignore")
                h.regression(num_feat, B=20, M=3, n_jobs=1)
            break
        except ValueError:
            continue
    else:
        return None
    imp = np.zeros(D)
    # selected features in order; unselected ones tie at zero
    for pos, j in enumerate(h.get_index()):
        imp[j] = D - pos
    return imp


def selectors(X, y, oak, rng):
    out = {"OAK global Shapley": oak.global_importance().values}
    hsic = hsic_lasso_importance(X, y)
    if hsic is not None:
        out["HSIC-Lasso"] = hsic
    out["mutual information"] = mutual_info_regression(X, y, random_state=int(rng.integers(2**31)))
    out["F-test"] = f_regression(X, y)[0]
    out["Lasso"] = np.abs(LassoCV(cv=5).fit(X, y).coef_)
    out["RFE (linear)"] = -RFE(LinearRegression(), n_features_to_select=1).fit(X, y).ranking_
    return out


def local_explainers(X, y, oak, Xe, shap_samples, use_shap=True):
    res = {"OAK local Shapley (functional ANOVA)": np.abs(oak.explain(Xe).values)}
    res["OAK local Shapley (interventional)"] = np.abs(kx.gp.OAKExplainer(oak, X[:50]).explain(Xe).values)
    try:
        if not use_shap:
            raise ImportError
        import shap

        bg = shap.kmeans(X, 10)
        ke = shap.KernelExplainer(oak.predict, bg)
        res["shap KernelExplainer (on OAK)"] = np.abs(ke.shap_values(Xe, nsamples=shap_samples, silent=True))
    except ImportError:
        pass
    gpr = GaussianProcessRegressor(
        ConstantKernel() * RBF(np.ones(D)) + WhiteKernel(1e-2), normalize_y=True, random_state=0
    ).fit(X, y)
    pk = kx.ProductKernelExplainer(gpr, X[:50]).explain(Xe)
    res["kexplain interventional (RBF-ARD GPR)"] = np.abs(pk.values)
    return res


# %%
# Sizes
# -----
# argparse reads only the options it knows (``parse_known_args``): sphinx-gallery runs this file
# with sphinx-build's command line.
ap = argparse.ArgumentParser(description="OAK's Shapley values for feature selection on synthetic data.")
ap.add_argument("--quick", action="store_true", help="1 repetition, 100 rows, 4 points (KEXPLAIN_QUICK=1)")
ap.add_argument("--full", action="store_true", help="the paper's 100 repetitions (KEXPLAIN_FULL=1)")
ap.add_argument("--reps", type=int, default=None)
ap.add_argument("--n", type=int, default=None, help="training rows per data set (default 150)")
ap.add_argument("--explain", type=int, default=None, help="explained points per repetition (default 8)")
ap.add_argument("--order", type=int, default=3, help="max_interaction_order of OAK (default 3)")
ap.add_argument("--seed", type=int, default=0)
args = ap.parse_known_args()[0]
args.quick = args.quick or os.environ.get("KEXPLAIN_QUICK", "0") not in ("", "0")
args.full = not args.quick and (args.full or os.environ.get("KEXPLAIN_FULL", "0") not in ("", "0"))
reps = args.reps or (1 if args.quick else 100 if args.full else 3)
n = args.n or (100 if args.quick else 150)
n_explain = args.explain or (4 if args.quick else 8)
warnings.filterwarnings("ignore", category=ConvergenceWarning)  # sklearn GPR's ARD bounds
rng = np.random.default_rng(args.seed)
# %%
# Mean rank of the true features
# ------------------------------
# For each data set and method, the mean rank of the truly relevant features (lower is better;
# the ideal is the mean of 1..k).
results = {}
print(f"d = {D} features, n = {n} rows, {reps} repetitions, OAK order {args.order}")
for which in (1, 4) if args.quick else (1, 2, 3, 4):
    true = TRUE[which]
    ideal = np.mean(np.arange(1, len(true) + 1))
    sel_scores, loc_scores = {}, {}
    t0 = time.perf_counter()
    for _ in range(reps):
        X, y = make(which, n, rng)
        oak = kx.gp.OAKRegressor(
            max_interaction_order=args.order, max_iter=80, random_state=int(rng.integers(2**31))
        ).fit(X, y)
        for name, imp in selectors(X, y, oak, rng).items():
            sel_scores.setdefault(name, []).append(mean_true_rank(imp, true))
        Xe = make(which, n_explain, rng)[0]
        found = local_explainers(X, y, oak, Xe, shap_samples=2 * D + 2048, use_shap=not args.quick)
        for name, vals in found.items():
            loc_scores.setdefault(name, []).append(np.mean([mean_true_rank(v, true) for v in vals]))
    print(
        f"\n== data set {which}: true features x1..x{max(true) + 1} ({len(true)}), ideal mean rank "
        f"{ideal:g}  [{time.perf_counter() - t0:.0f} s]"
    )
    if "HSIC-Lasso" not in sel_scores:
        print("   (pyHSICLasso is not installed: pip install pyHSICLasso for the HSIC-Lasso column)")
    print("   feature selection                          mean rank (sd)")
    for name, s in sel_scores.items():
        print(f"   {name:<42} {np.mean(s):5.2f} ({np.std(s):.2f})")
    print("   local explanation                          mean rank (sd)")
    for name, s in loc_scores.items():
        print(f"   {name:<42} {np.mean(s):5.2f} ({np.std(s):.2f})")
    results[which] = ({**sel_scores, **loc_scores}, ideal)

# %%
# The same drawn: each method's mean rank of the true features per data set, the dashed line the
# ideal.
fig, axes = plt.subplots(1, len(results), figsize=(4.2 * len(results), 4.5), sharey=True, squeeze=False)
for ax, (which, (scores, ideal)) in zip(axes[0], results.items()):
    names = list(scores)
    ax.barh(range(len(names)), [np.mean(scores[k]) for k in names], xerr=[np.std(scores[k]) for k in names])
    ax.axvline(ideal, ls="--", color="k", lw=1)
    ax.set_yticks(range(len(names)), names, fontsize=7)
    ax.set_title(f"data set {which}")
    ax.set_xlabel("mean rank of the true features")
axes[0][0].invert_yaxis()
fig.tight_layout()
plt.show()

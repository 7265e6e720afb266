"""
OAK on the diabetes data: local and global Shapley values and Sobol indices
===========================================================================

Fits ``kx.gp.OAKRegressor`` (all interaction orders by default) on scikit-learn's diabetes data,
442 patients x 10 features, then prints

- the global variance decomposition of "Exact Shapley Value for Local and Global Explanation of
  Additive Gaussian Processes" (section 4, Theorem 1): Shapley values that sum exactly to the
  variance of the fitted function under the input measure (``total``), beside first-order and total
  Sobol indices (first-order <= Shapley share <= total for every feature);
- the variance carried by each interaction order;
- exact local explanations (section 3, Lemma 1) of a few patients, which add up to the prediction,
  and the exact interventional values over 100 training patients (``kx.gp.OAKExplainer`` with a
  background: shap's ExactExplainer values with an independent masker on those rows);
- one patient's values with 95% credible intervals (``explain(X, uncertainty=True)``: the exact
  posterior covariance of the values, from the additive structure of the OAK kernel);

and draws main-effect plots (each fitted first-order ANOVA component f_j with a rug of the observed
values), the strongest pairwise component and a shap beeswarm of the local values.
``python examples/oak_diabetes.py [--order Q]`` fits interactions up to order 3 with 80 optimiser
iterations; ``--quick`` or ``KEXPLAIN_QUICK=1`` order 2 and 20 iterations; ``--full`` or
``KEXPLAIN_FULL=1`` all orders and 150 iterations.
"""

# %%
# Fit the orthogonal additive kernel GP
# -------------------------------------
# argparse reads only the options it knows (``parse_known_args``): sphinx-gallery runs this file
# with sphinx-build's command line.
import argparse
import os
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.datasets import load_diabetes
from sklearn.model_selection import train_test_split

import kexplain as kx

ap = argparse.ArgumentParser(description="Orthogonal additive kernels on the diabetes data.")
ap.add_argument("--quick", action="store_true", help="order 2 and 20 optimiser iterations (KEXPLAIN_QUICK=1)")
ap.add_argument("--full", action="store_true", help="all orders and 150 iterations (KEXPLAIN_FULL=1)")
ap.add_argument("--order", type=int, default=None, help="max_interaction_order (default 3; full: all)")
ap.add_argument("--measure", choices=["gaussian", "empirical"], default="gaussian")
args = ap.parse_known_args()[0]
args.quick = args.quick or os.environ.get("KEXPLAIN_QUICK", "0") not in ("", "0")
args.full = not args.quick and (args.full or os.environ.get("KEXPLAIN_FULL", "0") not in ("", "0"))
data = load_diabetes(as_frame=True)
X, y = data.data, data.target
X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=0)
order = args.order or (2 if args.quick else None if args.full else 3)
t0 = time.perf_counter()
gp = kx.gp.OAKRegressor(
    max_interaction_order=order,
    input_measure=args.measure,
    categorical_features=["sex"],
    max_iter=20 if args.quick else 150 if args.full else 80,
    random_state=0,
).fit(X_tr, y_tr)
print(
    f"fit in {time.perf_counter() - t0:.1f} s; test R^2 = {gp.score(X_te, y_te):.3f}; "
    f"order variances = {np.round(gp.order_variances_, 4)}"
)

# %%
# Global importance
# -----------------
# The Shapley values of the variance of f split it over the features exactly.
t0 = time.perf_counter()
gi = gp.global_importance()
print(
    f"\nglobal importance ({time.perf_counter() - t0:.2f} s); variance of f = {gi.total:.1f}, "
    f"sum of Shapley values = {gi.values.sum():.1f}"
)
frame = gi.to_frame()
frame["shapley_fraction"] = frame["value"] / gi.total
print(frame.sort_values("value", ascending=False).round(3).to_string())
print(
    "variance by interaction order:",
    {q: round(float(v), 1) for q, v in enumerate(gi.info["component_variance"]) if q > 0},
)

# %%
# Local explanations
# ------------------
# In the functional-ANOVA game the values come from the components directly.
t0 = time.perf_counter()
ex = gp.explain(X_te)
print(
    f"\nlocal explanations of {len(X_te)} patients in {time.perf_counter() - t0:.2f} s; "
    f"max |base + sum phi - prediction| = {np.abs(ex.predictions - gp.predict(X_te)).max():.1e}"
)
print(ex[:3].to_frame().round(1).to_string())
print("mean |phi| ranking:", [ex.feature_names[j] for j in np.argsort(-ex.mean_abs())])

kx.plots.beeswarm(ex)
plt.show()

# %%
# The interventional game over 100 training patients, for comparison.
t0 = time.perf_counter()
inter = kx.gp.OAKExplainer(gp, X_tr.iloc[:100]).explain(X_te.iloc[:20] if args.quick else X_te)
print(
    f"\ninterventional values over 100 training patients in {time.perf_counter() - t0:.2f} s; "
    f"base value {inter.base_values[0]:.1f} (functional ANOVA: {ex.base_values[0]:.1f})"
)
print("mean |phi| ranking:", [inter.feature_names[j] for j in np.argsort(-inter.mean_abs())])

# %%
# Credible intervals
# ------------------
# The posterior of an OAK model is Gaussian and the values are linear in f: their exact
# covariance comes with ``uncertainty=True`` (here the functional-ANOVA game of one patient).
t0 = time.perf_counter()
unc = gp.explain(X_te.iloc[:5], uncertainty=True)
lower, upper = unc.interval(0.95)
print(f"\n95% credible intervals of patient 0's values ({time.perf_counter() - t0:.2f} s for 5 patients):")
for j in np.argsort(-np.abs(unc.values[0])):
    flag = "  excludes 0" if lower[0, j] > 0 or upper[0, j] < 0 else ""
    print(f"{unc.feature_names[j]:>5} {unc.values[0, j]:7.2f}  [{lower[0, j]:7.2f}, {upper[0, j]:7.2f}]{flag}")

kx.plots.bar_intervals(unc, 0)
plt.show()

# %%
# The fitted components
# ---------------------
# Each first-order component f_j with a rug of the observed values, titled with its share of the
# variance.
names = list(X.columns)
fig, axes = plt.subplots(2, 5, figsize=(16, 6), sharey=True)
for j, ax in enumerate(axes.ravel()):
    col = X_tr.iloc[:, j].to_numpy()
    if names[j] == "sex":
        grid_vals = np.unique(col)
    else:
        grid_vals = np.linspace(col.min(), col.max(), 80)
    grid = np.tile(X_tr.median().to_numpy(), (len(grid_vals), 1))
    grid[:, j] = grid_vals
    f = gp.component(j, pd.DataFrame(grid, columns=X.columns))
    ax.plot(grid_vals, f, "o-" if names[j] == "sex" else "-", color="C0")
    ax.plot(col, np.full_like(col, f.min() - 5), "|", color="0.5", alpha=0.4)
    ax.set_title(f"{names[j]}  (Shapley {gi.values[j] / gi.total:.0%})")
    ax.axhline(0, color="0.8", lw=0.8)
axes[0, 0].set_ylabel("f_j (disease progression)")
fig.suptitle("OAK main effects on the diabetes data")
fig.tight_layout()
plt.show()

# %%
# The strongest pairwise component (orders above one only).
if gp.max_order_ >= 2:
    order_idx = np.argsort(-gi.values)
    a, b = int(order_idx[0]), int(order_idx[1])
    ga = np.linspace(X_tr.iloc[:, a].min(), X_tr.iloc[:, a].max(), 40)
    gb = np.linspace(X_tr.iloc[:, b].min(), X_tr.iloc[:, b].max(), 40)
    A, B = np.meshgrid(ga, gb)
    grid = np.tile(X_tr.median().to_numpy(), (A.size, 1))
    grid[:, a], grid[:, b] = A.ravel(), B.ravel()
    F = gp.component([a, b], pd.DataFrame(grid, columns=X.columns)).reshape(A.shape)
    fig, ax = plt.subplots(figsize=(5, 4))
    cs = ax.contourf(A, B, F, levels=20, cmap="RdBu_r")
    fig.colorbar(cs, ax=ax, label=f"f_{{{names[a]},{names[b]}}}")
    ax.set_xlabel(names[a])
    ax.set_ylabel(names[b])
    fig.tight_layout()
    plt.show()

"""
RKHS Weightings and their STAR versions on the diabetes data
============================================================

Test R^2 of RKHS Weightings (RWRelu, RWSign, RWStumps) and their STAR versions against standard
regressors, hyper-parameters chosen by cross-validation, as in Table 6 of Dubé & Marchand,
"Shapley Values of Structured Additive Regression Models and Application to RKHS Weightings of
Functions" (section 5.3).

Split 331 / 111 as in the paper (Table 5); features and target standardised on the training part
(appendix E).  Grids are smaller than the paper's Table 9 by default (T = 500);
``--paper`` (or ``--full``, ``KEXPLAIN_FULL=1``) uses T = 5000 and the full lambda grid (slow),
``--quick`` (or ``KEXPLAIN_QUICK=1``) a handful of models with T = 100 and no EBM.
"""

# %%
# The candidate models
# --------------------
# argparse reads only the options it knows (``parse_known_args``): sphinx-gallery runs this file
# with sphinx-build's command line.
import argparse
import os
import time

import matplotlib.pyplot as plt
from sklearn.datasets import load_diabetes
from sklearn.kernel_ridge import KernelRidge
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.svm import SVR
from sklearn.tree import DecisionTreeRegressor

from kexplain.star import RKHSWeightingRegressor


def candidates(args):
    T = 5000 if args.paper else (100 if args.quick else 500)
    lambdas = [10.0**p for p in range(-9, -1)] if args.paper else [1e-6, 1e-3]
    cs = [0.5] if args.quick else [0.1, 0.5, 0.9]
    rw = lambda **kw: RKHSWeightingRegressor(n_parameters=T, random_state=args.seed, **kw)  # noqa: E731
    grid = {"c": cs, "regularization": lambdas}
    orders = [3] if args.quick else [1, 2, 3, 4, 5]
    models = [
        ("DecisionTreeRegressor", DecisionTreeRegressor(random_state=args.seed), {"max_depth": [2, 5, 10, 20]}),
        ("KernelRidge", KernelRidge(kernel="rbf"), {"alpha": [0.01, 0.05, 0.1, 0.5, 1, 5]}),
        ("LinearRegression", LinearRegression(), {}),
        ("SVR", SVR(), {"C": [0.5, 1, 5, 10, 50]}),
    ]
    for inst, label in (("relu", "RWRelu"), ("sign", "RWSign")):
        models.append((label, rw(instantiation=inst), grid))
        for k in orders:
            models.append((f"{label} {k}-STAR", rw(instantiation=inst, interaction_order=k), grid))
        if not args.quick:
            models.append((f"{label} [1..5]-STAR", rw(instantiation=inst, interaction_order=5, subsets="up_to"), grid))
    models.append(
        (
            "RWStumps",
            rw(instantiation="stumps", c=None),
            {"sigma": [1.0] if args.quick else [0.1, 1.0], "gamma": [0.1, 1.0], "regularization": lambdas},
        )
    )
    if args.quick:
        print("quick run: T = 100, a small grid, no EBM")
        return models
    try:
        from interpret.glassbox import ExplainableBoostingRegressor

        # EBMs fit slowly (tens of seconds each here): one fit with few bags by default, a grid with --paper
        if args.paper:
            models.append(
                (
                    "EBM",
                    ExplainableBoostingRegressor(random_state=args.seed, n_jobs=1),
                    {"max_bins": [512, 1024], "min_samples_leaf": [1, 2, 3]},
                )
            )
        else:
            models.append(
                (
                    "EBM (no CV, 2 bags)",
                    ExplainableBoostingRegressor(outer_bags=2, max_rounds=5000, random_state=args.seed, n_jobs=1),
                    {},
                )
            )
    except ImportError:
        print("interpret is not installed: EBM skipped (pip install 'kexplain[star]')")
    return models


# %%
# Sizes
# -----
ap = argparse.ArgumentParser(description="RKHS Weightings and their STAR versions on the diabetes data.")
g = ap.add_mutually_exclusive_group()
g.add_argument("--quick", action="store_true", help="T = 100, a small grid, no EBM (KEXPLAIN_QUICK=1)")
g.add_argument("--paper", "--full", action="store_true", help="T = 5000, the full grid (KEXPLAIN_FULL=1)")
ap.add_argument("--seed", type=int, default=0)
args = ap.parse_known_args()[0]
args.quick = (args.quick or os.environ.get("KEXPLAIN_QUICK", "0") not in ("", "0")) and not args.paper
args.paper = not args.quick and (args.paper or os.environ.get("KEXPLAIN_FULL", "0") not in ("", "0"))

# %%
# Fit every model
# ---------------
# Features and target standardised on the training part; hyperparameters by cross-validation.
X, y = load_diabetes(return_X_y=True)
Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=111, random_state=args.seed)
mx, sx, my, sy = Xtr.mean(0), Xtr.std(0), ytr.mean(), ytr.std()
Xtr, Xte, ytr, yte = (Xtr - mx) / sx, (Xte - mx) / sx, (ytr - my) / sy, (yte - my) / sy
folds = 3 if args.quick else 5
print(f"diabetes: {len(Xtr)} training rows, {len(Xte)} test rows, {X.shape[1]} features; {folds}-fold CV")
scores = {}
print(f"{'model':<24} | {'test R^2':>8} | {'train R^2':>9} | {'seconds':>7} | chosen parameters")
for name, est, grid in candidates(args):
    t = time.perf_counter()
    model = GridSearchCV(est, grid, cv=folds).fit(Xtr, ytr) if grid else est.fit(Xtr, ytr)
    el = time.perf_counter() - t
    best = model.best_params_ if grid else {}
    scores[name] = model.score(Xte, yte)
    print(
        f"{name:<24} | {model.score(Xte, yte):>8.3f} | {model.score(Xtr, ytr):>9.3f} | {el:>7.1f} | {best}",
        flush=True,
    )

# %%
# Test R^2 next to the paper's
# ----------------------------
PAPER = {"RWRelu": 0.349, "RWRelu 3-STAR": 0.332, "RWSign": 0.348, "RWStumps": 0.339, "KernelRidge": 0.282}
PAPER["LinearRegression"] = 0.359
print(
    "Paper (Table 6, diabetes, T = 5000): RWRelu 0.349, RWRelu 3-STAR 0.332, RWSign 0.348, "
    "RWStumps 0.339, EBM 0.331, KernelRidge 0.282, LinearRegression 0.359."
)
names = list(scores)
fig, ax = plt.subplots(figsize=(7, 0.35 * len(names) + 1.2))
ax.barh(range(len(names)), [scores[n] for n in names], alpha=0.7, label="ours")
idx = [i for i, n in enumerate(names) if n in PAPER]
ax.plot([PAPER[names[i]] for i in idx], idx, "ko", label="Table 6 (T = 5000)")
ax.set_yticks(range(len(names)), names)
ax.invert_yaxis()
ax.set_xlabel("test R^2 (diabetes)")
ax.legend(loc="lower right")
fig.tight_layout()
plt.show()

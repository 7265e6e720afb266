"""
Preference models: the generalised model against the utility model
===================================================================

Does a preference model that does not force a single ranking predict duels better?  This repeats
the accuracy comparison of Chau's thesis (2023, Section 7.4, Table 7.3): the generalised
preference model (GPM, kernel k_E of Section 6.3) against the utility-based model (UPM,
g = f(x^l) - f(x^r), a kernel Bradley-Terry model) on

1. the chapter 7 synthetic duels: three clusters A, B, C; within a cluster the larger ``x0``
   wins, across clusters the covariate of that pair (``xAB``, ``xAC``, ``xBC``) decides.  No
   cluster dominates, so the duels are not rankable (thesis: test AUC 0.98 for the GPM against
   0.71 for the UPM);
2. statsmodels' ``modechoice``: the travel mode a traveller chose against each mode not chosen,
   with the traveller's income and party size as context (the C-GPM of Section 6.4); duels are
   split by traveller.

Both kernel models are fitted with :class:`kexplain.preference.PreferenceClassifier` (Nystroem
kernel logistic regression, lengthscale and regularisation by cross-validation) and, on fewer
duels, the exact GP with :class:`kexplain.preference.PreferenceGPClassifier`.  A linear
Bradley-Terry model (logistic regression on x^l - x^r) is the classical baseline.

``python examples/pref_accuracy.py`` uses 5,000 duels (the exact GP 400); ``--quick`` or
``KEXPLAIN_QUICK=1`` 2,500 duels (GP 200) and a smaller cross-validation grid; ``--full`` or
``KEXPLAIN_FULL=1`` 10,000 duels (GP 600) and the exact GP on modechoice too.
"""

# %%
# Helpers
# -------
import argparse
import os
import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from kexplain.preference import (
    PreferenceClassifier,
    PreferenceGPClassifier,
    load_modechoice,
    make_cluster_duels,
)


def linear_bradley_terry(train, test):
    """Logistic regression on x^l - x^r without intercept (flipped duels added inside)."""
    D = np.vstack([train.X_left - train.X_right, train.X_right - train.X_left])
    y = np.concatenate([train.y, 1 - train.y])
    model = LogisticRegression(fit_intercept=False, max_iter=1000).fit(D, y)
    p = model.predict_proba(test.X_left - test.X_right)[:, 1]
    return np.mean((p > 0.5) == (test.y == 1)), roc_auc_score(test.y, p)


def evaluate(model, train, test, use_context):
    ctx_tr = train.context if use_context else None
    ctx_te = test.context if use_context else None
    t = time.perf_counter()
    model.fit(train.X_left, train.X_right, train.y, context=ctx_tr)
    seconds = time.perf_counter() - t
    p = model.predict_proba(test.X_left, test.X_right, context=ctx_te)[:, 1]
    return np.mean((p > 0.5) == (test.y == 1)), roc_auc_score(test.y, p), seconds


def print_rows(title, rows):
    print(title)
    print(f"{'model':<44} {'accuracy':>8} {'AUC':>6} {'fit (s)':>8}")
    for name, acc, auc, sec in rows:
        fit = "" if sec is None else f"{sec:8.2f}"
        print(f"{name:<44} {acc:8.3f} {auc:6.3f} {fit:>8}")
    print()


# %%
# Sizes
# -----
# argparse reads only the options it knows (``parse_known_args``): sphinx-gallery runs this file
# with sphinx-build's command line.
ap = argparse.ArgumentParser(description="Preference models: the generalised model against the utility model.")
ap.add_argument("--quick", action="store_true", help="2,500 duels (KEXPLAIN_QUICK=1)")
ap.add_argument("--full", action="store_true", help="10,000 duels, the exact GP everywhere (KEXPLAIN_FULL=1)")
args = ap.parse_known_args()[0]
quick = args.quick or os.environ.get("KEXPLAIN_QUICK", "0") not in ("", "0")
full = not quick and (args.full or os.environ.get("KEXPLAIN_FULL", "0") not in ("", "0"))
warnings.filterwarnings("ignore", category=ConvergenceWarning)

# %%
# 1. The chapter 7 cluster duels
# ------------------------------
# The duels are not rankable, so the utility model cannot fit them; the generalised model can.
n_duels = 2500 if quick else 10000 if full else 5000
n_gp = 200 if quick else 600 if full else 400
grid = {"lengthscale_grid": (0.5, 1.0), "C_grid": (10.0, 100.0)} if quick else {}
data = make_cluster_duels(n_duels=n_duels, n_items=1000, random_state=0)
train, test = data.split(test_size=0.2, random_state=0)
rows = []
for name, model in [
    ("GPM (PreferenceClassifier)", PreferenceClassifier(random_state=0, **grid)),
    ("UPM (PreferenceClassifier, utility=True)", PreferenceClassifier(utility=True, random_state=0, **grid)),
]:
    rows.append((name, *evaluate(model, train, test, False)))
small = train.subset(np.arange(min(n_gp, len(train))))
for name, model in [
    (f"GPM (PreferenceGPClassifier, {len(small)} duels)", PreferenceGPClassifier()),
    (f"UPM (PreferenceGPClassifier, {len(small)} duels)", PreferenceGPClassifier(utility=True)),
]:
    rows.append((name, *evaluate(model, small, test, False)))
rows.append(("linear Bradley-Terry", *linear_bradley_terry(train, test), None))
results = {"cluster duels": rows}
print_rows(
    f"Chapter 7 cluster duels: {len(train)} training and {len(test)} test duels "
    "(thesis, Table 7.3: AUC 0.98 GPM, 0.71 UPM)",
    rows,
)

# %%
# 2. modechoice, split by traveller
# ---------------------------------
# The traveller's context (income, party size) enters the C-GPM's kernel.
mc = load_modechoice(random_state=0)
train, test = mc.split(test_size=0.3, random_state=0)
rows = []
models = [
    ("C-GPM (PreferenceClassifier, context)", PreferenceClassifier(random_state=0, **grid), True),
    ("GPM (PreferenceClassifier, no context)", PreferenceClassifier(random_state=0, **grid), False),
    ("UPM (PreferenceClassifier, utility=True)", PreferenceClassifier(utility=True, random_state=0, **grid), False),
]
if full:
    models += [
        ("C-GPM (PreferenceGPClassifier, context)", PreferenceGPClassifier(), True),
        ("UPM (PreferenceGPClassifier, utility=True)", PreferenceGPClassifier(utility=True), False),
    ]
for name, model, ctx in models:
    rows.append((name, *evaluate(model, train, test, ctx)))
rows.append(("linear Bradley-Terry", *linear_bradley_terry(train, test), None))
print_rows(
    f"modechoice: chosen mode vs each other mode, {len(train)} training and {len(test)} test duels "
    "(split by traveller)",
    rows,
)
results["modechoice"] = rows

# %%
# Test AUC of every model on both data sets (the thesis's Table 7.3: 0.98 for the GPM, 0.71 for
# the UPM on the cluster duels).
fig, axes = plt.subplots(1, 2, figsize=(12, 3.8))
for ax, (title, rows) in zip(axes, results.items(), strict=True):
    ax.barh(range(len(rows)), [r[2] for r in rows], alpha=0.8)
    ax.set_yticks(range(len(rows)), [r[0] for r in rows], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(0.5, 1.0)
    ax.set_xlabel("test AUC")
    ax.set_title(title)
fig.tight_layout()
plt.show()

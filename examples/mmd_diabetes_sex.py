"""
Which measurements differ between male and female patients? MMD^2 attributions
==============================================================================

scikit-learn's diabetes data (442 patients, 10 baseline variables) is split by sex, which is then
dropped; the MMD^2 between the two groups is split over the nine remaining variables with exact
Shapley values (Mohammadi, Chau & Muandet, 2025, PKeX-Shapley, section 4.1; this data set is one of
their experiments, appendix H.3), and a permutation test gives a p-value for the whole difference
and for each variable's share.  Variables whose distributions differ between the groups get
positive values; variables that are alike in both pull the MMD^2 down (negative values).

``python examples/mmd_diabetes_sex.py [--permutations P]`` uses 500 permutations; ``--quick`` or
``KEXPLAIN_QUICK=1`` 100.
"""

# %%
# The two groups
# --------------
# argparse reads only the options it knows (``parse_known_args``): sphinx-gallery runs this file
# with sphinx-build's command line.
import argparse
import os

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_diabetes

import kexplain as kx

ap = argparse.ArgumentParser(description="MMD^2 between male and female diabetes patients, per variable.")
ap.add_argument("--permutations", type=int, default=500)
ap.add_argument("--quick", action="store_true", help="100 permutations (KEXPLAIN_QUICK=1)")
args, _ = ap.parse_known_args()
if args.quick or os.environ.get("KEXPLAIN_QUICK", "0") not in ("", "0"):
    args.permutations = 100
data = load_diabetes(as_frame=True).data
# the variables are standardized already; sex takes two values
groups = data["sex"] > 0
X = data.loc[groups].drop(columns="sex")
Z = data.loc[~groups].drop(columns="sex")
print(f"{len(X)} and {len(Z)} patients, {X.shape[1]} variables")

# %%
# The test and the attribution
# ----------------------------
# The Shapley values sum to MMD^2; each has a permutation p-value from the same permutations.
res = kx.stats.mmd_test(X, Z, n_permutations=args.permutations, random_state=0)
print(f"MMD^2 = {res.statistic:.4g}, permutation p-value = {res.p_value:.4f}")
frame = res.to_frame().sort_values("value", ascending=False)
print(frame.to_string(float_format=lambda v: f"{v:.4g}"))
assert np.isclose(res.attribution.values.sum(), res.statistic)

# %%
# The attribution as a bar chart: each bar is a variable's share of MMD^2.
ax = res.plot()
ax.figure.tight_layout()
plt.show()

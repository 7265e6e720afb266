"""
Observational GP-SHAP: credible intervals for Shapley values of a Gaussian process
==================================================================================

A GaussianProcessRegressor with an ARD RBF kernel on scikit-learn's diabetes data (10 features,
standardised).  ``kx.RKHSExplainer(gpr, background).explain(X, uncertainty=True)`` gives the
observational Shapley values of the posterior mean (RKHS-SHAP's conditional-mean-embedding game)
and their exact posterior covariance (Chau, Muandet & Sejdinovic, NeurIPS 2023): the values
are linear in f, so under the GP posterior they are jointly Gaussian.  The covariance includes
the posterior uncertainty of f; it does not include the estimation error of the conditional mean
embeddings, which are taken as fixed.

Sizes: ``python examples/rkhs_gpshap.py`` explains 4 points against 100 background rows;
``--quick`` or ``KEXPLAIN_QUICK=1`` 2 points and 60 rows, the GP fitted on 150 rows instead of 300
(CI); ``--full`` or ``KEXPLAIN_FULL=1`` 20 points and 200 rows.
"""

# %%
# Sizes
# -----
# The default runs in seconds; the quick size is what CI runs.  argparse reads only the options it
# knows (``parse_known_args``): sphinx-gallery runs this file with sphinx-build's command line.
import argparse
import os

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

import kexplain as kx

ap = argparse.ArgumentParser(description="Credible intervals for the Shapley values of a GP.")
ap.add_argument("--quick", action="store_true", help="2 points, 60 background rows (KEXPLAIN_QUICK=1)")
ap.add_argument("--full", action="store_true", help="20 points, 200 background rows (KEXPLAIN_FULL=1)")
args, _ = ap.parse_known_args()
QUICK = args.quick or os.environ.get("KEXPLAIN_QUICK", "0") not in ("", "0")
FULL = not QUICK and (args.full or os.environ.get("KEXPLAIN_FULL", "0") not in ("", "0"))
n_points, n_background = (2, 60) if QUICK else (20, 200) if FULL else (4, 100)
n_train = 150 if QUICK else 300

# %%
# Fit the GP and explain a few test points
# ----------------------------------------
# The first 300 rows (150 at the quick size) train the GP; the explained points come from the rows
# after 300.
data = load_diabetes()
X = (data.data - data.data.mean(0)) / data.data.std(0)
y = data.target
names = list(data.feature_names)
kernel = ConstantKernel(1.0) * RBF(np.full(10, 3.0), length_scale_bounds=(0.1, 1e5)) + WhiteKernel(0.5)
gpr = GaussianProcessRegressor(kernel, normalize_y=True, random_state=0).fit(X[:n_train], y[:n_train])
explainer = kx.RKHSExplainer(gpr, X[:n_background], feature_names=names)
e = explainer.explain(X[300 : 300 + n_points], uncertainty=True)
lo, hi = e.interval(0.95)

# %%
# Each value with its 95 % credible interval
# ------------------------------------------
# A star marks an interval that excludes zero.
for p in range(min(n_points, 4)):
    print(
        f"\npoint {300 + p}: prediction {e.predictions[p]:.1f} "
        f"(sd {np.sqrt(e.prediction_variance[p]):.1f}), base value {e.base_values[p]:.1f} "
        f"(sd {np.sqrt(e.base_variance[p]):.2f})"
    )
    print(f"{'feature':>8}{'value':>9}{'95% interval':>22}")
    for j in np.argsort(-np.abs(e.values[p])):
        mark = "  *" if lo[p, j] > 0 or hi[p, j] < 0 else ""
        print(f"{names[j]:>8}{e.values[p, j]:>9.2f}   [{lo[p, j]:>8.2f}, {hi[p, j]:>8.2f}]{mark}")
sig = (lo > 0) | (hi < 0)
print("\nfeatures distinguishable from zero at every point:",
      [names[j] for j in np.flatnonzero(sig.all(axis=0))] or "none")  # fmt: skip

# %%
# The same for the first point, drawn: bars with their intervals, and a waterfall from the base
# value to the prediction whose steps carry their uncertainty.
kx.plots.bar_intervals(e, 0, max_display=8)
kx.plots.waterfall_intervals(e, 0, max_display=8)
plt.show()

# %%
# Efficiency in distribution
# --------------------------
# The summed values have the variance of :math:`f(x) - \frac1n \sum_l f(R_l)`, computed here
# directly from the GP posterior.
post = kx.models.gp_posterior(gpr)
w = np.full(n_background, 1.0 / n_background)
direct = e.prediction_variance + e.base_variance - 2 * post.covariance(e.data, X[:n_background]) @ w
err = np.abs(e.covariance.sum(axis=(1, 2)) - direct).max()
print(f"largest |Var(sum phi) - Var(f(x) - base)| = {err:.2e}")

# %%
# Correlated contributions
# ------------------------
# The values of one point are correlated under the posterior; the matrix shows by how much.
corr = e.covariance[0] / np.outer(e.std[0], e.std[0])
i, j = np.unravel_index(np.argmin(np.where(np.eye(10, dtype=bool), 1, corr)), corr.shape)
print(f"most negatively correlated pair at point 300: {names[i]}, {names[j]} (corr {corr[i, j]:.2f})")
kx.plots.correlation(e, 0)
plt.show()

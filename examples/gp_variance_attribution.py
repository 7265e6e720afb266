"""
Where does a Gaussian process's uncertainty come from? Exact attribution of the posterior variance
====================================================================================================

A Gaussian process is unsure far from its data.  For a point x, which features make the posterior
variance large?  ``kx.ProductKernelExplainer(gpr, background=B).explain(X, target="variance")``
gives the exact Shapley values of the latent posterior variance sigma^2(x) under the
interventional game, v(S) = E_z sigma^2(x_S, z_{-S}) over the background rows z: the variance at a
hybrid point is a constant minus a product game over pairs of training points, so no sampling and
no enumeration are needed.

The data here lie in two clusters in 4 dimensions (around -2 and +2 in every feature) and the GP
is fitted to them; the background is the +2 cluster.  The example explains points that leave that
cluster along one feature, along two, or stay inside it, checks the values of the first point
against enumeration of all 2^4 coalitions of scikit-learn's own ``predict(..., return_std=True)``,
and then gives the global picture: the exact Sobol indices and Shapley effects of the posterior mean
(``kx.sensitivity.sobol_indices``), their exact posterior expectation under the GP, and the spread
of the Shapley effects over posterior draws.  It draws (and saves, into ``--out DIR``) a bar plot
of the variance attributions.

``python examples/gp_variance_attribution.py`` takes 400 posterior draws; ``--quick`` or
``KEXPLAIN_QUICK=1`` 50; ``--full`` or ``KEXPLAIN_FULL=1`` 2,000.
"""

# %%
# The data and the GP
# -------------------
# argparse reads only the options it knows (``parse_known_args``): sphinx-gallery runs this file
# with sphinx-build's command line.
import argparse
import os
import pathlib
import tempfile

import matplotlib.pyplot as plt
import numpy as np
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel

import kexplain as kx

ap = argparse.ArgumentParser(description="Exact Shapley values of a GP's posterior variance.")
ap.add_argument("--quick", action="store_true", help="50 posterior draws (KEXPLAIN_QUICK=1)")
ap.add_argument("--full", action="store_true", help="2,000 posterior draws (KEXPLAIN_FULL=1)")
ap.add_argument("--out", default=str(pathlib.Path(tempfile.gettempdir()) / "kexplain_variance_attribution"))
args, _ = ap.parse_known_args()
QUICK = args.quick or os.environ.get("KEXPLAIN_QUICK", "0") not in ("", "0")
FULL = not QUICK and (args.full or os.environ.get("KEXPLAIN_FULL", "0") not in ("", "0"))
n_draws = 50 if QUICK else 2000 if FULL else 400
out = pathlib.Path(args.out)
out.mkdir(parents=True, exist_ok=True)

rng = np.random.default_rng(0)
d = 4
X = np.vstack([rng.normal(-2, 0.6, size=(60, d)), rng.normal(2, 0.6, size=(60, d))])
y = np.sin(X[:, 0]) + 0.5 * X[:, 1] * X[:, 2] + 0.1 * rng.normal(size=len(X))
gpr = GaussianProcessRegressor(ConstantKernel(1.0) * RBF(np.ones(d)), alpha=0.01, normalize_y=True).fit(X, y)
print("fitted kernel:", gpr.kernel_)
names = [f"x{j}" for j in range(d)]

# %%
# Attributing the posterior variance
# ----------------------------------
# The background is the +2 cluster, the reference "typical data" for these points.  (A background
# that spans both clusters makes hybrid points that mix the clusters, which are off the data
# themselves; the interventional game then also credits features for creating such mixes.)
Z = X[60::3]
explainer = kx.ProductKernelExplainer(gpr, background=Z, feature_names=names)

points = np.array(
    [
        [0.0, 2.0, 2.0, 2.0],  # between the clusters along x0 only
        [0.0, 0.0, 2.0, 2.0],  # along x0 and x1
        [2.0, 2.0, 2.0, 2.0],  # inside a cluster
        [2.0, -2.0, 2.0, 2.0],  # x1 from the other cluster: each coordinate is typical, the point is not
    ]
)
ex = explainer.explain(points, target="variance")
print(f"{ex.output}: base value (background mean) {ex.base_values[0]:.4f}")
for i, p in enumerate(points):
    vals = ", ".join(f"{n}={v:+.4f}" for n, v in zip(names, ex.values[i]))
    print(f"  x = {p}: sigma^2 = {ex.v_full[i]:.4f}; {vals}")


# %%
# Check against the definition
# ----------------------------
# Enumerate all 2^4 coalitions of the first point with scikit-learn's own predictive standard
# deviation: the difference should be at rounding level.
def v(coalitions):
    h = np.where(coalitions[:, None, :], points[0][None, None, :], Z[None, :, :]).reshape(-1, d)
    _, std = gpr.predict(h, return_std=True)
    return (std**2).reshape(len(coalitions), -1).mean(axis=1)


ref = kx.exact_shapley(v, d).values
gap = np.abs(ref - ex.values[0]).max()
print(f"largest difference to enumeration of sklearn's predict(return_std=True): {gap:.1e}")

# %%
# The global picture
# ------------------
# Which inputs drive the variance of the fitted function over the data?  Sobol indices and Shapley
# effects of the posterior mean, their exact posterior expectation, and their spread over draws.
g = kx.sensitivity.sobol_indices(gpr, background=X, feature_names=names)
print("Sobol indices of the posterior mean over the product of the data's marginals:")
print("  first order   ", np.round(g.first_order_sobol, 3))
print("  total         ", np.round(g.total_sobol, 3))
print("  Shapley effect", np.round(g.shapley_effect, 3))
sa = kx.sensitivity.SensitivityAnalysis(gpr, background=X, target="posterior_expectation", feature_names=names)
expected = sa.shapley_effects().shapley_effect
print("  posterior expectation of the Shapley effects (exact):", np.round(expected, 3))
draws = kx.sensitivity.SensitivityAnalysis(gpr, background=X).posterior_draws(n_draws, random_state=0)
lo, hi = np.quantile(draws["shapley_effect"], [0.025, 0.975], axis=0)
print(f"  95% range over {n_draws} posterior draws:", [f"[{a:.3f}, {b:.3f}]" for a, b in zip(lo, hi)])

# %%
# The variance attributions, point by point
# -----------------------------------------
# Look for x0 carrying the variance of the first point, x0 and x1 sharing it in the second, nothing
# inside the cluster, and x1 in the last point although each of its coordinates is typical.
fig, ax = plt.subplots(figsize=(7, 3.2))
width = 0.2
for j in range(d):
    ax.bar(np.arange(len(points)) + (j - 1.5) * width, ex.values[:, j], width, label=names[j])
ax.set_xticks(np.arange(len(points)))
ax.set_xticklabels([str(p) for p in points], fontsize=8)
ax.set_ylabel("Shapley value of sigma^2(x)")
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(out / "variance_attribution.png", dpi=110)
print(f"saved {out / 'variance_attribution.png'}")
plt.show()

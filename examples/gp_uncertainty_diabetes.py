"""
Shapley values with credible intervals for a Gaussian process on the diabetes data
==================================================================================

A Gaussian process says how sure it is; its explanations can too.  This example fits scikit-learn's
``GaussianProcessRegressor`` with an ARD RBF kernel (one lengthscale per feature) on the diabetes
data (442 patients x 10 standardised features) and explains the latent function of its posterior.
The Shapley value is linear in the function, so the values of a posterior draw are jointly Gaussian:
``kx.ProductKernelExplainer(gpr, background).explain(X, uncertainty=True)`` gives their mean (the
values of the posterior mean) and their exact covariance (stochastic Shapley values of Chau, Muandet
& Sejdinovic, 2023, here computed exactly for the interventional game over the background rows).

It prints

- one patient's values with 95% credible intervals, and which of them exclude zero;
- per feature, the fraction of explained patients whose interval excludes zero;
- a check against what a user could do without kexplain: draw posterior functions on every
  coalition's rows, compute the Shapley values of each draw by enumerating all 2^10 coalitions,
  and compare the mean, standard deviation and correlation of those values with the exact ones;

and draws four plots: bars and a waterfall with credible intervals, the correlation of one patient's
feature contributions, and the fraction of patients for which each feature is distinguishable from
zero.  ``python examples/gp_uncertainty_diabetes.py`` trains on 330 patients and explains 60;
``--quick`` or ``KEXPLAIN_QUICK=1`` 100 and 12, with fewer posterior draws.
"""

# %%
# Helpers for the check by posterior draws
# ----------------------------------------
import argparse
import os
import time

import matplotlib.pyplot as plt
import numpy as np
from scipy import linalg
from sklearn.datasets import load_diabetes
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

import kexplain as kx


def shapley_operator(d):
    """The d x 2^d matrix that maps the values v(S) of a game (S as bit masks) to its Shapley values."""
    from math import factorial

    masks = np.arange(2**d)
    sizes = np.array([bin(m).count("1") for m in masks])
    A = np.zeros((d, 2**d))
    for j in range(d):
        without = masks[(masks >> j) & 1 == 0]
        w = np.array([factorial(s) * factorial(d - s - 1) / factorial(d) for s in sizes[without]])
        A[j, without | (1 << j)] += w
        A[j, without] -= w
    return A


def posterior_draws_of_values(gpr, y_train, x, background, n_draws, rng):
    """Shapley values (interventional game over ``background``) of ``n_draws`` posterior draws of f.

    The game of a function f at x is v(S) = mean_b f(x_S, z_b,notS); a draw of f is needed on all
    2^d x B rows (x_S, z_b,notS) jointly, from the GP posterior of the latent f (scikit-learn's
    predictive covariance less the WhiteKernel's noise, which it adds on the diagonal).
    """
    d, B = x.shape[0], background.shape[0]
    masks = np.arange(2**d)
    present = ((masks[:, None] >> np.arange(d)) & 1).astype(bool)  # (2^d, d)
    rows = np.where(present[:, None, :], x[None, None, :], background[None, :, :]).reshape(-1, d)
    mean, cov = gpr.predict(rows, return_cov=True)
    noise = gpr.kernel_.k2.noise_level * np.var(y_train)  # normalize_y: targets scaled by their std
    cov[np.diag_indices_from(cov)] -= noise
    L = linalg.cholesky(cov + 1e-9 * np.mean(np.diag(cov)) * np.eye(len(rows)), lower=True)
    f = mean[:, None] + L @ rng.standard_normal((len(rows), n_draws))  # (2^d B, draws)
    v = f.reshape(2**d, B, n_draws).mean(axis=1)  # v(S) of each draw
    return (shapley_operator(d) @ v).T  # (draws, d)


# %%
# Fit the GP
# ----------
# argparse reads only the options it knows (``parse_known_args``): sphinx-gallery runs this file
# with sphinx-build's command line.
ap = argparse.ArgumentParser(description="Shapley values with credible intervals for a GP.")
ap.add_argument("--quick", action="store_true", help="fewer rows and draws (KEXPLAIN_QUICK=1)")
args = ap.parse_known_args()[0]
quick = args.quick or os.environ.get("KEXPLAIN_QUICK", "0") not in ("", "0")
data = load_diabetes()
names = list(data.feature_names)
X = (data.data - data.data.mean(axis=0)) / data.data.std(axis=0)
y = data.target
perm = np.random.default_rng(0).permutation(len(X))
n_train = 100 if quick else 330
tr, te = perm[:n_train], perm[n_train:]
X_tr, y_tr, X_te, y_te = X[tr], y[tr], X[te], y[te]

# an ARD RBF kernel: one lengthscale per feature, a signal variance and a noise level
kernel = ConstantKernel(1.0) * RBF(length_scale=np.full(10, 3.0), length_scale_bounds=(1e-2, 1e4))
kernel = kernel + WhiteKernel(0.5)
t0 = time.perf_counter()
gpr = GaussianProcessRegressor(kernel, normalize_y=True, random_state=0).fit(X_tr, y_tr)
fit_time = time.perf_counter() - t0
print(f"GPR fitted in {fit_time:.1f} s on {n_train} patients; test R^2 = {gpr.score(X_te, y_te):.3f}")
scales = gpr.kernel_.k1.k2.length_scale
print("lengthscales:", ", ".join(f"{n} {v:.3g}" for n, v in zip(names, scales)))

# %%
# Exact values with their posterior covariance
# --------------------------------------------
background = X_tr[: 20 if quick else 50]
n_explain = 12 if quick else 60
explainer = kx.ProductKernelExplainer(gpr, background, feature_names=names)
t0 = time.perf_counter()
ex = explainer.explain(X_te[:n_explain], uncertainty=True)
dt = time.perf_counter() - t0
print(f"\n{n_explain} patients explained with covariances in {dt:.2f} s ({1e3 * dt / n_explain:.0f} ms each);")
print(f"game: {ex.game}, output: {ex.output}")

# %%
# One patient's values with 95 % credible intervals.
lower, upper = ex.interval(0.95)
row = 0
f_sd, base_sd = np.sqrt(ex.prediction_variance[row]), np.sqrt(ex.base_variance[row])
print(f"\npatient {row}: f(x) = {ex.predictions[row]:.1f} (posterior sd {f_sd:.1f}), ", end="")
print(f"base value {ex.base_values[row]:.1f} (sd {base_sd:.1f})")
print(f"{'feature':>8} {'value':>8} {'95% interval':>20}  excludes 0")
for j in np.argsort(-np.abs(ex.values[row])):
    flag = "yes" if lower[row, j] > 0 or upper[row, j] < 0 else ""
    print(f"{names[j]:>8} {ex.values[row, j]:8.2f}   [{lower[row, j]:7.2f}, {upper[row, j]:7.2f}]  {flag}")
# efficiency holds in distribution: the variance of the summed values is Var(f(x) - base value)
print(f"sd of the summed values: {np.sqrt(ex.covariance[row].sum()):.2f}")
kx.plots.bar_intervals(ex, row, max_display=8)
kx.plots.waterfall_intervals(ex, row, max_display=8)
plt.show()

# %%
# The values of one patient are correlated under the posterior.
kx.plots.correlation(ex, row)
plt.show()

# %%
# Which features are distinguishable from zero, patient by patient?

sign = kx.plots.excludes_zero(ex, level=0.95)
frac = np.abs(sign).mean(axis=0)
print(f"\nfraction of the {n_explain} patients whose 95% interval excludes zero:")
for j in np.argsort(-frac):
    above, below = np.mean(sign[:, j] > 0), np.mean(sign[:, j] < 0)
    print(f"{names[j]:>8} {frac[j]:5.2f}   (above 0: {above:.2f}, below: {below:.2f})")
kx.plots.distinguishable(ex)
plt.show()

# %%
# Against Shapley values of posterior function draws
# --------------------------------------------------
# What a user could do without kexplain: draw posterior functions on every coalition's rows and
# enumerate all 2^10 coalitions for each draw.  The exact mean, sd and correlations must agree
# with the draws' within their sampling error.
small_bg = X_tr[: 2 if quick else 4]
n_draws = 1000 if quick else 4000
exact = kx.ProductKernelExplainer(gpr, small_bg, feature_names=names).explain(X_te[:1], uncertainty=True)
t0 = time.perf_counter()
phis = posterior_draws_of_values(gpr, y_tr, X_te[0], small_bg, n_draws, np.random.default_rng(1))
dt = time.perf_counter() - t0
sd, sd_mc = exact.std[0], phis.std(axis=0, ddof=1)
print(
    f"\nposterior draws (background of {len(small_bg)} rows, {n_draws} draws on {2**10 * len(small_bg)} rows "
    f"each, {dt:.1f} s) against the exact values:"
)
print(f"{'feature':>8} {'mean':>8} {'draws':>8} {'sd':>7} {'draws':>7}")
for j in range(10):
    print(f"{names[j]:>8} {exact.values[0, j]:8.2f} {phis[:, j].mean():8.2f} {sd[j]:7.2f} {sd_mc[j]:7.2f}")
# differences in units of their sampling standard errors (sd: sd / sqrt(2 (n - 1)); correlation:
# (1 - rho^2) / sqrt(n)); features the model ignores have (near) zero variance and are left out
keep = sd > 1e-6 * sd.max()
z_mean = np.abs(phis.mean(axis=0) - exact.values[0])[keep] / (sd[keep] / np.sqrt(n_draws))
z_sd = np.abs(sd_mc - sd)[keep] / (sd[keep] / np.sqrt(2 * (n_draws - 1)))
corr, corr_mc = kx.plots.correlation_matrix(exact, 0), np.corrcoef(phis.T)
se_corr = np.maximum(1 - corr**2, 1e-3) / np.sqrt(n_draws)
z_corr = (np.abs(corr_mc - corr) / se_corr)[np.ix_(keep, keep)]
print(
    f"largest differences, in standard errors of the draws: mean {z_mean.max():.1f}, sd {z_sd.max():.1f}, "
    f"correlation {z_corr.max():.1f} (over {keep.sum()} features and {keep.sum() * (keep.sum() - 1) // 2} pairs)"
)

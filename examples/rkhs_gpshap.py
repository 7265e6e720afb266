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

The script prints, for a few test points, each value with its 95 % credible interval, the
features whose intervals exclude zero, the check that efficiency holds in distribution (the
variance of the summed values is that of f(x) minus the background mean of f), and the most
negatively correlated pair of contributions.

    python examples/rkhs_gpshap.py           # 4 points, 100 background rows
    python examples/rkhs_gpshap.py --quick   # 2 points, 60 background rows (also: KEXPLAIN_QUICK=1)
"""

import argparse
import os

import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

import kexplain as kx


def main(n_points: int, n_background: int) -> None:
    data = load_diabetes()
    X = (data.data - data.data.mean(0)) / data.data.std(0)
    y = data.target
    names = list(data.feature_names)
    kernel = ConstantKernel(1.0) * RBF(np.full(10, 3.0), length_scale_bounds=(0.1, 1e5)) + WhiteKernel(0.5)
    gpr = GaussianProcessRegressor(kernel, normalize_y=True, random_state=0).fit(X[:300], y[:300])
    ex = kx.RKHSExplainer(gpr, X[:n_background], feature_names=names)
    e = ex.explain(X[300 : 300 + n_points], uncertainty=True)
    lo, hi = e.interval(0.95)
    for p in range(n_points):
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
    print("\n* interval excludes zero; features distinguishable from zero at every point:",
          [names[j] for j in np.flatnonzero(sig.all(axis=0))] or "none")  # fmt: skip
    # efficiency in distribution: the summed values have the variance of f(x) - mean_l f(R_l)
    post = kx.models.gp_posterior(gpr)
    w = np.full(n_background, 1.0 / n_background)
    direct = e.prediction_variance + e.base_variance - 2 * post.covariance(e.data, X[:n_background]) @ w
    err = np.abs(e.covariance.sum(axis=(1, 2)) - direct).max()
    print(f"efficiency in distribution: largest |Var(sum phi) - Var(f(x) - base)| = {err:.2e}")
    corr = e.covariance[0] / np.outer(e.std[0], e.std[0])
    i, j = np.unravel_index(np.argmin(np.where(np.eye(10, dtype=bool), 1, corr)), corr.shape)
    print(f"most negatively correlated pair at point 300: {names[i]}, {names[j]} (corr {corr[i, j]:.2f})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    quick = args.quick or os.environ.get("KEXPLAIN_QUICK") == "1"
    main(n_points=2 if quick else 4, n_background=60 if quick else 100)

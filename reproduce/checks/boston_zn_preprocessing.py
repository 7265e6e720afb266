"""Thesis Fig. C.3 (RKHS-SHAP on Boston): is ZN's top rank a matter of lengthscale or preprocessing?

Fig. C.2's caption implies ZN is the top predictor of the thesis's RBF kernel ridge regression; ours
(isotropic median-heuristic RBF on standardised features) ranks it last.  One change at a time, 60
seeded rows explained with 1,024 -> 512 sampled coalitions and Nystroem CMEs (200 landmarks):

* ``std``: the record's model (isotropic median heuristic on standardised features);
* ``raw``: the same on unstandardised features (no preprocessing);
* ``ard``: one lengthscale per standardised feature, fitted by GP marginal likelihood (amplitude,
  noise = ridge), as the authors' code fits its KRR (Chau999/RKHS-SHAP, kernel_ridge_regression.py:
  ARD RBF by marginal likelihood; theirs has no output scale and 500 Adam steps).

Output on 2026-11-28::

    raw: lengthscale 140, ridge 0.01: lstat, tax, ptratio, crim, zn, indus, age, dis, rm, rad, chas, nox (ZN 5th)
    std: lengthscale 4.51, ridge 0.01: rm, lstat, ptratio, crim, tax, age, nox, dis, zn, rad, indus, chas (ZN 9th)
    ard: lengthscales crim 0.92, zn 1.0e4, indus 1e5, chas 37, nox 0.66, rm 3.0, age 3.7, dis 3.8, rad 1.8,
         tax 1.0, ptratio 6.8, lstat 1.35; train R^2 0.972:
         lstat, rm, ptratio, nox, tax, crim, age, rad, dis, chas, indus, zn (ZN 12th)
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

import kexplain as kx
from kexplain.kernels import median_heuristic
from reproduce.experiments.rkhs_shap import BOSTON_CME, _rows, boston, krr_expansion, standardized, top


def _ard(Z: np.ndarray, y: np.ndarray, names: list[str]) -> kx.KernelExpansion:
    ls0 = np.asarray(median_heuristic(Z, per_feature=True), float)
    k = ConstantKernel(1.0) * RBF(ls0, (1e-3, 1e5)) + WhiteKernel(0.1, (1e-6, 1e3))
    gp = GaussianProcessRegressor(k, optimizer="fmin_l_bfgs_b").fit(Z, (y - y.mean()) / y.std())
    ls = gp.kernel_.k1.k2.length_scale
    ridge = gp.kernel_.k2.noise_level / gp.kernel_.k1.k1.constant_value
    kern = kx.kernels.RBF(ls)
    coef = np.linalg.solve(kern(Z, Z) + ridge * np.eye(len(y)), y - y.mean())
    print("ard lengthscales: " + ", ".join(f"{n} {v:.3g}" for n, v in zip(names, ls)))
    return kx.KernelExpansion(Z, coef, kern, feature_names=names)


def main(n_explain: int = 60, budget: int = 512) -> None:
    warnings.simplefilter("ignore")
    X, y, names = boston()
    idx = _rows(len(y), n_explain, 0)
    for prep in ("raw", "std", "ard"):
        Z = X.copy() if prep == "raw" else standardized(X)
        model = _ard(Z, y, names) if prep == "ard" else krr_expansion(Z, y, per_feature=False, names=names)[0]
        ex = kx.RKHSExplainer(model, Z, **BOSTON_CME).explain(Z[idx], budget=budget, random_state=0)
        ranking = top(names, np.abs(ex.values).mean(axis=0), 12)
        print(f"{prep}: {ranking} (ZN {ranking.index('zn') + 1}th)", flush=True)


if __name__ == "__main__":
    main()

"""Compressed mixture rules against the plain trapezoid rules they replace, in one run (issue 20).

Before: every Matérn / rational quadratic factor discretised by the trapezoid rule in log t alone
(``trapezoid_rule``); after: the compressed rule that ``mixture_rule`` returns.  Both explainers are
built on the same model, background and points and timed interleaved (CPU time, one BLAS thread):
the cost factor over an RBF GP of the same size (d = 10) and, with ``--shap``, the ratio against
shap's ExactExplainer (independent masker, same 100 background rows).

    python benchmarks/bench_mixture_compression.py [--shap]
"""

from __future__ import annotations

import os
import sys
import warnings

import _common  # noqa
import numpy as np
from _common import result, synthetic_regression, timed
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process import kernels as sk
from threadpoolctl import threadpool_limits

import kexplain as kx
import kexplain.kernels._mixture_quadrature as mq

new_rule = mq.mixture_rule


def old_rule(family, param, R, tol):
    R = max(float(R), 1e-12)
    t, w, e = mq.trapezoid_rule(family, float(param), R, tol)
    return mq.MixtureRule(family, float(param), R, float(tol), t, w, float(e))


def use(rule):
    mq.mixture_rule = rule
    mq._CACHE.clear()


REPS = 3
with threadpool_limits(limits=1):
    d, n = 10, 200
    X, y = synthetic_regression(n, d, 5)
    ls = np.linspace(1, 3, d) * np.sqrt(d / 4)
    B = X[:20]
    Xe = np.random.default_rng(6).normal(size=(4, d))

    def fit(k, X=X, y=y):
        return GaussianProcessRegressor(k, alpha=1e-3, optimizer=None).fit(X, y)

    rbf = fit(sk.RBF(ls))
    e_rbf = kx.ProductKernelExplainer(rbf, background=B, max_block_bytes=2**28)
    e_rbf.explain(Xe[:1])
    print("cost factor d=10 n=200 B=20, 4 points, CPU s/point; load", os.getloadavg())
    for name, k in [("Matern-5/2", sk.Matern(ls, nu=2.5)), ("RQ alpha=2", sk.RationalQuadratic(2.0, alpha=2.0))]:
        m = fit(k)
        ex = {}
        for tag, rule in [("before", old_rule), ("after", new_rule)]:
            use(rule)
            e = kx.ProductKernelExplainer(m, background=B, max_block_bytes=2**28)
            e.explain(Xe)
            ex[tag] = e
        ts = {"rbf": [], "before": [], "after": []}
        for _ in range(REPS):
            ts["rbf"].append(timed(e_rbf.explain, Xe)[2] / 4)
            for tag in ("before", "after"):
                ts[tag].append(timed(ex[tag].explain, Xe)[2] / 4)
        vb, va = ex["before"].explain(Xe), ex["after"].explain(Xe)
        for tag, v in (("before", vb), ("after", va)):
            f = np.array(ts[tag]) / np.array(ts["rbf"])
            print(
                f"cost factor {name} {tag}: terms {v.info['mixture_terms']} route {ex[tag].route} "
                f"s/pt min {min(ts[tag]):.4f} med {np.median(ts[tag]):.4f}; rbf min {min(ts['rbf']):.5f} "
                f"med {np.median(ts['rbf']):.5f}; factor min {f.min():.1f} med {np.median(f):.1f}; "
                f"bound {v.kernel_error_bound:.1e}"
            )
            tname = name.split()[0].replace("/", "_")
            result(f"mixture_cost_factor_{tname}_{tag}", float(np.median(f)), 50, "x", higher_is_better=False)
        print(
            f"  before vs after values max|diff| {np.abs(vb.values - va.values).max():.1e} "
            f"(sum of bounds {vb.kernel_error_bound + va.kernel_error_bound:.1e})",
            flush=True,
        )
    if "--shap" in sys.argv:
        import shap

        X, y = synthetic_regression(200, d, 1)
        Xe = np.random.default_rng(2).normal(size=(3, d))
        B = X[:100]
        print("vs shap ExactExplainer d=10 n=200 B=100, 3 points; load", os.getloadavg())
        for name, k in [
            ("Matern-5/2 ARD", sk.ConstantKernel(2.0) * sk.Matern(ls, nu=2.5) + sk.WhiteKernel(1e-3)),
            ("RQ alpha=2", sk.ConstantKernel(2.0) * sk.RationalQuadratic(float(ls.mean()), alpha=2.0)),
        ]:
            m = fit(k, X, y)
            ex = {}
            for tag, rule in [("before", old_rule), ("after", new_rule)]:
                use(rule)
                e = kx.ProductKernelExplainer(m, background=B, max_block_bytes=2**28)
                e.explain(Xe)
                ex[tag] = e
            sx = shap.ExactExplainer(m.predict, shap.maskers.Independent(B, max_samples=len(B)))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                sx(Xe[:1])
                ts = {"shap": [], "before": [], "after": []}
                for _ in range(2):
                    res, _, t = timed(sx, Xe)
                    ts["shap"].append(t / 3)
                    for tag in ("before", "after"):
                        ts[tag].append(timed(ex[tag].explain, Xe)[2] / 3)
            for tag in ("before", "after"):
                v = ex[tag].explain(Xe)
                err = np.abs(np.asarray(res.values) - v.values).max()
                print(
                    f"ratio to shap {name} {tag}: terms {v.info['mixture_terms']} "
                    f"shap s/pt min {min(ts['shap']):.3f} ours min {min(ts[tag]):.4f} med {np.median(ts[tag]):.4f}; "
                    f"ratio (min/min) {min(ts['shap']) / min(ts[tag]):.0f}x "
                    f"(med/med) {np.median(ts['shap']) / np.median(ts[tag]):.0f}x; max|diff vs shap| {err:.1e} "
                    f"rel {err / np.abs(v.values).max():.1e} bound {v.kernel_error_bound:.1e}",
                    flush=True,
                )
                ratio = float(np.median(ts["shap"]) / np.median(ts[tag]))
                result(f"mixture_vs_shap_d10_{name.split()[0].replace('/', '_')}_{tag}", ratio, 100, "x")

"""Interventional SHAP at d = 20: kexplain's exact values against shap's KernelExplainer.

shap's KernelExplainer samples coalitions (its default nsamples = 2 d + 2048) and solves a
weighted least-squares problem, so its values carry a sampling error; kexplain computes the same
interventional game exactly.  Both use the same 50 background rows.  Target (issue 2, item 7c): we
are faster, and exact (efficiency to rounding), while KernelExplainer's error is reported.

    python benchmarks/bench_kernel_explainer.py [--quick]
"""

from __future__ import annotations

import warnings

import _common  # noqa: F401  (first: single-threaded BLAS before numpy loads)
import numpy as np
from _common import fit_svr, fmt_s, load_note, print_table, quick_flag, timed

import kexplain as kx


def main():
    import shap

    d = 20
    quick = quick_flag()
    n_points = 2 if quick else 5
    model, X = fit_svr(500, d, seed=3)
    background = X[:50]
    Xe = np.random.default_rng(4).normal(size=(n_points, d))
    explainer = kx.ProductKernelExplainer(model, background=background)
    explainer.explain(Xe[:1])  # warm-up
    ours, w_ours, t_ours = timed(explainer.explain, Xe)
    efficiency = np.abs(ours.values.sum(axis=1) + ours.base_values - model.predict(Xe)).max()
    ke = shap.KernelExplainer(model.predict, background)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs, w_shap, t_shap = timed(ke.shap_values, Xe, silent=True)
    theirs = np.asarray(theirs)
    err = np.abs(theirs - ours.values)
    scale = np.abs(ours.values).max()
    rows = [
        [
            d,
            len(model.support_),
            n_points,
            fmt_s(t_shap / n_points),
            fmt_s(t_ours / n_points),
            f"{t_shap / t_ours:,.0f}x",
            f"{w_shap / w_ours:,.0f}x",
            f"{err.max():.2e}",
            f"{err.mean():.2e}",
            f"{err.max() / scale:.1%}",
            f"{efficiency:.1e}",
        ]
    ]
    print_table(
        "Interventional SHAP, 50 background rows, RBF SVR, CPU time per point, shap.KernelExplainer (default nsamples "
        f"= {2 * d + 2048}) vs kexplain exact " + load_note(),
        [
            "d",
            "SVs",
            "points",
            "shap Kernel/pt",
            "kexplain/pt",
            "speed-up (CPU)",
            "(wall)",
            "max |diff|",
            "mean |diff|",
            "max diff / max |phi|",
            "kexplain efficiency err",
        ],
        rows,
    )
    print(
        "max |diff| is KernelExplainer's sampling error: kexplain's values are exact (its efficiency\n"
        "error, the last column, is rounding); target: kexplain faster and exact."
    )


if __name__ == "__main__":
    main()

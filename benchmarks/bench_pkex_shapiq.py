"""Functional-baseline Shapley values (PKeX): kexplain against shapiq's ProductKernelExplainer.

RBF SVR with about 500 support vectors, d in {20, 80, 160}.  shapiq runs an O(n d^3) recursion per
point and is slow at large d, so it explains only a few points (the same points kexplain explains
first); kexplain's time per point is measured over more points, explained in one batch.
Target (issue 2, item 7a): at least 100x faster at d = 160, largest difference at most 1e-10.

    python benchmarks/bench_pkex_shapiq.py [--quick]
"""

from __future__ import annotations

import _common  # noqa: F401  (first: single-threaded BLAS before numpy loads)
import numpy as np
from _common import fit_svr, fmt_s, load_note, print_table, quick_flag, timed

import kexplain as kx


def main():
    from shapiq.explainer.product_kernel import ProductKernelExplainer as ShapiqPKE

    quick = quick_flag()
    shapiq_points = {20: 10, 80: 3, 160: 2} if not quick else {20: 2, 80: 1, 160: 1}
    ours_points = 200
    rows = []
    for d in (20, 80, 160):
        model, X = fit_svr(500, d, seed=d)
        rng = np.random.default_rng(1)
        Xe = rng.normal(size=(ours_points, d))
        explainer = kx.ProductKernelExplainer(model)
        explainer.explain(Xe[:2])  # warm-up (compiled kernel, caches)
        ours, w_ours, t_ours = timed(explainer.explain, Xe)
        sq = ShapiqPKE(model)
        ns = shapiq_points[d]
        vals, w_sq, t_sq = timed(lambda sq=sq, pts=Xe[:ns]: [sq.explain(x).get_n_order_values(1) for x in pts])
        diff = np.abs(np.asarray(vals) - ours.values[:ns]).max()
        base_diff = abs(sq.empty_prediction - ours.base_values[0])
        per_ours, per_sq = t_ours / ours_points, t_sq / ns
        rows.append(
            [
                d,
                len(model.support_),
                f"{ns}",
                fmt_s(per_sq),
                f"{ours_points}",
                fmt_s(per_ours),
                f"{per_sq / per_ours:,.0f}x",
                f"{(w_sq / ns) / (w_ours / ours_points):,.0f}x",
                f"{max(diff, base_diff):.1e}",
            ]
        )
    print_table(
        "Functional baseline (PKeX), RBF SVR: CPU time per explained point " + load_note(),
        [
            "d",
            "SVs",
            "shapiq pts",
            "shapiq/pt",
            "kexplain pts",
            "kexplain/pt",
            "speed-up (CPU)",
            "(wall)",
            "max |diff|",
        ],
        rows,
    )
    print("target: speed-up >= 100x at d = 160 and max |diff| <= 1e-10")
    worst = max(float(r[-1]) for r in rows)
    if worst > 1e-10:
        raise SystemExit(f"largest difference {worst:.1e} exceeds 1e-10")


if __name__ == "__main__":
    main()

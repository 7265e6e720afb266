"""Functional-baseline Shapley values (PKeX): kexplain against shapiq's ProductKernelExplainer.

RBF SVR with about 500 support vectors, d in {20, 80, 160}.  shapiq runs an O(n d^3) recursion per
point and is slow at large d, so it explains only a few points (the same points kexplain explains
first); kexplain's time per point is measured over more points, explained in one batch.  Both sides
are warmed (shapiq on one point, kexplain on two) and then timed in 3 interleaved repetitions (CPU
seconds, one BLAS thread); ratios are given for the minima and the medians.
Targets (issue 26): at least 1,000x faster at d = 160 and 300x at d = 20; largest difference at
most 1e-10.  `--quick` explains fewer points, so its per-point figures are noisier.

    python benchmarks/bench_pkex_shapiq.py [--quick]
"""

from __future__ import annotations

import _common  # noqa: F401  (first: single-threaded BLAS before numpy loads)
import numpy as np
from _common import compare, fit_svr, fmt_s, load_note, print_table, quick_flag, result, threads_note

import kexplain as kx


def main():
    from shapiq.explainer.product_kernel import ProductKernelExplainer as ShapiqPKE

    quick = quick_flag()
    shapiq_points = {20: 10, 80: 3, 160: 2} if not quick else {20: 2, 80: 1, 160: 1}
    ours_points = 200 if not quick else 40
    targets = {20: 300.0, 160: 1000.0}
    rows, met = [], True
    for d in (20, 80, 160):
        model, X = fit_svr(500, d, seed=d)
        rng = np.random.default_rng(1)
        Xe = rng.normal(size=(ours_points, d))
        explainer = kx.ProductKernelExplainer(model)
        sq = ShapiqPKE(model)
        ns = shapiq_points[d]
        t = compare(
            {
                "kexplain": lambda e=explainer, X=Xe: e.explain(X),
                "shapiq": lambda sq=sq, pts=Xe[:ns]: [sq.explain(x).get_n_order_values(1) for x in pts],
            },
            repeats=3,
            warmup=1,
        )
        ours, vals = t["kexplain"]["result"], t["shapiq"]["result"]
        diff = np.abs(np.asarray(vals) - ours.values[:ns]).max()
        base_diff = abs(sq.empty_prediction - ours.base_values[0])
        per_ours = {k: t["kexplain"][k] / ours_points for k in ("min", "median")}
        per_sq = {k: t["shapiq"][k] / ns for k in ("min", "median")}
        speed = {k: per_sq[k] / per_ours[k] for k in ("min", "median")}
        met &= result(f"pkex_vs_shapiq_d{d}", speed["min"], targets.get(d), "x", note=f"median {speed['median']:.0f}x")
        rows.append(
            [
                d,
                len(model.support_),
                f"{ns}",
                f"{fmt_s(per_sq['min'])} / {fmt_s(per_sq['median'])}",
                f"{ours_points}",
                f"{fmt_s(per_ours['min'])} / {fmt_s(per_ours['median'])}",
                f"{speed['min']:,.0f}x / {speed['median']:,.0f}x",
                "-" if d not in targets else f">= {targets[d]:,.0f}x",
                f"{max(diff, base_diff):.1e}",
            ]
        )
    print_table(
        "Functional baseline (PKeX), RBF SVR: CPU time per explained point (min / median of 3 interleaved, warm) "
        + load_note()
        + "; "
        + threads_note(),
        [
            "d",
            "SVs",
            "shapiq pts",
            "shapiq/pt",
            "kexplain pts",
            "kexplain/pt",
            "speed-up min / median",
            "target",
            "max |diff|",
        ],
        rows,
    )
    print(f"speed-up targets {'met' if met else 'NOT met'} (read at full size on a quiet machine)")
    worst = max(float(r[-1]) for r in rows)
    if worst > 1e-10:
        raise SystemExit(f"largest difference {worst:.1e} exceeds 1e-10")


if __name__ == "__main__":
    main()

"""Exact interventional SHAP: kexplain against shap's ExactExplainer (independent masker).

RBF SVR (about 200 support vectors), 50 background rows, d in {6, 8, 10, 12, 14}.  shap's
ExactExplainer evaluates the model on all 2^d coalitions x 50 background rows; kexplain solves the
same game exactly in polynomial time, through one of two routes: "subsets" (absent-set tables,
2^d per support vector, for small d) or "quadrature" (n_background d ceil(d/2) per support vector).
Its cost model picks one ("auto"); at d = 10 and d = 14 each route is also forced, so each route's
ratio is measured rather than credited to the other.

Timing: every side (shap and each kexplain route) is built once, warmed once, and then timed in 3
interleaved repetitions explaining the same points (CPU seconds, one BLAS thread); the table gives
min and median and the ratio of the minima (medians in brackets).  kexplain's time per point is
also measured on a 200-point batch ("batch"), and its call on the same points is also timed as
the mean of LOOP back-to-back calls ("warm"): a single call of a few hundred microseconds right
after shap's run finds its tables evicted from the caches and is timed with the clock's jitter, so
the single-call ratio (the target's) is the cold, pessimistic one, and "warm" shows what a loop of
one-point calls costs per call.  The explainer's one-off construction is reported
separately ("build").

Agreement: shap's masker treats a feature value within 1e-5 relative of the background's value as
unchanged, so its values are only accurate to about 1e-8; kexplain is therefore checked against an
enumeration of all 2^d coalitions with the model's own ``predict`` (at 1e-10), and against shap at
1e-6.  Targets (issue 26): >= 1,000x over warmed shap at d = 10 on both routes and at d = 14.

    python benchmarks/bench_interventional_exact.py [--quick]
"""

from __future__ import annotations

import contextlib
import warnings

import _common  # noqa: F401  (first: single-threaded BLAS before numpy loads)
import numpy as np
from _common import compare, fit_svr, fmt_s, load_note, print_table, quick_flag, result, threads_note, timed

import kexplain as kx
import kexplain.explainers.product_kernel_base as _pk  # the module that calls the cost model

TARGET = 1000.0
#: back-to-back calls of the "warm" timing of kexplain's call on the same points
LOOP = 20


@contextlib.contextmanager
def forced_route(route):
    """Construct explainers with ``route`` instead of the cost model's choice (benchmark only: the
    explainer has no public switch, so the module's reference to the cost model is replaced)."""
    if route == "auto":
        yield
        return
    saved = _pk.choose_route
    _pk.choose_route = lambda *a, **k: route
    try:
        yield
    finally:
        _pk.choose_route = saved


def enumerated(model, background, x):
    """Interventional Shapley values of one point by enumerating all 2^d coalitions with the model's
    own predict: v(S) = mean_z f(x_S, z_rest)."""
    d = x.shape[0]

    def v(S):
        rows = np.where(S[:, None, :], x[None, None, :], background[None, :, :])  # (n_S, B, d)
        return model.predict(rows.reshape(-1, d)).reshape(S.shape[0], -1).mean(axis=1)

    return kx.shapley.exact_shapley(v, d, batch_size=256).values


def main():
    import shap

    quick = quick_flag()
    dims = (10, 14) if quick else (6, 8, 10, 12, 14)
    batch = 40 if quick else 200
    rows, met = [], True
    for d in dims:
        model, X = fit_svr(200, d, seed=d)
        background = X[:50]
        Xe = np.random.default_rng(2).normal(size=(batch, d))
        n_shap = 1 if d >= 12 or quick else 4
        routes = ("auto", "subsets", "quadrature") if d in (10, 14) else ("auto",)
        explainers, builds = {}, {}
        for route in routes:
            with forced_route(route):
                kx.ProductKernelExplainer(model, background=background)  # warm-up of the construction
                explainers[route], _, builds[route] = timed(kx.ProductKernelExplainer, model, background=background)
        masker = shap.maskers.Independent(background, max_samples=len(background))
        exact = shap.ExactExplainer(model.predict, masker)

        def run_shap(exact=exact, pts=Xe[:n_shap]):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return exact(pts)

        sides = {"shap": run_shap}
        for route, e in explainers.items():
            sides[route] = lambda e=e, pts=Xe[:n_shap]: e.explain(pts)
            sides[route + " batch"] = lambda e=e, pts=Xe: e.explain(pts)
            sides[route + " warm"] = lambda e=e, pts=Xe[:n_shap]: [e.explain(pts) for _ in range(LOOP)][-1]
        t = compare(sides, repeats=3, warmup=1)
        theirs = t["shap"]["result"]
        ref = np.stack([enumerated(model, background, x) for x in Xe[:1]])
        per_shap = {k: t["shap"][k] / n_shap for k in ("min", "median")}
        for route in routes:
            small, big = t[route]["result"], t[route + " batch"]["result"]
            ran = small.info["route"]
            err_enum = np.abs(small.values[:1] - ref).max()
            err_shap = max(
                np.abs(theirs.values - small.values).max(), np.abs(theirs.base_values - small.base_values).max()
            )
            err_batch = np.abs(big.values[:n_shap] - small.values).max()
            if err_enum > 1e-10 or err_shap > 1e-6 or err_batch > 1e-12:
                raise SystemExit(
                    f"d={d} route={ran}: differences {err_enum:.1e} (enumeration), {err_shap:.1e} (shap), "
                    f"{err_batch:.1e} (batch vs small)"
                )
            per_small = {k: t[route][k] / n_shap for k in ("min", "median")}
            per_batch = {k: t[route + " batch"][k] / batch for k in ("min", "median")}
            per_warm = {k: t[route + " warm"][k] / (LOOP * n_shap) for k in ("min", "median")}
            spw = {k: per_shap[k] / per_warm[k] for k in ("min", "median")}
            sp = {k: per_shap[k] / per_small[k] for k in ("min", "median")}
            spb = {k: per_shap[k] / per_batch[k] for k in ("min", "median")}
            target = TARGET if d in (10, 14) else None
            label = ran if route == "auto" else f"{ran}_forced"
            met &= result(
                f"interventional_vs_shap_exact_d{d}_{label}_{n_shap}pts",
                sp["min"],
                target,
                "x",
                note=f"median {sp['median']:.0f}x; kx/pt {fmt_s(per_small['min'])} ({fmt_s(per_small['median'])})",
            )
            result(
                f"interventional_vs_shap_exact_d{d}_{label}_{n_shap}pts_warm",
                spw["min"],
                None,
                "x",
                note=f"median {spw['median']:.0f}x; kx/pt {fmt_s(per_warm['min'])} ({fmt_s(per_warm['median'])})",
            )
            result(f"interventional_vs_shap_exact_d{d}_{label}_batch{batch}", spb["min"], None, "x")
            rows.append(
                [
                    d,
                    f"{route} -> {ran}",
                    n_shap,
                    f"{fmt_s(per_shap['min'])} / {fmt_s(per_shap['median'])}",
                    fmt_s(builds[route]),
                    f"{fmt_s(per_small['min'])} / {fmt_s(per_small['median'])}",
                    f"{sp['min']:,.0f}x / {sp['median']:,.0f}x",
                    f"{fmt_s(per_warm['min'])} / {fmt_s(per_warm['median'])}",
                    f"{fmt_s(per_batch['min'])} / {fmt_s(per_batch['median'])}",
                    f"{spb['min']:,.0f}x / {spb['median']:,.0f}x",
                    f"{err_enum:.1e}",
                    f"{err_shap:.1e}",
                ]
            )
    print_table(
        "Interventional SHAP, 50 background rows, RBF SVR: CPU time per explained point, min / median of 3 "
        f"interleaved warm repetitions {load_note()}; {threads_note()}",
        [
            "d",
            "route asked -> ran",
            "pts",
            "shap Exact/pt",
            "build",
            "kx/pt (same pts)",
            "speed-up",
            f"kx/pt (warm, {LOOP} calls)",
            f"kx/pt ({batch} batch)",
            "speed-up",
            "|diff| enum",
            "|diff| shap",
        ],
        rows,
    )
    print(
        f"target: >= {TARGET:,.0f}x at d = 10 (both routes) and d = 14: {'met' if met else 'NOT met'}; "
        "|diff| shap is bounded by shap's masker (values within 1e-5 relative of the background count as unchanged)"
    )


if __name__ == "__main__":
    main()

"""Exact interventional SHAP of a polynomial-kernel SVC: kexplain against shap's ExactExplainer.

``SVC(kernel="poly", degree=3, coef0=1)`` with about 200 support vectors, 50 background rows.
shap's ExactExplainer (independent masker on the same rows) evaluates ``decision_function`` on
all 2^d coalitions x 50 background rows; kexplain solves the same game exactly through the
polynomial route (``kexplain.shapley.polynomial``: O(d p^2) per support vector, background row
and Gauss-Legendre node).  Both sides run on one BLAS thread (set before numpy loads), warmed up,
on the same points; the ratio is per explained point (CPU seconds).  Target (issue 20, item 6):
at least 300x at d = 10, largest difference at most 1e-10 relative.  Then seconds per point at
d = 100, where enumeration is impossible.

    python benchmarks/bench_polynomial.py [--quick]
"""

from __future__ import annotations

import warnings

import _common  # noqa: F401  (first: single-threaded BLAS before numpy loads)
import numpy as np
from _common import fmt_s, print_table, quick_flag, synthetic_regression, timed

import kexplain as kx

REPEATS = 3


def best_of(fn, *args):
    """(result, wall, CPU) of the run with the smallest CPU time out of REPEATS."""
    runs = [timed(fn, *args) for _ in range(REPEATS)]
    return min(runs, key=lambda r: r[2])


def fit_poly_svc(n, d, seed, degree=3):
    from sklearn.svm import SVC

    X, y = synthetic_regression(n, d, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = SVC(kernel="poly", degree=degree, coef0=1.0, C=1.0).fit(X, y > np.median(y))
    return model, X


def main():
    import shap
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
    quick = quick_flag()
    shap_points = 1 if quick else 4
    ours_points = 20 if quick else 200
    d = 10
    model, X = fit_poly_svc(260, d, seed=d)
    background = X[:50]
    rng = np.random.default_rng(2)
    Xe = rng.normal(size=(ours_points, d))
    explainer = kx.ProductKernelExplainer(model, background=background)
    explainer.explain(Xe[:2])  # warm-up
    ours_small, _, t_small = best_of(explainer.explain, Xe[:shap_points])
    ours, _, t_ours = best_of(explainer.explain, Xe)
    masker = shap.maskers.Independent(background, max_samples=len(background))
    exact = shap.ExactExplainer(model.decision_function, masker)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exact(Xe[:1])  # warm-up
        theirs, _, t_shap = timed(exact, Xe[:shap_points])
    scale = float(np.max(np.abs(theirs.values)))
    diff = float(np.max(np.abs(ours_small.values - theirs.values))) / scale
    per_shap = t_shap / shap_points
    per_small = t_small / shap_points
    per_ours = t_ours / ours_points
    print(
        f"SVC(kernel='poly', degree=3, coef0=1): {model.support_vectors_.shape[0]} support vectors, "
        f"{len(background)} background rows, one BLAS thread, CPU seconds per point"
    )
    print_table(
        "d = 10: shap ExactExplainer vs kexplain (interventional game)",
        [
            "d",
            "shap s/pt",
            f"ours s/pt ({shap_points} pts)",
            f"ours s/pt ({ours_points} pts)",
            "ratio small",
            "ratio large",
            "max rel diff",
        ],
        [
            (
                d,
                fmt_s(per_shap),
                fmt_s(per_small),
                fmt_s(per_ours),
                f"{per_shap / per_small:.0f}x",
                f"{per_shap / per_ours:.0f}x",
                f"{diff:.1e}",
            )
        ],
    )
    # the row route on the same d = 10 model (the cost model picks the monomial route there)
    from kexplain.explainers import polynomial_games

    limit = polynomial_games.MONOMIAL_LIMIT
    polynomial_games.MONOMIAL_LIMIT = 0
    rows_explainer = kx.ProductKernelExplainer(model, background=background)
    polynomial_games.MONOMIAL_LIMIT = limit
    rows_explainer.explain(Xe[:1])
    res_rows, _, t_rows = best_of(rows_explainer.explain, Xe[:shap_points])
    diff_rows = float(np.max(np.abs(res_rows.values - theirs.values))) / scale
    print(
        f"row route at d = 10 (forced): {fmt_s(t_rows / shap_points)} per point, "
        f"{per_shap / (t_rows / shap_points):.0f}x shap, max rel diff {diff_rows:.1e}"
    )
    print()
    # larger d: no enumeration possible; seconds per point, values and SII interactions
    rows = []
    for d_big, degree in ((50, 3), (100, 3), (100, 5)):
        model_big, Xb = fit_poly_svc(260, d_big, seed=d_big, degree=degree)
        bg = Xb[:50]
        Xq = np.random.default_rng(3).normal(size=(4, d_big))
        ex = kx.ProductKernelExplainer(model_big, background=bg)
        ex.explain(Xq[:1])
        res, _, t_vals = best_of(ex.explain, Xq)
        _, _, t_int = timed(ex.explain, Xq[:1], interactions="sii")
        rows.append(
            (
                d_big,
                degree,
                ex.route,
                model_big.support_vectors_.shape[0],
                fmt_s(t_vals / len(Xq)),
                fmt_s(t_int),
                f"{res.info['efficiency_error']:.1e}",
            )
        )
    print_table(
        "larger d (no enumeration possible), 50 background rows",
        ["d", "degree", "route", "support vectors", "values s/pt", "values+SII s/pt", "efficiency err"],
        rows,
    )


if __name__ == "__main__":
    main()

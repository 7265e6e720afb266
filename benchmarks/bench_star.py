"""STAR-SHAP against model-agnostic Shapley estimators (Dubé & Marchand, Figure 1, as ratios).

5-STAR sum-of-unanimity models (T = 50 terms, section 5.1) over d features, 10 explained rows,
the same 10 rows as background.  kexplain's StarExplainer is exact; shap's ExactExplainer
enumerates 2^d coalitions and so runs only at small d (d = 10 here; at d = 50 it would need 2^50
model calls), so from d = 50 on the comparison is with shapiq's KernelSHAP, Unbiased KernelSHAP
and SHAP-IQ at budget 256 (approximate: their error against the exact values is printed too).
Times are wall-clock seconds for all 10 rows, measured in this run on a shared machine.
"""

import time
import warnings

import numpy as np

from kexplain.star import StarExplainer, interventional_value_function, unanimity_data, unanimity_model

BUDGET = 256
N_POINTS = 10


def _best_time(fn, *args, repeats=3, **kwargs):
    best, out = np.inf, None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn(*args, **kwargs)
        best = min(best, time.perf_counter() - t)
    return best, out


def _star_shap(model, X):
    return StarExplainer(model, X).explain(X)


def _shap_exact(shap, model, masker, X):
    return shap.explainers.ExactExplainer(model.predict, masker)(X, silent=True)


def _r2(est, exact):
    return 1.0 - np.sum((est - exact) ** 2) / np.sum((exact - exact.mean()) ** 2)


def main():
    from shapiq.approximator import SHAPIQ, KernelSHAP, UnbiasedKernelSHAP

    approximators = [
        ("shapiq KernelSHAP", KernelSHAP, {}),
        ("shapiq Unbiased KernelSHAP", UnbiasedKernelSHAP, {}),
        ("shapiq SHAP-IQ", SHAPIQ, {"max_order": 1, "index": "SV"}),
    ]
    import shap

    warnings.filterwarnings("ignore", message="Not all budget is required")
    # shap compiles code on its first call: warm it up so its timing is not charged for that
    Xw = unanimity_data(4, 3, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        shap.explainers.ExactExplainer(
            unanimity_model(3, 2, 2, random_state=0).predict, shap.maskers.Independent(Xw, max_samples=4)
        )(Xw, silent=True)
    rows = []
    for d in (10, 50, 200, 1000):
        model = unanimity_model(d, 5, 50, random_state=d)
        X = unanimity_data(N_POINTS, d, random_state=d + 1)
        # construction (background-only work) and explanation, as a user pays for one batch
        t_star, ex = _best_time(_star_shap, model, X)
        exact = ex.values
        others = []
        if d <= 12:
            masker = shap.maskers.Independent(X, max_samples=X.shape[0])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t, sv = _best_time(_shap_exact, shap, model, masker, X, repeats=1)
            others.append(("shap ExactExplainer", t, sv.values))
        for name, cls, kw in approximators:
            t0 = time.perf_counter()
            vals = np.stack(
                [
                    cls(n=d, random_state=0, **kw)
                    .approximate(BUDGET, interventional_value_function(model.predict, x, X))
                    .get_n_order_values(1)
                    for x in X
                ]
            )
            others.append((name + f" (budget {BUDGET})", time.perf_counter() - t0, vals))
        for name, t, vals in others:
            rows.append((d, name, t_star, t, t / t_star, np.abs(vals - exact).max(), _r2(vals, exact)))
        print(f"d={d} done", flush=True)
    print()
    print(
        "STAR-SHAP (kexplain.star.StarExplainer, exact) vs other Shapley estimators; 5-STAR unanimity model, "
        f"T=50 terms, {N_POINTS} explained rows, background = the same {N_POINTS} rows"
    )
    head = (
        f"{'d':>5} | {'other method':<40} | {'ours [s]':>9} | {'other [s]':>9} | {'other/ours':>10} | "
        f"{'max |diff|':>10} | {'R^2 other':>9}"
    )
    print(head)
    print("-" * len(head))
    for d, name, ts, to, ratio, diff, r2 in rows:
        print(f"{d:>5} | {name:<40} | {ts:>9.4f} | {to:>9.4f} | {ratio:>9.1f}x | {diff:>10.2e} | {r2:>9.4f}")
    print(
        "shap ExactExplainer needs 2^d model evaluations per row and is not run for d >= 50; "
        "the shapiq estimators are approximate, so their max |diff| is estimation error, not rounding."
    )
    print("Timings come from a machine shared with other jobs; ratios are more reliable than absolute times.")


if __name__ == "__main__":
    main()

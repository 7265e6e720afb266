"""STAR-SHAP against model-agnostic Shapley estimators (Dubé & Marchand, Figure 1, as ratios).

5-STAR sum-of-unanimity models (T = 50 terms, section 5.1) over d features, 10 explained rows,
the same 10 rows as background.  kexplain's StarExplainer is exact; shap's ExactExplainer
enumerates 2^d coalitions and so runs only at small d (d = 10 here; at d = 50 it would need 2^50
model calls), so from d = 50 on the comparison is with shapiq's KernelSHAP, Unbiased KernelSHAP
and SHAP-IQ at budget 256 (approximate: their error against the exact values is printed too).
Every side is warmed once and then timed in 3 interleaved repetitions (CPU seconds of this
process, one BLAS thread); the table gives min and median, and the ratio of the minima (of the
medians in brackets).  `--quick` runs d = 10 and 50 only.
"""

import warnings

import _common  # noqa: F401  (first: one BLAS thread before numpy loads)
import numpy as np
from _common import compare, quick_flag, result, threads_note

from kexplain.star import StarExplainer, interventional_value_function, unanimity_data, unanimity_model

BUDGET = 256
N_POINTS = 10


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
    for d in (10, 50) if quick_flag() else (10, 50, 200, 1000):
        model = unanimity_model(d, 5, 50, random_state=d)
        X = unanimity_data(N_POINTS, d, random_state=d + 1)
        # construction (background-only work) and explanation, as a user pays for one batch
        sides = {"ours": lambda model=model, X=X: _star_shap(model, X)}
        if d <= 12:
            masker = shap.maskers.Independent(X, max_samples=X.shape[0])

            def shap_exact(masker=masker, model=model, X=X):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    return _shap_exact(shap, model, masker, X).values

            sides["shap ExactExplainer"] = shap_exact
        for name, cls, kw in approximators:

            def approx(cls=cls, kw=kw, model=model, X=X, d=d):
                return np.stack(
                    [
                        cls(n=d, random_state=0, **kw)
                        .approximate(BUDGET, interventional_value_function(model.predict, x, X))
                        .get_n_order_values(1)
                        for x in X
                    ]
                )

            sides[name + f" (budget {BUDGET})"] = approx
        t = compare(sides, repeats=3, warmup=1)
        exact = t["ours"]["result"].values
        for name in sides:
            if name == "ours":
                continue
            vals = t[name]["result"]
            rows.append((d, name, t["ours"], t[name], np.abs(vals - exact).max(), _r2(vals, exact)))
            if name == "shap ExactExplainer":
                result(f"star_vs_shap_exact_d{d}", t[name]["min"] / t["ours"]["min"], None, "x")
            elif name.startswith("shapiq KernelSHAP"):
                result(f"star_vs_shapiq_kernelshap_d{d}", t[name]["min"] / t["ours"]["min"], None, "x")
        print(f"d={d} done", flush=True)
    print()
    print(
        "STAR-SHAP (kexplain.star.StarExplainer, exact) vs other Shapley estimators; 5-STAR unanimity model, "
        f"T=50 terms, {N_POINTS} explained rows, background = the same {N_POINTS} rows"
    )
    head = (
        f"{'d':>5} | {'other method':<40} | {'ours min/med [s]':>17} | {'other min/med [s]':>17} | "
        f"{'other/ours':>20} | {'max |diff|':>10} | {'R^2 other':>9}"
    )
    print(threads_note() + "; CPU seconds, warm, 3 interleaved repetitions")
    print(head)
    print("-" * len(head))
    for d, name, ts, to, diff, r2 in rows:
        ours = f"{ts['min']:.4f}/{ts['median']:.4f}"
        other = f"{to['min']:.4f}/{to['median']:.4f}"
        ratio = f"{to['min'] / ts['min']:.1f}x ({to['median'] / ts['median']:.1f}x)"
        print(f"{d:>5} | {name:<40} | {ours:>17} | {other:>17} | {ratio:>20} | {diff:>10.2e} | {r2:>9.4f}")
    print(
        "shap ExactExplainer needs 2^d model evaluations per row and is not run for d >= 50; "
        "the shapiq estimators are approximate, so their max |diff| is estimation error, not rounding."
    )
    print("Timings come from a machine shared with other jobs; ratios are more reliable than absolute times.")


if __name__ == "__main__":
    main()

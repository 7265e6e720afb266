"""PREF-SHAP interventional item values: kexplain against enumeration and shap's ExactExplainer.

A generalised preference model g(x^l, x^r) = sum_i coef_i [k(x^l, L_i) k(x^r, R_i) - k(x^l, R_i)
k(x^r, L_i)] with 100 support duels (RBF item kernel) and 10 background items, d in {6, 8, 10}.
The game (Chau, 2023, thesis Definition 7.3.1 with the marginal reference): a coalition S keeps
the features S of both explained items; the left item's other features come from a background
row z, the right item's from an independent row z'.  So v(S) averages g over the 100 hybrid
duels (z, z') of every pair of background rows.

Three ways to the same Shapley values, measured in the same run on the same duels:

- kexplain: ``PrefShapExplainer(model, background)`` (exact, product game; the subset route at
  these sizes), per duel over a batch of 50 duels, construction ("build") timed apart;
- enumeration: the model evaluated on all 2^d coalitions x 100 hybrid duels, then
  ``kexplain.shapley.exact_shapley`` on that table;
- shap's ``ExactExplainer`` on the model's decision function over hybrid duels: shap has no
  two-item masker, so each player is a code (0: the explained duel's feature, c > 0: the feature
  of hybrid duel c), the masker's background holds the 100 codes of the hybrid duels, and the
  wrapped model decodes them into (left, right) items before calling ``decision_function``.
  shap then does the masking, the averaging and the Shapley sums over its 2^d coalitions.

Printed: the time per duel of each side, the ratios, the largest absolute differences.

    python benchmarks/bench_preference_shap.py [--quick]
"""

from __future__ import annotations

import warnings

import _common  # noqa: F401  (first: single-threaded BLAS before numpy loads)
import numpy as np
from _common import fmt_s, load_note, print_table, quick_flag, timed

from kexplain.kernels import RBF
from kexplain.preference import PreferenceExpansion
from kexplain.preference.explainer import PrefShapExplainer
from kexplain.shapley import exact_shapley

REPEATS = 3


def best_of(fn, *args, **kwargs):
    runs = [timed(fn, *args, **kwargs) for _ in range(REPEATS)]
    return min(runs, key=lambda r: r[2])


def model_and_duels(d, m, nb, n, seed):
    rng = np.random.default_rng(seed)
    pe = PreferenceExpansion(rng.normal(size=(m, d)), rng.normal(size=(m, d)), rng.normal(size=m), RBF(np.sqrt(d)))
    return pe, rng.normal(size=(nb, d)), rng.normal(size=(n, d)), rng.normal(size=(n, d))


def enumeration(pe, Z, xl, xr):
    """Shapley values of one duel: g on every coalition x hybrid duel, then exact enumeration."""
    nb, d = Z.shape
    b, b2 = np.divmod(np.arange(nb * nb), nb)

    def value(S):  # S (n_coalitions, d) boolean
        out = np.empty(S.shape[0])
        for q, s in enumerate(S):
            left = np.where(s, xl, Z[b])
            right = np.where(s, xr, Z[b2])
            out[q] = pe.decision_function(left, right).mean()
        return out

    return exact_shapley(value, d).values


def shap_exact(shap, pe, Z, xl, xr):
    """shap's ExactExplainer on the decision function over hybrid duels (codes decoded by the model)."""
    nb, d = Z.shape
    codes = np.repeat(np.arange(1, nb * nb + 1, dtype=np.float64)[:, None], d, axis=1)

    def model(C):
        C = np.asarray(C, dtype=np.int64)
        b, b2 = np.divmod(np.maximum(C - 1, 0), nb)
        cols = np.arange(d)
        left = np.where(C == 0, xl, Z[b, cols])
        right = np.where(C == 0, xr, Z[b2, cols])
        return pe.decision_function(left, right)

    masker = shap.maskers.Independent(codes, max_samples=codes.shape[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return shap.ExactExplainer(model, masker)(np.zeros((1, d)), silent=True).values[0]


def main():
    try:
        import shap
    except ImportError:
        shap = None
    quick = quick_flag()
    m, nb, n_ours = (50, 6, 20) if quick else (100, 10, 50)
    n_ref = 1 if quick else 2
    rows = []
    worst = 0.0
    for d in (6, 8, 10):
        pe, Z, Xl, Xr = model_and_duels(d, m, nb, n_ours, seed=d)
        PrefShapExplainer(pe, Z).explain(Xl[:2], Xr[:2])  # warm-up (compiled kernels)
        explainer, _, t_build = timed(PrefShapExplainer, pe, Z)
        ours, _, t_ours = best_of(explainer.explain, Xl, Xr)
        quad = PrefShapExplainer(pe, Z, route="quadrature")
        ours_q, _, t_quad = best_of(quad.explain, Xl, Xr)
        enum, _, t_enum = timed(
            lambda pe=pe, Z=Z, Xl=Xl, Xr=Xr: np.array([enumeration(pe, Z, Xl[i], Xr[i]) for i in range(n_ref)])
        )
        d_enum = max(np.abs(enum - ours.values[:n_ref]).max(), np.abs(ours_q.values - ours.values).max())
        per_ours, per_quad, per_enum = t_ours / n_ours, t_quad / n_ours, t_enum / n_ref
        row = [
            d,
            explainer.route,
            fmt_s(t_build),
            fmt_s(per_ours),
            fmt_s(per_quad),
            fmt_s(per_enum),
            f"{per_enum / per_ours:,.0f}x",
            f"{d_enum:.1e}",
        ]
        worst = max(worst, d_enum)
        if shap is not None:
            shap_exact(shap, pe, Z, Xl[0], Xr[0])  # warm-up (shap compiles its helpers on first use)
            theirs, _, t_shap = timed(
                lambda pe=pe, Z=Z, Xl=Xl, Xr=Xr: np.array([shap_exact(shap, pe, Z, Xl[i], Xr[i]) for i in range(n_ref)])
            )
            d_shap = np.abs(theirs - ours.values[:n_ref]).max()
            worst = max(worst, d_shap)
            row += [fmt_s(t_shap / n_ref), f"{(t_shap / n_ref) / per_ours:,.0f}x", f"{d_shap:.1e}"]
        else:
            row += ["(no shap)", "", ""]
        rows.append(row)
    print_table(
        f"PREF-SHAP interventional item values, {m} support duels, {nb} background items "
        f"({nb * nb} hybrid duels): CPU time per duel " + load_note(),
        [
            "d",
            "route",
            "build",
            f"kx/duel ({n_ours})",
            "kx quadrature",
            f"enumeration ({n_ref})",
            "ratio",
            "max |diff|",
            f"shap Exact ({n_ref})",
            "ratio",
            "max |diff|",
        ],
        rows,
    )
    print("target: max |diff| <= 1e-10 against both")
    if worst > 1e-10:
        raise SystemExit(f"largest difference {worst:.1e} exceeds 1e-10")


if __name__ == "__main__":
    main()

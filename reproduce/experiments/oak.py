"""Paper 001: exact local and global Shapley values of orthogonal additive GPs (OAK).

The paper prints no numbers beyond the ideal mean ranks of its synthetic sets (appendix B); its
figures are box plots and curves.  Rows quote the figure's claim and the ideal rank.  Baselines
not in kexplain are written plainly here: HSIC-Lasso (pyHSICLasso), mutual information, the F-test,
Lasso and RFE (scikit-learn), shap's Kernel and Sampling explainers, an RBF-ARD GP explained
exactly by ``kx.ProductKernelExplainer``, and a random forest for the incremental feature curves.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import time
import warnings
from typing import Any

import numpy as np
from scipy.stats import rankdata

import kexplain as kx
from reproduce.data import rdataset, require
from reproduce.framework import Experiment, Result, Row, cached

PAPER = "oak"
D = 10
#: the truly relevant features and the ideal mean rank of each synthetic set (appendix B)
TRUE = {1: [0, 1, 2], 2: [0, 1, 2, 3, 4], 3: [0, 1, 2, 3], 4: [0, 1, 2, 3, 4]}
IDEAL = {k: float(np.mean(np.arange(1, len(v) + 1))) for k, v in TRUE.items()}


def make(which: int, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Synthetic set 1-4 of appendix B: d = 10 standard normal features, 1% noise."""
    X = rng.standard_normal((n, D))
    x = X.T
    if which == 1:
        y = x[0] * x[1] * x[2]
    elif which == 2:
        y = 0.5 * (np.exp(x[0] * x[1] * x[2]) + np.exp(x[3] * x[4]))
    elif which == 3:
        y = np.exp(np.sum(X[:, :4] ** 2, axis=1) - 4)
    else:
        y = -10 * np.sin(0.2 * x[0]) + np.abs(x[1]) + x[2] + np.exp(-x[3] * x[4])
    return X, y + 0.01 * np.std(y) * rng.standard_normal(n)


def mean_true_rank(importance: Any, true: list[int]) -> float:
    """Mean rank (1 = most important, ties averaged) of the true features."""
    return float(rankdata(-np.asarray(importance, dtype=float))[true].mean())


def hsic_lasso(X: np.ndarray, y: np.ndarray) -> np.ndarray | None:
    """HSIC-Lasso's order of selection as an importance (unselected features tie at zero)."""
    try:
        from pyHSICLasso import HSICLasso
    except ImportError:
        return None
    d = X.shape[1]
    h = HSICLasso()
    h.input(X, y, featname=[f"x{j}" for j in range(d)])
    # its LARS path can end before num_feat features enter; ask for fewer until it runs
    for num_feat in range(d - 1, 0, -1):
        try:
            with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                warnings.simplefilter("ignore")
                h.regression(num_feat, B=20, M=3, n_jobs=1)
            break
        except ValueError:
            continue
    else:
        return None
    imp = np.zeros(d)
    for pos, j in enumerate(h.get_index()):
        imp[j] = d - pos
    return imp


def selectors(X: np.ndarray, y: np.ndarray, oak: Any, seed: int, classify: bool = False) -> dict[str, np.ndarray]:
    """Feature-selection scores of every method of Fig. 1 / Fig. 2 (higher = more important)."""
    from sklearn.feature_selection import RFE, f_classif, f_regression, mutual_info_classif, mutual_info_regression
    from sklearn.linear_model import LassoCV, LinearRegression, LogisticRegression

    out = {"AGP-SV (OAK global)": oak.global_importance().values}
    h = hsic_lasso(X, y)
    if h is not None:
        out["HSIC-Lasso"] = h
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if classify:
            out["MI"] = mutual_info_classif(X, y, random_state=seed)
            out["F-ANOVA"] = np.nan_to_num(f_classif(X, y)[0])
            Zs = (X - X.mean(0)) / np.where(X.std(0) > 0, X.std(0), 1)
            out["Lasso"] = np.abs(LogisticRegression(penalty="l1", solver="liblinear", C=0.1).fit(Zs, y).coef_).sum(0)
            out["RFE"] = -RFE(LogisticRegression(max_iter=500), n_features_to_select=1).fit(Zs, y).ranking_
        else:
            out["MI"] = mutual_info_regression(X, y, random_state=seed)
            out["F-ANOVA"] = np.nan_to_num(f_regression(X, y)[0])
            out["Lasso"] = np.abs(LassoCV(cv=3).fit(X, y).coef_)
            out["RFE"] = -RFE(LinearRegression(), n_features_to_select=1).fit(X, y).ranking_
    return {k: np.asarray(v, dtype=float) for k, v in out.items()}


def ard_gp(X: np.ndarray, y: np.ndarray):
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return GaussianProcessRegressor(
            ConstantKernel() * RBF(np.ones(X.shape[1])) + WhiteKernel(1e-2), normalize_y=True, random_state=0
        ).fit(X, y)


# ----------------------------------------------------------------------------------------------
# Figs. 1 and 3: synthetic sets 1-4 (one OAK fit per repetition serves both figures)


def synthetic_sizes(size: str) -> dict[str, Any]:
    if size == "quick":
        return {"sets": (1, 4), "reps": 1, "n": 80, "explained": 4, "order": 3, "max_iter": 30, "shap": False}
    # the paper's 100 repetitions; REPRODUCE_OAK_REPS runs fewer where the machine's time is short (the
    # record's settings then say how many)
    reps = int(os.environ.get("REPRODUCE_OAK_REPS", "100"))
    return {"sets": (1, 2, 3, 4), "reps": reps, "n": 100, "explained": 10, "order": 3, "max_iter": 50, "shap": True}


def one_repetition(size: str, seed: int, which: int, rep: int) -> dict[str, Any]:
    """One draw of one set: the mean rank of the true features for every selector and explainer.

    Each (set, repetition) has its own generator, so a repetition comes out the same whatever ran
    before it: runs can be cut short, resumed from a cache, or spread over processes.
    """
    start = time.perf_counter()
    s = synthetic_sizes(size)
    true = TRUE[which]
    rng = np.random.default_rng([seed, which, rep])
    X, y = make(which, s["n"], rng)
    # the share of the target's sum of squares held by its largest row (heavy tails)
    yc = (y - y.mean()) ** 2
    oak = kx.gp.OAKRegressor(
        max_interaction_order=s["order"], max_iter=s["max_iter"], random_state=int(rng.integers(2**31))
    ).fit(X, y)
    sel = {name: mean_true_rank(imp, true) for name, imp in selectors(X, y, oak, int(rng.integers(2**31))).items()}
    Xe = make(which, s["explained"], rng)[0]
    found = {"AGP-SV (OAK local, functional ANOVA)": oak.explain(Xe).values}
    found["OAK local, interventional (50 rows)"] = kx.gp.OAKExplainer(oak, X[:50]).explain(Xe).values
    if s["shap"]:
        shap = require("shap")
        bg = shap.kmeans(X, 10)
        found["Kernel SHAP (on OAK)"] = np.asarray(
            shap.KernelExplainer(oak.predict, bg).shap_values(Xe, nsamples=2 * D + 512, silent=True)
        )
        found["Sampling SHAP (on OAK)"] = np.asarray(
            shap.SamplingExplainer(oak.predict, X[:50]).shap_values(Xe, nsamples=1000, silent=True)
        )
    gpr = ard_gp(X, y)
    found["RBF-ARD GP, exact interventional"] = kx.ProductKernelExplainer(gpr, X[:50]).explain(Xe).values
    loc = {name: float(np.mean([mean_true_rank(np.abs(v), true) for v in vals])) for name, vals in found.items()}
    return {
        "selection": sel,
        "local": loc,
        "nll": -float(oak.log_marginal_likelihood_value_),
        "spike": float(yc.max() / yc.sum()),
        "seconds": time.perf_counter() - start,
    }


@functools.lru_cache(maxsize=4)
def synthetic(size: str, seed: int) -> dict[str, Any]:
    """Per set: the mean rank of the true features per repetition, for every selector and explainer."""
    s = synthetic_sizes(size)
    sel: dict[int, dict[str, list[float]]] = {w: {} for w in s["sets"]}
    loc: dict[int, dict[str, list[float]]] = {w: {} for w in s["sets"]}
    nll: dict[int, list[float]] = {w: [] for w in s["sets"]}
    spike: dict[int, list[float]] = {w: [] for w in s["sets"]}
    seconds = 0.0
    # repetition-major, so that a run cut short (with the cache) has the same count on every set
    for rep in range(s["reps"]):
        for which in s["sets"]:
            r = cached(
                f"oak/{size}-seed{seed}-set{which}-rep{rep}", functools.partial(one_repetition, size, seed, which, rep)
            )
            for name, v in r["selection"].items():
                sel[which].setdefault(name, []).append(v)
            for name, v in r["local"].items():
                loc[which].setdefault(name, []).append(v)
            nll[which].append(r["nll"])
            spike[which].append(r["spike"])
            seconds += r.get("seconds", 0.0)
    return {"selection": sel, "local": loc, "nll": nll, "spike": spike, "sizes": s, "seconds": seconds}


#: the heavy tail was the guessed cause; reproduce/checks/oak_heavy_tail.py tests it on sets 3 and 4
HEAVY = {
    3: " (a heavy tail), but that is not the cause: on 6 fresh draws of set 3 (n = 100) the target's normal scores "
    "(same order, no tail) move the global AGP-SV's mean rank from 3.46 to 4.38 and HSIC-Lasso's from 3.54 to "
    "4.00; cause not identified",
    4: " (a heavy tail), but that is not the cause: on 6 fresh draws of set 4 (n = 100) the global AGP-SV ranks "
    "the true features ideally (3.00) on the target and on its normal scores alike (HSIC-Lasso 3.27 / 3.40), so "
    "the gap comes from some of the record's draws, not from the tail",
}
HEAVY_OTHER = " (a heavy tail; not checked on this set)"


def _heavy(res: dict[str, Any], which: int) -> str:
    share = float(np.median(res["spike"][which]))
    return (
        f"; on set {which} the largest of the {res['sizes']['n']} targets holds a median {share:.0%} of the"
        " target's sum of squares" + HEAVY.get(which, HEAVY_OTHER)
        if share > 0.5
        else ""
    )


def _summ(scores: dict[str, list[float]]) -> dict[str, float]:
    return {k: round(float(np.mean(v)), 2) for k, v in scores.items()}


def run_fig1(size: str, seed: int) -> Result:
    res = synthetic(size, seed)
    s = res["sizes"]
    rows = []
    for which, scores in res["selection"].items():
        means = _summ(scores)
        oak = means["AGP-SV (OAK global)"]
        best_other = min(v for k, v in means.items() if k != "AGP-SV (OAK global)")
        win = oak <= best_other + 0.05
        rows.append(
            Row(
                f"set {which}: mean rank of the true features (ideal {IDEAL[which]:g})",
                "AGP-SV lowest of all selectors (Fig. 1 box plots)",
                means,
                "reproduced" if win else "differs",
                "" if win else f"AGP-SV {oak} against the best other {best_other}" + _heavy(res, which),
            )
        )
    if "HSIC-Lasso" in res["selection"][s["sets"][-1]]:
        hs = {w: _summ(v)["HSIC-Lasso"] for w, v in res["selection"].items()}
        ag = {w: _summ(v)["AGP-SV (OAK global)"] for w, v in res["selection"].items()}
        late = [w for w in (3, 4) if w in hs]
        ok = all(ag[w] < hs[w] for w in late)
        rows.append(
            Row(
                "HSIC-Lasso against AGP-SV on sets 3-4 (mean rank)",
                "AGP-SV significantly better on sets 3 and 4",
                {f"set {w}": {"AGP-SV": ag[w], "HSIC-Lasso": hs[w]} for w in hs},
                "reproduced" if ok else "differs",
                ""
                if ok
                else "HSIC-Lasso ranks the true features as well or better on a complex set"
                + "".join(_heavy(res, w) for w in late),
            )
        )
    return Result(
        rows,
        {
            **{k: (list(v) if isinstance(v, tuple) else v) for k, v in s.items() if k != "shap"},
            "seconds summed over repetitions (Figs. 1 and 3 together)": round(res["seconds"], 1),
        },
        [seed],
        notes=_FIT_NOTE + _reps_note(s) + f" Mean negative log marginal likelihood per set: "
        f"{ {w: round(float(np.mean(v)), 1) for w, v in res['nll'].items()} }.",
    )


def run_fig3(size: str, seed: int) -> Result:
    res = synthetic(size, seed)
    s = res["sizes"]
    rows = []
    key = "AGP-SV (OAK local, functional ANOVA)"
    for which, scores in res["local"].items():
        means = _summ(scores)
        oak = means[key]
        best_other = min(v for k, v in means.items() if k != key)
        ok = oak <= best_other + 0.1 if which in (3, 4) else oak <= best_other + 0.5
        claim = "AGP-SV clearly best" if which in (3, 4) else "AGP-SV competitive with the SHAP explainers"
        rows.append(
            Row(
                f"set {which}: mean rank of the true features, local (ideal {IDEAL[which]:g})",
                f"{claim} (Fig. 3)",
                means,
                "reproduced" if ok else "differs",
                ""
                if ok
                else f"AGP-SV {oak} against the best other {best_other}" + _same_model(means) + _heavy(res, which),
            )
        )
    return Result(
        rows,
        {
            **{k: (list(v) if isinstance(v, tuple) else v) for k, v in s.items()},
            "seconds summed over repetitions (Figs. 1 and 3 together)": round(res["seconds"], 1),
        },
        [seed],
        notes=_FIT_NOTE + _reps_note(s),
    )


def _same_model(means: dict[str, float]) -> str:
    """Fig. 3's gap split: the RBF-ARD GP is another model, the rest explain the same OAK fit."""
    ard = "RBF-ARD GP, exact interventional"
    key = "AGP-SV (OAK local, functional ANOVA)"
    if ard not in means or means[ard] > min(v for k, v in means.items() if k != key):
        return ""
    best_oak = min(v for k, v in means.items() if k not in (key, ard))
    return (
        f" (the best is the RBF-ARD GP, another model; among the explainers of the same OAK fit the best other"
        f" is {best_oak})"
    )


def _reps_note(s: dict[str, Any]) -> str:
    if s["reps"] >= 100:
        return ""
    return (
        f" {s['reps']} of the paper's 100 repetitions per set: each repetition costs about 10 CPU-seconds but"
        " minutes on the shared 2-core machine this record came from; with REPRODUCE_CACHE set, a later run of"
        " the full size reads the finished repetitions back and adds the rest."
    )


_FIT_NOTE = (
    "OAK as in the paper's section 6 (the OAK package's defaults): squared-exponential base kernels made"
    " orthogonal to a Gaussian input measure after a per-feature normalising transform (Yeo-Johnson here,"
    " a normalising flow there), exact GP (no inducing points below 5000 rows), one L-BFGS start, interaction"
    " order 3. The paper states neither n nor d for the synthetic sets; we use d = 10 and the n in settings."
)


# ----------------------------------------------------------------------------------------------
# The fitting investigation (issue #27): restarts and input measure on set 2


def run_fitting(size: str, seed: int) -> Result:
    reps, n, max_iter = (1, 60, 20) if size == "quick" else (6, 100, 50)
    rng = np.random.default_rng(seed + 2)
    long_iter = 60 if size == "quick" else 300
    long = f"one start, {long_iter} iterations"
    configs = {
        "one start, Gaussian measure (paper)": {},
        long: {"max_iter": long_iter},
        "3 restarts": {"n_restarts": 2},
        "empirical measure": {"input_measure": "empirical"},
    }
    glob: dict[str, list[float]] = {k: [] for k in configs}
    loc: dict[str, list[float]] = {k: [] for k in configs}
    nll: dict[str, list[float]] = {k: [] for k in configs}
    off = dict.fromkeys(configs, 0)
    ard: list[float] = []
    true = TRUE[2]
    for r in range(reps):
        X, y = make(2, n, rng)
        Xe = make(2, 10, rng)[0]
        for name, extra in configs.items():
            kw = {"max_interaction_order": 3, "max_iter": max_iter, "random_state": r, **extra}
            oak = kx.gp.OAKRegressor(**kw).fit(X, y)
            gi = oak.global_importance()
            glob[name].append(mean_true_rank(gi.values, true))
            # a true feature "switched off": under 1% of the variance (its lengthscale at the bound)
            off[name] += int(np.any(gi.values[true] < 0.01 * gi.total))
            loc[name].append(float(np.mean([mean_true_rank(np.abs(v), true) for v in oak.explain(Xe).values])))
            nll[name].append(-float(oak.log_marginal_likelihood_value_))
        vals = kx.ProductKernelExplainer(ard_gp(X, y), X[:50]).explain(Xe).values
        ard.append(float(np.mean([mean_true_rank(np.abs(v), true) for v in vals])))
    summary = {
        k: {
            "global": round(float(np.mean(glob[k])), 2),
            "local": round(float(np.mean(loc[k])), 2),
            "nll": round(float(np.mean(nll[k])), 1),
            "reps with a true feature off": off[k],
        }
        for k in configs
    }
    per_rep = {k: [round(x, 2) for x in glob[k]] for k in configs}
    restart_gain = summary["3 restarts"]["nll"] <= summary["one start, Gaussian measure (paper)"]["nll"] + 1e-6
    paper_fit = summary["one start, Gaussian measure (paper)"]
    diff = np.asarray(ard) - np.asarray(loc["one start, Gaussian measure (paper)"])
    ard_noise = abs(diff.mean()) <= 2 * diff.std(ddof=1) / np.sqrt(len(diff)) if len(diff) > 1 else True
    near = paper_fit["global"] <= 3.5
    best = min(summary, key=lambda k: summary[k]["nll"])
    rows = [
        Row(
            "set 2: OAK mean rank of the true features by fitting choice (ideal 3)",
            "~3 (Fig. 1: AGP-SV near the ideal)",
            summary,
            "within noise" if near else "differs",
            ""
            if near
            else f"the single-start fit switched a true feature off (under 1% of the variance, its lengthscale at"
            f" the upper bound) in {paper_fit['reps with a true feature off']} of {reps} repetitions: a local"
            f" optimum of the marginal likelihood, not a bug ({long_iter} iterations from the same start: mean rank"
            f" {summary[long]['global']}); the best"
            f" likelihood came from '{best}' (mean rank {summary[best]['global']})",
        ),
        Row(
            "set 2: local mean rank, RBF-ARD GP exact interventional vs OAK functional-ANOVA",
            "not in the paper (issue #27 saw 3.93 vs 4.31 with 3 repetitions)",
            {
                "RBF-ARD GP": round(float(np.mean(ard)), 2),
                "OAK": summary["one start, Gaussian measure (paper)"]["local"],
            },
            "within noise" if ard_noise else "differs",
            "" if ard_noise else "the two models rank the true features differently beyond the spread over repetitions",
        ),
        Row(
            "restarts never worsen the marginal likelihood",
            "n/a (a check of kexplain's multi-start)",
            restart_gain,
            "reproduced" if restart_gain else "differs",
            "" if restart_gain else "the best of several starts had a worse likelihood: a bug in the multi-start",
        ),
    ]
    return Result(
        rows,
        {
            "repetitions": reps,
            "n": n,
            "max_iter": max_iter,
            "global mean rank per repetition": per_rep,
            "ARD local per repetition": [round(x, 2) for x in ard],
        },
        [seed + 2],
        notes="Investigation of issue #27 (not a figure of the paper). The paper's fit (its authors' code calls the"
        " OAK package's oak_model with its defaults): one BFGS run to convergence from lengthscales 1 and noise"
        " variance 0.01, a Gamma(1, 0.2) prior on the order variances (a MAP fit), exact GP below 1000 rows (200"
        " k-means inducing points above), Gaussian N(0, 1) measure after a normalising flow. kexplain: one"
        " L-BFGS-B run (max_iter) from lengthscales = feature scale and noise variance 0.1, maximum likelihood, exact"
        " GP below 5000 rows, Gaussian measure after a Yeo-Johnson transform. Starting the noise at 0.01 reaches"
        " the same optimum (checked on set 2); the inducing-point rules do not apply at these sizes. What moves"
        " the mean rank is a local optimum in which a feature of the three-way term exp(x1 x2 x3) is switched off"
        " (lengthscale at the bound 1000, under 1% of the variance) and its effect absorbed by the others; the"
        " rows show how often each fitting choice lands there. " + _FIT_NOTE,
    )


# ----------------------------------------------------------------------------------------------
# Real data (Figs. 2, 4, 5)


def real_data(name: str) -> tuple[np.ndarray, np.ndarray, list[str], bool]:
    """(X, y, feature names, is classification) of diabetes, modechoice or Guerry."""
    if name == "diabetes":
        from sklearn.datasets import load_diabetes

        d = load_diabetes()
        return d.data, d.target, list(d.feature_names), False
    if name == "modechoice":
        sm = require("statsmodels.api", "statsmodels")
        df = sm.datasets.modechoice.load_pandas().data
        names = ["ttme", "invc", "invt", "gc", "hinc", "psize"]
        return df[names].to_numpy(float), df["choice"].to_numpy(int), names, True
    pd = require("pandas")
    df = rdataset("HistData", "Guerry")
    names = [
        c
        for c in df.columns
        if c not in ("rownames", "dept", "Region", "Department", "MainCity", "Crime_pers")
        and pd.api.types.is_numeric_dtype(df[c])
    ]
    return df[names].to_numpy(float), df["Crime_pers"].to_numpy(float), names, False


REAL = ("diabetes", "modechoice", "guerry")


def real_sizes(size: str) -> dict[str, Any]:
    if size == "quick":
        return {"rows": 120, "order": 2, "max_iter": 15, "trees": 10, "explained": 4, "shap": False}
    return {"rows": 300, "order": 3, "max_iter": 40, "trees": 100, "explained": 20, "shap": True}


@functools.lru_cache(maxsize=8)
def real_fit(name: str, size: str, seed: int):
    s = real_sizes(size)
    X, y, names, classify = real_data(name)
    if s["rows"] is not None and len(y) > s["rows"]:
        idx = np.random.default_rng(seed).choice(len(y), s["rows"], replace=False)
        X, y = X[idx], y[idx]
    order = min(s["order"], X.shape[1])
    t0 = time.perf_counter()
    oak = kx.gp.OAKRegressor(max_interaction_order=order, max_iter=s["max_iter"], random_state=seed).fit(X, y)
    return X, y, names, classify, oak, time.perf_counter() - t0


def incremental_errors(X, y, order, classify, trees, seed, k_max=None) -> list[float]:
    """3-fold CV error of a random forest on the first k features of ``order``, k = 1..k_max (default d)."""
    from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
    from sklearn.model_selection import cross_val_score

    out = []
    for k in range(1, (k_max or X.shape[1]) + 1):
        cols = list(order[:k])
        if classify:
            m = RandomForestClassifier(trees, random_state=seed, n_jobs=1)
            out.append(1 - float(cross_val_score(m, X[:, cols], y, cv=3, scoring="accuracy").mean()))
        else:
            m = RandomForestRegressor(trees, random_state=seed, n_jobs=1)
            out.append(1 - float(cross_val_score(m, X[:, cols], y, cv=3, scoring="r2").mean()))
    return out


def run_fig2(size: str, seed: int) -> Result:
    s = real_sizes(size)
    rows, curves = [], {}
    for name in REAL:
        X, y, names, classify, oak, _ = real_fit(name, size, seed)
        scores = selectors(X, y, oak, seed, classify=classify)
        half = max(1, (X.shape[1] + 1) // 2)
        area = {}
        for meth, imp in scores.items():
            k_max = half if size == "quick" else None  # quick: only the part the score reads
            err = incremental_errors(X, y, np.argsort(-imp, kind="stable"), classify, s["trees"], seed, k_max)
            curves[f"{name}: {meth}"] = [round(e, 3) for e in err]
            area[meth] = round(float(np.mean(err[:half])), 3)
        best = min(area.values())
        mine = area["AGP-SV (OAK global)"]
        ok = mine <= best * 1.05 + 1e-9
        rows.append(
            Row(
                f"{name}: mean RF error over the first {half} features added",
                "AGP-SV lowest or level with the best (Fig. 2)",
                area,
                "reproduced" if ok else "differs",
                "" if ok else f"AGP-SV {mine} against the best {best}",
            )
        )
    return Result(
        rows,
        {**{k: v for k, v in s.items() if k in ("rows", "order", "max_iter", "trees")}, "curves": curves},
        [seed],
        notes="Error = 1 - R^2 (regression) or the misclassification rate (modechoice), 3-fold CV, random forest"
        f" with {s['trees']} trees (the paper: 500). OAK is a Gaussian-likelihood regressor in kexplain, so the"
        " binary modechoice target is regressed (the paper's code uses a Bernoulli likelihood). Stand-ins:"
        " modechoice's six numeric columns (ttme, invc, invt, gc, hinc, psize) predict 'choice'; Guerry's 18"
        " numeric columns predict Crime_pers (the paper names 17 features and no target).",
    )


@functools.lru_cache(maxsize=4)
def removal(size: str, seed: int) -> dict[str, Any]:
    """Per data set: the mean |f(x) - f(x with the least important features at their means)| and timings."""
    s = real_sizes(size)
    out: dict[str, Any] = {}
    for name in REAL:
        X, y, names, classify, oak, fit_s = real_fit(name, size, seed)
        rng = np.random.default_rng(seed)
        Xe = X[rng.choice(len(X), min(s["explained"], len(X)), replace=False)]
        vals, secs = {}, {}
        t0 = time.perf_counter()
        vals["AGP-SV"] = oak.explain(Xe).values
        secs["AGP-SV"] = time.perf_counter() - t0
        if s["shap"]:
            shap = require("shap")
            bg = shap.kmeans(X, 10)
            t0 = time.perf_counter()
            vals["Kernel SHAP"] = np.asarray(
                shap.KernelExplainer(oak.predict, bg).shap_values(Xe, nsamples=2 * X.shape[1] + 512, silent=True)
            )
            secs["Kernel SHAP"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            vals["Sampling SHAP"] = np.asarray(
                shap.SamplingExplainer(oak.predict, X[:50]).shap_values(Xe, nsamples=1000, silent=True)
            )
            secs["Sampling SHAP"] = time.perf_counter() - t0
        vals["random order"] = rng.standard_normal(vals["AGP-SV"].shape)
        base = X.mean(axis=0)
        f0 = oak.predict(Xe)
        d = X.shape[1]
        steps = list(range(1, int(np.floor(0.6 * d)) + 1))
        impact = {}
        for meth, v in vals.items():
            per_step = []
            for k in steps:
                Xr = Xe.copy()
                for i in range(len(Xe)):
                    drop = np.argsort(np.abs(v[i]), kind="stable")[:k]
                    Xr[i, drop] = base[drop]
                per_step.append(float(np.mean(np.abs(oak.predict(Xr) - f0))))
            impact[meth] = per_step
        out[name] = {"impact": impact, "seconds": secs, "fit seconds": fit_s, "steps": steps}
    return out


def run_fig4(size: str, seed: int) -> Result:
    res = removal(size, seed)
    rows = []
    for name, r in res.items():
        score = {m: round(float(np.mean(np.log(np.asarray(v) + 1e-12))), 3) for m, v in r["impact"].items()}
        best = min(score.values())
        ok = score["AGP-SV"] <= best + 0.05
        rows.append(
            Row(
                f"{name}: mean log |change of the OAK prediction| removing up to 60% of the features",
                "AGP-SV lowest or level with the best (Fig. 4)",
                score,
                "reproduced" if ok else "differs",
                "" if ok else "another explainer's least-important features change the prediction less",
            )
        )
    s = real_sizes(size)
    return Result(
        rows,
        {
            "explained points": s["explained"],
            "order": s["order"],
            "max_iter": s["max_iter"],
            "impact per step": {k: v["impact"] for k, v in res.items()},
        },
        [seed],
        notes="Removed features are set to their training means, the least important (smallest |value| for the"
        " point) first. The paper explains 100 points and also shows LIME and Bivariate SHAP (neither is"
        " installed here; Unbiased SHAP and MAPLE it leaves out itself); we explain the number in settings.",
    )


def run_fig5(size: str, seed: int) -> Result:
    res = removal(size, seed)
    rows = []
    for name, r in res.items():
        secs = {k: round(v, 4) for k, v in r["seconds"].items()}
        others = [v for k, v in secs.items() if k != "AGP-SV"]
        ok = not others or secs["AGP-SV"] < min(others)
        rows.append(
            Row(
                f"{name}: seconds to explain the points",
                "AGP-SV much faster than Kernel/Sampling SHAP (Fig. 5)",
                secs,
                "reproduced" if ok else "differs",
                "" if ok else "a sampling explainer was faster",
            )
        )
    return Result(
        rows,
        {
            "explained points": real_sizes(size)["explained"],
            "OAK fit seconds": {k: round(v["fit seconds"], 1) for k, v in res.items()},
        },
        [seed],
        notes="Wall-clock on a shared 2-core machine; the fit is not included (as in the paper's Fig. 5).",
    )


EXPERIMENTS = [
    Experiment(
        "oak-fig1",
        PAPER,
        "Fig. 1",
        "Feature selection on synthetic sets 1-4 (mean rank of the true features)",
        "synthetic sets 1-4 (appendix B), d = 10",
        run=run_fig1,
        paper_setting="100 repetitions; AGP-SV, HSIC-Lasso, MI, F-ANOVA, Lasso, RFE",
    ),
    Experiment(
        "oak-fig1-fitting",
        PAPER,
        "Fig. 1 (fitting check)",
        "Issue #27: OAK's ranks on set 2 under restarts and input measures, against an RBF-ARD GP",
        "synthetic set 2",
        run=run_fitting,
        paper_setting="OAK package defaults (one start, Gaussian measure)",
    ),
    Experiment(
        "oak-fig2",
        PAPER,
        "Fig. 2",
        "Feature selection on real data: random-forest error as ranked features are added",
        "diabetes, modechoice, Guerry",
        run=run_fig2,
        paper_setting="RF with 500 trees; also wine quality",
    ),
    Experiment(
        "oak-fig2-wine",
        PAPER,
        "Fig. 2 (wine quality)",
        "Feature selection on the red wine quality data",
        "UCI wine quality (red)",
        blocked="the UCI red wine-quality data (1,599 x 11) ships in no installed package (scikit-learn's wine is"
        " a different 178-row classification set)",
    ),
    Experiment(
        "oak-fig3",
        PAPER,
        "Fig. 3",
        "Local explanations on synthetic sets 1-4 (mean rank of the true features)",
        "synthetic sets 1-4 (appendix B), d = 10",
        run=run_fig3,
        paper_setting="100 explained points; Kernel, Sampling, Unbiased, Bivariate SHAP, LIME, MAPLE",
    ),
    Experiment(
        "oak-fig4",
        PAPER,
        "Fig. 4",
        "Feature removal: change of the OAK prediction as the least important go",
        "diabetes, modechoice, Guerry",
        run=run_fig4,
        paper_setting="100 points, up to 60% of the features",
    ),
    Experiment(
        "oak-fig5",
        PAPER,
        "Fig. 5",
        "Execution time of the local explainers",
        "diabetes, modechoice, Guerry",
        run=run_fig5,
        paper_setting="100 points",
    ),
]

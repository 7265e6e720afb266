"""
Interactions of order 3 of an SVC on the breast-cancer data, in shapiq's network plot
=====================================================================================

An RBF SVC (in a pipeline with a scaler) on scikit-learn's breast-cancer data, 30 features.  For
one patient, ``ProductKernelExplainer(...).explain(x, interactions={"index": "k-SII",
"max_order": 3, "top_k": 10})`` gives the exact k-SII values of every order up to 3 (4,525 sets
in all) and keeps the ten largest of each order; their sum over all sets is the decision function
minus the base value, checked before the selection.  The same values of order up to 2 then go to
shapiq's network plot unchanged (``to_shapiq``), and the exact values are compared with shapiq's
KernelSHAP-IQ estimate at a budget of 2,000 game evaluations (``kexplain.ProductShapiqGame``).

Run with ``--quick`` (or ``KEXPLAIN_QUICK=1``) for four background rows instead of twenty.
Needs shapiq (the ``shapiq`` extra) and matplotlib.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

import kexplain as kx


def main(quick: bool) -> None:
    import shapiq

    data = load_breast_cancer()
    X, y = data.data, data.target
    names = list(data.feature_names)
    model = make_pipeline(StandardScaler(), SVC(gamma=0.01)).fit(X, y)
    explainer = kx.ProductKernelExplainer(model, background=X[: 4 if quick else 20], feature_names=names)

    t0 = time.perf_counter()
    ex = explainer.explain(X[20:21], interactions={"index": "k-SII", "max_order": 3, "top_k": 10})
    print(
        f"k-SII up to order 3 for one patient: {time.perf_counter() - t0:.2f} s, "
        f"efficiency error {ex.efficiency_error():.1e}"
    )
    for order in (1, 2, 3):
        print(f"largest of order {order}:")
        for features, value in ex.top(0, n=3, order=order):
            print(f"    {value:+.4f}  {' x '.join(features)}")

    pairs = explainer.explain(X[20:21], interactions={"index": "k-SII", "max_order": 2})
    iv = pairs.to_shapiq(0)
    shapiq.network_plot(iv, feature_names=[n.replace(" ", "\n") for n in names])
    plt.title("exact 2-SII, one patient (kexplain -> shapiq)")

    game = kx.ProductShapiqGame.from_explainer(explainer, X[20])
    exact = game.exact_values("k-SII", 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        estimate = shapiq.KernelSHAPIQ(n=30, max_order=2, index="k-SII", random_state=0).approximate(2000, game)
    keys = [T for T in exact.interaction_lookup if T]
    err = np.array([estimate[T] - exact[T] for T in keys])
    scale = max(abs(exact[T]) for T in keys)
    print(
        f"KernelSHAP-IQ at 2,000 evaluations: largest error {np.abs(err).max():.2e} "
        f"({np.abs(err).max() / scale:.1%} of the largest value)"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--quick", action="store_true")
    args, _ = parser.parse_known_args()
    main(args.quick or os.environ.get("KEXPLAIN_QUICK") == "1")

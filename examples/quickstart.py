"""
Quick start: exact Shapley values of an RBF SVR
===============================================

Fit a standardised RBF support-vector regressor on scikit-learn's diabetes data and explain its
held-out predictions exactly, in two games: the functional baseline of PKeX-Shapley (Mohammadi,
Chau & Muandet, 2025), where an absent feature is integrated out of the kernel, and the
interventional game over 100 training rows, which is what shap's ``ExactExplainer`` with an
independent masker on the same rows computes.  The background is given when the explainer is
built, so the kernel tables of the support vectors against it are computed once::

    python examples/quickstart.py            # prints values and draws the comparison chart
    python examples/quickstart.py --plots    # also saves shap's beeswarm and the chart as PNG
    python examples/quickstart.py --quick    # fewer rows (also: KEXPLAIN_QUICK=1)

The same from the shell, on saved files::

    kexplain explain --model model.skops --data rows.csv --background train.csv --out values.csv
"""

import argparse
import os

from sklearn.datasets import load_diabetes
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVR

import kexplain as kx


def main(plots: bool = False, quick: bool = False) -> None:
    """Fit, explain in two games, check efficiency, print and draw the global importance."""
    X, y = load_diabetes(return_X_y=True, as_frame=True)
    X_train, X_test, y_train, _ = train_test_split(X, y, test_size=0.2, random_state=0)
    n_background = 30 if quick else 100
    if quick:
        X_test = X_test.iloc[:20]
    model = make_pipeline(StandardScaler(), SVR(C=30.0, gamma=0.03)).fit(X_train, y_train)

    # PKeX functional baseline: no background
    functional = kx.ProductKernelExplainer(model).explain(X_test)
    # exact interventional SHAP over the background rows, given at construction
    explainer = kx.ProductKernelExplainer(model, X_train.iloc[:n_background])
    interventional = explainer.explain(X_test)
    print(f"explained output: {interventional.output}; games: {functional.game}, {interventional.game}")

    # efficiency: values + base value reproduce the model's predictions exactly
    err = abs(interventional.predictions - model.predict(X_test)).max()
    print(f"max |sum(values) + base - prediction| = {err:.1e}")
    print(interventional.to_frame().head())
    print("global importance (mean |value|), interventional:")
    print(interventional.to_frame().drop(columns="base_value").abs().mean().sort_values(ascending=False))

    # %%
    # The two games split the same predictions differently: compare the global importance.
    ax = kx.plots.compare_importance({"functional": functional, "interventional": interventional})
    if plots:
        import matplotlib.pyplot as plt
        import shap

        ax.figure.savefig("quickstart_games.png", bbox_inches="tight")
        plt.figure()
        shap.plots.beeswarm(interventional.to_shap(), show=False)
        plt.savefig("quickstart_beeswarm.png", bbox_inches="tight")
        print("wrote quickstart_beeswarm.png and quickstart_games.png")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Exact Shapley values of an RBF SVR, in two games.")
    parser.add_argument("--plots", action="store_true", help="save a beeswarm and a game-comparison PNG")
    parser.add_argument("--quick", action="store_true", help="fewer rows (also: KEXPLAIN_QUICK=1)")
    args, _ = parser.parse_known_args()
    main(args.plots, quick=args.quick or os.environ.get("KEXPLAIN_QUICK") == "1")

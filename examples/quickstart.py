"""Quick start: exact Shapley values of a scikit-learn RBF SVR, in two games.

    python examples/quickstart.py            # prints values; add --plots to save shap plots as PNG

The same from the shell, on saved files:

    kexplain explain --model model.joblib --data rows.csv --background train.csv --out values.csv
"""
import argparse

from sklearn.datasets import load_diabetes
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVR

import kexplain as kx


def main(plots: bool = False):
    X, y = load_diabetes(return_X_y=True, as_frame=True)
    X_train, X_test, y_train, _ = train_test_split(X, y, test_size=0.2, random_state=0)
    model = make_pipeline(StandardScaler(), SVR(C=30.0, gamma=0.03)).fit(X_train, y_train)

    explainer = kx.ProductKernelExplainer(model)
    functional = explainer.explain(X_test)                                   # PKeX functional baseline
    interventional = explainer.explain(X_test, background=X_train.iloc[:100])  # exact interventional SHAP

    # efficiency: values + base value reproduce the model's predictions exactly
    err = abs(interventional.predictions - model.predict(X_test)).max()
    print(f"max |sum(values) + base - prediction| = {err:.1e}")
    print(interventional.to_frame().head())
    print("global importance (mean |value|), interventional:")
    print(interventional.to_frame().drop(columns="base_value").abs().mean().sort_values(ascending=False))

    if plots:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import shap

        shap.plots.beeswarm(interventional.to_shap(), show=False)
        plt.savefig("quickstart_beeswarm.png", bbox_inches="tight")
        plt.close("all")
        ax = kx.plots.compare_importance({"functional": functional, "interventional": interventional})
        ax.figure.savefig("quickstart_games.png", bbox_inches="tight")
        print("wrote quickstart_beeswarm.png and quickstart_games.png")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plots", action="store_true", help="save a beeswarm and a game-comparison PNG")
    main(parser.parse_args().plots)

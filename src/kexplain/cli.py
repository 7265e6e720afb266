"""The ``kexplain`` command line.

    kexplain explain --model M.joblib --data X.csv [--background B.csv] [--baseline-row K]
                     [--interactions] [--layout wide|long] --out values.csv
    kexplain demo [--out DIR] [--quick]
    kexplain --version

Which game ``explain`` solves follows from the options (no ``--game`` needed):

- neither ``--background`` nor ``--baseline-row``: the functional-baseline game (PKeX);
- ``--background B``: exact interventional SHAP over all rows of B;
- ``--baseline-row K``: baseline Shapley against row K (0-based) of the background file when one
  is given, else of the data file.

Files are CSV (``.csv``, ``.csv.gz``) or Parquet (``.parquet``, ``.pq``), chosen by extension.  A CSV
whose first line is all numbers is read as having no header; otherwise the header holds the
feature names and, when the model was fitted on a DataFrame, it must equal the model's
``feature_names_in_`` (same names, same order).

Output layout (``--out``):

- ``wide`` (default): one row per explained row, in order; one column per feature and a
  ``base_value`` column, so ``sum(features) + base_value`` is the model output.  With several
  outputs (multiclass SVC: one output per one-vs-one class pair, named like ``"0 vs 1"``) the
  columns are ``"<output>/<feature>"`` and ``"<output>/base_value"``.
- ``long``: columns ``row, output, feature, value, base_value``.

``--interactions`` also writes pairwise Shapley interaction values (shap's convention: the d x d
matrix of a row sums along each row to that feature's Shapley value; the diagonal is the main
effect) in long format to ``--interactions-out`` (default: ``<out stem>.interactions<ext>``),
columns ``row, output, feature_1, feature_2, value``.

Errors in the input (missing or unreadable file, unsupported or unfitted model, wrong columns, NaN)
print one line ``kexplain: error: ...`` on stderr and exit with status 2.
"""
from __future__ import annotations

import argparse
import csv
import gzip
import sys
import time
from pathlib import Path

import numpy as np

from ._optional import require

_CSV_SUFFIXES = (".csv", ".csv.gz")
_PARQUET_SUFFIXES = (".parquet", ".pq")


class CLIError(Exception):
    """An input problem reported as one line on stderr, exit status 2."""


class DemoFailure(Exception):
    """The demo's own check failed (exit status 1)."""


# ---------------------------------------------------------------------------------------------
# files
# ---------------------------------------------------------------------------------------------
def _kind(path: Path, option: str) -> str:
    name = path.name.lower()
    if name.endswith(_CSV_SUFFIXES):
        return "csv"
    if name.endswith(_PARQUET_SUFFIXES):
        return "parquet"
    raise CLIError(f"{option} {path}: unknown file type; use .csv, .csv.gz, .parquet or .pq.")


def _csv_has_header(path: Path) -> bool:
    opener = gzip.open if path.name.lower().endswith(".gz") else open
    with opener(path, "rt", newline="") as fh:
        first = next(csv.reader(fh), None)
    if not first:
        return True
    for field in first:
        try:
            float(field)
        except ValueError:
            return True
    return False


def read_table(path, option: str = "--data"):
    """Read a CSV or Parquet file into a DataFrame; a headerless CSV gets integer column labels."""
    path = Path(path)
    kind = _kind(path, option)
    if not path.is_file():
        raise CLIError(f"{option} {path}: file not found.")
    pd = require("pandas", "reading CSV and Parquet files")
    try:
        if kind == "parquet":
            require("pyarrow", "reading Parquet files")
            return pd.read_parquet(path)
        header = 0 if _csv_has_header(path) else None
        return pd.read_csv(path, header=header)
    except ImportError:
        raise
    except Exception as exc:  # pandas raises many types for malformed files
        raise CLIError(f"{option} {path}: cannot read it as {kind.upper()}: {exc}") from None


def write_table(frame, path, option: str = "--out") -> Path:
    path = Path(path)
    kind = _kind(path, option)
    if path.parent and not path.parent.exists():
        raise CLIError(f"{option} {path}: folder {path.parent} does not exist.")
    if kind == "parquet":
        require("pyarrow", "writing Parquet files")
        frame.to_parquet(path, index=False)
    else:
        # pandas writes floats with repr, so values round-trip exactly
        frame.to_csv(path, index=False)
    return path


def load_model(path):
    path = Path(path)
    if not path.is_file():
        raise CLIError(f"--model {path}: file not found.")
    import joblib

    try:
        return joblib.load(path)
    except Exception as exc:  # unpickling can fail in many ways; all mean "not a usable model file"
        raise CLIError(f"--model {path}: cannot load a model from it ({type(exc).__name__}: {exc}).") from None


# ---------------------------------------------------------------------------------------------
# values -> tables
# ---------------------------------------------------------------------------------------------
def values_frame(explanation, layout: str = "wide"):
    """The table ``kexplain explain`` writes (see the module docstring for the layouts)."""
    pd = require("pandas", "writing Shapley values")
    ex = explanation
    vals = ex.values if ex.values.ndim == 3 else ex.values[:, :, None]
    base = ex.base_values if ex.base_values.ndim == 2 else ex.base_values[:, None]
    names, outs = list(ex.feature_names), list(ex.output_names)
    N, d, n_out = vals.shape
    if layout == "wide":
        cols = {}
        for o, out in enumerate(outs):
            prefix = "" if n_out == 1 else f"{out}/"
            for j, name in enumerate(names):
                cols[f"{prefix}{name}"] = vals[:, j, o]
            cols[f"{prefix}base_value"] = base[:, o]
        if len(cols) != n_out * (d + 1):
            raise CLIError("feature names are not unique (or one is 'base_value'); cannot write a wide table.")
        return pd.DataFrame(cols)
    if layout == "long":
        return pd.DataFrame({
            "row": np.repeat(np.arange(N), n_out * d),
            "output": np.tile(np.repeat(np.asarray(outs, dtype=object), d), N),
            "feature": np.tile(np.asarray(names, dtype=object), N * n_out),
            "value": vals.transpose(0, 2, 1).reshape(-1),
            "base_value": np.repeat(base.reshape(-1), d),
        })
    raise CLIError(f"--layout must be 'wide' or 'long', got {layout!r}.")


def interactions_frame(explanation):
    """Long table of interaction values: row, output, feature_1, feature_2, value."""
    pd = require("pandas", "writing interaction values")
    inter = explanation.interactions
    if inter is None:
        raise ValueError("this explanation has no interaction values (explain with interactions=True).")
    inter = inter if inter.ndim == 4 else inter[..., None]
    N, d, _, n_out = inter.shape
    names = np.asarray(explanation.feature_names, dtype=object)
    return pd.DataFrame({
        "row": np.repeat(np.arange(N), n_out * d * d),
        "output": np.tile(np.repeat(np.asarray(explanation.output_names, dtype=object), d * d), N),
        "feature_1": np.tile(np.repeat(names, d), N * n_out),
        "feature_2": np.tile(names, N * n_out * d),
        "value": inter.transpose(0, 3, 1, 2).reshape(-1),
    })


def _default_interactions_path(out: Path) -> Path:
    name = out.name
    for suffix in _CSV_SUFFIXES + _PARQUET_SUFFIXES:
        if name.lower().endswith(suffix):
            return out.with_name(name[: -len(suffix)] + ".interactions" + name[-len(suffix):])
    return out.with_name(name + ".interactions.csv")


# ---------------------------------------------------------------------------------------------
# kexplain explain
# ---------------------------------------------------------------------------------------------
def _feature_table(frame, path, option, model_names, n_features):
    """Check a read table against the model and return (DataFrame-or-array, header names or None)."""
    header = None if all(isinstance(c, (int, np.integer)) for c in frame.columns) else [str(c) for c in frame.columns]
    if frame.shape[1] != n_features:
        hint = ""
        if header is not None and header[0].startswith("Unnamed: 0"):
            hint = " (the first column looks like a saved pandas index: write the file with index=False)"
        raise CLIError(f"{option} {path}: has {frame.shape[1]} columns, but the model expects {n_features} "
                       f"features{hint}.")
    if header is not None and model_names is not None and header != list(model_names):
        missing = [n for n in model_names if n not in header]
        extra = [n for n in header if n not in model_names]
        if not missing and not extra:
            raise CLIError(f"{option} {path}: columns are in a different order than the model's features "
                           f"{list(model_names)}.")
        raise CLIError(f"{option} {path}: columns differ from the model's features; missing {missing}, "
                       f"unexpected {extra}.")
    return frame.to_numpy(), header


def _explain(args) -> int:
    from .explainers import ProductKernelExplainer
    from .models.sklearn import as_kernel_expansion, model_output

    out = Path(args.out)
    _kind(out, "--out")
    inter_out = None
    if args.interactions:
        inter_out = Path(args.interactions_out) if args.interactions_out else _default_interactions_path(out)
        _kind(inter_out, "--interactions-out")
    elif args.interactions_out:
        raise CLIError("--interactions-out needs --interactions.")

    model = load_model(args.model)
    expansion = as_kernel_expansion(model)
    model_names = expansion.feature_names
    d = expansion.n_features

    data, header = _feature_table(read_table(args.data, "--data"), args.data, "--data", model_names, d)
    names = model_names or header or [f"x{j}" for j in range(d)]
    X = expansion.check_input(data, name=f"--data {args.data}")

    background = baseline = None
    if args.background is not None:
        bframe, bheader = _feature_table(read_table(args.background, "--background"), args.background,
                                         "--background", model_names or header, d)
        background = expansion.check_input(bframe, name=f"--background {args.background}")
    if args.baseline_row is not None:
        source, option = (background, "--background") if background is not None else (X, "--data")
        k = args.baseline_row
        if not 0 <= k < source.shape[0]:
            raise CLIError(f"--baseline-row {k}: must be a row number from 0 to {source.shape[0] - 1} of the "
                           f"{option} file.")
        baseline, background = source[k], None
        game = f"baseline Shapley at row {k} of {option}"
    elif background is not None:
        game = f"interventional over {background.shape[0]} background rows"
    else:
        game = "functional baseline"

    explainer = ProductKernelExplainer(expansion, feature_names=names)
    progress = bool(args.progress or sys.stdout.isatty())
    t0 = time.perf_counter()
    ex = explainer.explain(X, background=background, baseline=baseline, interactions=args.interactions,
                           progress=progress)
    seconds = time.perf_counter() - t0

    write_table(values_frame(ex, args.layout), out)
    msg = f"kexplain: {X.shape[0]} rows x {d} features, {game}, {seconds:.2f} s; values -> {out}"
    if inter_out is not None:
        write_table(interactions_frame(ex), inter_out, "--interactions-out")
        msg += f"; interactions -> {inter_out}"
    print(msg)

    # efficiency against the model itself: a cheap end-to-end check of the adapter
    try:
        Xm = X
        if getattr(model, "feature_names_in_", None) is not None:
            Xm = require("pandas", "").DataFrame(X, columns=list(model.feature_names_in_))
        pred = expansion.predict(X) if model is expansion else np.asarray(model_output(model, Xm), dtype=float)
    except Exception:  # e.g. GaussianProcessClassifier exposes no latent mean to compare with
        pred = None
    if pred is not None:
        pred = pred.reshape(ex.predictions.shape)
        err = float(np.max(np.abs(ex.predictions - pred)))
        rel = err / max(1.0, float(np.max(np.abs(pred))))
        print(f"kexplain: efficiency check: max |sum(values) + base_value - model output| = {err:.2e}"
              + ("" if rel <= 1e-8 else "  WARNING: larger than expected"))
    return 0


# ---------------------------------------------------------------------------------------------
# kexplain demo
# ---------------------------------------------------------------------------------------------
def _save_shap_plot(draw, path: Path) -> Path:
    import matplotlib.pyplot as plt

    plt.close("all")
    draw()
    fig = plt.gcf()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close("all")
    return path


def run_demo(out="kexplain-demo", quick: bool = False, n_background: int = 100, random_state: int = 0,
             verbose: bool = True) -> dict:
    """Fit a standardised RBF SVR on scikit-learn's diabetes data, explain held-out rows exactly in
    the functional-baseline and the interventional game, check efficiency, and write values, plots
    and an HTML report to ``out``.  Returns a dict of the numbers it printed.

    ``quick=True`` uses a smaller grid and fewer points (for tests).
    """
    import matplotlib

    matplotlib.use("Agg")  # files only, never a window
    import joblib
    from sklearn.datasets import load_diabetes
    from sklearn.model_selection import GridSearchCV, train_test_split
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVR

    from . import __version__, report
    from .explainers import ProductKernelExplainer

    shap = require("shap", "kexplain demo plots")
    say = print if verbose else (lambda *a, **k: None)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    timings = {}
    t_start = time.perf_counter()

    X, y = load_diabetes(return_X_y=True, as_frame=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=random_state)
    if quick:
        X_test, y_test = X_test.iloc[:20], y_test.iloc[:20]
        n_background = min(n_background, 30)
    grid = ({"svr__C": [30.0, 100.0], "svr__gamma": [0.03]} if quick
            else {"svr__C": [10.0, 30.0, 100.0, 300.0], "svr__gamma": [0.01, 0.03, 0.1]})
    cv = 3 if quick else 5
    t0 = time.perf_counter()
    search = GridSearchCV(Pipeline([("scale", StandardScaler()), ("svr", SVR(kernel="rbf"))]), grid, cv=cv)
    search.fit(X_train, y_train)
    model = search.best_estimator_
    timings["fit (grid search, cv)"] = time.perf_counter() - t0
    svr = model.named_steps["svr"]
    test_r2 = float(model.score(X_test, y_test))
    say(f"model: StandardScaler + SVR(rbf, C={svr.C:g}, gamma={svr.gamma:g}), {len(svr.support_)} support "
        f"vectors; {cv}-fold CV R^2 = {search.best_score_:.3f}, held-out R^2 = {test_r2:.3f} "
        f"({timings['fit (grid search, cv)']:.2f} s)")

    rng = np.random.default_rng(random_state)
    bg_rows = np.sort(rng.choice(len(X_train), size=min(n_background, len(X_train)), replace=False))
    background = X_train.iloc[bg_rows]
    explainer = ProductKernelExplainer(model)
    t0 = time.perf_counter()
    ex_f = explainer.explain(X_test)
    timings["explain, functional baseline"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    ex_i = explainer.explain(X_test, background=background)
    timings["explain, interventional"] = time.perf_counter() - t0
    n_test = len(X_test)
    for label, ex in (("functional baseline", ex_f), ("interventional", ex_i)):
        key = "explain, " + label
        say(f"explained {n_test} held-out rows x {X.shape[1]} features exactly, {label}"
            + (f" ({len(background)} background rows)" if label == "interventional" else "")
            + f": {timings[key]:.3f} s ({1e3 * timings[key] / n_test:.2f} ms per row)")

    pred = model.predict(X_test)
    errors = report.efficiency_errors({"functional": ex_f, "interventional": ex_i}, pred)
    for label, (err, rel) in errors.items():
        say(f"efficiency ({label}): max |sum(values) + base_value - prediction| = {err:.2e} (relative {rel:.2e})")
    worst = max(rel for _, rel in errors.values())
    if not worst <= 1e-8:
        raise DemoFailure(f"efficiency check failed: relative error {worst:.3e} > 1e-8; the values are wrong.")

    # files: values, the data to reproduce them with `kexplain explain`, and the model
    t0 = time.perf_counter()
    files = {
        "values_functional.csv": values_frame(ex_f),
        "values_interventional.csv": values_frame(ex_i),
        "heldout.csv": X_test.reset_index(drop=True),
        "background.csv": background.reset_index(drop=True),
    }
    for name, frame in files.items():
        write_table(frame, out / name)
    joblib.dump(model, out / "model.joblib")

    import matplotlib.pyplot as plt

    from .plots import compare_importance

    images = {}
    for tag, ex in (("interventional", ex_i), ("functional", ex_f)):
        sh = ex.to_shap()
        images[f"bar plot ({tag})"] = _save_shap_plot(lambda: shap.plots.bar(sh, show=False),
                                                      out / f"bar_{tag}.png")
        images[f"beeswarm plot ({tag})"] = _save_shap_plot(lambda: shap.plots.beeswarm(sh, show=False),
                                                           out / f"beeswarm_{tag}.png")
        images[f"waterfall plot of held-out row 0 ({tag})"] = _save_shap_plot(
            lambda: shap.plots.waterfall(sh[0], show=False), out / f"waterfall_{tag}.png")
    plt.close("all")
    ax = compare_importance({"functional": ex_f, "interventional": ex_i})
    ax.figure.savefig(out / "importance_comparison.png", dpi=110, bbox_inches="tight")
    plt.close("all")
    timings["write values and plots"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    summary = {
        "data": f"scikit-learn diabetes: {len(X_train)} training rows, {n_test} held-out rows explained, "
                f"{X.shape[1]} features",
        "model": "Pipeline(StandardScaler, SVR(kernel='rbf'))",
        "C (chosen)": float(svr.C),
        "gamma (chosen)": float(svr.gamma),
        "grid": ", ".join(f"{k.split('__')[1]} in {v}" for k, v in grid.items()),
        "support vectors": int(len(svr.support_)),
        f"{cv}-fold CV R^2 (best)": float(search.best_score_),
        "held-out R^2": test_r2,
        "background (interventional)": f"{len(background)} training rows, sampled with random_state={random_state}",
    }
    notes = [
        "Values are exact Shapley values (no sampling); both games explain the same predictions, so their "
        "rows sum to the same outputs and differ only in how the base value and the credit are split.",
        "The functional baseline credits a feature for how its kernel factors shape the prediction, "
        "measured from the value with that feature integrated out of the kernel (base value = sum of the "
        "coefficients + intercept); shap's waterfall labels that base value E[f(X)] although it is not a mean "
        "prediction here.  A feature can matter a lot in this game and little in the interventional one, "
        "where absent features take values seen in the data.",
        f"Reproduce the interventional values from the files in this folder: kexplain explain --model "
        f"model.joblib --data heldout.csv --background background.csv --out values.csv",
    ]
    timings_shown = dict(timings)
    report_path = report.write_html(
        out / "report.html",
        {"functional": ex_f, "interventional": ex_i},
        title="kexplain demo: exact Shapley values of an RBF SVR on the diabetes data",
        summary=summary,
        timings=timings_shown,
        predictions=pred,
        images=images,
        notes=notes,
    )
    timings["report"] = time.perf_counter() - t0
    total = time.perf_counter() - t_start

    names, _, mat = report.importance_table({"functional": ex_f, "interventional": ex_i})
    say("global importance (mean |value|):   functional   interventional")
    for n, row in list(zip(names, mat))[:5]:
        say(f"  {n:<32s} {row[0]:12.3f} {row[1]:16.3f}")
    say("timings: " + ", ".join(f"{k} {v:.2f} s" for k, v in timings.items()) + f"; total {total:.1f} s")
    say(f"wrote {report_path} and {len(files) + len(images) + 2} other files to {out}/ (kexplain {__version__})")
    return {
        "out": out,
        "report": report_path,
        "cv_r2": float(search.best_score_),
        "test_r2": test_r2,
        "efficiency": errors,
        "timings": timings,
        "total_seconds": total,
    }


def _demo(args) -> int:
    run_demo(args.out, quick=args.quick, n_background=args.background_rows)
    return 0


# ---------------------------------------------------------------------------------------------
# entry point
# ---------------------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = argparse.ArgumentParser(
        prog="kexplain",
        description="Exact Shapley values for kernel models (SVR, SVC, KernelRidge, Gaussian processes).",
    )
    parser.add_argument("--version", action="version", version=f"kexplain {__version__}")
    parser.add_argument("--traceback", action="store_true",
                        help="on an error, show the full Python traceback instead of one line")
    sub = parser.add_subparsers(dest="command", metavar="{explain,demo}")
    sub.required = True

    p = sub.add_parser(
        "explain",
        help="exact Shapley values of a saved model on a data file",
        description="Exact Shapley values of a saved (joblib) model. Game: functional baseline by default, "
                    "interventional with --background, baseline Shapley with --baseline-row.",
    )
    p.add_argument("--model", required=True, help="fitted model saved with joblib.dump (.joblib or .pkl)")
    p.add_argument("--data", required=True, help="rows to explain (.csv, .csv.gz, .parquet, .pq)")
    p.add_argument("--background", help="background rows: interventional game over all of them")
    p.add_argument("--baseline-row", type=int, metavar="K",
                   help="baseline Shapley against row K (0-based) of --background if given, else of --data")
    p.add_argument("--interactions", action="store_true", help="also write pairwise Shapley interaction values")
    p.add_argument("--interactions-out", help="where to write them (default: <out stem>.interactions<ext>)")
    p.add_argument("--layout", choices=("wide", "long"), default="wide",
                   help="wide: one column per feature (and output) plus base_value; long: one row per value")
    p.add_argument("--out", required=True, help="output file (.csv, .csv.gz, .parquet, .pq)")
    p.add_argument("--progress", action="store_true", help="show a progress bar (default: when on a terminal)")
    p.set_defaults(func=_explain)

    q = sub.add_parser("demo", help="fit and explain an RBF SVR on the diabetes data; write an HTML report",
                       description="Fit a standardised RBF SVR on scikit-learn's diabetes data, explain held-out "
                                   "rows exactly in two games, write values, plots and report.html.")
    q.add_argument("--out", default="kexplain-demo", help="output folder (default: kexplain-demo)")
    q.add_argument("--quick", action="store_true", help="smaller grid and fewer rows (seconds)")
    q.add_argument("--background-rows", type=int, default=100, help=argparse.SUPPRESS)
    q.set_defaults(func=_demo)
    return parser


def main(argv=None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 demo check failed, 2 bad input)."""
    from sklearn.exceptions import NotFittedError

    from .exceptions import UnsupportedModelError

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except DemoFailure as exc:
        if args.traceback:
            raise
        print(f"kexplain: demo failed: {exc}", file=sys.stderr)
        return 1
    except (CLIError, UnsupportedModelError, NotFittedError, ValueError, TypeError, OSError, ImportError) as exc:
        if args.traceback:
            raise
        message = " ".join(str(exc).split()) or type(exc).__name__
        print(f"kexplain: error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

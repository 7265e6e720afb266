"""The argument parser of the ``kexplain`` command: one sub-command per capability."""

from __future__ import annotations

import argparse

from ._common import add_common_options, add_model_options
from ._models import MODEL_WARNING

COMMANDS = ("explain", "report", "mmd", "hsic", "oak", "star", "demo")


def _interactions_option(p: argparse.ArgumentParser, text: str) -> None:
    """``--interactions [sii|stii]``: False when absent, "sii" when given without a value."""
    p.add_argument(
        "--interactions",
        nargs="?",
        const="sii",
        default=False,
        type=str.lower,
        choices=("sii", "stii"),
        metavar="{sii,stii}",
        help=text + ": sii (the default when no value is given) is the Shapley interaction index in the "
        "layout of shap's TreeExplainer (half the index off the diagonal, each row summing to the "
        "feature's value); stii is the Shapley-Taylor index of order 2, as shap's ExactExplainer",
    )


def _explain(sub: argparse._SubParsersAction) -> None:
    from ._explain import run_explain

    p = sub.add_parser(
        "explain",
        help="exact Shapley values of a saved kernel model on a data file",
        description="Exact Shapley values of a saved model (SVR, SVC, KernelRidge, Gaussian processes, pipelines "
        "with scalers). The game follows from the options: the functional baseline without --background, "
        "the interventional game (shap's values) with --background, baseline Shapley with --baseline-row "
        "(a row of --background when given, else of --data).",
        epilog=MODEL_WARNING,
    )
    add_model_options(p)
    p.add_argument("--data", required=True, help="rows to explain (.csv, .csv.gz, .parquet, .pq)")
    p.add_argument("--background", help="background rows: the interventional game over all of them")
    p.add_argument(
        "--baseline-row",
        type=int,
        metavar="K",
        help="baseline Shapley against row K (0-based) of --background when given, else of --data",
    )
    _interactions_option(p, "also write pairwise interaction values")
    p.add_argument("--interactions-out", help="where to write them (default: <out stem>.interactions<ext>)")
    p.add_argument(
        "--layout",
        choices=("wide", "long"),
        default=None,
        help="wide (default for one output): a column per feature plus base_value; long (default for several "
        "outputs): columns row, output, feature, value, base_value",
    )
    p.add_argument("--out", required=True, help="values file (.csv, .csv.gz, .parquet, .pq)")
    p.add_argument(
        "--chunk-size",
        type=int,
        metavar="N",
        help="read, explain and append N rows at a time (CSV files larger than memory; the same values to "
        "rounding, ~1e-13 relative)",
    )
    add_common_options(p)
    p.set_defaults(func=run_explain)


def _report(sub: argparse._SubParsersAction) -> None:
    from ._report import run_report

    p = sub.add_parser(
        "report",
        help="an HTML report of a saved model on a data file",
        description="Explain a saved model exactly and write DIR/index.html: which output and game (and why), "
        "efficiency check, timings, a speed comparison with shap's KernelExplainer, shap's plots, the two "
        "games compared, a searchable table of values.",
        epilog=MODEL_WARNING,
    )
    add_model_options(p)
    p.add_argument("--data", required=True, help="rows to explain (.csv, .csv.gz, .parquet, .pq)")
    p.add_argument("--background", help="background rows: the interventional game (else the functional baseline)")
    p.add_argument("--rows", default="0", help="rows (0-based positions, comma-separated) that get a waterfall plot")
    _interactions_option(p, "also compute interaction values and draw a heatmap")
    p.add_argument("--compare-rows", type=int, default=5, metavar="N", help="rows timed with shap's KernelExplainer")
    p.add_argument("--top", type=int, default=3, metavar="K", help="dependence plots for the K top features")
    p.add_argument("--title", help="page title")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (index.html, values.csv)")
    add_common_options(p)
    p.set_defaults(func=run_report)


def _stats(sub: argparse._SubParsersAction) -> None:
    from ._stats import run_hsic, run_mmd

    for name, run, estimator, text in (
        ("mmd", run_mmd, "unbiased", "MMD^2 between two samples, split exactly over the features"),
        ("hsic", run_hsic, "biased", "HSIC between two sets of variables, split exactly over them"),
    ):
        p = sub.add_parser(name, help=text, description=text + " (Shapley values of the statistic).")
        p.add_argument("--data", required=True, help="the data file (.csv, .csv.gz, .parquet, .pq)")
        if name == "mmd":
            p.add_argument("--other", help="the second sample: a file with the same columns")
            p.add_argument("--group-column", metavar="NAME", help="a column of --data with two groups (the samples)")
        else:
            p.add_argument("--x-columns", metavar="A,B", help="X's columns (default: all but Y's)")
            p.add_argument("--y-columns", metavar="C,D", help="Y's columns in --data")
            p.add_argument("--y", help="Y as a file with the same rows as --data")
            p.add_argument("--attribute", choices=("x", "y", "both"), default="x", help="which side is split")
        p.add_argument("--test", action="store_true", help="permutation test: p-values for the total and each feature")
        p.add_argument("--permutations", type=int, default=1000, help="permutations of --test (default 1000)")
        p.add_argument("--estimator", choices=("unbiased", "biased"), default=estimator, help=f"default {estimator}")
        p.add_argument(
            "--no-standardize",
            action="store_true",
            help="median-heuristic bandwidth on the raw features (default: each scaled to unit standard deviation)",
        )
        p.add_argument("--seed", type=int, default=0, help="seed of the permutations")
        p.add_argument("--out", help="write the attribution table to this file")
        add_common_options(p)
        p.set_defaults(func=run)


def _fit(sub: argparse._SubParsersAction) -> None:
    from ._fit import run_oak, run_star

    for name, run, text in (
        ("oak", run_oak, "fit an orthogonal additive GP: exact global (Sobol, Shapley) and local values"),
        ("star", run_star, "fit an RKHS Weighting STAR model: exact interventional values (STAR-SHAP)"),
    ):
        p = sub.add_parser(name, help=text, description=text + ".")
        p.add_argument("--data", required=True, help="training rows with a target column")
        p.add_argument("--target", required=True, metavar="NAME", help="the target column")
        p.add_argument("--background", help="background rows: the interventional game")
        p.add_argument("--max-order", type=int, default=2, help="highest interaction order (default 2)")
        if name == "oak":
            p.add_argument("--max-iter", type=int, default=100, help="optimiser iterations (default 100)")
        else:
            p.add_argument("--classify", action="store_true", help="a classifier (target = labels)")
            p.add_argument("--n-parameters", type=int, default=200, help="sampled parameters (default 200)")
            p.add_argument("--instantiation", choices=("relu", "sign", "stumps"), default="relu")
            p.add_argument("--background-rows", type=int, default=100, help="random rows as background (default 100)")
        p.add_argument("--seed", type=int, default=0, help="random seed")
        p.add_argument("--out", help="write the local Shapley values of every row here")
        p.add_argument("--save-model", metavar="FILE", help="save the fitted model (.skops or .joblib)")
        add_common_options(p)
        p.set_defaults(func=run)


def _demo(sub: argparse._SubParsersAction) -> None:
    from ._demo import run_demo_command

    q = sub.add_parser(
        "demo",
        help="fit and explain an RBF SVR on the diabetes data; write an HTML report",
        description="Fit a standardised RBF SVR on scikit-learn's diabetes data and run `kexplain report` on it: "
        "the model, data files and DIR/index.html.",
    )
    q.add_argument("--out", default="kexplain-demo", help="output folder (default: kexplain-demo)")
    q.add_argument("--quick", action="store_true", help="smaller grid and fewer rows (seconds)")
    q.add_argument("--force", action="store_true", help="replace the files of an earlier run in --out")
    q.add_argument("--format", choices=("text", "json"), default="text", help="json: one JSON summary on stdout")
    q.add_argument("--background-rows", type=int, default=100, help=argparse.SUPPRESS)
    q.set_defaults(func=run_demo_command)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``kexplain`` command.

    Returns
    -------
    argparse.ArgumentParser
        With one sub-command per capability (``explain``, ``report``, ``mmd``, ``hsic``, ``oak``,
        ``star``, ``demo``); ``args.func(args)`` runs the one parsed.

    Examples
    --------
    >>> from kexplain.cli._parser import build_parser
    >>> args = build_parser().parse_args(["explain", "--model", "m.skops", "--data", "X.csv",
    ...                                   "--out", "v.csv", "--layout", "long", "--id-column", "id"])
    >>> args.command, args.layout, args.background, args.id_column
    ('explain', 'long', None, 'id')
    """
    from .. import __version__

    parser = argparse.ArgumentParser(
        prog="kexplain",
        description="Exact Shapley values for kernel methods: explain saved models, write reports, split kernel "
        "statistics (MMD, HSIC) over features, fit and explain additive GPs (OAK) and STAR models.",
        epilog=MODEL_WARNING,
    )
    parser.add_argument("--version", action="version", version=f"kexplain {__version__}")
    parser.add_argument(
        "--traceback", action="store_true", help="on an error, show the full Python traceback instead of one line"
    )
    sub = parser.add_subparsers(dest="command", metavar="{" + ",".join(COMMANDS) + "}")
    sub.required = True
    for add in (_explain, _report, _stats, _fit, _demo):
        add(sub)
    return parser

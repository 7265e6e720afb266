"""The ``kexplain`` command line.

    kexplain explain --model M.joblib --data X.csv [--background B.csv] [--baseline-row K]
                     [--interactions] [--layout wide|long] --out values.csv [--force]
    kexplain demo [--out DIR] [--quick] [--force]
    kexplain --version

.. warning::
   A model file (joblib or pickle) is code: loading it runs whatever it was made to run, before
   kexplain can check what it holds.  Load only model files you trust.  The command line loads
   only the file given as ``--model``; it never looks for a model anywhere else (not in the
   working directory, not next to the data).

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

Existing output files are never replaced silently: ``explain`` refuses an ``--out`` or
``--interactions-out`` that exists, and ``demo`` an ``--out`` folder holding files it would write,
unless ``--force`` is given; ``--interactions-out`` may never be the ``--out`` file.  Output
paths are checked before any work, and tables are written to a temporary file renamed into
place, so a failed write leaves no partial file.

Errors in the input (missing or unreadable file, unsupported or unfitted model, wrong columns, NaN,
an output that exists, a full disk) print one line ``kexplain: error: ...`` on stderr naming the
option concerned (``--model``, ``--data``, ``--background``, ``--out``, ``--interactions-out``,
``demo --out``) and exit with status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ._demo import DemoFailure, run_demo
from ._explain import run_explain
from ._frames import interactions_frame, values_frame
from ._tables import (
    CLIError,
    check_output_path,
    load_model,
    os_error,
    read_table,
    write_table,
)

_MODEL_WARNING = (
    "WARNING: a model file (joblib/pickle) is code, and loading it runs code stored in it, before "
    "kexplain can check what it holds: load only model files you trust. Only the file given as "
    "--model is ever loaded."
)

__all__ = [
    "CLIError",
    "DemoFailure",
    "build_parser",
    "check_output_path",
    "interactions_frame",
    "load_model",
    "main",
    "os_error",
    "read_table",
    "run_demo",
    "run_explain",
    "values_frame",
    "write_table",
]


def _demo(args: argparse.Namespace) -> int:
    """Run ``kexplain demo`` on parsed arguments."""
    run_demo(args.out, quick=args.quick, n_background=args.background_rows, force=args.force)
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``kexplain`` command.

    Returns
    -------
    argparse.ArgumentParser
        With the sub-commands ``explain`` and ``demo``; ``args.func(args)`` runs the one parsed.

    Examples
    --------
    >>> from kexplain.cli import build_parser
    >>> args = build_parser().parse_args(["explain", "--model", "m.joblib", "--data", "X.csv",
    ...                                   "--out", "v.csv", "--layout", "long"])
    >>> args.command, args.layout, args.background
    ('explain', 'long', None)
    """
    from .. import __version__

    parser = argparse.ArgumentParser(
        prog="kexplain",
        description="Exact Shapley values for kernel models (SVR, SVC, KernelRidge, Gaussian processes).",
        epilog=_MODEL_WARNING,
    )
    parser.add_argument("--version", action="version", version=f"kexplain {__version__}")
    parser.add_argument(
        "--traceback", action="store_true", help="on an error, show the full Python traceback instead of one line"
    )
    sub = parser.add_subparsers(dest="command", metavar="{explain,demo}")
    sub.required = True

    p = sub.add_parser(
        "explain",
        help="exact Shapley values of a saved model on a data file",
        description="Exact Shapley values of a saved (joblib) model. Game: functional baseline by default, "
        "interventional with --background, baseline Shapley with --baseline-row.",
        epilog=_MODEL_WARNING,
    )
    p.add_argument(
        "--model",
        required=True,
        help="fitted model saved with joblib.dump (.joblib or .pkl); loading it runs code in it: only files you trust",
    )
    p.add_argument("--data", required=True, help="rows to explain (.csv, .csv.gz, .parquet, .pq)")
    p.add_argument("--background", help="background rows: interventional game over all of them")
    p.add_argument(
        "--baseline-row",
        type=int,
        metavar="K",
        help="baseline Shapley against row K (0-based) of --background if given, else of --data",
    )
    p.add_argument("--interactions", action="store_true", help="also write pairwise Shapley interaction values")
    p.add_argument("--interactions-out", help="where to write them (default: <out stem>.interactions<ext>)")
    p.add_argument(
        "--layout",
        choices=("wide", "long"),
        default="wide",
        help="wide: one column per feature (and output) plus base_value; long: one row per value",
    )
    p.add_argument(
        "--out", required=True, help="output file (.csv, .csv.gz, .parquet, .pq); never overwritten without --force"
    )
    p.add_argument("--force", action="store_true", help="replace --out and --interactions-out when they exist")
    p.add_argument("--progress", action="store_true", help="show a progress bar (default: when on a terminal)")
    p.set_defaults(func=run_explain)

    q = sub.add_parser(
        "demo",
        help="fit and explain an RBF SVR on the diabetes data; write an HTML report",
        description="Fit a standardised RBF SVR on scikit-learn's diabetes data, explain held-out "
        "rows exactly in two games, write values, plots and report.html.",
    )
    q.add_argument("--out", default="kexplain-demo", help="output folder (default: kexplain-demo)")
    q.add_argument("--quick", action="store_true", help="smaller grid and fewer rows (seconds)")
    q.add_argument("--force", action="store_true", help="replace the files of an earlier run in --out")
    q.add_argument("--background-rows", type=int, default=100, help=argparse.SUPPRESS)
    q.set_defaults(func=_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``kexplain`` command line.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments without the program name; default ``sys.argv[1:]``.

    Returns
    -------
    int
        The exit status: 0 done, 1 the demo's own check failed, 2 bad input (one line
        ``kexplain: error: ...`` on stderr; ``--traceback`` re-raises instead).

    Examples
    --------
    >>> from kexplain.cli import main
    >>> main(["explain", "--model", "missing.joblib", "--data", "X.csv", "--out", "v.csv"])
    2
    """
    from sklearn.exceptions import NotFittedError

    from ..exceptions import UnsupportedModelError

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.func(args)
        return status
    except DemoFailure as exc:
        if args.traceback:
            raise
        print(f"kexplain: demo failed: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # every known file operation names its option; this is the last resort
        if args.traceback:
            raise
        print(f"kexplain: error: {args.command}: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    except (CLIError, UnsupportedModelError, NotFittedError, ValueError, TypeError, ImportError) as exc:
        if args.traceback:
            raise
        message = " ".join(str(exc).split()) or type(exc).__name__
        print(f"kexplain: error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

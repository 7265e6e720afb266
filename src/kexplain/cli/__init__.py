"""The ``kexplain`` command line: one command per capability, for people and for scripts.

    kexplain explain --model M --data X.csv [--background B.csv] [--baseline-row K]
                     [--interactions [sii|stii]] [--layout wide|long] [--id-column ID]
                     [--chunk-size N] [--n-jobs N] [--format json] --out values.csv [--force]
    kexplain report  --model M --data X.csv [--background B.csv] [--rows 0,5,9]
                     [--interactions [sii|stii]] [--id-column ID] --out DIR
    kexplain mmd     --data X.csv (--other Z.csv | --group-column G) [--test] [--out att.csv]
    kexplain hsic    --data D.csv (--y-columns A,B | --y Y.csv) [--x-columns ...] [--test]
    kexplain oak     --data D.csv --target y [--background B.csv] [--out values.csv]
    kexplain star    --data D.csv --target y [--background B.csv] [--out values.csv]
    kexplain demo    [--out DIR] [--quick]

.. warning::
   A joblib or pickle model file is code: loading it runs whatever it was made to run, before
   kexplain can check what it holds.  Load only model files you trust: the command line refuses
   such a file unless ``--allow-pickle`` is given.  skops files
   (``.skops``, written with ``skops.io.dump``) are the safe format: they are loaded without
   running code, and only types that skops trusts (scikit-learn's estimators), scikit-learn's
   Gaussian-process kernels, kexplain's own types and those passed with ``--trust TYPE`` are
   built; any other type is refused by name.  The command line loads only the file given as
   ``--model``; it never looks for a model anywhere else.

Which game ``explain`` and ``report`` solve follows from the options, and both say which and why:

- neither ``--background`` nor ``--baseline-row``: the functional-baseline game (Mohammadi, Chau &
  Muandet, 2025, section 3.1);
- ``--background B``: exact interventional SHAP over all rows of B (shap's ExactExplainer
  values with an independent masker on B);
- ``--baseline-row K``: baseline Shapley against row K (0-based) of the background file when one
  is given, else of the data file (``explain`` only).

Files are CSV (``.csv``, ``.csv.gz``) or Parquet (``.parquet``, ``.pq``), chosen by extension.  A
CSV whose first line is all numbers is read as having no header.  Columns are matched to the
model's features by name when both have names (their order does not matter); a column that is not
a feature is named in the error, with the advice to pass it as ``--id-column`` (its values are
copied to every output as row ids) or ``--drop`` it.  ``--id-column`` and ``--drop`` exist on
every command and apply to every input file of the command (data, background, other sample, Y).

Output layout of ``explain`` (``--out``): ``wide`` (the default for one output) has one row per
explained row, the id column when given, one column per feature and ``base_value``; ``long`` (the
default, and the only layout, for several outputs) has columns ``row`` (or the id column),
``output, feature, value, base_value``: every name is a cell, so nothing needs splitting.
``--interactions`` also writes ``row, output, feature_1, feature_2, value`` to
``--interactions-out`` (default ``<out stem>.interactions<ext>``): with no value or ``sii``, the
Shapley interaction index in the layout of shap's ``TreeExplainer`` (off the diagonal half the
pair's index, each row summing to the feature's value); with ``stii``, the Shapley-Taylor index
of order 2 in the layout of shap's ``ExactExplainer``.  Rows are explained in blocks by
default, and CSV data and outputs are streamed (memory bounded by a block of about 64 MB); ``--chunk-size N`` reads,
explains and appends N rows at a time (CSV files larger than memory), with a progress bar on
stderr, and writes the same values as one pass to rounding (rows grouped into other blocks can
round a sum differently: a few units in the last place, at most about 1e-13 relative; likewise
``--n-jobs``).

Every command prints a few lines for people, or with ``--format json`` one JSON object on stdout.
Existing outputs, and symbolic links in their place, are never replaced without ``--force`` (a
link is then replaced, never written through); every file is written to a temporary file renamed
into place when complete (SIGTERM included), by one helper shared by all commands.  Errors in
the input print ONE line ``kexplain: error: ...`` on stderr naming
the option and column concerned, and exit with status 2 (``--traceback`` shows the traceback).
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from ._demo import DemoFailure
from ._parser import build_parser
from ._tables import CLIError

# the command line is the interface: the package exports its entry point only (the commands and their
# helpers are in the private modules)
__all__ = ["main"]


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


class Terminated(SystemExit):
    """SIGTERM received: raised in the main thread so that partial output files are removed."""


@contextlib.contextmanager
def _terminate_as_exception() -> Iterator[None]:
    """While a command runs, turn SIGTERM into :class:`Terminated` (exit status 143), so that the
    temporary files of unfinished outputs are removed on the way out instead of left behind."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        raise Terminated(128 + signum)

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


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
    import warnings

    from sklearn.exceptions import NotFittedError

    from ..exceptions import UnsupportedModelError

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with warnings.catch_warnings(), _terminate_as_exception():
            # a numba cache folder that cannot be written only costs a recompilation: not the user's concern
            warnings.filterwarnings("ignore", module="numba")
            warnings.filterwarnings("ignore", message=".*[Cc]annot cache.*")
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
        print(f"kexplain: error: {args.command}: {_one_line(exc)}", file=sys.stderr)
        return 2
    except (CLIError, UnsupportedModelError, NotFittedError, ValueError, TypeError, ImportError) as exc:
        if args.traceback:
            raise
        print(f"kexplain: error: {_one_line(exc)}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

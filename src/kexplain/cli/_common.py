"""What the commands share: common options, the summary they print, the game and why."""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..games import get_game
from ._columns import feature_table, strip_columns
from ._tables import CLIError, read_table


def add_model_options(p: argparse.ArgumentParser) -> None:
    """``--model`` and ``--trust``."""
    p.add_argument(
        "--model",
        required=True,
        help="fitted model: .skops (safe: loaded without running code); .joblib/.pkl only with --allow-pickle",
    )
    p.add_argument(
        "--allow-pickle",
        action="store_true",
        help="load a .joblib/.pkl model file, which RUNS CODE stored in it: only for files you trust "
        "(the safe alternative: save the model with skops.io.dump as .skops)",
    )
    p.add_argument(
        "--trust",
        action="append",
        default=[],
        metavar="TYPE",
        help="a further type (module.Class) a .skops file may hold; repeat for several",
    )


def add_common_options(p: argparse.ArgumentParser, *, id_column: bool = True, n_jobs: bool = True) -> None:
    """``--format``, ``--id-column``, ``--drop``, ``--n-jobs``, ``--progress`` and ``--force``.

    ``--id-column`` and ``--drop`` are spelled the same on every command and apply to every input
    file of the command (data, background, second sample, Y)."""
    p.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text: lines for people; json: one JSON object on stdout for scripts",
    )
    if id_column:
        p.add_argument(
            "--id-column",
            dest="id_column",
            metavar="NAME",
            help="a column of row ids in every input file (where present): not a feature; copied to the outputs",
        )
        p.add_argument(
            "--drop",
            dest="drop",
            metavar="A,B",
            help="columns to leave out of every input file (e.g. text, notes)",
        )
    if n_jobs:
        p.add_argument(
            "--n-jobs",
            type=int,
            default=None,
            metavar="N",
            help="threads (-1: all cores); the same values to rounding (~1e-13 relative)",
        )
    p.add_argument("--progress", action="store_true", help="show a progress bar on stderr (default: on a terminal)")
    p.add_argument("--force", action="store_true", help="replace output files that exist")


def show_progress(args: argparse.Namespace) -> bool:
    """Whether to draw a progress bar: asked for, or stderr is a terminal."""
    return bool(getattr(args, "progress", False) or sys.stderr.isatty())


def _plain(x: Any) -> Any:
    """JSON-friendly numbers, lists and dicts (NaN as null)."""
    if isinstance(x, Mapping):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple, np.ndarray)):
        return [_plain(v) for v in (x.tolist() if isinstance(x, np.ndarray) else x)]
    if isinstance(x, (np.bool_, bool)):
        return bool(x)
    if isinstance(x, (np.integer, int)):
        return int(x)
    if isinstance(x, (np.floating, float)):
        return None if math.isnan(float(x)) else float(x)
    return x if x is None or isinstance(x, str) else str(x)


def emit(args: argparse.Namespace, summary: Mapping[str, Any], lines: Sequence[str]) -> None:
    """Print the summary as one JSON object (``--format json``) or the lines as text, on stdout."""
    if getattr(args, "format", "text") == "json":
        print(json.dumps(_plain(summary)))
    else:
        for line in lines:
            print(line)


def game_of(
    background: Any, baseline_row: int | None, option: str = "--background", source: str = "--data"
) -> tuple[str, str]:
    """The game the options select and why, in words (``source``: the file of the baseline row)."""
    # the game's words come from the games table (kexplain.games); the options' words are the CLI's
    if baseline_row is not None:
        return "baseline", (
            f"{get_game('baseline').title}: --baseline-row {baseline_row} given (absent features take the values "
            f"of row {baseline_row} of {source})"
        )
    if background is not None:
        return "interventional", (
            f"{get_game('interventional').title}: {option} given ({len(background)} rows; absent features take "
            "their values; shap's ExactExplainer values on the same rows)"
        )
    return "functional", (
        f"{get_game('functional').title}: no --background given (absent features are integrated out of the "
        "kernel; pass --background for shap's interventional values)"
    )


def model_features(model: Any) -> tuple[Any, list[str] | None, int, list[bool] | None]:
    """(kernel expansion, feature names or None, number of features, numeric mask) of a model."""
    from ..models.dot_product import as_polynomial_expansion
    from ..models.sklearn import as_kernel_expansion

    # linear and polynomial kernel models have no KernelExpansion but are explained exactly too
    expansion = as_polynomial_expansion(model) or as_kernel_expansion(model)
    names = None if expansion.feature_names is None else [str(n) for n in expansion.feature_names]
    mask = getattr(expansion, "numeric_mask", None)
    return expansion, names, int(expansion.n_features), None if mask is None else [bool(m) for m in mask]


def read_features(
    path: str,
    option: str,
    model_names: Sequence[str] | None,
    n_features: int,
    numeric: Sequence[bool] | None = None,
    id_column: str | None = None,
    frame: Any = None,
    drop: Any = None,
    id_required: bool = True,
) -> tuple[np.ndarray, list[str] | None, Any]:
    """Read (or take ``frame`` already read from) ``path``; return (rows, header names, ids).

    ``id_column`` and the ``drop`` columns are removed first; the id column must be present only
    where ``id_required`` (the explained rows; a background file may or may not have it)."""
    frame = read_table(path, option) if frame is None else frame
    frame, ids = strip_columns(frame, path, option, id_column, drop, id_required=id_required)
    X, header = feature_table(frame, path, option, model_names, n_features, numeric, id_column)
    if X.shape[0] == 0:
        raise CLIError(f"{option} {path}: has no rows.")
    return X, header, ids


def efficiency_error(model: Any, X: np.ndarray, predictions: np.ndarray, names: Sequence[str] | None) -> float | None:
    """max |values + base value - the model's own output| over the rows, or None where that output
    cannot be computed from the model (``kexplain.models.model_output`` computes it for every
    supported model, the latent mean of a binary or multiclass GaussianProcessClassifier included:
    one column per class)."""
    from .._optional import require
    from ..models.sklearn import model_output

    try:
        Xm: Any = X
        if getattr(model, "feature_names_in_", None) is not None:
            Xm = require("pandas", "").DataFrame(X, columns=list(model.feature_names_in_))
        pred = np.asarray(model_output(model, Xm), dtype=float)
    except Exception:
        return None
    return float(np.max(np.abs(predictions - pred.reshape(predictions.shape)))) if pred.size else 0.0


def efficiency_line(err: float | None, scale: float) -> str:
    """The efficiency line of the text summary."""
    if err is None:
        return "efficiency check: not available (the model does not expose the explained output)"
    flag = "" if err <= 1e-8 * max(1.0, scale) else "  WARNING: larger than expected"
    return f"efficiency check: max |sum(values) + base_value - model output| = {err:.2e}{flag}"


def check_max_order(args: argparse.Namespace, d: int, at_most_d: bool) -> None:
    """--max-order in the option's own words (the estimators name their parameter instead)."""
    k = args.max_order
    if k < 1 or (at_most_d and k > d):
        accepted = f"1..{d} (the number of feature columns)" if at_most_d else "a positive integer"
        raise CLIError(f"--max-order {k}: accepts {accepted}.")


def overflow_error(args: argparse.Namespace, exc: Exception, X: Any, background: Any) -> CLIError:
    """A fit or explanation that overflowed, blamed on the files whose values caused it."""
    where = [f"--data {args.data} (largest |value| {np.abs(X.to_numpy(dtype=float)).max():.3g})"]
    if background is not None:
        where.append(
            f"--background {args.background} (largest |value| {np.abs(np.asarray(background, float)).max():.3g})"
        )
    return CLIError(f"{' / '.join(where)}: the values overflow float64 in the model ({exc}); rescale the columns.")

"""``kexplain mmd`` and ``kexplain hsic``: kernel statistics split over the features."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._optional import require
from ._columns import _shown, check_drop, header_of, names_list, strip_columns
from ._common import emit, show_progress
from ._tables import CLIError, check_output_path, read_table, write_table


def _names_list(text: str | None) -> list[str]:
    return names_list(text)


def numeric_table(frame: Any, path: Any, option: str, columns: Sequence[str] | None = None) -> Any:
    """The columns (all, or ``columns`` by name) of a table, checked to hold finite numbers."""
    header = header_of(frame)
    if header is None:
        frame = frame.set_axis([f"x{j}" for j in range(frame.shape[1])], axis=1)
        header = list(frame.columns)
    else:
        frame = frame.set_axis(header, axis=1)
    if columns:
        missing = [c for c in columns if c not in header]
        if missing:
            raise CLIError(f"{option} {path}: has no column(s) {_shown(missing)}; its columns are {_shown(header, 8)}.")
        frame = frame[list(columns)]
    if frame.shape[1] == 0:
        raise CLIError(f"{option} {path}: no feature columns left.")
    if frame.shape[0] == 0:
        raise CLIError(f"{option} {path}: has no rows.")
    for name in frame.columns:
        if frame[name].dtype.kind not in "biuf":
            raise CLIError(
                f"{option} {path}: column {name!r} does not hold numbers (e.g. {frame[name].iloc[0]!r}); "
                f"drop it with --drop {name} or encode it."
            )
        bad = np.flatnonzero(~np.isfinite(frame[name].to_numpy(dtype=float)))
        if bad.size:
            raise CLIError(f"{option} {path}: column {name!r} has a missing or non-finite value in row {int(bad[0])}.")
    return frame


def _attribution_lines(att: Any, label: str, over: str = "features") -> list[str]:
    order = np.argsort(-att.values, kind="stable")
    width = max(len(n) for n in att.feature_names)
    lines = [f"{label} = {att.total:.6g}, split over the {over} (exact Shapley values; they sum to it):"]
    for j in order:
        p = "" if att.p_values is None else f"   p = {att.p_values[j]:.4g}"
        lines.append(f"  {att.feature_names[j]:<{width}s} {att.values[j]: .6g}{p}")
    return lines


def _attribution_dict(att: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "total": att.total,
        "features": list(att.feature_names),
        "values": att.values,
        "estimator": att.estimator,
    }
    if att.p_values is not None:
        out["p_values"] = att.p_values
    return out


def _write(args: argparse.Namespace, frame: Any) -> str | None:
    if args.out is None:
        return None
    path = check_output_path(args.out, "--out", args.force)
    write_table(frame.reset_index(), path, "--out")
    return str(path)


def _stat_options(args: argparse.Namespace) -> dict[str, Any]:
    """Options shared by the statistics: estimator, threads, progress, the bandwidth's
    standardisation (``--no-standardize``: on the raw features) and the test's permutations."""
    opts: dict[str, Any] = {
        "estimator": args.estimator,
        "n_jobs": args.n_jobs,
        "progress": show_progress(args),
        "standardize": not args.no_standardize,
    }
    if args.test:
        opts.update(n_permutations=args.permutations, random_state=args.seed)
    return opts


def run_mmd(args: argparse.Namespace) -> int:
    """Run ``kexplain mmd``: MMD^2 between two samples and its exact split over the features.

    The samples are two files with the same columns (``--data`` and ``--other``), or the two
    values of ``--group-column`` in one file.  ``--test`` adds permutation p-values.

    Parameters
    ----------
    args : argparse.Namespace
        As parsed by :func:`kexplain.cli.build_parser` for the ``mmd`` command.

    Returns
    -------
    int
        0 (input problems raise :class:`CLIError`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import numpy as np, pandas as pd
    >>> from kexplain.cli import main
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "d.csv"
    >>> rng = np.random.default_rng(0)
    >>> pd.DataFrame({"a": rng.normal(size=40) + np.repeat([0, 2], 20), "b": rng.normal(size=40),
    ...               "g": np.repeat(["x", "z"], 20)}).to_csv(f, index=False)
    >>> main(["mmd", "--data", str(f), "--group-column", "g", "--format", "json"])  # doctest: +ELLIPSIS
    {"command": "mmd", "statistic": "MMD^2", ...}
    0
    """
    from ..stats import mmd_shapley, mmd_test

    raw = read_table(args.data, "--data")
    frame, _ = strip_columns(raw, args.data, "--data", args.id_column, args.drop)
    headers = [header_of(raw)]
    if args.group_column is not None:
        if args.other is not None:
            raise CLIError("--group-column and --other: give one of them (two files, or one file and its groups).")
        header = header_of(frame) or []
        if args.group_column not in header:
            raise CLIError(f"--data {args.data}: has no column {args.group_column!r} (--group-column).")
        groups = frame[args.group_column]
        levels = sorted(groups.dropna().unique(), key=str)
        if len(levels) != 2:
            raise CLIError(
                f"--group-column {args.group_column}: must hold exactly two groups, found {len(levels)} "
                f"({_shown([str(v) for v in levels])})."
            )
        check_drop(args.drop, headers, "--data")
        rest = frame.drop(columns=[args.group_column])
        X = numeric_table(rest[(groups == levels[0]).to_numpy()], args.data, "--data")
        Z = numeric_table(rest[(groups == levels[1]).to_numpy()], args.data, "--data")
        labels = [f"{args.group_column} = {levels[0]}", f"{args.group_column} = {levels[1]}"]
    elif args.other is not None:
        other = read_table(args.other, "--other")
        check_drop(args.drop, headers + [header_of(other)], "--data or --other")
        X = numeric_table(frame, args.data, "--data")
        other, _ = strip_columns(other, args.other, "--other", args.id_column, args.drop, id_required=False)
        Z = numeric_table(other, args.other, "--other")
        if list(Z.columns) != list(X.columns):
            if sorted(map(str, Z.columns)) != sorted(map(str, X.columns)):
                extra = [c for c in Z.columns if c not in X.columns]
                missing = [c for c in X.columns if c not in Z.columns]
                raise CLIError(
                    f"--other {args.other}: columns differ from --data's; missing {_shown(missing)}, "
                    f"not in --data {_shown(extra)}."
                )
            Z = Z[list(X.columns)]
        labels = [str(args.data), str(args.other)]
    else:
        raise CLIError("mmd needs a second sample: --other FILE, or --group-column NAME with two groups.")
    if len(X) < 2 or len(Z) < 2:
        raise CLIError(f"mmd: each sample needs at least 2 rows, got {len(X)} and {len(Z)}.")
    fn = mmd_test if args.test else mmd_shapley
    result: Any = fn(X, Z, **_stat_options(args))
    att = result.attribution if args.test else result
    summary: dict[str, Any] = {
        "command": "mmd",
        "statistic": "MMD^2",
        "samples": labels,
        "rows": [len(X), len(Z)],
        **_attribution_dict(att),
    }
    lines = [f"kexplain: MMD^2 between {labels[0]} ({len(X)} rows) and {labels[1]} ({len(Z)} rows)"]
    lines += _attribution_lines(att, "MMD^2")
    if args.test:
        summary.update(p_value=result.p_value, n_permutations=result.n_permutations)
        lines.append(f"permutation test: p = {result.p_value:.4g} ({result.n_permutations} permutations)")
    summary["out"] = _write(args, att.to_frame())
    emit(args, summary, lines + ([f"attribution -> {summary['out']}"] if summary["out"] else []))
    return 0


def run_hsic(args: argparse.Namespace) -> int:
    """Run ``kexplain hsic``: HSIC between X and Y and its exact split over the variables.

    X and Y are column lists of one file (``--x-columns``, ``--y-columns``) or two files with the
    same rows (``--data`` for X, ``--y`` for Y).

    Parameters
    ----------
    args : argparse.Namespace
        As parsed by :func:`kexplain.cli.build_parser` for the ``hsic`` command.

    Returns
    -------
    int
        0 (input problems raise :class:`CLIError`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import numpy as np, pandas as pd
    >>> from kexplain.cli import main
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "d.csv"
    >>> rng = np.random.default_rng(0)
    >>> a = rng.normal(size=30)
    >>> pd.DataFrame({"a": a, "b": rng.normal(size=30), "y": a ** 2}).to_csv(f, index=False)
    >>> main(["hsic", "--data", str(f), "--y-columns", "y", "--format", "json"])  # doctest: +ELLIPSIS
    {"command": "hsic", "statistic": "HSIC", ...}
    0
    """
    from ..stats import hsic_shapley, hsic_test

    raw = read_table(args.data, "--data")
    frame, _ = strip_columns(raw, args.data, "--data", args.id_column, args.drop)
    ycols, xcols = _names_list(args.y_columns), _names_list(args.x_columns)
    if args.y is not None:
        if ycols:
            raise CLIError("--y and --y-columns: give one of them.")
        y_raw = read_table(args.y, "--y")
        check_drop(args.drop, [header_of(raw), header_of(y_raw)], "--data or --y")
        X = numeric_table(frame, args.data, "--data", xcols or None)
        y_frame, _ = strip_columns(y_raw, args.y, "--y", args.id_column, args.drop, id_required=False)
        Y = numeric_table(y_frame, args.y, "--y")
        if len(Y) != len(X):
            raise CLIError(f"--y {args.y}: has {len(Y)} rows, but --data has {len(X)}; they must be the same rows.")
    elif ycols:
        check_drop(args.drop, [header_of(raw)], "--data")
        Y = numeric_table(frame, args.data, "--data", ycols)
        xcols = xcols or [str(c) for c in (header_of(frame) or []) if str(c) not in ycols]
        X = numeric_table(frame, args.data, "--data", xcols)
    else:
        raise CLIError("hsic needs Y: --y-columns NAMES (columns of --data) or --y FILE.")
    fn = hsic_test if args.test else hsic_shapley
    result: Any = fn(X, Y, attribute=args.attribute, **_stat_options(args))
    att = result.attribution if args.test else result
    atts = att if isinstance(att, tuple) else (att,)
    sides = ("x", "y") if args.attribute == "both" else (args.attribute,)
    summary: dict[str, Any] = {
        "command": "hsic",
        "statistic": "HSIC",
        "x_columns": list(map(str, X.columns)),
        "y_columns": list(map(str, Y.columns)),
        "rows": len(X),
        "total": atts[0].total,
        "attribution": {side: _attribution_dict(a) for side, a in zip(sides, atts)},
    }
    lines = [f"kexplain: HSIC between X ({X.shape[1]} columns) and Y ({Y.shape[1]} columns), {len(X)} rows"]
    for side, a in zip(sides, atts):
        lines += _attribution_lines(a, "HSIC", f"{side.upper()} variables")
    if args.test:
        summary.update(p_value=result.p_value, n_permutations=result.n_permutations)
        lines.append(f"permutation test: p = {result.p_value:.4g} ({result.n_permutations} permutations)")
    if args.test or len(atts) == 1:
        table = result.to_frame() if args.test else atts[0].to_frame()
    else:
        table = require("pandas", "").concat({side: a.to_frame() for side, a in zip(sides, atts)}, names=["side"])
    summary["out"] = _write(args, table)
    emit(args, summary, lines + ([f"attribution -> {summary['out']}"] if summary["out"] else []))
    return 0

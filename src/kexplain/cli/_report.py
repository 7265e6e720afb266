"""``kexplain report``: an HTML report of a saved model on a data file."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ._common import emit, game_of, model_features, read_features
from ._models import load_model
from ._tables import CLIError, os_error

REPORT_FILES = ("index.html", "values.csv")


def prepare_folder(out: Path, option: str, force: bool, files: tuple[str, ...] = REPORT_FILES) -> None:
    """Make the output folder, refusing a file in its place and (without ``force``) earlier output."""
    if out.is_symlink() and not force:
        raise CLIError(
            f"{option} {out}: is a symbolic link; pass --force to write into the folder it points to, or give "
            "another folder."
        )
    if out.exists() and not out.is_dir():
        raise CLIError(f"{option} {out}: exists and is not a folder; give a folder.")
    links = [name for name in files if (out / name).is_symlink()]
    if links and not force:  # a link, even a dangling one, is never written through without --force
        raise CLIError(
            f"{option} {out}: {links[0]} is a symbolic link; pass --force to replace the link (its target is "
            "left alone)."
        )
    if not force:
        earlier = [name for name in files if (out / name).exists()]
        if earlier:
            shown = ", ".join(earlier[:3]) + (", ..." if len(earlier) > 3 else "")
            raise CLIError(f"{option} {out}: already holds {shown}; pass --force to overwrite them.")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise os_error(option, out, exc) from None


def _rows(text: str) -> list[int]:
    try:
        rows = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise CLIError(f"--rows {text}: give row numbers (0-based) separated by commas, e.g. --rows 0,5,9.") from None
    if any(r < 0 for r in rows):
        raise CLIError(f"--rows {text}: row numbers start at 0.")
    return rows


def report_summary(result: dict[str, Any], out: Path) -> tuple[dict[str, Any], list[str]]:
    """The JSON summary and text lines of a written report."""
    ex = result["explanation"]
    eff = result["efficiency"]
    speed = result["speed"]
    summary: dict[str, Any] = {
        "report": str(result["report"]),
        "values": str(result["values"]),
        "rows": len(ex),
        "features": list(ex.feature_names),
        "output": ex.output,
        "game": ex.game,
        "efficiency": {k: {"absolute": a, "relative": r} for k, (a, r) in eff.items()},
        "timings": result["timings"],
        "kernel_explainer": speed,
    }
    lines = [f"kexplain: {len(ex)} rows x {len(ex.feature_names)} features; explained output: {ex.output}"]
    for label, (a, r) in eff.items():
        lines.append(
            f"kexplain: efficiency ({label}): max |sum(values) + base_value - output| = {a:.2e} (relative {r:.2e})"
        )
    if speed:
        ratio = speed[1]["seconds"] / max(speed[0]["seconds"], 1e-12)
        lines.append(
            f"kexplain: on {speed[0]['rows']} rows, shap's KernelExplainer took {speed[1]['seconds']:.3f} s "
            f"(max |error| {speed[1]['max_error']:.2e}), the exact values {speed[0]['seconds']:.4f} s ({ratio:.0f}x)"
        )
    lines.append(f"kexplain: report -> {result['report']}; values -> {result['values']}")
    return summary, lines


def run_report(args: argparse.Namespace) -> int:
    """Run ``kexplain report`` on parsed arguments; returns the exit status (0).

    Parameters
    ----------
    args : argparse.Namespace
        As parsed by :func:`kexplain.cli.build_parser` for the ``report`` command.

    Returns
    -------
    int
        0; input problems raise :class:`CLIError` (exit status 2 through :func:`kexplain.cli.main`).

    Examples
    --------
    >>> from kexplain.cli import main
    >>> main(["report", "--model", "missing.skops", "--data", "X.csv", "--out", "r"])
    2
    """
    from ..models.sklearn import describe_output
    from ..report import model_report

    out = Path(args.out)
    rows = _rows(args.rows)
    for option, value in (("--top", args.top), ("--compare-rows", args.compare_rows)):
        if value < 0:  # checked here, before the model is loaded, in the option's own words
            raise CLIError(f"{option} {value}: must be a non-negative number.")
    model = load_model(args.model, args.trust, args.allow_pickle)
    _, model_names, d, numeric = model_features(model)
    X, header, ids = read_features(args.data, "--data", model_names, d, numeric, args.id_column, None, args.drop)
    names = model_names or header or [f"x{j}" for j in range(d)]
    background = None
    if args.background is not None:
        background = read_features(
            args.background, "--background", model_names or header, d, numeric, args.id_column, None, args.drop, False
        )[0]
    bad = [r for r in rows if r >= len(X)]
    if bad:
        raise CLIError(f"--rows {args.rows}: --data has {len(X)} rows (0 to {len(X) - 1}); {bad[0]} is not one.")
    prepare_folder(out, "--out", args.force)
    game, reason = game_of(background, None)
    facts = {
        "model file": str(args.model),
        "explained output": describe_output(model),
        "data": f"{args.data}: {len(X)} rows, {d} features",
        "background": "none" if background is None else f"{args.background}: {len(background)} rows",
    }
    result = model_report(
        model,
        X,
        out,
        background=background,
        rows=rows,
        interactions=args.interactions,
        title=args.title,
        summary=facts,
        why=reason,
        kernel_shap_rows=args.compare_rows,
        top_features=args.top,
        n_jobs=args.n_jobs,
        feature_names=names,
        index=None if ids is None else list(ids),
    )
    summary, lines = report_summary(result, out)
    summary.update(command="report", game_reason=reason)
    emit(args, summary, [lines[0], f"kexplain: {reason}", *lines[1:]])
    return 0

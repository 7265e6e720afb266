"""``kexplain oak`` and ``kexplain star``: fit an explainable model on a data file and explain it."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np

from .._files import write_atomically
from ..games import get_game
from ._columns import _shown, check_drop, header_of, id_name, strip_columns
from ._common import check_max_order, emit, game_of, overflow_error, show_progress
from ._frames import values_frame
from ._stats import numeric_table
from ._tables import CLIError, check_file, check_output_path, os_error, read_table, write_table


def _training_table(args: argparse.Namespace) -> tuple[Any, np.ndarray, Any]:
    """(feature columns, target, ids) of ``--data`` with ``--target``, ``--id-column`` and ``--drop``."""
    frame = read_table(args.data, "--data")
    header = header_of(frame)
    if header is None:
        raise CLIError(f"--data {args.data}: needs a header line naming the columns (--target is a name).")
    if args.target not in header:
        raise CLIError(
            f"--data {args.data}: has no column {args.target!r} (--target); its columns are {_shown(header, 8)}."
        )
    check_drop(args.drop, [header], "--data")
    frame, ids = strip_columns(frame, args.data, "--data", args.id_column, args.drop)
    if args.target not in frame.columns:
        raise CLIError(
            f"--target {args.target}: is also given as --id-column or --drop; it must be a column of its own."
        )
    y = frame[args.target]
    frame = frame.drop(columns=[args.target])
    X = numeric_table(frame, args.data, "--data")
    if y.dtype.kind not in "biuf" and not getattr(args, "classify", False):
        raise CLIError(f"--target {args.target}: does not hold numbers (e.g. {y.iloc[0]!r}).")
    if y.isna().any():
        raise CLIError(f"--target {args.target}: has a missing value in row {int(np.flatnonzero(y.isna())[0])}.")
    return X, y.to_numpy(), ids


def _outputs(args: argparse.Namespace) -> tuple[Path | None, Path | None]:
    out = None if args.out is None else check_output_path(args.out, "--out", args.force)
    model_out = None
    if args.save_model is not None:
        model_out = Path(args.save_model)
        if not model_out.name.lower().endswith((".skops", ".joblib")):
            raise CLIError(f"--save-model {model_out}: give a .skops (safe to share) or .joblib file.")
        model_out = check_file(model_out, "--save-model", args.force)
    return out, model_out


def _save(model: Any, path: Path | None) -> None:
    if path is None:
        return
    try:
        if path.name.lower().endswith(".skops"):
            import skops.io as sio

            write_atomically(path, lambda tmp: sio.dump(model, tmp))
        else:
            import joblib

            write_atomically(path, lambda tmp: joblib.dump(model, tmp))
    except OSError as exc:
        raise os_error("--save-model", path, exc) from None


def _background(args: argparse.Namespace, X: Any) -> Any:
    if args.background is None:
        return None
    # the same --id-column and --drop as --data; the target may be there or not
    bg, _ = strip_columns(
        read_table(args.background, "--background"),
        args.background,
        "--background",
        args.id_column,
        args.drop,
        id_required=False,
    )
    if header_of(bg) is None:
        raise CLIError(f"--background {args.background}: needs a header line naming the feature columns.")
    missing = [c for c in X.columns if c not in bg.columns]
    if missing:
        raise CLIError(f"--background {args.background}: missing feature column(s) {_shown(missing)}.")
    return numeric_table(bg[list(X.columns)], args.background, "--background")


def _write_values(args: argparse.Namespace, ex: Any, ids: Any, out: Path | None) -> None:
    if out is not None:
        layout = "wide" if ex.n_outputs == 1 else "long"
        rid = None if ids is None else np.asarray(ids)
        write_table(values_frame(ex, layout, rid, id_name(args.id_column, [])), out)


def _default_background_path(out: Path) -> Path:
    """``<out stem>.background.csv`` next to the values file."""
    name = out.name
    for suffix in (".csv.gz", ".csv", ".parquet", ".pq"):
        if name.lower().endswith(suffix):
            return out.with_name(name[: -len(suffix)] + ".background.csv")
    return out.with_name(name + ".background.csv")


def _write_sampled_background(background: Any, rows: Any, seed: int, ids: Any, id_column: Any, path: Path) -> None:
    """The rows ``star`` sampled as its background: ``data_row`` (0-based in --data), ``seed``, the id
    column when given, then the features; usable as ``--background`` as it is (extra columns are ignored)."""
    table = background.reset_index(drop=True).copy()
    lead = {"data_row": np.asarray(rows), "seed": np.full(len(rows), seed)}
    if ids is not None and id_column is not None:
        lead[id_column] = np.asarray(ids)[np.asarray(rows)]
    for k, (name, col) in enumerate(lead.items()):
        table.insert(k, name, col)
    write_table(table, path, "--out (its sampled background)")


def run_oak(args: argparse.Namespace) -> int:
    """Run ``kexplain oak``: fit an orthogonal additive GP, print its exact global importance
    (variance Shapley values and Sobol indices) and write exact local Shapley values.

    Parameters
    ----------
    args : argparse.Namespace
        As parsed by :func:`kexplain.cli.build_parser` for the ``oak`` command.

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
    >>> X = np.random.default_rng(0).normal(size=(30, 2))
    >>> pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "y": np.sin(X[:, 0])}).to_csv(f, index=False)
    >>> main(["oak", "--data", str(f), "--target", "y", "--max-iter", "5", "--format", "json"])  # doctest: +ELLIPSIS
    {"command": "oak", ...}
    0
    """
    from ..gp import OAKExplainer, OAKRegressor

    out, model_out = _outputs(args)
    X, y, ids = _training_table(args)
    check_max_order(args, X.shape[1], at_most_d=True)
    background = _background(args, X)
    t0 = time.perf_counter()
    try:
        gp = OAKRegressor(max_interaction_order=args.max_order, max_iter=args.max_iter, random_state=args.seed)
        gp.fit(X, y)
        fit_seconds = time.perf_counter() - t0
        gi = gp.global_importance()
    except OverflowError as exc:  # the library names y; on the command line that is a column of --data
        raise overflow_error(args, exc, X, None) from exc
    explainer = OAKExplainer(gp, background)
    ex = explainer.explain(X, progress=show_progress(args), n_jobs=args.n_jobs)
    if background is None:
        reason = f"{get_game('anova').title}: no --background given (the GP's own additive components)"
    else:
        reason = game_of(background, None)[1]
    _write_values(args, ex, ids, out)
    _save(gp, model_out)
    order = np.argsort(-gi.values, kind="stable")
    first, total = gi.first_order_sobol, gi.total_sobol
    summary = {
        "command": "oak",
        "rows": len(X),
        "features": list(gi.feature_names),
        "r2": float(gp.score(X, y)),
        "fit_seconds": fit_seconds,
        "variance": gi.total,
        "shapley": gi.values,
        "first_order_sobol": first,
        "total_sobol": total,
        "game": explainer.game,
        "game_reason": reason,
        "output": explainer.output,
        "out": None if out is None else str(out),
        "model_out": None if model_out is None else str(model_out),
    }
    width = max(len(n) for n in gi.feature_names)
    lines = [
        f"kexplain: OAK GP (max interaction order {args.max_order}) on {len(X)} rows x {X.shape[1]} features, "
        f"training R^2 = {summary['r2']:.3f} ({fit_seconds:.1f} s)",
        f"global importance: variance of the posterior mean = {gi.total:.6g}, split exactly (Shapley), "
        "with Sobol indices:",
        f"  {'feature':<{width}s}   shapley   first-order   total",
    ]
    lines += [f"  {gi.feature_names[j]:<{width}s} {gi.values[j]:9.4g} {first[j]:13.4f} {total[j]:7.4f}" for j in order]
    lines.append(f"local values: {reason}" + (f"; -> {out}" if out is not None else " (pass --out FILE to write them)"))
    emit(args, summary, lines)
    return 0


def run_star(args: argparse.Namespace) -> int:
    """Run ``kexplain star``: fit an RKHS Weighting STAR model and write its exact interventional
    Shapley values (STAR-SHAP) for every row of the data file.

    Parameters
    ----------
    args : argparse.Namespace
        As parsed by :func:`kexplain.cli.build_parser` for the ``star`` command.

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
    >>> X = np.random.default_rng(0).normal(size=(40, 2))
    >>> pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "y": X[:, 0] * X[:, 1]}).to_csv(f, index=False)
    >>> main(["star", "--data", str(f), "--target", "y", "--n-parameters", "30",
    ...       "--format", "json"])  # doctest: +ELLIPSIS
    {"command": "star", ...}
    0
    """
    from ..star import RKHSWeightingClassifier, RKHSWeightingRegressor, StarExplainer

    out, model_out = _outputs(args)
    sampled_out = None
    if out is not None and args.background is None:  # the sampled background is saved next to the values
        sampled_out = check_output_path(_default_background_path(out), "--out (its sampled background)", args.force)
    X, y, ids = _training_table(args)
    check_max_order(args, X.shape[1], at_most_d=False)
    background = _background(args, X)
    sampled = None
    if background is None:
        rng = np.random.default_rng(args.seed)
        rows = np.sort(rng.choice(len(X), size=min(args.background_rows, len(X)), replace=False))
        background = X.iloc[rows]
        sampled = {"rows": rows, "seed": args.seed, "file": None if sampled_out is None else str(sampled_out)}
        reason = (
            f"{get_game('interventional').title} over {len(rows)} random rows of --data (--seed {args.seed}"
            + ("" if sampled_out is None else f"; saved to {sampled_out}")
            + "): no --background given (STAR-SHAP needs one; pass --background B to choose it)"
        )
    else:
        reason = game_of(background, None)[1]
    cls = RKHSWeightingClassifier if args.classify else RKHSWeightingRegressor
    t0 = time.perf_counter()
    try:
        options = {"n_parameters": args.n_parameters, "interaction_order": args.max_order, "random_state": args.seed}
        est = cls(instantiation=args.instantiation, **options).fit(X, y)
        fit_seconds = time.perf_counter() - t0
        explainer = StarExplainer(est, background)
        ex = explainer.explain(X, progress=show_progress(args), n_jobs=args.n_jobs)
    except ValueError as exc:  # a term's products overflow on huge values: the library names the term
        if "NaN or infinite" not in str(exc):
            raise
        raise overflow_error(args, exc, X, background if args.background is not None else None) from exc
    _write_values(args, ex, ids, out)
    if sampled is not None and sampled_out is not None:
        _write_sampled_background(background, sampled["rows"], args.seed, ids, args.id_column, sampled_out)
    _save(est, model_out)
    importance = np.abs(ex.values).mean(axis=0)
    importance = importance if importance.ndim == 1 else importance.mean(axis=1)
    order = np.argsort(-importance, kind="stable")
    score = float(est.score(X, y))
    summary = {
        "command": "star",
        "rows": len(X),
        "features": list(ex.feature_names),
        "score": score,
        "fit_seconds": fit_seconds,
        "mean_abs_values": importance,
        "game": explainer.game,
        "game_reason": reason,
        "output": explainer.output,
        "outputs": list(ex.output_names),
        "out": None if out is None else str(out),
        "model_out": None if model_out is None else str(model_out),
        "sampled_background": None if sampled is None else {**sampled, "rows": sampled["rows"].tolist()},
    }
    width = max(len(n) for n in ex.feature_names)
    lines = [
        f"kexplain: STAR model ({cls.__name__}, {args.instantiation}, interaction order {args.max_order}) on "
        f"{len(X)} rows x {X.shape[1]} features, training {'accuracy' if args.classify else 'R^2'} = {score:.3f} "
        f"({fit_seconds:.1f} s)",
        f"explained output: {explainer.output}; {reason}",
        "global importance (mean |Shapley value| over the rows):",
    ]
    lines += [f"  {ex.feature_names[j]:<{width}s} {importance[j]:.4g}" for j in order]
    lines.append(f"values -> {out}" if out is not None else "pass --out FILE to write the values")
    emit(args, summary, lines)
    return 0

"""``kexplain explain``: exact Shapley values of a saved model on a data file (streamed in chunks)."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np

from ._columns import id_name, row_ids
from ._common import (
    efficiency_error,
    efficiency_line,
    emit,
    game_of,
    model_features,
    read_features,
    show_progress,
)
from ._frames import _default_interactions_path, interactions_frame, values_frame
from ._models import load_model
from ._stream import Appender, block_rows, data_blocks, is_csv
from ._tables import (
    CLIError,
    check_output_path,
    iter_csv_chunks,
)


def _output_paths(args: argparse.Namespace) -> tuple[Path, Path | None]:
    """``--out`` and ``--interactions-out``, checked before any work."""
    force = bool(getattr(args, "force", False))
    out = check_output_path(args.out, "--out", force)
    inter_out = None
    if args.interactions:
        inter_out = Path(args.interactions_out) if args.interactions_out else _default_interactions_path(out)
        if inter_out.resolve() == out.resolve():
            raise CLIError(
                f"--interactions-out {inter_out}: is the same file as --out {out}; the interaction values "
                "would overwrite the Shapley values. Give another file."
            )
        check_output_path(inter_out, "--interactions-out", force)
    elif args.interactions_out:
        raise CLIError("--interactions-out needs --interactions.")
    if args.chunk_size is not None:
        if args.chunk_size < 1:
            raise CLIError(f"--chunk-size {args.chunk_size}: must be a positive number of rows.")
        for option, path in (("--out", out), ("--interactions-out", inter_out)):
            if path is not None and not path.name.lower().endswith((".csv", ".csv.gz")):
                raise CLIError(f"{option} {path}: --chunk-size appends to CSV files; give a .csv or .csv.gz file.")
    return out, inter_out


def _background(args: argparse.Namespace, model_names: Any, d: int, numeric: Any, X: np.ndarray) -> tuple[Any, Any]:
    """(background rows or None, baseline row or None) from ``--background`` and ``--baseline-row``."""
    background = baseline = None
    if args.background is not None:
        background, _, _ = read_features(
            args.background, "--background", model_names, d, numeric, args.id_column, None, args.drop, False
        )
    if args.baseline_row is not None:
        k = args.baseline_row
        if background is not None:
            source, option = background, "--background"
        elif is_csv(args.data):  # the data file is streamed: read only its first k + 1 rows
            first = next(iter_csv_chunks(args.data, "--data", max(k + 1, 1)))
            source = read_features(args.data, "--data", model_names, d, numeric, args.id_column, first, args.drop)[0]
            option = "--data"  # fewer than k + 1 rows read: the file has only those
        else:
            source, option = X, "--data"
        if not 0 <= k < source.shape[0]:
            raise CLIError(
                f"--baseline-row {k}: must be a row number from 0 to {source.shape[0] - 1} of the {option} file."
            )
        baseline, background = source[k], None
    return background, baseline


def run_explain(args: argparse.Namespace) -> int:
    """Run ``kexplain explain`` on parsed arguments; returns the exit status (0).

    The game follows from the options: the functional baseline without ``--background`` and
    ``--baseline-row``; the interventional game over every row of ``--background``; baseline
    Shapley against one row with ``--baseline-row``.  With ``--chunk-size N`` the data file is
    read, explained and appended to ``--out`` N rows at a time (files larger than memory), with
    the same values as in one pass to rounding (~1e-13 relative at most).  CSV files are streamed
    in blocks by default too (memory bounded by a block).  Output files that exist already are
    refused unless ``--force`` is given; both are checked before any work.  Only the file given as ``--model``
    is loaded; a joblib/pickle file runs code when loaded (only files you trust), a ``.skops``
    file does not.

    Parameters
    ----------
    args : argparse.Namespace
        As parsed by :func:`kexplain.cli.build_parser` for the ``explain`` command.

    Returns
    -------
    int
        0; input problems raise :class:`CLIError` (exit status 2 through :func:`kexplain.cli.main`).

    Examples
    --------
    >>> import tempfile, pathlib, joblib
    >>> import numpy as np
    >>> from sklearn.svm import SVR
    >>> from kexplain.cli._parser import build_parser
    >>> from kexplain.cli._explain import run_explain
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> X = np.random.default_rng(0).normal(size=(20, 2))
    >>> _ = joblib.dump(SVR().fit(X, X[:, 0]), folder / "m.joblib")
    >>> np.savetxt(folder / "X.csv", X[:3], delimiter=",")
    >>> args = build_parser().parse_args(["explain", "--model", str(folder / "m.joblib"), "--allow-pickle",
    ...                                   "--data", str(folder / "X.csv"), "--out", str(folder / "v.csv")])
    >>> run_explain(args)  # doctest: +ELLIPSIS
    kexplain: 3 rows x 2 features; explained output: predict of SVR
    kexplain: functional-baseline game: no --background given ...
    0
    """
    from ..explainers import ProductKernelExplainer
    from ..models.sklearn import describe_output

    out, inter_out = _output_paths(args)
    model = load_model(args.model, args.trust, args.allow_pickle)
    expansion, model_names, d, numeric = model_features(model)
    progress = show_progress(args)
    # streamed in blocks: memory is bounded by a block, not by the file
    chunks = data_blocks(args, block_rows(args, d, expansion.n_outputs))
    first = next(chunks)
    X: np.ndarray | None
    X, header, ids = read_features(args.data, "--data", model_names, d, numeric, args.id_column, first, args.drop)
    names = model_names or header or [f"x{j}" for j in range(d)]
    background, baseline = _background(args, model_names or header, d, numeric, X)
    source = "--background" if args.background is not None else "--data"
    game, reason = game_of(background, args.baseline_row, source=source)
    t0 = time.perf_counter()
    explainer = ProductKernelExplainer(model, background, baseline=baseline, feature_names=names)
    layout = args.layout or ("wide" if expansion.n_outputs == 1 else "long")
    id_col = id_name(args.id_column, [])
    writers = [Appender(out, "--out")] + ([Appender(inter_out, "--interactions-out")] if inter_out else [])
    bar = None
    if progress and is_csv(args.data):
        from tqdm.auto import tqdm

        # rows and rate without a total: sizing the bar would mean reading the whole file once more
        # (a refresh at every block: blocks are few and large, and the count shown is then never stale)
        bar = tqdm(total=None, unit="row", desc="kexplain explain", leave=False, mininterval=0, miniters=1)
    n_rows, worst, offset, scale = 0, 0.0, 0, 0.0
    out_names: list[str] = []
    try:
        while X is not None:
            ex = explainer.explain(
                X, interactions=args.interactions, progress=progress and bar is None, n_jobs=args.n_jobs
            )
            rid = row_ids(ids, len(X), offset)
            frames = [values_frame(ex, layout, rid if (ids is not None or layout == "long") else None, id_col)]
            if inter_out is not None:
                frames.append(interactions_frame(ex, rid, id_col))
            for writer, frame in zip(writers, frames):
                writer.add(frame)
            err = efficiency_error(model, X, ex.predictions, names)
            worst = float("nan") if err is None or np.isnan(worst) else max(worst, err)
            scale = max(scale, float(np.max(np.abs(ex.predictions))))
            out_names = list(ex.output_names)
            n_rows += len(X)
            offset += len(X)
            if bar is not None:
                bar.update(len(X))
            nxt = next(chunks, None)
            X, _, ids = (
                (None, None, None)
                if nxt is None
                else read_features(
                    args.data, "--data", model_names or header, d, numeric, args.id_column, nxt, args.drop
                )
            )
        for writer in writers:
            writer.finish()
    except BaseException:
        for writer in writers:
            writer.discard()
        raise
    finally:
        if bar is not None:
            bar.close()
    seconds = time.perf_counter() - t0
    output = describe_output(model)
    eff = None if np.isnan(worst) else worst
    summary = {
        "command": "explain",
        "rows": n_rows,
        "features": names,
        "outputs": out_names,
        "output": output,
        "game": game,
        "game_reason": reason,
        "layout": layout,
        "out": str(out),
        "interactions_out": None if inter_out is None else str(inter_out),
        "interaction_index": args.interactions or None,
        "seconds": seconds,
        "efficiency_error": eff,
    }
    lines = [
        f"kexplain: {n_rows} rows x {d} features; explained output: {output}",
        f"kexplain: {reason}",
        f"kexplain: {seconds:.2f} s; values -> {out} ({layout} layout)"
        + ("" if inter_out is None else f"; interactions ({args.interactions}) -> {inter_out}"),
        "kexplain: " + efficiency_line(eff, scale),
    ]
    emit(args, summary, lines)
    return 0

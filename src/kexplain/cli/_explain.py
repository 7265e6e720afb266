"""``kexplain explain``: exact Shapley values of a saved model on a data file."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .._optional import require
from ._frames import _default_interactions_path, interactions_frame, values_frame
from ._tables import (
    CLIError,
    check_output_path,
    load_model,
    read_table,
    write_table,
)


def _feature_table(
    frame: Any, path: Any, option: str, model_names: Sequence[str] | None, n_features: int
) -> tuple[np.ndarray, list[str] | None]:
    """Check a read table against the model; return (its values, its header names or None)."""
    integer_labels = all(isinstance(c, (int, np.integer)) for c in frame.columns)
    header = None if integer_labels else [str(c) for c in frame.columns]
    if frame.shape[1] != n_features:
        hint = ""
        if header is not None and header[0].startswith("Unnamed: 0"):
            hint = " (the first column looks like a saved pandas index: write the file with index=False)"
        raise CLIError(
            f"{option} {path}: has {frame.shape[1]} columns, but the model expects {n_features} features{hint}."
        )
    if header is not None and model_names is not None and header != list(model_names):
        missing = [n for n in model_names if n not in header]
        extra = [n for n in header if n not in model_names]
        if not missing and not extra:
            raise CLIError(
                f"{option} {path}: columns are in a different order than the model's features {list(model_names)}."
            )
        raise CLIError(
            f"{option} {path}: columns differ from the model's features; missing {missing}, unexpected {extra}."
        )
    return frame.to_numpy(), header


def _efficiency_message(model: Any, expansion: Any, X: np.ndarray, predictions: np.ndarray) -> str | None:
    """A line comparing values + base value with the model's own output, or None where the model
    exposes no such output (e.g. the latent mean of a GaussianProcessClassifier)."""
    from ..models.sklearn import model_output

    try:
        Xm: Any = X
        if getattr(model, "feature_names_in_", None) is not None:
            Xm = require("pandas", "").DataFrame(X, columns=list(model.feature_names_in_))
        pred = expansion.predict(X) if model is expansion else np.asarray(model_output(model, Xm), dtype=float)
    except Exception:
        return None
    pred = pred.reshape(predictions.shape)
    err = float(np.max(np.abs(predictions - pred)))
    rel = err / max(1.0, float(np.max(np.abs(pred))))
    return f"kexplain: efficiency check: max |sum(values) + base_value - model output| = {err:.2e}" + (
        "" if rel <= 1e-8 else "  WARNING: larger than expected"
    )


def run_explain(args: argparse.Namespace) -> int:
    """Run ``kexplain explain`` on parsed arguments; returns the exit status (0).

    The game follows from the options: the functional baseline without ``--background`` and
    ``--baseline-row``; the interventional game over every row of ``--background``; baseline
    Shapley against one row with ``--baseline-row``.  Output files that exist already are
    refused unless ``--force`` is given, and ``--interactions-out`` may never be ``--out``;
    both are checked before any work.  Only the file given as ``--model`` is loaded, and loading
    it runs code stored in it (pickle): load only model files you trust.

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
    >>> from kexplain.cli import build_parser, run_explain
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> X = np.random.default_rng(0).normal(size=(20, 2))
    >>> _ = joblib.dump(SVR().fit(X, X[:, 0]), folder / "m.joblib")
    >>> np.savetxt(folder / "X.csv", X[:3], delimiter=",")
    >>> args = build_parser().parse_args(["explain", "--model", str(folder / "m.joblib"),
    ...                                   "--data", str(folder / "X.csv"), "--out", str(folder / "v.csv")])
    >>> run_explain(args)  # doctest: +ELLIPSIS
    kexplain: 3 rows x 2 features, predict of SVR, functional baseline, ...
    0
    """
    from ..explainers import ProductKernelExplainer
    from ..models.sklearn import as_kernel_expansion, describe_output

    # every output path is checked before any work, so a refusal costs nothing and writes nothing
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

    model = load_model(args.model)
    expansion = as_kernel_expansion(model)
    model_names = expansion.feature_names
    d = expansion.n_features

    data, header = _feature_table(read_table(args.data, "--data"), args.data, "--data", model_names, d)
    names = model_names or header or [f"x{j}" for j in range(d)]
    X = expansion.check_input(data, name=f"--data {args.data}")

    background = baseline = None
    if args.background is not None:
        bframe, _ = _feature_table(
            read_table(args.background, "--background"), args.background, "--background", model_names or header, d
        )
        background = expansion.check_input(bframe, name=f"--background {args.background}")
    if args.baseline_row is not None:
        source, option = (background, "--background") if background is not None else (X, "--data")
        k = args.baseline_row
        if not 0 <= k < source.shape[0]:
            raise CLIError(
                f"--baseline-row {k}: must be a row number from 0 to {source.shape[0] - 1} of the {option} file."
            )
        baseline, background = source[k], None
        game = f"baseline Shapley at row {k} of {option}"
    elif background is not None:
        game = f"interventional over {background.shape[0]} background rows"
    else:
        game = "functional baseline"

    progress = bool(args.progress or sys.stdout.isatty())
    t0 = time.perf_counter()
    explainer = ProductKernelExplainer(expansion, background, baseline=baseline, feature_names=names)
    ex = explainer.explain(X, interactions=args.interactions, progress=progress)
    seconds = time.perf_counter() - t0

    write_table(values_frame(ex, args.layout), out, "--out")
    msg = (
        f"kexplain: {X.shape[0]} rows x {d} features, {describe_output(model)}, {game}, {seconds:.2f} s; "
        f"values -> {out}"
    )
    if inter_out is not None:
        write_table(interactions_frame(ex), inter_out, "--interactions-out")
        msg += f"; interactions -> {inter_out}"
    print(msg)
    # efficiency against the model itself: a cheap end-to-end check of the adapter
    check = _efficiency_message(model, expansion, X, ex.predictions)
    if check is not None:
        print(check)
    return 0

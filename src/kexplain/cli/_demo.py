"""``kexplain demo``: fit an SVR on scikit-learn's diabetes data and run the report on it."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .._files import write_atomically
from ..games import get_game
from ._common import emit
from ._report import prepare_folder, report_summary
from ._tables import os_error, write_table

_OPTION = "demo --out"
_DEMO_FILES = ("index.html", "values.csv", "heldout.csv", "background.csv", "model.skops")


class DemoFailure(Exception):
    """The demo's own efficiency check failed (exit status 1).

    Examples
    --------
    >>> from kexplain.cli._demo import DemoFailure
    >>> str(DemoFailure("efficiency check failed"))
    'efficiency check failed'
    """


def run_demo(
    out: str | Path = "kexplain-demo",
    quick: bool = False,
    n_background: int = 100,
    random_state: int = 0,
    verbose: bool = True,
    force: bool = False,
) -> dict[str, Any]:
    """Fit, explain and report: what ``kexplain demo`` runs.

    Fits a standardised RBF SVR on scikit-learn's diabetes data, saves the model (``model.skops``,
    safe to load), the held-out rows and background rows, then writes the same report as
    ``kexplain report --model model.skops --data heldout.csv --background background.csv``:
    the interventional game over background rows of the training set, compared with the
    functional baseline (PKeX; Mohammadi, Chau & Muandet, 2025), with timings that exclude the
    one-time load of the compiled kernels and shap's KernelExplainer timed on a few rows.

    Parameters
    ----------
    out : str or Path
        Output folder (made when missing).
    quick : bool
        A smaller grid and fewer rows (seconds, for tests).
    n_background : int
        Background rows of the interventional game (at most 30 with ``quick``).
    random_state : int
        Seeds the train/test split and the choice of background rows.
    verbose : bool
        Print what is done.
    force : bool
        Overwrite the files of an earlier run in ``out`` (else refused before any work).

    Returns
    -------
    dict
        ``out``, ``report`` (path of index.html), ``cv_r2``, ``test_r2``, ``efficiency``
        ({game: (absolute, relative error)}), ``timings``, ``speed``, ``total_seconds``,
        ``game_reason`` and ``result`` (what :func:`kexplain.report.model_report` returned).

    Raises
    ------
    CLIError
        When ``out`` is a file, holds an earlier run and ``force`` is false, or cannot be written
        (the message names ``demo --out``).
    DemoFailure
        When values plus base values differ from the predictions by more than 1e-8 (relative).

    Examples
    --------
    >>> import tempfile
    >>> from kexplain.cli._demo import run_demo
    >>> result = run_demo(tempfile.mkdtemp(), quick=True, verbose=False)  # doctest: +SKIP
    >>> result["report"].name  # doctest: +SKIP
    'index.html'
    """
    from .._optional import require

    # the demo is the report on bundled data: name the extras it needs before anything else fails
    for module in ("matplotlib", "jinja2", "shap", "pandas"):
        require(module, "kexplain demo (an HTML report)", extra="report")
    matplotlib = require("matplotlib", "kexplain demo (an HTML report)", extra="report")
    matplotlib.use("Agg")  # files only, never a window
    from sklearn.datasets import load_diabetes
    from sklearn.model_selection import GridSearchCV, train_test_split
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVR

    from .. import report

    sio = require("skops.io", "kexplain demo (saves the model as model.skops)", extra="skops")
    say: Callable[..., None] = print if verbose else (lambda *a, **k: None)
    out = Path(out)
    prepare_folder(out, _OPTION, force, _DEMO_FILES)
    t_start = time.perf_counter()

    X, y = load_diabetes(return_X_y=True, as_frame=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=random_state)
    if quick:
        X_test, y_test = X_test.iloc[:20], y_test.iloc[:20]
        n_background = min(n_background, 30)
    grid = (
        {"svr__C": [30.0, 100.0], "svr__gamma": [0.03]}
        if quick
        else {"svr__C": [10.0, 30.0, 100.0, 300.0], "svr__gamma": [0.01, 0.03, 0.1]}
    )
    cv = 3 if quick else 5
    t0 = time.perf_counter()
    search = GridSearchCV(Pipeline([("scale", StandardScaler()), ("svr", SVR(kernel="rbf"))]), grid, cv=cv)
    search.fit(X_train, y_train)
    fit_seconds = time.perf_counter() - t0
    model = search.best_estimator_
    svr = model.named_steps["svr"]
    test_r2 = float(model.score(X_test, y_test))
    say(
        f"model: StandardScaler + SVR(rbf, C={svr.C:g}, gamma={svr.gamma:g}), {len(svr.support_)} support "
        f"vectors; {cv}-fold CV R^2 = {search.best_score_:.3f}, held-out R^2 = {test_r2:.3f} ({fit_seconds:.2f} s)"
    )
    rng = np.random.default_rng(random_state)
    bg_rows = np.sort(rng.choice(len(X_train), size=min(n_background, len(X_train)), replace=False))
    background = X_train.iloc[bg_rows]
    why = (
        f"{get_game('interventional').title}: background = {len(background)} random training rows "
        f"(random_state={random_state}); the report also shows the {get_game('functional').label}"
    )
    try:
        write_table(X_test.reset_index(drop=True), out / "heldout.csv", _OPTION)
        write_table(background.reset_index(drop=True), out / "background.csv", _OPTION)
        write_atomically(out / "model.skops", lambda tmp: sio.dump(model, tmp))
        summary = {
            "data": f"scikit-learn diabetes: {len(X_train)} training rows, {len(X_test)} held-out rows explained, "
            f"{X.shape[1]} features",
            "model": "Pipeline(StandardScaler, SVR(kernel='rbf'))",
            "C (chosen)": float(svr.C),
            "gamma (chosen)": float(svr.gamma),
            "grid": ", ".join(f"{k.split('__')[1]} in {v}" for k, v in grid.items()),
            "support vectors": int(len(svr.support_)),
            f"{cv}-fold CV R^2 (best)": float(search.best_score_),
            "held-out R^2": test_r2,
            "fit (grid search) seconds": fit_seconds,
        }
        notes = [
            "Reproduce these values from the files in this folder: kexplain explain --model model.skops "
            "--data heldout.csv --background background.csv --out values_interventional.csv "
            "(or the whole page: kexplain report with the same options and --out DIR).",
        ]
        result = report.model_report(
            model,
            X_test.reset_index(drop=True),
            out,
            background=background.reset_index(drop=True),
            rows=[0] if quick else [0, 1, 2],
            top_features=2 if quick else 3,
            interactions=not quick,
            title="kexplain demo: exact Shapley values of an RBF SVR on the diabetes data",
            summary=summary,
            why=why,
            notes=notes,
            kernel_shap_rows=1 if quick else 5,
        )
    except OSError as exc:
        raise os_error(_OPTION, out, exc) from None
    errors = report.efficiency_errors(
        {"interventional": result["explanation"], "functional": result["other"]},
        model.predict(X_test).reshape(result["explanation"].predictions.shape),
    )
    worst = max(rel for _, rel in errors.values())
    if not worst <= 1e-8:
        result["report"].unlink()
        raise DemoFailure(f"efficiency check failed: relative error {worst:.3e} > 1e-8; the values are wrong.")
    total = time.perf_counter() - t_start
    _, lines = report_summary(result, out)
    for line in [lines[0], f"kexplain: {why}", *lines[1:]]:
        say(line)
    say(f"total {total:.1f} s")
    return {
        "out": out,
        "report": result["report"],
        "cv_r2": float(search.best_score_),
        "test_r2": test_r2,
        "efficiency": errors,
        "timings": result["timings"],
        "speed": result["speed"],
        "total_seconds": total,
        "game_reason": why,
        "result": result,
    }


def run_demo_command(args: argparse.Namespace) -> int:
    """Run ``kexplain demo`` on parsed arguments; returns 0 (1 through :class:`DemoFailure`).

    Parameters
    ----------
    args : argparse.Namespace
        As parsed by :func:`kexplain.cli.build_parser` for the ``demo`` command.

    Returns
    -------
    int

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from kexplain.cli import main
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "a_file"
    >>> _ = f.write_text("")
    >>> main(["demo", "--out", str(f)])
    2
    """
    if args.format == "json":
        res = run_demo(args.out, quick=args.quick, n_background=args.background_rows, force=args.force, verbose=False)
        summary, _ = report_summary(res["result"], Path(args.out))
        summary.update(command="demo", cv_r2=res["cv_r2"], test_r2=res["test_r2"], total_seconds=res["total_seconds"])
        summary["game_reason"] = res.get("game_reason")
        emit(args, summary, [])
    else:
        run_demo(args.out, quick=args.quick, n_background=args.background_rows, force=args.force)
    return 0

"""A report for a user's own model: explain, check, time, compare with shap, plot, render."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .._files import write_atomically
from .._optional import require
from .._params import Integer, check_param
from ..games import get_game
from ._html import write_html
from ._numbers import efficiency_errors
from ._sections import output_figures


def _model_output(model: Any, X: Any) -> np.ndarray | None:
    """The model's own explained output at ``X``, or None where it does not expose it."""
    from ..models.sklearn import model_output

    Xm = X
    if getattr(model, "feature_names_in_", None) is not None and not hasattr(X, "columns"):
        Xm = require("pandas", "reports").DataFrame(X, columns=list(model.feature_names_in_))
    try:
        return np.asarray(model_output(model, Xm), dtype=float)
    except Exception:
        return None


def _timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    t0 = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - t0


def _sample(X: Any, n: int, seed: int = 0) -> Any:
    if len(X) <= n:
        return X
    rows = np.sort(np.random.default_rng(seed).choice(len(X), size=n, replace=False))
    return X.iloc[rows] if hasattr(X, "iloc") else X[rows]


def _default_why(game: str, background: Any) -> str:
    title = get_game(game).title  # the games table's words for the game (kexplain.games)
    if game == "interventional":
        return f"{title}: a background was given ({len(background)} rows)"
    if game == "baseline":
        return f"{title}: a baseline row was given"
    return f"{get_game('functional').title}: no background was given (give one for shap's interventional values)"


def _speed(model: Any, X: Any, background: Any, n_rows: int, label: str) -> list[dict[str, Any]]:
    """Exact interventional values vs shap's KernelExplainer on the first ``n_rows`` rows."""
    from ..explainers import ProductKernelExplainer

    shap = require("shap", "the comparison with shap's KernelExplainer")
    rows = X[:n_rows] if not hasattr(X, "iloc") else X.iloc[:n_rows]
    explainer = ProductKernelExplainer(model, background)
    explainer.explain(rows[:1])  # warm-up: compiled kernels load once
    exact, t_exact = _timed(lambda: explainer.explain(rows))
    Bk = np.asarray(background, dtype=float)

    def f(Z: np.ndarray) -> np.ndarray:
        out = _model_output(model, Z)
        if out is None:
            raise ValueError("the model does not expose the explained output")
        return out

    kernel = shap.KernelExplainer(f, Bk)
    values, t_kernel = _timed(lambda: kernel.shap_values(np.asarray(rows, dtype=float), silent=True))
    values = np.stack(values, axis=-1) if isinstance(values, list) else np.asarray(values)
    err = float(np.max(np.abs(values.reshape(exact.values.shape) - exact.values)))
    note = (
        f"Both on the first {len(rows)} explained rows, in the interventional game over {label}; shap's "
        "KernelExplainer with its default number of coalitions (2d + 2048 per row) fits a weighted regression; "
        "kexplain's values are exact."
    )
    return [
        {"method": "kexplain (exact)", "rows": len(rows), "seconds": t_exact, "max_error": 0.0, "note": note},
        {"method": "shap KernelExplainer", "rows": len(rows), "seconds": t_kernel, "max_error": err},
    ]


def _check_arguments(
    X: Any, background: Any, index: Sequence[Any] | None, kernel_shap_rows: Any, top_features: Any, table_rows: Any
) -> list[Any] | None:
    """Refuse, before any work, what would fail later in another function's words; the labels of
    ``index`` as a list (they are attached after the rows are explained)."""
    for name, value in (("kernel_shap_rows", kernel_shap_rows), ("top_features", top_features)):
        check_param(value, name, Integer(0))
    check_param(table_rows, "table_rows", Integer(0))
    for name, rows in (("X", X), ("background", background)):
        if (rows is not None or name == "X") and (not hasattr(rows, "__len__") or isinstance(rows, (str, bytes))):
            raise TypeError(f"{name} must be a 2-D array-like or DataFrame of rows, got {type(rows).__name__}.")
    if index is None:
        return None
    labels = list(index)
    if len(labels) != len(X):
        raise ValueError(f"index has {len(labels)} labels for the {len(X)} rows of X; pass one label per row.")
    if any(np.ndim(label) != 0 for label in labels):
        raise ValueError("index must be one label (a scalar) per row of X, got nested sequences or arrays.")
    return labels


def model_report(
    model: Any,
    X: Any,
    out: str | Path,
    *,
    background: Any = None,
    rows: Sequence[int] = (0,),
    interactions: bool | str = False,
    title: str | None = None,
    summary: Mapping[str, Any] | None = None,
    why: str | None = None,
    notes: Sequence[str] = (),
    kernel_shap_rows: int = 5,
    top_features: int = 3,
    n_jobs: int | None = None,
    feature_names: Sequence[str] | None = None,
    index: Sequence[Any] | None = None,
    table_rows: int = 500,
) -> dict[str, Any]:
    """Explain a model on rows ``X`` exactly and write an HTML report to ``out/index.html``.

    The report states which output and game are explained (and ``why``), checks efficiency
    against the model's own output, times construction and explanation after a warm-up call (so
    the one-time load of the compiled kernels is shown apart), compares with the other game
    (functional vs interventional) through shap's bar plot of both, times shap's
    KernelExplainer against the exact values on ``kernel_shap_rows`` rows, and draws shap's
    bar and beeswarm plots, waterfalls of ``rows``, dependence plots of the ``top_features``
    most important features and, with ``interactions``, a heatmap of the interaction values.
    The values of every row go to ``out/values.csv`` (long layout).

    Parameters
    ----------
    model : fitted model
        Anything :class:`kexplain.ProductKernelExplainer` accepts.
    X : array-like or DataFrame of shape (N, d)
        The rows to explain.
    out : str or Path
        Output folder (made when missing).
    background : array-like, optional
        Background rows: the interventional game; without, the functional baseline.
    rows : sequence of int
        Positions (0-based) of the rows that get a waterfall plot.
    interactions : bool or {"sii", "stii"}
        Also compute interaction values and draw their heatmap: True or ``"sii"`` gives the
        Shapley interaction index in shap TreeExplainer's layout, ``"stii"`` the Shapley-Taylor
        index as shap's ExactExplainer gives it.
    title : str, optional
        Page title; default names the explained output.
    summary : mapping, optional
        Model facts, shown as a table of name and value.
    why : str, optional
        Why this game is explained.
    notes : sequence of str
        Free paragraphs added to the page.
    kernel_shap_rows : int
        Rows for the comparison with shap's KernelExplainer (0: none).
    top_features : int
        Dependence plots for this many features.
    n_jobs : int, optional
        Threads for the explanation.
    feature_names, index : sequence, optional
        Feature labels and row ids.
    table_rows : int
        Rows shown in the page's table of values.

    Returns
    -------
    dict
        ``report`` and ``values`` (paths), ``explanation``, ``other`` (the other game),
        ``predictions``, ``efficiency`` ({label: (absolute, relative)}), ``timings``, ``speed``.

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> from sklearn.svm import SVR
    >>> from kexplain.report import model_report
    >>> X = np.random.default_rng(0).normal(size=(30, 3))
    >>> result = model_report(SVR().fit(X, X[:, 0]), X[:6], tempfile.mkdtemp(), background=X[10:20],
    ...                       kernel_shap_rows=2, top_features=1)  # doctest: +SKIP
    >>> result["report"].name  # doctest: +SKIP
    'index.html'
    """
    from ..explainers import ProductKernelExplainer

    require("jinja2", "kexplain reports")
    index = _check_arguments(X, background, index, kernel_shap_rows, top_features, table_rows)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    timings: dict[str, float] = {}
    head = X[:1] if not hasattr(X, "iloc") else X.iloc[:1]
    # warm-up on one row and a tiny background: the compiled kernels load (or compile) once here
    _, first_call = _timed(
        lambda: ProductKernelExplainer(model, None if background is None else background[:2]).explain(
            head, interactions=interactions
        )
    )
    explainer, timings["construction (model and background tables)"] = _timed(
        lambda: ProductKernelExplainer(model, background, feature_names=feature_names)
    )
    explainer.explain(head)
    ex, seconds = _timed(lambda: explainer.explain(X, interactions=interactions, n_jobs=n_jobs))
    timings[f"explain {len(ex)} rows{' with interactions' if interactions else ''}"] = seconds
    if index is not None:
        ex.index = index
    predictions = _model_output(model, X)
    main_label = get_game(explainer.game).label
    if explainer.game == "functional":
        other_bg = _sample(X, 100)
        other_label = f"interventional ({len(other_bg)} explained rows as background)"
        other_explainer = ProductKernelExplainer(model, other_bg, feature_names=feature_names)
    else:
        other_bg = background if background is not None else _sample(X, 100)
        other_label = get_game("functional").label
        other_explainer = ProductKernelExplainer(model, feature_names=feature_names)
    other_explainer.explain(head)
    other, timings[f"explain {len(ex)} rows, {other_label}"] = _timed(lambda: other_explainer.explain(X, n_jobs=n_jobs))
    games = {main_label: ex, other_label: other}
    efficiency = efficiency_errors(games, predictions.reshape(ex.predictions.shape)) if predictions is not None else {}
    speed: list[dict[str, Any]] = []
    if kernel_shap_rows > 0 and predictions is not None:
        bk = background if background is not None else other_bg
        bk = _sample(bk, 100)
        bk_label = f"{len(bk)} {'background' if background is not None else 'explained'} rows"
        speed = _speed(model, X, bk, min(kernel_shap_rows, len(ex)), bk_label)
    timings_shown = dict(timings)
    timings["first call (one-time load or compilation of kernels)"] = first_call
    timings_shown["first call on one row (one-time kernel load; not counted above)"] = first_call
    figures = output_figures(ex, games, main_label, other_label, rows, top_features, interactions)
    values_path = out / "values.csv"
    # written whole under a temporary name, then renamed: an interrupted run leaves no partial file
    write_atomically(values_path, lambda tmp: ex.to_frame("long").to_csv(tmp, index=False))
    report_path = write_html(
        out / "index.html",
        games,
        title=title or f"kexplain report: {ex.output or 'model output'}",
        summary=summary,
        why={main_label: why or _default_why(explainer.game, background), other_label: "shown for comparison"},
        timings=timings_shown,
        predictions=None if predictions is None else predictions.reshape(ex.predictions.shape),
        figures=figures,
        speed=speed,
        notes=list(notes) + [f"Values of every row: {values_path.name} (columns row, output, feature, value)."],
        table_rows=table_rows,
    )
    return {
        "report": report_path,
        "values": values_path,
        "explanation": ex,
        "other": other,
        "predictions": predictions,
        "efficiency": efficiency,
        "timings": timings,
        "speed": speed,
    }

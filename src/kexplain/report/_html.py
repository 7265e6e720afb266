"""The report page, rendered from the package's jinja2 templates with autoescaping on."""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .. import games as game_table
from .._files import write_atomically
from .._optional import require
from ..explanation import Explanation
from ._numbers import (
    GAME_DESCRIPTIONS,
    Explanations,
    _check_explanations,
    _fmt,
    compare_games,
    efficiency_errors,
    importance_table,
)


def _environment() -> Any:
    """The jinja2 environment of ``kexplain/templates`` (autoescape on for every template)."""
    jinja2 = require("jinja2", "kexplain reports")
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("kexplain", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["fmt"] = _fmt
    env.tests["number"] = lambda x: (
        isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_))
    )
    return env


def _png(src: Any, caption: str) -> str:
    """A ``data:`` URI of a PNG given as bytes or a path."""
    if isinstance(src, (str, Path)):
        data = Path(src).read_bytes()
    elif isinstance(src, (bytes, bytearray)):
        data = bytes(src)
    else:
        raise TypeError(f"figures[{caption!r}] must be PNG bytes or a path to a PNG file, got {type(src).__name__}.")
    if not data.startswith(b"\x89PNG"):
        raise ValueError(f"figures[{caption!r}] is not a PNG image.")
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


def _description(ex: Explanation, label: str) -> str:
    """The games table's description of the explanation's game (by its label for a game of the user's)."""
    record = ex.game_record
    if record is not game_table.CUSTOM:
        return record.description
    return GAME_DESCRIPTIONS.get(label, "")


def _efficiency(explanations: dict[str, Any], predictions: Any) -> tuple[str, list[dict[str, Any]]]:
    if predictions is not None:
        errs = efficiency_errors(explanations, predictions)
        source = "the model's own outputs"
    else:
        errs = {}
        for label, ex in explanations.items():
            v_full = ex.v_full
            if v_full is not None:
                v_full = np.asarray(v_full).reshape(ex.predictions.shape)
                err = float(np.max(np.abs(ex.predictions - v_full)))
                errs[label] = (err, err / max(1.0, float(np.max(np.abs(v_full)))))
        source = "the value of the full coalition"
    return source, [{"label": k, "abs": a, "rel": r, "ok": r <= 1e-8} for k, (a, r) in errs.items()]


def _speedup(speed: Sequence[Mapping[str, Any]] | None) -> float | None:
    """Seconds of the second row of the speed table over the first (None without both)."""
    if not speed or len(speed) < 2 or not speed[0].get("seconds"):
        return None
    return float(speed[1]["seconds"]) / float(speed[0]["seconds"])


def _values_table(ex: Any, max_rows: int) -> dict[str, Any]:
    """Rows (id, output, prediction, base value, values) of the first ``max_rows`` explained rows."""
    n = min(len(ex), max_rows)
    vals = ex.values if ex.values.ndim == 3 else ex.values[:, :, None]
    base = ex.base_values if ex.base_values.ndim == 2 else ex.base_values[:, None]
    ids = ex.index if ex.index is not None else list(range(len(ex)))
    multi = ex.n_outputs > 1
    rows = []
    for i in range(n):
        for o, out in enumerate(ex.output_names):
            cells = [base[i, o] + vals[i, :, o].sum(), base[i, o], *vals[i, :, o]]
            rows.append({"id": ids[i], "output": out if multi else None, "cells": cells})
    return {"features": list(ex.feature_names), "rows": rows, "shown": n, "total": len(ex), "multi": multi}


def render_html(
    explanations: Explanations,
    *,
    title: str = "kexplain report",
    summary: Mapping[str, Any] | Iterable[tuple[str, Any]] | None = None,
    why: str | Mapping[str, str] | None = None,
    timings: Mapping[str, float] | None = None,
    predictions: Any = None,
    figures: Mapping[str, Mapping[str, Any]] | None = None,
    speed: Sequence[Mapping[str, Any]] | None = None,
    notes: Iterable[str] | None = None,
    table_rows: int = 200,
) -> str:
    """The report as one self-contained HTML page (styles, script and images inside).

    Rendered from the jinja2 templates in ``kexplain/templates`` with autoescaping on: every name
    and number from the data is escaped, so a feature called ``<b>x</b>`` shows as text.

    Parameters
    ----------
    explanations : Explanation or dict {label: Explanation}
        Explanations of the same points; the first is the one reported (values table, output);
        with two or more, a comparison section says how they differ.
    title : str
        The report's title.
    summary : dict or list of (name, value), optional
        Model and data facts (model, parameters, scores).
    why : str or dict {label: str}, optional
        Why each game was used (e.g. ``"interventional game: --background given"``).
    timings : dict {step: seconds}, optional
    predictions : array, optional
        The model's own outputs for the explained points: the efficiency check compares
        values + base value with them (else with the recorded value of the full coalition).
    figures : dict {section heading: {caption: PNG bytes or path}}, optional
        Sections of embedded images, in order.
    speed : list of dict, optional
        Rows of the speed comparison table (``method``, ``rows``, ``seconds``, ``max_error``...).
    notes : list of str, optional
        Paragraphs of a "Notes" section.
    table_rows : int
        Rows of the searchable table of per-row values (0: no table).

    Returns
    -------
    str
        The report as one self-contained HTML document.

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> ex = kx.Explanation(np.array([[1.0, 2.0]]), 0.5, feature_names=["<b>x</b>", "y"], game="functional")
    >>> page = kx.report.render_html(ex, summary={"model": "toy"}, predictions=[3.5])
    >>> page.startswith("<!DOCTYPE html>"), 'id="efficiency"' in page, "&lt;b&gt;x&lt;/b&gt;" in page
    (True, True, True)
    """
    from .. import __version__

    explanations = _check_explanations(explanations)
    labels = list(explanations)
    first = explanations[labels[0]]
    why_map = {labels[0]: why} if isinstance(why, str) else dict(why or {})
    games = [
        {
            "label": label,
            "game": ex.game,
            "output": ex.output,
            "why": why_map.get(label, ""),
            "description": _description(ex, label),
        }
        for label, ex in explanations.items()
    ]
    source, efficiency = _efficiency(explanations, predictions)
    names, _, mat = importance_table(explanations)
    comparisons = [
        {"a": labels[0], "b": other, "stats": list(compare_games(first, explanations[other]).items())}
        for other in labels[1:]
    ]
    sections = [
        {
            "heading": heading,
            "id": "fig-" + "".join(c if c.isalnum() else "-" for c in heading.lower()).strip("-"),
            "images": [{"caption": str(cap), "src": _png(src, str(cap))} for cap, src in images.items()],
        }
        for heading, images in (figures or {}).items()
    ]
    items = list(summary.items() if isinstance(summary, Mapping) else summary or [])
    context = {
        "title": title,
        "n_points": len(first),
        "n_features": first.values.shape[1],
        "output_names": list(first.output_names),
        "games": games,
        "summary": items,
        "timings": [(k, float(v)) for k, v in (timings or {}).items()],
        "efficiency_source": source,
        "efficiency": efficiency,
        "importance": {
            "labels": labels,
            "rows": list(zip(names, mat.tolist())),
            "multi": first.n_outputs > 1,
            # with several outputs, each output's own table after the average (ordered by its own importance)
            "per_output": [
                {"name": out, "rows": list(zip(*_rows_of(importance_table(explanations, output=o))))}
                for o, out in enumerate(first.output_names)
            ]
            if first.n_outputs > 1
            else [],
        },
        "comparisons": comparisons,
        "sections": sections,
        "speed": list(speed or []),
        "speedup": _speedup(speed),
        "table": _values_table(first, table_rows) if table_rows > 0 else None,
        "notes": [str(n) for n in (notes or [])],
        "version": __version__,
    }
    return str(_environment().get_template("report.html").render(**context))


def write_html(path: str | Path, explanations: Explanations, **kwargs: Any) -> Path:
    """Write :func:`render_html` to ``path`` (UTF-8) and return the path.

    Parameters
    ----------
    path : str or Path
        Where to write the HTML file.
    explanations : Explanation or dict {label: Explanation}
    **kwargs
        Passed to :func:`render_html`.

    Returns
    -------
    Path
        The path written.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import numpy as np
    >>> import kexplain as kx
    >>> ex = kx.Explanation(np.array([[1.0, 2.0]]), 0.5, feature_names=["x", "y"])
    >>> path = kx.report.write_html(pathlib.Path(tempfile.mkdtemp()) / "r.html", ex, title="toy")
    >>> "<title>toy</title>" in path.read_text()
    True
    """
    text = render_html(explanations, **kwargs)
    # a temporary file renamed into place: never a half-written page, never through a symbolic link
    return write_atomically(Path(path), lambda tmp: tmp.write_text(text, encoding="utf-8"))


def _rows_of(table: tuple[list[str], list[str], Any]) -> tuple[list[str], list[list[float]]]:
    """(feature names, rows of values) of an ``importance_table`` result."""
    names, _, mat = table
    return names, mat.tolist()

"""Compact HTML tables for notebooks: what ``_repr_html_`` of the result types returns.

Every name, title and label is escaped (a feature may be called ``<b>x</b>``); the tables hold
numbers and text only, no scripts, so they render the same in Jupyter, VS Code and sphinx-gallery.
"""

from __future__ import annotations

from html import escape
from typing import Any

import numpy as np

_STYLE = "border-collapse:collapse;font-family:monospace;font-size:90%"
_CELL = "padding:2px 8px;text-align:left;border-bottom:1px solid #ddd"


def _fmt(x: float) -> str:
    return f"{x:.4g}"


def _rows(pairs: list[tuple[str, str]]) -> str:
    cell = f'style="{_CELL}"'
    return "".join(f"<tr><th {cell}>{escape(k)}</th><td {cell}>{escape(v)}</td></tr>" for k, v in pairs)


def _table(title: str, head: list[tuple[str, str]], columns: list[str], body: list[list[str]]) -> str:
    cols = "".join(f'<th style="{_CELL}">{escape(c)}</th>' for c in columns)
    lines = "".join("<tr>" + "".join(f'<td style="{_CELL}">{escape(c)}</td>' for c in row) + "</tr>" for row in body)
    return (
        f'<div class="kexplain-repr"><strong>{escape(title)}</strong>'
        f'<table style="{_STYLE}">{_rows(head)}</table>'
        f'<table style="{_STYLE}"><thead><tr>{cols}</tr></thead><tbody>{lines}</tbody></table></div>'
    )


def explanation_html(ex: Any, top: int = 10) -> str:
    """The HTML of ``Explanation._repr_html_``: game, output, base value, top features, efficiency.

    Parameters
    ----------
    ex : kexplain.Explanation
    top : int
        How many features to list (by mean absolute value over the rows and outputs).

    Returns
    -------
    str
    """
    values = np.asarray(ex.values)
    N, d = values.shape[:2]
    head = [("game", ex.game or "(not recorded)"), ("output", ex.output or ", ".join(ex.output_names))]
    head.append(("rows × features", f"{N} × {d}" + (f" × {values.shape[2]} outputs" if values.ndim == 3 else "")))
    base = np.asarray(ex.base_values, dtype=np.float64)
    if base.size:
        lo, hi = float(base.min()), float(base.max())
        # what the base value is in this game, from the games table
        shown = _fmt(lo) if lo == hi else f"{_fmt(lo)} … {_fmt(hi)}"
        head.append(("base value", f"{shown} ({ex.game_record.base_label})"))
    eff = ex.efficiency_error
    if eff is not None:
        head.append(("efficiency check", f"largest |base + Σφ − f(x)| relative: {float(np.max(eff)):.1e}"))
    if ex.interactions is not None:
        index = ex.interaction_index or "sii"
        head.append(("interactions", f"pairwise, index {index}"))
    if ex.covariance is not None:
        head.append(("uncertainty", "posterior covariance of the values (ex.std, ex.interval())"))
    mean_abs = np.abs(values).mean(axis=(0, 2) if values.ndim == 3 else 0)
    order = np.argsort(-mean_abs, kind="stable")[: max(int(top), 1)]
    columns = ["feature", "mean |φ|"]
    body = []
    if N == 1:
        columns.append("φ (this row)")
    for j in order:
        row = [ex.feature_names[j], _fmt(float(mean_abs[j]))]
        if N == 1:
            row.append(_fmt(float(values[0, j].ravel()[0] if values.ndim == 3 else values[0, j])))
        body.append(row)
    if d > len(order):
        body.append([f"… {d - len(order)} more features", ""] + ([""] if N == 1 else []))
    return _table("kexplain.Explanation", head, columns, body)


def global_attribution_html(g: Any, top: int = 10) -> str:
    """The HTML of ``GlobalAttribution._repr_html_``: the number decomposed and its largest shares.

    Parameters
    ----------
    g : kexplain.GlobalAttribution
    top : int
        How many features to list (by absolute value).

    Returns
    -------
    str
    """
    values = np.asarray(g.values)
    head = [(g.quantity or "total", _fmt(g.total))]
    if getattr(g, "game", ""):
        head.append(("game", str(g.game)))
    if g.estimator:
        head.append(("estimator", str(g.estimator)))
    if g.p_value is not None:
        head.append(("p-value", _fmt(g.p_value)))
    head.append(("efficiency check", f"|Σφ − total| = {abs(float(values.sum()) - g.total):.1e}"))
    order = np.argsort(-np.abs(values), kind="stable")[: max(int(top), 1)]
    columns = ["feature", "value", "share"]
    if g.standard_errors is not None:
        columns.append("standard error")
    if g.p_values is not None:
        columns.append("p-value")
    body = []
    for j in order:
        share = values[j] / g.total if g.total != 0 else float("nan")
        row = [g.feature_names[j], _fmt(float(values[j])), f"{share:.1%}" if np.isfinite(share) else "–"]
        if g.standard_errors is not None:
            row.append(_fmt(float(g.standard_errors[j])))
        if g.p_values is not None:
            row.append(_fmt(float(g.p_values[j])))
        body.append(row)
    if len(values) > len(order):
        body.append([f"… {len(values) - len(order)} more features"] + [""] * (len(columns) - 1))
    return _table("kexplain.GlobalAttribution", head, columns, body)

"""A one-page, self-contained HTML report of one or several explanations of the same points.

    ex_f = kx.ProductKernelExplainer(model).explain(X)
    ex_i = kx.ProductKernelExplainer(model, background).explain(X)
    html = kx.report.render_html({"functional": ex_f, "interventional": ex_i},
                                 summary={"model": "SVR(C=10)"}, predictions=model.predict(X),
                                 images={"bar plot": png_bytes})
    kx.report.write_html("report.html", {...}, ...)

Everything (styles and images, as base64 PNG) is inside the one file, so it can be mailed or
archived without its folder.  Only the comparison chart needs matplotlib (extra ``plots``); without
it the report still has every table.
"""

from __future__ import annotations

import base64
import html
import io
import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from .explanation import Explanation
from .plots import global_importance

GAME_DESCRIPTIONS = {
    "functional": "functional baseline (PKeX): an absent feature is integrated out of the kernel (its "
    "kernel factor is set to 1); base value = sum of the coefficients + intercept.",
    "interventional": "interventional SHAP: an absent feature takes the values of the background rows, "
    "averaged over them; base value = mean prediction over the background.",
    "baseline": "baseline Shapley: an absent feature takes its value in one reference row; "
    "base value = prediction at that row.",
}

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1000px;margin:2em auto;
padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.2em;border-bottom:1px solid #ddd;padding-bottom:.2em;
margin-top:1.6em}
table{border-collapse:collapse;margin:.5em 0;font-size:.92em}
td,th{border:1px solid #ddd;padding:.25em .6em;text-align:left}th{background:#f4f4f4}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.ok{color:#13803d;font-weight:600}.bad{color:#c0392b;font-weight:600}
figure{display:inline-block;margin:.5em 1em .5em 0;vertical-align:top}
figure img{max-width:470px;border:1px solid #eee}figcaption{font-size:.85em;color:#555}
.muted{color:#666;font-size:.88em}
"""


#: what ``explanations=`` accepts: one Explanation or {label: Explanation}
Explanations = Explanation | Mapping[str, Explanation]


def _check_explanations(explanations: Any) -> dict[str, Explanation]:
    """``{label: Explanation}`` of explanations of the same points and features, else an error."""
    if isinstance(explanations, Explanation):
        explanations = {explanations.game or "explanation": explanations}
    if not isinstance(explanations, dict) or not explanations:
        raise ValueError("explanations must be a kexplain.Explanation or a non-empty dict {label: Explanation}.")
    first = None
    for label, ex in explanations.items():
        if not isinstance(ex, Explanation):
            raise TypeError(f"explanations[{label!r}] must be a kexplain.Explanation, got {type(ex).__name__}.")
        if first is None:
            first = ex
        elif list(ex.feature_names) != list(first.feature_names) or ex.values.shape != first.values.shape:
            raise ValueError(
                f"explanations[{label!r}] does not explain the same points and features as the first one "
                f"(shape {ex.values.shape} vs {first.values.shape})."
            )
    return {str(k): v for k, v in explanations.items()}


def figure_to_png(fig: Any, dpi: int = 110) -> bytes:
    """PNG bytes of a matplotlib figure (for ``images=``).

    Parameters
    ----------
    fig : matplotlib Figure
    dpi : int

    Returns
    -------
    bytes

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from kexplain.report import figure_to_png
    >>> fig = Figure(figsize=(1, 1))
    >>> _ = fig.add_subplot().plot([0, 1])
    >>> figure_to_png(fig)[:4]
    b'\x89PNG'
    """
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    return buf.getvalue()


def importance_table(
    explanations: Explanations, output: int | str | None = None
) -> tuple[list[str], list[str], np.ndarray]:
    """Global importance (mean |value|) per feature and explanation, ordered by the first.

    Parameters
    ----------
    explanations : Explanation or dict {label: Explanation}
        Explanations of the same points and features.
    output : int or str, optional
        Which output of multi-output explanations; default averages over outputs.

    Returns
    -------
    feature_names : list of str
        Ordered by the importance in the first explanation.
    labels : list of str
    matrix : ndarray of shape (d, n_explanations)

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> a = kx.Explanation(np.array([[1.0, -2.0]]), 0.0, feature_names=["x", "y"])
    >>> b = kx.Explanation(np.array([[0.5, 0.5]]), 0.0, feature_names=["x", "y"])
    >>> names, labels, mat = kx.report.importance_table({"a": a, "b": b})
    >>> names, labels, mat.tolist()
    (['y', 'x'], ['a', 'b'], [[2.0, 0.5], [1.0, 0.5]])
    """
    explanations = _check_explanations(explanations)
    labels = list(explanations)
    names = list(next(iter(explanations.values())).feature_names)
    mat = np.column_stack([global_importance(ex, output) for ex in explanations.values()])
    order = np.argsort(-mat[:, 0], kind="stable")
    return [names[j] for j in order], labels, mat[order]


def efficiency_errors(explanations: Explanations, predictions: Any) -> dict[str, tuple[float, float]]:
    """Largest |sum of values + base value - prediction| per explanation, absolute and relative to
    the largest |prediction| (at least 1).

    Parameters
    ----------
    explanations : Explanation or dict {label: Explanation}
    predictions : array-like
        The model's own outputs at the explained points, shaped like ``Explanation.predictions``.

    Returns
    -------
    dict {label: (absolute error, relative error)}

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> ex = kx.Explanation(np.array([[1.0, 2.0]]), 0.5, feature_names=["x", "y"], game="functional")
    >>> kx.report.efficiency_errors(ex, [3.5])
    {'functional': (0.0, 0.0)}
    """
    explanations = _check_explanations(explanations)
    pred = np.asarray(predictions, dtype=np.float64)
    out: dict[str, tuple[float, float]] = {}
    for label, ex in explanations.items():
        if pred.shape != ex.predictions.shape:
            raise ValueError(
                f"predictions has shape {pred.shape}, but explanations[{label!r}] explains outputs of shape "
                f"{ex.predictions.shape}."
            )
        err = float(np.max(np.abs(ex.predictions - pred))) if pred.size else 0.0
        out[label] = (err, err / max(1.0, float(np.max(np.abs(pred))) if pred.size else 1.0))
    return out


def compare_games(a: Explanation, b: Explanation) -> dict[str, float | bool]:
    """How far two explanations of the same points differ.

    Parameters
    ----------
    a, b : Explanation
        Explanations of the same points and features (e.g. two games).

    Returns
    -------
    dict
        Spearman correlation of the global importance ranking, Pearson correlation of all values,
        largest and mean |difference| of values and of base values, and whether the most
        important feature agrees.

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> a = kx.Explanation(np.array([[1.0, -2.0], [0.5, 1.0]]), 0.0, feature_names=["x", "y"])
    >>> b = kx.Explanation(np.array([[0.5, -1.0], [0.5, 2.0]]), 0.5, feature_names=["x", "y"])
    >>> stats = kx.report.compare_games(a, b)
    >>> stats["max |difference| of values"], stats["same most important feature"]
    (1.0, True)
    """
    from scipy.stats import spearmanr

    _check_explanations({"a": a, "b": b})
    ia, ib = global_importance(a), global_importance(b)
    va, vb = a.values.ravel(), b.values.ravel()
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = float(spearmanr(ia, ib).statistic) if ia.size > 1 else float("nan")
        r = float(np.corrcoef(va, vb)[0, 1]) if va.size > 1 else float("nan")
    return {
        "importance rank correlation (Spearman)": rho,
        "correlation of all values (Pearson)": r,
        "max |difference| of values": float(np.max(np.abs(va - vb))) if va.size else 0.0,
        "mean |difference| of values": float(np.mean(np.abs(va - vb))) if va.size else 0.0,
        "max |difference| of base values": float(np.max(np.abs(a.base_values - b.base_values))),
        "same most important feature": bool(np.argmax(ia) == np.argmax(ib)),
    }


def _fmt(x: Any) -> str:
    """A table cell's text: yes/no, integers, 4 significant digits or scientific notation."""
    if isinstance(x, (bool, np.bool_)):
        return "yes" if x else "no"
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, (float, np.floating)):
        x = float(x)
        if math.isnan(x):
            return "n/a"
        if x != 0 and (abs(x) < 1e-3 or abs(x) >= 1e5):
            return f"{x:.3e}"
        return f"{x:.4g}"
    return str(x)


def _cell(x: Any) -> str:
    """A ``<td>``, right-aligned for numbers."""
    num = isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_))
    return f'<td class="num">{html.escape(_fmt(x))}</td>' if num else f"<td>{html.escape(_fmt(x))}</td>"


def _kv_table(items: Iterable[tuple[Any, Any]]) -> str:
    """A two-column HTML table of (name, value) pairs."""
    rows = "".join(f"<tr><th>{html.escape(str(k))}</th>{_cell(v)}</tr>" for k, v in items)
    return f"<table>{rows}</table>"


def _image(src: Any, caption: str) -> str:
    """An embedded base64 PNG figure with a caption, from bytes or a path."""
    if isinstance(src, (str, Path)):
        data = Path(src).read_bytes()
    elif isinstance(src, (bytes, bytearray)):
        data = bytes(src)
    else:
        raise TypeError(f"images[{caption!r}] must be PNG bytes or a path to a PNG file, got {type(src).__name__}.")
    if not data.startswith(b"\x89PNG"):
        raise ValueError(f"images[{caption!r}] is not a PNG image.")
    b64 = base64.b64encode(data).decode("ascii")
    return (
        f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{b64}">'
        f"<figcaption>{html.escape(caption)}</figcaption></figure>"
    )


def _comparison_chart(explanations: dict[str, Explanation]) -> bytes | None:
    """PNG of :func:`kexplain.plots.compare_importance`, or None without matplotlib."""
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    from .plots import compare_importance

    ax = compare_importance(explanations)
    try:
        return figure_to_png(ax.figure)
    finally:
        plt.close(ax.figure)


def render_html(
    explanations: Explanations,
    *,
    title: str = "kexplain report",
    summary: Mapping[str, Any] | Iterable[tuple[str, Any]] | None = None,
    timings: Mapping[str, float] | None = None,
    predictions: Any = None,
    images: Mapping[str, Any] | None = None,
    notes: Iterable[str] | None = None,
    comparison_chart: bool = True,
) -> str:
    """The report as one HTML string.

    Parameters
    ----------
    explanations : Explanation or dict {label: Explanation} of the same points; a label that is a
        game name ("functional", "interventional", "baseline") gets its description.
    summary : dict or list of (name, value), optional
        Model and data facts shown first (model, parameters, CV score, ...).
    timings : dict {step: seconds}, optional
    predictions : array, optional
        The model's own outputs for the explained points; the efficiency check (values + base
        value = prediction) is shown against them.  Without it, against the explanation's own
        full-coalition value where recorded.
    images : dict {caption: PNG bytes or path}, optional
        Embedded as base64.
    notes : list of str, optional
        Free text paragraphs at the end.
    comparison_chart : bool
        With two or more explanations, draw ``kx.plots.compare_importance`` (needs matplotlib).

    Returns
    -------
    str
        A complete HTML document.

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> ex = kx.Explanation(np.array([[1.0, 2.0]]), 0.5, feature_names=["x", "y"], game="functional")
    >>> page = kx.report.render_html(ex, summary={"model": "toy"}, predictions=[3.5])
    >>> page.startswith("<!DOCTYPE html>"), "id='efficiency'" in page, "pass" in page
    (True, True, True)
    """
    explanations = _check_explanations(explanations)
    first = next(iter(explanations.values()))
    parts = [
        f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        f"<style>{_CSS}</style></head><body><h1>{html.escape(title)}</h1>"
    ]
    n_points, d = first.values.shape[:2]
    parts.append(
        f"<p class='muted'>{n_points} explained points, {d} features, "
        f"{first.n_outputs} output(s): {html.escape(', '.join(first.output_names))}.</p>"
    )

    if summary:
        items = summary.items() if isinstance(summary, Mapping) else summary
        parts.append("<h2 id='model'>Model</h2>" + _kv_table(items))

    if timings:
        parts.append("<h2 id='timings'>Timings</h2>" + _kv_table((k, f"{float(v):.3f} s") for k, v in timings.items()))

    parts.append("<h2 id='efficiency'>Efficiency check</h2>")
    if predictions is not None:
        errs = efficiency_errors(explanations, predictions)
        source = "the model's own predictions"
    else:
        errs = {}
        for label, ex in explanations.items():
            v_full = ex.info.get("v_full")
            if v_full is not None:
                v_full = np.asarray(v_full).reshape(ex.predictions.shape)
                err = float(np.max(np.abs(ex.predictions - v_full)))
                errs[label] = (err, err / max(1.0, float(np.max(np.abs(v_full)))))
        source = "the value of the full coalition"
    if errs:
        rows = "".join(
            f"<tr><td>{html.escape(label)}</td>{_cell(abs_err)}{_cell(rel_err)}"
            f"<td class='{'ok' if rel_err <= 1e-8 else 'bad'}'>{'pass' if rel_err <= 1e-8 else 'FAIL'}</td></tr>"
            for label, (abs_err, rel_err) in errs.items()
        )
        parts.append(
            f"<p>Largest |sum of Shapley values + base value &minus; output| over the explained points, "
            f"against {source} (pass: relative error at most 1e-8).</p>"
            f"<table><tr><th>game</th><th>absolute</th><th>relative</th><th></th></tr>{rows}</table>"
        )
    else:
        parts.append("<p class='muted'>No predictions given; not checked.</p>")

    names, labels, mat = importance_table(explanations)
    head = "".join(f"<th>{html.escape(lb)}</th>" for lb in labels)
    body = "".join(
        f"<tr><td>{i + 1}</td><td>{html.escape(n)}</td>" + "".join(_cell(float(v)) for v in mat[i]) + "</tr>"
        for i, n in enumerate(names)
    )
    parts.append(
        "<h2 id='importance'>Global importance</h2><p>Mean |Shapley value| per feature"
        + (" (averaged over outputs)" if first.n_outputs > 1 else "")
        + f", ordered by {html.escape(labels[0])}.</p>"
        f"<table><tr><th>#</th><th>feature</th>{head}</tr>{body}</table>"
    )

    if len(explanations) >= 2:
        parts.append("<h2 id='comparison'>Comparison of the games</h2><ul>")
        for label in labels:
            desc = GAME_DESCRIPTIONS.get(explanations[label].game) or GAME_DESCRIPTIONS.get(label)
            if desc:
                parts.append(f"<li><b>{html.escape(label)}</b>: {html.escape(desc)}</li>")
        parts.append("</ul>")
        for other in labels[1:]:
            stats = compare_games(explanations[labels[0]], explanations[other])
            parts.append(f"<p>{html.escape(labels[0])} vs {html.escape(other)}:</p>" + _kv_table(stats.items()))
        if comparison_chart:
            png = _comparison_chart(explanations)
            if png is not None:
                parts.append(_image(png, "global importance of the games side by side"))

    if images:
        parts.append("<h2 id='plots'>Plots</h2>")
        parts.extend(_image(src, str(caption)) for caption, src in images.items())

    if notes:
        parts.append("<h2 id='notes'>Notes</h2>")
        parts.extend(f"<p>{html.escape(str(n))}</p>" for n in notes)

    from . import __version__

    parts.append(
        f"<p class='muted'>Written by kexplain {html.escape(__version__)}; Shapley values are exact "
        "(product-kernel games solved by Gauss-Legendre quadrature).</p></body></html>"
    )
    return "".join(parts)


def write_html(path: str | Path, explanations: Explanations, **kwargs: Any) -> Path:
    """Write :func:`render_html` to ``path`` (UTF-8) and return the path.

    Parameters
    ----------
    path : str or Path
    explanations : Explanation or dict {label: Explanation}
    **kwargs
        Passed to :func:`render_html`.

    Returns
    -------
    Path

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
    path = Path(path)
    path.write_text(render_html(explanations, **kwargs), encoding="utf-8")
    return path

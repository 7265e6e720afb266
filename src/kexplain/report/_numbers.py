"""The numbers of a report: importance, efficiency, how two games differ."""

from __future__ import annotations

import io
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from .. import games
from ..explanation import Explanation
from ..plots import global_importance

#: the description of every game of the table (a read-only view of kexplain.games)
GAME_DESCRIPTIONS: Mapping[str, str] = games.field_view("description")

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
        The figure to render.
    dpi : int
        Resolution in dots per inch.

    Returns
    -------
    bytes
        The PNG file's bytes.

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
    """Global importance (mean absolute value) per feature and explanation, ordered by the first.

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
        The label of each explanation, in the order given.
    matrix : ndarray of shape (d, n_explanations)
        The mean absolute value of each feature (row, in the order of ``feature_names``) in each
        explanation (column).

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
    """Largest ``|sum of values + base value - prediction|`` per explanation.

    Both absolute and relative to the largest ``|prediction|`` (at least 1).

    Parameters
    ----------
    explanations : Explanation or dict {label: Explanation}
        Explanations of the same points.
    predictions : array-like
        The model's own outputs at the explained points, shaped like ``Explanation.predictions``.

    Returns
    -------
    dict {label: (absolute error, relative error)}
        The largest absolute and relative efficiency error of each explanation.

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
        largest and mean absolute difference of values and of base values, and whether the most
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

"""Values with credible intervals: bars and waterfall of one row, and which values exclude zero.

For explanations with a posterior ``covariance`` (``explain(X, uncertainty=True)`` of a
Gaussian-process model; stochastic Shapley values of Chau, Muandet & Sejdinovic, 2023).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._optional import require
from ..explanation import Explanation
from ._common import _NEG, _POS, _max_display, _one_output, _row_posterior, _z, base_label, plot_title


def _top(
    values: np.ndarray, cov: np.ndarray, names: list[str], max_display: int
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """The max_display - 1 largest |values| and, if more remain, their sum with its exact variance."""
    d = values.shape[0]
    order = np.argsort(-np.abs(values), kind="stable")
    if d <= max_display:
        return [names[j] for j in order], values[order], np.diag(cov)[order]
    shown, rest = order[: max_display - 1], order[max_display - 1 :]
    labels = [names[j] for j in shown] + [f"sum of {rest.size} other features"]
    vals = np.r_[values[shown], values[rest].sum()]
    var = np.r_[np.diag(cov)[shown], cov[np.ix_(rest, rest)].sum()]  # Var of a sum: all covariances
    return labels, vals, var


def bar_intervals(
    explanation: Explanation,
    row: int = 0,
    *,
    level: float = 0.95,
    output: int | str | None = None,
    max_display: int = 10,
    ax: Any = None,
) -> Any:
    """One row's values as bars with credible intervals (error bars), largest first.

    Features beyond ``max_display - 1`` are summed into one bar whose interval uses the full
    covariance of the summed values (not the sum of their variances).

    Parameters
    ----------
    explanation : Explanation
        With ``covariance`` (``explain(X, uncertainty=True)``).
    row : int
        Which row (point) of the explanation.
    level : float
        Probability inside each interval (Gaussian posterior).
    output : int or str, optional
        Which output of a multi-output explanation.
    max_display : int
        Number of features shown, the most important first.
    ax : matplotlib Axes, optional
        Draw into this Axes; a new figure is made otherwise.

    Returns
    -------
    matplotlib Axes
        The Axes drawn into.

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> ex = kx.Explanation(np.array([[1.0, -0.2]]), 0.0, covariance=np.diag([0.04, 0.09])[None])
    >>> ax = kx.plots.bar_intervals(ex)  # doctest: +SKIP
    """
    plt = require("matplotlib.pyplot", "kexplain.plots.bar_intervals")
    ex, r, cov = _row_posterior(explanation, row, output)
    z = _z(level)
    labels, vals, var = _top(ex.values[r], cov, list(ex.feature_names), _max_display(max_display))
    if ax is None:
        _, ax = plt.subplots(figsize=(7.0, 0.45 * len(labels) + 1.3))
    y = np.arange(len(labels))[::-1].astype(float)
    colors = [_POS if v >= 0 else _NEG for v in vals]
    ax.barh(y, vals, color=colors, height=0.7)
    ax.errorbar(vals, y, xerr=z * np.sqrt(np.clip(var, 0, None)), fmt="none", ecolor="#333333", capsize=3, lw=1)
    ax.axvline(0.0, color="#999999", lw=0.8)
    ax.set_yticks(y)
    ax.set_yticklabels(labels)
    ax.set_xlabel(f"Shapley value with {100 * float(level):g}% credible interval")
    ax.set_title(plot_title(ex), fontsize=10)
    ax.spines[["top", "right"]].set_visible(False)
    ax.figure.tight_layout()
    return ax


def waterfall_intervals(
    explanation: Explanation,
    row: int = 0,
    *,
    level: float = 0.95,
    output: int | str | None = None,
    max_display: int = 10,
    ax: Any = None,
) -> Any:
    """A waterfall of one row's values from the base value to the prediction, with credible intervals.

    Each step carries the interval of its own value; the base value and the prediction carry
    theirs where the explanation has ``base_variance`` and ``prediction_variance``.  The base
    value is labelled as the game makes it true (:func:`base_label`).

    Parameters
    ----------
    explanation : Explanation
        With ``covariance``.
    row : int
        Which row (point) of the explanation.
    level : float
        Probability inside each central credible interval.
    output : int or str, optional
        Which output of a multi-output explanation.
    max_display : int
        Number of features shown, the most important first.
    ax : matplotlib Axes, optional
        Draw into this Axes; a new figure is made otherwise.

    Returns
    -------
    matplotlib Axes
        The Axes drawn into.

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> ex = kx.Explanation(np.array([[1.0, -0.2]]), 3.0, covariance=np.diag([0.04, 0.09])[None])
    >>> ax = kx.plots.waterfall_intervals(ex)  # doctest: +SKIP
    """
    plt = require("matplotlib.pyplot", "kexplain.plots.waterfall_intervals")
    ex, r, cov = _row_posterior(explanation, row, output)
    z = _z(level)
    labels, vals, var = _top(ex.values[r], cov, list(ex.feature_names), _max_display(max_display))
    labels, vals, var = labels[::-1], vals[::-1], var[::-1]  # smallest at the bottom, drawn from the base up
    base = float(ex.base_values[r])
    n = len(labels)
    if ax is None:
        _, ax = plt.subplots(figsize=(7.5, 0.45 * n + 1.8))
    starts = base + np.r_[0.0, np.cumsum(vals)[:-1]]
    y = np.arange(n, dtype=float)
    ax.barh(y, vals, left=starts, color=[_POS if v >= 0 else _NEG for v in vals], height=0.7)
    ax.errorbar(starts + vals, y, xerr=z * np.sqrt(np.clip(var, 0, None)), fmt="none", ecolor="#333333", capsize=3)
    for k in range(n - 1):  # connectors between consecutive steps
        ax.plot([starts[k] + vals[k]] * 2, [y[k] + 0.35, y[k + 1] - 0.35], color="#999999", lw=0.8)
    fx = base + float(vals.sum())

    def annotate(value: float, variance: Any, label: str, at: float) -> None:
        text = f"${label}$ = {value:.3g}"
        if variance is not None:
            text += f" ± {z * np.sqrt(max(float(variance), 0.0)):.3g}"
        ax.axvline(value, color="#999999", ls="--", lw=0.8)
        ax.annotate(text, (value, at), textcoords="offset points", xytext=(4, 0), fontsize=9, va="center")

    bv = None if ex.base_variance is None else ex.base_variance[r]
    pv = None if ex.prediction_variance is None else ex.prediction_variance[r]
    annotate(base, bv, base_label(ex.game), -0.9)
    annotate(fx, pv, "f(x)", n - 0.1)
    ax.set_ylim(-1.4, n + 0.4)
    ax.set_yticks(y)
    ax.set_yticklabels(labels)
    ax.set_xlabel(f"model output; bars: Shapley values with {100 * float(level):g}% credible intervals")
    ax.set_title(plot_title(ex), fontsize=10)
    ax.spines[["top", "right"]].set_visible(False)
    ax.figure.tight_layout()
    return ax


def excludes_zero(explanation: Explanation, level: float = 0.95, *, output: int | str | None = None) -> np.ndarray:
    """Which values are distinguishable from zero: +1 (interval above 0), -1 (below) or 0 (contains 0).

    Parameters
    ----------
    explanation : Explanation
        With ``covariance``.
    level : float
        Probability inside each central credible interval.
    output : int or str, optional
        Which output of a multi-output explanation.

    Returns
    -------
    ndarray of int, shape (N, d)
        ``np.abs(excludes_zero(ex)).mean(axis=0)`` is the fraction of points whose interval
        excludes zero, per feature.

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> ex = kx.Explanation(np.array([[1.0, -0.2, -1.0]]), 0.0, covariance=np.diag([0.04, 0.09, 0.04])[None])
    >>> kx.plots.excludes_zero(ex)
    array([[ 1,  0, -1]])
    """
    ex = _one_output(explanation, output)
    if ex.covariance is None:
        _row_posterior(ex, 0, None)  # the error that says how to get a covariance
    z = _z(level)
    sd = np.sqrt(np.clip(np.diagonal(np.asarray(ex.covariance), axis1=1, axis2=2), 0.0, None))
    lower, upper = ex.values - z * sd, ex.values + z * sd
    return (lower > 0).astype(int) - (upper < 0).astype(int)


def distinguishable(
    explanation: Explanation,
    *,
    level: float = 0.95,
    output: int | str | None = None,
    max_display: int = 10,
    ax: Any = None,
) -> Any:
    """Per feature, the fraction of points whose credible interval excludes zero (above / below).

    Parameters
    ----------
    explanation : Explanation
        With ``covariance``; typically many points of a data set.
    level : float
        Probability inside each central credible interval.
    output : int or str, optional
        Which output of a multi-output explanation.
    max_display : int
        Features shown, those distinguishable at most points first.
    ax : matplotlib Axes, optional
        Draw into this Axes; a new figure is made otherwise.

    Returns
    -------
    matplotlib Axes
        Stacked horizontal bars: fraction of points with the interval above zero (red) and
        below zero (blue).

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> cov = np.stack([np.diag([0.04, 0.09])] * 2)
    >>> ex = kx.Explanation(np.array([[1.0, -0.2], [0.9, 0.8]]), 0.0, covariance=cov)
    >>> np.abs(kx.plots.excludes_zero(ex)).mean(axis=0)
    array([1. , 0.5])
    >>> ax = kx.plots.distinguishable(ex)  # doctest: +SKIP
    """
    plt = require("matplotlib.pyplot", "kexplain.plots.distinguishable")
    ex = _one_output(explanation, output)
    sign = excludes_zero(ex, level)
    above, below = (sign > 0).mean(axis=0), (sign < 0).mean(axis=0)
    order = np.argsort(-(above + below), kind="stable")[: _max_display(max_display)]
    if ax is None:
        _, ax = plt.subplots(figsize=(7.0, 0.4 * len(order) + 1.3))
    y = np.arange(len(order))[::-1].astype(float)
    ax.barh(y, above[order], color=_POS, height=0.7, label="interval above 0")
    ax.barh(y, below[order], left=above[order], color=_NEG, height=0.7, label="interval below 0")
    ax.set_yticks(y)
    ax.set_yticklabels([ex.feature_names[j] for j in order])
    ax.set_xlim(0.0, 1.0)
    ax.set_xlabel(f"fraction of {len(ex)} points whose {100 * float(level):g}% interval excludes 0")
    ax.set_title(plot_title(ex), fontsize=10)
    ax.legend(frameon=False, loc="lower right", fontsize=8)
    ax.spines[["top", "right"]].set_visible(False)
    ax.figure.tight_layout()
    return ax

"""Plots of explanations: shap's plots labelled with the game, and plots of uncertain values.

- :func:`waterfall`, :func:`bar`, :func:`beeswarm`: shap's own plots of an
  :class:`~kexplain.Explanation`, titled with the explained output and the game, and with shap's
  base-value label ``E[f(X)]`` replaced by a true one where the game's base value is not a mean
  prediction (the functional-baseline game: ``v(∅)``; the baseline game: ``f(baseline)``; the
  functional-ANOVA game: ``f_0``).
- :func:`bar_intervals`, :func:`waterfall_intervals`, :func:`correlation`, :func:`distinguishable`
  and :func:`excludes_zero`: values with credible intervals, the correlation of the feature
  contributions at one point, and which features are distinguishable from zero over a data set,
  for explanations with a posterior ``covariance`` (``explain(X, uncertainty=True)`` of a
  Gaussian-process model; stochastic Shapley values of Chau, Muandet & Sejdinovic, 2023).
- :func:`compare_importance`: the global importance of several explanations of the same points
  side by side (e.g. the functional-baseline and the interventional game).

matplotlib and shap are optional dependencies (extra ``plots``); the backend is left to the caller,
so these functions work in notebooks as well as in scripts that chose ``Agg``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ._optional import require
from .explanation import Explanation

__all__ = [
    "waterfall",
    "bar",
    "beeswarm",
    "bar_intervals",
    "waterfall_intervals",
    "correlation",
    "correlation_matrix",
    "excludes_zero",
    "distinguishable",
    "compare_importance",
    "global_importance",
    "plot_title",
    "base_label",
]

#: shap's base-value label, and what it becomes for games whose base value is not E[f(X)]
_SHAP_BASE = "E[f(X)]"
BASE_LABELS = {"functional": "v(\\emptyset)", "baseline": "f(\\mathrm{baseline})", "anova": "f_0"}
#: shap's colours for positive and negative contributions
_POS, _NEG = "#FF0D57", "#1E88E5"


def _check(explanation: Any) -> Explanation:
    if not isinstance(explanation, Explanation):
        raise TypeError(f"explanation must be a kexplain.Explanation, got {type(explanation).__name__}.")
    return explanation


def _one_output(explanation: Explanation, output: int | str | None) -> Explanation:
    """The explanation of one output (by index or name); a single-output one as it is."""
    ex = _check(explanation)
    if ex.n_outputs == 1:
        if output is not None and output not in (0, ex.output_names[0]):
            raise ValueError(f"this explanation has a single output ({ex.output_names[0]!r}); output={output!r}.")
        return ex if ex.values.ndim == 2 else ex[:, 0]
    if output is None:
        raise ValueError(
            f"this explanation has {ex.n_outputs} outputs {ex.output_names}: pick one with output=<index or name>."
        )
    return ex[:, output]


def _row(ex: Explanation, row: int) -> int:
    if isinstance(row, (bool, np.bool_)) or not isinstance(row, (int, np.integer)) or not -len(ex) <= row < len(ex):
        raise ValueError(f"row must be an integer in [{-len(ex)}, {len(ex)}), got {row!r}.")
    return int(row) % len(ex)


def _max_display(max_display: Any) -> int:
    if isinstance(max_display, (bool, np.bool_)) or not isinstance(max_display, (int, np.integer)) or max_display < 1:
        raise ValueError(f"max_display must be a positive integer, got {max_display!r}.")
    return int(max_display)


def plot_title(explanation: Explanation) -> str:
    """The title kexplain puts on a plot: the explained output and the game.

    Parameters
    ----------
    explanation : Explanation

    Returns
    -------
    str

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> ex = kx.Explanation(np.zeros((1, 2)), 0.0, game="interventional", output="predict")
    >>> kx.plots.plot_title(ex)
    'predict — interventional game'
    """
    ex = _check(explanation)
    out = ex.output or "model output"
    if ex.n_outputs == 1 and ex.output_names[0] != "f(x)":
        out = f"{out} ({ex.output_names[0]})"
    return f"{out} — {ex.game or 'unnamed'} game"


def base_label(game: str) -> str:
    r"""The base-value label (matplotlib mathtext) that is true for ``game``.

    shap labels the base value E[f(X)], the mean prediction over the background: true for the
    interventional and observational games, not for the functional-baseline game (v(∅), the
    value of the empty coalition), the baseline game (the prediction at the baseline row) and
    the functional-ANOVA game (the constant component f_0, a mean under the model's input
    measure).

    Parameters
    ----------
    game : str

    Returns
    -------
    str

    Examples
    --------
    >>> import kexplain as kx
    >>> print(kx.plots.base_label("functional"), kx.plots.base_label("interventional"))
    v(\emptyset) E[f(X)]
    """
    return BASE_LABELS.get(str(game), _SHAP_BASE)


def _relabel_base(fig: Any, game: str) -> None:
    """Replace shap's E[f(X)] in every text and fixed tick label of ``fig``."""
    new = base_label(game)
    if new == _SHAP_BASE:
        return
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            labels = [t.get_text() for t in axis.get_majorticklabels()]
            if any(_SHAP_BASE in t for t in labels):
                # shap's tick labels are fixed: set them anew (the tick objects, with shap's offsets, stay)
                axis.set_ticklabels([t.replace(_SHAP_BASE, new) for t in labels])
    for text in fig.findobj(lambda o: hasattr(o, "get_text") and hasattr(o, "set_text")):
        value = text.get_text()
        if _SHAP_BASE in value:
            text.set_text(value.replace(_SHAP_BASE, new))


#: space (points) between the figure's edge, the title and the plot
_TITLE_PAD_PT = 6.0


def _title_above(fig: Any, title: str) -> None:
    """Put ``title`` above everything drawn in ``fig``, growing the figure where there is no room.

    shap draws labels outside its axes (the waterfall's ``f(x)`` and base-value labels are tick
    labels of twin axes above and below the plot), so a suptitle at matplotlib's default height
    can sit on them.  Here the extent of every axes, tick labels included, is measured; the
    figure is made taller by what the title and the labels need at the top and bottom, the axes
    keep their size in inches (moved up or down), and the title is set at the top.  Labels cut
    off at the left or right (shap's waterfall puts the feature values left of its axes) get room
    the same way, so the figure saves whole without ``bbox_inches="tight"``.
    """
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    pad = _TITLE_PAD_PT * fig.dpi / 72.0
    text = fig.suptitle(title, fontsize=10, va="top")
    height = fig.bbox.height
    boxes = [ax.get_tightbbox(renderer) for ax in fig.axes if ax.get_visible()]
    boxes = [b for b in boxes if b is not None and np.all(np.isfinite(b.bounds))]
    if not boxes:
        text.set_y(1.0 - pad / height)
        return
    title_height = text.get_window_extent(renderer).height
    width = fig.bbox.width
    extra_top = max(0.0, max(b.y1 for b in boxes) - (height - title_height - 2 * pad))
    # at the edges twice the pad: text measured at this dpi can be a few pixels wider when saved at a lower one
    extra_bottom = max(0.0, 2 * pad - min(b.y0 for b in boxes))
    extra_left = max(0.0, 2 * pad - min(b.x0 for b in boxes))
    extra_right = max(0.0, max(b.x1 for b in boxes) - (width - 2 * pad))
    if extra_top or extra_bottom or extra_left or extra_right:
        new_height = height + extra_top + extra_bottom
        new_width = width + extra_left + extra_right
        positions = [(ax, ax.get_position()) for ax in fig.axes]
        fig.set_size_inches(new_width / fig.dpi, new_height / fig.dpi, forward=False)
        for ax, pos in positions:
            ax.set_position(
                [
                    (pos.x0 * width + extra_left) / new_width,
                    (pos.y0 * height + extra_bottom) / new_height,
                    pos.width * width / new_width,
                    pos.height * height / new_height,
                ]
            )
        height = new_height
    text.set_y(1.0 - pad / height)


def _finish(fig: Any, ex: Explanation, show: bool) -> Any:
    _title_above(fig, plot_title(ex))
    if show:
        require("matplotlib.pyplot", "kexplain.plots").show()
    return fig


def waterfall(
    explanation: Explanation,
    row: int = 0,
    *,
    output: int | str | None = None,
    max_display: int = 10,
    show: bool = False,
) -> Any:
    """shap's waterfall plot of one row, titled with output and game, with a true base-value label.

    Parameters
    ----------
    explanation : Explanation
    row : int
        Which row.
    output : int or str, optional
        Which output of a multi-output explanation (required there).
    max_display : int
        Features shown; the rest are summed into one bar.
    show : bool
        Call ``matplotlib.pyplot.show()``.

    Returns
    -------
    matplotlib Figure

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> ex = kx.Explanation(np.array([[1.0, -2.0]]), 0.5, game="functional", output="predict")
    >>> fig = kx.plots.waterfall(ex)  # doctest: +SKIP
    >>> fig.get_suptitle()  # doctest: +SKIP
    'predict — functional game'
    """
    shap = require("shap", "kexplain.plots.waterfall")
    plt = require("matplotlib.pyplot", "kexplain.plots.waterfall")
    ex = _one_output(explanation, output)
    r = _row(ex, row)
    fig = plt.figure()
    shap.plots.waterfall(ex[r].to_shap(), max_display=_max_display(max_display), show=False)
    fig = plt.gcf()
    _relabel_base(fig, ex.game)
    return _finish(fig, ex, show)


def bar(
    explanation: Explanation,
    row: int | None = None,
    *,
    output: int | str | None = None,
    max_display: int = 10,
    show: bool = False,
) -> Any:
    """shap's bar plot (mean absolute value per feature, or one row's values), titled with output and game.

    Parameters
    ----------
    explanation : Explanation
    row : int, optional
        Plot this row's values; default the mean absolute value over all rows.
    output : int or str, optional
        Which output of a multi-output explanation (required there).
    max_display : int
    show : bool

    Returns
    -------
    matplotlib Figure

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> ex = kx.Explanation(np.array([[1.0, -2.0], [0.5, 0.0]]), 0.0, game="interventional")
    >>> fig = kx.plots.bar(ex)  # doctest: +SKIP
    """
    shap = require("shap", "kexplain.plots.bar")
    plt = require("matplotlib.pyplot", "kexplain.plots.bar")
    ex = _one_output(explanation, output)
    sh = ex.to_shap() if row is None else ex[_row(ex, row)].to_shap()
    shown = min(_max_display(max_display), len(ex.feature_names))
    fig, ax = plt.subplots(figsize=(8.0, 0.5 * shown + 1.5))
    shap.plots.bar(sh, max_display=shown, ax=ax, show=False)
    return _finish(fig, ex, show)


def beeswarm(
    explanation: Explanation,
    *,
    output: int | str | None = None,
    max_display: int = 10,
    show: bool = False,
) -> Any:
    """shap's beeswarm plot of all rows, titled with output and game.

    Parameters
    ----------
    explanation : Explanation
    output : int or str, optional
        Which output of a multi-output explanation (required there).
    max_display : int
    show : bool

    Returns
    -------
    matplotlib Figure

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> ex = kx.Explanation(np.array([[1.0, -2.0], [0.5, 0.0]]), 0.0, data=np.ones((2, 2)))
    >>> fig = kx.plots.beeswarm(ex)  # doctest: +SKIP
    """
    shap = require("shap", "kexplain.plots.beeswarm")
    plt = require("matplotlib.pyplot", "kexplain.plots.beeswarm")
    ex = _one_output(explanation, output)
    shown = min(_max_display(max_display), len(ex.feature_names))
    fig, ax = plt.subplots(figsize=(8.0, 0.4 * shown + 1.8))
    shap.plots.beeswarm(ex.to_shap(), max_display=shown, ax=ax, show=False, plot_size=None)
    return _finish(fig, ex, show)


def global_importance(explanation: Explanation, output: int | str | None = None) -> np.ndarray:
    """Mean absolute value per feature.

    With several outputs, ``output`` (index or name) picks one; ``None`` averages over outputs as
    well, so that one number per feature ranks features across the whole model.

    Parameters
    ----------
    explanation : Explanation
    output : int or str, optional
        Which output of a multi-output explanation.

    Returns
    -------
    ndarray of shape (d,)

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> ex = kx.Explanation(np.array([[1.0, -2.0], [-3.0, 0.0]]), 0.0, feature_names=["a", "b"])
    >>> kx.plots.global_importance(ex)
    array([2., 1.])
    """
    if not isinstance(explanation, Explanation):
        raise TypeError(f"explanation must be a kexplain.Explanation, got {type(explanation).__name__}.")
    if output is not None:
        if explanation.n_outputs == 1:
            raise ValueError("output can only be chosen for an explanation with several outputs.")
        explanation = explanation[:, output]
    imp = explanation.mean_abs()
    return imp.mean(axis=1) if imp.ndim == 2 else imp


def compare_importance(
    explanations: Mapping[str, Explanation],
    max_display: int = 10,
    output: int | str | None = None,
    ax: Any = None,
    colors: Sequence[str] | None = None,
) -> Any:
    """Side-by-side horizontal bars of mean absolute value per feature for several explanations.

    Parameters
    ----------
    explanations : dict {label: Explanation}
        Two or more explanations with the same features, e.g. ``{"functional": ex_f,
        "interventional": ex_i}``.  Features are ordered by the first one.
    max_display : int
        Show the most important features (by the first explanation) and sum the rest into one bar.
    output : int or str, optional
        Which output of multi-output explanations; default averages over outputs.
    ax : matplotlib Axes, optional
        Draw into this Axes; a new figure is made otherwise.
    colors : sequence of str, optional
        One matplotlib colour per explanation (default: shap's palette).

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> a = kx.Explanation(np.array([[1.0, -2.0]]), 0.0, feature_names=["x", "y"])
    >>> b = kx.Explanation(np.array([[0.5, 0.5]]), 0.0, feature_names=["x", "y"])
    >>> ax = kx.plots.compare_importance({"functional": a, "interventional": b})  # doctest: +SKIP
    >>> [t.get_text() for t in ax.get_yticklabels()]  # doctest: +SKIP
    ['y', 'x']
    """
    plt = require("matplotlib.pyplot", "kexplain.plots.compare_importance")
    if not isinstance(explanations, dict) or len(explanations) < 2:
        raise ValueError("explanations must be a dict of at least two {label: Explanation} entries.")
    if not isinstance(max_display, (int, np.integer)) or max_display < 1:
        raise ValueError(f"max_display must be a positive integer, got {max_display!r}.")
    labels = [str(k) for k in explanations]
    first = next(iter(explanations.values()))
    if not isinstance(first, Explanation):
        raise TypeError(f"explanations values must be kexplain.Explanation, got {type(first).__name__}.")
    names = list(first.feature_names)
    rows = []
    for label, ex in explanations.items():
        if not isinstance(ex, Explanation):
            raise TypeError(f"explanations[{label!r}] must be a kexplain.Explanation, got {type(ex).__name__}.")
        if list(ex.feature_names) != names:
            raise ValueError(
                f"explanations[{label!r}] has features {list(ex.feature_names)}, but the first has {names}; "
                "compare explanations of the same features."
            )
        rows.append(global_importance(ex, output))
    imps = np.array(rows)  # (n_expl, d)
    order = np.argsort(-imps[0], kind="stable")
    shown = order[:max_display]
    rest = order[max_display:]
    bar_names = [names[j] for j in shown]
    block = imps[:, shown]
    if rest.size:
        # like shap's bar plot: the tail is summed into one bar so no attribution disappears silently
        bar_names.append(f"sum of {rest.size} other features")
        block = np.concatenate([block, imps[:, rest].sum(axis=1, keepdims=True)], axis=1)
    n_bars, n_ex = len(bar_names), len(labels)
    if ax is None:
        _, ax = plt.subplots(figsize=(7.5, 0.45 * n_bars * max(1, n_ex / 2) + 1.2))
    height = 0.8 / n_ex
    y = np.arange(n_bars)[::-1].astype(float)
    palette = colors or ["#1E88E5", "#FF0D57", "#7C52FF", "#13B755", "#FFA500"]
    for e in range(n_ex):
        ax.barh(
            y + (n_ex - 1) / 2 * height - e * height,
            block[e],
            height=height,
            color=palette[e % len(palette)],
            label=labels[e],
        )
    ax.set_yticks(y)
    ax.set_yticklabels(bar_names)
    ax.set_xlabel("mean |Shapley value|")
    ax.spines[["top", "right"]].set_visible(False)
    ax.legend(frameon=False, loc="lower right")
    ax.figure.tight_layout()
    return ax


# -- uncertain values ------------------------------------------------------------------------
def _z(level: Any) -> float:
    from scipy.stats import norm

    lv = float(level)
    if not 0.0 < lv < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}.")
    return float(norm.ppf(0.5 + lv / 2.0))


def _row_posterior(explanation: Explanation, row: int, output: int | str | None) -> tuple[Explanation, int, np.ndarray]:
    """(one-output explanation, row, covariance of that row's values) or a clear error."""
    ex = _one_output(explanation, output)
    r = _row(ex, row)
    if ex.covariance is None:
        raise ValueError(
            "this plot needs the posterior covariance of the values: explain a Gaussian-process model with "
            "uncertainty=True (e.g. kx.ProductKernelExplainer(gpr, background).explain(X, uncertainty=True))."
        )
    return ex, r, np.asarray(ex.covariance[r], dtype=np.float64)


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
    level : float
        Probability inside each interval (Gaussian posterior).
    output : int or str, optional
        Which output of a multi-output explanation.
    max_display : int
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes

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
    level : float
    output : int or str, optional
    max_display : int
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes

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


def correlation(
    explanation: Explanation,
    row: int = 0,
    *,
    output: int | str | None = None,
    ax: Any = None,
) -> Any:
    """Heatmap of the posterior correlation between the feature contributions of one row.

    Parameters
    ----------
    explanation : Explanation
        With ``covariance``.
    row : int
    output : int or str, optional
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
        The image's array is the correlation matrix (``ax.images[0].get_array()``); features
        whose value has zero variance get correlation 0 off the diagonal.

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> cov = np.array([[[1.0, -0.5], [-0.5, 1.0]]])
    >>> ex = kx.Explanation(np.array([[1.0, -0.2]]), 0.0, covariance=cov)
    >>> np.round(kx.plots.correlation_matrix(ex), 2)
    array([[ 1. , -0.5],
           [-0.5,  1. ]])
    >>> ax = kx.plots.correlation(ex)  # doctest: +SKIP
    """
    plt = require("matplotlib.pyplot", "kexplain.plots.correlation")
    ex, r, _ = _row_posterior(explanation, row, output)
    R = correlation_matrix(ex, r)
    d = R.shape[0]
    if ax is None:
        side = min(12.0, 1.6 + 0.55 * d)
        _, ax = plt.subplots(figsize=(side + 1.2, side))
    im = ax.imshow(R, cmap="RdBu_r", vmin=-1.0, vmax=1.0)
    ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label="posterior correlation")
    ax.set_xticks(range(d))
    ax.set_yticks(range(d))
    ax.set_xticklabels(ex.feature_names, rotation=60, ha="right")
    ax.set_yticklabels(ex.feature_names)
    if d <= 12:
        for i in range(d):
            for j in range(d):
                ax.text(
                    j,
                    i,
                    f"{R[i, j]:.2f}",
                    ha="center",
                    va="center",
                    fontsize=8,
                    color="white" if abs(R[i, j]) > 0.6 else "black",
                )
    ax.set_title(plot_title(ex), fontsize=10)
    ax.figure.tight_layout()
    return ax


def correlation_matrix(explanation: Explanation, row: int = 0, *, output: int | str | None = None) -> np.ndarray:
    """The posterior correlation matrix (d, d) of one row's values.

    Parameters
    ----------
    explanation : Explanation
        With ``covariance``.
    row : int
    output : int or str, optional

    Returns
    -------
    ndarray of shape (d, d)

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> ex = kx.Explanation(np.zeros((1, 2)), 0.0, covariance=np.array([[[4.0, 1.0], [1.0, 1.0]]]))
    >>> kx.plots.correlation_matrix(ex)
    array([[1. , 0.5],
           [0.5, 1. ]])
    """
    _, _, cov = _row_posterior(explanation, row, output)
    sd = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    with np.errstate(divide="ignore", invalid="ignore"):
        R = cov / np.outer(sd, sd)
    R = np.where(np.outer(sd, sd) > 0, R, 0.0)
    np.fill_diagonal(R, 1.0)
    return np.clip(R, -1.0, 1.0)


def excludes_zero(explanation: Explanation, level: float = 0.95, *, output: int | str | None = None) -> np.ndarray:
    """Which values are distinguishable from zero: +1 (interval above 0), -1 (below) or 0 (contains 0).

    Parameters
    ----------
    explanation : Explanation
        With ``covariance``.
    level : float
        Probability inside each central credible interval.
    output : int or str, optional

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
    output : int or str, optional
    max_display : int
        Features shown, those distinguishable at most points first.
    ax : matplotlib Axes, optional

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

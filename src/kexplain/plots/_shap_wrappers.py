"""shap's waterfall, bar and beeswarm plots, titled with output and game and with a true base label."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._optional import require
from ..explanation import Explanation
from ._common import _SHAP_BASE, _max_display, _one_output, _row, base_label, plot_title


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
        The explanation to plot.
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
        The figure, titled with the explained output and the game.

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
        The explanation to plot.
    row : int, optional
        Plot this row's values; default the mean absolute value over all rows.
    output : int or str, optional
        Which output of a multi-output explanation (required there).
    max_display : int
        Number of features shown, the most important first.
    show : bool
        Call ``matplotlib.pyplot.show()``.

    Returns
    -------
    matplotlib Figure
        The figure, titled with the explained output and the game.

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
        The explanation to plot.
    output : int or str, optional
        Which output of a multi-output explanation (required there).
    max_display : int
        Number of features shown, the most important first.
    show : bool
        Call ``matplotlib.pyplot.show()``.

    Returns
    -------
    matplotlib Figure
        The figure, titled with the explained output and the game.

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

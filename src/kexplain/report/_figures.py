"""The report's figures as PNG bytes: shap's plots of kexplain explanations and an interaction heatmap."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .._optional import require
from ..explanation import Explanation
from ._numbers import figure_to_png


def _capture(draw: Callable[[], Any]) -> bytes:
    """Run a drawing function and return its figure (else the current one) as PNG."""
    plt = require("matplotlib.pyplot", "report figures")
    plt.close("all")
    try:
        result = draw()
        fig = result if hasattr(result, "savefig") else getattr(result, "figure", None) or plt.gcf()
        return figure_to_png(fig)
    finally:
        plt.close("all")


def shap_plot(kind: str, ex: Explanation, output: int | str | None = None, row: int | None = None) -> bytes:
    """PNG of ``kexplain.plots.bar``, ``beeswarm`` or ``waterfall`` (of ``row``): shap's plots,
    titled with the explained output and game, with a true base-value label."""
    from .. import plots

    o = (0 if output is None else output) if ex.n_outputs > 1 else None
    if kind == "waterfall":
        return _capture(lambda: plots.waterfall(ex, 0 if row is None else row, output=o, max_display=12))
    if kind == "bar":
        return _capture(lambda: plots.bar(ex, output=o, max_display=12))
    if kind == "beeswarm":
        return _capture(lambda: plots.beeswarm(ex, output=o, max_display=12))
    raise ValueError(f"kind must be 'bar', 'beeswarm' or 'waterfall', got {kind!r}.")


def dependence_plot(ex: Explanation, feature: str, output: int | str | None = None) -> bytes:
    """PNG of shap's scatter (dependence) plot of one feature, coloured by its strongest partner."""
    shap = require("shap", "report figures")
    one = ex if ex.n_outputs == 1 else ex[:, 0 if output is None else output]
    sh = one.to_shap()

    def draw() -> Any:
        shap.plots.scatter(sh[:, feature], color=sh, show=False)
        return None

    return _capture(draw)


def interaction_heatmap(ex: Explanation, output: int | str | None = None) -> bytes:
    """PNG of the mean |pairwise interaction value| of every pair of features (the diagonal, the
    main effects, is left blank so that the interactions are visible)."""
    plt = require("matplotlib.pyplot", "report figures")
    if ex.interactions is None:
        raise ValueError("the explanation has no interaction values (explain with interactions=True).")
    o = 0 if output is None else (ex.output_names.index(output) if isinstance(output, str) else int(output))
    inter = ex.interactions if ex.interactions.ndim == 3 else ex.interactions[..., o]
    mat = np.abs(inter).mean(axis=0)
    d = mat.shape[0]
    np.fill_diagonal(mat, np.nan)

    def draw() -> Any:
        fig, ax = plt.subplots(figsize=(0.45 * d + 3, 0.45 * d + 2.2))
        im = ax.imshow(mat, cmap="viridis")
        ax.set_xticks(range(d))
        ax.set_yticks(range(d))
        ax.set_xticklabels(ex.feature_names, rotation=60, ha="right")
        ax.set_yticklabels(ex.feature_names)
        fig.colorbar(im, ax=ax, label="mean |interaction value|")
        index = ex.interaction_index or "sii"
        ax.set_title(f"pairwise interactions ({index}, {ex.game} game; diagonal left out)", fontsize=10)
        return fig

    return _capture(draw)


def comparison_bar(explanations: Mapping[str, Explanation], output: int | str | None = None) -> bytes:
    """PNG of shap's bar plot of several explanations side by side (global importance per game)."""
    shap = require("shap", "report figures")
    shaps = {
        label: (ex if ex.n_outputs == 1 else ex[:, 0 if output is None else output]).to_shap()
        for label, ex in explanations.items()
    }

    def draw() -> Any:
        shap.plots.bar(shaps, show=False)
        return None

    return _capture(draw)

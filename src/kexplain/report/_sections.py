"""The figure sections of a model report: one set per explained output."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..explanation import Explanation
from ._figures import comparison_bar, dependence_plot, interaction_heatmap, shap_plot


def output_figures(
    ex: Explanation,
    games: Mapping[str, Explanation],
    main_label: str,
    other_label: str,
    rows: Sequence[int],
    top_features: int,
    interactions: Any,
) -> dict[str, dict[str, bytes]]:
    """``{section heading: {caption: PNG}}`` of a report, with every output shown.

    A model with one output gets the sections "Global importance", "The two games side by side",
    "Waterfall plots of chosen rows", "Dependence plots of the top features" (and "Interaction
    heatmap"); a model with several outputs (a multiclass classifier, a multi-output regressor)
    gets the same sections once per output, each heading naming the output, so that no output is
    left out and no figure mixes outputs.

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.report._sections import output_figures
    >>> ex = kx.Explanation(np.random.default_rng(0).normal(size=(6, 2, 2)), np.zeros((6, 2)),
    ...                     feature_names=["a", "b"], output_names=["low", "high"], game="functional")
    >>> figs = output_figures(ex, {"functional": ex}, "functional", "functional", [0], 1, False)  # doctest: +SKIP
    >>> [h for h in figs if "Global" in h]  # doctest: +SKIP
    ["Global importance (shap's bar and beeswarm plots) - output 'low'", "Global importance ... - output 'high'"]
    """
    figures: dict[str, dict[str, bytes]] = {}
    outputs: list[int | None] = [None] if ex.n_outputs == 1 else list(range(ex.n_outputs))
    ids = ex.index if ex.index is not None else list(range(len(ex)))
    chosen = [r for r in rows if 0 <= r < len(ex)]
    for o in outputs:
        tag = "" if o is None else f" - output {ex.output_names[o]!r}"
        values = ex.values if o is None else ex.values[:, :, o]
        figures[f"Global importance (shap's bar and beeswarm plots){tag}"] = {
            "bar plot": shap_plot("bar", ex, output=o),
            "beeswarm plot": shap_plot("beeswarm", ex, output=o),
        }
        figures[f"The two games side by side (shap's bar plot){tag}"] = {
            f"mean |value| per feature: {main_label} and {other_label}": comparison_bar(games, output=o)
        }
        if chosen:
            figures[f"Waterfall plots of chosen rows{tag}"] = {
                f"row {ids[r]}": shap_plot("waterfall", ex, output=o, row=r) for r in chosen
            }
        importance = np.abs(values).mean(axis=0)
        top = [ex.feature_names[j] for j in np.argsort(-importance, kind="stable")[:top_features]]
        if top:
            figures[f"Dependence plots of the top features{tag}"] = {
                name: dependence_plot(ex, name, output=o) for name in top
            }
        if interactions:
            figures[f"Interaction heatmap{tag}"] = {
                "mean |interaction value| per pair of features (main effects left out)": interaction_heatmap(
                    ex, output=o
                )
            }
    return figures

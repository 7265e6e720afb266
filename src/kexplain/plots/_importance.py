"""Global importance (mean absolute value per feature) of one explanation, and of several side by side."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .._optional import require
from ..explanation import Explanation


def global_importance(explanation: Explanation, output: int | str | None = None) -> np.ndarray:
    """Mean absolute value per feature.

    With several outputs, ``output`` (index or name) picks one; ``None`` averages over outputs as
    well, so that one number per feature ranks features across the whole model.

    Parameters
    ----------
    explanation : Explanation
        The explanation to plot.
    output : int or str, optional
        Which output of a multi-output explanation.

    Returns
    -------
    ndarray of shape (d,)
        The mean absolute value of each feature.

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
        The Axes drawn into.

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

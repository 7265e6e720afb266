"""Plots of PREF-SHAP explanations: grouped local plots and global bar/beeswarm plots.

Chau's thesis (2023, Section 7.4) looks at PREF-SHAP values in two ways: globally over all duels
(a bar plot of the mean |value| per feature and a beeswarm coloured by winner - loser), and
*grouped-local*, over the duels of one kind only (cluster A against cluster B, fire against
water), where the feature that decides those duels stands out.  :func:`plot_grouped` puts the
groups side by side; :func:`plot_global` draws shap's bar or beeswarm plot.

matplotlib and shap are optional dependencies (extra ``plots``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._optional import require
from .._params import Integer, check_param
from ..explanation import Explanation

KINDS = ("bar", "beeswarm")


def duel_groups(left_labels: Any, right_labels: Any, *, order: Sequence[Any] | None = None) -> np.ndarray:
    """A label "A vs B" per duel from the group (cluster, type) of each item, unordered.

    Duels A-vs-B and B-vs-A share a group (PREF-SHAP is skew-symmetric, and with outcomes the
    duels are oriented winner vs loser anyway); the two labels are written in the order of
    ``order`` (default: sorted).

    Parameters
    ----------
    left_labels, right_labels : array-like (N,)
        Group of the left and of the right item of each duel.
    order : sequence, optional
        The order of the labels within a group's name.

    Returns
    -------
    ndarray of str (N,)

    Examples
    --------
    >>> from kexplain.preference.plots import duel_groups
    >>> duel_groups(["A", "B", "A"], ["B", "A", "A"]).tolist()
    ['A vs B', 'A vs B', 'A vs A']
    """
    left, right = np.asarray(left_labels), np.asarray(right_labels)
    if left.shape != right.shape or left.ndim != 1:
        raise ValueError(
            f"left_labels and right_labels must be 1-D of the same length, got {left.shape} and {right.shape}."
        )
    rank = {lab: i for i, lab in enumerate(order)} if order is not None else None

    def key(lab: Any) -> Any:
        if rank is None:
            return str(lab)
        if lab not in rank:
            raise ValueError(f"label {lab!r} is not in order {list(order or [])}.")
        return rank[lab]

    out = [f"{a} vs {b}" if key(a) <= key(b) else f"{b} vs {a}" for a, b in zip(left.tolist(), right.tolist())]
    return np.array(out, dtype=str)


def _check_explanation(explanation: Any) -> Explanation:
    if not isinstance(explanation, Explanation):
        raise TypeError(f"explanation must be a kexplain.Explanation, got {type(explanation).__name__}.")
    if explanation.values.ndim != 2:
        raise ValueError("PREF-SHAP plots take a single-output explanation (values of shape (N, d)).")
    return explanation


def group_importance(
    explanation: Explanation, groups: Any, *, order: Sequence[Any] | None = None
) -> tuple[list[Any], np.ndarray]:
    """Mean |value| per feature within each group of duels.

    Parameters
    ----------
    explanation : Explanation
        PREF-SHAP values of N duels.
    groups : array-like (N,)
        Group of each duel (e.g. from :func:`duel_groups`).
    order : sequence, optional
        Groups to keep, in this order (default: every group, sorted).

    Returns
    -------
    (groups, importance) : list and ndarray (n_groups, d)

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.preference.plots import group_importance
    >>> ex = kx.Explanation(np.array([[1.0, 0.0], [-3.0, 0.0], [0.0, 2.0]]), 0.0)
    >>> group_importance(ex, ["A vs B", "A vs B", "A vs C"])
    (['A vs B', 'A vs C'], array([[2., 0.],
           [0., 2.]]))
    """
    ex = _check_explanation(explanation)
    g = np.asarray(groups)
    if g.shape != (len(ex),):
        raise ValueError(f"groups must hold one label per explained duel, shape ({len(ex)},), got {g.shape}.")
    labels = sorted(set(g.tolist()), key=str) if order is None else list(order)
    missing = [lab for lab in labels if not np.any(g == lab)]
    if missing:
        raise ValueError(f"no duel belongs to the group(s) {missing}.")
    imp = np.array([np.abs(ex.values[g == lab]).mean(axis=0) for lab in labels])
    return labels, imp


def plot_grouped(
    explanation: Explanation,
    groups: Any,
    *,
    kind: str = "bar",
    order: Sequence[Any] | None = None,
    max_display: int = 10,
    show: bool = False,
) -> Any:
    """Grouped local PREF-SHAP plots: the duels of each group side by side (thesis Figure 7.3).

    ``kind="bar"``: one chart, the mean |value| of each feature within each group as bars side
    by side (features ordered by their mean over the groups).  ``kind="beeswarm"``: one shap
    beeswarm per group, coloured by the explanation's ``data`` (X_left - X_right, or winner -
    loser when the duels were explained with outcomes).

    Parameters
    ----------
    explanation : Explanation
        PREF-SHAP values of N duels (:class:`~kexplain.preference.PrefShapExplainer`).
    groups : array-like (N,)
        Group of each duel, e.g. ``duel_groups(cluster[left], cluster[right])``.
    kind : {"bar", "beeswarm"}
    order : sequence, optional
        Groups to draw, in this order (default: all, sorted).
    max_display : int
        Most features shown.
    show : bool
        Call ``plt.show()``.

    Returns
    -------
    matplotlib Figure

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.preference.plots import plot_grouped
    >>> ex = kx.Explanation(np.array([[1.0, 0.0], [0.0, 2.0]]), 0.0, game="preferential item (interventional)")
    >>> fig = plot_grouped(ex, ["A vs B", "A vs C"])  # doctest: +SKIP
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}.")
    check_param(max_display, "max_display", Integer(1))
    plt = require("matplotlib.pyplot", "kexplain.preference.plots.plot_grouped")
    ex = _check_explanation(explanation)
    labels, imp = group_importance(ex, groups, order=order)
    names = list(ex.feature_names)
    top = np.argsort(-imp.mean(axis=0), kind="stable")[:max_display]
    title = f"{ex.output or 'model output'} — {ex.game or 'unnamed'} game"
    if kind == "bar":
        fig, ax = plt.subplots(figsize=(max(5.0, 0.9 * len(top) * max(1, len(labels)) * 0.45 + 2), 3.5))
        width = 0.8 / len(labels)
        pos = np.arange(len(top))
        for q, lab in enumerate(labels):
            ax.bar(pos + (q - (len(labels) - 1) / 2) * width, imp[q, top], width, label=str(lab))
        ax.set_xticks(pos)
        ax.set_xticklabels([names[j] for j in top], rotation=30, ha="right")
        ax.set_ylabel("mean |PREF-SHAP value|")
        ax.legend(title="duels", fontsize=8)
        fig.suptitle(title, fontsize=10)
        fig.tight_layout()
    else:
        shap = require("shap", "kexplain.preference.plots.plot_grouped")
        g = np.asarray(groups)
        fig, axes = plt.subplots(1, len(labels), figsize=(5.0 * len(labels), 3.5), squeeze=False)
        for ax, lab in zip(axes[0], labels):
            sub = ex[np.flatnonzero(g == lab)]
            shap.plots.beeswarm(
                sub.to_shap(), max_display=int(max_display), ax=ax, show=False, plot_size=None, color_bar=False
            )
            ax.set_xlabel("PREF-SHAP value")
            ax.set_title(str(lab), fontsize=10)
        fig.suptitle(title, fontsize=10)
        fig.tight_layout()
    if show:
        plt.show()
    return fig


def plot_global(explanation: Explanation, *, kind: str = "bar", max_display: int = 10, show: bool = False) -> Any:
    """Global PREF-SHAP plot over all duels (thesis Figure 7.2): shap's bar or beeswarm plot.

    The beeswarm is coloured by the explanation's ``data``: X_left - X_right, or winner - loser
    when the duels were explained with outcomes ``y`` (as the thesis plots it: red points with
    large values mean that having the larger feature than the opponent helps to win).

    Parameters
    ----------
    explanation : Explanation
    kind : {"bar", "beeswarm"}
    max_display : int
    show : bool

    Returns
    -------
    matplotlib Figure

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.preference.plots import plot_global
    >>> ex = kx.Explanation(np.array([[1.0, -2.0], [0.5, 0.0]]), 0.0, data=np.ones((2, 2)))
    >>> fig = plot_global(ex, kind="beeswarm")  # doctest: +SKIP
    """
    from .. import plots

    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}.")
    ex = _check_explanation(explanation)
    if kind == "bar":
        return plots.bar(ex, max_display=max_display, show=show)
    check_param(max_display, "max_display", Integer(1))
    shap = require("shap", "kexplain.preference.plots.plot_global")
    plt = require("matplotlib.pyplot", "kexplain.preference.plots.plot_global")
    fig, ax = plt.subplots()
    shap.plots.beeswarm(
        ex.to_shap(),
        max_display=int(max_display),
        ax=ax,
        show=False,
        plot_size=None,
        color_bar_label=colour_label(ex),
    )
    ax.set_xlabel("PREF-SHAP value")
    fig.suptitle(plots.plot_title(ex), fontsize=10)
    if show:
        plt.show()
    return fig


def colour_label(explanation: Explanation) -> str:
    """What the colour of a PREF-SHAP beeswarm shows: the explanation's ``data``.

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.preference.plots import colour_label
    >>> colour_label(kx.Explanation(np.zeros((1, 2)), 0.0, info={"orientation": np.array([-1.0])}))
    'winner - loser'
    """
    game = str(explanation.game)
    if "context" in game:
        return "context value"
    orient = explanation.info.get("orientation")
    label = "winner - loser" if orient is not None and np.any(np.asarray(orient) < 0) else "left - right"
    return label + (" (items), context value" if "joint" in game else "")

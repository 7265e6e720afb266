"""Helpers shared by the plots: picking one output and one row, titles and base-value labels.

:func:`plot_title` and :func:`base_label` are public (re-exported by :mod:`kexplain.plots`); the
rest checks arguments and fetches the posterior covariance of one row for the interval plots.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .. import games
from .._params import Integer, check_param
from ..explanation import Explanation

#: shap's base-value label (kexplain.games.SHAP_BASE_LABEL), replaced where a game's base value is not it
_SHAP_BASE = games.SHAP_BASE_LABEL
#: the true base-value label of every game of the table (a read-only view of kexplain.games)
BASE_LABELS: Mapping[str, str] = games.field_view("base_label_math")
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
    return int(check_param(row, "row", Integer(-len(ex), len(ex), closed="left"))) % len(ex)


def _max_display(max_display: Any) -> int:
    return int(check_param(max_display, "max_display", Integer(1)))


def plot_title(explanation: Explanation) -> str:
    """The title kexplain puts on a plot: the explained output and the game.

    Parameters
    ----------
    explanation : Explanation
        The explanation the plot shows.

    Returns
    -------
    str
        The explained output (and its name when there are several) and the game's name.

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
    value of the empty coalition), the baseline game (the prediction at the baseline row), the
    functional-ANOVA game (the constant component f_0) or the statistics' games (0).  The label
    is the game's ``base_label_math`` in the games table (:mod:`kexplain.games`); a game not in
    the table (a string of your own, or none) gets v(∅).

    Parameters
    ----------
    game : str
        The game's name (``Explanation.game``).

    Returns
    -------
    str
        The label, in matplotlib mathtext.

    Examples
    --------
    >>> import kexplain as kx
    >>> print(kx.plots.base_label("functional"), kx.plots.base_label("interventional"))
    v(\emptyset) E[f(X)]
    """
    return games.describe(str(game)).base_label_math


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

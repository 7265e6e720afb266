"""The posterior correlation between the feature contributions of one row: matrix and heatmap."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._optional import require
from ..explanation import Explanation
from ._common import _row_posterior, plot_title


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
        Which row (point) of the explanation.
    output : int or str, optional
        Which output of a multi-output explanation.
    ax : matplotlib Axes, optional
        Draw into this Axes; a new figure is made otherwise.

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
        Which row (point) of the explanation.
    output : int or str, optional
        Which output of a multi-output explanation.

    Returns
    -------
    ndarray of shape (d, d)
        The posterior correlation of every pair of the row's Shapley values.

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

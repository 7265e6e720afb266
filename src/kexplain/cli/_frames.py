"""The values and interactions of an Explanation as tables (wide or long layouts) for the CLI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from .._optional import require
from ..explanation import Explanation
from ._tables import _CSV_SUFFIXES, _PARQUET_SUFFIXES, CLIError


def values_frame(explanation: Explanation, layout: str = "wide") -> Any:
    """The table of Shapley values that ``kexplain explain`` writes.

    Parameters
    ----------
    explanation : Explanation
    layout : {"wide", "long"}
        ``wide``: one row per explained row, one column per feature and a ``base_value`` column
        (``"<output>/<feature>"`` and ``"<output>/base_value"`` with several outputs);
        ``long``: columns ``row, output, feature, value, base_value``.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.cli import values_frame
    >>> ex = kx.Explanation(np.array([[1.0, -0.5]]), 2.0, feature_names=["a", "b"])
    >>> values_frame(ex)
         a    b  base_value
    0  1.0 -0.5         2.0
    >>> values_frame(ex, "long")
       row output feature  value  base_value
    0    0   f(x)       a    1.0         2.0
    1    0   f(x)       b   -0.5         2.0
    """
    pd = require("pandas", "writing Shapley values")
    ex = explanation
    vals = ex.values if ex.values.ndim == 3 else ex.values[:, :, None]
    base = ex.base_values if ex.base_values.ndim == 2 else ex.base_values[:, None]
    names, outs = list(ex.feature_names), list(ex.output_names)
    N, d, n_out = vals.shape
    if layout == "wide":
        cols = {}
        for o, out in enumerate(outs):
            prefix = "" if n_out == 1 else f"{out}/"
            for j, name in enumerate(names):
                cols[f"{prefix}{name}"] = vals[:, j, o]
            cols[f"{prefix}base_value"] = base[:, o]
        if len(cols) != n_out * (d + 1):
            raise CLIError("feature names are not unique (or one is 'base_value'); cannot write a wide table.")
        return pd.DataFrame(cols)
    if layout == "long":
        return pd.DataFrame(
            {
                "row": np.repeat(np.arange(N), n_out * d),
                "output": np.tile(np.repeat(np.asarray(outs, dtype=object), d), N),
                "feature": np.tile(np.asarray(names, dtype=object), N * n_out),
                "value": vals.transpose(0, 2, 1).reshape(-1),
                "base_value": np.repeat(base.reshape(-1), d),
            }
        )
    raise CLIError(f"--layout must be 'wide' or 'long', got {layout!r}.")


def interactions_frame(explanation: Explanation) -> Any:
    """Long table of pairwise interaction values: ``row, output, feature_1, feature_2, value``.

    Parameters
    ----------
    explanation : Explanation
        Explained with ``interactions=True``.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.cli import interactions_frame
    >>> inter = np.array([[[1.0, 0.25], [0.25, -0.5]]])
    >>> ex = kx.Explanation(inter.sum(axis=2), 0.0, feature_names=["a", "b"], interactions=inter)
    >>> interactions_frame(ex)
       row output feature_1 feature_2  value
    0    0   f(x)         a         a   1.00
    1    0   f(x)         a         b   0.25
    2    0   f(x)         b         a   0.25
    3    0   f(x)         b         b  -0.50
    """
    pd = require("pandas", "writing interaction values")
    inter = explanation.interactions
    if inter is None:
        raise ValueError("this explanation has no interaction values (explain with interactions=True).")
    inter = inter if inter.ndim == 4 else inter[..., None]
    N, d, _, n_out = inter.shape
    names = np.asarray(explanation.feature_names, dtype=object)
    return pd.DataFrame(
        {
            "row": np.repeat(np.arange(N), n_out * d * d),
            "output": np.tile(np.repeat(np.asarray(explanation.output_names, dtype=object), d * d), N),
            "feature_1": np.tile(np.repeat(names, d), N * n_out),
            "feature_2": np.tile(names, N * n_out * d),
            "value": inter.transpose(0, 3, 1, 2).reshape(-1),
        }
    )


def _default_interactions_path(out: Path) -> Path:
    """``<out stem>.interactions<ext>`` next to the values file."""
    name = out.name
    for suffix in _CSV_SUFFIXES + _PARQUET_SUFFIXES:
        if name.lower().endswith(suffix):
            return out.with_name(name[: -len(suffix)] + ".interactions" + name[-len(suffix) :])
    return out.with_name(name + ".interactions.csv")

"""The values and interactions of an Explanation as tables (wide or long layouts) for the CLI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from .._optional import require
from ..explanation import Explanation
from ._tables import _CSV_SUFFIXES, _PARQUET_SUFFIXES, CLIError


def values_frame(explanation: Explanation, layout: str = "wide", ids: Any = None, id_name: str = "row") -> Any:
    """The table of Shapley values that ``kexplain explain`` writes.

    Every layout can be read back without ambiguity, whatever the feature names hold (a ``/``
    included): the wide layout has one column per feature and exists only for one output; several
    outputs need the long layout.

    Parameters
    ----------
    explanation : Explanation
    layout : {"wide", "long"}
        ``wide``: one row per explained row, one column per feature and a ``base_value`` column
        (one output only); ``long``: columns ``<id_name>, output, feature, value, base_value``.
    ids : array-like, optional
        Row ids (an ``--id-column``), written as the first column ``id_name``; the long layout
        numbers the rows 0, 1, ... without them.
    id_name : str
        The name of the id column.

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    CLIError
        For the wide layout of several outputs, or a name clash with the id column.

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.cli._frames import values_frame
    >>> ex = kx.Explanation(np.array([[1.0, -0.5]]), 2.0, feature_names=["a", "b/c"])
    >>> values_frame(ex)
         a  b/c  base_value
    0  1.0 -0.5         2.0
    >>> values_frame(ex, "long", ids=["p7"], id_name="patient")
      patient output feature  value  base_value
    0      p7   f(x)       a    1.0         2.0
    1      p7   f(x)     b/c   -0.5         2.0
    """
    pd = require("pandas", "writing Shapley values")
    ex = explanation
    vals = ex.values if ex.values.ndim == 3 else ex.values[:, :, None]
    base = ex.base_values if ex.base_values.ndim == 2 else ex.base_values[:, None]
    names, outs = list(ex.feature_names), list(ex.output_names)
    N, d, n_out = vals.shape
    if layout == "wide":
        if n_out > 1:
            raise CLIError(
                f"--layout wide: the model has {n_out} outputs ({', '.join(outs[:3])}{', ...' if n_out > 3 else ''}); "
                "a wide table would have to join output and feature names in one column name, which cannot be "
                "split back when a name holds the separator. Use --layout long (the default for several outputs)."
            )
        bcol = ex.base_column()
        if len(set(names)) != d:
            raise CLIError("feature names are not unique; cannot write a wide table.")
        if ids is not None and id_name in names + [bcol]:
            raise CLIError(f"--id-column {id_name}: is also the name of an output column; rename the id column.")
        cols: dict[str, Any] = {} if ids is None else {id_name: np.asarray(ids)}
        for j, name in enumerate(names):
            cols[name] = vals[:, j, 0]
        cols[bcol] = base[:, 0]
        return pd.DataFrame(cols)
    if layout == "long":
        if id_name in ("output", "feature", "value", "base_value"):
            raise CLIError(f"--id-column {id_name}: is also the name of an output column; rename the id column.")
        rows = np.arange(N) if ids is None else np.asarray(ids)
        return pd.DataFrame(
            {
                id_name: np.repeat(rows, n_out * d),
                "output": np.tile(np.repeat(np.asarray(outs, dtype=object), d), N),
                "feature": np.tile(np.asarray(names, dtype=object), N * n_out),
                "value": vals.transpose(0, 2, 1).reshape(-1),
                "base_value": np.repeat(base.reshape(-1), d),
            }
        )
    raise CLIError(f"--layout must be 'wide' or 'long', got {layout!r}.")


def interactions_frame(explanation: Explanation, ids: Any = None, id_name: str = "row") -> Any:
    """Long table of pairwise interaction values: ``<id_name>, output, feature_1, feature_2, value``.

    Parameters
    ----------
    explanation : Explanation
        Explained with ``interactions=True`` (or ``"sii"``, ``"stii"``); the layout is the
        explanation's (``interaction_index`` says which index it holds).
    ids : array-like, optional
        Row ids for the first column (default 0, 1, ...).
    id_name : str
        The name of that column.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.cli._frames import interactions_frame
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
        raise ValueError(
            "this explanation has no interaction values (explain with interactions=True, 'sii' or 'stii')."
        )
    inter = inter if inter.ndim == 4 else inter[..., None]
    N, d, _, n_out = inter.shape
    names = np.asarray(explanation.feature_names, dtype=object)
    rows = np.arange(N) if ids is None else np.asarray(ids)
    return pd.DataFrame(
        {
            id_name: np.repeat(rows, n_out * d * d),
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

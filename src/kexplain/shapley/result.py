"""The one result type of the Shapley solvers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass
class ShapleyValues:
    """Shapley values of a batch of games, as every solver of ``kexplain.shapley`` returns them.

    Parameters
    ----------
    values : ndarray of shape (n_points, d, n_outputs)
        (or (n_points, d) / (d,) when the game returned fewer axes, for the generic solvers).
    v_full : ndarray
        Value of the full coalition per point (and output).
    v_empty : ndarray
        Value of the empty coalition per point (and output).
    interactions : ndarray of shape (n_points, d, d, n_outputs), optional
        Pairwise interaction values when asked for, in shap's layout: I_jk / 2 off the diagonal,
        phi_j minus the row's off-diagonal entries on it (each row sums to phi_j).
    interaction_index : {"sii", "stii"} or None
        Which index ``interactions`` holds: the Shapley interaction index or the Shapley-Taylor
        index of order 2; for interactions asked for by a mapping (any order and index),
        ``interactions`` is a :class:`kexplain.shapley.higher_order.InteractionTable` and this
        the index's name (``"k-SII"``, ``"Moebius"``, ...).
    standard_errors : ndarray like ``values``, optional
        For sampled estimates.
    n_evaluations : int, optional
        Coalition evaluations spent (sampled and enumeration solvers).

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapley import ShapleyValues
    >>> res = ShapleyValues(values=np.ones((1, 2, 1)), v_full=np.array([[2.0]]), v_empty=np.zeros((1, 1)))
    >>> res.values.sum(axis=1) == res.v_full - res.v_empty
    array([[ True]])
    """

    values: np.ndarray
    v_full: np.ndarray
    v_empty: np.ndarray
    interactions: np.ndarray | Any | None = None
    interaction_index: str | None = None
    standard_errors: np.ndarray | None = None
    n_evaluations: int | None = None

    def __repr__(self) -> str:
        se = ", sampled" if self.standard_errors is not None else ""
        return f"ShapleyValues(values shape={np.shape(self.values)}{se})"

"""The STAR view of the model a :class:`~kexplain.star.StarExplainer` is built with, against its background.

A list of (features, function) pairs takes its width from the background, so a term that reads
a column the background lacks is named; a model with its own number of features must match the
background's columns.
"""

from __future__ import annotations

from typing import Any

from .adapters import as_star_model
from .model import StarModel, StarTerm


def _star_model_for(model: Any, d: int) -> StarModel:
    """The STAR view of ``model`` for a background of ``d`` columns; a mismatch names the background."""
    if isinstance(model, (list, tuple)) and not isinstance(model, StarTerm):
        star = as_star_model(model if model and not _is_bare_term(model) else [model])
        for i, t in enumerate(star.terms):
            bad = [j for j in t.features if j >= d]
            if bad:
                raise ValueError(
                    f"background has {d} columns, but term {i} ({t.name}) reads column(s) {bad}: "
                    f"the background needs a column for every feature the terms read (0..{max(bad)})."
                )
        return as_star_model(model, n_features=d)
    star = as_star_model(model)
    if star.n_features != d:
        raise ValueError(
            f"background has {d} columns, but the model has {star.n_features} features: pass background "
            f"rows with the model's {star.n_features} columns."
        )
    return star


def _is_bare_term(model: Any) -> bool:
    return isinstance(model, tuple) and len(model) == 2 and callable(model[1])

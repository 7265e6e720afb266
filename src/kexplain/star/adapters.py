"""From a fitted model to a :class:`~kexplain.star.StarModel`: the one place that dispatches.

The STAR protocol (:mod:`kexplain.star.model`) knows nothing of the models it describes; the
adapters (interpret's EBMs in :mod:`kexplain.star.ebm`, and any object with a
``to_star_model()`` method, such as kexplain's fitted RKHS Weighting estimators) depend on it, and
this module depends on both.  The imports therefore run one way:
``adapters -> ebm -> model`` and ``adapters -> model``.
"""

from __future__ import annotations

from typing import Any

from ..exceptions import UnsupportedModelError
from .ebm import _ebm_to_star, _is_ebm
from .model import StarModel


def as_star_model(model: Any, n_features: int | None = None) -> StarModel:
    """A :class:`StarModel` view of ``model``.

    Parameters
    ----------
    model : object
        One of: a :class:`StarModel`; an object with a ``to_star_model()`` method (kexplain's
        fitted :class:`RKHSWeightingRegressor` / :class:`RKHSWeightingClassifier`); interpret's
        fitted ``ExplainableBoostingRegressor`` / ``ExplainableBoostingClassifier`` (continuous
        features); a list of (features, function) pairs or :class:`StarTerm` objects.
    n_features : int, optional
        Number of columns of the data; a model over a different number of features is refused.
        A list of terms is taken to have this many features.

    Returns
    -------
    StarModel
        Its ``output`` says which output of ``model`` the terms add up to.

    Raises
    ------
    UnsupportedModelError
        When ``model`` is none of the above; the message names the alternatives.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.star import as_star_model
    >>> star = as_star_model([((0, 1), lambda X: X[:, 0] * X[:, 1])], n_features=3)
    >>> star, star.output
    (StarModel(1 terms, n_features=3, max_order=2), 'sum of terms')
    """
    if isinstance(model, StarModel):
        star = model
    elif hasattr(model, "to_star_model") and callable(model.to_star_model):
        star = model.to_star_model()
        if not isinstance(star, StarModel):
            raise UnsupportedModelError(
                f"{type(model).__name__}.to_star_model() returned {type(star).__name__}, not a kx.star.StarModel."
            )
    elif _is_ebm(model):
        star = _ebm_to_star(model)
    elif isinstance(model, (list, tuple)):
        star = StarModel(model, n_features=n_features)
    else:
        raise UnsupportedModelError(
            f"{type(model).__name__} is not a STAR model. StarExplainer accepts a kx.star.StarModel, a "
            "list of (features, function) pairs, a fitted kx.star.RKHSWeightingRegressor or "
            "RKHSWeightingClassifier, or a fitted interpret ExplainableBoostingRegressor / "
            "ExplainableBoostingClassifier. For other models use kx.ProductKernelExplainer "
            "(product-kernel models) or kx.RKHSExplainer(model.predict, background=B, game='interventional') "
            "(any prediction function; exact up to 12 features, sampled beyond)."
        )
    if n_features is not None and star.n_features != n_features:
        raise ValueError(f"the model has {star.n_features} features but the data have {n_features} columns.")
    return star

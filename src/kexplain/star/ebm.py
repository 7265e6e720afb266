"""Adapter: interpret's Explainable Boosting Machines as STAR models.

An EBM is h(x) = intercept + sum_t score_t[bin(x_{I_t})]: main effects and pairwise terms read
from lookup tables after binning each feature, so it is a STAR model (a GA2M, Dubé & Marchand,
"Shapley Values of Structured Additive Regression Models and Application to RKHS Weightings of
Functions", section 3.2).  The output explained is the additive score: the prediction for
regressors, the logit (log-odds, one column per class for several classes) for classifiers.
Binning is done here with the model's own cut points (checked against ``ebm.eval_terms`` in the
tests), so each term costs a lookup instead of a full model call.

Users reach this adapter through :func:`kexplain.star.as_star_model` (or by passing the fitted
EBM to :class:`~kexplain.star.StarExplainer`); interpret itself is never imported here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import UnsupportedModelError
from .model import StarModel, StarTerm

#: class names of interpret's EBMs that the adapter reads
EBM_CLASSES = ("ExplainableBoostingRegressor", "ExplainableBoostingClassifier")


def _bin_continuous(x: np.ndarray, cuts: np.ndarray, n_bins_total: int) -> np.ndarray:
    # interpret: index 0 holds missing values, 1..len(cuts)+1 the intervals (a value equal to a
    # cut point falls in the upper interval), and the last index unknown values
    idx = np.searchsorted(cuts, x, side="right") + 1
    idx = np.where(np.isnan(x), 0, idx)
    return np.minimum(idx, n_bins_total - 1)


def _is_ebm(model: Any) -> bool:
    return type(model).__name__ in EBM_CLASSES


def _ebm_to_star(ebm: Any) -> StarModel:
    """A StarModel whose terms are the EBM's main and pairwise terms (additive / logit scale)."""
    if not hasattr(ebm, "term_features_"):
        raise UnsupportedModelError(f"{type(ebm).__name__} is not fitted: call fit before explaining it.")
    types = list(getattr(ebm, "feature_types_in_", []))
    cat = [j for j, t in enumerate(types) if t not in ("continuous",)]
    used = sorted({j for feats in ebm.term_features_ for j in feats})
    bad = [j for j in used if j in cat]
    if bad:
        raise UnsupportedModelError(
            f"the EBM has non-continuous (categorical or ordinal) feature(s) {bad}; kexplain's EBM "
            "adapter supports continuous features only. One-hot encode categorical columns before "
            "fitting the EBM, or explain it with kx.exact_shapley on its predict function."
        )
    link = getattr(ebm, "link_", "identity")
    terms = []
    for t, (feats, scores) in enumerate(zip(ebm.term_features_, ebm.term_scores_)):
        feats = tuple(int(j) for j in feats)
        level = len(feats)
        cuts = []
        for j in feats:
            per_level = ebm.bins_[j]
            cuts.append(np.asarray(per_level[min(level, len(per_level)) - 1], dtype=np.float64))
        terms.append(
            StarTerm(feats, _EBMTerm(cuts, np.asarray(scores, dtype=np.float64)), name=str(ebm.term_names_[t]))
        )
    intercept = np.atleast_1d(np.asarray(ebm.intercept_, dtype=np.float64))
    classes = getattr(ebm, "classes_", None)
    cls = type(ebm).__name__
    if classes is not None and intercept.size > 1:
        outputs: list[str] | None = [f"logit({c})" for c in classes]
        output = f"decision_function (logit per class) of {cls}"
    elif classes is not None:
        outputs = [f"logit({classes[-1]})" if link == "logit" else f"score({classes[-1]})"]
        output = f"decision_function ({'logit' if link == 'logit' else 'score'}) of {cls}"
    else:
        outputs = None
        output = f"predict of {cls}"
    names = getattr(ebm, "feature_names_in_", None)
    return StarModel(
        terms,
        n_features=int(ebm.n_features_in_),
        intercept=intercept,
        feature_names=None if names is None else list(names),
        output_names=outputs,
        output=output,
    )


class _EBMTerm:
    """Lookup of one EBM term: bin each column with its cut points, then index the score table."""

    def __init__(self, cuts: list[np.ndarray], scores: np.ndarray) -> None:
        self.cuts = cuts
        self.scores = scores

    def __call__(self, XI: np.ndarray) -> np.ndarray:
        idx = tuple(_bin_continuous(XI[:, i], c, self.scores.shape[i]) for i, c in enumerate(self.cuts))
        return self.scores[idx]

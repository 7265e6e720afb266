"""GP-SHAP's path of ``ObservationalExplainer.explain(X, uncertainty=True)``, a mix-in of the explainer.

The posterior mean and covariance of the observational values of a Gaussian process (Chau, Muandet &
Sejdinovic, 2023; ``kexplain.rkhs.gpshap``): the GP-SHAP state is built once per explainer, under
its lock, and kept; the rows are explained in blocks.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import numpy as np

from ..base import explain_in_blocks
from ..explainers.coalitions import blas_threads
from ..explanation import Explanation
from ..models.posterior import gp_posterior, record_accuracy, warn_accuracy
from ._models import _check_eta
from .cme import ProductCME


class ObservationalUncertainty:
    """``explain(X, uncertainty=True)`` of ``ObservationalExplainer`` (a mix-in: the explainer sets
    the attributes below)."""

    if TYPE_CHECKING:  # set by ObservationalExplainer and its base Explainer
        model: Any
        game: str
        background: Any
        background_weights: Any
        n_features: int
        max_exact_features: int
        cme_regularization: float
        _landmarks: np.ndarray | None
        _lock: threading.Lock

        def _system_size(self) -> int: ...

    def _explain_uncertain(
        self, Xv: np.ndarray, names: list[str], index: Any, interactions: Any, budget: Any, n_jobs: int, joint: bool
    ) -> Explanation:
        """GP-SHAP: posterior mean and covariance of the observational values (``kexplain.rkhs.gpshap``)."""
        from .gpshap import ObservationalGPSHAP

        if self._landmarks is not None:
            raise ValueError("uncertainty=True needs the exact CME (approximation=None).")
        if interactions or budget is not None or self.n_features > self.max_exact_features:
            raise ValueError(
                "uncertainty=True needs enumerated coalitions (d <= max_exact_features, no budget) and gives "
                "no interactions."
            )
        eta = _check_eta(self.cme_regularization)
        with self._lock:
            gs = getattr(self, "_gpshap", None)
            if gs is None:
                post = gp_posterior(self.model)  # a clear UnsupportedModelError for models without a posterior
                cme = ProductCME(post.expansion(), self.background, eta, weights=self.background_weights)
                gs = self._gpshap = ObservationalGPSHAP(post, cme)
            gs.cme.set_regularization(eta)
        post = gs.post
        em = gs.cme.em
        base = float(em.intercept[0] + gs.cme.mean_basis @ em.coef[:, 0])
        base_var = gs.base_variance()

        def block(rows: slice) -> Explanation:
            X = Xv[rows]
            mean, cov, bound = gs.moments_and_bound(X, joint=joint)
            pvar, pbound = post.variance_and_bound(X)
            ex = Explanation(
                values=mean,
                base_values=np.full(X.shape[0], base),
                data=X,
                feature_names=names,
                covariance=None if joint else cov,
                joint_covariance=cov if joint else None,
                base_variance=np.full(X.shape[0], base_var),
                prediction_variance=pvar,
                game=self.game,
                output=post.output,
                v_full=em.predict(X),
                info={"solver": "exact (GP-SHAP covariance)", "cme_regularization": eta, "approximation": None},
            )
            record_accuracy(ex, post, bound, pbound)
            return ex

        with blas_threads(self._system_size()):
            ex = block(slice(0, Xv.shape[0])) if joint else explain_in_blocks(block, Xv.shape[0], n_jobs)
        ex.data, ex.index = Xv, index
        warn_accuracy(ex)
        return ex

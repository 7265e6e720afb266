"""The interventional game's paths of ``RKHSExplainer``, a mix-in of the explainer.

``RKHSExplainer`` routes the interventional game once, at construction, to the exact product
engine (``kx.ProductKernelExplainer``) or to ``ModelAgnosticExplainer``; what the routed explainer
does not give by itself lives here: the sampled solver of a product-kernel model (built on demand,
on the expansion), the engine on the model itself for the posterior covariance, and the checks
and relabelling of the interventional results (``explain`` with ``game="interventional"``).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from .._typing import RandomStateLike
from .._validation import check_bool, check_random_state
from ..base import check_explain_options, row_index
from ..explainers.model_agnostic import ModelAgnosticExplainer
from ..explainers.product_kernel import ProductKernelExplainer
from ..explanation import Explanation
from ._models import _EmbeddingSampled

if TYPE_CHECKING:
    from ..models.expansion import KernelExpansion
    from .observational import ObservationalExplainer


class RKHSInterventional:
    """The interventional paths of ``RKHSExplainer`` (a mix-in: the explainer sets the attributes
    below)."""

    if TYPE_CHECKING:  # set by RKHSExplainer and its base Explainer
        model: Any
        game: str
        output: str
        background: Any
        background_weights: Any
        feature_names: list[str] | None
        n_features: int
        expansion: KernelExpansion | None
        explainer: ObservationalExplainer | ProductKernelExplainer | ModelAgnosticExplainer
        max_exact_features: int
        max_block_bytes: int
        _given_weights: Any
        _lock: threading.Lock

        def _names(self, X: Any, d: int) -> list[str]: ...

    def __getstate__(self) -> dict[str, Any]:
        # the lock guards lazy construction within one process; a copy gets a fresh one
        state = self.__dict__.copy()
        state.pop("_lock", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def _agnostic(
        self, model: Any, cls: type[ModelAgnosticExplainer] = ModelAgnosticExplainer
    ) -> ModelAgnosticExplainer:
        # the weights as given: normalising normalised weights again could move their last bits
        return cls(
            model,
            self.background,
            background_weights=self._given_weights,
            feature_names=self.feature_names,
            max_exact_features=self.max_exact_features,
            max_block_bytes=self.max_block_bytes,
        )

    def _sampled_product(self) -> ModelAgnosticExplainer:
        """The interventional game of a product-kernel model for the sampled solver (the engine is
        exact and needs no sampling): through the mean embedding of the absent features, or on the
        expansion's own ``predict`` when its outputs have a kernel each."""
        with self._lock:
            if getattr(self, "_sampled", None) is None:
                em = self.expansion
                embedded = em is not None and not em.per_output_kernels
                self._sampled = self._agnostic(em, _EmbeddingSampled if embedded else ModelAgnosticExplainer)
            return self._sampled

    def _explain_interventional(
        self,
        X: Any,
        *,
        interactions: bool | str | None,
        progress: bool,
        n_jobs: int | None,
        random_state: RandomStateLike,
        budget: int | None,
        tol: float | None,
        uncertainty: bool,
        joint: bool,
    ) -> Explanation:
        """``explain`` in the interventional game: the routed explainer's values, relabelled."""
        options: dict[str, Any] = dict(interactions=interactions, progress=progress, n_jobs=n_jobs)
        uncertainty, joint = check_bool(uncertainty, "uncertainty"), check_bool(joint, "joint")
        if uncertainty or joint:
            if not uncertainty:
                raise ValueError("joint=True needs uncertainty=True.")
            if not isinstance(self.explainer, ProductKernelExplainer) or budget is not None:
                raise ValueError(
                    "uncertainty=True in the interventional game needs a Gaussian-process model with a product "
                    "kernel and the exact engine (no budget); see kx.ProductKernelExplainer."
                )
        if isinstance(self.explainer, ModelAgnosticExplainer):
            return self.explainer.explain(X, random_state=random_state, budget=budget, tol=tol, **options)
        if self.expansion is None:  # a foreign model with a mixture kernel, in the product explainer
            if budget is not None:
                raise ValueError(
                    f"budget: {type(self.explainer).__name__} explains this model exactly (within the reported "
                    "kernel_error_bound) and samples nothing; leave budget=None."
                )
            check_random_state(random_state)
            return self.explainer.explain(X, uncertainty=uncertainty, joint=joint, **options)
        # a product-kernel model in the interventional game
        assert self.expansion is not None
        if budget is not None:
            self.expansion.check_input(X, name="X")  # the model's own column checks first
            ex = self._sampled_product().explain(X, random_state=random_state, budget=budget, tol=tol, **options)
            ex.output = self.output
            return ex
        interactions, progress, n_jobs = check_explain_options(interactions, progress, n_jobs)
        check_random_state(random_state)  # the engine is exact: the seed has no effect
        Xv = self.expansion.check_input(X, name="X")
        if uncertainty:
            ex = self._uncertain_engine().explain(
                Xv, interactions=interactions, n_jobs=n_jobs, uncertainty=True, joint=joint
            )
        else:
            ex = self.explainer.explain(X, interactions=interactions, progress=progress, n_jobs=n_jobs)
            ex.info.update(solver="product-game engine")
            ex.output = self.output
        ex.feature_names, ex.game, ex.index = self._names(X, self.n_features), self.game, row_index(X)
        return ex

    def _uncertain_engine(self) -> ProductKernelExplainer:
        """The interventional covariance is the product-kernel explainer's on the model itself (it
        needs the Gaussian process's posterior, not only its mean)."""
        with self._lock:
            engine = getattr(self, "_uncertain", None)
            if engine is None:
                engine = self._uncertain = ProductKernelExplainer(
                    self.model, self.background, background_weights=self.background_weights
                )
            return engine

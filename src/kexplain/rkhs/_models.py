"""Which kind of model RKHS-SHAP explains (a product-kernel expansion, another kernel model, any
callable), on which background rows, and how its output is described; the options shared by the
explainers of the folder."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._params import Integer, check_param
from .._params import Real as RealNumber
from .._typing import RandomStateLike
from .._validation import check_data, check_random_state, check_weights
from ..exceptions import UnsupportedModelError, foreign_model_error
from ..explainers.model_agnostic import ModelAgnosticExplainer
from ..explainers.outputs import final_estimator, model_output
from ..kernels.mixture import ScaleMixtureKernel
from ..models.expansion import KernelExpansion
from ..models.posterior import GPPosterior
from ..models.sklearn import as_kernel_expansion
from .restricted_kernels import SUPPORTED_NON_PRODUCT, kernel_of

GAMES = ("observational", "interventional")

_SVM = ("SVR", "NuSVR", "SVC", "NuSVC")

_ACCEPTED = (
    f"RKHSExplainer accepts product-kernel models (see kx.models.SUPPORTED_MODELS), {SUPPORTED_NON_PRODUCT}, "
    "or any prediction callable with a background."
)


def _check_eta(eta: Any) -> float:
    what = "a positive finite number"
    return float(check_param(eta, "cme_regularization", RealNumber(0, closed="neither"), what=what))


def _check_options(
    game: Any,
    cme_regularization: Any,
    approximation: Any,
    random_state: RandomStateLike,
    **positive: Any,
) -> None:
    """The constructor options of RKHSExplainer and ObservationalExplainer."""
    if game not in GAMES:
        raise ValueError(f"game must be one of {GAMES}, got {game!r}.")
    _check_eta(cme_regularization)
    if approximation not in (None, "nystroem"):
        raise ValueError(f"approximation must be None or 'nystroem', got {approximation!r}.")
    for name, v in positive.items():
        check_param(v, name, Integer(1))
    check_random_state(random_state)


def _product_expansion(model: Any, feature_names: Sequence[str] | None) -> KernelExpansion | None:
    if isinstance(model, KernelExpansion):
        return model
    if isinstance(model, GPPosterior):
        return model.expansion()
    if hasattr(model, "to_kernel_expansion"):
        return model.to_kernel_expansion()
    try:
        em = as_kernel_expansion(model, feature_names=feature_names)
    except UnsupportedModelError:
        return None
    # a Matérn or rational quadratic kernel is a discretised sum of RBFs, with an error bound that
    # only ProductKernelExplainer reports: here it keeps the generic route on the model's own kernel
    return None if isinstance(em.kernel, ScaleMixtureKernel) else em


def _foreign_mixture(model: Any, feature_names: Sequence[str] | None) -> KernelExpansion | None:
    """A GPyTorch, BoTorch or GPflow model whose kernel converts only as a Matérn / rational
    quadratic mixture: its expansion, whose ``predict`` is the model's posterior mean within the
    mixture's bound (checked against the model's own prediction when it was converted).  The
    product route keeps such kernels on the generic path, and these models have no NumPy
    ``predict`` of their own to take it with."""
    if foreign_model_error(model) is None:
        return None
    try:
        em = as_kernel_expansion(model, feature_names=feature_names)
    except UnsupportedModelError:
        return None
    return em if isinstance(em.kernel, ScaleMixtureKernel) else None


def _describe_product(model: Any) -> str:
    if isinstance(model, KernelExpansion):
        return "KernelExpansion.predict"
    if hasattr(model, "to_kernel_expansion"):
        return f"predict of {type(model).__name__}"
    try:
        from ..models.sklearn import describe_output

        return str(describe_output(model))
    except (ImportError, AttributeError, TypeError, ValueError):  # pragma: no cover - older adapters
        return f"predict of {type(final_estimator(model)).__name__}"


@dataclass
class _Model:
    """A model as RKHS-SHAP sees it, with its validated background."""

    kind: str  # "product" (product-kernel expansion), "kernel" (other kernel model) or "agnostic"
    expansion: KernelExpansion | None
    output: str
    predict: Callable[[np.ndarray], Any] | None  # the output explained, for non-product models
    kernel_on: Callable[[np.ndarray], Any] | None  # the model's kernel restricted to S ("kernel")
    feature_names: list[str] | None
    background: np.ndarray
    background_weights: np.ndarray | None
    n_features: int


def _resolve(model: Any, background: Any, background_weights: Any, feature_names: list[str] | None) -> _Model:
    """Read the model once: a product-kernel expansion, else the model's own kernel, else a callable."""
    expansion = _product_expansion(model, feature_names)
    est = final_estimator(model)
    default_ref: Any = None
    n_features: int | None
    predict: Callable[[np.ndarray], Any] | None = None
    kernel_on = None
    if expansion is not None:
        kind = "product"
        n_features = expansion.n_features
        default_ref = None if type(est).__name__ in _SVM else expansion.X_ref
        if feature_names is None and expansion.feature_names is not None:
            feature_names = list(expansion.feature_names)
        output = _describe_product(model)
    else:
        n = getattr(est, "n_features_in_", None)
        n_features = None if n is None else int(n)
        kern = kernel_of(est, n_features) if est is model else None
        kind = "kernel" if kern is not None else "agnostic"
        if kern is not None:
            kernel_on = kern[1]
            default_ref = getattr(est, "X_fit_", None)
            if default_ref is None:
                default_ref = getattr(est, "X_train_", None)
        mixture = _foreign_mixture(model, feature_names)
        if mixture is not None:
            predict, output, n_features = mixture.predict, _describe_product(model), mixture.n_features
        else:
            predict, output = model_output(model, _ACCEPTED)
        names = getattr(model, "feature_names_in_", None)
        if feature_names is None and names is not None:
            feature_names = [str(n) for n in names]
    if background is None:
        if default_ref is None:
            raise ValueError(
                f"background is required for a model of type {type(est).__name__}: it does not keep its "
                "training rows. Pass the rows whose distribution the expectations are taken over."
            )
        background = default_ref
    R = check_data(
        background,
        name="background",
        n_features=n_features,
        numeric_mask=None if expansion is None else expansion.numeric_mask,
    )
    if R.shape[0] < 2:
        raise ValueError(f"background must have at least 2 rows, got {R.shape[0]}.")
    return _Model(
        kind=kind,
        expansion=expansion,
        output=output,
        predict=predict,
        kernel_on=kernel_on,
        feature_names=feature_names,
        background=R,
        background_weights=None if background_weights is None else check_weights(background_weights, R.shape[0]),
        n_features=int(R.shape[1] if n_features is None else n_features),
    )


class _ProductEmbeddingGame:
    """The interventional game of a product-kernel expansion through the mean embedding of the
    absent features (Chau, Hu, Gonzalez & Sejdinovic, 2022, Proposition 3): per coalition,
    v_x(S) = sum_i c_i prod_{j in S} k_j(x_j, X_ij) * mean_r prod_{j not in S} k_j(R_rj, X_ij).
    The same numbers as averaging the model over hybrid rows, at O((N + n_background) n d) per
    coalition instead of O(N n_background n d); the sampled solver's game for such models."""

    def __init__(self, em: KernelExpansion, X: np.ndarray, R: np.ndarray, w: np.ndarray | None) -> None:
        from .cme import _FeatureProducts

        self.em, self.w = em, w
        self.fx = [_FeatureProducts(t, em.X_ref, X) for t in em.terms]
        self.fr = [_FeatureProducts(t, em.X_ref, R) for t in em.terms]

    def __call__(self, coalitions: np.ndarray) -> np.ndarray:
        em, out = self.em, []
        for S in np.asarray(coalitions, dtype=bool):
            S_idx, Sc_idx = np.flatnonzero(S), np.flatnonzero(~S)
            total = 0.0
            for a, fx, fr in zip(em.amplitudes, self.fx, self.fr):
                absent = fr.prod(Sc_idx)  # (n_support, n_background)
                m = absent.mean(axis=1) if self.w is None else absent @ self.w
                total = total + a * fx.prod(S_idx) * m[:, None]  # (n_support, N)
            out.append(np.asarray(total).T @ em.coef + em.intercept)
        return np.stack(out)


class _EmbeddingSampled(ModelAgnosticExplainer):
    """The sampled solver on a product-kernel expansion, its game through mean embeddings."""

    def _game_at(self, Xv: np.ndarray, coalition_jobs: int = 1) -> Any:
        return _ProductEmbeddingGame(self.model, Xv, self.background, self.background_weights)

"""What a fitted ``BayesIMP`` gives back: the prediction with its covariance split by source, and the
moment-matched GP prior (mean function and scikit-learn kernel) for causal Bayesian optimisation."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from sklearn.gaussian_process.kernels import Kernel as _SkKernel


class _FittedIMP(Protocol):
    """What the prior needs of a fitted :class:`kexplain.causal.BayesIMP`."""

    def predict(self, x: Any, return_cov: bool = False) -> Any: ...

    def cross_cov(self, xa: Any, xb: Any) -> np.ndarray: ...


@dataclass
class InterventionalPrediction:
    """Mean and covariance of E[T | do(X) = x] at query treatments, with the covariance's parts.

    Parameters
    ----------
    mean : ndarray of shape (q,)
        The posterior mean at each query treatment.
    cov : ndarray of shape (q, q)
        The sum of ``components``.
    components : dict of str to ndarray of shape (q, q)
        ``"D1"`` (uncertainty of the embedding learnt from D1), ``"D2"`` (uncertainty of f learnt
        from D2), ``"interaction"`` (their product term, BayesIMP only); a method has only its own.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.causal import InterventionalPrediction
    >>> p = InterventionalPrediction(np.zeros(1), np.eye(1), {"D2": np.eye(1)})
    >>> print(p.std)
    [1.]
    """

    mean: np.ndarray
    cov: np.ndarray
    components: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def std(self) -> np.ndarray:
        """Pointwise standard deviation sqrt(diag(cov))."""
        return np.sqrt(np.maximum(np.diag(self.cov), 0.0))


class InterventionalKernel(_SkKernel):
    """The covariance of a fitted ``BayesIMP`` as a scikit-learn kernel (no hyperparameters).

    Parameters
    ----------
    model : BayesIMP
        A fitted model.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.causal import BayesIMP, InterventionalKernel
    >>> rng = np.random.default_rng(4)
    >>> X = rng.normal(size=(30, 1)); Y = X + 0.2 * rng.normal(size=(30, 1))
    >>> k = InterventionalKernel(BayesIMP("imp").fit(X, Y, Y[:20], Y[:20, 0]))
    >>> k(np.zeros((2, 1))).shape
    (2, 2)
    """

    def __init__(self, model: _FittedIMP) -> None:
        self.model = model

    def __call__(self, X: Any, Y: Any = None, eval_gradient: bool = False) -> Any:
        X = np.asarray(X, dtype=np.float64)
        K = self.model.predict(X, return_cov=True).cov if Y is None else self.model.cross_cov(X, Y)
        if eval_gradient:
            return K, np.empty((X.shape[0], X.shape[0], 0))
        return K

    def diag(self, X: Any) -> np.ndarray:
        """Prior variances at the rows of X.

        Parameters
        ----------
        X : array-like of shape (n, d_x)
            Treatments.

        Returns
        -------
        ndarray of shape (n,)
            The prior variance at each row.
        """
        return np.diag(self(X))

    def is_stationary(self) -> bool:
        """False: the interventional covariance is not stationary.

        Returns
        -------
        bool
            False.
        """
        return False


class InterventionalGPPrior:
    """Moment-matched GP prior of E[T | do(X) = x]: ``mean(x)`` and a scikit-learn ``kernel``.

    Parameters
    ----------
    model : BayesIMP
        A fitted model.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.causal import BayesIMP, InterventionalGPPrior
    >>> rng = np.random.default_rng(5)
    >>> X = rng.normal(size=(30, 1)); Y = X + 0.2 * rng.normal(size=(30, 1))
    >>> prior = InterventionalGPPrior(BayesIMP().fit(X, Y, Y[:20], Y[:20, 0]))
    >>> prior.mean(np.zeros((3, 1))).shape
    (3,)
    """

    def __init__(self, model: _FittedIMP) -> None:
        self.model = model
        self.kernel = InterventionalKernel(model)

    def mean(self, x: Any) -> np.ndarray:
        """Prior mean E[T | do(X) = x] at the rows of x.

        Parameters
        ----------
        x : array-like of shape (n, d_x)
            Treatments.

        Returns
        -------
        ndarray of shape (n,)
            The prior mean at each row.
        """
        return np.asarray(self.model.predict(x))

"""The posterior uncertainty of Shapley values (a Gaussian-process model's): ``Explanation.std`` and
``Explanation.interval``, and the check of the covariances the constructor takes.

The draws (``Explanation.sample`` and ``sample_values``) are in ``_explanation_draws.py``.
"""

from __future__ import annotations

import numpy as np

from ._explanation_fields import ExplanationFields


def _check_covariance(cov: np.ndarray, name: str) -> None:
    """Refuse a covariance that is not symmetric or has negative variances (beyond rounding).

    ``cov`` is (N, d, d, ...) per point (axes 1 and 2 paired), or the (N * d, N * d) matrix of a
    joint covariance.
    """
    if cov.size == 0:
        return
    axes = (0, 1) if cov.ndim == 2 else (1, 2)
    tol = 1e-6 * float(np.max(np.abs(cov)))
    if float(np.max(np.abs(cov - np.swapaxes(cov, *axes)))) > tol:
        raise ValueError(f"{name} must be symmetric (a covariance matrix per point); got an asymmetric matrix.")
    smallest = float(np.min(np.diagonal(cov, axis1=axes[0], axis2=axes[1])))
    if smallest < -tol:
        raise ValueError(f"{name} has negative variances on its diagonal (smallest {smallest:.3g}).")


class ExplanationUncertainty(ExplanationFields):
    """Standard deviations and credible intervals of the values' Gaussian posterior (a mix-in of Explanation)."""

    def _need_covariance(self, what: str) -> np.ndarray:
        if self.covariance is None:
            raise ValueError(
                f"{what} needs the covariance of the values: explain a Gaussian-process model with "
                "uncertainty=True (e.g. kx.ProductKernelExplainer(gpr, background).explain(X, uncertainty=True))."
            )
        if self.values.ndim != 2 or self.covariance.ndim != 3:
            raise ValueError(f"{what} is available for single-output explanations; pick one with ex[:, output].")
        return self.covariance

    @property
    def std(self) -> np.ndarray:
        """Posterior standard deviation of each value, shape (N, d) (needs ``covariance``).

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain import Explanation
        >>> ex = Explanation(np.array([[1.0, -0.5]]), 0.0, covariance=np.diag([4.0, 0.25])[None])
        >>> ex.std
        array([[2. , 0.5]])
        """
        cov = self._need_covariance("std")
        return np.sqrt(np.clip(np.diagonal(cov, axis1=1, axis2=2), 0.0, None))

    def interval(self, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
        """Central credible interval of each value under its Gaussian posterior.

        Parameters
        ----------
        level : float
            Probability mass inside the interval, in (0, 1).

        Returns
        -------
        lower : ndarray of shape (N, d)
            ``values - z * std`` with z the (1 + level) / 2 quantile of the standard normal.
        upper : ndarray of shape (N, d)
            ``values + z * std``.

        Examples
        --------
        >>> import numpy as np
        >>> from kexplain import Explanation
        >>> ex = Explanation(np.array([[1.0, -0.5]]), 0.0, covariance=np.diag([1.0, 0.01])[None])
        >>> lower, upper = ex.interval(0.95)
        >>> np.round(lower, 3), np.round(upper, 3)
        (array([[-0.96 , -0.696]]), array([[ 2.96 , -0.304]]))
        """
        from scipy.stats import norm

        if isinstance(level, (bool, np.bool_)) or not isinstance(level, (int, float, np.integer, np.floating)):
            raise TypeError(f"level must be a number in (0, 1), got {level!r} of type {type(level).__name__}.")
        level = float(level)
        if not 0.0 < level < 1.0:
            raise ValueError(f"level must be in (0, 1), got {level}.")
        z = float(norm.ppf(0.5 + level / 2.0))
        sd = self.std
        return self.values - z * sd, self.values + z * sd

"""Global importance with credible intervals from the exact joint posterior of Shapley values.

For a Gaussian-process model, ``ProductKernelExplainer(gp, background=B).explain(X,
uncertainty=True, joint=True)`` gives the Shapley values of all rows of X as one jointly Gaussian
vector: mean ``values`` (N, d) and exact covariance ``joint_covariance`` (N, d, N, d).  The global
importance of feature j, I_j = mean_i |phi_ij|, is then a random variable:

- its posterior mean is exact, as E|Y| = s sqrt(2 / pi) exp(-m^2 / (2 s^2)) + m (1 - 2 Phi(-m / s))
  for Y ~ N(m, s^2);
- its credible interval and the posterior probability of each feature's rank are estimated by
  sampling the exact joint Gaussian (``n_samples`` draws; the Monte Carlo standard error of a
  probability p is sqrt(p (1 - p) / n_samples)).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import stats

from .._optional import require
from .._params import Integer, check_param
from .._typing import RandomStateLike
from ..explanation import Explanation


class ImportanceIntervals:
    """Mean ``|Shapley value|`` per feature with credible intervals and rank probabilities.

    Parameters
    ----------
    feature_names : list of str
        Names of the d features.
    mean_abs : ndarray (d,)
        Posterior mean of ``mean_i |phi_ij|`` (exact).
    plug_in : ndarray (d,)
        ``mean_i |E phi_ij|``, the importance of the posterior-mean values.
    lower, upper : ndarray (d,)
        Equal-tailed credible interval at ``level`` (sampled).
    rank_probabilities : ndarray (d, d)
        [j, r]: posterior probability that feature j has rank r + 1 (rank 1 the most important;
        sampled).
    level : float
        Probability inside each credible interval.
    n_samples : int
        Posterior draws behind the sampled quantities.
    """

    def __init__(
        self,
        feature_names: list[str],
        mean_abs: np.ndarray,
        plug_in: np.ndarray,
        lower: np.ndarray,
        upper: np.ndarray,
        rank_probabilities: np.ndarray,
        level: float,
        n_samples: int,
    ) -> None:
        self.feature_names = feature_names
        self.mean_abs = mean_abs
        self.plug_in = plug_in
        self.lower = lower
        self.upper = upper
        self.rank_probabilities = rank_probabilities
        self.level = level
        self.n_samples = n_samples

    def __repr__(self) -> str:
        return (
            f"ImportanceIntervals({len(self.feature_names)} features, level={self.level}, n_samples={self.n_samples})"
        )

    def to_frame(self) -> Any:
        """A pandas DataFrame indexed by feature (mean_abs, lower, upper, p_rank_1).

        Returns
        -------
        pandas.DataFrame
            One row per feature.
        """
        pd = require("pandas", "ImportanceIntervals.to_frame")
        return pd.DataFrame(
            {
                "mean_abs": self.mean_abs,
                "lower": self.lower,
                "upper": self.upper,
                "p_rank_1": self.rank_probabilities[:, 0],
            },
            index=pd.Index(self.feature_names, name="feature"),
        )

    def plot(self, ax: Any = None, max_features: int | None = 20) -> Any:
        """Bars of the posterior mean importance with credible intervals, labelled with P(rank 1).

        Needs matplotlib (extra ``plots``).

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Draw into this Axes; a new figure is made otherwise.
        max_features : int or None, default 20
            Show the most important features only (None: all).

        Returns
        -------
        matplotlib Axes
            The Axes drawn into.
        """
        plt = require("matplotlib.pyplot", "ImportanceIntervals.plot")
        order = np.argsort(-self.mean_abs, kind="stable")
        if max_features is not None:
            order = order[:max_features]
        order = order[::-1]
        if ax is None:
            _, ax = plt.subplots(figsize=(6.5, 0.35 * len(order) + 1.2))
        pos = np.arange(len(order))
        m = self.mean_abs[order]
        err = np.vstack([m - self.lower[order], self.upper[order] - m])
        ax.barh(pos, m, xerr=err, color="#4c72b0", capsize=3)
        ax.set_yticks(pos)
        ax.set_yticklabels(
            [f"{self.feature_names[j]}  (P rank 1 = {self.rank_probabilities[j, 0]:.2f})" for j in order]
        )
        ax.set_xlabel(f"mean |Shapley value| with {100 * self.level:.0f}% credible interval")
        return ax


def global_importance(
    explanation: Explanation,
    *,
    level: float = 0.95,
    n_samples: int = 4000,
    random_state: RandomStateLike = None,
    output: int | None = None,
) -> ImportanceIntervals:
    """Mean ``|phi_j|`` over the rows of an explanation, with credible intervals and rank probabilities.

    Needs the exact joint covariance of the values of all rows: ``explain(X, uncertainty=True,
    joint=True)`` of a Gaussian-process model.  The posterior mean of the importance is exact;
    the interval and the rank probabilities come from ``n_samples`` draws of the exact joint
    Gaussian (module notes).

    Parameters
    ----------
    explanation : Explanation
        With ``joint_covariance`` (N, d, N, d).
    level : float
        Credible level in (0, 1).
    n_samples : int
        Number of posterior draws of the Shapley values for the intervals and ranks.
    random_state : None, int or numpy Generator
        Seeds the draws.
    output : int, optional
        Not used for single-output explanations (the only ones with a joint covariance).

    Returns
    -------
    ImportanceIntervals
        The exact posterior mean importances with sampled intervals and rank probabilities.

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from sklearn.gaussian_process import GaussianProcessRegressor
    >>> X = np.random.default_rng(0).normal(size=(30, 3))
    >>> gpr = GaussianProcessRegressor(alpha=0.05).fit(X, 2 * X[:, 0] + 0.2 * X[:, 2])
    >>> ex = kx.ProductKernelExplainer(gpr, background=X[:8]).explain(X[:6], uncertainty=True, joint=True)
    >>> imp = kx.sensitivity.global_importance(ex, random_state=0)
    >>> imp.feature_names[int(np.argmax(imp.mean_abs))], bool(np.all(imp.lower <= imp.upper))
    ('x0', True)
    """
    if not isinstance(explanation, Explanation):
        raise TypeError(f"explanation must be a kx.Explanation, got {type(explanation).__name__}.")
    jc = getattr(explanation, "joint_covariance", None)
    if jc is None:
        raise ValueError(
            "explanation has no joint_covariance: explain a Gaussian-process model with "
            "explain(X, uncertainty=True, joint=True) to get the exact joint posterior of the values."
        )
    if not (isinstance(level, float) and 0.0 < level < 1.0):
        raise ValueError(f"level must be a float in (0, 1), got {level!r}.")
    check_param(n_samples, "n_samples", Integer(2))
    mu = np.asarray(explanation.values, dtype=np.float64)
    N, d = mu.shape
    cov = np.asarray(jc, dtype=np.float64).reshape(N * d, N * d)
    sd = np.sqrt(np.clip(np.diag(cov), 0.0, None)).reshape(N, d)
    # exact E|phi| per entry (a zero sd leaves |mean|)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(sd > 0, mu / np.where(sd > 0, sd, 1.0), 0.0)
    e_abs = np.where(
        sd > 0, sd * np.sqrt(2 / np.pi) * np.exp(-0.5 * z * z) + mu * (1 - 2 * stats.norm.cdf(-z)), np.abs(mu)
    )
    mean_abs = e_abs.mean(axis=0)
    # sample the exact joint Gaussian through its eigendecomposition (PSD up to rounding: clip)
    lam, V = np.linalg.eigh(0.5 * (cov + cov.T))
    root = V * np.sqrt(np.clip(lam, 0.0, None))
    rng = np.random.default_rng(random_state)
    imps = np.empty((n_samples, d))
    step = max(1, 2**22 // (N * d))
    for s in range(0, n_samples, step):
        k = min(step, n_samples - s)
        draw = mu.reshape(1, -1) + rng.standard_normal((k, N * d)) @ root.T
        imps[s : s + k] = np.abs(draw.reshape(k, N, d)).mean(axis=1)
    alpha = (1 - level) / 2
    lower, upper = np.quantile(imps, [alpha, 1 - alpha], axis=0)
    ranks = np.argsort(np.argsort(-imps, axis=1, kind="stable"), axis=1, kind="stable")  # 0 = most important
    probs = np.stack([(ranks == r).mean(axis=0) for r in range(d)], axis=1)
    return ImportanceIntervals(
        list(explanation.feature_names), mean_abs, np.abs(mu).mean(axis=0), lower, upper, probs, level, n_samples
    )

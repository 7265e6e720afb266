"""Result objects of the kernel statistics: attributions and permutation tests."""
from __future__ import annotations

import numpy as np

from .._optional import require


class StatAttribution:
    """Shapley attribution of a kernel statistic (MMD^2 or HSIC) to features.

    Attributes
    ----------
    values : array (d,)
        Shapley value of each feature; ``values.sum() == total`` (efficiency, exact up to rounding).
    total : float
        The statistic itself (the value of the full coalition; the empty coalition has value 0).
    feature_names : list of d names
    statistic : str, "MMD^2" or "HSIC"
    estimator : str, "unbiased" or "biased"
    standard_errors : array (d,) or None
        For incomplete U-statistics (a random subset of pairs): the standard error of each value
        as an estimate of the complete-statistic value; ``total_standard_error`` likewise.
    kernel : the kernel used (the median-heuristic RBF when none was given)
    """

    def __init__(self, values, total, feature_names, statistic, estimator, kernel=None,
                 standard_errors=None, total_standard_error=None, info=None):
        self.values = np.asarray(values, dtype=np.float64)
        self.total = float(total)
        self.feature_names = list(feature_names)
        self.statistic = statistic
        self.estimator = estimator
        self.kernel = kernel
        self.standard_errors = None if standard_errors is None else np.asarray(standard_errors, dtype=np.float64)
        self.total_standard_error = None if total_standard_error is None else float(total_standard_error)
        self.info = dict(info or {})

    def __len__(self):
        return len(self.values)

    def __repr__(self):
        return (f"StatAttribution({self.statistic}, {self.estimator}, total={self.total:.6g}, "
                f"{len(self.values)} features)")

    def to_frame(self):
        """pandas DataFrame indexed by feature: value (and standard_error when estimated)."""
        pd = require("pandas", "StatAttribution.to_frame")
        data = {"value": self.values}
        if self.standard_errors is not None:
            data["standard_error"] = self.standard_errors
        return pd.DataFrame(data, index=pd.Index(self.feature_names, name="feature"))

    def plot(self, ax=None, max_features: int | None = 20, color_positive="#d62728",
             color_negative="#1f77b4"):
        """Horizontal bar chart of the attributions, largest magnitude on top. Returns the axes."""
        plt = require("matplotlib.pyplot", "StatAttribution.plot")
        order = np.argsort(-np.abs(self.values))
        if max_features is not None:
            order = order[:max_features]
        order = order[::-1]
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 0.3 * len(order) + 1.2))
        vals = self.values[order]
        err = None if self.standard_errors is None else self.standard_errors[order]
        ax.barh(np.arange(len(order)), vals, xerr=err,
                color=[color_positive if v > 0 else color_negative for v in vals])
        ax.set_yticks(np.arange(len(order)))
        ax.set_yticklabels([self.feature_names[j] for j in order])
        ax.axvline(0.0, color="black", linewidth=0.8)
        ax.set_xlabel(f"Shapley value of {self.statistic} (total {self.total:.4g})")
        return ax


class JointAttribution:
    """HSIC attributed to the variables of X (``x``) and, in a separate game, of Y (``y``).

    Each side sums to the same HSIC ``total`` (appendix G of the PKeX paper: two games, one per
    variable set, the other kernel held fixed).
    """

    def __init__(self, x: StatAttribution, y: StatAttribution):
        self.x = x
        self.y = y

    @property
    def total(self):
        return self.x.total

    def __iter__(self):
        return iter((self.x, self.y))

    def __repr__(self):
        return f"JointAttribution(total={self.total:.6g}, x: {len(self.x)} features, y: {len(self.y)} features)"

    def to_frame(self):
        pd = require("pandas", "JointAttribution.to_frame")
        fx, fy = self.x.to_frame(), self.y.to_frame()
        return pd.concat({"x": fx, "y": fy}, names=["side"])

    def plot(self, axes=None):
        plt = require("matplotlib.pyplot", "JointAttribution.plot")
        if axes is None:
            _, axes = plt.subplots(1, 2, figsize=(11, 4))
        self.x.plot(ax=axes[0])
        self.y.plot(ax=axes[1])
        axes[0].set_title("X variables")
        axes[1].set_title("Y variables")
        return axes


class PermutationTestResult:
    """A kernel test with permutation p-values for the statistic and for each attribution.

    Attributes
    ----------
    statistic : float
    p_value : float, (1 + #{null >= statistic}) / (1 + n_permutations)
    attribution : StatAttribution (or JointAttribution for HSIC with attribute="both")
    feature_p_values : array (d,) (or a JointAttribution-like pair of arrays ``(x, y)``):
        the same formula applied to each feature's Shapley value, with the same permutations
    null_distribution : array (n_permutations,)
    null_attributions : array (n_permutations, d) (a tuple of two for attribute="both")
    """

    def __init__(self, statistic, p_value, attribution, feature_p_values, null_distribution,
                 null_attributions, n_permutations, name):
        self.statistic = float(statistic)
        self.p_value = float(p_value)
        self.attribution = attribution
        self.feature_p_values = feature_p_values
        self.null_distribution = np.asarray(null_distribution)
        self.null_attributions = null_attributions
        self.n_permutations = int(n_permutations)
        self.name = name

    def __repr__(self):
        return (f"PermutationTestResult({self.name}: statistic={self.statistic:.6g}, "
                f"p_value={self.p_value:.4g}, n_permutations={self.n_permutations})")

    def to_frame(self):
        """pandas DataFrame per feature: value and p_value (a 'side' level for both HSIC sides)."""
        pd = require("pandas", "PermutationTestResult.to_frame")
        if isinstance(self.attribution, JointAttribution):
            frames = {}
            for side, att, p in (("x", self.attribution.x, self.feature_p_values[0]),
                                 ("y", self.attribution.y, self.feature_p_values[1])):
                f = att.to_frame()
                f["p_value"] = p
                frames[side] = f
            return pd.concat(frames, names=["side"])
        f = self.attribution.to_frame()
        f["p_value"] = self.feature_p_values
        return f

    def plot(self, ax=None):
        return self.attribution.plot(ax) if ax is not None else self.attribution.plot()


def permutation_p_values(observed, null):
    """(1 + #{null >= observed}) / (1 + P), elementwise over trailing axes; null is (P, ...).

    A relabelling equal to the observed one (or a symmetric one) reproduces the observed value
    only up to summation order, so ties are counted with a relative tolerance of 1e-12.
    """
    null = np.asarray(null)
    return (1.0 + np.sum(null >= np.asarray(observed)[None] - 1e-12 * np.abs(observed), axis=0)) / (1.0 + null.shape[0])

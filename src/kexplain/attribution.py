"""The global results: a decomposition of one number over features, and a kernel test.

- :class:`GlobalAttribution`: a decomposition of one number (MMD^2, HSIC, a model's variance)
  into per-feature Shapley values whose sum is ``total``, the number decomposed.
- :class:`PermutationTestResult`: a kernel test whose attribution is a ``GlobalAttribution``
  carrying per-feature permutation p-values.

The local result, :class:`kexplain.Explanation`, is in ``kexplain.explanation``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from . import games as _games
from ._optional import require
from ._real import _real


class GlobalAttribution:
    """Shapley decomposition of one number (a statistic or a variance) over features.

    ``values.sum() == total`` up to rounding: ``total`` is always the number decomposed (MMD^2,
    HSIC, the variance of a model over its input measure).

    Parameters
    ----------
    values : array-like of shape (d,)
        Shapley value of each feature.
    total : float
        The decomposed number (the value of the full coalition; the empty coalition is 0).
    feature_names : sequence of str
        Names of the d features.
    quantity : str
        What ``total`` is, in words: ``"MMD^2"``, ``"HSIC"``, ``"variance"``.
    standard_errors : array-like of shape (d,), optional
        Standard errors of estimated values (incomplete U-statistics).
    total_standard_error : float, optional
        Standard error of an estimated ``total``.
    p_values : array-like of shape (d,), optional
        Per-feature permutation p-values (set by the permutation tests).
    p_value : float, optional
        p-value of ``total`` itself.
    estimator : str, optional
        How ``total`` was estimated (``"unbiased"``, ``"biased"``, ``"incomplete"``).
    kernel : object, optional
        The kernel used.
    columns : mapping of str to array-like of shape (d,), optional
        Further per-feature quantities under names of their own (for an additive GP:
        ``first_order_sobol`` and ``total_sobol``); each is an attribute and a ``to_frame`` column.
    info : dict, optional
        Further results and settings, by name.
    game : str, optional
        The game whose Shapley values these are, a name of the games table
        (:mod:`kexplain.games`): ``"MMD^2"``, ``"HSIC"``, ``"variance"``, ...; another string is
        a game of your own, as for :class:`~kexplain.Explanation`.

    Examples
    --------
    >>> from kexplain import GlobalAttribution
    >>> g = GlobalAttribution([0.75, 0.25], total=1.0, feature_names=["a", "b"], quantity="variance")
    >>> g.ranking()
    ['a', 'b']
    >>> float(g.values.sum()) == g.total
    True
    """

    def __init__(
        self,
        values: Any,
        total: float,
        feature_names: Sequence[str] | None = None,
        quantity: str = "",
        *,
        standard_errors: Any = None,
        total_standard_error: float | None = None,
        p_values: Any = None,
        p_value: float | None = None,
        estimator: str | None = None,
        kernel: Any = None,
        columns: Mapping[str, Any] | None = None,
        info: Mapping[str, Any] | None = None,
        game: str = "",
    ) -> None:
        self.values = _real(values, "values")
        if self.values.ndim != 1:
            raise ValueError(f"values must have shape (d,), got {self.values.shape}.")
        d = self.values.shape[0]
        total_arr = _real(total, "total")
        if total_arr.ndim != 0:
            raise ValueError(f"total must be one number, got shape {total_arr.shape}.")
        self.total = float(total_arr)
        self.feature_names = (
            [str(n) for n in feature_names] if feature_names is not None else [f"x{j}" for j in range(d)]
        )
        if len(self.feature_names) != d:
            raise ValueError(f"feature_names has {len(self.feature_names)} names for {d} features.")
        self.quantity = str(quantity)
        self.game = str(game)
        _games.describe(self.game)  # refuses a near miss of a table name
        self.standard_errors = self._per_feature(standard_errors, "standard_errors")
        self.total_standard_error = None if total_standard_error is None else float(total_standard_error)
        self.p_values = self._per_feature(p_values, "p_values")
        self.p_value = None if p_value is None else float(p_value)
        self.estimator = estimator
        self.kernel = kernel
        self.columns: dict[str, np.ndarray | None] = {}
        for key, col in (columns or {}).items():
            if key in self.__dict__ or hasattr(type(self), key):
                raise ValueError(f"columns may not reuse the attribute name {key!r}.")
            self.columns[str(key)] = self._per_feature(col, f"columns[{key!r}]")
        self.info = dict(info or {})

    def _per_feature(self, arr: Any, name: str) -> np.ndarray | None:
        if arr is None:
            return None
        out = _real(arr, name, allow_nan=True)
        if out.shape != self.values.shape:
            raise ValueError(f"{name} must have shape {self.values.shape}, got {out.shape}.")
        return out

    def __getattr__(self, name: str) -> Any:
        columns = self.__dict__.get("columns", {})
        if name in columns:
            return columns[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __len__(self) -> int:
        return self.values.shape[0]

    def _repr_html_(self) -> str:
        """A compact table for notebooks: the number decomposed and its largest shares."""
        from ._html_repr import global_attribution_html

        return global_attribution_html(self)

    def __repr__(self) -> str:
        return f"GlobalAttribution({self.quantity or 'total'}={self.total:.6g}, {len(self)} features)"

    def ranking(self) -> list[str]:
        """Feature names, largest value first.

        Returns
        -------
        list of str
            The names, ordered by value.
        """
        return [self.feature_names[j] for j in np.argsort(-self.values, kind="stable")]

    def to_frame(self) -> Any:
        """A pandas DataFrame indexed by feature.

        Columns: ``value``, then ``standard_error`` and ``p_value`` when present, then the extra
        ``columns``.

        Returns
        -------
        pandas.DataFrame
            One row per feature.

        Examples
        --------
        >>> from kexplain import GlobalAttribution
        >>> attribution = GlobalAttribution([0.5, 0.25], 0.75, ["a", "b"], "HSIC", p_values=[0.01, 0.5])
        >>> attribution.to_frame()  # doctest: +NORMALIZE_WHITESPACE
                 value  p_value
        feature
        a         0.50     0.01
        b         0.25     0.50
        """
        pd = require("pandas", "GlobalAttribution.to_frame")
        data: dict[str, Any] = {"value": self.values}
        if self.standard_errors is not None:
            data["standard_error"] = self.standard_errors
        if self.p_values is not None:
            data["p_value"] = self.p_values
        data.update(self.columns)
        return pd.DataFrame(data, index=pd.Index(self.feature_names, name="feature"))

    def plot(
        self,
        ax: Any = None,
        max_features: int | None = 20,
        color_positive: str = "#d62728",
        color_negative: str = "#1f77b4",
    ) -> Any:
        """Horizontal bar chart of the values (largest magnitude on top, standard errors as bars).

        Needs the optional ``matplotlib`` (extra ``plots``).

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Draw into this Axes; a new figure is made otherwise.
        max_features : int or None, default 20
            Show the largest values only (None: all).
        color_positive, color_negative : str
            Colours of the positive and of the negative bars.

        Returns
        -------
        matplotlib Axes
            The Axes drawn into.
        """
        plt = require("matplotlib.pyplot", "GlobalAttribution.plot")
        order = np.argsort(-np.abs(self.values), kind="stable")
        if max_features is not None:
            order = order[:max_features]
        order = order[::-1]
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 0.3 * len(order) + 1.2))
        vals = self.values[order]
        err = None if self.standard_errors is None else self.standard_errors[order]
        ax.barh(
            np.arange(len(order)), vals, xerr=err, color=[color_positive if v > 0 else color_negative for v in vals]
        )
        ax.set_yticks(np.arange(len(order)))
        ax.set_yticklabels([self.feature_names[j] for j in order])
        ax.axvline(0.0, color="black", linewidth=0.8)
        ax.set_xlabel(f"Shapley value of {self.quantity or 'the total'} (total {self.total:.4g})")
        return ax


class PermutationTestResult:
    """A kernel test with permutation p-values for the statistic and for each feature's share.

    Parameters
    ----------
    statistic : float
        The test statistic on the data.
    p_value : float
        ``(1 + #{null >= statistic}) / (1 + n_permutations)``.
    attribution : GlobalAttribution or tuple of two
        The statistic's attribution with per-feature ``p_values`` (the same formula applied to
        each Shapley value, with the same permutations); for HSIC attributed to both X and Y, the
        pair ``(x, y)``.
    null_distribution : array-like of shape (n_permutations,)
        The statistic under each permutation.
    null_attributions : array of shape (n_permutations, d), or a pair of them
        The Shapley values under each permutation.
    n_permutations : int
        Number of permutations.
    name : str
        ``"MMD^2"`` or ``"HSIC"``.

    Examples
    --------
    >>> from kexplain import GlobalAttribution, PermutationTestResult
    >>> att = GlobalAttribution([0.3, 0.1], 0.4, ["a", "b"], "MMD^2", p_values=[0.02, 0.6], p_value=0.03)
    >>> res = PermutationTestResult(0.4, 0.03, att, [0.0, 0.1], None, 2, "MMD^2")
    >>> res.feature_p_values
    array([0.02, 0.6 ])
    """

    def __init__(
        self,
        statistic: float,
        p_value: float,
        attribution: GlobalAttribution | tuple[GlobalAttribution, GlobalAttribution],
        null_distribution: Any,
        null_attributions: Any,
        n_permutations: int,
        name: str,
    ) -> None:
        self.statistic = float(statistic)
        self.p_value = float(p_value)
        self.attribution = attribution
        self.null_distribution = np.asarray(null_distribution)
        self.null_attributions = null_attributions
        self.n_permutations = int(n_permutations)
        self.name = str(name)

    @property
    def feature_p_values(self) -> Any:
        """Per-feature p-values (a pair ``(x, y)`` for HSIC attributed to both sides)."""
        if isinstance(self.attribution, tuple):
            return tuple(a.p_values for a in self.attribution)
        return self.attribution.p_values

    def __repr__(self) -> str:
        return (
            f"PermutationTestResult({self.name}: statistic={self.statistic:.6g}, "
            f"p_value={self.p_value:.4g}, n_permutations={self.n_permutations})"
        )

    def to_frame(self) -> Any:
        """A pandas DataFrame per feature with value and p_value (a ``side`` level for two sides).

        Returns
        -------
        pandas.DataFrame
            One row per feature (and side).
        """
        pd = require("pandas", "PermutationTestResult.to_frame")
        if isinstance(self.attribution, tuple):
            return pd.concat({side: att.to_frame() for side, att in zip(("x", "y"), self.attribution)}, names=["side"])
        return self.attribution.to_frame()

    def plot(self, ax: Any = None) -> Any:
        """Bar chart of the attribution (two panels for two sides).

        Parameters
        ----------
        ax : matplotlib Axes or pair of them, optional
            Draw into these Axes; a new figure is made otherwise.

        Returns
        -------
        matplotlib Axes or array of two
            The Axes drawn into.
        """
        if isinstance(self.attribution, tuple):
            plt = require("matplotlib.pyplot", "PermutationTestResult.plot")
            if ax is None:
                _, ax = plt.subplots(1, 2, figsize=(11, 4))
            for a, att, title in zip(ax, self.attribution, ("X variables", "Y variables")):
                att.plot(ax=a)
                a.set_title(title)
            return ax
        return self.attribution.plot(ax=ax)

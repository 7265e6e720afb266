"""The Sobol indices and Shapley effects of :class:`~kexplain.sensitivity.SensitivityAnalysis` (a base class of it).

Every index is read from the parts the constructor builds (``_games``): closed indices from the
value W(S) of a mask of present features, total indices from each part's leave-one-out products,
second-order indices from closed and first-order ones, and the Shapley effects from the
product-game engine, one game per part.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..attribution import GlobalAttribution
from ..shapley.product import solve_product_game
from ._games import PairGame, PairPart, PriorGame, PriorPart

#: the game (kexplain.games) whose Shapley values shapley_effects returns, per target
TARGET_GAMES = {"mean": "variance", "posterior_expectation": "expected variance"}


class SobolIndices:
    """The indices of :class:`~kexplain.sensitivity.SensitivityAnalysis`, read from its parts (a base class of it)."""

    # set by SensitivityAnalysis.__init__
    _parts: list[PairPart | PriorPart]
    _d: int
    _w_empty: float
    variance: float
    feature_names: list[str]
    measure: str
    output: str
    target: str

    def _value(self, mask: np.ndarray) -> float:
        return float(sum(p.value(mask)[0] for p in self._parts))

    def _subset_mask(self, subset: Any) -> np.ndarray:
        mask = np.zeros(self._d, dtype=bool)
        items = [subset] if isinstance(subset, (str, int, np.integer)) else list(subset)
        for it in items:
            if isinstance(it, str):
                if it not in self.feature_names:
                    raise ValueError(f"subsets: unknown feature {it!r}; features are {self.feature_names}.")
                mask[self.feature_names.index(it)] = True
            elif isinstance(it, (int, np.integer)) and not isinstance(it, (bool, np.bool_)) and 0 <= it < self._d:
                mask[int(it)] = True
            else:
                raise ValueError(
                    f"subsets: {it!r} is not a feature; give indices in 0..{self._d - 1} or names {self.feature_names}."
                )
        return mask

    def _scale(self, normalized: bool) -> float:
        if not normalized:
            return 1.0
        if self.variance <= 0:
            raise ValueError(
                f"the model's variance over the inputs is {self.variance:.3g}, so normalised indices are undefined; "
                "use normalized=False."
            )
        return 1.0 / self.variance

    def closed_index(self, subsets: Any, *, normalized: bool = True) -> np.ndarray:
        """Closed Sobol indices V_S / V (or V_S with ``normalized=False``) of the given subsets.

        Parameters
        ----------
        subsets : list of lists of feature indices or names
            The subsets S.
        normalized : bool
            Divide by the variance V (False: V_S in units of variance).

        Returns
        -------
        ndarray of shape (len(subsets),)
            The closed index of each subset.

        Examples
        --------
        >>> import numpy as np, scipy.stats as st
        >>> import kexplain as kx
        >>> em = kx.KernelExpansion(np.array([[0.0, 0.0], [1.0, 1.0]]), [1.0, -1.0], kx.kernels.RBF(1.0))
        >>> sa = kx.sensitivity.SensitivityAnalysis(em, distributions=[st.norm(0, 1), st.uniform(-1, 2)])
        >>> np.round(sa.closed_index([[0], [1], [0, 1]]), 3)
        array([0.63, 0.28, 1.  ])
        """
        if isinstance(subsets, (str, int, np.integer)):
            raise TypeError("subsets must be a list of subsets (each a list of features), e.g. [[0, 1], [2]].")
        scale = self._scale(normalized)
        return np.array([(self._value(self._subset_mask(s)) - self._w_empty) * scale for s in subsets])

    def first_order(self, *, normalized: bool = True) -> np.ndarray:
        """First-order Sobol indices V_{j} / V, shape (d,) (see :meth:`closed_index`).

        Parameters
        ----------
        normalized : bool, default True
            Divide by the variance V (False: in units of variance).

        Returns
        -------
        ndarray of shape (d,)
            The first-order Sobol index of each feature.
        """
        return self.closed_index([[j] for j in range(self._d)], normalized=normalized)

    def total_order(self, *, normalized: bool = True) -> np.ndarray:
        """Total Sobol indices (V - V_{-j}) / V, shape (d,), from prefix and suffix products.

        Parameters
        ----------
        normalized : bool, default True
            Divide by the variance V (False: in units of variance).

        Returns
        -------
        ndarray of shape (d,)
            The total Sobol index of each feature.
        """
        loo = sum(p.leave_one_out()[:, 0] for p in self._parts)
        return (self.variance + self._w_empty - np.asarray(loo)) * self._scale(normalized)

    def second_order(self, pairs: Any = None, *, normalized: bool = True) -> np.ndarray:
        """Second-order (interaction) Sobol indices (V_{jk} - V_j - V_k) / V.

        Parameters
        ----------
        pairs : list of (j, k), optional
            Default: every pair, returned as a symmetric (d, d) matrix with zeros on the diagonal.
        normalized : bool
            Divide by the variance V (False: in units of variance).

        Returns
        -------
        ndarray of shape (len(pairs),), or (d, d) when ``pairs`` is None
            The second-order index of each pair.
        """
        first = self.first_order(normalized=normalized)
        if pairs is None:
            out = np.zeros((self._d, self._d))
            for j in range(self._d):
                for k in range(j + 1, self._d):
                    out[j, k] = out[k, j] = self.closed_index([[j, k]], normalized=normalized)[0] - first[j] - first[k]
            return out
        res = []
        for pair in pairs:
            mask = self._subset_mask(pair)
            if mask.sum() != 2:
                raise ValueError(f"pairs: {pair!r} is not a pair of two different features.")
            a, b = (int(i) for i in np.flatnonzero(mask))
            res.append(self.closed_index([[a, b]], normalized=normalized)[0] - first[a] - first[b])
        return np.array(res)

    def shapley_values(self, *, progress: bool = False) -> np.ndarray:
        """Shapley effects in units of variance (Shapley values of S -> V_S), shape (d,).

        Parameters
        ----------
        progress : bool, default False
            Show a progress bar.

        Returns
        -------
        ndarray of shape (d,)
            The Shapley effects in units of variance; they sum to the variance.
        """
        total = np.zeros(self._d)
        for p in self._parts:
            game: PairGame | PriorGame = PairGame(p) if isinstance(p, PairPart) else PriorGame(p)
            total += solve_product_game(game, progress=progress).values[0, :, 0]
        return total

    def shapley_effects(self, *, pairs: Any = None, subsets: Any = None, progress: bool = False) -> GlobalAttribution:
        """The Shapley effects as a :class:`kx.GlobalAttribution` of the variance, with the Sobol indices.

        ``values`` are the Shapley effects in units of variance and ``total`` is Var f(X); the
        columns ``shapley_effect`` (values / total), ``first_order_sobol`` and ``total_sobol`` are
        normalised.  ``info`` holds ``second_order`` ({(j, k): index} for the requested ``pairs``)
        and ``closed`` ({tuple(subset): index} for the requested ``subsets``), with ``measure``
        and ``output``.

        Parameters
        ----------
        pairs : list of (j, k), optional
            Pairs whose second-order indices go into ``info["second_order"]``.
        subsets : list of lists of features, optional
            Subsets whose closed indices go into ``info["closed"]``.
        progress : bool, default False
            Show a progress bar.

        Returns
        -------
        GlobalAttribution
            The Shapley effects of the variance, with the Sobol indices as columns.

        Examples
        --------
        >>> import numpy as np, scipy.stats as st
        >>> import kexplain as kx
        >>> em = kx.KernelExpansion(np.array([[0.0, 0.0], [1.0, 1.0]]), [1.0, -1.0], kx.kernels.RBF(1.0))
        >>> sa = kx.sensitivity.SensitivityAnalysis(em, distributions=[st.norm(0, 1)] * 2)
        >>> g = sa.shapley_effects(pairs=[(0, 1)])
        >>> np.round(g.shapley_effect, 3), round(g.info["second_order"][(0, 1)], 3)
        (array([0.5, 0.5]), 0.138)
        """
        values = self.shapley_values(progress=progress)
        scale = 1.0 / self.variance if self.variance > 0 else np.nan
        info: dict[str, Any] = {"measure": self.measure, "output": self.output, "target": self.target}
        if pairs is not None:
            idx = [tuple(int(i) for i in np.flatnonzero(self._subset_mask(p))) for p in pairs]
            info["second_order"] = dict(zip(idx, self.second_order(pairs).tolist()))
        if subsets is not None:
            keys = [tuple(int(i) for i in np.flatnonzero(self._subset_mask(s))) for s in subsets]
            info["closed"] = dict(zip(keys, self.closed_index(subsets).tolist()))
        return GlobalAttribution(
            values,
            total=self.variance,
            feature_names=self.feature_names,
            quantity=f"variance of {self.output}",
            columns={
                "shapley_effect": values * scale,
                "first_order_sobol": self.first_order(normalized=False) * scale,
                "total_sobol": self.total_order(normalized=False) * scale,
            },
            info=info,
            game=TARGET_GAMES[self.target],
        )

"""kexplain's product games as ``shapiq.Game`` objects, with their exact interaction values at any d.

shapiq's approximators (KernelSHAP-IQ, SVARM-IQ, permutation sampling, ...) take a
``shapiq.Game``; :class:`ProductShapiqGame` is one whose ``exact_values(index, order)`` come from
kexplain's product-game engine instead of shapiq's enumeration, so the approximators can be
benchmarked against exact ground truth at d = 20-100, where enumeration is out of reach.
Needs the optional ``shapiq`` package (extra ``shapiq``); this module imports it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._optional import require
from .models.expansion import KernelExpansion
from .shapley.higher_order import check_interaction_spec, solve_product_interactions

shapiq = require("shapiq", "kexplain.shapiq_games")

#: bytes of the (coalitions, rows, d) work array of one block of ``value_function``
_VALUE_BYTES = 32 * 2**20


class _OnePointGame:
    """A ``ProductGame`` of one point from dense (a, b, c)."""

    n_points = 1
    n_outputs = 1

    def __init__(self, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> None:
        self.a, self.b, self.c = a, b, c
        self.n_rows, self.n_features = a.shape

    def block(self, points: slice, rows: slice) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.a[None, rows], self.b[None, rows], self.c[rows, None]


class ProductShapiqGame(shapiq.Game):  # type: ignore[name-defined]
    """The product game v(S) = intercept + sum_r c_r prod_{j in S} a_rj prod_{j not in S} b_rj for shapiq.

    Parameters
    ----------
    a, b : array-like of shape (n_rows, d)
        Factors of each feature when present and when absent.
    c : array-like of shape (n_rows,)
        Row weights.
    intercept : float
        Added to every coalition's value.
    normalize : bool
        shapiq's normalisation: the game's values minus v(empty set) (the default, as shapiq's
        own benchmark games).
    player_names : sequence of str, optional
        One name per feature (player), passed on to shapiq; None for shapiq's default names.

    Examples
    --------
    >>> import numpy as np
    >>> from kexplain.shapiq_games import ProductShapiqGame
    >>> game = ProductShapiqGame(np.ones((1, 3)), np.array([[0.0, 0.0, 1.0]]), [2.0])
    >>> game(np.array([[True, True, False], [True, False, False]]))
    array([2., 0.])
    >>> game.exact_values("Moebius", 2)[(0, 1)]
    2.0
    """

    def __init__(
        self,
        a: Any,
        b: Any,
        c: Any,
        *,
        intercept: float = 0.0,
        normalize: bool = True,
        player_names: Sequence[str] | None = None,
    ) -> None:
        a = np.asarray(a, dtype=np.float64)
        if a.ndim != 2:
            raise ValueError(f"a must have shape (n_rows, n_features), got shape {a.shape}.")
        try:
            b = np.ascontiguousarray(np.broadcast_to(np.asarray(b, dtype=np.float64), a.shape))
        except ValueError:
            raise ValueError(f"b must broadcast to a's shape {a.shape}, got shape {np.shape(b)}.") from None
        c = np.asarray(c, dtype=np.float64).reshape(-1)
        if c.shape[0] != a.shape[0]:
            raise ValueError(f"c must hold one weight per row ({a.shape[0]}), got shape {c.shape}.")
        for arr, name in ((a, "a"), (b, "b"), (c, "c")):
            if not np.all(np.isfinite(arr)):
                raise ValueError(f"{name} contains NaN or infinite values.")
        self.a, self.b, self.c, self.intercept = a, b, c, float(intercept)
        v_empty = float(c @ np.prod(b, axis=1)) + self.intercept
        super().__init__(
            n_players=a.shape[1],
            normalize=normalize,
            normalization_value=v_empty,
            player_names=None if player_names is None else list(player_names),
        )
        if normalize and v_empty == 0.0:
            self.normalization_value = 0.0

    @classmethod
    def from_explainer(cls, explainer: Any, x: Any, *, normalize: bool = True) -> ProductShapiqGame:
        """The game a :class:`kexplain.ProductKernelExplainer` solves at one point ``x`` (its model output).

        Parameters
        ----------
        explainer : ProductKernelExplainer
            Single-output; its game (functional, interventional or baseline) is the one used.
        x : array-like of shape (d,) or (1, d)
            The explained point.
        normalize : bool
            shapiq's normalisation (values minus v(empty set)), as in the constructor.

        Returns
        -------
        ProductShapiqGame
            The product game of the explainer's model output at ``x``.
        """
        from .explainers.product_kernel import ProductKernelExplainer

        if not isinstance(explainer, ProductKernelExplainer):
            raise TypeError(f"explainer must be a kexplain.ProductKernelExplainer, got {type(explainer).__name__}.")
        em = explainer.expansion
        if not isinstance(em, KernelExpansion):
            raise TypeError(
                "ProductShapiqGame needs a product-kernel model; a linear or polynomial kernel model is not a "
                "product game."
            )
        if not em.single_output:
            raise ValueError(f"explainer's model has {em.n_outputs} outputs; ProductShapiqGame takes one.")
        X = np.asarray(x, dtype=np.float64).reshape(1, -1)
        Xv = em.check_input(X, name="x", feature_names=None)
        game = explainer.product_game(Xv)
        a, b, c = game.block(slice(0, 1), slice(0, game.n_rows))
        a3 = np.asarray(a, dtype=np.float64)
        b = np.broadcast_to(np.asarray(b, dtype=np.float64), a3.shape)[0]
        a = a3[0]
        return cls(
            a,
            b,
            np.asarray(c)[:, 0],
            intercept=float(em.intercept[0]),
            normalize=normalize,
            player_names=explainer.player_names(X),
        )

    def value_function(self, coalitions: np.ndarray) -> np.ndarray:
        """v(S) of each boolean row of ``coalitions`` (n, d), without shapiq's normalisation.

        Parameters
        ----------
        coalitions : ndarray of shape (n, d) or (d,)
            Boolean rows: True where the feature is in the coalition.

        Returns
        -------
        ndarray of shape (n,)
            The value of each coalition, intercept included.
        """
        S = np.asarray(coalitions, dtype=bool)
        if S.ndim == 1:
            S = S[None, :]
        r, d = self.a.shape
        step = max(1, _VALUE_BYTES // (8 * max(1, r * d)))
        out = np.empty(S.shape[0])
        for s0 in range(0, S.shape[0], step):
            block = S[s0 : s0 + step]
            out[s0 : s0 + step] = np.prod(np.where(block[:, None, :], self.a[None], self.b[None]), axis=2) @ self.c
        return out + self.intercept

    def exact_values(self, index: str, order: int) -> Any:
        """Exact ``shapiq.InteractionValues`` of the (normalised) game from kexplain's engine.

        Parameters
        ----------
        index : str
            SV, BV, SII, k-SII, STII, FSII, BII or Moebius.
        order : int
            Highest order (1 for SV and BV).

        Returns
        -------
        shapiq.InteractionValues
            Orders 0..order, ``estimated=False``, the baseline the game's normalised v(empty set).
        """
        spec = check_interaction_spec({"index": index, "max_order": order}, self.n_players, name="exact_values")
        table = solve_product_interactions(_OnePointGame(self.a, self.b, self.c), spec)
        values = table.as_dict(0, 0)
        v_empty = float(table.v_empty[0, 0]) + self.intercept - self.normalization_value
        values[()] += self.intercept - self.normalization_value
        return shapiq.InteractionValues(
            values,
            index=spec.index,
            max_order=spec.max_order,
            n_players=self.n_players,
            min_order=0,
            estimated=False,
            baseline_value=v_empty,
        )

"""The functional-baseline game of a KernelExpansion (PKeX, Mohammadi, Chau & Muandet, 2025, section 3.1).

Rows are the expansion's (term, support point) pairs and absent features are integrated out of the
kernel (k_j = 1).  Imported from :mod:`kexplain.explainers.product_games`, the games' public face.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..models.expansion import KernelExpansion
from ..shapley.array_api import from_numpy


class FunctionalGame:
    """v_x(S) = sum_i coef_i prod_{j in S} k_j(x_j, X_ij): PKeX's functional baseline.

    The intercept is left out (it is the same for every coalition).  A ``ProductGame`` for
    :func:`kexplain.shapley.solve_product_game`.

    Parameters
    ----------
    model : KernelExpansion
    X : ndarray of shape (N, d)
        Validated explained rows.
    xp, device : array namespace and device, optional
        Give blocks as arrays of this namespace on this device (e.g. ``torch`` and "cuda"), so
        the engine runs there; default numpy.

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.explainers.product_games import FunctionalGame
    >>> em = kx.KernelExpansion(np.zeros((1, 2)), [1.0], kx.kernels.RBF(1.0))
    >>> res = kx.shapley.solve_product_game(FunctionalGame(em, np.ones((1, 2))))
    >>> np.round(res.values[0, :, 0], 3), np.round(res.v_empty[0, 0], 3)
    (array([-0.316, -0.316]), np.float64(1.0))
    """

    def __init__(self, model: KernelExpansion, X: np.ndarray, *, xp: Any = None, device: Any = None) -> None:
        self.model, self.X = model, X
        self.n_points, self.n_features = X.shape
        self.n_rows, self.n_outputs = model.n_rows, model.n_outputs
        self.row_alignment = 1
        self.xp, self.device = xp, device

    def block(self, points: slice, rows: slice) -> tuple[Any, float, Any]:
        """(a, b, c) of these points and rows: a (p, r, d), b = 1, c (r, o); arrays of ``xp`` when given."""
        a, c = self.model.row_factors(self.X[points], rows)
        if self.xp is not None:
            return from_numpy(a, self.xp, self.device), 1.0, from_numpy(c, self.xp, self.device)
        return a, 1.0, c

    def stationary_block(self, points: slice, rows: slice) -> tuple[Any, ...] | None:
        """(X, Y, lengthscales, laplacian, c) of these points and rows for the engine's fused kernel.

        Only for numpy blocks of a model with one RBF or Laplacian kernel whose factors take the
        compiled pass (:meth:`kexplain.kernels.RBF.compiled_factor_spec`): the engine then computes
        ``block``'s factors itself, the same numbers, without a (points, rows, d) array.  Else None.

        Parameters
        ----------
        points, rows : slice
            As for ``block``.

        Returns
        -------
        tuple or None
            The block's explained rows (p, d), support points (r, d), lengthscales (d,), whether
            the kernel is the Laplacian, and row weights c (r, o); None for other models.
        """
        em = self.model
        spec = getattr(em.terms[0], "compiled_factor_spec", None) if self.xp is None and len(em.terms) == 1 else None
        spec = None if spec is None else spec(self.n_features)
        if spec is None:
            return None
        c = em.term_weights[0] * em.coef[rows]
        return self.X[points], em.X_ref[rows], spec[0], spec[1], c

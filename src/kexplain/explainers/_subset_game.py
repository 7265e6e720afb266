"""The interventional game of a KernelExpansion by the subset route: its absent-set table, built once.

For few features and many background rows the interventional value factorises per support point i,
v_x(S) = sum_i coef_i * prod_{j in S} k_ij(x_j) * B_i(complement of S), and B_i is tabulated once
for all 2^d sets (``kexplain.shapley.subsets``).  Imported from
:mod:`kexplain.explainers.product_games`, the games' public face.
"""

from __future__ import annotations

import numpy as np

from ..models.expansion import KernelExpansion
from ..shapley.subsets import SubsetGame, absent_set_table


def subset_game(
    model: KernelExpansion,
    background: np.ndarray,
    weights: np.ndarray,
    *,
    max_block_bytes: int,
    backend: str = "auto",
) -> SubsetGame:
    """The interventional game of ``model`` on ``background`` with its absent-set table built.

    B_i(T) = sum_z w_z prod_{j in T} k_ij(z_j) for every expansion row i and every set T, built a
    block of rows at a time (work arrays of at most about ``max_block_bytes``).

    Parameters
    ----------
    model : KernelExpansion
    background : ndarray of shape (n_background, d)
        Validated background rows.
    weights : ndarray of shape (n_background,)
    max_block_bytes : int
    backend : {"auto", "numba", "numpy"}
        The kernel of the subset route.

    Returns
    -------
    kexplain.shapley.subsets.SubsetGame
        Solve it with the present factors ``model.row_factors(X, slice(0, model.n_rows))[0]``.

    Examples
    --------
    >>> import numpy as np
    >>> import kexplain as kx
    >>> from kexplain.explainers.product_games import subset_game
    >>> em = kx.KernelExpansion(np.zeros((1, 2)), [1.0], kx.kernels.RBF(1.0))
    >>> game = subset_game(em, np.zeros((1, 2)), np.ones(1), max_block_bytes=2**20)
    >>> res = game.solve(em.row_factors(np.ones((1, 2)), slice(0, 1))[0])
    >>> np.round(res.values[0, :, 0], 3)
    array([-0.316, -0.316])
    """
    d, R, o = model.n_features, model.n_rows, model.n_outputs
    nb = background.shape[0]
    n_sets = 2**d
    absent = np.empty((R, n_sets))
    coef = np.empty((R, o))
    # rows per block: the numpy fallback's subset products take 8 * 2^d * nb bytes per row
    step = max(1, int(max_block_bytes) // (16 * n_sets * nb))
    for r0 in range(0, R, step):
        rows = slice(r0, min(R, r0 + step))
        b, c = model.row_factors(background, rows)  # (nb, r, d), (r, o)
        absent[rows] = absent_set_table(b, weights, backend=backend)
        coef[rows] = c
    return SubsetGame(absent, coef, backend=backend)

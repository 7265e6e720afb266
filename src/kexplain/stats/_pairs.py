"""Sample pairs and their per-pair Shapley contributions.

Both statistics are sums over sample pairs of a weight times a product kernel value, so each is a
product game with rows = pairs, a_pair,j = k_j(p_j, q_j) and b = 1 (the design notes, docs/design.md, section 1).
We hand the product-game engine one pair per explained point with the single weight 1: it
returns the per-pair contributions psi_pair,j = (a_j - 1) * int_0^1 prod_{k != j} (1 + t (a_k - 1)) dt,
and the attribution for any weights c is c^T psi.  Keeping psi per block (never the whole n^2 x d
array) is what lets one pass serve many weight vectors at once: the permutation test's
relabellings change only c, so all of them cost one matrix product per block.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..shapley.product import product_game_block
from ..shapley.quadrature import nodes_for_degree
from ._kernels import pair_factors

#: default bound, in bytes, for the engine's temporaries and the weight matrix of one block
DEFAULT_BLOCK_BYTES = 32 * 2**20

_ONE = np.ones((1, 1))


def n_within_pairs(n: int) -> int:
    return n * (n - 1) // 2


def within_pairs(n: int, k: Any) -> tuple[np.ndarray, np.ndarray]:
    """(i, j) with i < j for linear pair indices ``k`` in row-major order over the upper triangle."""
    k = np.asarray(k, dtype=np.int64)
    # pairs before row i: i*n - i*(i+1)/2; invert the quadratic, then fix float rounding
    b = 2 * n - 1
    i = np.floor((b - np.sqrt(np.maximum(b * b - 8.0 * k, 0.0))) / 2).astype(np.int64)
    start = i * n - i * (i + 1) // 2
    i = np.where(start > k, i - 1, i)
    start = i * n - i * (i + 1) // 2
    nxt = (i + 1) * n - (i + 1) * (i + 2) // 2
    i = np.where(nxt <= k, i + 1, i)
    start = i * n - i * (i + 1) // 2
    j = k - start + i + 1
    return i, j


def block_rows(d: int, n_weights: int = 1, max_bytes: int = DEFAULT_BLOCK_BYTES) -> int:
    """Pairs per block so the engine's (r, m, d) temporaries and the (r, n_weights) weights fit."""
    m = nodes_for_degree(d - 1)
    per_pair = 8 * (4 * m * d + 3 * d + 2 * n_weights + 8)
    return int(max(64, max_bytes // per_pair))


def pair_contributions(kernel: Any, P: np.ndarray, Q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-pair Shapley contributions psi (r, d) and kernel values prod_j a_j (r,), no amplitude.

    Row r is the functional-baseline product game of the single pair (P_r, Q_r) with weight 1, so
    psi[r].sum() == kval[r] - 1 exactly up to rounding.
    """
    a = pair_factors(kernel, P, Q)
    if not np.all(np.isfinite(a)):
        raise FloatingPointError("the kernel returned NaN or infinite values for some sample pairs.")
    if a.shape[0] == 0:
        return np.zeros((0, a.shape[1])), np.zeros(0)
    phi, v_full, _ = product_game_block(a[:, None, :], 1.0, _ONE)
    return phi[:, :, 0], v_full[:, 0]

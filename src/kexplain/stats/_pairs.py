"""Sample pairs, their per-pair Shapley contributions, and the fixed-order tile loop.

Both statistics are sums over sample pairs of a weight times a product kernel value, so each is a
product game with rows = pairs, a_pair,j = k_j(p_j, q_j) and b = 1 (Mohammadi, Chau & Muandet, 2025,
sections 4.1-4.2).
The per-pair contributions are psi_pair,j = (a_j - 1) * int_0^1 prod_{k != j} (1 + t (a_k - 1)) dt
(the product-game engine's leave-one-out integrals), and the attribution for any weights c is
c^T psi.  Keeping psi per block (never the whole n^2 x d array) is what lets one pass serve many
weight vectors at once: the permutation test's relabellings change only c.

Determinism.  The pairs (in row-major order over the upper triangle) are cut into *tiles* whose
length depends only on d and the number of weight columns, never on ``max_block_bytes``,
``n_jobs`` or the number of workers.  Each tile's partial sums are computed alone (the same array
shapes whatever block it is computed in) and the tiles' sums are added one after another in tile
order, so the result is the same, bit for bit, for every ``n_jobs``, block size and cluster.
``max_block_bytes`` only decides how many tiles one task computes at once.

Speed.  For kernels that name a code of the compiled loop (``Kernel.pair_loop_params``: RBF,
Laplacian, Cauchy and Categorical factors and ProductKernels of them) a compiled kernel (numba,
when installed) computes the factors of a tile of pairs straight from the data, and
a compiled leave-one-out pass specialised for b = 1 (``_pairs_numba.loo_b1``: the engine's
prefix/suffix arithmetic, bit for bit, with sixteen independent product chains packed into vector
registers: eight pairs by two nodes) turns them
into psi: no (pairs, d) gathers of the data, no (pairs, nodes, d) temporaries.  Exponential
factors go through a vectorised exp (``kexplain._exp_numba``, within 1 ulp of the C library's).  The
complete MMD^2 with one labelling runs whole runs of tiles in one compiled call
(``_pairs_numba.pooled_tiles``: pair indices, factors, psi and the weighted sums, the GIL released
from the first tile to the last).  Tiles it declines
(a factor outside [0, 1], a product near underflow) go to the engine, log space included.  Other
kernels, or no numba, take the numpy path (same numbers up to rounding).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from .._optional import compiled_or_none
from ..kernels.base import Kernel
from ..shapley.product import compiled_available, leave_one_out_integrals, product_game_block
from ..shapley.quadrature import gauss_legendre_01, nodes_for_degree
from ._kernels import pair_factors
from .runner import DEFAULT_BLOCK_BYTES, RUNNER, Runner, run_tasks, use_runner  # noqa: F401  (re-exported to the statistics)

#: bytes of one tile's per-pair arrays: fixes the tile length for given d and weight columns
TILE_BYTES = 2**20

#: drawn pairs per random stream of an incomplete statistic (a function of d only, see draw_chunk)
DRAW_CHUNK_BYTES = 2**21

_ONE = np.ones((1, 1))


def n_within_pairs(n: int) -> int:
    return n * (n - 1) // 2


def within_pairs(n: int, k: Any) -> tuple[np.ndarray, np.ndarray]:
    """(i, j) with i < j for linear pair indices ``k`` in row-major order over the upper triangle."""
    k = np.asarray(k, dtype=np.int64)
    fast = _compiled("triangle_pairs")
    if fast is not None and k.ndim == 1:
        i = np.empty(k.shape[0], np.int64)
        j = np.empty(k.shape[0], np.int64)
        fast(n, np.ascontiguousarray(k), i, j)
        return i, j
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


def pair_range(n: int, k0: int, k1: int) -> tuple[np.ndarray, np.ndarray]:
    """``within_pairs(n, np.arange(k0, k1))``: the same pairs, stepped along the rows when compiled."""
    fast = _compiled("tile_pairs")
    if fast is None:
        return within_pairs(n, np.arange(k0, k1))
    i = np.empty(max(0, k1 - k0), np.int64)
    j = np.empty(max(0, k1 - k0), np.int64)
    fast(n, k0, k1, i, j)
    return i, j


def tile_length(d: int, n_weights: int = 1) -> int:
    """Pairs per tile: a function of d and the weight columns only (never of memory settings)."""
    per_pair = 8 * (4 * d + 2 * n_weights + 8)
    return int(max(64, TILE_BYTES // per_pair))


def tiles_per_task(d: int, n_weights: int, max_bytes: int) -> int:
    """How many consecutive tiles one task computes at once within ``max_bytes`` (at least one)."""
    per_pair = 8 * (4 * d + 2 * n_weights + 8)
    return int(max(1, max_bytes // (per_pair * tile_length(d, n_weights))))


def draw_chunk(d: int) -> int:
    """Pairs drawn per random stream of an incomplete statistic (a function of d only)."""
    return int(max(256, DRAW_CHUNK_BYTES // (8 * (4 * d + 8))))


# ----------------------------------------------------------------------------------------------
# per-pair factors: compiled path
# ----------------------------------------------------------------------------------------------


class FactorData:
    """Data and per-feature parameters for the compiled factor kernel, or None (numpy path).

    ``U`` holds the numeric features as floats and label features as integer codes; ``kinds``,
    ``inv`` (inverse lengthscales) and ``mismatch`` describe each feature's one-dimensional kernel.
    """

    def __init__(self, U: np.ndarray, kinds: np.ndarray, inv: np.ndarray, mismatch: np.ndarray) -> None:
        self.U, self.kinds, self.inv, self.mismatch = U, kinds, inv, mismatch


def _codes(column: np.ndarray) -> np.ndarray:
    """Integer codes of labels (equal labels, as ``==`` sees them, share a code)."""
    mapping: dict[Any, int] = {}
    return np.array([mapping.setdefault(v, len(mapping)) for v in column.tolist()], dtype=np.float64)


def factor_data(kernel: Kernel, data: np.ndarray) -> FactorData | None:
    """The compiled path's description of ``kernel`` on ``data`` (rows of one pooled sample).

    The kernel says what the compiled loop needs (``Kernel.pair_loop_params``); None sends it to
    the numpy path.
    """
    if _factor_kernel() is None:
        return None
    d = data.shape[1]
    params = kernel.pair_loop_params(d)
    if params is None:
        return None
    kinds, inv, mism = params
    numeric = kernel.numeric_mask(d)
    U = np.empty(data.shape, dtype=np.float64)
    for f in range(d):
        U[:, f] = np.asarray(data[:, f], dtype=np.float64) if numeric[f] else _codes(np.asarray(data[:, f]))
    return FactorData(np.ascontiguousarray(U), kinds, inv, mism)


#: the compiled functions by name, filled on first use; None in an entry forces the numpy path (tests)
_COMPILED: dict[str, Any] = {}


@compiled_or_none
def _pairs_numba_module() -> Any:
    """The module ``_pairs_numba``, or None without (usable) numba."""
    if not compiled_available():
        return None
    from . import _pairs_numba

    return _pairs_numba


def _compiled(name: str) -> Any:
    """The compiled function ``name`` of ``_pairs_numba``, or None without (usable) numba."""
    if name not in _COMPILED:
        module = _pairs_numba_module()
        _COMPILED[name] = None if module is None else getattr(module, name)
    return _COMPILED[name]


def _factor_kernel() -> Any:
    return _compiled("tile_factors")


def factors(
    kernel: Kernel, P: np.ndarray, i: np.ndarray, Q: np.ndarray, j: np.ndarray, fd: tuple[Any, Any] | None
) -> np.ndarray:
    """k_j(P_i, Q_j) for matched index arrays, shape (r, d), without the amplitude.

    ``fd`` is (FactorData of P, FactorData of Q) for the compiled path (the same object twice for
    pairs within one sample), or None.
    """
    if fd is not None and fd[0] is not None and fd[1] is not None:
        fp, fq = fd
        out = np.empty((len(i), fp.U.shape[1]))
        _factor_kernel()(fp.U, fq.U, i, j, fp.kinds, fp.inv, fp.mismatch, out)
        return out
    return pair_factors(kernel, P[i], Q[j])


_NODES: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def nodes(d: int) -> tuple[np.ndarray, np.ndarray]:
    """The b = 1 pass's Gauss-Legendre nodes and weights for d factors (writable copies, cached:
    the compiled signature takes mutable arrays, and a copy per tile was a cost of its own)."""
    if d not in _NODES:
        t, w = gauss_legendre_01(nodes_for_degree(d - 1))
        _NODES[d] = (np.array(t), np.array(w))
    return _NODES[d]


def contributions(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-pair Shapley contributions psi (r, d) and kernel values prod_j a_j (r,) from factors a."""
    r, d = a.shape
    fast = _compiled("loo_b1") if r > 0 else None
    if fast is not None:
        # compiled b = 1 pass; it declines tiles with a factor outside [0, 1] (NaN included) or a
        # product that could underflow, which the engine's path below handles (or rejects)
        t, w = nodes(d)
        psi, kval = np.empty((r, d)), np.empty(r)
        if fast(np.ascontiguousarray(a, dtype=np.float64), t, w, psi, kval):
            return psi, kval
    if not np.all(np.isfinite(a)):
        raise FloatingPointError("the kernel returned NaN or infinite values for some sample pairs.")
    if r == 0:
        return np.zeros((0, d)), np.zeros(0)
    # the engine's pass (its b = 1 game, log space where products under- or overflow)
    return leave_one_out_integrals(a)


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


# ----------------------------------------------------------------------------------------------
# the fixed-order loop
# ----------------------------------------------------------------------------------------------

TileFn = Callable[[int, int], Any]


def task_ranges(n_items: int, tile: int, per_task: int) -> list[tuple[int, int]]:
    """Consecutive runs of whole tiles: [(first tile, end tile)] covering ceil(n_items / tile) tiles."""
    n_tiles = -(-n_items // tile)
    return [(t0, min(n_tiles, t0 + per_task)) for t0 in range(0, n_tiles, per_task)]


def add_in_order(results: Iterator[list[Any]], acc: list[np.ndarray], bar: Any = None) -> list[np.ndarray]:
    """acc[q] += tile[q] for every tile result (a tuple of arrays), strictly in tile order."""
    for part in results:
        for tile in part:
            for q, x in enumerate(tile[:-1]):
                acc[q] += x
            if bar is not None:
                bar.update(tile[-1])
    return acc

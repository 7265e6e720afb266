"""The fused interventional route of the product-game engine: a game's rows form weighted and
summed inside the compiled kernel (``_product_fused_numba``) (moved out of
``kexplain.shapley.product``, which re-exports every name).
"""

from __future__ import annotations

import weakref

import numpy as np

from .._optional import compiled_or_none
from . import _product_nodes
from ._product_block import _pairs_block
from ._product_loo import _check_finite
from ._product_nodes import _point_nodes
from .quadrature import gauss_legendre_01, nodes_for_degree
from .result import ShapleyValues


@compiled_or_none
def _fused_kernel():
    """The quadrature kernel with the rows' weighting and reduction fused in, or None."""
    from ._product_fused_numba import weighted_loo_phi

    return weighted_loo_phi


@compiled_or_none
def _fused_kernel_laid():
    """``_fused_kernel`` reading the absent factors in the game's layout of groups of 4, or None."""
    from ._product_fused_numba import weighted_loo_phi_laid

    return weighted_loo_phi_laid


#: id(layout) -> (weak reference to it, whether none of its entries exceeds 1 in magnitude)
_BOUNDED: dict[int, tuple[weakref.ref, bool]] = {}


def _laid_bounded(bl):
    """Whether no entry of the laid-out factors bl exceeds 1 in magnitude (and none is NaN), found
    once per layout (about 70 us at 10,600 pairs x d = 10, a quarter of building the layout): a
    game's layout is built once per background and read by every call, and the test in every
    block was 3% of the kernel at one explained point, d = 10.  Only an
    array that owns its data and is read-only (the game's kept layouts) is remembered; for any
    other the kernel tests its blocks itself (False)."""
    if bl.base is not None or bl.flags.writeable:
        return False
    key = id(bl)
    kept = _BOUNDED.get(key)
    if kept is not None and kept[0]() is bl:
        return kept[1]
    # two passes without a temporary; a NaN makes max or min NaN: False, the kernel tests its blocks
    bounded = bl.size == 0 or bool(bl.max() <= 1.0 and bl.min() >= -1.0)
    _BOUNDED[key] = (weakref.ref(bl, lambda _, key=key: _BOUNDED.pop(key, None)), bounded)
    return bounded


def _fused_pairs_block(a2, ia, b2, c, p, *, n_nodes, pb=None, v_empty=None, b_laid=None):
    """``_fused_pairs_checked`` without its last item: (phi, v_full, v_empty) or None."""
    out = _fused_pairs_checked(a2, ia, b2, c, p, n_nodes=n_nodes, pb=pb, v_empty=v_empty, b_laid=b_laid)
    return None if out is None else out[:3]


def _fused_pairs_checked(a2, ia, b2, c, p, *, n_nodes, pb=None, v_empty=None, b_laid=None):
    """``_pairs_block(..., check_a=True)`` of a game's rows form through the fused kernel
    (``_product_fused_numba``): no (pairs, d) array of integrals is written and reduced again.
    One output, the same node count for every point of the block; None where it does not apply
    (the caller then runs ``_pairs_block``): several outputs or node counts, numba missing, or a
    factor above 1 or a product near underflow in the block (the unfused kernel's contract).
    ``v_empty`` (o,): v(no feature) of the rows when the game keeps it (else from ``pb``);
    ``b_laid``: b2's r rows laid out in groups of 4 (``weighted_loo_phi_laid``) when the game
    keeps them so.
    Returns phi (p, d, o), v_full (p, o) and v_empty (p, o) or (o,), the same for every point,
    and whether phi and v_full are known to be finite (the laid kernel checks them as it writes).

    At one explained point the kernel is about 500 us, so what surrounds it is kept to a few
    numpy calls (each costs several microseconds): no node-count pass below ``CERTIFY_FROM_NODES``
    (``_point_nodes`` gives the exact rule there), the finiteness of v(all) from the kernel."""
    r, o = c.shape
    fused = _fused_kernel() if o == 1 and p > 0 and r > 0 and ia is not None else None
    if fused is None:
        return None
    d = a2.shape[1]
    if n_nodes is None:
        n_nodes = nodes_for_degree(d - 1)
        if n_nodes >= _product_nodes.CERTIFY_FROM_NODES:  # read here at call time: patchable in one home
            counts = _point_nodes(a2, ia, b2, p, r)
            n_nodes = int(counts[0])
            if not bool(np.all(counts == n_nodes)):
                return None
    t, w = gauss_legendre_01(n_nodes)
    phi = np.zeros((p, d))
    v_full = np.zeros(p)
    laid = b_laid is not None and b2.shape[0] == r
    if laid:
        five = True if n_nodes == 5 else None  # the kernel's own pass for 5 nodes, compiled apart
        status = _fused_kernel_laid()(a2, ia, b_laid, t, w, c.reshape(r), r, phi, v_full, _laid_bounded(b_laid), five)
    else:
        status = fused(a2, ia, b2, t, w, c.reshape(r), r, phi, v_full)
    if status == 0:
        return None
    if status == 2:  # NaN or infinite present factors show in v(all) (as in ``_pairs_block``)
        _check_finite(a2, "a")
    if v_empty is None:
        if pb is None:
            with np.errstate(under="ignore"):
                pb = np.prod(b2, axis=-1)
        v_empty = pb @ c if pb.shape[0] == r else pb.reshape(p, r) @ c
    # the laid kernel's status 1: phi and v_full are finite (the solver's numpy checks are made)
    return phi[:, :, None], v_full[:, None], v_empty, laid and status == 1


def _solve_one_block(game, kernel, max_block_bytes, block_shape):
    """``solve_product_game`` with its defaults for a game of one output whose points and rows fit
    one block (``block_shape``) and that lays its rows out for the fused kernel (the
    interventional game: a loop of one-point calls), or None where that does not apply (the
    caller's loop then runs; nothing was computed).  The loop's steps for that one block, in its
    order, without its per-block machinery: the same calls on the same arrays, so the same
    numbers and the same errors.  At one explained point the kernel is about 450 us and the
    solver's bookkeeping around it was about 60 us (each numpy call costs a microsecond or more
    here, several on the cache the kernel has just flushed)."""
    pair_block = getattr(game, "pair_block", None)
    pair_layout = getattr(game, "pair_layout", None)
    if kernel is None or pair_block is None or pair_layout is None or getattr(game, "stationary_block", None):
        return None  # numpy asked or numba missing; not the rows form; a functional game (asked first)
    n, R, d, o = game.n_points, game.n_rows, game.n_features, game.n_outputs
    if o != 1 or n == 0 or R == 0:
        return None
    p_chunk, r_chunk = block_shape(n, R, d, max_block_bytes, row_alignment=int(getattr(game, "row_alignment", 1)))
    if p_chunk < n or r_chunk < R:
        return None
    ps, rs = slice(0, n), slice(0, R)
    rows_form = pair_block(ps, rs)
    if rows_form is None:  # blocks in another array namespace: nothing was computed
        return None
    a2, ia, b2, c2, pb = rows_form
    pair_empty = getattr(game, "pair_empty", None)
    ve = None if pair_empty is None else pair_empty(ps, rs)
    out = _fused_pairs_checked(a2, ia, b2, c2, n, n_nodes=None, pb=pb, v_empty=ve, b_laid=pair_layout(ps, rs))
    if out is None:
        out = _pairs_block(a2, ia, b2, c2, n, n_nodes=None, kernel=kernel, pb=pb, check_a=True)
        values, v_full = np.zeros((n, d, o)), np.zeros((n, o))
        values += out[0]
        v_full += out[1]
        checked = False
    else:
        # the loop adds the block into zeros: 0 + x is x but for x = -0.0, and the fused kernel
        # sums phi and v(all) into zeros itself (no -0.0): its arrays are the loop's numbers
        values, v_full, checked = out[0], out[1], out[3]
    ve = out[2]
    if n == 1 and ve.shape == (o,):
        v_empty = np.add(ve, 0.0).reshape(1, o)  # 0 + x, commuted (the same number); a new array
    else:
        v_empty = np.zeros((n, o))
        v_empty += ve
    for name, arr in () if checked else (("Shapley values", values), ("game values", v_full)):
        if not np.isfinite(arr).all():
            raise FloatingPointError(
                f"non-finite {name} in the product game: check the model coefficients and "
                "kernel values for NaN or overflow."
            )
    return ShapleyValues(values=values, v_full=v_full, v_empty=v_empty)

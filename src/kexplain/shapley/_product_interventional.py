"""The fused interventional route of the product-game engine: a game's rows form weighted and
summed inside the compiled kernel (``_product_fused_numba``) (moved out of
``kexplain.shapley.product``, which re-exports every name).
"""

from __future__ import annotations

import numpy as np

from .._optional import compiled_or_none
from . import _product_nodes
from ._product_loo import _check_finite
from ._product_nodes import _point_nodes
from .quadrature import gauss_legendre_01, nodes_for_degree


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


def _fused_pairs_block(a2, ia, b2, c, p, *, n_nodes, pb=None, v_empty=None, b_laid=None):
    """``_pairs_block(..., check_a=True)`` of a game's rows form through the fused kernel
    (``_product_fused_numba``): no (pairs, d) array of integrals is written and reduced again.
    One output, the same node count for every point of the block; None where it does not apply
    (the caller then runs ``_pairs_block``): several outputs or node counts, numba missing, or a
    factor above 1 or a product near underflow in the block (the unfused kernel's contract).
    ``v_empty`` (o,): v(no feature) of the rows when the game keeps it (else from ``pb``);
    ``b_laid``: b2's r rows laid out in groups of 4 (``weighted_loo_phi_laid``) when the game
    keeps them so.
    Returns phi (p, d, o), v_full (p, o) and v_empty (p, o) or (o,), the same for every point.

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
    if b_laid is not None and b2.shape[0] == r:
        status = _fused_kernel_laid()(a2, ia, b_laid, t, w, c.reshape(r), r, phi, v_full)
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
    return phi[:, :, None], v_full[:, None], v_empty

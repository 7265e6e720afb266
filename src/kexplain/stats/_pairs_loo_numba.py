"""The product game's compiled leave-one-out pass for absent factor b = 1 (numba is optional; see ``_pairs``).

``loo_b1(a, t, w, psi, kval)`` is the product game's leave-one-out quadrature for absent factor
b = 1 on one tile of factors (False: the caller uses the engine), compiled at import with LLVM's
superword-level vectoriser (``_compile_vectorised``).  ``_pairs_numba`` imports it from here (and
re-exports it, with ``_compile_vectorised`` and ``_TINY``) for ``pooled_tiles``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

#: a tiny product at some node sends the tile to the engine (see ``loo_b1``)
_TINY = np.finfo(np.float64).tiny * 1e16


@njit(cache=True, nogil=True)
def loo_b1(a, t, w, psi, kval):
    """The product game's leave-one-out integrals for absent factor b = 1, one tile of pairs.

    psi[r, f] = (a_rf - 1) sum_l w_l prod_{g != f} (1 + t_l (a_rg - 1)) and kval[r] = prod_f a_rf,
    by prefix and suffix products, the same operations per entry, in the same order, as the
    engine's prefix/suffix scheme (``shapley._product_numba``): for each pair and feature the
    nodes' terms are added to acc in node order, so the result is the same bit for bit whatever
    the blocking.  Pairs go eight at a time (a block) and nodes two at a time: sixteen independent
    product chains held in named locals, which the superword-level vectoriser packs into vector
    registers when ``loo_b1`` is compiled by ``_compile_vectorised`` (numba leaves it off by
    default); the two nodes share each load of D and of acc.  An odd last node runs alone (the
    same operations), and a short last block pads its pairs with D = 0 (factors 1).  Returns
    False, with ``psi`` and ``kval`` unspecified, when some factor is outside [0, 1] (or NaN) or
    some full product at a node is below ``_TINY``: the caller then takes the engine's path (log
    space where needed).  For 0 <= a <= 1 every factor 1 + t (a - 1) lies in
    [1 - t, 1] with 1 - t > 0, so a factor that underflowed to exactly 0 is harmless and every
    partial product is at least the full one (no underflow).
    """
    r, d = a.shape
    m = t.shape[0]
    D = np.empty((d, 8))
    pre = np.empty((d, 2, 8))
    acc = np.empty((d, 8))
    for k0 in range(0, r, 8):
        kq = min(8, r - k0)
        for q in range(kq):
            for f in range(d):
                x = a[k0 + q, f]
                if not (x >= 0.0 and x <= 1.0):
                    return False
                D[f, q] = x - 1.0
        for f in range(d):
            for q in range(kq, 8):
                D[f, q] = 0.0
            for q in range(8):
                acc[f, q] = 0.0
        # two nodes x eight pairs: sixteen chains in named locals (packable into vector registers;
        # arrays indexed by a loop variable would keep them in memory), written out by hand
        for l0 in range(0, m - 1, 2):
            t0 = t[l0 + 0]
            t1 = t[l0 + 1]
            p0_0 = 1.0
            p0_1 = 1.0
            p0_2 = 1.0
            p0_3 = 1.0
            p0_4 = 1.0
            p0_5 = 1.0
            p0_6 = 1.0
            p0_7 = 1.0
            p1_0 = 1.0
            p1_1 = 1.0
            p1_2 = 1.0
            p1_3 = 1.0
            p1_4 = 1.0
            p1_5 = 1.0
            p1_6 = 1.0
            p1_7 = 1.0
            for f in range(d):
                x0 = D[f, 0]
                x1 = D[f, 1]
                x2 = D[f, 2]
                x3 = D[f, 3]
                x4 = D[f, 4]
                x5 = D[f, 5]
                x6 = D[f, 6]
                x7 = D[f, 7]
                pre[f, 0, 0] = p0_0
                pre[f, 0, 1] = p0_1
                pre[f, 0, 2] = p0_2
                pre[f, 0, 3] = p0_3
                pre[f, 0, 4] = p0_4
                pre[f, 0, 5] = p0_5
                pre[f, 0, 6] = p0_6
                pre[f, 0, 7] = p0_7
                pre[f, 1, 0] = p1_0
                pre[f, 1, 1] = p1_1
                pre[f, 1, 2] = p1_2
                pre[f, 1, 3] = p1_3
                pre[f, 1, 4] = p1_4
                pre[f, 1, 5] = p1_5
                pre[f, 1, 6] = p1_6
                pre[f, 1, 7] = p1_7
                p0_0 *= 1.0 + t0 * x0
                p0_1 *= 1.0 + t0 * x1
                p0_2 *= 1.0 + t0 * x2
                p0_3 *= 1.0 + t0 * x3
                p0_4 *= 1.0 + t0 * x4
                p0_5 *= 1.0 + t0 * x5
                p0_6 *= 1.0 + t0 * x6
                p0_7 *= 1.0 + t0 * x7
                p1_0 *= 1.0 + t1 * x0
                p1_1 *= 1.0 + t1 * x1
                p1_2 *= 1.0 + t1 * x2
                p1_3 *= 1.0 + t1 * x3
                p1_4 *= 1.0 + t1 * x4
                p1_5 *= 1.0 + t1 * x5
                p1_6 *= 1.0 + t1 * x6
                p1_7 *= 1.0 + t1 * x7
            if (
                p0_0 <= _TINY
                or p0_1 <= _TINY
                or p0_2 <= _TINY
                or p0_3 <= _TINY
                or p0_4 <= _TINY
                or p0_5 <= _TINY
                or p0_6 <= _TINY
                or p0_7 <= _TINY
                or p1_0 <= _TINY
                or p1_1 <= _TINY
                or p1_2 <= _TINY
                or p1_3 <= _TINY
                or p1_4 <= _TINY
                or p1_5 <= _TINY
                or p1_6 <= _TINY
                or p1_7 <= _TINY
            ):
                return False
            s0_0 = w[l0 + 0]
            s0_1 = w[l0 + 0]
            s0_2 = w[l0 + 0]
            s0_3 = w[l0 + 0]
            s0_4 = w[l0 + 0]
            s0_5 = w[l0 + 0]
            s0_6 = w[l0 + 0]
            s0_7 = w[l0 + 0]
            s1_0 = w[l0 + 1]
            s1_1 = w[l0 + 1]
            s1_2 = w[l0 + 1]
            s1_3 = w[l0 + 1]
            s1_4 = w[l0 + 1]
            s1_5 = w[l0 + 1]
            s1_6 = w[l0 + 1]
            s1_7 = w[l0 + 1]
            # suffix pass: acc gains node l0's term, then node l0 + 1's (node order, as the engine)
            for f in range(d - 1, -1, -1):
                x0 = D[f, 0]
                x1 = D[f, 1]
                x2 = D[f, 2]
                x3 = D[f, 3]
                x4 = D[f, 4]
                x5 = D[f, 5]
                x6 = D[f, 6]
                x7 = D[f, 7]
                c0 = acc[f, 0]
                c1 = acc[f, 1]
                c2 = acc[f, 2]
                c3 = acc[f, 3]
                c4 = acc[f, 4]
                c5 = acc[f, 5]
                c6 = acc[f, 6]
                c7 = acc[f, 7]
                c0 += pre[f, 0, 0] * s0_0
                c1 += pre[f, 0, 1] * s0_1
                c2 += pre[f, 0, 2] * s0_2
                c3 += pre[f, 0, 3] * s0_3
                c4 += pre[f, 0, 4] * s0_4
                c5 += pre[f, 0, 5] * s0_5
                c6 += pre[f, 0, 6] * s0_6
                c7 += pre[f, 0, 7] * s0_7
                s0_0 *= 1.0 + t0 * x0
                s0_1 *= 1.0 + t0 * x1
                s0_2 *= 1.0 + t0 * x2
                s0_3 *= 1.0 + t0 * x3
                s0_4 *= 1.0 + t0 * x4
                s0_5 *= 1.0 + t0 * x5
                s0_6 *= 1.0 + t0 * x6
                s0_7 *= 1.0 + t0 * x7
                c0 += pre[f, 1, 0] * s1_0
                c1 += pre[f, 1, 1] * s1_1
                c2 += pre[f, 1, 2] * s1_2
                c3 += pre[f, 1, 3] * s1_3
                c4 += pre[f, 1, 4] * s1_4
                c5 += pre[f, 1, 5] * s1_5
                c6 += pre[f, 1, 6] * s1_6
                c7 += pre[f, 1, 7] * s1_7
                s1_0 *= 1.0 + t1 * x0
                s1_1 *= 1.0 + t1 * x1
                s1_2 *= 1.0 + t1 * x2
                s1_3 *= 1.0 + t1 * x3
                s1_4 *= 1.0 + t1 * x4
                s1_5 *= 1.0 + t1 * x5
                s1_6 *= 1.0 + t1 * x6
                s1_7 *= 1.0 + t1 * x7
                acc[f, 0] = c0
                acc[f, 1] = c1
                acc[f, 2] = c2
                acc[f, 3] = c3
                acc[f, 4] = c4
                acc[f, 5] = c5
                acc[f, 6] = c6
                acc[f, 7] = c7
        if m % 2 == 1:  # the last node alone, after the others (node order kept)
            t0 = t[m - 1 + 0]
            p0_0 = 1.0
            p0_1 = 1.0
            p0_2 = 1.0
            p0_3 = 1.0
            p0_4 = 1.0
            p0_5 = 1.0
            p0_6 = 1.0
            p0_7 = 1.0
            for f in range(d):
                x0 = D[f, 0]
                x1 = D[f, 1]
                x2 = D[f, 2]
                x3 = D[f, 3]
                x4 = D[f, 4]
                x5 = D[f, 5]
                x6 = D[f, 6]
                x7 = D[f, 7]
                pre[f, 0, 0] = p0_0
                pre[f, 0, 1] = p0_1
                pre[f, 0, 2] = p0_2
                pre[f, 0, 3] = p0_3
                pre[f, 0, 4] = p0_4
                pre[f, 0, 5] = p0_5
                pre[f, 0, 6] = p0_6
                pre[f, 0, 7] = p0_7
                p0_0 *= 1.0 + t0 * x0
                p0_1 *= 1.0 + t0 * x1
                p0_2 *= 1.0 + t0 * x2
                p0_3 *= 1.0 + t0 * x3
                p0_4 *= 1.0 + t0 * x4
                p0_5 *= 1.0 + t0 * x5
                p0_6 *= 1.0 + t0 * x6
                p0_7 *= 1.0 + t0 * x7
            if (
                p0_0 <= _TINY
                or p0_1 <= _TINY
                or p0_2 <= _TINY
                or p0_3 <= _TINY
                or p0_4 <= _TINY
                or p0_5 <= _TINY
                or p0_6 <= _TINY
                or p0_7 <= _TINY
            ):
                return False
            s0_0 = w[m - 1 + 0]
            s0_1 = w[m - 1 + 0]
            s0_2 = w[m - 1 + 0]
            s0_3 = w[m - 1 + 0]
            s0_4 = w[m - 1 + 0]
            s0_5 = w[m - 1 + 0]
            s0_6 = w[m - 1 + 0]
            s0_7 = w[m - 1 + 0]
            for f in range(d - 1, -1, -1):
                x0 = D[f, 0]
                x1 = D[f, 1]
                x2 = D[f, 2]
                x3 = D[f, 3]
                x4 = D[f, 4]
                x5 = D[f, 5]
                x6 = D[f, 6]
                x7 = D[f, 7]
                c0 = acc[f, 0]
                c1 = acc[f, 1]
                c2 = acc[f, 2]
                c3 = acc[f, 3]
                c4 = acc[f, 4]
                c5 = acc[f, 5]
                c6 = acc[f, 6]
                c7 = acc[f, 7]
                c0 += pre[f, 0, 0] * s0_0
                c1 += pre[f, 0, 1] * s0_1
                c2 += pre[f, 0, 2] * s0_2
                c3 += pre[f, 0, 3] * s0_3
                c4 += pre[f, 0, 4] * s0_4
                c5 += pre[f, 0, 5] * s0_5
                c6 += pre[f, 0, 6] * s0_6
                c7 += pre[f, 0, 7] * s0_7
                s0_0 *= 1.0 + t0 * x0
                s0_1 *= 1.0 + t0 * x1
                s0_2 *= 1.0 + t0 * x2
                s0_3 *= 1.0 + t0 * x3
                s0_4 *= 1.0 + t0 * x4
                s0_5 *= 1.0 + t0 * x5
                s0_6 *= 1.0 + t0 * x6
                s0_7 *= 1.0 + t0 * x7
                acc[f, 0] = c0
                acc[f, 1] = c1
                acc[f, 2] = c2
                acc[f, 3] = c3
                acc[f, 4] = c4
                acc[f, 5] = c5
                acc[f, 6] = c6
                acc[f, 7] = c7
        for q in range(kq):
            prod_a = 1.0
            for f in range(d):
                psi[k0 + q, f] = D[f, q] * acc[f, q]
                prod_a *= a[k0 + q, f]
            kval[k0 + q] = prod_a
    return True


def _compile_vectorised() -> None:
    """Compile ``loo_b1`` (or load it from numba's cache) with LLVM's superword-level vectoriser on.

    numba runs only the loop vectoriser by default (``NUMBA_SLP_VECTORIZE=0``); ``loo_b1``'s
    sixteen chains are straight-line code that only the SLP vectoriser packs (measured at d = 20
    and 50: 1.7-1.9x, bit for bit the same values, since it packs independent chains and reorders
    no operation).  The pass builder reads the setting at each compilation, so it is switched on
    for this one compilation (under numba's compiler lock) and restored.  Callers pass C-contiguous
    float64 arrays, the signature compiled here; any other layout compiles lazily without it.
    """
    if not hasattr(loo_b1, "compile"):  # NUMBA_DISABLE_JIT: a plain Python function
        return
    from numba.core import config as numba_config
    from numba.core.compiler_lock import global_compiler_lock

    config: Any = numba_config  # its settings are set at run time (no stubs name them)

    with global_compiler_lock:
        old = config.SLP_VECTORIZE
        config.SLP_VECTORIZE = 1
        try:
            loo_b1.compile("(float64[:, ::1], float64[::1], float64[::1], float64[:, ::1], float64[::1])")
        finally:
            config.SLP_VECTORIZE = old


_compile_vectorised()

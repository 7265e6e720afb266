"""Compiled per-pair kernel factors for the statistics (numba is optional; see ``_pairs``).

``tile_factors(U, V, i, j, kinds, inv, mismatch, out)`` writes out[r, f] = k_f(U[i_r, f], V[j_r, f])
for RBF (kind 0: exp(-u^2 / 2)), Laplacian (1: exp(-|u|)), Cauchy (2: 1 / (1 + u^2)) with
u = (x - y) / l, and the delta kernel on integer label codes (3: 1 if equal else ``mismatch``); the
codes are ``kexplain.kernels.base.PAIR_*``, and each kernel class names its own
(``Kernel.pair_loop_params``).

``loo_b1(a, t, w, psi, kval)`` is the product game's leave-one-out quadrature for absent factor
b = 1 on one tile of factors (False: the caller uses the engine), and ``triangle_pairs`` is
``_pairs.within_pairs`` compiled.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..kernels.base import PAIR_CAUCHY, PAIR_DELTA, PAIR_LAPLACE, PAIR_RBF

# numba freezes these globals into the compiled code; the checks keep the branches below in step
assert (PAIR_RBF, PAIR_LAPLACE, PAIR_CAUCHY, PAIR_DELTA) == (0, 1, 2, 3)


@njit(cache=True, nogil=True)
def tile_factors(U, V, i, j, kinds, inv, mismatch, out):  # pragma: no cover - compiled; tested via _pairs
    r = i.shape[0]
    d = U.shape[1]
    for q in range(r):
        a = i[q]
        b = j[q]
        for f in range(d):
            k = kinds[f]
            if k == PAIR_DELTA:
                out[q, f] = 1.0 if U[a, f] == V[b, f] else mismatch[f]
            else:
                u = (U[a, f] - V[b, f]) * inv[f]
                if k == PAIR_RBF:
                    out[q, f] = np.exp(-0.5 * u * u)
                elif k == PAIR_LAPLACE:
                    out[q, f] = np.exp(-abs(u))
                else:  # PAIR_CAUCHY
                    out[q, f] = 1.0 / (1.0 + u * u)


#: pairs per block of ``loo_b1`` (a multiple of 8: the node loop runs eight pairs at once); with
#: one group of eight per block, the block's arrays stay in the first-level cache up to large d
#: (measured at d = 20 and 50: 3-10% faster than blocks of 32 pairs in groups of four)
_BLOCK = 8
_TINY = np.finfo(np.float64).tiny * 1e16


@njit(cache=True, nogil=True)
def loo_b1(a, t, w, psi, kval):  # pragma: no cover - compiled; tested via _pairs
    """The product game's leave-one-out integrals for absent factor b = 1, one tile of pairs.

    psi[r, f] = (a_rf - 1) sum_l w_l prod_{g != f} (1 + t_l (a_rg - 1)) and kval[r] = prod_f a_rf,
    by prefix and suffix products, the same operations per entry, in the same order, as the
    engine's prefix/suffix scheme (``shapley._product_numba``), over blocks of pairs with eight
    independent product chains at a time.  Returns False, with ``psi`` and ``kval`` unspecified,
    when some factor is outside [0, 1] (or NaN) or some full product at a node is below ``_TINY``:
    the caller then takes the engine's path (log space where needed).  For 0 <= a <= 1 every
    factor 1 + t (a - 1) lies in [1 - t, 1] with 1 - t > 0, so a factor that underflowed to
    exactly 0 is harmless and every partial product is at least the full one (no underflow).
    """
    r, d = a.shape
    m = t.shape[0]
    Q = _BLOCK
    D = np.empty((d, Q))
    pre = np.empty((d, Q))
    acc = np.empty((d, Q))
    for k0 in range(0, r, Q):
        kq = min(Q, r - k0)
        for q in range(kq):
            for f in range(d):
                x = a[k0 + q, f]
                if not (x >= 0.0 and x <= 1.0):
                    return False
                D[f, q] = x - 1.0
        for f in range(d):
            for q in range(kq, Q):  # padding: harmless factors
                D[f, q] = 0.0
            for q in range(Q):
                acc[f, q] = 0.0
        for l in range(m):
            tl = t[l]
            wl = w[l]
            # eight independent product chains (pairs) at a time: the loop is bound by the chains'
            # multiply latency and load/store slots, which eight chains fill better than four
            for q0 in range(0, Q, 8):
                p0 = 1.0
                p1 = 1.0
                p2 = 1.0
                p3 = 1.0
                p4 = 1.0
                p5 = 1.0
                p6 = 1.0
                p7 = 1.0
                for f in range(d):
                    Df = D[f]
                    pf = pre[f]
                    pf[q0 + 0] = p0
                    pf[q0 + 1] = p1
                    pf[q0 + 2] = p2
                    pf[q0 + 3] = p3
                    pf[q0 + 4] = p4
                    pf[q0 + 5] = p5
                    pf[q0 + 6] = p6
                    pf[q0 + 7] = p7
                    p0 *= 1.0 + tl * Df[q0 + 0]
                    p1 *= 1.0 + tl * Df[q0 + 1]
                    p2 *= 1.0 + tl * Df[q0 + 2]
                    p3 *= 1.0 + tl * Df[q0 + 3]
                    p4 *= 1.0 + tl * Df[q0 + 4]
                    p5 *= 1.0 + tl * Df[q0 + 5]
                    p6 *= 1.0 + tl * Df[q0 + 6]
                    p7 *= 1.0 + tl * Df[q0 + 7]
                if (
                    p0 <= _TINY
                    or p1 <= _TINY
                    or p2 <= _TINY
                    or p3 <= _TINY
                    or p4 <= _TINY
                    or p5 <= _TINY
                    or p6 <= _TINY
                    or p7 <= _TINY
                ):
                    return False
                s0 = wl
                s1 = wl
                s2 = wl
                s3 = wl
                s4 = wl
                s5 = wl
                s6 = wl
                s7 = wl
                for f in range(d - 1, -1, -1):
                    Df = D[f]
                    pf = pre[f]
                    af = acc[f]
                    af[q0 + 0] += pf[q0 + 0] * s0
                    af[q0 + 1] += pf[q0 + 1] * s1
                    af[q0 + 2] += pf[q0 + 2] * s2
                    af[q0 + 3] += pf[q0 + 3] * s3
                    af[q0 + 4] += pf[q0 + 4] * s4
                    af[q0 + 5] += pf[q0 + 5] * s5
                    af[q0 + 6] += pf[q0 + 6] * s6
                    af[q0 + 7] += pf[q0 + 7] * s7
                    s0 *= 1.0 + tl * Df[q0 + 0]
                    s1 *= 1.0 + tl * Df[q0 + 1]
                    s2 *= 1.0 + tl * Df[q0 + 2]
                    s3 *= 1.0 + tl * Df[q0 + 3]
                    s4 *= 1.0 + tl * Df[q0 + 4]
                    s5 *= 1.0 + tl * Df[q0 + 5]
                    s6 *= 1.0 + tl * Df[q0 + 6]
                    s7 *= 1.0 + tl * Df[q0 + 7]
        for q in range(kq):
            prod_a = 1.0
            for f in range(d):
                psi[k0 + q, f] = D[f, q] * acc[f, q]
                prod_a *= a[k0 + q, f]
            kval[k0 + q] = prod_a
    return True


@njit(cache=True, nogil=True)
def triangle_pairs(n, k, i_out, j_out):  # pragma: no cover - compiled; tested via _pairs
    """(i, j), i < j, for linear indices k in row-major order over the upper triangle (``within_pairs``)."""
    b = 2 * n - 1
    for q in range(k.shape[0]):
        kk = k[q]
        i = np.int64(np.floor((b - np.sqrt(max(b * b - 8.0 * kk, 0.0))) / 2))
        start = i * n - i * (i + 1) // 2
        if start > kk:
            i -= 1
        nxt = (i + 1) * n - (i + 1) * (i + 2) // 2
        if nxt <= kk:
            i += 1
        start = i * n - i * (i + 1) // 2
        i_out[q] = i
        j_out[q] = kk - start + i + 1

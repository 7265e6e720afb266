"""Compiled per-pair kernel factors for the statistics (numba is optional; see ``_pairs``).

``tile_factors(U, V, i, j, kinds, inv, mismatch, out)`` writes out[r, f] = k_f(U[i_r, f], V[j_r, f])
for RBF (kind 0: exp(-u^2 / 2)), Laplacian (1: exp(-|u|)), Cauchy (2: 1 / (1 + u^2)) with
u = (x - y) / l, and the delta kernel on integer label codes (3: 1 if equal else ``mismatch``); the
codes are ``kexplain.kernels.base.PAIR_*``, and each kernel class names its own
(``Kernel.pair_loop_params``).

``loo_b1(a, t, w, psi, kval)`` is the product game's leave-one-out quadrature for absent factor
b = 1 on one tile of factors (False: the caller uses the engine), compiled at import with LLVM's
superword-level vectoriser (``_compile_vectorised``), and ``triangle_pairs`` is
``_pairs.within_pairs`` compiled (``tile_pairs`` steps along the rows from the first pair of a
tile).  ``weigh_pooled`` sums one tile's psi and kernel values with the MMD^2 weights of one
labelling, and ``pooled_tiles`` chains the four over a run of tiles in one call without the GIL.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from .._exp_numba import exp_into
from ..kernels.base import PAIR_CAUCHY, PAIR_DELTA, PAIR_LAPLACE, PAIR_RBF

# numba freezes these globals into the compiled code; the checks keep the branches below in step
assert (PAIR_RBF, PAIR_LAPLACE, PAIR_CAUCHY, PAIR_DELTA) == (0, 1, 2, 3)


#: pairs whose exponents ``tile_factors`` computes before one call of the vectorised exp
_EXP_CHUNK = 64


@njit(cache=True, nogil=True)
def tile_factors(U, V, i, j, kinds, inv, mismatch, out):  # pragma: no cover - compiled; tested via _pairs
    r = i.shape[0]
    d = U.shape[1]
    exp_only = True
    for f in range(d):
        if kinds[f] != PAIR_RBF and kinds[f] != PAIR_LAPLACE:
            exp_only = False
    if exp_only:
        # every factor an exp (RBF and Laplacian features): the exponents of a chunk of pairs first,
        # then one vectorised exp over them (``kexplain._exp_numba``: within 1 ulp of the C library's exp,
        # which took half of the per-pair work when called per factor); chunks of _EXP_CHUNK pairs
        # keep the exponents in the first-level cache
        rbf = np.empty(d, dtype=np.bool_)
        for f in range(d):
            rbf[f] = kinds[f] == PAIR_RBF
        flat = out.reshape(r * d)
        z = np.empty(min(r, _EXP_CHUNK) * d)
        for q0 in range(0, r, _EXP_CHUNK):
            nq = min(_EXP_CHUNK, r - q0)
            for q in range(nq):
                a = i[q0 + q]
                b = j[q0 + q]
                for f in range(d):
                    u = (U[a, f] - V[b, f]) * inv[f]
                    z[q * d + f] = -0.5 * u * u if rbf[f] else -abs(u)
            exp_into(z[: nq * d], flat[q0 * d : (q0 + nq) * d])
        return
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


@njit(cache=True, nogil=True)
def tile_pairs(n, k0, k1, i_out, j_out):  # pragma: no cover - compiled; tested via _pairs
    """(i, j), i < j, for the consecutive linear indices k0 .. k1 - 1 (``within_pairs``): the first
    by ``triangle_pairs``' formula, the others by stepping along the row (no square root per pair)."""
    if k1 <= k0:
        return
    first = np.empty(1, np.int64)
    triangle_pairs(n, np.array([k0], dtype=np.int64), first, j_out[:1])
    i = first[0]
    j = j_out[0]
    for q in range(k1 - k0):
        i_out[q] = i
        j_out[q] = j
        j += 1
        if j == n:
            i += 1
            j = i + 1


@njit(cache=True, nogil=True)
def weigh_pooled(i, j, labels, wxx, wxz, wzz, kval, psi, stat, phi):  # pragma: no cover - compiled
    """stat[0] += sum_q w_q kval[q] and phi[f] += sum_q w_q psi[q, f] for one labelling, with
    w_q = wxx, wxz or wzz as both, one or neither of the pair's rows carry the label.

    The numpy path's ``np.where`` and matrix products without their temporaries (or the GIL).  The
    pairs are summed per class first, in pair order, and the three sums weighted at the end: within
    a class every term has the same sign (kval > 0, psi <= 0), so the cancellation between the
    classes' weights happens once, on the sums, not at every pair.
    """
    d = psi.shape[1]
    sums = np.zeros((3, d + 1))
    for q in range(i.shape[0]):
        li = labels[i[q]]
        lj = labels[j[q]]
        row = sums[0 if (li and lj) else (1 if (li or lj) else 2)]
        row[d] += kval[q]
        for f in range(d):
            row[f] += psi[q, f]
    stat[0] += (wxx * sums[0, d] + wxz * sums[1, d]) + wzz * sums[2, d]
    for f in range(d):
        phi[f] += (wxx * sums[0, f] + wxz * sums[1, f]) + wzz * sums[2, f]


@njit(cache=True, nogil=True)
def pooled_tiles(n, t0, t1, tile, T, U, kinds, inv, mismatch, labels, wxx, wxz, wzz, t, w, stat, phi, ok):
    """Tiles t0 .. t1 - 1 of the complete MMD^2 with one labelling, start to end without the GIL.

    Tile s (pairs s * tile .. min(T, (s + 1) * tile) - 1 of the pooled sample's n rows) gets
    stat[s - t0, 0] and phi[s - t0] from ``tile_pairs``, ``tile_factors``, ``loo_b1`` and
    ``weigh_pooled``: the calls ``_PooledPairs.task`` makes per tile, so the same numbers bit for
    bit, without a return to the interpreter (and the GIL) between them.  ok[s - t0] is False where
    ``loo_b1`` declined the tile: the caller computes that tile by the engine's path.
    """
    d = U.shape[1]
    for s in range(t0, t1):
        k0 = s * tile
        k1 = min(T, k0 + tile)
        r = k1 - k0
        i = np.empty(r, np.int64)
        j = np.empty(r, np.int64)
        tile_pairs(n, k0, k1, i, j)
        a = np.empty((r, d))
        tile_factors(U, U, i, j, kinds, inv, mismatch, a)
        psi = np.empty((r, d))
        kval = np.empty(r)
        ok[s - t0] = loo_b1(a, t, w, psi, kval)
        if ok[s - t0]:
            weigh_pooled(i, j, labels, wxx, wxz, wzz, kval, psi, stat[s - t0], phi[s - t0])

"""Compiled per-pair kernel factors for the statistics (numba is optional; see ``_pairs``).

``tile_factors(U, V, i, j, kinds, inv, mismatch, out)`` writes out[r, f] = k_f(U[i_r, f], V[j_r, f])
for RBF (kind 0: exp(-u^2 / 2)), Laplacian (1: exp(-|u|)), Cauchy (2: 1 / (1 + u^2)) with
u = (x - y) / l, and the delta kernel on integer label codes (3: 1 if equal else ``mismatch``); the
codes are ``kexplain.kernels.base.PAIR_*``, and each kernel class names its own
(``Kernel.pair_loop_params``).

``loo_b1(a, t, w, psi, kval)``, the product game's leave-one-out quadrature for absent factor
b = 1 on one tile of factors (False: the caller uses the engine), lives in ``_pairs_loo_numba``
(compiled there at import with LLVM's superword-level vectoriser, ``_compile_vectorised``) and is
imported here, so ``_pairs_numba.loo_b1`` is still the one compiled function.  ``triangle_pairs`` is
``_pairs.within_pairs`` compiled (``tile_pairs`` steps along the rows from the first pair of a
tile).  ``weigh_pooled`` sums one tile's psi and kernel values with the MMD^2 weights of one
labelling, and ``pooled_tiles`` chains the four over a run of tiles in one call without the GIL.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._exp_numba import exp_into
from ..kernels.base import PAIR_CAUCHY, PAIR_DELTA, PAIR_LAPLACE, PAIR_RBF

# loo_b1 compiles (with the SLP vectoriser) when this import runs, before anything here compiles, as
# when it was defined in this module; numba's on-disk cache checks only the time stamp of the file
# that defines a function, so a cached pooled_tiles keeps the loo_b1 (and exp_into) it was compiled
# with: after editing _pairs_loo_numba.py or _exp_numba.py, delete __pycache__/_pairs_numba.*.nb[ic]
from ._pairs_loo_numba import _TINY, _compile_vectorised, loo_b1  # noqa: F401 - re-exported

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

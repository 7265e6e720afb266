"""The prior term's pass over one block of background pairs in numpy, and its log-space finish.

The formulas of :mod:`kexplain.shapley.stochastic`'s module docstring on a (t, u) grid for q
background pairs at once (``_prior_block_numpy``, the path without numba); for the entries whose
product of factors comes near under- or overflow or has zero factors, the leave-one-out and
leave-two-out products taken safely (``_safe_entries``; ``_finish_in_log_space`` for the entries
the compiled pass of ``_stochastic_numba`` flags).  The choice between the compiled and the numpy
pass stays in ``stochastic`` (``_prior_block``).
"""

from __future__ import annotations

import numpy as np

from .product import _loo2_products_safe, _loo_products_safe

# entries whose products or factors come near under- or overflow go through log space
_TINY = np.finfo(np.float64).tiny * 1e16
_HUGE = np.finfo(np.float64).max * 1e-16
_SMALL = 1e-150


def _finish_in_log_space(
    out: np.ndarray,
    diag: np.ndarray,
    g11: np.ndarray,
    G10: np.ndarray,
    G01: np.ndarray,
    G00: np.ndarray,
    cq: np.ndarray,
    t: np.ndarray,
    wt: np.ndarray,
    a0: int,
    a1: int,
    idx: np.ndarray,
) -> None:
    """The entries e = (q, a, b) flagged by the compiled pass (nodes a0 <= a < a1 of t): the numpy formulas."""
    m, na = t.shape[0], a1 - a0
    qi, a, b = idx // (na * m), a0 + (idx // m) % na, idx % m
    tt, u = t[a][:, None], t[b][:, None]
    G10, G01, G00 = G10[qi], G01[qi], G00[qi]
    A1 = u * g11 + (1.0 - u) * G10
    A0 = u * G01 + (1.0 - u) * G00
    Dx = A1 - A0
    h = tt * Dx
    h += A0
    Dy = tt * (g11 - G10) + (1.0 - tt) * (G01 - G00)
    D2 = g11 - G10 - G01 + G00
    c = cq[qi] * (wt[a] * wt[b])
    _safe_entries(out, diag, h, Dx, Dy, D2, c)


def _safe_entries(
    out: np.ndarray, diag: np.ndarray, h: np.ndarray, Dx: np.ndarray, Dy: np.ndarray, D2: np.ndarray, c: np.ndarray
) -> None:
    """Entries (rows of the (E, d) arrays) whose product is near under/overflow or has zero factors."""
    d = h.shape[1]
    # entries with three or more zero factors contribute nothing to either sum
    idx = np.nonzero((h == 0.0).sum(axis=-1) <= 2)[0]
    step = max(1, (8 * 2**20) // (8 * d * d * 3))
    for s0 in range(0, idx.size, step):
        e = idx[s0 : s0 + step]
        hb = h[e]
        loo2 = _loo2_products_safe(hb)  # (e, d, d)
        out += np.einsum("e,ej,el,ejl->jl", c[e], Dx[e], Dy[e], loo2)
        diag += np.einsum("e,ej,ej->j", c[e], D2[e], _loo_products_safe(hb))


def _prior_block_numpy(
    out: np.ndarray,
    diag: np.ndarray,
    g11: np.ndarray,
    G10: np.ndarray,
    G01: np.ndarray,
    G00: np.ndarray,
    cq: np.ndarray,
    t: np.ndarray,
    wt: np.ndarray,
) -> None:
    """``_prior_block`` in numpy: about ten passes over (q, nodes, nodes, d) arrays."""
    d = g11.shape[0]
    q = cq.shape[0]
    u = t[None, None, :, None]
    tt = t[None, :, None, None]
    G10 = G10[:, None, None, :]
    G01 = G01[:, None, None, :]
    G00 = G00[:, None, None, :]
    A1 = u * g11 + (1.0 - u) * G10  # (q, 1, m, d): x's feature present
    A0 = u * G01 + (1.0 - u) * G00  # (q, 1, m, d): x's feature absent
    Dx = A1 - A0  # u (g11 - g01) + (1 - u)(g10 - g00)
    h = tt * Dx  # (q, m, m, d)
    h += A0
    shape = h.shape
    Dy = tt * (g11 - G10) + (1.0 - tt) * (G01 - G00)  # (q, m, 1, d)
    D2 = (g11 - G10 - G01 + G00)[:, 0, 0, :]  # (q, d)
    c = cq[:, None, None] * (wt[:, None] * wt[None, :])[None]  # (q, m, m)
    E = q * t.shape[0] ** 2
    with np.errstate(under="ignore", over="ignore", divide="ignore"):
        P = np.prod(h, axis=-1)  # (q, m, m)
        aP = np.abs(P)
        # the common case (kernel factors are positive): two reductions decide, no mask is built
        if h.min() > _SMALL and aP.min() > _TINY and aP.max() < _HUGE:
            cP = (c * P)[..., None]
            inv = np.reciprocal(h, out=h)  # h is not needed any more
            X = Dx * inv
            inv *= cP
            # D2 depends on the pair only: sum over the nodes first (terms of one sign), then multiply
            diag += np.einsum("qj,qj->j", inv.sum(axis=(1, 2)), D2)
            inv *= Dy
            out += X.reshape(E, d).T @ inv.reshape(E, d)
            return
        ok = (aP > _TINY) & (aP < _HUGE) & (np.abs(h) > _SMALL).all(axis=-1)
    h = h.reshape(E, d)
    Dx = np.broadcast_to(Dx, shape).reshape(E, d)
    Dy = np.broadcast_to(Dy, shape).reshape(E, d)
    D2 = np.broadcast_to(D2[:, None, None, :], shape).reshape(E, d)
    c, P, ok = c.reshape(E), P.reshape(E), ok.reshape(E)
    if ok.any():
        hk = h[ok]
        cP = c[ok] * P[ok]
        X = Dx[ok] / hk
        Y = (Dy[ok] / hk) * cP[:, None]
        out += X.T @ Y
        diag += ((D2[ok] / hk) * cP[:, None]).sum(axis=0)
    if not ok.all():
        bad = ~ok
        _safe_entries(out, diag, h[bad], Dx[bad], Dy[bad], D2[bad], c[bad])

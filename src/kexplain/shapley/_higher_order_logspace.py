"""The log-space routes of the product game's interactions: the (point, row) pairs the fast route leaves.

:func:`kexplain.shapley.higher_order_product._integrate_block` divides a full product by the
factors of each set; a (point, row) pair with a zero factor, or whose partial products could
leave float64's range, comes here instead.  The leave-T-out products are then formed in log
space with a count of exact zeros (and of negative factors), with no division by a small or
zero factor: :func:`_leave_out_integrals` on a real quadrature rule, :func:`_size_weighted`
(FSII) over the roots of unity, in complex log space.  Both work through the interaction sets
in chunks whose work arrays stay near ``_WORK_BYTES``.
"""

from __future__ import annotations

import numpy as np

#: bytes of the (points, rows, nodes, sets) work arrays of one chunk of interaction sets
_WORK_BYTES = 32 * 2**20


def _log_parts(g: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    zero = g == 0.0
    lg = np.log(np.where(zero, 1.0, np.abs(g)))
    return lg, zero.astype(np.int64), (g < 0.0).astype(np.int64)


def _sets_chunk(n_sets: int, per_set: int) -> int:
    return int(max(1, min(n_sets, _WORK_BYTES // (8 * max(1, per_set)))))


def _leave_out_integrals(
    a: np.ndarray, b: np.ndarray, c: np.ndarray, sets: np.ndarray, u: np.ndarray, w: np.ndarray
) -> np.ndarray:
    """sum_r c_r prod_{T} (a - b) sum_q w_q prod_{l not in T} g_rl(u_q) for every T in ``sets``.

    a, b (p, r, d); c (r, o); sets (n, t).  Returns (n, p, o).  The leave-T-out products are
    formed in log space with a count of exact zeros (no division by a small or zero factor).
    """
    p, r, d = a.shape
    n, t = sets.shape
    o = c.shape[1]
    g = (1.0 - u)[None, None, :, None] * b[:, :, None, :] + u[None, None, :, None] * a[:, :, None, :]  # (p, r, Q, d)
    lg, zc, ng = _log_parts(g)
    tot_l, tot_z, tot_n = lg.sum(-1), zc.sum(-1), ng.sum(-1)
    diff = a - b
    out = np.empty((n, p, o))
    Q = len(u)
    chunk = _sets_chunk(n, p * r * Q * 3)
    for s0 in range(0, n, chunk):
        T = sets[s0 : s0 + chunk]  # (m, t)
        if t:
            ll = tot_l[..., None] - lg[..., T].sum(-1)  # (p, r, Q, m)
            zz = tot_z[..., None] - zc[..., T].sum(-1)
            nn = tot_n[..., None] - ng[..., T].sum(-1)
            dprod = diff[..., T].prod(-1)  # (p, r, m)
        else:
            ll, zz, nn = tot_l[..., None], tot_z[..., None], tot_n[..., None]
            dprod = np.ones((p, r, 1))
        with np.errstate(under="ignore", over="ignore"):
            prods = np.where(zz > 0, 0.0, np.where(nn % 2 == 1, -1.0, 1.0) * np.exp(ll))
        integ = np.einsum("prqm,q->prm", prods, w)  # (p, r, m)
        out[s0 : s0 + len(T)] = np.einsum("prm,ro->mpo", integ * dprod, c)
    return out


def _size_weighted(a: np.ndarray, b: np.ndarray, c: np.ndarray, sets: np.ndarray, h: np.ndarray) -> np.ndarray:
    """sum_r c_r prod_T (a - b) sum_{U disjoint of T} h[|U|] prod_U (a - b) prod_{rest} b, every T in ``sets``.

    The inner sum is sum_u h[u] e_u with e_u the coefficients of P(z) = prod_{l not in T}
    (b_l + z (a_l - b_l)), a polynomial of degree m = d - t; with the m + 1 roots of unity
    z_q, e_u = (1 / (m + 1)) sum_q P(z_q) z_q^-u, so the sum is sum_q omega_q P(z_q) with
    omega_q = (1 / (m + 1)) sum_u h[u] z_q^-u, and P(z_q) is the full product over the factors
    of T removed (complex log space, with a count of exact zeros).  Returns (n, p, o).
    """
    p, r, d = a.shape
    n, t = sets.shape
    o = c.shape[1]
    m = d - t
    q = np.arange(m + 1)
    z = np.exp(2j * np.pi * q / (m + 1))
    omega = (np.exp(-2j * np.pi * np.outer(q, np.arange(m + 1)) / (m + 1)) @ h) / (m + 1)  # (Q,)
    diff = a - b
    g = b[:, :, None, :] + z[None, None, :, None] * diff[:, :, None, :]  # (p, r, Q, d) complex
    zero = g == 0
    lg = np.log(np.where(zero, 1.0, g))
    zc = zero.astype(np.int64)
    tot_l, tot_z = lg.sum(-1), zc.sum(-1)
    out = np.empty((n, p, o))
    chunk = _sets_chunk(n, p * r * (m + 1) * 4)
    for s0 in range(0, n, chunk):
        T = sets[s0 : s0 + chunk]
        if t:
            ll = tot_l[..., None] - lg[..., T].sum(-1)
            zz = tot_z[..., None] - zc[..., T].sum(-1)
            dprod = diff[..., T].prod(-1)
        else:
            ll, zz = tot_l[..., None], tot_z[..., None]
            dprod = np.ones((p, r, 1))
        with np.errstate(under="ignore", over="ignore"):
            prods = np.where(zz > 0, 0.0, np.exp(ll))
        integ = np.einsum("prqm,q->prm", prods, omega).real
        out[s0 : s0 + len(T)] = np.einsum("prm,ro->mpo", integ * dprod, c)
    return out

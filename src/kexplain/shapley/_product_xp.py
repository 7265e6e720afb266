"""The product-game engine on any array-API namespace (torch, CuPy, array-api-strict): the same
quadrature as the numpy path of ``product.py``, in log space against under/overflow, in large chunks
for devices."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._product_torch import fused_kernels
from .array_api import device_of, from_numpy, is_foreign_array, resolve_dtype
from .interactions import interaction_rule
from .quadrature import block_node_count, gauss_legendre_01, nodes_for_degree, spread_limit

#: bytes of one (pairs, nodes, d) work array of the array API path (a GPU wants large chunks)
XP_WORK_BYTES = 128 * 2**20


def _xp_limits(xp: Any, dtype: Any) -> tuple[float, float]:
    """(tiny, huge) of the safe range of products in ``dtype``: the float64 values are the numpy path's."""
    fi = xp.finfo(dtype)
    margin = 1e16 if fi.bits == 64 else 1e8
    return float(fi.smallest_normal) * margin, float(fi.max) / margin


def _count(xp: Any, mask: Any, axis: int = -1) -> Any:
    return xp.sum(xp.astype(mask, xp.int64), axis=axis, keepdims=True)


def _loo_log_xp(xp: Any, g: Any) -> Any:
    """prod_{k != j} g[..., k] in log space with a count of exact zeros (``_loo_products_safe``)."""
    zero, neg = g == 0.0, g < 0.0
    lg = xp.log(xp.where(zero, xp.ones_like(g), xp.abs(g)))
    mag = xp.exp(xp.sum(lg, axis=-1, keepdims=True) - lg)
    odd = (_count(xp, neg) - xp.astype(neg, xp.int64)) % 2 == 1
    out = xp.where(odd, -mag, mag)
    return xp.where(_count(xp, zero) - xp.astype(zero, xp.int64) > 0, xp.zeros_like(out), out)


def _loo2_log_xp(xp: Any, g: Any) -> Any:
    """prod_{l != j, k} g[b, l] for every pair (j, k), shape (B, d, d) (``_loo2_products_safe``)."""
    zero, neg = g == 0.0, g < 0.0
    lg = xp.log(xp.where(zero, xp.ones_like(g), xp.abs(g)))
    total = xp.sum(lg, axis=-1)[:, None, None]
    mag = xp.exp(total - lg[:, :, None] - lg[:, None, :])
    zi, ni = xp.astype(zero, xp.int64), xp.astype(neg, xp.int64)
    n_zero = xp.sum(zi, axis=-1)[:, None, None] - zi[:, :, None] - zi[:, None, :]
    n_neg = xp.sum(ni, axis=-1)[:, None, None] - ni[:, :, None] - ni[:, None, :]
    out = xp.where(n_neg % 2 == 1, -mag, mag)
    return xp.where(n_zero > 0, xp.zeros_like(out), out)


def _b_rows(xp: Any, b2: Any, k0: int, k1: int, device: Any) -> Any:
    """b's rows for pairs k0..k1 (pair k uses row k % len(b2))."""
    Kb = b2.shape[0]
    if Kb == 1:
        return xp.broadcast_to(b2, (k1 - k0, b2.shape[1]))
    if k0 % Kb + (k1 - k0) <= Kb:
        return b2[k0 % Kb : k0 % Kb + (k1 - k0), :]
    return xp.take(b2, xp.arange(k0, k1, device=device) % Kb, axis=0)


def _weighted_loo_integrals_xp(
    xp: Any, a2: Any, b2: Any, t: Any, w: Any, limits: tuple[float, float], *, kernels: Any = "auto"
) -> Any:
    """(a - b)_kj sum_l w_l prod_{i != j} g_ki(t_l) for every pair k: division where safe, else log space.

    ``kernels``: "auto" uses the fused torch reductions of ``_product_torch`` for tensors on a GPU
    (no (pairs, nodes, features) array); a (node_products, weighted_inverse_sums) pair forces them
    (tests); None forces the generic path."""
    K, d = a2.shape
    m = t.shape[0]
    tiny, huge = limits
    device = device_of(a2)
    itemsize = 4 if a2.dtype == xp.float32 else 8
    fused = fused_kernels(a2) if isinstance(kernels, str) else kernels
    # the generic path holds (pairs, nodes, features) arrays; the fused one (pairs, features + nodes)
    per_pair = itemsize * (4 * max(d, 1) + 3 * m if fused is not None else m * max(d, 1))
    step = max(1, XP_WORK_BYTES // per_pair)
    parts = []
    for k0 in range(0, K, step):
        k1 = min(K, k0 + step)
        bk = _b_rows(xp, b2, k0, k1, device)
        diff = a2[k0:k1, :] - bk
        g = None
        if fused is not None:
            P = fused[0](bk, diff, t)  # (k, m)
            aP = xp.abs(P)
            ok = (aP > tiny) & (aP < huge)
            Pw = xp.where(ok, P * w, xp.zeros_like(P))
            res = fused[1](bk, diff, t, Pw, ok)  # sum_l w_l P_l / g_lj
        else:
            g = bk[:, None, :] + t[None, :, None] * diff[:, None, :]  # (k, m, d)
            P = xp.prod(g, axis=-1)  # (k, m)
            aP = xp.abs(P)
            ok = (aP > tiny) & (aP < huge)
            Pw = xp.where(ok, P * w, xp.zeros_like(P))
            gs = xp.where(ok[:, :, None], g, xp.ones_like(g))
            res = xp.matmul(Pw[:, None, :], 1.0 / gs)[:, 0, :]  # sum_l w_l P_l / g_lj
        fin = xp.all(xp.isfinite(res), axis=1)
        bad = ~ok | ~fin[:, None]
        res = xp.where(fin[:, None], res, xp.zeros_like(res))
        any_bad = bool(xp.any(bad))
        if any_bad and g is not None:
            wb = xp.where(bad, xp.broadcast_to(w, bad.shape), xp.zeros_like(P))
            res = res + xp.sum(wb[:, :, None] * _loo_log_xp(xp, g), axis=1)
        elif any_bad:
            # fused (torch) path: log space for the pairs with a node out of the safe range only
            # (rare), so that no (pairs, nodes, features) array is built for the whole chunk
            rows = xp.nonzero(xp.any(bad, axis=1))[0]
            gb = bk[rows, None, :] + t[None, :, None] * diff[rows, None, :]
            wb = xp.where(bad[rows, :], xp.broadcast_to(w, (rows.shape[0], m)), xp.zeros_like(P[rows, :]))
            res[rows, :] += xp.sum(wb[:, :, None] * _loo_log_xp(xp, gb), axis=1)
        parts.append(res * diff)
    return xp.concat(parts, axis=0) if len(parts) > 1 else parts[0]


def _interactions_xp(xp: Any, bp: Any, diff: Any, c: Any, t: Any, w: Any, limits: tuple[float, float]) -> Any:
    """``_interactions_block`` in namespace ``xp``: one point's rows -> (d, d, o), diagonal meaningless."""
    r, d = diff.shape
    m = t.shape[0]
    o = c.shape[1]
    tiny, huge = limits
    itemsize = 4 if diff.dtype == xp.float32 else 8
    step = max(1, XP_WORK_BYTES // (itemsize * m * max(d, 1)))
    acc = [xp.zeros((d, d), dtype=diff.dtype, device=device_of(diff)) for _ in range(o)]
    for r0 in range(0, r, step):
        r1 = min(r, r0 + step)
        dk, bk = diff[r0:r1, :], bp[r0:r1, :]
        g = bk[:, None, :] + t[None, :, None] * dk[:, None, :]  # (k, m, d)
        P = xp.prod(g, axis=-1)
        aP = xp.abs(P)
        gmin = xp.min(xp.abs(g), axis=-1)
        ok = (aP > tiny) & (aP < huge) & (aP < huge * gmin * gmin)
        U = dk[:, None, :] / xp.where(ok[:, :, None], g, xp.ones_like(g))
        U = xp.reshape(xp.where(ok[:, :, None], U, xp.zeros_like(U)), (-1, d))
        W = xp.where(ok, P * w, xp.zeros_like(P))
        bad = bool(xp.any(~ok))
        if bad:
            kb, lb = xp.nonzero(~ok)
            db = xp.take(dk, kb, axis=0)
            gb = xp.take(bk, kb, axis=0) + xp.take(t, lb, axis=0)[:, None] * db
            loo2 = _loo2_log_xp(xp, gb)
            wl = xp.take(w, lb, axis=0)
        for q in range(o):
            cq = c[r0:r1, q]
            Wq = xp.reshape(W * cq[:, None], (-1,))
            acc[q] = acc[q] + xp.matmul(xp.permute_dims(U * Wq[:, None], (1, 0)), U)
            if bad:
                wc = wl * xp.take(cq, kb, axis=0)
                acc[q] = acc[q] + xp.sum(db[:, :, None] * db[:, None, :] * loo2 * wc[:, None, None], axis=0)
    return xp.stack(acc, axis=-1)


def _spread_max_xp(xp: Any, a: Any, b3: Any) -> float:
    """The largest spread S = sum_j |a - b|_j / max(a, b)_j of the block's pairs (infinity when a
    factor is zero or negative), with one transfer to the host; ``b3`` broadcasts against a."""
    m = xp.minimum(a, b3)
    top = xp.maximum(a, b3)
    s = xp.max(xp.sum(xp.abs(a - b3) / xp.where(m > 0.0, top, xp.ones_like(m)), axis=-1))
    return float(xp.where(xp.min(m) > 0.0, s, xp.asarray(float("inf"), dtype=s.dtype, device=device_of(s))))


def _product_game_block_xp(
    xp: Any,
    a: Any,
    b: Any,
    c: Any,
    *,
    interactions: str | None,
    n_nodes: int | None,
    dtype: Any,
    nodes: str = "certified",
) -> tuple[Any, ...]:
    """``product_game_block`` in namespace ``xp`` and ``dtype`` on the device of ``a``."""
    dt = resolve_dtype(xp, dtype)
    device = device_of(a) if is_foreign_array(a) else None
    a = _as_xp(xp, a, dt, device)
    if a.ndim != 3:
        raise ValueError(f"a must have shape (points, rows, features), got shape {tuple(a.shape)}.")
    p, r, d = a.shape
    b = _as_xp(xp, b, dt, device)
    c = _as_xp(xp, c, dt, device)
    if c.ndim == 1:
        c = c[:, None]
    if c.ndim != 2 or c.shape[0] != r:
        raise ValueError(f"c must have shape (rows, outputs) with rows = {r}, got shape {tuple(c.shape)}.")
    for x, name in ((a, "a"), (b, "b"), (c, "c")):
        if not bool(xp.all(xp.isfinite(x))):
            raise ValueError(
                f"{name} contains NaN or infinite values; the product-game engine accepts finite numbers only."
            )
    if b.ndim > 3 or any(s not in (1, t) for s, t in zip(b.shape[::-1], (d, r, p))):
        raise ValueError(
            f"b must be a scalar or broadcastable to a's shape {tuple(a.shape)}, got shape {tuple(b.shape)}."
        )
    o = c.shape[1]
    point_free = b.ndim < 3 or b.shape[0] == 1 or p == 1
    b3 = xp.broadcast_to(b, (1 if point_free else p, r, d))
    b2 = xp.reshape(b3, (-1, d)) if not point_free else b3[0, ...]
    limits = _xp_limits(xp, dt)
    pb = xp.prod(b2, axis=-1)
    if point_free:
        v_empty = xp.broadcast_to(xp.matmul(pb[None, :], c), (p, o))
    else:
        v_empty = xp.matmul(xp.reshape(pb, (p, r)), c)
    if n_nodes is None:
        n_nodes = nodes_for_degree(d - 1)
        if nodes == "certified" and p * r > 0 and spread_limit(d) > 0.0:
            # the certified count of ``product.py`` (S in the work dtype: in float32 its rounding
            # moves the bound by a relative 1e-6, far inside float32's own accuracy)
            n_nodes = block_node_count(_spread_max_xp(xp, a, b3), d)
    tn, wn = gauss_legendre_01(n_nodes)
    t, w = _as_xp(xp, tn, dt, device), _as_xp(xp, wn, dt, device)
    a2 = xp.reshape(a, (p * r, d))
    psi = _weighted_loo_integrals_xp(xp, a2, b2, t, w, limits)
    v_full = xp.matmul(xp.reshape(xp.prod(a2, axis=-1), (p, r)), c)
    phi = xp.matmul(xp.permute_dims(xp.reshape(psi, (p, r, d)), (0, 2, 1)), c)
    if interactions is None:
        return phi, v_full, v_empty
    if d < 2:
        return phi, v_full, v_empty, xp.zeros((p, d, d, o), dtype=dt, device=device)
    t2n, w2n = interaction_rule(d, interactions)
    t2, w2 = _as_xp(xp, t2n, dt, device), _as_xp(xp, w2n, dt, device)
    off = 1.0 - xp.eye(d, dtype=dt, device=device)
    inter = []
    for pi in range(p):
        bp = b2 if point_free else b2[pi * r : (pi + 1) * r, :]
        acc = _interactions_xp(xp, bp, a2[pi * r : (pi + 1) * r, :] - bp, c, t2, w2, limits)
        acc = 0.5 * (acc + xp.permute_dims(acc, (1, 0, 2)))
        inter.append(acc * off[:, :, None])
    return phi, v_full, v_empty, xp.stack(inter, axis=0)


def _as_xp(xp: Any, x: Any, dtype: Any, device: Any) -> Any:
    """``x`` (an array of ``xp``, a numpy array or a scalar) as a ``dtype`` array of ``xp`` on ``device``."""
    if is_foreign_array(x):
        return xp.astype(x, dtype) if x.dtype != dtype else x
    return from_numpy(np.array(x, dtype=np.float64), xp, device=device, dtype=dtype)

"""The array API engine's two reductions fused for torch tensors on a GPU (``torch.compile``).

The generic path (``_product_xp._weighted_loo_integrals_xp``) materialises the factors
g[k, l, j] = b[k, j] + t_l (a - b)[k, j] of every pair k, node l and feature j, then takes their
product over j and a batched matrix product against 1 / g: about ten passes over a (pairs, nodes,
features) array in device memory, so a GPU spends its time moving bytes (measured: 13.8 s per point
at d = 200 with 4 M pairs, a few per cent of an H100's float64 rate).  Written as two reductions
that each recompute g where they need it, compiled by TorchInductor, no (pairs, nodes, features)
array exists: the work reads (pairs, features) and (pairs, nodes) arrays only.  The numbers are
those of the generic path up to rounding (a sequential product and division instead of a tree
product and multiplication by a reciprocal: a few ulps).

For torch tensors on a CUDA device ``KEXPLAIN_GPU_KERNELS`` picks the path: "compile" (default,
these reductions through ``torch.compile``) or "generic" (the array API path).  The first call of a
process compiles (seconds to a minute), later calls of any size reuse the compiled kernels (dynamic
shapes).  Everything else of the engine (the log-space fallback of the pairs whose products leave
the safe range, interactions) stays on the generic path.

Tiled Triton kernels that keep (pairs x nodes) and (pairs x features) tiles in registers were
tried on an H200: 0.8x-1.1x of these compiled reductions in float64 (1.1x-1.25x in float32), and
one of their engine-level checks failed on the device (cause not investigated), so they were not
kept.
"""

from __future__ import annotations

import os
from typing import Any

#: environment variable choosing the GPU kernels, and its accepted values
KERNELS_ENV = "KEXPLAIN_GPU_KERNELS"
KERNEL_CHOICES = ("compile", "generic")

_COMPILED: dict[str, tuple[Any, Any]] = {}


def node_products(b: Any, diff: Any, t: Any) -> Any:
    """prod_j (b[k, j] + t_l diff[k, j]) for every pair k and node l: shape (pairs, nodes)."""
    g = b[:, None, :] + t[None, :, None] * diff[:, None, :]
    return g.prod(dim=-1)


def weighted_inverse_sums(b: Any, diff: Any, t: Any, Pw: Any, ok: Any) -> Any:
    """sum_l Pw[k, l] / g[k, l, j] over the nodes where ``ok``: shape (pairs, features).

    Where a node is not ``ok`` its weight Pw is 0 and the divisor is replaced by 1 (its factors may
    be 0): the same rule as the generic path."""
    import torch

    g = b[:, None, :] + t[None, :, None] * diff[:, None, :]
    g = torch.where(ok[:, :, None], g, torch.ones_like(g))
    return (Pw[:, :, None] / g).sum(dim=1)


def fused_kernels(x: Any, *, compiled: bool = True) -> tuple[Any, Any] | None:
    """The pair (node_products, weighted_inverse_sums) for tensor ``x``, or None for the generic path.

    None unless ``x`` is a torch tensor on a CUDA device; then ``KEXPLAIN_GPU_KERNELS`` decides
    (module docstring).  ``compiled=False`` (tests) returns the eager functions for any torch tensor."""
    if type(x).__module__.split(".")[0] != "torch":
        return None
    if not compiled:
        return node_products, weighted_inverse_sums
    choice = os.environ.get(KERNELS_ENV, "compile").strip().lower() or "compile"
    if choice not in KERNEL_CHOICES:
        raise ValueError(f"the environment variable {KERNELS_ENV} must be one of {KERNEL_CHOICES}, got {choice!r}.")
    if choice == "generic" or x.device.type != "cuda":
        return None
    return compiled_kernels()


def compiled_kernels() -> tuple[Any, Any]:
    """The two reductions compiled once per process (dynamic shapes: no recompilation per size)."""
    if "pair" not in _COMPILED:
        import torch

        _COMPILED["pair"] = (
            torch.compile(node_products, dynamic=True),
            torch.compile(weighted_inverse_sums, dynamic=True),
        )
    return _COMPILED["pair"]

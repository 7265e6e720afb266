"""A compiled exp over an array that LLVM's loop vectoriser packs into vector registers.

numba compiles ``np.exp`` on a scalar to a call into the C library's ``exp``, which no vectoriser
can pack: at d = 20 those calls were half of the statistics' per-pair work.  ``exp_into``
evaluates exp by the textbook reduction instead, with no calls and no branches in its main loop
(so the loop vectoriser runs it four lanes at a time):

    n = round(x / ln 2),  r = x - n ln2_hi - n ln2_lo  (|r| <= ln 2 / 2, the first product exact),
    exp(r) = 1 + (r + r^2 P(r)),  P the Taylor polynomial of degree 11 (terms to r^13 / 13!),
    exp(x) = 2^n exp(r),  2^n built from the exponent bits (``_bits``/``_double``).

The truncation error is below 0.05 ulp and the final ``1 + (...)`` is the one rounding of size,
so the result is within 1 ulp of the C library's ``exp`` (tested against ``np.exp`` on the
whole range).  Inputs outside [-708, 709] (subnormal and overflowing results, NaN) are recomputed
by ``np.exp`` afterwards, so they equal the C library's values.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic


@intrinsic
def _bits(typingctx, x):
    """The IEEE bits of a float64 as an int64 (a bitcast: no conversion)."""

    def codegen(context, builder, sig, args):
        return builder.bitcast(args[0], ir.IntType(64))

    return types.int64(types.float64), codegen


@intrinsic
def _double(typingctx, b):
    """The float64 whose IEEE bits are the int64 ``b``."""

    def codegen(context, builder, sig, args):
        return builder.bitcast(args[0], ir.DoubleType())

    return types.float64(types.int64), codegen


_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01  # trailing zero bits: n * _LN2_HI is exact for |n| < 2^11
_LN2_LO = 1.90821492927058770002e-10
_SHIFT = 6755399441055744.0  # 1.5 * 2^52: x + _SHIFT rounds x to an integer held in the low bits
_SHIFT_BITS = int(np.array(_SHIFT).view(np.int64))
_LO, _HI = -708.0, 709.0  # the main loop's range: normal, finite results


@njit(cache=True, nogil=True)
def _exp_compiled(z, out):  # pragma: no cover - compiled; tested via tests/test_stats_scale.py
    """out[:] = exp(z[:]) for float64 vectors (within 1 ulp of ``np.exp``); ``out`` is not ``z``."""
    n = z.shape[0]
    outside = False
    for q in range(n):
        v = z[q]
        outside |= not (v >= _LO and v <= _HI)
        v = min(max(v, _LO), _HI)  # NaN -> _HI (fixed below with the other outliers)
        k = v * _LOG2E + _SHIFT
        nf = k - _SHIFT
        r = (v - nf * _LN2_HI) - nf * _LN2_LO
        # P(r) = sum_k r^k / (k + 2)!, k = 0..11, by Estrin's scheme: a short dependency chain
        # (Horner's twelve dependent steps left the loop waiting on latency, not throughput)
        r2 = r * r
        r4 = r2 * r2
        q0 = 1.0 / 2.0 + r * (1.0 / 6.0)
        q1 = 1.0 / 24.0 + r * (1.0 / 120.0)
        q2 = 1.0 / 720.0 + r * (1.0 / 5040.0)
        q3 = 1.0 / 40320.0 + r * (1.0 / 362880.0)
        q4 = 1.0 / 3628800.0 + r * (1.0 / 39916800.0)
        q5 = 1.0 / 479001600.0 + r * (1.0 / 6227020800.0)
        s0 = q0 + r2 * q1
        s1 = q2 + r2 * q3
        s2 = q4 + r2 * q5
        p = s0 + r4 * (s1 + r4 * s2)
        e = 1.0 + (r + r2 * p)
        # 2^n: k's low bits hold n (plus _SHIFT's bits); shifted into the exponent field, biased
        scale = _double((_bits(k) - _SHIFT_BITS + 1023) << 52)
        out[q] = e * scale
    if outside:
        # rare: the entries outside the range (or NaN) from the C library
        for q in range(n):
            v = z[q]
            if not (v >= _LO and v <= _HI):
                out[q] = np.exp(v)


def _exp_numpy(z: np.ndarray, out: np.ndarray) -> None:
    """out[:] = exp(z[:]) by numpy: the stand-in under NUMBA_DISABLE_JIT, where the intrinsics
    above cannot run in Python."""
    out[:] = np.exp(z)


#: what the compiled kernels call (``_exp_numpy`` without the JIT)
exp_into: Any = _exp_compiled if hasattr(_exp_compiled, "compile") else _exp_numpy

"""A vectorised float64 exponential for kernel factors (numba is optional): one for the package.

Used by the kernels' per-feature factors (``kexplain.kernels.stationary``: :func:`stationary_factors`
and :func:`exp_inplace`) and by the statistics' pair factors (``kexplain.stats._pairs_numba``:
:func:`exp_into`).

numpy's float64 ``exp`` runs one libm call per element on a machine without AVX-512 (about
23 ns each on the AVX2 EPYC this was written on), and numba calls the same libm function: LLVM
vectorises neither (numba has no vector math library unless SVML is installed).  The per-feature
factors exp(-(x_j - z_ij)^2 / (2 l_j^2)) of a product-kernel explanation are one exponential per
(point, support vector, feature), so at d = 20 they were about half of a call.

``_exp_ir`` is the whole exponential written as LLVM ``<4 x double>`` operations (no call), for
one or two vectors at once so that their dependency chains interleave (four spilled registers to
the stack and ran slower):

- range reduction x = n ln2 + r with n = rint(x / ln2) (one fused multiply-add against the
  1.5 * 2^52 shifter, which also leaves n in the shifter's low bits as an integer) and the
  Cody-Waite split of ln2 (fdlibm's ``ln2HI``, whose product with any |n| <= 1100 is exact,
  plus ``ln2LO``), so |r| <= ln2 / 2 up to rounding; r's own rounding error is kept (r_lo);
- exp(r) = (1 + r) + (r_lo + r^2 Q(r)) with Q the Taylor polynomial 1/2! + r/3! + ... + r^11/13!
  (truncation below 4.5e-18 relative at |r| = ln2 / 2) by Estrin's scheme, and 1 + r split
  exactly into s + t (Fast2Sum), so the last addition is the one rounding that matters;
- scaling by 2^n: ``_exp_vectors`` checks the lanes of its vectors (one branch per step, taken
  the same way nearly always).  When every x is in [-707, 709] (NaN is not) the result is normal
  and n <= 1023, so n << 52 is added to y's bits (the short path: no clamp, no multiplication).
  Otherwise through the exponent bits as two exact halves 2^(n - n//2) * 2^(n//2), so that
  results near the bottom of the range round once into the subnormals and 2^1024 needs no
  special case: x is clamped to [-746, 710] first, and exp(-746) rounds to 0 and exp(710)
  overflows to inf as they should (-inf gives 0, +inf gives inf); NaN stays NaN through every
  step (the clamps compare ordered; no integer conversion, only bit casts).  Both scalings are
  exact where the short path runs, so the two paths give the same numbers bit for bit.

Accuracy (tests/test_kernels_exp.py): within 0.72 ulp of mpmath (numpy's libm: 0.50), and on
10^7 uniform arguments in [-745, 0] at most 1 ulp from numpy's exp, 1.7% of them by 1 ulp.
Speed on the AVX2 EPYC (znver1, 128-bit FP units; CPU time, one run, load about 10): about 3.9 ns
per result (4.7 without the short path and with four vectors per step) against numpy's 7.8 ns.
Per result the short path still issues 16 fused multiply-adds and 3 multiplications (each two
128-bit operations on znver1), which bounds it near 2.5 ns whatever the scheduling; a faster
method (a table of 2^(j/N) and a shorter polynomial) would change results by up to 1 ulp.
The factor pass (``stationary_factors``: argument and exponential in registers, eight features
at a time) takes 4.7 ns per factor at d = 20 (6.5 ns in the same run when the argument was a
scalar loop into memory; numpy's five passes 12.2 ns); the rest over the exponential is mostly
the division.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

_V = ir.VectorType(ir.DoubleType(), 4)
_I = ir.VectorType(ir.IntType(64), 4)

_LOG2E = 1.4426950408889634
_SHIFTER = 6755399441055744.0  # 1.5 * 2^52: x + shifter rounds x to an integer, kept in the low bits
_LN2_HI = 6.93147180369123816490e-01  # fdlibm's ln2HI: 32 trailing zero bits
_LN2_LO = 1.90821492927058770002e-10
# 1/k! for k = 13 down to 2 (Horner order)
# the short path's range: for x in [-707, 709], n = rint(x / ln2) is in [-1020, 1023] and
# y = exp(r) in [0.70, 1.42], so y 2^n is normal (>= 0.70 * 2^-1020) and finite: neither the clamps
# nor the two-step scaling are needed
_FAST_LO, _FAST_HI = -707.0, 709.0
_Q = [1.0 / float(np.prod(np.arange(1, k + 1, dtype=np.float64))) for k in range(13, 1, -1)]


def _splat(value: float) -> ir.Constant:
    return ir.Constant(_V, [float(value)] * 4)


def _exp_ir(builder: ir.IRBuilder, xs: list[ir.Value], in_range: bool = False) -> list[ir.Value]:
    """LLVM IR for exp of the lanes of each vector in ``xs`` (see the module docstring).

    Every step is emitted for all vectors before the next, so independent vectors interleave:
    one vector's exponential is a chain of about 12 dependent operations (5 cycles each on
    znver1), which a loop taking one vector per iteration leaves mostly waiting.

    ``in_range``: the caller has checked every lane lies in [_FAST_LO, _FAST_HI] (so no NaN), where
    the clamps do nothing and y 2^n is normal: the scaling is then one integer addition of n to
    y's exponent bits instead of two multiplications, the same number (both are exact there).
    """
    fma_fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(_V, [_V, _V, _V]), "llvm.fma.v4f64")

    def each(f, *cols):
        return [f(*args) for args in zip(*cols)]

    def fma(a, b, c):
        return each(lambda x, y, z: builder.call(fma_fn, [x, y, z]), a, b, c)

    k = len(xs)

    def c(v):
        return [_splat(v)] * k

    xc = xs
    if not in_range:
        lo, hi = _splat(-746.0), _splat(710.0)
        xc = each(lambda x: builder.select(builder.fcmp_ordered("<", x, lo), lo, x), xc)
        xc = each(lambda x: builder.select(builder.fcmp_ordered(">", x, hi), hi, x), xc)
    kd = fma(xc, c(_LOG2E), c(_SHIFTER))
    n = each(lambda v: builder.fsub(v, _splat(_SHIFTER)), kd)
    r_hi = fma(n, c(-_LN2_HI), xc)  # exact: n ln2HI is exact and close to x
    r = fma(n, c(-_LN2_LO), r_hi)
    # r's rounding error, kept: r_hi - r is exact (Sterbenz) and the fma leaves what it lost
    r_lo = fma(n, c(-_LN2_LO), each(builder.fsub, r_hi, r))
    r2 = each(builder.fmul, r, r)
    # Q(r) by Estrin's scheme (depth 4 instead of Horner's 11; Q enters the result times r^2 <= 0.13)
    terms = [fma(c(_Q[i]), r, c(_Q[i + 1])) for i in range(0, 12, 2)]  # q_hi r + q_lo, highest first
    r4 = each(builder.fmul, r2, r2)
    pairs = [fma(terms[i], r2, terms[i + 1]) for i in range(0, 6, 2)]
    r8 = each(builder.fmul, r4, r4)
    q = fma(pairs[0], r8, fma(pairs[1], r4, pairs[2]))
    # 1 + r as a sum s + t without error (Fast2Sum, |1| >= |r|), so the final addition is the
    # one rounding of note: y = s + (t + r_lo + r^2 Q)
    one = _splat(1.0)
    s = each(lambda v: builder.fadd(one, v), r)
    t = each(lambda sv, rv: builder.fsub(rv, builder.fsub(sv, one)), s, r)
    w = fma(r2, q, each(builder.fadd, t, r_lo))
    y = each(builder.fadd, s, w)
    shift = ir.Constant(_I, [52] * 4)
    if in_range:
        # the shifter's low mantissa bits hold 2^51 + n: shifted up by 52 only n << 52 is left
        # (mod 2^64), added to y's biased exponent (y in [0.7, 1.42], y 2^n normal: no carry out)
        return each(
            lambda yv, kv: builder.bitcast(
                builder.add(builder.bitcast(yv, _I), builder.shl(builder.bitcast(kv, _I), shift)), _V
            ),
            y,
            kd,
        )
    shifter = builder.bitcast(_splat(_SHIFTER), _I)
    bias = ir.Constant(_I, [1023] * 4)

    def scale(yv, kv):
        ni = builder.sub(builder.bitcast(kv, _I), shifter)
        n1 = builder.ashr(ni, ir.Constant(_I, [1] * 4))
        s1 = builder.bitcast(builder.shl(builder.add(n1, bias), shift), _V)
        s2 = builder.bitcast(builder.shl(builder.add(builder.sub(ni, n1), bias), shift), _V)
        # a NaN argument went through every step as NaN (no integer conversion, only bit casts)
        return builder.fmul(builder.fmul(yv, s1), s2)

    return each(scale, y, kd)


def _exp_vectors(builder: ir.IRBuilder, xs: list[ir.Value], nonpositive: bool = False) -> list[ir.Value]:
    """exp of the vectors ``xs``: the short path when all their lanes are in range (nearly always
    for kernel factors), else the clamped one; the same numbers either way.

    ``nonpositive``: every lane is known to be <= 0 or NaN (a kernel factor's -u^2 / 2 or -|u|),
    so only the lower end of the range is compared.
    """
    lo, hi = _splat(_FAST_LO), _splat(_FAST_HI)
    ok = None
    for x in xs:
        # ordered compares: a NaN lane fails and takes the general path
        lane = builder.fcmp_ordered(">=", x, lo)
        if not nonpositive:
            lane = builder.and_(lane, builder.fcmp_ordered("<=", x, hi))
        ok = lane if ok is None else builder.and_(ok, lane)
    all_ok = builder.icmp_unsigned("==", builder.bitcast(ok, ir.IntType(4)), ir.Constant(ir.IntType(4), 15))
    with builder.if_else(all_ok, likely=True) as (then, otherwise):
        with then:
            fast = _exp_ir(builder, xs, in_range=True)
            fast_block = builder.block
        with otherwise:
            slow = _exp_ir(builder, xs)
            slow_block = builder.block
    out = []
    for f, g in zip(fast, slow):
        phi = builder.phi(_V)
        phi.add_incoming(f, fast_block)
        phi.add_incoming(g, slow_block)
        out.append(phi)
    return out


def _vector_pointers(builder: ir.IRBuilder, data: ir.Value, idx: ir.Value, nvec: int) -> list[ir.Value]:
    """Pointers to the ``nvec`` consecutive ``<4 x double>`` starting at element ``idx`` of ``data``."""
    return [
        builder.bitcast(builder.gep(data, [builder.add(idx, ir.Constant(idx.type, 4 * v))]), _V.as_pointer())
        for v in range(nvec)
    ]


def _exp_intrinsic(nvec: int):
    """An intrinsic setting arr.flat[i : i + 4 nvec] = exp(arr.flat[i : i + 4 nvec]) (float64
    C-contiguous; not bounds-checked)."""

    @intrinsic
    def expn(typingctx, arr, i):
        def codegen(context, builder, sig, args):
            data = context.make_array(sig.args[0])(context, builder, args[0]).data
            idx = context.cast(builder, args[1], sig.args[1], types.intp)
            ptrs = _vector_pointers(builder, data, idx, nvec)
            ys = _exp_vectors(builder, [builder.load(p, align=8) for p in ptrs])
            for p, y in zip(ptrs, ys):
                builder.store(y, p, align=8)
            return context.get_dummy_value()

        return types.none(arr, i), codegen

    return expn


# two vectors per step: measured faster than four (whose 16 ymm live values spill to the stack) and
# than one, on znver1
_exp8 = _exp_intrinsic(2)
_exp4 = _exp_intrinsic(1)


@njit(cache=True, nogil=True)
def exp_inplace(x):  # pragma: no cover - compiled; tested in tests/test_kernels_exp.py
    """x <- exp(x) for a flat float64 array, 8 at a time, then 4 (the last n mod 4 through a padded buffer)."""
    n = x.shape[0]
    n8 = n - n % 8
    for i in range(0, n8, 8):
        _exp8(x, i)
    n4 = n - n % 4
    for i in range(n8, n4, 4):
        _exp4(x, i)
    if n4 < n:
        tail = np.zeros(4)
        for i in range(n4, n):
            tail[i - n4] = x[i]
        _exp4(tail, 0)
        for i in range(n4, n):
            x[i] = tail[i - n4]


def _factor_intrinsic(laplacian: bool, nvec: int):
    """An intrinsic setting out.flat[o : o + m] (m = 4 nvec) to the factors of x.flat[i : i + m]
    against y.flat[k : k + m] with lengthscales ls.flat[i_ls : i_ls + m] (float64 C-contiguous;
    not bounds-checked): the argument's numpy operations lane by lane (IEEE, so the same numbers
    as ``_profile_inplace``), then ``_exp_vectors`` on the registers, without a pass through memory."""

    @intrinsic
    def factors(typingctx, x, i, y, k, ls, i_ls, out, o):
        def codegen(context, builder, sig, args):
            def vec_ptrs(pos):
                data = context.make_array(sig.args[pos])(context, builder, args[pos]).data
                idx = context.cast(builder, args[pos + 1], sig.args[pos + 1], types.intp)
                return _vector_pointers(builder, data, idx, nvec)

            zs = []
            for xp, yp, lp in zip(*(vec_ptrs(pos) for pos in (0, 2, 4))):
                xv, yv, lv = (builder.load(p, align=8) for p in (xp, yp, lp))
                u = builder.fdiv(builder.fsub(xv, yv), lv)
                if laplacian:
                    fabs = cgutils.get_or_insert_function(builder.module, ir.FunctionType(_V, [_V]), "llvm.fabs.v4f64")
                    zs.append(builder.fneg(builder.call(fabs, [u])))
                else:
                    zs.append(builder.fmul(builder.fmul(u, u), _splat(-0.5)))
            for p, ev in zip(vec_ptrs(6), _exp_vectors(builder, zs, nonpositive=True)):
                builder.store(ev, p, align=8)
            return context.get_dummy_value()

        return types.none(x, i, y, k, ls, i_ls, out, o), codegen

    return factors


_rbf4, _rbf8 = _factor_intrinsic(False, 1), _factor_intrinsic(False, 2)
_laplacian4, _laplacian8 = _factor_intrinsic(True, 1), _factor_intrinsic(True, 2)


@njit(cache=True, nogil=True)
def stationary_factors(X, Y, ls, laplacian, out):  # pragma: no cover - compiled; tested via kernels/stationary.py
    """out[p, r, j] = exp(-0.5 u^2) (RBF) or exp(-|u|) (``laplacian``) with u = (X[p, j] - Y[r, j]) / ls[j].

    The argument takes numpy's operations in numpy's order (``_profile_inplace``), so it is the
    same number bit for bit; only the exponential is ``_exp_ir``'s.  Eight features at a time,
    then four, go from the inputs to ``out`` in registers (``_rbf8`` / ``_rbf4`` and the
    Laplacian's: LLVM left this loop scalar, its division included; two vectors per step were
    measured faster than one, three or four); the last d mod 4 features of each row take the
    argument here and one ``exp_inplace`` per point over a buffer.  X, Y, ls and ``out`` are
    C-contiguous.
    """
    P, d = X.shape
    R = Y.shape[0]
    d4 = d - d % 4
    d8 = d - d % 8
    xf = X.reshape(P * d)
    yf = Y.reshape(R * d)
    flat = out.reshape(P * R * d)
    tail = np.empty(R * (d - d4))
    for p in range(P):
        xo = p * d
        for r in range(R):
            o = (p * R + r) * d
            yo = r * d
            for j in range(0, d8, 8):
                if laplacian:
                    _laplacian8(xf, xo + j, yf, yo + j, ls, j, flat, o + j)
                else:
                    _rbf8(xf, xo + j, yf, yo + j, ls, j, flat, o + j)
            if d8 < d4:
                if laplacian:
                    _laplacian4(xf, xo + d8, yf, yo + d8, ls, d8, flat, o + d8)
                else:
                    _rbf4(xf, xo + d8, yf, yo + d8, ls, d8, flat, o + d8)
            for j in range(d4, d):
                u = (xf[xo + j] - yf[yo + j]) / ls[j]
                tail[r * (d - d4) + j - d4] = -abs(u) if laplacian else (u * u) * -0.5
        if d4 < d:
            exp_inplace(tail)
            for r in range(R):
                o = (p * R + r) * d
                for j in range(d4, d):
                    flat[o + j] = tail[r * (d - d4) + j - d4]


@njit(cache=True, nogil=True)
def stationary_factors_lanes(xs, ys, ls, laplacian, out):  # pragma: no cover - compiled; tested via shapley/product.py
    """out[i] = exp(-0.5 u^2) (RBF) or exp(-|u|) (``laplacian``) with u = (xs[i] - ys[i]) / ls[i mod n]
    for n = len(ls) and every i < len(ys) (len(ys) a multiple of 4 and of n; len(xs) = n).

    The lanes of :func:`stationary_factors` (the same operations, so the same numbers bit for bit)
    in a caller's layout: the product engine's fused functional pass gives its (feature, pair)
    blocks, ``xs`` and ``ls`` spread over the 4 pairs of a block and ``ys`` the support points
    transposed block by block, so the factors land where its node passes read them.
    """
    n = ls.shape[0]
    N = ys.shape[0]
    n8 = n - n % 8
    for o in range(0, N, n):
        for j in range(0, n8, 8):
            if laplacian:
                _laplacian8(xs, j, ys, o + j, ls, j, out, o + j)
            else:
                _rbf8(xs, j, ys, o + j, ls, j, out, o + j)
        for j in range(n8, n, 4):
            if laplacian:
                _laplacian4(xs, j, ys, o + j, ls, j, out, o + j)
            else:
                _rbf4(xs, j, ys, o + j, ls, j, out, o + j)


@njit(cache=True, nogil=True)
def exp_into(z, out):  # pragma: no cover - compiled; tested in tests/test_kernels_exp.py
    """out[:] = exp(z[:]) for float64 vectors (``out`` is not ``z``; both unit-stride)."""
    for q in range(z.shape[0]):
        out[q] = z[q]
    exp_inplace(out)


if not hasattr(exp_inplace, "compile"):  # pragma: no cover - NUMBA_DISABLE_JIT
    # with the JIT disabled the LLVM intrinsics cannot run in Python: numpy's exp stands in (the
    # compiled callers above then run as Python and call these)

    def exp_inplace(x: np.ndarray) -> None:  # type: ignore[misc]
        """x <- exp(x) by numpy (NUMBA_DISABLE_JIT)."""
        np.exp(x, out=x)

    def exp_into(z: np.ndarray, out: np.ndarray) -> None:  # type: ignore[misc]
        """out[:] = exp(z[:]) by numpy (NUMBA_DISABLE_JIT)."""
        out[:] = np.exp(z)

    def stationary_factors_lanes(  # type: ignore[misc]
        xs: np.ndarray, ys: np.ndarray, ls: np.ndarray, laplacian: bool, out: np.ndarray
    ) -> None:
        """The lanes' factors by numpy (NUMBA_DISABLE_JIT)."""
        u = (np.resize(xs, ys.shape[0]) - ys) / np.resize(ls, ys.shape[0])
        out[: ys.shape[0]] = np.exp(np.negative(np.abs(u)) if laplacian else (u * u) * -0.5)

    def stationary_factors(X: np.ndarray, Y: np.ndarray, ls: np.ndarray, laplacian: bool, out: np.ndarray) -> None:  # type: ignore[misc]
        """The factors by numpy's passes and exp (NUMBA_DISABLE_JIT: the fused intrinsics cannot run)."""
        u = (X[:, None, :] - Y[None, :, :]) / ls
        out[...] = np.negative(np.abs(u)) if laplacian else (u * u) * -0.5
        np.exp(out, out=out)

"""Four-double vectors for numba kernels whose lanes must stay in registers.

numba runs LLVM's loop vectoriser but not its SLP vectoriser, so a kernel that carries a few
independent running products from one iteration of an outer loop to the next (the quadrature
kernel's prefix and suffix products over a block of nodes) either runs them as scalars or keeps
them in memory, a load and a store per step.  These intrinsics give such a kernel an LLVM
``<4 x double>`` value type: its locals are SSA values, so they live in vector registers.

``vadd`` and ``vmul`` emit plain IEEE operations (no contraction into fused multiply-adds);
``vfma`` is the one fused operation, rounded once, and a kernel uses it where it wants that
(the quadrature kernel's factors and accumulations).  Loads and stores address an array's
data (or a pointer from ``vdata``) by a flat element index (C order) and are not bounds-checked:
callers own that.
``vall_abs_gt`` is the one test: whether every lane's magnitude exceeds a bound (one compare
and a mask check, so a kernel can keep the usual case in registers and branch out for the rare).
``vload_t4`` and ``vstore_t4`` load and store a 4 x 4 block transposed, so that a kernel working
one pair per lane can read and write its pairs' rows contiguously (eight 128-bit loads and a
transpose in registers instead of sixteen scalar loads and stores).
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, models, register_model

_V = ir.VectorType(ir.DoubleType(), 4)


class Vec4(types.Type):
    """numba type of four float64 lanes (an LLVM ``<4 x double>``)."""

    def __init__(self):
        super().__init__(name="Vec4f64")


vec4 = Vec4()


@register_model(Vec4)
class _Vec4Model(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, _V)


def _data(context, builder, arytype, ary):
    if isinstance(arytype, types.CPointer):
        return ary
    return context.make_array(arytype)(context, builder, ary).data


def _ptr(context, builder, arytype, ary, idx, idxtype):
    data = _data(context, builder, arytype, ary)
    i = context.cast(builder, idx, idxtype, types.intp)
    return builder.bitcast(builder.gep(data, [i]), _V.as_pointer())


@intrinsic
def vdata(typingctx, arr):
    """arr's data pointer (float64, C order), for helpers inlined into a loop: numba increments
    and decrements the reference count of every array an inlined function takes (atomic
    operations and a call each, with the vector registers saved around it), which at a few
    hundred operations per call is what the call costs; a pointer has no count.  The caller
    keeps the array alive (uses it after the helper) and in bounds."""

    def codegen(context, builder, sig, args):
        return _data(context, builder, sig.args[0], args[0])

    return types.CPointer(types.float64)(arr), codegen


@intrinsic
def pget(typingctx, ptr, i):
    """ptr[i] (a float64) of a pointer from ``vdata``."""

    def codegen(context, builder, sig, args):
        return builder.load(builder.gep(args[0], [context.cast(builder, args[1], sig.args[1], types.intp)]))

    return types.float64(ptr, i), codegen


@intrinsic
def vkeep(typingctx, p, x, w):
    """Lane-wise w where |p| > x, else 0 (a NaN lane of p gives 0): a node's weight where its
    full product is safely normal."""

    def codegen(context, builder, sig, args):
        fabs = cgutils.get_or_insert_function(builder.module, ir.FunctionType(_V, [_V]), "llvm.fabs.v4f64")
        xv = vsplat_ir(context, builder, args[1], sig.args[1])
        wv = vsplat_ir(context, builder, args[2], sig.args[2])
        gt = builder.fcmp_ordered(">", builder.call(fabs, [args[0]]), xv)
        return builder.select(gt, wv, ir.Constant(_V, 0.0))

    return vec4(vec4, x, w), codegen


def vsplat_ir(context, builder, x, xtype):
    xf = context.cast(builder, x, xtype, types.float64)
    v = builder.insert_element(ir.Constant(_V, ir.Undefined), xf, ir.Constant(ir.IntType(32), 0))
    return builder.shuffle_vector(
        v, ir.Constant(_V, ir.Undefined), ir.Constant(ir.VectorType(ir.IntType(32), 4), [0] * 4)
    )


@intrinsic
def vload(typingctx, arr, i):
    """Lanes arr.flat[i : i + 4] (float64 C-contiguous array)."""

    def codegen(context, builder, sig, args):
        return builder.load(_ptr(context, builder, sig.args[0], args[0], args[1], sig.args[1]), align=8)

    return vec4(arr, i), codegen


@intrinsic
def vstore(typingctx, arr, i, v):
    """arr.flat[i : i + 4] = v's lanes."""

    def codegen(context, builder, sig, args):
        builder.store(args[2], _ptr(context, builder, sig.args[0], args[0], args[1], sig.args[1]), align=8)
        return context.get_dummy_value()

    return types.none(arr, i, v), codegen


@intrinsic
def vsplat(typingctx, x):
    """x in every lane."""

    def codegen(context, builder, sig, args):
        xf = context.cast(builder, args[0], sig.args[0], types.float64)
        v = builder.insert_element(ir.Constant(_V, ir.Undefined), xf, ir.Constant(ir.IntType(32), 0))
        lanes0 = ir.Constant(ir.VectorType(ir.IntType(32), 4), [0] * 4)
        return builder.shuffle_vector(v, ir.Constant(_V, ir.Undefined), lanes0)

    return vec4(x), codegen


@intrinsic
def vset(typingctx, x0, x1, x2, x3):
    """The vector (x0, x1, x2, x3), built in registers (one vector store then, not four scalar
    ones: a vector load of four scalar stores cannot be forwarded from the store buffer)."""

    def codegen(context, builder, sig, args):
        v = ir.Constant(_V, ir.Undefined)
        for q in range(4):
            xf = context.cast(builder, args[q], sig.args[q], types.float64)
            v = builder.insert_element(v, xf, ir.Constant(ir.IntType(32), q))
        return v

    return vec4(x0, x1, x2, x3), codegen


@intrinsic
def vadd(typingctx, a, b):
    """Lane-wise a + b."""

    def codegen(context, builder, sig, args):
        return builder.fadd(args[0], args[1])

    return vec4(vec4, vec4), codegen


@intrinsic
def vsub(typingctx, a, b):
    """Lane-wise a - b."""

    def codegen(context, builder, sig, args):
        return builder.fsub(args[0], args[1])

    return vec4(vec4, vec4), codegen


@intrinsic
def vmax_abs(typingctx, m, x):
    """Lane-wise |x| where |x| > m, else m (a NaN lane of x leaves m: as ``abs(x) > m`` is false)."""

    def codegen(context, builder, sig, args):
        fabs = cgutils.get_or_insert_function(builder.module, ir.FunctionType(_V, [_V]), "llvm.fabs.v4f64")
        ax = builder.call(fabs, [args[1]])
        return builder.select(builder.fcmp_ordered(">", ax, args[0]), ax, args[0])

    return vec4(vec4, vec4), codegen


@intrinsic
def vmin(typingctx, m, x):
    """Lane-wise x where x < m, else m (a NaN lane of x leaves m: as ``min(m, x)`` in numba)."""

    def codegen(context, builder, sig, args):
        return builder.select(builder.fcmp_ordered("<", args[1], args[0]), args[1], args[0])

    return vec4(vec4, vec4), codegen


_V2 = ir.VectorType(ir.DoubleType(), 2)


def _lanes(*idx):
    return ir.Constant(ir.VectorType(ir.IntType(32), len(idx)), list(idx))


def _half_ptr(context, builder, sig_arr, ary, idx, sig_idx, off):
    data = _data(context, builder, sig_arr, ary)
    i = builder.add(context.cast(builder, idx, sig_idx, types.intp), ir.Constant(ir.IntType(64), off))
    return builder.bitcast(builder.gep(data, [i]), _V2.as_pointer())


@intrinsic
def vload_t4(typingctx, arr, i0, i1, i2, i3):
    """The columns (c0, c1, c2, c3) of the 4 x 4 block whose row q is arr.flat[i_q : i_q + 4]
    (lane q of c_i is arr.flat[i_q + i]): a transpose of four loads, but built from 128-bit
    loads and inserts, which on AMD Zen 1 cost far less than the 256-bit lane permutes that
    transposing whole vectors takes."""

    def codegen(context, builder, sig, args):
        arr, idx = args[0], args[1:]
        lo = [
            builder.load(_half_ptr(context, builder, sig.args[0], arr, idx[q], sig.args[1 + q], 0), align=8)
            for q in range(4)
        ]
        hi = [
            builder.load(_half_ptr(context, builder, sig.args[0], arr, idx[q], sig.args[1 + q], 2), align=8)
            for q in range(4)
        ]
        t0 = builder.shuffle_vector(lo[0], lo[2], _lanes(0, 1, 2, 3))  # rows 0, 2: features 0, 1
        t1 = builder.shuffle_vector(lo[1], lo[3], _lanes(0, 1, 2, 3))
        t2 = builder.shuffle_vector(hi[0], hi[2], _lanes(0, 1, 2, 3))  # rows 0, 2: features 2, 3
        t3 = builder.shuffle_vector(hi[1], hi[3], _lanes(0, 1, 2, 3))
        cols = [
            builder.shuffle_vector(t0, t1, _lanes(0, 4, 2, 6)),
            builder.shuffle_vector(t0, t1, _lanes(1, 5, 3, 7)),
            builder.shuffle_vector(t2, t3, _lanes(0, 4, 2, 6)),
            builder.shuffle_vector(t2, t3, _lanes(1, 5, 3, 7)),
        ]
        return context.make_tuple(builder, sig.return_type, cols)

    return types.UniTuple(vec4, 4)(arr, i0, i1, i2, i3), codegen


@intrinsic
def vstore_t4(typingctx, arr, i0, i1, i2, i3, c0, c1, c2, c3):
    """arr.flat[i_q + i] = lane q of c_i for q, i < 4: the inverse of ``vload_t4`` (in-lane
    unpacks and 128-bit stores)."""

    def codegen(context, builder, sig, args):
        arr, idx, c = args[0], args[1:5], args[5:]
        u0 = builder.shuffle_vector(c[0], c[1], _lanes(0, 4, 2, 6))  # rows 0, 2: features 0, 1
        u1 = builder.shuffle_vector(c[0], c[1], _lanes(1, 5, 3, 7))  # rows 1, 3: features 0, 1
        u2 = builder.shuffle_vector(c[2], c[3], _lanes(0, 4, 2, 6))  # rows 0, 2: features 2, 3
        u3 = builder.shuffle_vector(c[2], c[3], _lanes(1, 5, 3, 7))
        undef = ir.Constant(_V, ir.Undefined)
        for q, (u_lo, u_hi, half) in enumerate([(u0, u2, 0), (u1, u3, 0), (u0, u2, 1), (u1, u3, 1)]):
            sel = _lanes(2 * half, 2 * half + 1)
            for vec, off in ((u_lo, 0), (u_hi, 2)):
                ptr = _half_ptr(context, builder, sig.args[0], arr, idx[q], sig.args[1 + q], off)
                builder.store(builder.shuffle_vector(vec, undef, sel), ptr, align=8)
        return context.get_dummy_value()

    return types.none(arr, i0, i1, i2, i3, vec4, vec4, vec4, vec4), codegen


@intrinsic
def vmul(typingctx, a, b):
    """Lane-wise a * b."""

    def codegen(context, builder, sig, args):
        return builder.fmul(args[0], args[1])

    return vec4(vec4, vec4), codegen


@intrinsic
def vfma(typingctx, a, b, c):
    """Lane-wise a * b + c rounded once (LLVM's fma: a fused multiply-add instruction on FMA hardware)."""

    def codegen(context, builder, sig, args):
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(_V, [_V, _V, _V]), "llvm.fma.v4f64")
        return builder.call(fn, args)

    return vec4(vec4, vec4, vec4), codegen


@intrinsic
def vlane(typingctx, v, i):
    """Lane i of v (a float64)."""

    def codegen(context, builder, sig, args):
        i32 = builder.trunc(context.cast(builder, args[1], sig.args[1], types.intp), ir.IntType(32))
        return builder.extract_element(args[0], i32)

    return types.float64(v, i), codegen


@intrinsic
def vall_abs_gt(typingctx, v, x):
    """Whether every lane of v has |v| > x (false for a NaN lane)."""

    def codegen(context, builder, sig, args):
        fabs = cgutils.get_or_insert_function(builder.module, ir.FunctionType(_V, [_V]), "llvm.fabs.v4f64")
        xf = context.cast(builder, args[1], sig.args[1], types.float64)
        xv = builder.insert_element(ir.Constant(_V, ir.Undefined), xf, ir.Constant(ir.IntType(32), 0))
        xv = builder.shuffle_vector(
            xv, ir.Constant(_V, ir.Undefined), ir.Constant(ir.VectorType(ir.IntType(32), 4), [0] * 4)
        )
        gt = builder.fcmp_ordered(">", builder.call(fabs, [args[0]]), xv)
        bits = builder.bitcast(gt, ir.IntType(4))
        return builder.icmp_unsigned("==", bits, ir.Constant(ir.IntType(4), 15))

    return types.boolean(v, x), codegen

"""Cost of the quadrature kernel's 256-bit operations on this core, and of its node-pass loops.

Not a ``bench_*`` script (``run_all.py`` does not run it): a record of what bounds the compiled
passes of ``kexplain.shapley._loo_passes_numba``, so that an idea for them can be checked against
the machine before it is built.  Printed in cycles, from CPU time at the clock the FMA latency
implies (5 cycles on AMD Zen 1 and 2, 4 on Intel since Skylake; ``--latency-cycles``).

1. Throughput of independent chains of each operation (``_simd_numba`` primitives: ``vfma``,
   ``vmul``, ``vadd``, ``vsub``, ``vstore``) and of mixes: does an addition run beside a fused
   multiply-add, or beside a multiplication?
2. The forward and backward loops of a 4-node pass as the kernels run them (one fused multiply-add
   per factor) and with symmetric nodes (t, 1 - t: the mirrored factor e - g(t), e = 2 b + d, a
   subtraction instead of a fused multiply-add), at d = 160 (in L1) and 1,000.
3. One loop running the forward pass of one group of 4 nodes and the backward pass of another,
   against the two loops apart.

    python benchmarks/_simd_op_costs.py [--latency-cycles 5]
"""

from __future__ import annotations

import argparse
import time

import _common  # noqa: F401  (first: single-threaded BLAS before numpy loads)
import numpy as np
from numba import njit

from kexplain.shapley._simd_numba import pget, vadd, vdata, vfma, vlane, vload, vmul, vsplat, vstore, vsub

N = 2_000_000
_OPS = {"fma": "vfma({r}, a, c)", "mul": "vmul({r}, a)", "add": "vadd({r}, c)", "sub": "vsub({r}, c)"}


def chains(spec):
    """A compiled loop of independent chains, e.g. [("fma", 6), ("add", 6)] (at most 14 chains:
    more would spill registers)."""
    names, body = [], []
    for kind, n in spec:
        for _ in range(n):
            r = f"r{len(names)}"
            names.append(r)
            body.append(f"{r} = " + _OPS[kind].format(r=r))
    src = "def f(n, x):\n    a = vsplat(x)\n    c = vsplat(1e-9)\n" + "".join(f"    {r} = vsplat(1.0)\n" for r in names)
    src += "    for i in range(n):\n" + "".join(f"        {b}\n" for b in body)
    src += "    s = r0\n" + "".join(f"    s = vadd(s, {r})\n" for r in names[1:]) + "    return vlane(s, 0)\n"
    env = {"vfma": vfma, "vmul": vmul, "vadd": vadd, "vsub": vsub, "vsplat": vsplat, "vlane": vlane}
    exec(src, env)  # one loop per mix: numba needs the chains as separate SSA values
    return njit(env["f"])


@njit
def stores8(n, buf):  # pragma: no cover - compiled
    p = vdata(buf)
    a = vsplat(1.0)
    for i in range(n):
        o = (i & 15) * 32
        for q in range(8):
            vstore(p, o + 4 * q, a)
    return buf[3]


@njit(inline="always")
def _factors4(u0, u1, u2, u3, vb, vd, sym):  # pragma: no cover - compiled
    """The 4 nodes' factors g = b + u d: four fused multiply-adds, or with symmetric nodes (nodes
    2, 3 are 1 - t1, 1 - t0) two and two subtractions from e = 2 b + d."""
    g0, g1 = vfma(u0, vd, vb), vfma(u1, vd, vb)
    if sym:
        e = vadd(vadd(vb, vb), vd)
        return g0, g1, vsub(e, g1), vsub(e, g0)
    return g0, g1, vfma(u2, vd, vb), vfma(u3, vd, vb)


@njit
def forward(bT, dT, pre, t, d, reps, sym):  # pragma: no cover - compiled
    """The forward loop of a 4-node pass (prefix products stored, as ``_pairs_nodes4``)."""
    pb, pd, pp, pt = vdata(bT), vdata(dT), vdata(pre), vdata(t)
    u0, u1, u2, u3 = vsplat(pget(pt, 0)), vsplat(pget(pt, 1)), vsplat(pget(pt, 2)), vsplat(pget(pt, 3))
    tot = vsplat(0.0)
    for _ in range(reps):
        p0 = vsplat(1.0)
        p1, p2, p3 = p0, p0, p0
        for j in range(d):
            vb, vd = vload(pb, 4 * j), vload(pd, 4 * j)
            vstore(pp, 20 * j, p0)
            vstore(pp, 20 * j + 4, p1)
            vstore(pp, 20 * j + 8, p2)
            vstore(pp, 20 * j + 12, p3)
            g0, g1, g2, g3 = _factors4(u0, u1, u2, u3, vb, vd, sym)
            p0, p1, p2, p3 = vmul(p0, g0), vmul(p1, g1), vmul(p2, g2), vmul(p3, g3)
        tot = vadd(tot, vadd(vadd(p0, p1), vadd(p2, p3)))
    return vlane(tot, 0)


@njit
def backward(bT, dT, pre, acc, t, d, reps, sym):  # pragma: no cover - compiled
    """The backward loop of a 4-node pass (suffix products, factors computed again)."""
    pb, pd, pp, pa, pt = vdata(bT), vdata(dT), vdata(pre), vdata(acc), vdata(t)
    u0, u1, u2, u3 = vsplat(pget(pt, 0)), vsplat(pget(pt, 1)), vsplat(pget(pt, 2)), vsplat(pget(pt, 3))
    tot = vsplat(0.0)
    for _ in range(reps):
        s0 = vsplat(0.25)
        s1, s2, s3 = s0, s0, s0
        for j in range(d - 1, -1, -1):
            vb, vd = vload(pb, 4 * j), vload(pd, 4 * j)
            x = vfma(vload(pp, 20 * j), s0, vload(pa, 4 * j))
            x = vfma(vload(pp, 20 * j + 4), s1, x)
            x = vfma(vload(pp, 20 * j + 8), s2, x)
            vstore(pa, 4 * j, vfma(vload(pp, 20 * j + 12), s3, x))
            g0, g1, g2, g3 = _factors4(u0, u1, u2, u3, vb, vd, sym)
            s0, s1, s2, s3 = vmul(s0, g0), vmul(s1, g1), vmul(s2, g2), vmul(s3, g3)
        tot = vadd(tot, vadd(vadd(s0, s1), vadd(s2, s3)))
    return vlane(tot, 0)


@njit
def merged(bT, dT, preA, preB, acc, t, d, reps):  # pragma: no cover - compiled
    """The forward loop of nodes t[4:8] (ascending features) and the backward loop of t[0:4]
    (descending) in one loop: the forward's stores beside the backward's arithmetic."""
    pb, pd, pA, pB, pa, pt = vdata(bT), vdata(dT), vdata(preA), vdata(preB), vdata(acc), vdata(t)
    u0, u1, u2, u3 = vsplat(pget(pt, 4)), vsplat(pget(pt, 5)), vsplat(pget(pt, 6)), vsplat(pget(pt, 7))
    v0, v1, v2, v3 = vsplat(pget(pt, 0)), vsplat(pget(pt, 1)), vsplat(pget(pt, 2)), vsplat(pget(pt, 3))
    tot = vsplat(0.0)
    for _ in range(reps):
        p0 = vsplat(1.0)
        p1, p2, p3 = p0, p0, p0
        s0 = vsplat(0.25)
        s1, s2, s3 = s0, s0, s0
        for j in range(d):
            vb, vd = vload(pb, 4 * j), vload(pd, 4 * j)
            vstore(pB, 20 * j, p0)
            vstore(pB, 20 * j + 4, p1)
            vstore(pB, 20 * j + 8, p2)
            vstore(pB, 20 * j + 12, p3)
            p0, p1 = vmul(p0, vfma(u0, vd, vb)), vmul(p1, vfma(u1, vd, vb))
            p2, p3 = vmul(p2, vfma(u2, vd, vb)), vmul(p3, vfma(u3, vd, vb))
            k = d - 1 - j
            wb, wd = vload(pb, 4 * k), vload(pd, 4 * k)
            x = vfma(vload(pA, 20 * k), s0, vload(pa, 4 * k))
            x = vfma(vload(pA, 20 * k + 4), s1, x)
            x = vfma(vload(pA, 20 * k + 8), s2, x)
            vstore(pa, 4 * k, vfma(vload(pA, 20 * k + 12), s3, x))
            s0, s1 = vmul(s0, vfma(v0, wd, wb)), vmul(s1, vfma(v1, wd, wb))
            s2, s3 = vmul(s2, vfma(v2, wd, wb)), vmul(s3, vfma(v3, wd, wb))
        tot = vadd(tot, vadd(vadd(vadd(s0, s1), vadd(s2, s3)), vadd(vadd(p0, p1), vadd(p2, p3))))
    return vlane(tot, 0)


def timed(cases, repeats):
    """{name: (min, median)} of CPU seconds per call, the cases interleaved in each round."""
    for f in cases.values():
        f()
    res = {name: [] for name in cases}
    for _ in range(repeats):
        for name, f in cases.items():
            t0 = time.process_time()
            f()
            res[name].append(time.process_time() - t0)
    return {name: (min(v), float(np.median(v))) for name, v in res.items()}


def pass_cases(d, reps):
    """The pass loops at d features (sections 2 and 3), as calls without arguments."""
    t = np.array([0.1, 0.3, 0.7, 0.9, 0.2, 0.4, 0.6, 0.8])
    rng = np.random.default_rng(0)
    bT, dT = rng.uniform(0.5, 1.0, (d, 4)), rng.uniform(-0.01, 0.01, (d, 4))
    preA, preB, acc = np.zeros((d, 20)), np.zeros((d, 20)), np.zeros((d, 4))
    return {
        "forward, main (4 fma + 4 mul + 4 stores)": lambda: forward(bT, dT, preA, t, d, reps, False),
        "forward, symmetric (2 fma + 4 mul + 4 add/sub + 4 stores)": lambda: forward(bT, dT, preA, t, d, reps, True),
        "backward, main (8 fma + 4 mul)": lambda: backward(bT, dT, preA, acc, t, d, reps, False),
        "backward, symmetric (6 fma + 4 mul + 4 add/sub)": lambda: backward(bT, dT, preA, acc, t, d, reps, True),
        "forward + backward apart (main)": lambda: (
            forward(bT, dT, preB, t[4:], d, reps, False) + backward(bT, dT, preA, acc, t, d, reps, False)
        ),
        "forward + backward in one loop (main)": lambda: merged(bT, dT, preA, preB, acc, t, d, reps),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--latency-cycles", type=float, default=5.0, help="latency of a 256-bit FMA on this core")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    lat = chains([("fma", 1)])
    t_lat = timed({"lat": lambda: lat(N, 0.9999999)}, args.repeats)["lat"][0]
    ghz = args.latency_cycles * N / t_lat / 1e9
    cyc = 1e9 * ghz  # cycles per second
    print(f"clock from the FMA latency ({args.latency_cycles:g} cycles): {ghz:.2f} GHz")

    mixes = {
        "fma x6": [("fma", 6)],
        "mul x6": [("mul", 6)],
        "add x6": [("add", 6)],
        "mul x6 + add x6": [("mul", 6), ("add", 6)],
        "fma x6 + add x6": [("fma", 6), ("add", 6)],
        "fma x6 + sub x3": [("fma", 6), ("sub", 3)],
        "fma x4 + mul x4": [("fma", 4), ("mul", 4)],
        "pass op mix, main: fma x6 + mul x4": [("fma", 6), ("mul", 4)],
        "pass op mix, symmetric: fma x4 + mul x4 + sub x2": [("fma", 4), ("mul", 4), ("sub", 2)],
        "dependent fma (latency)": [("fma", 1)],
        "dependent mul (latency)": [("mul", 1)],
        "dependent add (latency)": [("add", 1)],
    }
    fns = {name: chains(spec) for name, spec in mixes.items()}
    buf = np.zeros(576)
    cases = {name: (lambda f=f: f(N, 0.9999999)) for name, f in fns.items()}
    cases["store x8"] = lambda: stores8(N, buf)
    r = timed(cases, args.repeats)
    print("\n1. cycles per loop iteration (independent chains; 256-bit operations)")
    for name, (lo, med) in r.items():
        print(f"   {name:52s} {lo * cyc / N:6.2f} (median {med * cyc / N:6.2f})")

    for d in (160, 1000):
        reps = N // d
        cases = pass_cases(d, reps)
        r = timed(cases, args.repeats)
        print(f"\n2, 3. d = {d}: cycles per feature for 4 nodes (a vector of 4 pairs each)")
        for name, (lo, med) in r.items():
            print(f"   {name:60s} {lo * cyc / (reps * d):6.2f} (median {med * cyc / (reps * d):6.2f})")


if __name__ == "__main__":
    main()

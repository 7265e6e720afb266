"""The kernels' vectorised exponential and their per-feature factor pass against numpy (issue 26, item 1).

1. ``kexplain._exp_numba.exp_inplace`` against numpy's ``exp`` on 2^20 arguments of the kind the
   RBF factors take (-u^2 / 2 for standard normal u), in nanoseconds per value;
2. ``RBF(l).feature_values(X, Z)``, the per-feature factors exp(-(x_j - z_ij)^2 / (2 l^2)) of a
   product-kernel explanation (200 points, 520 support vectors, d = 20: the functional game's
   factors at d = 20 in ``bench_pkex_shapiq.py``), through the compiled pass (argument and
   exponential in registers) and through numpy (subtract, divide, two multiplications, exp), in
   nanoseconds per factor.

CPU time, one thread, min / median of 7 interleaved repetitions after a warm-up; printed: ratios
(numpy / kexplain, above 1: kexplain is faster), the largest difference in units in the last place
(at most 1 allowed) and the share of results that differ from numpy's at all.  Reported only, no
target.  Without numba kexplain uses numpy's exp and the script says so.  ``--quick``: 2^18
arguments and 40 points.

    python benchmarks/bench_exp.py [--quick]
"""

from __future__ import annotations

import _common  # noqa: F401  (first: single-threaded BLAS before numpy loads)
import numpy as np
from _common import compare, fmt_s, load_note, quick_flag, result

from kexplain.kernels import RBF
from kexplain.kernels import base as kbase


def _ulps(x, y):
    """|x - y| in units in the last place (same-sign finite doubles)."""
    return np.abs(x.view(np.int64) - y.view(np.int64))


def main():
    module = kbase._exp_numba()
    if module is None:
        print("numba is not usable here: kexplain's factors use numpy's exp; nothing to compare.")
        return
    quick = quick_flag()
    rng = np.random.default_rng(0)
    n = 2**18 if quick else 2**20
    z = -0.5 * rng.normal(size=n) ** 2
    buf = np.empty_like(z)

    def ours():
        buf[:] = z
        module.exp_inplace(buf)
        return buf

    def copy_only():  # the copy that ``ours`` needs to start from the same arguments each time
        buf[:] = z
        return buf

    t = compare({"kexplain": ours, "numpy": lambda: np.exp(z), "copy": copy_only}, repeats=7, warmup=1)
    ref = np.exp(z)
    mine = ours().copy()
    per = {
        k: {s: 1e9 * (t[k][s] - (t["copy"][s] if k == "kexplain" else 0.0)) / n for s in ("min", "median")}
        for k in ("kexplain", "numpy")
    }
    exp_ulps, share = int(_ulps(mine, ref).max()), float(np.mean(mine != ref))
    print(f"exp of {n:,} values: ns per value (min / median of 7 interleaved, CPU) {load_note()}")
    print(
        f"  kexplain {per['kexplain']['min']:.2f} / {per['kexplain']['median']:.2f}",
        "(the copy of the arguments taken off)",
    )
    print(f"  numpy    {per['numpy']['min']:.2f} / {per['numpy']['median']:.2f}")
    print(f"  largest difference {exp_ulps} ulp; {100 * share:.2f}% of values differ from numpy's")
    result(
        "exp_vs_numpy",
        per["numpy"]["min"] / per["kexplain"]["min"],
        None,
        "x",
        note=f"median {per['numpy']['median'] / per['kexplain']['median']:.2f}x; {per['kexplain']['min']:.2f} ns/value",
    )

    points, rows, d = (40 if quick else 200), 520, 20
    X, Z = rng.normal(size=(points, d)), rng.normal(size=(rows, d))
    kernel = RBF(lengthscale=np.sqrt(d / 2.0))

    def numpy_path():
        kbase._EXP_NUMBA[:] = [None]  # the module's switch for numba: numpy's passes and exp
        try:
            return kernel.feature_values(X, Z)
        finally:
            kbase._EXP_NUMBA[:] = [module]

    t = compare({"kexplain": lambda: kernel.feature_values(X, Z), "numpy": numpy_path}, repeats=7, warmup=1)
    size = points * rows * d
    fast, slow = t["kexplain"]["result"], t["numpy"]["result"]
    ulps = int(_ulps(fast, slow).max())
    print(f"RBF factors of {points} points x {rows} rows x {d} features: ns per factor (min / median)")
    ns = {k: {s: 1e9 * t[k][s] / size for s in ("min", "median")} for k in t}
    for k in ("kexplain", "numpy"):
        print(f"  {k:8s} {ns[k]['min']:.2f} / {ns[k]['median']:.2f}  ({fmt_s(t[k]['min'])} per call)")
    print(f"  largest difference {ulps} ulp")
    result(
        "rbf_factors_vs_numpy",
        t["numpy"]["min"] / t["kexplain"]["min"],
        None,
        "x",
        note=f"median {t['numpy']['median'] / t['kexplain']['median']:.2f}x; {ns['kexplain']['min']:.2f} ns/factor",
    )
    if max(ulps, exp_ulps) > 1:
        raise SystemExit(f"results differ from numpy's by {max(ulps, exp_ulps)} ulp (at most 1 allowed)")


if __name__ == "__main__":
    main()

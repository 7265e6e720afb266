"""The product-game engine's compiled quadrature kernel alone (``_product_numba.weighted_loo_integrals``).

For each (d, node count m) the kernel integrates K pairs of factor rows, as the engine's blocks
do: the functional game (b = 1, one row of absent factors shared by every pair) and a game with a
row of absent factors per pair (the interventional and baseline games).  The factors are RBF
factors exp(-gamma (x - z)^2) of normal data, gamma = 1 / d (products of order e^-2).  Printed per
case: ns per node-feature step (K x m x d of them), min / median of the repetitions, CPU time,
one thread.

``--baseline SRC``: also time the kernel of another source tree (e.g. ``/work/main/src``: its
``kexplain/shapley/_product_numba.py`` loaded under another package name), interleaved with this
tree's in the same rounds, and print the ratio and the largest relative difference of the values
(``out`` and ``pa``, entries flagged in ``bad`` left out) between the two.

    python benchmarks/bench_engine_kernel.py [--quick] [--baseline SRC] [--repeats N]
"""

from __future__ import annotations

import argparse
import importlib
import math
import pathlib
import shutil
import sys
import tempfile
import types

import _common  # noqa: F401  (first: single-threaded BLAS before numpy loads)
import numpy as np
from _common import compare, load_note, print_table, result

#: (d, m, K): K pairs per call, chosen so that one call is a few milliseconds
CASES = [
    (10, 3, 4000),
    (10, 5, 4000),
    (20, 5, 2000),
    (20, 6, 2000),
    (20, 10, 2000),
    (40, 6, 1000),
    (40, 10, 1000),
    (40, 20, 1000),
    (160, 10, 250),
    (160, 80, 100),
    (1000, 10, 40),
    (1000, 500, 4),
]
QUICK = [(10, 5, 2000), (20, 10, 1000), (40, 20, 500), (160, 80, 50)]


def load_kernel(src):
    """``weighted_loo_integrals`` of the source tree ``src`` (None: the kexplain on sys.path)."""
    if src is None:
        from kexplain.shapley._product_numba import weighted_loo_integrals

        return weighted_loo_integrals
    # bare packages (their __init__s not run) standing for kexplain and kexplain.shapley, so that
    # the module's relative imports (``.._exp_numba``, its sibling modules) load that tree's files.
    # Loaded from a copy: numba caches the compiled functions beside their files under the module
    # name they were loaded as, and a cache naming ``_kx_baseline`` would break that tree's own
    # later imports (ModuleNotFoundError when the cache is read)
    root = pathlib.Path(tempfile.mkdtemp(prefix="kx_baseline_")) / "kexplain"
    shutil.copytree(pathlib.Path(src) / "kexplain", root, ignore=shutil.ignore_patterns("__pycache__"))
    for name, folder in (("_kx_baseline", root), ("_kx_baseline.shapley", root / "shapley")):
        pkg = types.ModuleType(name)
        pkg.__path__ = [str(folder)]
        sys.modules[name] = pkg
    return importlib.import_module("_kx_baseline.shapley._product_numba").weighted_loo_integrals


def inputs(d, m, K, game, seed=0):
    from kexplain.shapley.quadrature import gauss_legendre_01

    rng = np.random.default_rng(seed)
    gamma = 1.0 / d
    a = np.exp(-gamma * (rng.normal(size=(K, d)) - rng.normal(size=(1, d))) ** 2)
    b = np.ones((1, d)) if game == "functional" else np.exp(-gamma * (rng.normal(size=(K, d))) ** 2)
    t, w = gauss_legendre_01(m)
    return a, np.arange(K), b, np.asarray(t), np.asarray(w)


def run(kernel, a, ia, b, t, w):
    K, d = ia.shape[0], a.shape[1]
    out = np.empty((K, d))
    bad = np.empty((K, t.shape[0]), dtype=bool)
    pa = np.empty(K)
    kernel(a, ia, b, t, w, out, bad, pa)
    return out, bad, pa


def rel_diff(x, y):
    ox, bx, px = x
    oy, by, py = y
    if not np.array_equal(bx, by):
        return np.inf
    scale = np.maximum(np.abs(ox).max(axis=1, keepdims=True), 1e-300)
    e1 = float(np.max(np.abs(ox - oy) / scale))
    e2 = float(np.max(np.abs(px - py) / np.maximum(np.abs(px), 1e-300)))
    return max(e1, e2)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--baseline", default=None)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--cases", default=None, help="d:m:K,d:m:K,... instead of the default cases")
    args = ap.parse_args()
    cases = QUICK if args.quick else CASES
    if args.cases:
        cases = [tuple(int(v) for v in c.split(":")) for c in args.cases.split(",")]
    ours = load_kernel(None)
    base = load_kernel(args.baseline) if args.baseline else None
    rows = []
    for d, m, K in cases:
        m = m if m > 0 else math.ceil(d / 2)
        for game in ("functional", "per-pair b"):
            x = inputs(d, m, K, game)
            fns = {"ours": lambda x=x: run(ours, *x)}
            if base is not None:
                fns["base"] = lambda x=x: run(base, *x)
            r = compare(fns, repeats=args.repeats, warmup=1)
            steps = K * m * d
            ns = {k: r["ours"][k] / steps * 1e9 for k in ("min", "median")}
            row = [d, m, K, game, f"{ns['min']:.3f} / {ns['median']:.3f}"]
            if base is not None:
                nb = {k: r["base"][k] / steps * 1e9 for k in ("min", "median")}
                speed = {k: r["base"][k] / r["ours"][k] for k in ("min", "median")}
                err = rel_diff(r["ours"]["result"], r["base"]["result"])
                same = all(np.array_equal(u, v) for u, v in zip(r["ours"]["result"], r["base"]["result"]))
                row += [
                    f"{nb['min']:.3f} / {nb['median']:.3f}",
                    f"{speed['min']:.2f}x / {speed['median']:.2f}x",
                    "bitwise" if same else f"{err:.1e}",
                ]
                tag = "functional" if game == "functional" else "perpair"
                result(f"engine_kernel_d{d}_m{m}_{tag}", speed["min"], None, "x", note=f"median {speed['median']:.2f}x")
            rows.append(row)
    header = ["d", "m", "pairs", "game", "ns/step min / median"]
    if base is not None:
        header += ["baseline ns/step", "speed-up min / median", "max rel diff"]
    print_table(f"quadrature kernel, {args.repeats} interleaved repetitions, CPU time, one thread", header, rows)
    print(load_note())


if __name__ == "__main__":
    main()

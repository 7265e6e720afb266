"""The first call: what a user waits for before the first explanation, with no warm-up.

Every other script here warms both sides up and times the steady state, which hides one-off costs
paid on the first call.  This one runs each case in a fresh Python process (one BLAS thread) and
times, wall clock:

1. ``import kexplain``;
2. building the explainer and its first ``explain`` of one point, and the second call, for the
   functional game of an RBF kernel expansion (30 support vectors, d = 20, 160, 1,000, 4,000) and
   the interventional game (10 background rows, d = 20), with numba's compiled kernels already in
   its cache (the usual case from the second use on);
3. ``--cold`` adds the same with an empty numba cache (``NUMBA_CACHE_DIR`` set to a new folder):
   the first use after installing, when numba compiles the kernels.

The regression this guards against: the fused functional kernel used to build every
Gauss-Legendre rule of 1 .. ceil(d/2) nodes on the first call at each d, O(d^3) work: 7.6 s at
d = 1,000, 43 s at d = 2,000, hours at d = 20,000 (``quadrature.LADDER_FROM``).  No targets: the
figures are reported.

    python benchmarks/bench_first_call.py [--quick] [--cold]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

import _common  # noqa: F401  (first: single-threaded BLAS before numpy loads)
from _common import load_note, print_table, quick_flag, result

QUICK = quick_flag()
COLD = "--cold" in sys.argv
CASES = [("functional", 20), ("interventional", 20), ("functional", 160), ("functional", 1000)]
if not QUICK:
    CASES.append(("functional", 4000))


def child(game, d):
    """In the fresh process: time the import, the first and the second call; print them as JSON."""
    t0 = time.perf_counter()
    import numpy as np

    import kexplain as kx

    t_import = time.perf_counter() - t0
    rng = np.random.default_rng(0)
    em = kx.KernelExpansion(rng.normal(size=(30, d)), rng.normal(size=30), kx.kernels.RBF(np.sqrt(d)))
    X = 0.5 * rng.normal(size=(2, d))
    opts = {"background": rng.normal(size=(10, d))} if game == "interventional" else {}
    t1 = time.perf_counter()  # the explainer's construction counts: it may load the kernels
    ex = kx.ProductKernelExplainer(em, **opts)
    first = ex.explain(X[:1])
    t2 = time.perf_counter()
    ex.explain(X[1:])
    t3 = time.perf_counter()
    assert first.efficiency_error < 1e-9, first.efficiency_error
    print(json.dumps({"import": t_import, "first": t2 - t1, "second": t3 - t2, "route": first.info["route"]}))


def run(game, d, cache_dir=None):
    env = dict(os.environ)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    out = subprocess.run(
        [sys.executable, __file__, "--child", game, str(d)], capture_output=True, text=True, env=env, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    print(load_note())
    # warm numba's usual cache first, so the "warm" rows below measure loading, not compiling
    for game, d in CASES:
        run(game, d)
    rows = []
    for label, cache in (("warm", None),) + ((("cold", "new"),) if COLD else ()):
        for game, d in CASES:
            if cache is None:
                r = run(game, d)
            else:  # a new empty cache for every case: each compiles what it uses
                with tempfile.TemporaryDirectory() as tmp:
                    r = run(game, d, tmp)
            times = [f"{r['import']:.2f} s", f"{r['first']:.3f} s", f"{1e3 * r['second']:.1f} ms"]
            rows.append([label, game, d, r["route"], *times])
            result(f"first_call_{label}_{game}_d{d}_seconds", r["first"], None, "s", higher_is_better=False)
    print_table(
        "first call in a fresh process (wall clock, one BLAS thread)",
        ["numba cache", "game", "d", "route", "import kexplain", "build + first explain", "second explain"],
        rows,
    )


if __name__ == "__main__":
    if "--child" in sys.argv:
        i = sys.argv.index("--child")
        child(sys.argv[i + 1], int(sys.argv[i + 2]))
    else:
        main()

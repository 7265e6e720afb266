"""Scale: kexplain's functional-baseline explainer on large problems, and its memory bound.

1. seconds per point at d = 1,000 with 1,000 support vectors (target: at most 1 s on one core);
2. the time for 1,000 points at d = 20 with 2,000 support vectors (target: at most 5 s);
3. memory of the 10,000 points x 5,000 support vectors, d = 50 case (target: at most ~2 GB): the
   solver works block by block, so its peak is that of one block plus the results; measured here
   with tracemalloc on a slice of the explained points with the full 5,000 support vectors, and
   the full-run time extrapolated from that slice (run with --full to run all 10,000 points);
4. the quadrature engine's throughput as a share of single-thread DGEMM (issue 26's metric, target
   30% at d >= 100): the leave-one-out pass over (pairs, d) kernel factors timed against a
   1,000 x 1,000 numpy matmul in the same interleaved run, counting 2 flops per
   (pair, node, feature) step as for a matrix product's multiply-add.  The kernel executes about
   8 flops per step (3 multiply-adds and 2 multiplications), so the share of flops it actually
   executes is 4 times the printed figure; its ceiling by this metric is about 20% (5 vector
   operations per step against DGEMM's one multiply-add);
5. the page faults the solver's blocks cost, before and after ``kexplain.shapley._heap`` keeps
   freed block arrays on the heap (1,000 points at d = 20, each side in a fresh process).

Each row shows both backends of the engine measured in the same run: the compiled one (numba,
used when installed) and the pure-numpy fallback, and the largest difference between them.
The models are KernelExpansions with an RBF kernel and random coefficients (the cost does not
depend on the coefficients); BLAS is kept single-threaded.

    python benchmarks/bench_scale.py [--quick] [--full]
"""

from __future__ import annotations

import sys
import time
import tracemalloc

import _common  # noqa: F401  (first: single-threaded BLAS before numpy loads)
import numpy as np
from _common import compare, fmt_s, load_note, print_table, quick_flag, result, threads_note

import kexplain as kx
from kexplain.explainers.product_games import FunctionalGame
from kexplain.shapley.product import (
    DEFAULT_BLOCK_BYTES,
    _block_nodes,
    _resolve_backend,
    _weighted_loo_integrals,
    leave_one_out_integrals,
    solve_product_game,
)
from kexplain.shapley.quadrature import gauss_legendre_01, nodes_for_degree


def expansion(n_ref, d, seed=0):
    rng = np.random.default_rng(seed)
    X_ref = rng.normal(size=(n_ref, d))
    # lengthscale sqrt(d): kernel values stay away from 0 as d grows (gamma = 1 / (2 d), as "scale")
    return kx.KernelExpansion(X_ref, rng.normal(size=n_ref), kx.kernels.RBF(np.sqrt(d))), rng


def run(em, X, backend, nodes="certified"):
    """Explain X; returns (result, wall seconds, CPU seconds) with BLAS single-threaded."""
    game = FunctionalGame(em, em.check_input(X))
    w0, c0 = time.perf_counter(), time.process_time()
    res = solve_product_game(game, backend=backend, nodes=nodes)
    return res, time.perf_counter() - w0, time.process_time() - c0


def engine_vs_dgemm(quick):
    """GFLOP/s of the engine's leave-one-out pass (2 flops per pair x node x feature) and of a
    single-thread DGEMM, measured in one interleaved run.

    Each d has two sides: the exact rule (ceil(d/2) nodes, ``leave_one_out_integrals``) and the
    solver's default, the certified node count of the block (its spread pass included in the
    time).  The rate counts the steps actually executed (the certified side runs far fewer);
    the time to solution and its ratio to the exact rule's are printed beside it."""
    rng = np.random.default_rng(3)
    n = 1000
    A, B = rng.random((n, n)), rng.random((n, n))
    sides = {"dgemm 1000^3": lambda: A @ B}
    steps = {}
    kernel = _resolve_backend("auto")
    for d, K in ((100, 400), (160, 300), (1000, 10 if quick else 30)):
        a = np.exp(-rng.random((K, d)) / d)  # RBF-like factors in (0, 1]: the compiled prefix/suffix scheme
        b = np.ones((1, d))

        def certified(a=a, b=b):
            # the solver's path for one block: the spread pass, then the pass with its node count
            t, w = gauss_legendre_01(_block_nodes(a, None, b))
            return _weighted_loo_integrals(a, b, t, w, kernel)

        sides[f"engine d={d} exact"] = lambda a=a: leave_one_out_integrals(a)
        steps[f"engine d={d} exact"] = (d, K, nodes_for_degree(d - 1))
        sides[f"engine d={d} certified"] = certified
        steps[f"engine d={d} certified"] = (d, K, _block_nodes(a, None, b))
    t = compare(sides, repeats=3, warmup=1)
    dgemm = {k: 2 * n**3 / t["dgemm 1000^3"][k] / 1e9 for k in ("min", "median")}
    rows = [["dgemm 1000^3", "-", "-", f"{dgemm['min']:.2f} / {dgemm['median']:.2f}", "100%", "-", "-"]]
    for name, (d, K, m) in steps.items():
        units = K * d * m
        gf = {k: 2 * units / t[name][k] / 1e9 for k in ("min", "median")}
        share = {k: gf[k] / dgemm[k] for k in gf}
        exact = t[f"engine d={d} exact"]
        speed = {k: exact[k] / t[name][k] for k in ("min", "median")}
        kind = name.split()[-1]
        tag = "" if kind == "exact" else "_certified"
        result(
            f"engine{tag}_share_of_dgemm_d{d}",
            100 * share["min"],
            30.0,
            "%",
            note=f"median {100 * share['median']:.1f}%; executed steps, {m} nodes",
        )
        if kind == "certified":
            result(
                f"engine_certified_vs_exact_d{d}",
                speed["min"],
                None,
                "x",
                note=f"time to solution, median {speed['median']:.2f}x; {m} of {nodes_for_degree(d - 1)} nodes",
            )
        rows.append(
            [
                name,
                m,
                f"{units:,}",
                f"{gf['min']:.2f} / {gf['median']:.2f}",
                f"{100 * share['min']:.1f}%",
                f"{fmt_s(t[name]['min'])} / {fmt_s(t[name]['median'])}",
                f"{speed['min']:.2f}x / {speed['median']:.2f}x",
            ]
        )
    print_table(
        "Quadrature engine vs single-thread DGEMM, GFLOP/s of the steps executed (2 flops per pair x node x "
        f"feature step), min / median of 3 interleaved runs {load_note()}; {threads_note()}",
        [
            "side",
            "nodes",
            "steps executed",
            "GFLOP/s min / median",
            "share of DGEMM",
            "time to solution",
            "vs exact rule",
        ],
        rows,
    )


def heap_child(mode):
    """One side of :func:`heap_before_after`, in a fresh process: a warm-up solve, then one timed
    solve; prints CPU seconds, system seconds and minor page faults of the timed one."""
    import resource

    from kexplain.shapley import _heap

    if mode == "before":
        _heap._STATE["done"] = True  # glibc's thresholds left as they are: the engine before the change
    em, rng = expansion(2000, 20)
    X = rng.normal(size=(1000, 20))
    run(em, X[:50], "auto")
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    _, _, cpu = run(em, X, "auto")
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    print(cpu, r1.ru_stime - r0.ru_stime, r1.ru_minflt - r0.ru_minflt)


def heap_before_after():
    """1,000 points at d = 20 with 2,000 support vectors (59 blocks), glibc's malloc thresholds as
    they were (before) or raised by ``kexplain.shapley._heap`` (after): each side a fresh process
    (the thresholds cannot be lowered back in one), 3 interleaved repetitions."""
    import os
    import subprocess

    sides = {"before": [], "after": []}
    for rep in range(3):
        for mode in ("before", "after") if rep % 2 == 0 else ("after", "before"):
            proc = subprocess.run(
                [sys.executable, __file__, "--heap-child", mode],
                capture_output=True,
                text=True,
                check=True,
                env=dict(os.environ),
            )
            sides[mode].append([float(x) for x in proc.stdout.split()[-3:]])
    rows = []
    for mode, runs in sides.items():
        cpu = [r[0] for r in runs]
        rows.append(
            [
                mode,
                f"{min(cpu):.3f} / {np.median(cpu):.3f} s",
                f"{np.median([r[1] for r in runs]):.3f} s",
                f"{int(np.median([r[2] for r in runs])):,}",
            ]
        )
    b = [r[0] for r in sides["before"]]
    a = [r[0] for r in sides["after"]]
    result(
        "engine_heap_reuse_d20_speedup", min(b) / min(a), None, "x", note=f"median {np.median(b) / np.median(a):.2f}x"
    )
    print_table(
        "Heap reuse between blocks: 1,000 points, d = 20, 2,000 SVs, functional game, CPU time min / median "
        f"of 3 interleaved runs {load_note()}",
        ["glibc thresholds", "CPU time", "system time (median)", "minor page faults (median)"],
        rows,
    )


def main():
    if "--heap-child" in sys.argv[1:]:
        heap_child(sys.argv[sys.argv.index("--heap-child") + 1])
        return
    quick = quick_flag()
    engine_vs_dgemm(quick)
    full = "--full" in sys.argv[1:]
    try:
        import numba  # noqa: F401

        backends = ["numba", "numpy"]
    except ImportError:
        backends = ["numpy"]
    rows = []
    cases = [
        ("d=1000, 1000 SVs", 1000, 1000, 1 if quick else 3, 1.0, "per point"),
        ("d=20, 2000 SVs", 2000, 20, 200 if quick else 1000, 5.0, "all points"),
    ]
    for name, n_ref, d, n_pts, target, unit in cases:
        em, rng = expansion(n_ref, d)
        X = rng.normal(size=(n_pts, d))
        # the solver's default (certified node counts) and the exact rule, each backend; the
        # compiled engine (the timed target) 3 interleaved runs a side, the numpy fallback one
        sides = [(backend, nodes) for backend in backends for nodes in ("certified", "exact")]
        runs = {side: [] for side in sides}
        for side in sides:
            run(em, X[:1], *side)  # warm-up (compile, caches)
        for rep in range(3):
            for side in sides:
                if side[0] == "numba" or rep == 0:
                    runs[side].append(run(em, X, *side))
        out = {}
        for side in sides:
            res, wall, cpu = min(runs[side], key=lambda r: r[2])
            eff = np.abs(res.values.sum(axis=1)[:, 0] + res.v_empty[:, 0] + em.intercept[0] - em.predict(X)).max()
            out[side] = (res.values, wall, cpu, eff, [r[2] for r in runs[side]])
        for side in sides:
            backend, nodes = side
            vals, wall, cpu, eff, cpus = out[side]
            scale = 1 / n_pts if unit == "per point" else 1000 / n_pts
            diff = np.abs(vals - out[(backends[0], "exact")][0]).max()
            if unit == "per point" and backend == backends[0]:
                # issue 26's goal for d = 1,000 with 1,000 support vectors (the table's target is the older 1 s)
                tag = "" if nodes == "certified" else "_exact_rule"
                result(
                    f"scale_d{d}_{n_ref}sv_{backend}{tag}_s_per_point",
                    cpu * scale,
                    0.3,
                    "s",
                    higher_is_better=False,
                    note=f"min of {len(cpus)} runs; median {np.median(cpus) * scale:.3f} s",
                )
            rows.append(
                [
                    name,
                    f"{backend}, {nodes}",
                    n_pts,
                    f"{fmt_s(cpu * scale)} {unit}",
                    f"{fmt_s(wall * scale)}",
                    f"{fmt_s(target)}",
                    f"{target / (cpu * scale):.2f}",
                    f"{diff:.1e}",
                    f"{eff:.1e}",
                ]
            )
    print_table(
        "Scale, functional baseline; targets are on one core, compared with CPU time " + load_note(),
        [
            "case",
            "backend",
            "points",
            "CPU time",
            "wall time",
            "target",
            "target / CPU time",
            "max |diff| vs numba exact",
            "efficiency err vs predict",
        ],
        rows,
    )
    if quick:
        print("--quick: the d = 20 row explains 200 points and extrapolates to 1,000.")
    heap_before_after()

    # memory: 10,000 points x 5,000 SVs at d = 50, block by block
    em, rng = expansion(5000, 50, seed=1)
    n_slice = 20 if quick else 100
    n_total = 10_000 if full else n_slice
    X = rng.normal(size=(n_total, 50))
    run(em, X[:1], backends[0])
    tracemalloc.start()
    _, _, t = run(em, X, backends[0])
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    results_bytes = 8 * 10_000 * 50 * 3
    print(f"memory, 10,000 x 5,000 SVs at d = 50 ({backends[0]}, max_block_bytes = {DEFAULT_BLOCK_BYTES >> 20} MB):")
    print(f"  {n_total} points: {fmt_s(t)} CPU, traced peak {peak / 2**20:.1f} MB (numpy arrays incl. the model's)")
    if not full:
        print(
            f"  estimated for 10,000 points: {fmt_s(t * 10_000 / n_total)} CPU, peak about "
            f"{(peak + results_bytes) / 2**20:.0f} MB (one block + 10,000-point results); target <= 2,048 MB"
        )


if __name__ == "__main__":
    main()

"""Scale out: in-process vs n_jobs=2 threads vs a 2-worker dask LocalCluster, and how cost grows.

1. Explain 20,000 points (issue 26's target size; ``--points``; ``--quick``: 5,000) at d = 20
   with an RBF kernel expansion of 1,000 support vectors, in the **functional game** (PKeX's
   functional baseline: no background, the per-point quadrature route, so every side gives
   bit-identical values):
   - in-process, one thread: ``explainer.explain(X)``;
   - ``explainer.explain(X, n_jobs=2)``: two joblib threads;
   - ``kexplain.dask.explain_dask`` on a LocalCluster of 2 worker **processes** x 1 thread each
     (``processes=True``: what a cluster does, pickling included), blocks of ``--block`` rows
     (default 5,000, at most an eighth of the points: four blocks per worker or more).  The
     workers inherit the one-thread BLAS settings.
   Every side is warmed once (the workers receive the explainer and compile their kernels) and then
   timed in 3 interleaved repetitions; the table gives min and median wall time.  CPU time is this
   process's plus, for dask, the workers' (read on each worker before and after).
   Printed: wall and CPU times, the ratios to the in-process time, points per second per core,
   the dask overhead (extra CPU seconds relative to in-process) and the largest difference.
2. The complete MMD^2 attribution at n = m = 2,000 (``--mmd-n``; ``--quick``: 600), d = 20,
   in-process on one core against ``with kexplain.dask.on(client):`` on the same kind of cluster
   (2 worker processes x 1 thread): wall and CPU (scheduler and workers included), pairs per
   CPU-second, the overhead, and the largest difference (0: tiles are added in a fixed order).
   Issue 26's target for both the explanation and the MMD attribution: >= 1.7x with 2 workers
   (on a quiet machine; on a loaded 2-core machine the wall-clock ratio says little).
3. A table of how the in-process cost grows with the number of points N, support vectors R,
   background rows M (interventional game, quadrature route) and features d: a small grid of
   timings per factor, the others fixed, and the exponent fitted by log-log least squares
   (cost ~ factor^exponent), with a PNG plot written to ``--out`` (default: a new temp folder).

BLAS is single-threaded (set before numpy loads), so a "core" is one thread.  ``--parts mmd`` (or any of
explain, mmd, growth, comma-separated) runs only those parts.

    python benchmarks/bench_scale_out.py [--quick] [--points N] [--mmd-n N] [--block ROWS] [--parts P] [--out FOLDER]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import _common  # noqa: F401  (first: single-threaded BLAS before numpy loads)
import numpy as np
from _common import fmt_s, load_note, print_table, result

import kexplain as kx


def expansion(n_ref: int, d: int, seed: int = 0) -> kx.KernelExpansion:
    rng = np.random.default_rng(seed)
    # lengthscale sqrt(d): kernel values stay away from 0 as d grows
    return kx.KernelExpansion(rng.normal(size=(n_ref, d)), rng.normal(size=n_ref), kx.kernels.RBF(np.sqrt(d)))


def clock(fn):
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w0, time.process_time() - c0


def _worker_cpu(client) -> float:
    """Total CPU seconds used so far by the cluster's worker processes."""
    return float(sum(client.run(time.process_time).values()))


def _faults() -> int:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def _worker_faults(client) -> int:
    """Minor page faults so far in the worker processes (kexplain.dask._memory: one per 4 KiB page
    of each temporary when the nanny's fixed malloc thresholds map every large array afresh)."""
    return int(sum(client.run(_faults).values()))


#: ``--dask-defaults``: measure with Dask's default configuration (worker profiler on)
DASK_DEFAULTS = False

#: the cluster settings docs/scale.md recommends for compute-bound kexplain work: the worker's
#: statistical profiler samples every task thread's stack every 10 ms, which cost 0.5 s of CPU per
#: 2.9 s task in a measurement (17 %); the event loops' 20 ms "blocked loop" tick and 0.5 s system
#: monitor cost CPU per second of wall time whatever the work (idle 2-worker LocalCluster, profiler
#: off, load 7.5: 51 ms/s in the client process and 22 ms/s per worker; with these two slowed,
#: 15 and 7.5 ms/s), CPU the tiles need on a 2-core machine.  Nothing else is changed.
RECOMMENDED = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
}


def make_cluster():
    """A LocalCluster of 2 worker processes x 1 thread (the recommended settings unless --dask-defaults)."""
    import dask
    import distributed

    with dask.config.set({} if DASK_DEFAULTS else RECOMMENDED):
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=50
        )
        return cluster, distributed.Client(cluster)


def scale_out(n_points: int, d: int, n_sv: int, block: int, repeats: int = 3) -> dict:
    import dask.array as da

    from kexplain.dask import explain_dask

    rng = np.random.default_rng(1)
    X = rng.normal(size=(n_points, d))
    explainer = kx.ProductKernelExplainer(expansion(n_sv, d))
    cluster, client = make_cluster()
    try:
        Xd = da.from_array(X, chunks=(block, d))

        def in_process():
            return explainer.explain(X).values

        def threads():
            return explainer.explain(X, n_jobs=2).values

        def dask_processes():
            return client.compute(explain_dask(explainer, Xd, client=client).values, sync=True)

        sides = {"in-process": in_process, "threads": threads, "dask": dask_processes}
        out = {k: {"wall": [], "cpu": []} for k in sides}
        # warm-up: compiled kernels here and in each worker process, the explainer shipped once
        explainer.explain(X[:10])
        client.compute(
            explain_dask(explainer, da.from_array(X[:200], chunks=(100, d)), client=client).values, sync=True
        )
        faults = []
        for _ in range(repeats):  # interleaved, so a burst of load hits every side alike
            for name, fn in sides.items():
                wc0 = _worker_cpu(client) if name == "dask" else 0.0
                wf0 = _worker_faults(client) if name == "dask" else 0
                res, wall, cpu = clock(fn)
                if name == "dask":
                    cpu += _worker_cpu(client) - wc0
                    faults.append(_worker_faults(client) - wf0)
                out[name]["wall"].append(wall)
                out[name]["cpu"].append(cpu)
                out[name]["values"] = res
    finally:
        client.close()
        cluster.close()
    ref = out["in-process"]["values"]
    diffs = tuple(float(np.abs(out[k]["values"] - ref).max()) for k in ("threads", "dask"))
    stat = {k: {f: (float(np.min(v[f])), float(np.median(v[f]))) for f in ("wall", "cpu")} for k, v in out.items()}
    return dict(n=n_points, d=d, R=n_sv, block=block, stat=stat, diff=diffs, faults=int(np.median(faults)))


def mmd_scale_out(n: int, d: int, repeats: int = 3) -> dict:
    """The complete MMD^2 attribution (n = m rows, d features): in-process on one core against
    ``kexplain.dask.on(client)`` with 2 worker processes x 1 thread, interleaved, warm.

    CPU time of the dask side is this process's (client and LocalCluster scheduler) plus the
    workers'; the values must be identical (the tiles are added in a fixed order)."""

    import kexplain.dask

    rng = np.random.default_rng(4)
    X = rng.normal(size=(n, d))
    Z = rng.normal(size=(n, d))
    Z[:, d // 2 :] = rng.standard_t(5, size=(n, d - d // 2))
    cluster, client = make_cluster()
    out = {k: {"wall": [], "cpu": []} for k in ("in-process", "dask")}
    faults, split = [], []
    try:
        kx.stats.mmd_shapley(X[:300], Z[:300])  # compiled kernels, here and on both workers
        with kexplain.dask.on(client):
            kx.stats.mmd_shapley(X[:300], Z[:300])
        for _ in range(repeats):
            _, wall, cpu = clock(lambda: kx.stats.mmd_shapley(X, Z).values)
            out["in-process"]["wall"].append(wall)
            out["in-process"]["cpu"].append(cpu)
            wc0, wf0 = _worker_cpu(client), _worker_faults(client)
            with kexplain.dask.on(client):
                res, wall, cpu = clock(lambda: kx.stats.mmd_shapley(X, Z).values)
            out["dask"]["wall"].append(wall)
            out["dask"]["cpu"].append(cpu + _worker_cpu(client) - wc0)
            split.append((cpu, _worker_cpu(client) - wc0))
            faults.append(_worker_faults(client) - wf0)
            out["dask"]["values"] = res
        ref = kx.stats.mmd_shapley(X, Z).values
    finally:
        client.close()
        cluster.close()
    stat = {k: {f: (float(np.min(v[f])), float(np.median(v[f]))) for f in ("wall", "cpu")} for k, v in out.items()}
    pairs = (2 * n) * (2 * n - 1) // 2
    diff = float(np.abs(out["dask"]["values"] - ref).max())
    client_cpu, workers_cpu = (float(np.median(c)) for c in zip(*split))
    return dict(
        n=n, d=d, pairs=pairs, stat=stat, diff=diff, faults=int(np.median(faults)), split=(client_cpu, workers_cpu)
    )


def growth(quick: bool) -> list[tuple[str, np.ndarray, np.ndarray, str]]:
    """Per factor: (name, grid, seconds per call, game), the other factors fixed."""
    base = dict(N=200, R=200, M=50, d=10)
    grids = {
        "N": [100, 200, 400, 800] if quick else [200, 400, 800, 1600, 3200],
        "R": [100, 200, 400, 800] if quick else [200, 400, 800, 1600, 3200],
        "M": [25, 50, 100, 200] if quick else [25, 50, 100, 200, 400],
        "d": [5, 10, 20, 40] if quick else [5, 10, 20, 40, 80],
    }
    out = []
    for name, grid in grids.items():
        times = []
        for value in grid:
            p = {**base, name: value}
            rng = np.random.default_rng(2)
            em = expansion(p["R"], p["d"], seed=3)
            background = rng.normal(size=(p["M"], p["d"])) if name == "M" else None
            # the interventional game only for the background factor; its route must not switch
            explainer = kx.ProductKernelExplainer(em, background=background, max_block_bytes=2**21)
            X = rng.normal(size=(p["N"], p["d"]))
            explainer.explain(X[:2])
            _, _, cpu = clock(lambda e=explainer, x=X: e.explain(x))
            times.append(cpu)
        game = "interventional (quadrature route)" if name == "M" else "functional"
        out.append((name, np.array(grid, dtype=float), np.array(times), game))
    return out


def fit_exponent(x: np.ndarray, t: np.ndarray) -> tuple[float, float]:
    """Least squares of log t = a + b log x: returns (b, a)."""
    A = np.column_stack([np.ones_like(x), np.log(x)])
    (a, b), *_ = np.linalg.lstsq(A, np.log(t), rcond=None)
    return float(b), float(a)


def report_explain(n_points: int, block: int) -> None:
    r = scale_out(n_points, 20, 1000, block)
    st = r["stat"]
    keys = ["in-process", "threads", "dask"]
    names = ["in-process, 1 thread", "n_jobs=2 threads", "dask LocalCluster 2 processes x 1"]
    rows = []
    for k, key in enumerate(keys):
        (wmin, wmed), (cmin, cmed) = st[key]["wall"], st[key]["cpu"]
        rows.append(
            [
                names[k],
                f"{fmt_s(wmin)} / {fmt_s(wmed)}",
                f"{fmt_s(cmin)} / {fmt_s(cmed)}",
                f"{st['in-process']['wall'][0] / wmin:.2f} / {st['in-process']['wall'][1] / wmed:.2f}",
                f"{cmed / st['in-process']['cpu'][1]:.2f}",
                f"{n_points / max(cmin, 1e-9):,.0f}",
                "0" if k == 0 else f"{r['diff'][k - 1]:.1e}",
            ]
        )
    print_table(
        f"{n_points:,} points, d = 20, 1,000 support vectors, functional game, dask blocks of {block:,} rows; "
        "min / median of 3 interleaved warm repetitions " + load_note(),
        [
            "side",
            "wall",
            "CPU (incl. workers)",
            "speed-up (wall)",
            "CPU / in-process CPU (median)",
            "points/s per core (CPU)",
            "max |diff|",
        ],
        rows,
    )
    per_core = n_points / st["in-process"]["cpu"][0]
    overhead = st["dask"]["cpu"][1] / st["in-process"]["cpu"][1] - 1.0
    for key in ("threads", "dask"):
        wmin, wmed = st["in-process"]["wall"][0] / st[key]["wall"][0], st["in-process"]["wall"][1] / st[key]["wall"][1]
        result(f"scale_out_{key}_2_vs_1_core", wmin, 1.7 if key == "dask" else None, "x", note=f"median {wmed:.2f}x")
    result("scale_out_dask_cpu_overhead", 100 * overhead, None, "%", higher_is_better=False)
    print(
        f"per-core throughput {per_core:,.0f} points/s (in-process CPU time); dask overhead "
        f"{100 * overhead:+.1f}% CPU (median, workers' CPU included); workers' page faults per run "
        f"{r['faults']:,} (median); sides measured in the same run\n"
    )


def report_mmd(mmd_n: int) -> None:
    m = mmd_scale_out(mmd_n, 20)
    st = m["stat"]
    rows = []
    for key, label in (("in-process", "in-process, 1 thread"), ("dask", "dask LocalCluster 2 processes x 1")):
        (wmin, wmed), (cmin, cmed) = st[key]["wall"], st[key]["cpu"]
        rows.append(
            [
                label,
                f"{fmt_s(wmin)} / {fmt_s(wmed)}",
                f"{fmt_s(cmin)} / {fmt_s(cmed)}",
                f"{st['in-process']['wall'][0] / wmin:.2f} / {st['in-process']['wall'][1] / wmed:.2f}",
                f"{cmed / st['in-process']['cpu'][1]:.2f}",
                f"{m['pairs'] / cmin / 1e6:.2f}",
                "0" if key == "in-process" else f"{m['diff']:.1e}",
            ]
        )
    print_table(
        f"complete MMD^2 attribution, n = m = {m['n']:,} ({m['pairs']:,} pairs), d = 20; min / median of 3 "
        "interleaved warm repetitions " + load_note(),
        [
            "side",
            "wall",
            "CPU (incl. scheduler, workers)",
            "speed-up (wall)",
            "CPU / in-process CPU (median)",
            "M pairs/s per core (CPU)",
            "max |diff|",
        ],
        rows,
    )
    wmin = st["in-process"]["wall"][0] / st["dask"]["wall"][0]
    wmed = st["in-process"]["wall"][1] / st["dask"]["wall"][1]
    result("scale_out_mmd_dask_2_vs_1_core", wmin, 1.7, "x", note=f"median {wmed:.2f}x, n=m={m['n']}")
    mmd_overhead = st["dask"]["cpu"][1] / st["in-process"]["cpu"][1] - 1.0
    result("scale_out_mmd_dask_cpu_overhead", 100 * mmd_overhead, None, "%", higher_is_better=False)
    print(
        f"per-core throughput {m['pairs'] / st['in-process']['cpu'][0] / 1e6:.2f} M pairs/s (in-process CPU "
        f"time); dask overhead {100 * mmd_overhead:+.1f}% CPU (median; scheduler and workers included); "
        f"workers' page faults per run {m['faults']:,} (median); dask CPU split (medians): client and "
        f"scheduler {fmt_s(m['split'][0])}, workers {fmt_s(m['split'][1])}\n"
    )


def report_growth(quick: bool, out: Path | None) -> None:
    table = growth(quick)
    grow_rows = []
    for name, x, t, game in table:
        b, _ = fit_exponent(x, t)
        grow_rows.append([name, game, ", ".join(f"{int(v)}" for v in x), ", ".join(fmt_s(s) for s in t), f"{b:.2f}"])
    print_table(
        "How the in-process cost grows (CPU time of one explain call; others fixed at N=200, R=200, M=50, d=10)",
        ["factor", "game", "grid", "CPU time", "fitted exponent"],
        grow_rows,
    )
    out = out if out is not None else Path(tempfile.mkdtemp(prefix="kexplain-bench-"))
    out.mkdir(parents=True, exist_ok=True)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot written")
        return
    fig, axes = plt.subplots(1, 4, figsize=(14, 3.4))
    for ax, (name, x, t, game) in zip(axes, table):
        b, a = fit_exponent(x, t)
        ax.loglog(x, t, "o", label="measured")
        ax.loglog(x, np.exp(a) * x**b, "-", label=f"fit: exponent {b:.2f}")
        ax.set_xlabel(name)
        ax.set_title(game, fontsize=8)
        ax.legend(fontsize=8)
    axes[0].set_ylabel("CPU seconds per explain call")
    fig.tight_layout()
    path = out / "scale_out_growth.png"
    fig.savefig(path, dpi=100)
    print(f"plot written to {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5,000 points and a smaller growth grid")
    parser.add_argument("--block", type=int, default=5000, help="rows per dask block (default 5,000)")
    parser.add_argument(
        "--points", type=int, default=None, help="points explained (default 20,000, the issue's target; --quick 5,000)"
    )
    parser.add_argument("--mmd-n", type=int, default=None, help="rows per sample of the MMD side (default 2,000)")
    parser.add_argument("--out", type=Path, default=None, help="folder for the PNG plot (default: a temp folder)")
    parser.add_argument(
        "--dask-defaults",
        action="store_true",
        help="Dask's default cluster configuration (default: profiler off, slower admin ticks: docs/scale.md)",
    )
    parser.add_argument(
        "--parts",
        default="explain,mmd,growth",
        help="comma-separated parts to run: explain (20,000 points), mmd (MMD^2 attribution), growth (default: all)",
    )
    args = parser.parse_args()
    global DASK_DEFAULTS
    DASK_DEFAULTS = args.dask_defaults
    print(f"dask cluster configuration: {'defaults' if DASK_DEFAULTS else RECOMMENDED}")
    quick = args.quick or os.environ.get("KEXPLAIN_QUICK") == "1"
    n_points = args.points if args.points else (5_000 if quick else 20_000)
    # at least 4 blocks per worker: a straggling block then delays the end by a small fraction
    block = min(args.block, max(1, n_points // 8))

    parts = {p.strip() for p in args.parts.split(",") if p.strip()}
    unknown = parts - {"explain", "mmd", "growth"}
    if unknown:
        parser.error(f"--parts: unknown part(s) {sorted(unknown)}; accepted: explain, mmd, growth")
    if "explain" in parts:
        report_explain(n_points, block)
    if "mmd" in parts:
        report_mmd(args.mmd_n if args.mmd_n else (600 if quick else 2000))
    if "growth" in parts:
        report_growth(quick, args.out)


if __name__ == "__main__":
    main()

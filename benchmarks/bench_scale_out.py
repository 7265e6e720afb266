"""Scale out: in-process vs n_jobs=2 threads vs a 2-worker dask LocalCluster, and how cost grows.

1. Explain 100,000 points (``--quick``: 5,000) at d = 20 with an RBF kernel expansion of 1,000
   support vectors, in the **functional game** (PKeX's functional baseline: no background, the
   per-point quadrature route, so every side gives bit-identical values):
   - in-process, one thread: ``explainer.explain(X)``;
   - ``explainer.explain(X, n_jobs=2)``: two joblib threads;
   - ``kexplain.dask.explain_dask`` on a LocalCluster of 2 worker **processes** x 1 thread each
     (``processes=True``: what a cluster does, pickling included), blocks of ``--block`` rows
     (default 5,000).  The workers inherit the one-thread BLAS settings.
   Every side is warmed once (the workers receive the explainer and compile their kernels) and then
   timed in 3 interleaved repetitions; the table gives min and median wall time.  CPU time is this
   process's plus, for dask, the workers' (read on each worker before and after).
   Printed: wall and CPU times, the ratios to the in-process time, points per second per core,
   the dask overhead (extra CPU seconds relative to in-process) and the largest difference.
2. A table of how the in-process cost grows with the number of points N, support vectors R,
   background rows M (interventional game, quadrature route) and features d: a small grid of
   timings per factor, the others fixed, and the exponent fitted by log-log least squares
   (cost ~ factor^exponent), with a PNG plot written to ``--out`` (default: a new temp folder).

BLAS is single-threaded (set before numpy loads), so a "core" is one thread.

    python benchmarks/bench_scale_out.py [--quick] [--block ROWS] [--out FOLDER]
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


def scale_out(n_points: int, d: int, n_sv: int, block: int, repeats: int = 3) -> dict:
    import dask.array as da
    import distributed

    from kexplain.dask import explain_dask

    rng = np.random.default_rng(1)
    X = rng.normal(size=(n_points, d))
    explainer = kx.ProductKernelExplainer(expansion(n_sv, d))
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=50
    )
    client = distributed.Client(cluster)
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
        for _ in range(repeats):  # interleaved, so a burst of load hits every side alike
            for name, fn in sides.items():
                wc0 = _worker_cpu(client) if name == "dask" else 0.0
                res, wall, cpu = clock(fn)
                if name == "dask":
                    cpu += _worker_cpu(client) - wc0
                out[name]["wall"].append(wall)
                out[name]["cpu"].append(cpu)
                out[name]["values"] = res
    finally:
        client.close()
        cluster.close()
    ref = out["in-process"]["values"]
    diffs = tuple(float(np.abs(out[k]["values"] - ref).max()) for k in ("threads", "dask"))
    stat = {k: {f: (float(np.min(v[f])), float(np.median(v[f]))) for f in ("wall", "cpu")} for k, v in out.items()}
    return dict(n=n_points, d=d, R=n_sv, block=block, stat=stat, diff=diffs)


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5,000 points and a smaller growth grid")
    parser.add_argument("--block", type=int, default=5000, help="rows per dask block (default 5,000)")
    parser.add_argument("--out", type=Path, default=None, help="folder for the PNG plot (default: a temp folder)")
    args = parser.parse_args()
    quick = args.quick or os.environ.get("KEXPLAIN_QUICK") == "1"
    n_points = 5_000 if quick else 100_000
    block = min(args.block, max(1, n_points // 4)) if quick else args.block

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
        f"{100 * overhead:+.1f}% CPU (median, workers' CPU included); sides measured in the same run\n"
    )

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
    out = args.out if args.out is not None else Path(tempfile.mkdtemp(prefix="kexplain-bench-"))
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


if __name__ == "__main__":
    main()

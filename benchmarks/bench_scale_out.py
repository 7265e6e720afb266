"""Scale out: in-process vs n_jobs=2 threads vs a 2-worker dask LocalCluster, and how cost grows.

1. Explain 100,000 points (``--quick``: 5,000) at d = 20 with an RBF kernel expansion of 1,000
   support vectors, in the **functional game** (PKeX's functional baseline: no background, the
   per-point quadrature route, so every side gives bit-identical values):
   - in-process, one thread: ``explainer.explain(X)``;
   - ``explainer.explain(X, n_jobs=2)``: two joblib threads;
   - ``kexplain.dask.explain_dask`` on a LocalCluster of 2 workers x 1 thread (in-process workers,
     ``processes=False``; the engine releases the GIL), blocks of ``--block`` rows (default 5,000).
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
from _common import fmt_s, load_note, print_table

import kexplain as kx


def expansion(n_ref: int, d: int, seed: int = 0) -> kx.KernelExpansion:
    rng = np.random.default_rng(seed)
    # lengthscale sqrt(d): kernel values stay away from 0 as d grows
    return kx.KernelExpansion(rng.normal(size=(n_ref, d)), rng.normal(size=n_ref), kx.kernels.RBF(np.sqrt(d)))


def clock(fn):
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w0, time.process_time() - c0


def scale_out(n_points: int, d: int, n_sv: int, block: int) -> dict:
    import dask.array as da
    import distributed

    from kexplain.dask import explain_dask

    rng = np.random.default_rng(1)
    X = rng.normal(size=(n_points, d))
    explainer = kx.ProductKernelExplainer(expansion(n_sv, d))
    explainer.explain(X[:10])  # warm up the compiled kernel
    ref, w1, c1 = clock(lambda: explainer.explain(X))
    thr, w2, c2 = clock(lambda: explainer.explain(X, n_jobs=2))
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0", silence_logs=50
    )
    with distributed.Client(cluster) as client:
        client.run(lambda: None)
        # the cluster's workers run in this process, so process CPU time counts them too
        res, w3, c3 = clock(
            lambda: client.compute(
                explain_dask(explainer, da.from_array(X, chunks=(block, d)), client=client).values, sync=True
            )
        )
    cluster.close()
    diff_thr = float(np.abs(thr.values - ref.values).max())
    diff_dask = float(np.abs(res - ref.values).max())
    return dict(n=n_points, d=d, R=n_sv, block=block, wall=(w1, w2, w3), cpu=(c1, c2, c3), diff=(diff_thr, diff_dask))


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
    names = ["in-process, 1 thread", "n_jobs=2 threads", "dask LocalCluster 2x1"]
    cores = [1, 2, 2]
    rows = []
    for k in range(3):
        wall, cpu = r["wall"][k], r["cpu"][k]
        rows.append(
            [
                names[k],
                fmt_s(wall),
                fmt_s(cpu),
                f"{r['wall'][0] / wall:.2f}",
                f"{cpu / r['cpu'][0]:.2f}",
                f"{n_points / max(cpu, 1e-9):,.0f}",
                "0" if k == 0 else f"{r['diff'][k - 1]:.1e}",
            ]
        )
    print_table(
        f"{n_points:,} points, d = 20, 1,000 support vectors, functional game, dask blocks of {block:,} rows "
        + load_note(),
        [
            "side",
            "wall",
            "CPU (all threads)",
            "speed-up (wall)",
            "CPU / in-process CPU",
            "points/s per core (CPU)",
            "max |diff|",
        ],
        rows,
    )
    per_core = n_points / r["cpu"][0]
    overhead = r["cpu"][2] / r["cpu"][0] - 1.0
    print(
        f"per-core throughput {per_core:,.0f} points/s (in-process CPU time); dask overhead "
        f"{100 * overhead:+.1f}% CPU; {len(cores)} sides measured in the same run\n"
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

"""Interventional SHAP on a GPU: the array API engine in PyTorch against numpy (numba) on the CPU.

An RBF kernel expansion with a few thousand support vectors, a few thousand background rows and d
in {10, 50, 200}; ``ProductKernelExplainer(model, background=B).explain(X)`` with X a numpy array
(the numba kernel, one CPU thread, and the subset route where the cost model picks it) against X a
torch tensor on 'cuda' (the same quadrature engine written against the array API, float64, and
float32 for comparison).  Prints the time per explained point on both sides, their ratio and the
largest difference of the values.  Without a GPU it says so and runs torch on the CPU.

    python benchmarks/bench_gpu.py [--quick]

Needs numpy, torch, scikit-learn and kexplain (installed from the checkout); no network.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

import kexplain as kx


def _sync(torch, device):
    if device == "cuda":
        torch.cuda.synchronize()


def main() -> None:
    import torch

    quick = "--quick" in sys.argv or os.environ.get("KEXPLAIN_QUICK") == "1"
    device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cpu":
        print("no CUDA device: torch runs on the CPU (the ratio then compares two CPU paths)")
    else:
        print(f"GPU: {torch.cuda.get_device_name(0)}, torch {torch.__version__}")
    n_sv, n_bg = (100, 50) if quick else (2000, 2000)
    cpu_points = 1 if not quick else 2
    gpu_points = 2 if quick else 8
    rows = []
    for d in (10, 50, 200):
        rng = np.random.default_rng(d)
        X_ref = rng.normal(size=(n_sv, d))
        model = kx.KernelExpansion(X_ref, rng.normal(size=n_sv), kx.kernels.RBF(float(np.sqrt(d))))
        background = rng.normal(size=(n_bg, d))
        X = rng.normal(size=(gpu_points, d))
        explainer = kx.ProductKernelExplainer(model, background=background)
        explainer.explain(X[:1])  # warm-up (compiled kernels)
        t0 = time.perf_counter()
        ref = explainer.explain(X[:cpu_points])
        t_cpu = (time.perf_counter() - t0) / cpu_points
        Xt = torch.asarray(X, device=device)
        explainer.explain(Xt[:1])  # warm-up: moves the background factors to the device once
        timings = {}
        results = {}
        for dtype in ("float64", "float32"):
            _sync(torch, device)
            t0 = time.perf_counter()
            results[dtype] = explainer.explain(Xt, dtype=dtype)
            _sync(torch, device)
            timings[dtype] = (time.perf_counter() - t0) / gpu_points
        scale = float(np.max(np.abs(ref.values)))
        diff64 = float(np.max(np.abs(results["float64"].values[:cpu_points] - ref.values))) / scale
        diff32 = float(np.max(np.abs(results["float32"].values[:cpu_points] - ref.values))) / scale
        rows.append(
            (
                d,
                explainer.route,
                t_cpu,
                timings["float64"],
                t_cpu / timings["float64"],
                diff64,
                timings["float32"],
                t_cpu / timings["float32"],
                diff32,
                results["float32"].efficiency_error,
            )
        )
    head = (
        f"{'d':>4} {'CPU route':>10} {'numpy/pt':>10} {'torch64/pt':>11} {'ratio':>8} {'max rel diff':>12}"
        f" {'torch32/pt':>11} {'ratio':>8} {'rel diff 32':>11} {'eff err 32':>10}"
    )
    print(f"\nInterventional SHAP, {n_sv} support vectors x {n_bg} background rows; torch on {device}")
    print(head)
    print("-" * len(head))
    for d, route, tc, t64, r64, d64, t32, r32, d32, e32 in rows:
        print(
            f"{d:>4} {route:>10} {tc:>9.4f}s {t64:>10.4f}s {r64:>7.1f}x {d64:>12.1e}"
            f" {t32:>10.4f}s {r32:>7.1f}x {d32:>11.1e} {e32:>10.1e}"
        )
    worst = max(r[5] for r in rows)
    if worst > 1e-10:
        raise SystemExit(f"largest float64 difference {worst:.1e} exceeds 1e-10")


if __name__ == "__main__":
    main()

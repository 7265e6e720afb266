"""Interventional SHAP on a GPU: the array API engine in PyTorch against numpy (numba) on one CPU core.

An RBF kernel expansion, background rows and d in {50, 200, 1000} (issue 26 item 6);
``ProductKernelExplainer(model, background=B).explain(X)`` with X a numpy array (the numba kernel,
one CPU thread) against X a torch tensor on 'cuda' in float64 and float32, each through the
generic array API path (``KEXPLAIN_GPU_KERNELS=generic``: (pairs, nodes, features) arrays in device
memory) and through the fused reductions compiled by ``torch.compile`` (the default on a GPU).
Prints seconds per explained point on every side, the ratios, the first call's compile time, the
largest differences of the values, and a check of the log-space fallback on the device.  Without a
GPU it says so and runs torch on the CPU (the fused path is then not taken by default: the GPU
columns compare two CPU paths).

    python benchmarks/bench_gpu.py [--quick]

Needs numpy, torch, array-api-compat, scikit-learn and kexplain (from the checkout); no network.
"""

from __future__ import annotations

import os
import sys
import time

import _common  # noqa: F401  (first: single-threaded BLAS before numpy loads)
import numpy as np
from _common import result, threads_note

import kexplain as kx
from kexplain.shapley import product_game_block

#: the choice of GPU kernels (kexplain.shapley._product_torch)
KERNELS_ENV = "KEXPLAIN_GPU_KERNELS"

#: (d, support vectors, background rows): CPU time per point of a few seconds each
CONFIGS = ((50, 1000, 1000), (200, 500, 500), (1000, 200, 100))
QUICK_CONFIGS = ((50, 60, 40), (200, 30, 20))


def _sync(torch, device):
    if device == "cuda":
        torch.cuda.synchronize()


def _device_time(torch, device, fn):
    _sync(torch, device)
    t0 = time.perf_counter()
    out = fn()
    _sync(torch, device)
    return out, time.perf_counter() - t0


def _check_log_space(torch, device):
    """Underflowing products, zeros and negative factors on the device: largest relative difference."""
    rng = np.random.default_rng(5)
    cases = [
        (rng.uniform(0.01, 0.2, (2, 5, 300)), rng.uniform(0.01, 0.2, (5, 300)), rng.normal(size=(5, 1)) * 1e250),
    ]
    a = rng.normal(size=(2, 6, 8))
    a[0, 0, 2] = 0.0
    a[1, 1, :3] = 0.0
    b = rng.normal(size=(2, 6, 8))
    b[0, 2, 1] = 0.0
    cases.append((a, b, rng.normal(size=(6, 2))))
    worst = 0.0
    for a, b, c in cases:
        ref = product_game_block(a, b, c)
        out = product_game_block(*(torch.asarray(x, device=device) for x in (a, b, c)))
        for x, r in zip(out, ref):
            x = x.cpu().numpy()
            worst = max(worst, float(np.max(np.abs(x - r)) / max(np.max(np.abs(r)), 1e-300)))
    return worst


def main() -> None:
    import torch

    quick = "--quick" in sys.argv or os.environ.get("KEXPLAIN_QUICK") == "1"
    device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cpu":
        print("no CUDA device: torch runs on the CPU (the ratios then compare CPU paths)")
    else:
        print(f"GPU: {torch.cuda.get_device_name(0)}, torch {torch.__version__}")
    print(threads_note())
    gpu_points = 2 if quick else 4
    # compile numba's kernels on a tiny model, so the CPU timings below hold no compilation
    # (the subset route's kernel at d = 3, the quadrature kernel and the spread pass at d = 40)
    rng = np.random.default_rng(0)
    for d in (3, 40):
        tiny = kx.KernelExpansion(rng.normal(size=(5, d)), rng.normal(size=5), kx.kernels.RBF(1.0))
        kx.ProductKernelExplainer(tiny, background=rng.normal(size=(4, d))).explain(rng.normal(size=(1, d)))
    rows = []
    for d, n_sv, n_bg in QUICK_CONFIGS if quick else CONFIGS:
        rng = np.random.default_rng(d)
        X_ref = rng.normal(size=(n_sv, d))
        model = kx.KernelExpansion(X_ref, rng.normal(size=n_sv), kx.kernels.RBF(float(np.sqrt(d))))
        background = rng.normal(size=(n_bg, d))
        X = rng.normal(size=(gpu_points, d))
        explainer = kx.ProductKernelExplainer(model, background=background)
        c0 = time.process_time()
        ref, t_cpu = _device_time(torch, "cpu", lambda e=explainer, x=X[:1]: e.explain(x))
        cpu_s = time.process_time() - c0
        Xt = torch.asarray(X, device=device)
        row = {"d": d, "pairs": n_sv * n_bg, "route": explainer.route, "cpu": t_cpu, "cpu_cpu": cpu_s}
        for mode, env in (("generic", "generic"), ("fused", "compile")):
            os.environ[KERNELS_ENV] = env
            for dtype in ("float64", "float32"):
                # first call: moves the background factors to the device; compiles the fused kernels
                _, first = _device_time(torch, device, lambda e=explainer, x=Xt[:1], dt=dtype: e.explain(x, dtype=dt))
                res, t = _device_time(torch, device, lambda e=explainer, x=Xt, dt=dtype: e.explain(x, dtype=dt))
                scale = float(np.max(np.abs(ref.values)))
                diff = float(np.max(np.abs(res.values[:1] - ref.values))) / scale
                row[f"{mode}{dtype[-2:]}"] = t / gpu_points
                row[f"{mode}{dtype[-2:]}_first"] = first
                row[f"{mode}{dtype[-2:]}_diff"] = diff
        os.environ.pop(KERNELS_ENV, None)
        rows.append(row)
        print(f"d = {d} done: CPU {t_cpu:.3f} s/pt, fused float64 {row['fused64']:.4f} s/pt", flush=True)
    log_diff = _check_log_space(torch, device)
    head = (
        f"{'d':>5} {'pairs':>8} {'CPU s/pt':>9} {'gen64':>8} {'fused64':>8} {'CPU/fused64':>11}"
        f" {'gen/fused':>9} {'gen32':>8} {'fused32':>8} {'CPU/fused32':>11} {'diff64':>8} {'diff32':>8}"
        f" {'1st fused':>9}"
    )
    print(f"\nInterventional SHAP per explained point (s); torch on {device}; CPU = numba on one core")
    print(head)
    print("-" * len(head))
    for r in rows:
        print(
            f"{r['d']:>5} {r['pairs']:>8} {r['cpu']:>9.3f} {r['generic64']:>8.4f} {r['fused64']:>8.4f}"
            f" {r['cpu'] / r['fused64']:>10.1f}x {r['generic64'] / r['fused64']:>8.1f}x {r['generic32']:>8.4f}"
            f" {r['fused32']:>8.4f} {r['cpu'] / r['fused32']:>10.1f}x {r['fused64_diff']:>8.1e}"
            f" {r['fused32_diff']:>8.1e} {r['fused64_first']:>8.1f}s"
        )
    for r in rows:
        units = r["pairs"] * r["d"] * ((r["d"] + 1) // 2)  # (pair, feature, node) triples per point
        print(
            f"d = {r['d']}: {units / r['fused64'] / 1e9:.1f} G pair-feature-nodes/s fused float64, "
            f"{units / r['cpu'] / 1e9:.3f} G on the CPU core (CPU time {r['cpu_cpu']:.3f} s)"
        )
        result(f"gpu_fused64_vs_cpu_d{r['d']}", r["cpu"] / r["fused64"], None, note=f"device={device}")
        result(f"gpu_fused_vs_generic64_d{r['d']}", r["generic64"] / r["fused64"], None, note=f"device={device}")
    print(f"log-space fallback on {device}: largest relative difference {log_diff:.1e}")
    worst = max(max(r["fused64_diff"], r["generic64_diff"]) for r in rows)
    if worst > 1e-10 or log_diff > 1e-12:
        raise SystemExit(f"float64 differences {worst:.1e} / {log_diff:.1e} exceed 1e-10 / 1e-12")


if __name__ == "__main__":
    main()

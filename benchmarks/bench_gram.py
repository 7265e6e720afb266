"""Gram matrices: kexplain's kernels against scikit-learn's pairwise kernels (issue 15, item 4).

RBF (one lengthscale), ARD RBF (one lengthscale per feature) and Laplacian Gram matrices of
2,000 x 2,000 rows at d = 20 (``--quick``: 500 x 500).  scikit-learn computes them on inputs
divided by the lengthscales (``rbf_kernel(X / l, Y / l, gamma=0.5)``,
``laplacian_kernel(X / l, Y / l, gamma=1)``); kexplain's ``kernel(X, Y)`` goes through scaled
distances too, with an exact-difference path for entries where the squared-distance expansion
could lose digits.  Printed: the largest absolute difference, wall time (best of 3), peak memory
of the call (tracemalloc), and kexplain / scikit-learn ratios.  For reference, the former
factor-tensor path (``amplitude * prod(kernel.feature_values(X, Y), axis=-1)``) is timed too.

A second table (issue 20, item 1) times a stationary profile added the way CONTRIBUTING says
(a ``_Stationary`` subclass with only ``_profile``: here a Matern-3/2 factor) against the kernels
with their own fast paths (Laplacian, Cauchy), in the same run: "generic path" is the kernel's
Gram matrix now (the profile accumulated feature by feature in cache-sized blocks), "former
generic path" the factor-tensor product that such a kernel got before (row blocks of
``prod(feature_values)``), and "profile arithmetic alone" the time of evaluating the profile
n * m * d times in cache-sized arrays (what any feature-by-feature path must spend).

    python benchmarks/bench_gram.py [--quick]
"""

from __future__ import annotations

import time
import tracemalloc

import _common  # noqa: F401  (first: single-threaded BLAS before numpy loads)
import numpy as np
from _common import fmt_s, load_note, print_table, quick_flag, result
from sklearn.metrics.pairwise import laplacian_kernel, rbf_kernel

from kexplain.kernels import RBF, Cauchy, Laplacian
from kexplain.kernels._gram import _row_step
from kexplain.kernels.base import _Stationary


class Matern32(_Stationary):
    """A profile-only kernel, as a contributor adds one: (1 + sqrt(3)|u|) exp(-sqrt(3)|u|)."""

    def _profile(self, u):
        a = np.sqrt(3.0) * np.abs(u)
        return (1.0 + a) * np.exp(-a)


def profile_arithmetic(kernel, n_values):
    """The profile evaluated n_values times in cache-sized arrays: the floor of any per-feature path."""
    u = np.linspace(-3.0, 3.0, 2**15)
    for _ in range(max(1, n_values // u.size)):
        kernel._profile(u)


def former_generic(kernel, X, Y):
    """The generic Gram path before issue 20: the factor tensor prod(feature_values), in row blocks."""
    n, m, d = len(X), len(Y), X.shape[1]
    out = np.empty((n, m))
    step = _row_step(m, d)
    for s in range(0, n, step):
        out[s : s + step] = np.prod(kernel.feature_values(X[s : s + step], Y), axis=-1)
    return kernel.amplitude * out


REPEATS = 3


def measure(fn):
    """(result, best wall time of REPEATS, peak traced bytes of one call)."""
    best = float("inf")
    out = None
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return out, best, peak


def mib(nbytes):
    return f"{nbytes / 2**20:.1f} MiB"


def main():
    quick = quick_flag()
    n = 500 if quick else 2000
    d = 20
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(n, d)), rng.normal(size=(n, d))
    ard = np.linspace(2.0, 8.0, d)
    cases = [
        ("RBF", RBF(4.0), lambda: rbf_kernel(X / 4.0, Y / 4.0, gamma=0.5)),
        ("ARD RBF", RBF(ard), lambda: rbf_kernel(X / ard, Y / ard, gamma=0.5)),
        ("Laplacian", Laplacian(4.0), lambda: laplacian_kernel(X / 4.0, Y / 4.0, gamma=1.0)),
    ]
    rows = []
    for name, kernel, theirs in cases:
        ours_K, t_ours, m_ours = measure(lambda k=kernel: k(X, Y))
        sk_K, t_sk, m_sk = measure(theirs)
        t0 = time.perf_counter()
        tensor_K = kernel.amplitude * np.prod(kernel.feature_values(X, Y), axis=-1)
        t_tensor = time.perf_counter() - t0
        # issue 26's goal: Gram matrices of X against Y at least as fast as scikit-learn's
        result(f"gram_{name.replace(' ', '_')}_XY_vs_sklearn", t_sk / t_ours, 1.0, "x", note=f"n={n}, d={d}")
        rows.append(
            [
                name,
                f"{np.max(np.abs(ours_K - sk_K)):.1e}",
                f"{np.max(np.abs(ours_K - tensor_K) / np.maximum(tensor_K, 1e-300)):.1e}",
                fmt_s(t_ours),
                fmt_s(t_sk),
                f"{t_ours / t_sk:.2f}",
                mib(m_ours),
                mib(m_sk),
                f"{m_ours / m_sk:.2f}",
                fmt_s(t_tensor),
            ]
        )
    print_table(
        f"Gram matrices, {n} x {n} rows, d = {d}: kexplain vs sklearn.metrics.pairwise {load_note()}",
        [
            "kernel",
            "max |diff| vs sklearn",
            "max rel diff vs factors",
            "kexplain",
            "sklearn",
            "time ratio",
            "kexplain peak",
            "sklearn peak",
            "memory ratio",
            "factor tensor (old)",
        ],
        rows,
    )

    profile_rows = []
    lap = None
    for name, kernel in [
        ("Laplacian", Laplacian(4.0)),
        ("Cauchy", Cauchy(4.0)),
        ("Matern-3/2 (profile only)", Matern32(4.0)),
    ]:
        K_now, t_now, _ = measure(lambda k=kernel: k(X, Y))
        K_old, t_old, _ = measure(lambda k=kernel: former_generic(k, X, Y))
        _, t_arith, _ = measure(lambda k=kernel: profile_arithmetic(k, n * n * d))
        lap = t_now if lap is None else lap
        profile_rows.append(
            [
                name,
                f"{np.max(np.abs(K_now - K_old)):.1e}",
                fmt_s(t_now),
                fmt_s(t_old),
                f"{t_old / t_now:.1f}",
                f"{t_now / lap:.1f}",
                fmt_s(t_arith),
            ]
        )
    print_table(
        f"Stationary profiles, {n} x {n} rows, d = {d}: each kernel's Gram path vs the former generic path "
        f"{load_note()}",
        [
            "kernel",
            "max |diff|",
            "Gram path now",
            "former generic path",
            "speed-up",
            "time / Laplacian",
            "profile arithmetic alone",
        ],
        profile_rows,
    )


if __name__ == "__main__":
    main()

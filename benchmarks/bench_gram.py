"""Gram matrices: kexplain's kernels against scikit-learn's pairwise kernels (issue 15, item 4).

RBF (one lengthscale), ARD RBF (one lengthscale per feature) and Laplacian Gram matrices of
2,000 x 2,000 rows at d = 20 (``--quick``: 500 x 500).  scikit-learn computes them on inputs
divided by the lengthscales (``rbf_kernel(X / l, Y / l, gamma=0.5)``,
``laplacian_kernel(X / l, Y / l, gamma=1)``); kexplain's ``kernel(X, Y)`` goes through scaled
distances too, with an exact-difference path for entries where the squared-distance expansion
could lose digits (issue 26: with numba, one compiled pass over each block does that expansion and
flags the entries for exact differences, where numpy needed six to eight passes; the numbers are
the same bit for bit, and the "numpy passes" column times the path without it).  Printed: each
side's largest relative error against a direct-difference reference in extended precision
(np.longdouble), wall time (min / median of 5 interleaved repetitions), peak memory of the call
(tracemalloc), and scikit-learn / kexplain ratios (above 1: kexplain is faster).  For reference, the former
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
from _common import compare, fmt_s, load_note, print_table, quick_flag, result
from sklearn.metrics.pairwise import laplacian_kernel, rbf_kernel

from kexplain.kernels import RBF, Cauchy, Laplacian, _gram
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


REPEATS = 5
#: rows of X checked against the extended-precision reference (all of Y)
ACC_ROWS = 200


def numpy_passes(kernel, X, Y):
    """The RBF Gram matrix through the numpy passes (the path before the compiled one; bitwise equal)."""
    old = _gram.RBF_COMPILED_MIN_ELEMS
    _gram.RBF_COMPILED_MIN_ELEMS = 2**62
    try:
        return kernel(X, Y)
    finally:
        _gram.RBF_COMPILED_MIN_ELEMS = old


def reference(kernel, X, Y):
    """The Gram matrix by direct differences in extended precision (np.longdouble), row by row."""
    ls = np.asarray(kernel.lengthscale, dtype=np.longdouble)
    A, B = X.astype(np.longdouble) / ls, Y.astype(np.longdouble) / ls
    out = np.empty((len(A), len(B)), dtype=np.longdouble)
    for r, a in enumerate(A):
        u = a - B
        out[r] = np.exp(-0.5 * np.sum(u * u, axis=1)) if isinstance(kernel, RBF) else np.exp(-np.sum(np.abs(u), axis=1))
    return out


def rel_err(K, R):
    big = R > 1e-300
    return float(np.max(np.abs(K[big] - R[big]) / R[big]))


def peak(fn):
    """Peak traced bytes of one call."""
    tracemalloc.start()
    fn()
    out = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return out


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
        fns = {"ours": lambda k=kernel: k(X, Y), "sklearn": theirs}
        if isinstance(kernel, RBF):  # the RBF path before its compiled pass (issue 26): numpy passes only
            fns["numpy passes"] = lambda k=kernel: numpy_passes(k, X, Y)
        t = compare(fns, repeats=REPEATS, clock="wall")
        ours_K, sk_K = t["ours"]["result"], t["sklearn"]["result"]
        m_ours, m_sk = peak(fns["ours"]), peak(theirs)
        t0 = time.perf_counter()
        tensor_K = kernel.amplitude * np.prod(kernel.feature_values(X, Y), axis=-1)
        t_tensor = time.perf_counter() - t0
        ref = reference(kernel, X[:ACC_ROWS], Y)
        t_o, t_s = t["ours"], t["sklearn"]
        # issue 26's goal: Gram matrices of X against Y at least as fast as scikit-learn's
        result(
            f"gram_{name.replace(' ', '_')}_XY_vs_sklearn",
            t_s["min"] / t_o["min"],
            1.0,
            "x",
            note=f"n={n}, d={d}, median {t_s['median'] / t_o['median']:.2f}x, {REPEATS} interleaved reps",
        )
        if "numpy passes" in t:
            t_n = t["numpy passes"]
            if not np.array_equal(t_n["result"], ours_K):
                raise SystemExit(f"{name}: the compiled pass changed the Gram matrix")
            result(
                f"gram_{name.replace(' ', '_')}_XY_compiled_vs_numpy_passes",
                t_n["min"] / t_o["min"],
                None,
                "x",
                note=f"median {t_n['median'] / t_o['median']:.2f}x, bitwise equal",
            )
        rows.append(
            [
                name,
                f"{rel_err(ours_K[:ACC_ROWS], ref):.1e}",
                f"{rel_err(sk_K[:ACC_ROWS], ref):.1e}",
                f"{np.max(np.abs(ours_K - tensor_K) / np.maximum(tensor_K, 1e-300)):.1e}",
                f"{fmt_s(t_o['min'])} / {fmt_s(t_o['median'])}",
                f"{fmt_s(t_s['min'])} / {fmt_s(t_s['median'])}",
                f"{t_s['min'] / t_o['min']:.2f} ({t_s['median'] / t_o['median']:.2f})",
                "-" if "numpy passes" not in t else fmt_s(t["numpy passes"]["min"]),
                mib(m_ours),
                mib(m_sk),
                fmt_s(t_tensor),
            ]
        )
    print_table(
        f"Gram matrices X against Y, {n} x {n} rows, d = {d}: kexplain vs sklearn.metrics.pairwise, wall time "
        f"min / median of {REPEATS} interleaved repetitions, one BLAS thread {load_note()}",
        [
            "kernel",
            f"kexplain max rel err (first {ACC_ROWS} rows)",
            "sklearn max rel err",
            "max rel diff vs factors",
            "kexplain min / med",
            "sklearn min / med",
            "sklearn / kexplain (median)",
            "kexplain numpy passes (before)",
            "kexplain peak",
            "sklearn peak",
            "factor tensor (old)",
        ],
        rows,
    )
    print(
        "rel err: max |K - R| / R over entries R > 1e-300, R the direct-difference reference in extended\n"
        "precision (np.longdouble differences, squares, sum and exponential).\n"
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

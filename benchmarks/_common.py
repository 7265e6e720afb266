"""Helpers shared by the benchmark scripts: synthetic fitted models, a timer and a table printer.

Every benchmark measures both sides in the same run, on the same points, and prints the ratio and
the largest absolute difference.  Timings are wall-clock on whatever machine runs them; on a
shared machine they are noisy, so read ratios, not absolute numbers.
"""

from __future__ import annotations

import os
import sys
import time
import warnings

# single-threaded BLAS so that "one core" means one core, for both sides (before numpy loads)
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402


def quick_flag() -> bool:
    """`--quick` on the command line: fewer points for the slow competitor."""
    return "--quick" in sys.argv[1:]


def synthetic_regression(n, d, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, min(2, d - 1)] + 0.5 * X[:, d - 1] ** 2 + 0.1 * rng.normal(size=n)
    return X, y


def fit_svr(n_support, d, seed=0):
    """An RBF SVR (gamma='scale') with about ``n_support`` support vectors: a tiny epsilon makes
    almost every training row a support vector."""
    from sklearn.svm import SVR

    X, y = synthetic_regression(int(n_support * 1.05) + 5, d, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = SVR(kernel="rbf", C=10.0, epsilon=0.01).fit(X, y)
    return model, X


def timed(fn, *args, **kwargs):
    """(result, wall-clock seconds, CPU seconds of this process).

    BLAS is single-threaded here, so CPU time is the time on one core; it is the steadier of the
    two on a machine shared with other jobs, which inflate wall-clock time."""
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - w0, time.process_time() - c0


def print_table(title, header, rows):
    print(title)
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) for i, h in enumerate(header)]
    line = "  ".join(str(h).rjust(w) for h, w in zip(header, widths))
    print(line)
    print("-" * len(line))
    for r in rows:
        print("  ".join(str(v).rjust(w) for v, w in zip(r, widths)))
    print()


def fmt_s(seconds):
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} us"


def load_note():
    """One line with the machine's load, so noisy timings can be read in context."""
    try:
        load = os.getloadavg()[0]
        return f"(cpu count {os.cpu_count()}, 1-min load average {load:.2f}; timings are noisy when the load is high)"
    except OSError:  # pragma: no cover
        return ""


def compare(fns, *, repeats=3, warmup=1, clock="cpu"):
    """Time several callables the same way: ``warmup`` untimed calls each, then ``repeats`` rounds
    in which every callable runs once (interleaved, so a burst of load hits all sides alike).

    Returns ``{name: {"min": s, "median": s, "times": [...], "result": last result}}``; ``clock`` is
    "cpu" (process CPU time: steadier on a shared machine, one BLAS thread here) or "wall".
    Callables that use worker processes must be timed with ``clock="wall"`` (the CPU time of this
    process misses the workers').
    """
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats!r}.")
    results = {name: {"times": [], "result": None} for name in fns}
    for name, fn in fns.items():
        for _ in range(warmup):
            results[name]["result"] = fn()
    from threadpoolctl import threadpool_limits

    # the warm-up may have loaded further BLAS/OpenMP libraries (a competitor's own copy) that the
    # environment variables did not reach: cap every library loaded by now to one thread
    with threadpool_limits(limits=1):
        for _ in range(repeats):
            for name, fn in fns.items():
                out, wall, cpu = timed(fn)
                results[name]["times"].append(cpu if clock == "cpu" else wall)
                results[name]["result"] = out
    for r in results.values():
        r["min"] = float(np.min(r["times"]))
        r["median"] = float(np.median(r["times"]))
    return results


def ratio_line(slow, fast):
    """'min-ratio x (median-ratio x)' of two :func:`compare` entries: how many times faster ``fast`` is."""
    return f"{slow['min'] / fast['min']:.1f}x (median {slow['median'] / fast['median']:.1f}x)"


def result(name, measured, target, unit="x", *, higher_is_better=True, note=""):
    """Print one machine-readable line that ``run_all.py`` collects into its summary table:

    ``RESULT <name> <measured> <target> <unit> <higher|lower> [note]``

    ``target`` None means "no goal, reported only".  Returns whether the target was met.
    """
    name = name.replace(" ", "_")
    tgt = "-" if target is None else f"{target:.6g}"
    sense = "higher" if higher_is_better else "lower"
    print(f"RESULT {name} {measured:.6g} {tgt} {unit} {sense} {note}".rstrip(), flush=True)
    if target is None:
        return True
    return measured >= target if higher_is_better else measured <= target


def threads_note():
    """The BLAS thread limits in force (threadpoolctl), to print with the timings."""
    try:
        from threadpoolctl import threadpool_info

        libs = [f"{os.path.basename(i['filepath'])}={i['num_threads']}" for i in threadpool_info()]
        return "threads (outside compare(), which caps every library to 1): " + ", ".join(libs)
    except Exception:  # pragma: no cover - threadpoolctl is a core dependency
        return "BLAS threads: unknown"

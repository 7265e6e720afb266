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

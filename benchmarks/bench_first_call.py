"""The first call: what a user waits for before the first result, with no warm-up.

Every other script here warms both sides up and times the steady state, which hides one-off costs
paid on the first call (per-size tables, rules, enumerations, caches built eagerly, imports).  This
one runs each case of ``CASES`` in a fresh Python process (one BLAS thread) and times, wall clock
and CPU:

1. ``import kexplain``;
2. the first call: building the explainer (or fitting what the entry point fits) and its first
   result for one point, or the first global attribution; and the second call of the same kind on
   new data of the same size.  With numba's compiled kernels already in its cache (the usual case
   from the second use on) the difference should be loading (numba's import and cache, about
   0.5-1 s), not work that grows with d;
3. the command line: the wall time of a whole ``kexplain ...`` command in a subprocess, twice;
4. ``--cold`` adds the product-kernel cases with an empty numba cache (``NUMBA_CACHE_DIR`` set to
   a new folder): the first use after installing, when numba compiles the kernels.

The regressions this guards against: the fused functional kernel used to build every
Gauss-Legendre rule of 1 .. ceil(d/2) nodes on the first call at each d, O(d^3) work: 7.6 s at
d = 1,000, 43 s at d = 2,000, hours at d = 20,000 (``quadrature.LADDER_FROM``).  No targets: the
figures are reported.

    python benchmarks/bench_first_call.py [--quick] [--cold] [--only NAME]
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
import warnings

import _common  # noqa: F401  (first: single-threaded BLAS before numpy loads)
from _common import load_note, print_table, quick_flag, result

QUICK = quick_flag()
COLD = "--cold" in sys.argv
ONLY = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None


# --- the cases: each setup(d) returns (first, second), two callables run in that order ----------


def _rng(d):
    import numpy as np

    return np, np.random.default_rng(d)


def _expansion(d, n_sv=30):
    np, rng = _rng(d)
    import kexplain as kx

    em = kx.KernelExpansion(rng.normal(size=(n_sv, d)), rng.normal(size=n_sv), kx.kernels.RBF(np.sqrt(d)))
    return np, rng, kx, em


def _product(game, n_background=10, **explain_opts):
    def setup(d):
        np, rng, kx, em = _expansion(d)
        X = 0.5 * rng.normal(size=(2, d))
        opts = {}
        if game == "interventional":
            opts = {"background": rng.normal(size=(n_background, d))}
        elif game == "baseline":
            opts = {"baseline": np.zeros(d)}
        box = {}

        def first():  # the explainer's construction counts: it may load the kernels
            box["ex"] = kx.ProductKernelExplainer(em, **opts)
            return box["ex"].explain(X[:1], **explain_opts)

        return first, lambda: box["ex"].explain(X[1:], **explain_opts)

    return setup


def _sparse_functional(d):
    np, rng = _rng(d)
    import scipy.sparse as sp

    import kexplain as kx

    Z = sp.random(32, d, density=min(1.0, 20 / d), format="csr", random_state=d)
    em = kx.KernelExpansion(Z[:30], rng.normal(size=30), kx.kernels.RBF(1.0))
    box = {}

    def first():
        box["ex"] = kx.ProductKernelExplainer(em)
        return box["ex"].explain(Z[30:31])

    return first, lambda: box["ex"].explain(Z[31:32])


def _gp_uncertainty(d):
    np, rng = _rng(d)
    from sklearn.gaussian_process import GaussianProcessRegressor

    import kexplain as kx

    X = rng.normal(size=(40, d))
    gpr = GaussianProcessRegressor(alpha=0.05, optimizer=None).fit(X, X[:, 0] - X[:, 1])
    box = {}

    def first():
        box["ex"] = kx.ProductKernelExplainer(gpr, background=X[:8])
        return box["ex"].explain(X[30:31], uncertainty=True)

    return first, lambda: box["ex"].explain(X[31:32], uncertainty=True)


def _rkhs(game):
    def setup(d):
        np, rng = _rng(d)
        from sklearn.kernel_ridge import KernelRidge

        import kexplain as kx

        X = rng.normal(size=(40, d))
        model = KernelRidge(kernel="rbf", gamma=1.0 / d, alpha=0.1).fit(X, X[:, 0] + X[:, 1] * X[:, 2])
        box = {}

        def first():
            box["ex"] = kx.RKHSExplainer(model, X[:20], game=game)
            return box["ex"].explain(X[30:31])

        return first, lambda: box["ex"].explain(X[31:32])

    return setup


def _oak(d):
    np, rng = _rng(d)
    from kexplain.gp import OAKRegressor

    X = rng.normal(size=(40, d))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2]
    box = {}

    def first():  # a short fit (the fit is the user's first call too) and its first explanation
        box["gp"] = OAKRegressor(max_interaction_order=2, max_iter=2).fit(X, y)
        return box["gp"].explain(X[30:31])

    return first, lambda: box["gp"].explain(X[31:32])


def _star(d):
    np, rng = _rng(d)
    from kexplain.star import StarExplainer

    # a term's function gets the columns of its features, in order
    terms = [((j,), lambda Z: np.sin(Z[:, 0])) for j in range(d)]
    terms += [((j, j + 1), lambda Z: Z[:, 0] * Z[:, 1]) for j in range(d - 1)]
    X = rng.normal(size=(20, d))
    box = {}

    def first():
        box["ex"] = StarExplainer(terms, X[:10])
        return box["ex"].explain(X[10:11])

    return first, lambda: box["ex"].explain(X[11:12])


def _preference(d):
    np, rng = _rng(d)
    from kexplain.kernels import RBF
    from kexplain.preference import Duels, PreferenceExpansion
    from kexplain.preference.explainer import PrefShapExplainer

    L, R = rng.normal(size=(12, d)), rng.normal(size=(12, d))
    pe = PreferenceExpansion(L[:10], R[:10], rng.normal(size=10), RBF(np.sqrt(d)))
    B = rng.normal(size=(8, d))
    box = {}

    def first():
        box["ex"] = PrefShapExplainer(pe, B)
        return box["ex"].explain(Duels(L[10:11], R[10:11]))

    return first, lambda: box["ex"].explain(Duels(L[11:12], R[11:12]))


def _stats(name):
    def setup(d):
        np, rng = _rng(d)
        from kexplain import stats

        X, Z = rng.normal(size=(100, d)), rng.normal(size=(100, d))
        X2, Z2 = rng.normal(size=(100, d)), rng.normal(size=(100, d))
        if name == "mmd":
            return (lambda: stats.mmd_shapley(X, Z)), (lambda: stats.mmd_shapley(X2, Z2))
        return (lambda: stats.hsic_shapley(X, Z[:, 0])), (lambda: stats.hsic_shapley(X2, Z2[:, 0]))

    return setup


def _sensitivity(d):
    np, rng = _rng(d)
    from sklearn.kernel_ridge import KernelRidge

    import kexplain as kx

    X = rng.uniform(-1, 1, size=(40, d))
    model = KernelRidge(kernel="rbf", gamma=1.0 / d, alpha=0.1).fit(X, 2 * X[:, 0] + X[:, 1] * X[:, 2])

    def first():
        sa = kx.sensitivity.SensitivityAnalysis(model, background=X[:20])
        return sa.first_order(), sa.total_order(), sa.shapley_effects()

    def second():
        sa = kx.sensitivity.SensitivityAnalysis(model, background=X[20:])
        return sa.first_order(), sa.total_order(), sa.shapley_effects()

    return first, second


# (family, case, setup, sizes, quick sizes)
CASES = [
    ("product kernel", "functional", _product("functional"), [10, 100, 1000, 4000], [10, 100, 1000]),
    ("product kernel", "interventional", _product("interventional"), [10, 100, 1000], [10, 100, 1000]),
    ("product kernel", "baseline", _product("baseline"), [10, 100, 1000], [10, 1000]),
    # 50 background rows: the cost model picks the subset route up to d = 12 (the route column)
    ("product kernel", "subset route", _product("interventional", 50), [6, 12], [12]),
    ("product kernel", "interactions", _product("interventional", interactions=True), [10, 100], [10]),
    ("product kernel", "sparse CSR", _sparse_functional, [100, 20000], [20000]),
    ("product kernel", "GP uncertainty", _gp_uncertainty, [10, 50], [10]),
    ("RKHS-SHAP", "interventional", _rkhs("interventional"), [10, 100], [10]),
    ("RKHS-SHAP", "observational", _rkhs("observational"), [5, 10], [10]),
    ("OAK", "fit + explain", _oak, [5, 10], [10]),
    ("STAR", "interventional", _star, [10, 100], [10]),
    ("preference", "item", _preference, [10, 100], [10]),
    ("stats", "mmd_shapley", _stats("mmd"), [10, 100], [10]),
    ("stats", "hsic_shapley", _stats("hsic"), [10, 100], [10]),
    ("sensitivity", "Sobol + Shapley effects", _sensitivity, [5, 10], [5]),
]


def child(case, d):
    """In the fresh process: time the import, the first and the second call; print them as JSON."""
    w0 = time.perf_counter()
    import numpy  # noqa: F401

    import kexplain  # noqa: F401

    t_import = time.perf_counter() - w0
    setup = next(c[2] for c in CASES if f"{c[0]}/{c[1]}" == case)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first, second = setup(d)
        w1, c1 = time.perf_counter(), time.process_time()
        out = first()
        w2, c2 = time.perf_counter(), time.process_time()
        second()
        w3, c3 = time.perf_counter(), time.process_time()
    info = getattr(out, "info", None)
    route = info.get("route", "") if isinstance(info, dict) else ""
    print(
        json.dumps(
            {"import": t_import, "first": w2 - w1, "second": w3 - w2, "first_cpu": c2 - c1, "second_cpu": c3 - c2}
            | {"route": route or "-"}
        )
    )


def run(case, d, cache_dir=None):
    env = dict(os.environ)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    out = subprocess.run(
        [sys.executable, __file__, "--child", case, str(d)], capture_output=True, text=True, env=env, check=False
    )
    if out.returncode:
        raise RuntimeError(f"{case} d={d} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def cli_rows(tmp, d):
    """Wall time of whole ``kexplain explain`` commands (fresh processes, as a user runs them)."""
    import numpy as np

    np_, rng = np, np.random.default_rng(d)
    import skops.io as sio
    from sklearn.svm import SVR

    X = rng.normal(size=(60, d))
    model = SVR().fit(X, X[:, 0] - X[:, 1])
    header = ",".join(f"x{j}" for j in range(d))
    for name, rows in (("data", X[:5]), ("background", X[5:15])):
        np_.savetxt(os.path.join(tmp, f"{name}.csv"), rows, delimiter=",", header=header, comments="")
    sio.dump(model, os.path.join(tmp, "model.skops"))
    cmd = [os.path.join(os.path.dirname(sys.executable), "kexplain"), "explain", "--model", "model.skops"]
    cmd += ["--data", "data.csv", "--background", "background.csv", "--out", "values.csv", "--force"]
    env = dict(os.environ)  # a relative PYTHONPATH (a checkout's src) must still hold in tmp
    env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p)
    times = []
    for _ in range(2):
        t0 = time.perf_counter()
        out = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, env=env, check=False)
        times.append(time.perf_counter() - t0)
        if out.returncode:
            raise RuntimeError(f"kexplain explain failed:\n{out.stderr[-3000:]}")
    return times


def _fresh_import(code):
    """Wall time of ``code`` (imports) in a fresh interpreter, with the interpreter's start taken off."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
    t1 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True, capture_output=True)
    return (t1 - t0) - (time.perf_counter() - t1)


def main():
    print(load_note())
    rows = []
    for family, name, _, sizes, quick_sizes in CASES:
        case = f"{family}/{name}"
        if ONLY and ONLY not in case:
            continue
        for d in quick_sizes if QUICK else sizes:
            run(case, d)  # warm numba's usual cache, so the rows below measure loading, not compiling
            caches = [("warm", None)] + ([("cold", "new")] if COLD and family == "product kernel" else [])
            for label, cache in caches:
                if cache is None:
                    r = run(case, d)
                else:  # a new empty cache for every case: each compiles what it uses
                    with tempfile.TemporaryDirectory() as tmp:
                        r = run(case, d, tmp)
                extra = r["first"] - r["second"]
                rows.append(
                    [label, family, name, d, r["route"], f"{r['import']:.2f} s", f"{r['first']:.3f} s"]
                    + [f"{r['first_cpu']:.3f} s", f"{r['second']:.3f} s", f"{extra:.3f} s"]
                )
                key = re.sub(r"\W+", "_", f"first_call_{label}_{family}_{name}_d{d}")
                result(f"{key}_seconds", r["first"], None, "s", higher_is_better=False)
    if rows:
        print_table(
            "first call in a fresh process (wall clock unless marked CPU, one BLAS thread)",
            ["numba cache", "family", "case", "d", "route", "import", "first", "first CPU", "second", "first - second"],
            rows,
        )
    if ONLY is None or "cli" in ONLY:
        cli = []
        for d in [10] if QUICK else [10, 100]:
            with tempfile.TemporaryDirectory() as tmp:
                t = cli_rows(tmp, d)
            cli.append([d, f"{t[0]:.2f} s", f"{t[1]:.2f} s"])
            result(f"first_call_cli_explain_d{d}_seconds", t[1], None, "s", higher_is_better=False)
        print_table(
            "the command line: kexplain explain (SVR, 5 rows, 10 background rows), whole command, wall clock",
            ["d", "first run", "second run"],
            cli,
        )
        # where a command's time goes: the imports, each in a fresh process after the ones before
        steps = [("kexplain.cli", "import kexplain.cli"), ("sklearn.svm", "import kexplain.cli, sklearn.svm")]
        steps.append(("skops.io (after both)", "import kexplain.cli, sklearn.svm, skops.io"))
        rows, before = [], 0.0
        for label, code in steps:
            t = _fresh_import(code)
            rows.append([label, f"{t:.2f} s", f"{t - before:.2f} s"])
            before = t
        print_table("the command's imports (fresh processes, wall clock)", ["import", "total", "added"], rows)


if __name__ == "__main__":
    if "--child" in sys.argv:
        i = sys.argv.index("--child")
        child(sys.argv[i + 1], int(sys.argv[i + 2]))
    else:
        main()

"""Fault injection: SIGKILL one of two Dask worker processes while kexplain's work runs on them.

Each run starts a ``distributed.LocalCluster`` with two worker processes (one thread each, under
nannies that restart a killed worker), starts the work, SIGKILLs the process of one worker once the
tasks are running there, and checks that the work finishes within ``--timeout`` seconds with the
numbers of a clean in-process run (bit for bit for the statistics, whose tiles are added in a fixed
order; equal values for the explanations, whose rows are explained independently).  Every run is a
child process of its own, so a run that hangs is killed at the timeout and counted as a hang.

    python benchmarks/faults_worker_kill.py --what stats --runs 6
    python benchmarks/faults_worker_kill.py --what explain --runs 6

``--what stats`` runs ``kexplain.stats.mmd_test`` and ``hsic_test`` (alternately) inside
``kexplain.dask.on(client)``; ``--what explain`` runs ``kexplain.dask.explain_dask(..., client=)``.
Prints one line per run and ``RESULT faults_<what>_same <successes/runs>``.  Not a ``bench_``
script: ``run_all.py`` does not run it (it takes minutes and kills processes).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402


def _stats_inputs(seed: int):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(400, 4))
    Z = rng.normal(size=(400, 4)) + 0.5
    Y = X[:, :1] * X[:, 1:2] + 0.3 * rng.normal(size=(400, 1))
    return X, Z, Y


def _stats_call(which: str, seed: int):
    import kexplain as kx

    X, Z, Y = _stats_inputs(seed)
    opts = {"n_permutations": 100, "random_state": 0, "max_block_bytes": 200_000}
    if which == "mmd_test":
        return lambda: kx.stats.mmd_test(X, Z, **opts)
    return lambda: kx.stats.hsic_test(X, Y, **opts)


def _stats_numbers(res) -> list[float]:
    return [*np.asarray(res.attribution.values).ravel().tolist(), float(res.p_value), float(res.statistic)]


class _Slow:
    """An explainer that takes a little while per block (so a kill lands mid-run)."""

    game = "slow"

    def __init__(self, inner, pause: float) -> None:
        self.inner = inner
        self.pause = pause

    def explain(self, X, **kw):
        time.sleep(self.pause)
        return self.inner.explain(X, **kw)


def _explain_setup(seed: int):
    from sklearn.svm import SVR

    import kexplain as kx

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(400, 4))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2]
    model = SVR(C=2.0, gamma=0.3).fit(X, y)
    inner = kx.ProductKernelExplainer(model, X[:30])
    return inner, X


def one_run(what: str, index: int, kill_after: float, seed: int) -> dict:
    """One run in this process: a clean reference, then the cluster, the kill and the comparison."""
    import distributed

    import kexplain.dask as kdask

    which = ("mmd_test", "hsic_test")[index % 2] if what == "stats" else "explain_dask"
    if what == "stats":
        call = _stats_call(which, seed)
        ref = _stats_numbers(call())
    else:
        inner, X = _explain_setup(seed)
        ref = inner.explain(X).values
    t0 = time.perf_counter()
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=50
    )
    out: dict = {"which": which}
    try:
        with distributed.Client(cluster) as client:
            out["startup_s"] = round(time.perf_counter() - t0, 1)
            pids = client.run(os.getpid)
            victim = sorted(pids)[0]
            killed = threading.Event()

            # a time drawn per run, from the shipping of the inputs to the last tiles
            delay = float(np.random.default_rng(1000 + index).uniform(0.0, kill_after))

            def kill() -> None:
                time.sleep(delay)
                out["victim_busy"] = bool(client.processing().get(victim))
                os.kill(pids[victim], signal.SIGKILL)
                out["killed_at_s"] = round(time.perf_counter() - t1, 1)
                killed.set()

            t1 = time.perf_counter()
            if kill_after > 0:
                threading.Thread(target=kill, daemon=True).start()
            if what == "stats":
                with kdask.on(client):
                    got = _stats_numbers(call())
                same = got == ref
            else:
                res = kdask.explain_dask(
                    _Slow(inner, 0.15), __import__("dask.array").array.from_array(X, chunks=10), client=client
                )
                got_values = client.compute(res.values).result()
                same = bool(np.array_equal(got_values, ref))
            out["run_s"] = round(time.perf_counter() - t1, 1)
            out["killed_mid_run"] = killed.is_set() or kill_after <= 0
            out["same"] = same
    finally:
        cluster.close(timeout=30)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--what", choices=("stats", "explain"), default="stats")
    p.add_argument("--runs", type=int, default=6)
    p.add_argument("--timeout", type=float, default=300.0, help="seconds before a run counts as hung")
    p.add_argument(
        "--kill-after",
        type=float,
        default=4.0,
        help="kill at a time drawn in [0, this] s after the start; 0: no kill",
    )
    p.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child is not None:
        print("CHILD " + json.dumps(one_run(args.what, args.child, args.kill_after, seed=args.child)), flush=True)
        return
    ok = 0
    for i in range(args.runs):
        cmd = [sys.executable, __file__, "--what", args.what, "--kill-after", str(args.kill_after), "--child", str(i)]
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            stdout, stderr = proc.communicate(timeout=args.timeout)
            line = next((ln for ln in stdout.splitlines() if ln.startswith("CHILD ")), None)
            if line is not None:
                res = json.loads(line[6:])
                verdict = "same" if res.get("same") and res.get("killed_mid_run") else "DIFFERENT/NOT-KILLED"
            else:
                tail = [ln for ln in stderr.strip().splitlines() if ln.strip()][-3:]
                res, verdict = {"error": " | ".join(tail)[-400:]}, "FAILED"
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            res, verdict = {}, f"HUNG (> {args.timeout:.0f} s)"
        ok += verdict == "same"
        print(f"run {i}: {verdict} in {time.perf_counter() - t0:.0f} s {json.dumps(res)}", flush=True)
    print(f"RESULT faults_{args.what}_same {ok} {args.runs} runs higher of {args.runs} runs with a worker killed")


if __name__ == "__main__":
    main()

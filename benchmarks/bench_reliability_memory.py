"""Peak memory of two issue-28 cases, before (another checkout's src) and after (this one), one run.

- PREF-SHAP observational item values of many duels (issue 28: 20,000 duels peaked at 2.15 GB
  for a 0.8 MB output);
- ConditionalMeanEmbedding exact fit at n rows and predict at ``--query`` of them (issue 28:
  2.5 GB at n = 10,000).

Each case runs in a fresh subprocess (peak resident memory from ``resource.getrusage``) with
``PYTHONPATH`` set to each checkout's ``src``, one BLAS thread, so both sides are measured on the
same machine in the same run::

    python benchmarks/bench_reliability_memory.py --before /path/to/main/src [--duels 20000] [--n 10000]

Prints peak MB of each side, their ratio, the seconds taken and the largest difference of the
outputs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

PREFSHAP = """
import json, resource, sys, time
import numpy as np
from kexplain.kernels import RBF
from kexplain.preference import PreferenceExpansion, PrefShapExplainer
N, m, d = {duels}, {support}, 5
rng = np.random.default_rng(0)
pe = PreferenceExpansion(rng.normal(size=(m, d)), rng.normal(size=(m, d)), rng.normal(size=m), RBF(1.5))
ex = PrefShapExplainer(pe, game="observational")
L, R = rng.normal(size=(N, d)), rng.normal(size=(N, d))
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
values = ex.explain(L, R).values
sec = time.perf_counter() - t
np.save(sys.argv[1], values)
print(json.dumps({{"peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "import_mb": base / 1024,
                  "seconds": sec, "output_mb": values.nbytes / 2**20}}))
"""

CME = """
import json, resource, sys, time
import numpy as np
from kexplain.embeddings import ConditionalMeanEmbedding
n = {n}
rng = np.random.default_rng(0)
X = rng.normal(size=(n, 2)); y = X[:, 0] + 0.1 * rng.normal(size=n)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
pred = ConditionalMeanEmbedding(regularization=1e-3).fit(X, y).predict(X[:{query}])
sec = time.perf_counter() - t
np.save(sys.argv[1], pred)
print(json.dumps({{"peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "import_mb": base / 1024,
                  "seconds": sec, "output_mb": pred.nbytes / 2**20}}))
"""


def run(code: str, src: str, out: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=src, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    res = subprocess.run([sys.executable, "-c", code, str(out)], env=env, capture_output=True, text=True, check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def main() -> None:
    import numpy as np

    here = str(Path(__file__).resolve().parents[1] / "src")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="src folder of the checkout to compare with (e.g. main)")
    parser.add_argument("--duels", type=int, default=20000)
    parser.add_argument("--support", type=int, default=200)
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--query", type=int, default=1000)
    parser.add_argument("--only", choices=("prefshap", "cme"), default=None)
    parser.add_argument("--tmp", default="/tmp")
    args = parser.parse_args()
    cases = {
        "prefshap": PREFSHAP.format(duels=args.duels, support=args.support),
        "cme": CME.format(n=args.n, query=args.query),
    }
    for name, code in cases.items():
        if args.only and name != args.only:
            continue
        outs = {side: Path(args.tmp) / f"bench_rel_{name}_{side}.npy" for side in ("before", "after")}
        before = run(code, args.before, outs["before"])
        after = run(code, here, outs["after"])
        diff = float(np.max(np.abs(np.load(outs["before"]) - np.load(outs["after"]))))
        print(
            f"{name}: peak before {before['peak_mb']:.0f} MB ({before['seconds']:.1f} s), after "
            f"{after['peak_mb']:.0f} MB ({after['seconds']:.1f} s), ratio {before['peak_mb'] / after['peak_mb']:.2f}; "
            f"after import {after['import_mb']:.0f} MB, output {after['output_mb']:.2f} MB; "
            f"largest difference of the outputs {diff:.2e} (1 BLAS thread)"
        )


if __name__ == "__main__":
    main()

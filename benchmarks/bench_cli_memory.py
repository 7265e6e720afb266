"""Peak memory of ``kexplain explain --interactions``: streamed in blocks (the default) vs one pass.

Both runs explain the same CSV file with the same model in fresh processes of this interpreter;
the one-pass run is forced with ``--chunk-size`` equal to the number of rows.  Each prints its
peak resident set size (``ru_maxrss``); a run on 1,000 rows gives the cost of the imports, which
the figures above it are compared with.  The written files are checked to be equal.

    python benchmarks/bench_cli_memory.py [--rows 200000] [--features 4]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

RUN = (
    "import resource, sys\n"
    "from kexplain.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "print('maxrss_kb', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def peak_kb(argv: list[str]) -> int:
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    done = subprocess.run([sys.executable, "-c", RUN, *argv], capture_output=True, text=True, env=env, check=True)
    line = [ln for ln in done.stderr.splitlines() if ln.startswith("maxrss_kb")][-1]
    return int(line.split()[1])


def main() -> None:
    import pandas as pd
    import skops.io as sio
    from sklearn.svm import SVR

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=int(os.environ.get("KEXPLAIN_BENCH_ROWS", 200_000)))
    parser.add_argument("--features", type=int, default=4)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    d = args.features
    cols = [f"x{j}" for j in range(d)]
    folder = Path(tempfile.mkdtemp())
    train = pd.DataFrame(rng.normal(size=(300, d)), columns=cols)
    sio.dump(SVR(C=3.0).fit(train, np.sin(train["x0"]) + train["x1"] * train[cols[-1]]), folder / "m.skops")
    pd.DataFrame(rng.normal(size=(args.rows, d)), columns=cols).to_csv(folder / "X.csv", index=False)
    pd.DataFrame(rng.normal(size=(1000, d)), columns=cols).to_csv(folder / "small.csv", index=False)
    base = ["explain", "--model", str(folder / "m.skops"), "--interactions", "--n-jobs", "1"]
    imports = peak_kb(base + ["--data", str(folder / "small.csv"), "--out", str(folder / "s.csv")])
    streamed = peak_kb(base + ["--data", str(folder / "X.csv"), "--out", str(folder / "a.csv")])
    one_pass = peak_kb(
        base + ["--data", str(folder / "X.csv"), "--out", str(folder / "b.csv"), "--chunk-size", str(args.rows)]
    )
    same = pd.read_csv(folder / "a.interactions.csv").equals(pd.read_csv(folder / "b.interactions.csv"))
    print(f"kexplain explain --interactions, {args.rows} rows x {d} features, 1 thread")
    print(f"  imports (1,000 rows):  {imports / 1024:8.0f} MB peak")
    for label, kb in (("streamed (default):", streamed), ("one pass:", one_pass)):
        print(f"  {label:22s} {kb / 1024:8.0f} MB peak  ({(kb - imports) / 1024:.0f} MB above imports)")
    print(f"  ratio above imports (one pass / streamed): {(one_pass - imports) / max(streamed - imports, 1):.1f}x")
    print(f"  interaction files equal: {same}")


if __name__ == "__main__":
    main()

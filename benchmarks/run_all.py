"""Run every benchmark script in this folder (bench_*.py), one after another.

`python benchmarks/run_all.py --quick` passes --quick to the scripts that accept it (smaller sizes).
"""

import pathlib
import subprocess
import sys

here = pathlib.Path(__file__).parent
quick = "--quick" in sys.argv[1:]
failed = []
for script in sorted(here.glob("bench_*.py")):
    print(f"\n=== {script.name} ===", flush=True)
    args = [sys.executable, str(script)]
    if quick and "--quick" in script.read_text():
        args.append("--quick")
    rc = subprocess.call(args)
    if rc != 0:
        failed.append(script.name)
if failed:
    print(f"\nfailed: {failed}")
    sys.exit(1)

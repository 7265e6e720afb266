"""Run every benchmark script in this folder (bench_*.py), one after another."""
import pathlib
import subprocess
import sys

here = pathlib.Path(__file__).parent
failed = []
for script in sorted(here.glob("bench_*.py")):
    print(f"\n=== {script.name} ===", flush=True)
    rc = subprocess.call([sys.executable, str(script)])
    if rc != 0:
        failed.append(script.name)
if failed:
    print(f"\nfailed: {failed}")
    sys.exit(1)

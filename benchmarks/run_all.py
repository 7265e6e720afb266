"""Run every benchmark script in this folder (bench_*.py), one after another, and end with a
summary table of every figure the scripts report (their ``RESULT`` lines, see ``_common.result``)
with its target and whether it was met.

`python benchmarks/run_all.py --quick` passes --quick to the scripts that accept it (smaller sizes);
the figures at quick sizes are not the targets' sizes, so read them as a smoke test.
Extra arguments that are not options select scripts by name, e.g. `run_all.py --quick star mmd`.
"""

import os
import pathlib
import subprocess
import sys

here = pathlib.Path(__file__).parent
args = sys.argv[1:]
quick = "--quick" in args
select = [a for a in args if not a.startswith("-")]


def parse_result(line):
    """(script-local) ``RESULT name measured target unit sense [note]`` -> dict, or None."""
    parts = line.split(maxsplit=6)
    if len(parts) < 6 or parts[0] != "RESULT":
        return None
    _, name, measured, target, unit, sense, *note = parts
    try:
        m = float(measured)
        t = None if target == "-" else float(target)
    except ValueError:
        return None
    met = None if t is None else (m >= t if sense == "higher" else m <= t)
    return {"name": name, "measured": m, "target": t, "unit": unit, "sense": sense, "met": met, "note": " ".join(note)}


def main():
    failed, rows = [], []
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    for script in sorted(here.glob("bench_*.py")):
        if select and not any(s in script.name for s in select):
            continue
        print(f"\n=== {script.name} ===", flush=True)
        cmd = [sys.executable, str(script)]
        if quick and "--quick" in script.read_text():
            cmd.append("--quick")
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        assert proc.stdout is not None
        for line in proc.stdout:
            print(line, end="", flush=True)
            r = parse_result(line.strip())
            if r is not None:
                r["script"] = script.stem.removeprefix("bench_")
                rows.append(r)
        if proc.wait() != 0:
            failed.append(script.name)
    print_summary(rows, quick)
    if failed:
        print(f"\nfailed: {failed}")
        sys.exit(1)


def print_summary(rows, quick):
    print("\n=== summary" + (" (--quick sizes: smoke test, not the targets' sizes)" if quick else "") + " ===")
    if not rows:
        print("no RESULT lines were printed")
        return
    header = ("script", "figure", "measured", "target", "met")
    table = []
    for r in rows:
        cmp = ">=" if r["sense"] == "higher" else "<="
        target = "-" if r["target"] is None else f"{cmp} {r['target']:.4g} {r['unit']}"
        met = "-" if r["met"] is None else ("yes" if r["met"] else "NO")
        table.append((r["script"], r["name"], f"{r['measured']:.4g} {r['unit']}", target, met))
    widths = [max(len(h), *(len(t[i]) for t in table)) for i, h in enumerate(header)]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    print("-" * (sum(widths) + 2 * (len(widths) - 1)))
    for t in table:
        print("  ".join(v.ljust(w) for v, w in zip(t, widths)))
    goals = [r for r in rows if r["met"] is not None]
    n_met = sum(r["met"] for r in goals)
    print(f"\n{n_met} of {len(goals)} targets met; {len(rows) - len(goals)} figures without a target")


if __name__ == "__main__":
    main()

"""``python -m reproduce [ID ...] [--size quick|full] [--list] [--render]``."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from reproduce.framework import PAGE, RECORDS, SIZES, experiments, load_records, render, run_experiment, write_record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reproduce", description=__doc__)
    parser.add_argument("ids", nargs="*", help="experiment ids (default: all); see --list")
    parser.add_argument("--size", choices=SIZES, default="full")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--list", action="store_true", help="list the experiments and stop")
    parser.add_argument("--render", action="store_true", help="only render the page from the records")
    args = parser.parse_args(argv)
    exps = experiments()
    if args.list:
        for e in exps:
            print(f"{e.id:32s} {e.paper:10s} {e.item:14s} {'BLOCKED ' if e.run is None else ''}{e.title}")
        return 0
    known = {e.id: e for e in exps}
    unknown = [i for i in args.ids if i not in known]
    if unknown:
        parser.error(f"unknown experiment ids {unknown}; known: {sorted(known)}")
    if not args.render:
        # quick runs never overwrite the committed full-size records
        folder = RECORDS if args.size == "full" else Path(tempfile.mkdtemp(prefix="kexplain-reproduce-"))
        for e in [known[i] for i in args.ids] if args.ids else exps:
            print(f"{e.id} ...", flush=True)
            record = run_experiment(e, args.size, args.seed)
            path = write_record(record, folder)
            print(f"  {record['seconds']:.1f} s -> {path}", flush=True)
    PAGE.write_text(render(exps, load_records(RECORDS)))
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

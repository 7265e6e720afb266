"""Declarations, records and the page: the machinery every experiment module shares.

An experiment module defines a list ``EXPERIMENTS`` of :class:`Experiment`.  ``run(size, seed)``
returns a :class:`Result`; ``size`` is ``"quick"`` (seconds, for the test-suite) or ``"full"``
(the paper's size where a 2-core machine allows it in a few minutes, else a stated smaller size
recorded in ``settings``).  The runner times the call and writes a :class:`Record` as JSON.
"""

from __future__ import annotations

import dataclasses
import datetime
import importlib
import json
import os
import pkgutil
import platform
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
RECORDS = ROOT / "records"
PAGE = ROOT.parent / "docs" / "reproduction.rst"

#: The five seed papers, keyed as experiments name them (see shared/seeds/README.md).
PAPERS: dict[str, str] = {
    "pkex": (
        "Mohammadi, Chau, Muandet: Computing Exact Shapley Values in Polynomial Time for Product-Kernel Methods"
        " (PKeX-Shapley)"
    ),
    "oak": "Exact Shapley Value for Local and Global Explanation of Additive Gaussian Processes",
    "rkhs-shap": "Chau, Hu, Gonzalez, Sejdinovic: RKHS-SHAP: Shapley Values for Kernel Methods (and thesis chapter 5)",
    "star": (
        "Dubé, Marchand: Shapley Values of Structured Additive Regression Models and Application to RKHS Weightings"
    ),
    "thesis": "Chau: Towards Trustworthy Machine Learning with Kernels (thesis; chapters 3, 4, 6, 7)",
}

#: What a row's verdict may say.  "differs" and "partly" need a ``why``; "blocked" needs the reason.
VERDICTS = ("reproduced", "within noise", "partly", "differs", "blocked")
SIZES = ("quick", "full")


@dataclasses.dataclass(frozen=True)
class Row:
    """One number compared: what it is, the paper's value, ours, the verdict and why."""

    quantity: str
    paper: Any
    ours: Any
    verdict: str
    why: str = ""

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")
        if self.verdict in ("differs", "partly", "blocked") and not self.why:
            raise ValueError(f"a {self.verdict!r} row needs a why ({self.quantity!r})")


@dataclasses.dataclass
class Result:
    """What ``run`` returns: the rows, the settings actually used, and the seeds."""

    rows: list[Row]
    settings: dict[str, Any]
    seeds: list[int]
    notes: str = ""


@dataclasses.dataclass(frozen=True)
class Experiment:
    """One table or figure of one paper.

    ``run`` is None exactly when ``blocked`` says why the experiment cannot run here (data that
    does not ship, a baseline that cannot be had); such experiments still get their row.
    """

    id: str
    paper: str
    item: str
    title: str
    data: str
    run: Callable[[str, int], Result] | None = None
    blocked: str = ""
    #: the paper's setting in one line (repetitions, sizes), to compare with ours
    paper_setting: str = ""

    def __post_init__(self) -> None:
        if self.paper not in PAPERS:
            raise ValueError(f"paper must be one of {sorted(PAPERS)}, got {self.paper!r}")
        if (self.run is None) == (not self.blocked):
            raise ValueError(f"{self.id}: give either run= or blocked= (the reason), not both or neither")


def cached(key: str, compute: Callable[[], Any]) -> Any:
    """``compute()``, kept as JSON in the folder REPRODUCE_CACHE (``key`` names the file) when that is set.

    For the long full runs: a repetition or seed that finished is read back instead of recomputed,
    so a run cut short by the machine's time resumes where it stopped.  Without the variable, nothing
    is cached.  Results must be JSON-ready (keys come back as strings).
    """
    folder = os.environ.get("REPRODUCE_CACHE")
    if not folder:
        return compute()
    path = Path(folder) / f"{key}.json"
    if path.exists():
        return json.loads(path.read_text())
    out = compute()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, default=_json_default))
    return out


def experiments() -> list[Experiment]:
    """Every declared experiment, from every module of :mod:`reproduce.experiments`, in paper order."""
    from reproduce import experiments as pkg

    found: list[Experiment] = []
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"reproduce.experiments.{info.name}")
        found.extend(getattr(module, "EXPERIMENTS", []))
    ids = [e.id for e in found]
    dupes = {i for i in ids if ids.count(i) > 1}
    if dupes:
        raise ValueError(f"experiment ids declared twice: {sorted(dupes)}")
    order = list(PAPERS)
    return sorted(found, key=lambda e: (order.index(e.paper), e.id))


def run_experiment(exp: Experiment, size: str = "quick", seed: int = 0) -> dict[str, Any]:
    """Run one experiment and return its record (a JSON-ready dict)."""
    if size not in SIZES:
        raise ValueError(f"size must be one of {SIZES}, got {size!r}")
    record: dict[str, Any] = {
        "id": exp.id,
        "paper": exp.paper,
        "item": exp.item,
        "title": exp.title,
        "data": exp.data,
        "paper_setting": exp.paper_setting,
        "size": size,
        "date": datetime.date.today().isoformat(),
        "machine": f"{platform.machine()}, {platform.python_version()}",
    }
    if exp.run is None:
        record.update(rows=[], settings={}, seeds=[], seconds=0.0, blocked=exp.blocked, notes="")
        return record
    start = time.perf_counter()
    result = exp.run(size, seed)
    record.update(
        rows=[dataclasses.asdict(r) for r in result.rows],
        settings=result.settings,
        seeds=list(result.seeds),
        seconds=round(time.perf_counter() - start, 2),
        blocked="",
        notes=result.notes,
    )
    return record


def write_record(record: dict[str, Any], folder: Path = RECORDS) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{record['id']}.json"
    path.write_text(json.dumps(record, indent=1, sort_keys=True, default=_json_default) + "\n")
    return path


def _json_default(x: Any) -> Any:
    if hasattr(x, "tolist"):  # numpy scalars and arrays
        return x.tolist()
    raise TypeError(f"not JSON serialisable: {type(x).__name__}")


def load_records(folder: Path = RECORDS) -> dict[str, dict[str, Any]]:
    return {p.stem: json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))}


_RST_SPECIAL = str.maketrans({c: "\\" + c for c in "\\*`|_"})


def _rst(text: str) -> str:
    """Plain text as reStructuredText: |x| would be a substitution, *x an emphasis, x_ a link."""
    return " ".join(str(text).split()).translate(_RST_SPECIAL)


def _fmt(x: Any) -> str:
    if x is None:
        return "—"
    if isinstance(x, float):
        return f"{x:.4g}"
    if isinstance(x, list | tuple):
        return ", ".join(_fmt(v) for v in x)
    return _rst(str(x))


def _summary(exp: Experiment, record: dict[str, Any] | None) -> str:
    if exp.run is None:
        return "blocked"
    if record is None:
        return "not run yet"
    verdicts = [r["verdict"] for r in record["rows"]]
    for v in ("differs", "partly", "within noise"):
        if v in verdicts:
            return v
    return "reproduced" if verdicts else "no numbers"


def render(exps: Iterable[Experiment], records: dict[str, dict[str, Any]]) -> str:
    """The page: a summary table, then one section per paper with one block per experiment."""
    exps = list(exps)
    lines = [
        ".. Generated by ``python -m reproduce`` from reproduce/records/*.json; do not edit by hand.",
        "",
        "Reproducing the papers",
        "======================",
        "",
        "Every table and figure of the five seed papers, run again with kexplain: the paper's number,",
        "ours, and a verdict (reproduced, within noise, partly, differs, blocked) with the reason.",
        "``make reproduce`` runs every experiment at its full size (the paper's where a 2-core machine",
        "allows it, else the size stated in the settings) and writes this page from the records in",
        "``reproduce/records/``; the test-suite runs a quick version of each and asserts the paper's",
        "qualitative claim.",
        "",
    ]
    counts: dict[str, int] = {}
    for e in exps:
        s = _summary(e, records.get(e.id))
        counts[s] = counts.get(s, 0) + 1
    lines += [
        f"{len(exps)} experiments"
        + (": " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) if counts else "")
        + ".",
        "",
    ]
    for key, title in PAPERS.items():
        mine = [e for e in exps if e.paper == key]
        if not mine:
            continue
        lines += [title, "-" * len(title), ""]
        lines += [
            ".. list-table::",
            "   :header-rows: 1",
            "   :widths: 12 30 18 10",
            "",
            "   * - Item",
            "     - Experiment",
            "     - Data",
            "     - Verdict",
        ]
        for e in mine:
            lines += [
                f"   * - {_rst(e.item)}",
                f"     - {_rst(e.title)}",
                f"     - {_rst(e.data)}",
                f"     - {_summary(e, records.get(e.id))}",
            ]
        lines.append("")
        for e in mine:
            rec = records.get(e.id)
            head = _rst(f"{e.item}: {e.title}")
            lines += [head, "~" * len(head), ""]
            if e.run is None:
                lines += [f"Blocked: {_rst(e.blocked)}", ""]
                continue
            if rec is None:
                lines += ["Not run yet: ``python -m reproduce " + e.id + "``.", ""]
                continue
            setting = ", ".join(f"{_rst(k)}={_fmt(v)}" for k, v in sorted(rec["settings"].items()))
            lines += [
                f"Data: {_rst(e.data)}.  Paper's setting: {_rst(e.paper_setting) or '—'}.  Ours ({rec['size']} size,"
                f" seeds {_fmt(rec['seeds'])}, {rec['seconds']:.0f} s on {rec['machine']}, {rec['date']}): {setting}.",
                "",
            ]
            if rec["rows"]:
                lines += [
                    ".. list-table::",
                    "   :header-rows: 1",
                    "   :widths: 25 12 12 10 40",
                    "",
                    "   * - Quantity",
                    "     - Paper",
                    "     - Ours",
                    "     - Verdict",
                    "     - Why",
                ]
                for r in rec["rows"]:
                    lines += [
                        f"   * - {_fmt(r['quantity'])}",
                        f"     - {_fmt(r['paper'])}",
                        f"     - {_fmt(r['ours'])}",
                        f"     - {r['verdict']}",
                        f"     - {_fmt(r['why']) if r['why'] else ''}",
                    ]
                lines.append("")
            if rec.get("notes"):
                lines += [_rst(rec["notes"]), ""]
    return "\n".join(lines).rstrip() + "\n"

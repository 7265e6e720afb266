"""The benchmark summary: RESULT lines printed by benchmarks/_common.py are parsed back by run_all.py."""

import importlib.util
import pathlib
import sys

import pytest

BENCH = pathlib.Path(__file__).resolve().parents[1] / "benchmarks"


def _load(name):
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location(f"_bench_{name}", BENCH / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    finally:
        sys.path.remove(str(BENCH))


@pytest.fixture(scope="module")
def mods():
    return _load("_common"), _load("run_all")


@pytest.mark.parametrize(
    ("measured", "target", "higher", "met"),
    [(1200.0, 1000.0, True, True), (999.0, 1000.0, True, False), (0.25, 0.3, False, True), (0.4, 0.3, False, False)],
)
def test_result_lines_round_trip_with_the_verdict(mods, capsys, measured, target, higher, met):
    common, run_all = mods
    assert common.result("a figure", measured, target, "x", higher_is_better=higher, note="median 3x") is met
    line = capsys.readouterr().out.strip()
    r = run_all.parse_result(line)
    assert r["name"] == "a_figure" and r["measured"] == pytest.approx(measured) and r["met"] is met
    assert r["target"] == pytest.approx(target) and r["note"] == "median 3x"


def test_figures_without_target_and_other_lines(mods, capsys):
    common, run_all = mods
    assert common.result("no_goal", 3.5, None) is True
    r = run_all.parse_result(capsys.readouterr().out.strip())
    assert r["target"] is None and r["met"] is None
    assert run_all.parse_result("RESULTS are in") is None
    assert run_all.parse_result("RESULT x notanumber 1 x higher") is None
    r["script"] = "demo"
    run_all.print_summary([r], quick=True)
    out = capsys.readouterr().out
    assert "no_goal" in out and "0 of 0 targets met; 1 figures without a target" in out


def test_compare_interleaves_and_reports_min_and_median(mods):
    common, _ = mods
    calls = []
    t = common.compare({"a": lambda: calls.append("a") or 1, "b": lambda: calls.append("b") or 2}, repeats=3, warmup=1)
    assert calls == ["a", "b"] + ["a", "b"] * 3  # warm-up of each side, then interleaved rounds
    assert t["a"]["result"] == 1 and t["b"]["result"] == 2
    assert len(t["a"]["times"]) == 3 and t["a"]["min"] <= t["a"]["median"]
    with pytest.raises(ValueError, match="repeats"):
        common.compare({"a": lambda: 0}, repeats=0)

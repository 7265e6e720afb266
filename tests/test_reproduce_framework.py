"""The reproduction machinery: declarations are valid and the committed page matches the records."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reproduce.framework import (  # noqa: E402
    PAGE,
    PAPERS,
    Experiment,
    Result,
    Row,
    experiments,
    load_records,
    render,
    run_experiment,
)


def test_page_is_rendered_from_the_committed_records():
    # regenerate with `python -m reproduce --render` after adding an experiment or a record
    assert PAGE.read_text() == render(experiments(), load_records())


def test_every_record_is_a_declared_full_size_run():
    declared = {e.id: e for e in experiments()}
    for rid, record in load_records().items():
        assert rid in declared, f"record {rid} has no declared experiment"
        assert record["size"] == "full", f"record {rid} is a {record['size']} run; commit full-size records only"
        assert record["paper"] == declared[rid].paper


def test_rows_and_declarations_refuse_what_the_page_cannot_show():
    with pytest.raises(ValueError, match="verdict"):
        Row("x", 1.0, 1.0, "fine")
    with pytest.raises(ValueError, match="needs a why"):
        Row("x", 1.0, 2.0, "differs")
    with pytest.raises(ValueError, match="paper"):
        Experiment("e", "nature", "Fig. 1", "t", "d", blocked="no data")
    with pytest.raises(ValueError, match="either run= or blocked="):
        Experiment("e", "pkex", "Fig. 1", "t", "d")


def test_a_run_is_timed_and_recorded():
    exp = Experiment(
        "toy",
        "pkex",
        "Fig. 0",
        "toy",
        "none",
        run=lambda size, seed: Result([Row("one", 1, 1, "reproduced")], {"n": 3}, [seed]),
    )
    record = run_experiment(exp, "quick", 7)
    assert record["rows"] == [{"quantity": "one", "paper": 1, "ours": 1, "verdict": "reproduced", "why": ""}]
    assert record["seeds"] == [7] and record["settings"] == {"n": 3} and record["seconds"] >= 0
    blocked = run_experiment(Experiment("b", "oak", "Fig. 9", "t", "CMIP6", blocked="data does not ship"), "full")
    assert blocked["blocked"] == "data does not ship" and blocked["rows"] == []
    assert set(PAPERS) == {"pkex", "oak", "rkhs-shap", "star", "thesis"}

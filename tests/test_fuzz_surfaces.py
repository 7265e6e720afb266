"""Deterministic fuzz pass over the newest surfaces (issue 28): every spec of tests/fuzz_surfaces.py
(kexplain.preference, kexplain.embeddings, kexplain.causal, explain_dask and kexplain.dask.on,
model_report, the command-line commands) with every kind of bad value: each matrix argument gets
each of fuzz_strategies.MATRIX_KINDS, each vector argument each of VECTOR_KINDS, each option each
of its list (fuzz_surfaces.OPTION_KINDS), and the judge of tests/fuzz_strategies.py sorts each
call.  None may be unclear, a crash or silent.  tests/test_fuzz.py draws from the same specs.

The same 1,507 calls (all specs, KEXPLAIN_FUZZ_ALL=1) on main before issue 28 (c40bcd2) and now:

    surface        calls     clear unclear crash silent      ok
    preference       537   300/470   138/0   0/0   10/0   89/67
    embeddings       505   152/444   157/0  24/0   61/0  111/61
    causal           132   121/121     0/0   0/0    0/0   11/11
    Dask              44     23/41     9/0   8/0    0/0     4/3
    model_report      73     26/57    16/0   2/0    0/0   29/16
    commands         216   165/181     5/0  10/0    0/0   36/35
    all             1507  787/1314   325/0  44/0   71/0 280/193

(before/now per cell).  Of the 280 calls that returned before, 93 were bad inputs taken as good (now
refused); 6 inputs refused before in unclear words are accepted now; the 193 that return now are
ordinary values (numeric strings, tiny or huge but finite data, defaults passed as None, more or
fewer columns where that argument sets the width, such as training data).  About 30 of the
"before" unclear/crash calls met an API that did not exist yet (PrefShapExplainer(game=, budget=),
kexplain.dask.on).  Before the harness moved to tests/fuzz_surfaces.py its 1,174 library calls
were recorded as 596 clear, 269 unclear, 24 crashes, 71 silent and 214 ok.
"""

from __future__ import annotations

import functools
import os
import warnings
from collections import Counter

import pytest
from fuzz_strategies import Outcome, judge
from fuzz_surfaces import specs

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore")]


def _calls(prefixes: tuple[str, ...] = ()) -> list[tuple[str, Outcome]]:
    """Every spec of tests/fuzz_surfaces.py with every kind of bad value (those whose id starts
    with one of ``prefixes``, when given)."""
    results: list[tuple[str, Outcome]] = []
    for spec in specs():
        if prefixes and not spec.id.startswith(prefixes):
            continue
        for label, value in spec.inputs():
            entry = f"{spec.id}[{label}]"
            results.append((entry, judge(functools.partial(spec.call, value), spec.names, entry)))
    return results


#: the specs that run a whole report or command when the input is good (seconds each): every kind
#: of bad value with KEXPLAIN_FUZZ_ALL=1; tests/test_fuzz.py draws a few of each on every run
HEAVY = ("model_report.", "kexplain ")


def _tally(results: list[tuple[str, Outcome]]) -> Counter[str]:
    tally = Counter(o.kind for _, o in results)
    failed = [f"{o.kind} {e}: {o.detail[:160]}" for e, o in results if o.failed]
    print(f"\nsurface fuzz: {len(results)} calls: {dict(tally)}")
    assert not failed, "\n".join(failed)
    return tally


def test_fuzz_surfaces() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = _calls(tuple(s.id for s in specs() if not s.id.startswith(HEAVY)))
    assert len(results) > 1000
    _tally(results)


@pytest.mark.skipif(
    not os.environ.get("KEXPLAIN_FUZZ_ALL"),
    reason="every kind of bad value into model_report and each command: about 300 calls, minutes; "
    "set KEXPLAIN_FUZZ_ALL=1 (tests/test_fuzz.py draws a few of each on every run)",
)
def test_fuzz_reports_and_commands() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = _calls(HEAVY)
    assert len(results) > 250
    _tally(results)

"""Deterministic fuzz pass over the public entry points of kexplain.preference, kexplain.embeddings and
kexplain.causal (issue 28): every matrix argument gets each of fuzz_strategies.MATRIX_KINDS, every
vector argument each of VECTOR_KINDS, every numeric option each of BAD_FLOAT_OPTIONS or
BAD_INT_OPTIONS, and the judge of tests/fuzz_strategies.py sorts each call.  None may be unclear,
a crash or silent.  On main before issue 28's fixes the same 1,174 calls gave 596 clear, 269
unclear, 24 crashes, 71 silent and 214 ok; after them 1,034 clear and 140 ok (numeric strings,
tiny values, defaults passed as None).
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

"""Worker malloc settings while kexplain tasks run (kexplain.dask._memory, issue 26 item 4).

Dask's nanny starts workers with MALLOC_TRIM_THRESHOLD_=65536, which switches off glibc's dynamic
mmap threshold: every temporary of 128 KiB or more is then a fresh mapping, page-faulted in.  While
tasks run the thresholds are raised; after the last one they are put back and the heap trimmed.
The page-fault counts are measured in a child process that has the nanny's environment.
"""

import os
import subprocess
import sys
import textwrap
import threading

import pytest

from kexplain.dask import _memory


def _is_glibc():
    try:
        return sys.platform.startswith("linux") and bool(os.confstr("CS_GNU_LIBC_VERSION"))
    except (AttributeError, ValueError, OSError):
        return False


glibc = pytest.mark.skipif(not _is_glibc(), reason="glibc malloc only")

_CHILD = textwrap.dedent(
    """
    import resource
    import numpy as np
    from kexplain.dask import _memory

    def churn():
        for _ in range(300):
            a = np.ones(2**17)  # 1 MiB: above the fixed 128 KiB mmap threshold
            a.sum()
            del a

    def faults(fn):
        f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        fn()
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0

    churn()
    plain = faults(churn)
    def reused():
        with _memory.heap_reuse():
            churn()
    inside = faults(reused)
    after = faults(churn)  # thresholds put back: a mapping per array again
    print(plain, inside, after, _memory._STATE["active"])
    """
)


@glibc
def test_heap_reuse_saves_the_page_faults_of_a_worker_environment():
    env = {**os.environ, "MALLOC_TRIM_THRESHOLD_": "65536", "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True, check=True)
    plain, inside, after, active = (int(v) for v in out.stdout.split())
    # 300 mappings of 256 pages each when every array is mapped afresh
    assert plain > 300 * 200
    assert inside < plain / 10
    assert after > 300 * 200
    assert active == 0


def test_no_fixed_threshold_changes_nothing(monkeypatch):
    """Without a MALLOC_*_THRESHOLD_ variable glibc's dynamic threshold already reuses the heap."""
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    monkeypatch.setitem(_memory._STATE, "libc", None)
    with _memory.heap_reuse():
        assert _memory._STATE["libc"] is False
        assert _memory._STATE["active"] == 0


class _FakeLibc:
    def __init__(self):
        self.calls = []

    def mallopt(self, param, value):
        self.calls.append(("mallopt", param, value))
        return 1

    def malloc_trim(self, pad):
        self.calls.append(("trim", pad))
        return 1


def test_overlapping_tasks_raise_once_and_restore_after_the_last(monkeypatch):
    """Threads of one worker share malloc: raised by the first task, put back by the last."""
    fake = _FakeLibc()
    monkeypatch.setitem(_memory._STATE, "libc", fake)
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    inside, release = threading.Event(), threading.Event()

    def task():
        with _memory.heap_reuse():
            inside.set()
            release.wait(10)

    t = threading.Thread(target=task)
    t.start()
    inside.wait(10)
    with _memory.heap_reuse():
        assert _memory._STATE["active"] == 2
    assert fake.calls == [("mallopt", -3, 32 * 2**20), ("mallopt", -1, 64 * 2**20)]
    release.set()
    t.join(10)
    assert _memory._STATE["active"] == 0
    assert fake.calls[2:] == [("mallopt", -3, 128 * 1024), ("mallopt", -1, 65536), ("trim", 0)]


def test_an_error_in_the_task_still_restores(monkeypatch):
    fake = _FakeLibc()
    monkeypatch.setitem(_memory._STATE, "libc", fake)
    with pytest.raises(RuntimeError, match="boom"), _memory.heap_reuse():
        raise RuntimeError("boom")
    assert _memory._STATE["active"] == 0
    assert fake.calls[-1] == ("trim", 0)

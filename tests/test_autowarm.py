"""The background warm-up that ``import fast`` starts on a cold numba cache (fast/_autowarm.py, issue 28 item 7).

The unit tests replace the process start by a recorder (no compilation); the slow test runs the real thing from a
fresh interpreter with an empty cache and measures what a user's first call gains.
"""
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fast import _autowarm, _warmup
from fast import cli

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def cold(tmp_path, monkeypatch):
    """An empty stamp directory, the warm-up switched on, and process starts recorded instead of run."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv(_autowarm.ENV, raising=False)
    monkeypatch.delenv(_autowarm.CHILD_ENV, raising=False)
    monkeypatch.delenv("NUMBA_DISABLE_JIT", raising=False)
    started = []

    def spawn(stamp):
        started.append(stamp)
        return f"process for {stamp.name}"

    monkeypatch.setattr(_autowarm, "_spawn", spawn)
    monkeypatch.setattr(_autowarm, "_STARTED", [])
    return tmp_path, started


def test_a_cold_cache_starts_one_background_warmup(cold):
    tmp, started = cold
    assert _autowarm.maybe_start() is not None
    stamp = _autowarm.stamp_path()
    assert started == [stamp] and stamp.parent == tmp
    assert stamp.with_suffix(".lock").exists() and not stamp.exists()
    # the next import (the warm-up still running: its lock is held) starts nothing
    assert _autowarm.maybe_start() is None and len(started) == 1


def test_a_warm_stamp_starts_nothing(cold):
    tmp, started = cold
    _autowarm.write_stamp(_autowarm.stamp_path())
    assert _autowarm.maybe_start() is None and started == []


def test_write_stamp_releases_the_lock(cold):
    _autowarm.maybe_start()
    stamp = _autowarm.stamp_path()
    _autowarm.write_stamp(stamp)
    assert stamp.exists() and not stamp.with_suffix(".lock").exists()


@pytest.mark.parametrize("value", ["0", "false", "No", " off "])
def test_the_environment_turns_it_off(cold, monkeypatch, value):
    tmp, started = cold
    monkeypatch.setenv(_autowarm.ENV, value)
    assert _autowarm.maybe_start() is None and started == [] and list(tmp.iterdir()) == []


def test_nothing_is_started_without_jit_or_inside_the_warmup_itself(cold, monkeypatch):
    tmp, started = cold
    monkeypatch.setenv("NUMBA_DISABLE_JIT", "1")
    assert _autowarm.maybe_start() is None
    monkeypatch.delenv("NUMBA_DISABLE_JIT")
    monkeypatch.setenv(_autowarm.CHILD_ENV, "1")
    assert _autowarm.maybe_start() is None and started == []


def test_a_failed_warmup_is_retried_after_a_day_not_before(cold):
    tmp, started = cold
    _autowarm.maybe_start()  # it "fails": no stamp, its lock stays
    lock = _autowarm.stamp_path().with_suffix(".lock")
    assert _autowarm.maybe_start() is None and len(started) == 1
    old = time.time() - _autowarm.RETRY_SECONDS - 60
    os.utime(lock, (old, old))
    assert _autowarm.maybe_start() is not None and len(started) == 2


def test_an_unwritable_cache_never_breaks_the_import(cold, monkeypatch):
    tmp, started = cold
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp / "file" / "below"))
    (tmp / "file").write_text("not a directory")
    assert _autowarm.maybe_start() is None and started == []


def test_the_key_follows_every_source_file(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "a.py").write_text("x = 1\n")
    (pkg / "sub" / "b.py").write_text("y = 2\n")
    key = _autowarm.sources_key(pkg)
    assert _autowarm.sources_key(pkg) == key
    (pkg / "sub" / "b.py").write_text("y = 22\n")  # size changes
    edited = _autowarm.sources_key(pkg)
    assert edited != key
    st = (pkg / "a.py").stat()
    os.utime(pkg / "a.py", ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # touched only
    assert _autowarm.sources_key(pkg) != edited


def test_the_stamp_follows_numba_cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "elsewhere"))
    assert _autowarm.stamp_dir() == tmp_path / "elsewhere"
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    assert _autowarm.stamp_dir() in {_autowarm.FAST / "__pycache__",
                                     Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "privlearn"}


def _fake_warmup(monkeypatch):
    kernel = _warmup.Kernel("fast.nowhere", "_kernel", False, frozenset())
    monkeypatch.setattr(_warmup, "_entry_points", lambda: {})
    monkeypatch.setattr(_warmup, "kernels", lambda root=_warmup.FAST: [kernel])


def test_a_complete_warmup_writes_the_stamp(cold, monkeypatch):
    tmp, _ = cold
    _fake_warmup(monkeypatch)
    monkeypatch.setattr(_warmup, "cache_entries", lambda k: (1, str(tmp)))
    monkeypatch.setattr(os, "nice", lambda inc: 0)  # the background run lowers its priority; not this test's
    stamp = tmp / "given.stamp"
    (tmp / "given.lock").write_text("")
    assert _warmup.main(["--background", str(stamp)]) == 0
    assert stamp.exists() and not (tmp / "given.lock").exists()
    # the foreground command writes the stamp of the current sources
    assert cli.main(["warmup"]) == cli.EXIT_OK and _autowarm.stamp_path().exists()


def test_an_incomplete_warmup_writes_no_stamp(cold, monkeypatch):
    tmp, _ = cold
    _fake_warmup(monkeypatch)
    monkeypatch.setattr(_warmup, "cache_entries", lambda k: (0, str(tmp)))  # the kernel stayed uncached
    monkeypatch.setattr(os, "nice", lambda inc: 0)
    stamp = tmp / "given.stamp"
    assert _warmup.main(["--background", str(stamp)]) == 1
    assert not stamp.exists()
    assert _warmup.main(["--bogus"]) == 2


FIRST_CALL = """
import sys, time
start = time.perf_counter()
import numpy as np
import fast
from fast.mechanisms import gaussian_mechanism
imported = time.perf_counter()
time.sleep(float(sys.argv[1]))  # the user's program reading its data
begin = time.perf_counter()
gaussian_mechanism(np.zeros(3), sensitivity=1.0, epsilon=1.0, delta=1e-5)
print(imported - start, time.perf_counter() - begin)
"""


@pytest.mark.slow
def test_import_warms_the_cache_in_the_background(tmp_path):
    """From a fresh interpreter and an empty cache: ``import fast`` returns at once, the detached warm-up caches
    every kernel and writes the stamp, and a first call made after it finished compiles nothing (under 3 s, where a
    cold first Gaussian mechanism call compiles for 10-30 s)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), _autowarm.ENV: "1"}
    probe = subprocess.run([sys.executable, "-c", "import time; s = time.perf_counter(); import fast; "
                            "print(time.perf_counter() - s)"], env=env, cwd=ROOT, capture_output=True, text=True,
                           timeout=120, check=True)
    assert float(probe.stdout) < 5.0
    assert list(tmp_path.glob("privlearn-warm-*.lock")), "import fast started no warm-up"
    deadline = time.time() + 900
    stamps = []
    while time.time() < deadline and not stamps:
        time.sleep(2)
        stamps = list(tmp_path.glob("privlearn-warm-*.stamp"))
    log = "".join(p.read_text() for p in tmp_path.glob("*.log"))
    assert stamps, f"no stamp after 15 minutes; the warm-up's log:\n{log}"
    assert "kernels cached" in log
    env[_autowarm.ENV] = "0"
    out = subprocess.run([sys.executable, "-c", FIRST_CALL, "0"], env=env, cwd=ROOT, capture_output=True, text=True,
                         timeout=300, check=True)
    assert float(out.stdout.split()[1]) < 3.0, out.stdout

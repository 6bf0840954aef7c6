"""Thread pools and locks that forsy keeps for the life of a process survive a fork: the
child has none of the parent's threads, so a pool or a lock inherited as it was would hang
the child (a forked writer killed mid-write in the atomic-write tests did exactly that)."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

import pytest

from forsy import _atomic
from forsy.redact import _engine


def _in_child(work: object, timeout: float = 90.0) -> int:
    """Run `work()` in a forked child; its exit status (0: done), or -1 if it hangs."""
    pid = os.fork()
    if pid == 0:  # the child: never return into the test runner
        signal.alarm(int(timeout))
        try:
            work()  # type: ignore[operator]
            os._exit(0)
        except BaseException:
            os._exit(3)
    _, status = os.waitpid(pid, 0)
    return -1 if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


def test_a_forked_child_flushes_files_and_no_flushing_thread_outlives_its_call(tmp_path: Path) -> None:
    files = [tmp_path / n for n in "abcd"]
    for f in files:
        f.write_bytes(b"x")
    before = threading.active_count()
    _atomic.fsync_all(files)
    assert threading.active_count() == before  # nothing left for a fork to inherit half-alive
    assert _in_child(lambda: _atomic.fsync_all(files)) == 0
    with pytest.raises(FileNotFoundError):
        _atomic.fsync_all([files[0], tmp_path / "gone", files[1]])  # each tried, the failure raised


def test_a_forked_child_builds_the_engine_though_the_parent_held_its_lock() -> None:
    """A fork while the parent's warm-up thread builds the engine (the lock held)."""
    held = threading.Event()
    release = threading.Event()

    def holder() -> None:
        with _engine._ENGINES_LOCK:
            held.set()
            release.wait(10)

    t = threading.Thread(target=holder)
    t.start()
    held.wait(10)
    try:
        # the default cache folder: its rules are compiled already, so the child only loads them
        assert _in_child(lambda: _engine.shared_engine(None)) == 0
    finally:
        release.set()
        t.join()

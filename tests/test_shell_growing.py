"""A shell history a sweep meets again and again, as the shell appends to it: one session, whose
new draft replaces the one before (each draft was a new session of its own, all pending in the
queue); and a history caught mid-write, its last command without the newline every shell writes
after one, kept and said to be maybe cut short (it was a command like any other)."""

from __future__ import annotations

import time
from pathlib import Path

from forsy.evidence import Session
from forsy.sources import ReadContext
from forsy.sources.shell import ShellHistorySource
from forsy.store import TraceQuery, open_store
from forsy.sweep import SweepOptions, sweep

LINES = [b"#1700000000\n", b"ls -la\n", b"#1700000060\n", b"git status\n"]


def read(path: Path) -> Session:
    [s] = ShellHistorySource().read(path, ReadContext(root=path.parent))
    return s


def test_a_grown_history_is_the_same_session_and_its_new_draft_replaces_the_old(tmp_path: Path) -> None:
    hist = tmp_path / "logs" / ".bash_history"
    hist.parent.mkdir()
    hist.write_bytes(b"".join(LINES))
    before = read(hist).session_id
    store = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    try:
        rep = sweep(store, SweepOptions(roots=[hist.parent], now=time.time, ignore_settle=True,
                                        claude_home=tmp_path / "no-claude"))
        assert rep.counts.traces_written == 1
        with hist.open("ab") as f:
            f.write(b"#1700000120\nmake test\n")
        assert read(hist).session_id == before
        rep = sweep(store, SweepOptions(roots=[hist.parent], now=time.time, ignore_settle=True,
                                        claude_home=tmp_path / "no-claude"))
        assert rep.counts.traces_written == 1
        drafts = store.traces(TraceQuery())
        queue = store.traces(TraceQuery(latest_only=True, reviewed=False, open_only=True))
    finally:
        store.close()
    assert len(drafts) == 2
    [newest] = queue
    assert newest.prior_trace_id == next(d.trace_id for d in drafts if d.trace_id != newest.trace_id)


def test_a_last_command_without_its_newline_is_kept_and_said_to_be_maybe_cut(tmp_path: Path) -> None:
    hist = tmp_path / ".bash_history"
    hist.write_bytes(b"".join(LINES) + b"#1700000120\nrm -rf /tmp/fo")
    s = read(hist)
    assert [e.text for e in s.events if e.kind == "shell_command"][-1] == "rm -rf /tmp/fo"
    [w] = [w for w in s.warnings if w.code == "unterminated_last_line"]
    assert (w.file, w.line) == (".bash_history", 5)
    assert s.quality.extra["unterminated_last_line"] == 1
    hist.write_bytes(b"".join(LINES))  # complete: nothing said
    assert not [w for w in read(hist).warnings if w.code == "unterminated_last_line"]

"""The sweep's "unchanged" decision against each way a session file can change, one at a time:
more bytes with the modification time put back, fewer bytes, other bytes of the same size with
a new time, a new inode with the same bytes, a new time alone. A change of what the file holds
is always traced again (one new draft, linked to the one it replaces); a change of nothing but
its place or its time makes no new draft."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from _grow import append_user
from _paths import SAMPLES
from forsy.store import Store, TraceQuery, open_store
from forsy.sweep import SweepOptions, SweepReport, sweep


def run(store: Store, root: Path) -> SweepReport:
    return sweep(store, SweepOptions(roots=[root], ignore_settle=True, claude_home=root / "no-claude-home"))


def keep_time(path: Path, change: Callable[[Path], None]) -> None:
    """Change the file, then put its modification time back as it was (a copy tool, a restore)."""
    st = path.stat()
    change(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def grow(p: Path) -> None:
    append_user(p, "And the docs, too?")


def shrink(p: Path) -> None:
    lines = p.read_bytes().splitlines(keepends=True)
    p.write_bytes(b"".join(lines[:-3]))


def same_size_other_bytes(p: Path) -> None:
    data = p.read_bytes()
    i = data.index(b"Can you fix it")
    p.write_bytes(data[:i] + b"Can you FIX it" + data[i + len(b"Can you fix it"):])
    st = p.stat()
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))


def new_inode_same_bytes(p: Path) -> None:
    copy = p.with_suffix(".tmp")
    shutil.copy2(p, copy)
    os.replace(copy, p)


def new_time_only(p: Path) -> None:
    st = p.stat()
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))


@pytest.mark.parametrize(("change", "new_drafts", "how"), [
    (lambda p: keep_time(p, grow), 1, "grown"),
    (lambda p: keep_time(p, shrink), 1, "rewritten"),
    (same_size_other_bytes, 1, "rewritten"),
    (new_inode_same_bytes, 0, "rewritten"),
    (new_time_only, 0, "rewritten"),
], ids=["grown-time-kept", "truncated-time-kept", "same-size-new-bytes", "new-inode-same-bytes", "time-only"])
def test_each_change_alone(tmp_path: Path, change: Callable[[Path], None], new_drafts: int, how: str) -> None:
    root = tmp_path / "logs" / "-home-dev-projects-a"
    root.mkdir(parents=True)
    log = root / "demo-session.jsonl"
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", log)
    st = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    try:
        first = run(st, root.parent)
        assert first.counts.traces_written == 1
        [before] = st.traces(TraceQuery())
        change(log)
        again = run(st, root.parent)
        rows = st.traces(TraceQuery())
        assert len(rows) == 1 + new_drafts, (again.to_json(), [r.trace_id for r in rows])
        assert getattr(again.counts, how) == 1 and again.counts.unchanged == 0  # looked at, never skipped
        if new_drafts:
            [new] = [r for r in rows if r.trace_id != before.trace_id]
            assert new.prior_trace_id == before.trace_id
        third = run(st, root.parent)  # and once seen, it is unchanged
        assert (third.counts.unchanged, third.counts.traced) == (1, 0)
    finally:
        st.close()


def test_a_file_whose_sessions_partly_fail_is_recorded_failed_and_tried_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One file, two sessions (an evaluation's output.jsonl); one fails: the other is stored,
    the file is failed (named, exit 7) and read again next run, never remembered as done."""
    import forsy.run.session as session_stage

    root = tmp_path / "logs"
    root.mkdir()
    line = (SAMPLES.parent / "tests" / "fixtures" / "openhands" / "sdk-output.jsonl").read_text("utf-8").strip()
    import json

    first, second = json.loads(line), json.loads(line)
    first["instance_id"], second["instance_id"] = "repo__one-1", "repo__two-2"
    (root / "output.jsonl").write_text(json.dumps(first) + "\n" + json.dumps(second) + "\n", "utf-8")
    real = session_stage.process
    broken = {"on": True}

    def process(session, options, redactor):  # type: ignore[no-untyped-def]
        if broken["on"] and session.session_id == "repo__two-2":
            raise RuntimeError("a bug met on the second session")
        return real(session, options, redactor)

    monkeypatch.setattr(session_stage, "process", process)
    st = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    try:
        rep = run(st, root)
        assert rep.counts.failed == 1 and rep.exit_code == 7, rep.to_json()
        assert [r.session_id for r in st.traces(TraceQuery())] == ["repo__one-1"]
        [state] = [s for s in st.file_states([str(root)]).values() if s.path.endswith("output.jsonl")]
        assert state.status == "failed" and "second session" in (state.last_error or "")
        broken["on"] = False  # the bug is fixed; the file did not change
        again = run(st, root)
        assert sorted(r.session_id for r in st.traces(TraceQuery())) == ["repo__one-1", "repo__two-2"], \
            again.to_json()
        assert again.exit_code == 0
        # read again for the earlier failure, not because it changed: counted as such
        assert (again.counts.retried, again.counts.grown, again.counts.rewritten) == (1, 0, 0), again.to_json()
    finally:
        st.close()

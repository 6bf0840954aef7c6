"""One sweep run (`forsy.sweep.run`) in process, on a real SQLite store over a tree of sample
sessions built in tmp: the counts and bytes read, computed by hand from the files' sizes; the
exact words of what waits and why; the exit code and the JSON of a report; the lock; a store
that stops the run; faults that root cannot meet for real (a file it may not read, a folder
it may not list), made by stand-ins for the file system's answers."""

from __future__ import annotations

import os
import shutil
import socket
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import forsy.sweep.lock as lock_mod
import forsy.sweep.run as sweep_mod
from _paths import SAMPLES
from forsy.errors import ExitCode, StoreError
from forsy.store import ErrorRow, FaultRow, LockInfo, RunCounts, Store, open_store
from forsy.sweep import SweepOptions, SweepProgress, SweepReport, sweep
from forsy.sweep._files import HEAD_BLOCK
from forsy.sweep.lock import holder_alive, process_token
from forsy.sweep.run import _file_reason, _source, _TestHold, iso

T = 2_000_000_000.0  # the clock of every run here (2033-05-18T03:33:20+00:00)
DEMO = SAMPLES / "claude" / "demo-session.jsonl"
OTHER = SAMPLES / "claude" / "compaction-and-branches.jsonl"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """logs/p/a.jsonl and logs/p/b.jsonl (two sample Claude sessions), a day old."""
    r = tmp_path / "logs"
    (r / "p").mkdir(parents=True)
    shutil.copy(DEMO, r / "p" / "a.jsonl")
    shutil.copy(OTHER, r / "p" / "b.jsonl")
    for f in (r / "p").iterdir():
        os.utime(f, (T - 86400, T - 86400))
    return r



def swp(store: Store, root: Path, now: float = T, **kw: Any) -> SweepReport:
    kw.setdefault("ignore_settle", True)
    return sweep(store, SweepOptions(roots=[root], now=lambda: now, claude_home=root / "no-claude", **kw))


def fp_cost(size: int) -> int:
    """What `fingerprint` reads of a file under 64 KiB: the head, then the whole file back."""
    assert size < 65536
    return min(HEAD_BLOCK, size) + size


def test_a_first_run_then_a_grown_file_counts_every_byte_it_read(root: Path, store: Store) -> None:
    a, b = root / "p" / "a.jsonl", root / "p" / "b.jsonl"
    sa, sb = a.stat().st_size, b.stat().st_size
    first = swp(store, root)
    c = first.counts
    # each new file: its fingerprint (to look), its bytes (to trace), its fingerprint (to remember)
    assert c.bytes_read == 2 * fp_cost(sa) + sa + 2 * fp_cost(sb) + sb
    assert (c.seen, c.new, c.traced, c.traces_written, c.unchanged, c.failed) == (2, 2, 2, 2, 0, 0)
    assert first.exit_code == ExitCode.OK and first.run_id == 1
    old = a.read_bytes()
    last_line = len(old) - old.rfind(b"\n", 0, len(old) - 1) - 1
    with a.open("ab") as f:
        f.write(old[-last_line:])  # the last line again: longer, its old last line in place
    sa2 = a.stat().st_size
    again = swp(store, root)
    c = again.counts
    # classify reads the old head block and the old last line; then as a new file
    assert c.bytes_read == HEAD_BLOCK + last_line + 2 * fp_cost(sa2) + sa2
    assert (c.seen, c.grown, c.unchanged, c.traced, c.traces_written, c.new) == (2, 1, 1, 1, 1, 0)
    a.write_bytes(old[:-last_line] + b'{"x": 1}\n' + old[-last_line:])  # the same length plus, rewritten
    c = swp(store, root).counts
    assert (c.rewritten, c.grown, c.traced) == (1, 0, 1)
    assert [r.status for r in store.runs()] == ["done", "done", "done"]


def test_incomplete_and_fresh_files_wait_saying_why(root: Path, store: Store) -> None:
    a, b = root / "p" / "a.jsonl", root / "p" / "b.jsonl"
    a.write_bytes(DEMO.read_bytes()[:-10])
    mtime = T - 86400 + 1  # a second short of a day old
    os.utime(a, (mtime, mtime))
    os.utime(b, (T - 120, T - 120))  # exactly the settle window old: it has settled
    rep = swp(store, root, ignore_settle=False)
    when = datetime.fromtimestamp(mtime + 86400, UTC).isoformat(timespec="seconds")
    assert rep.waiting == [(str(a), "its last line is incomplete (the agent may be writing it); unchanged, it is "
                                    f"traced as it is from {when}")]
    assert (rep.counts.waiting, rep.counts.traced, rep.exit_code) == (1, 1, ExitCode.OK)
    rep = swp(store, root, now=T + 1)  # a day old: its writer is gone, it is read as it is
    assert (rep.waiting, rep.counts.new, rep.counts.unchanged) == ([], 1, 1)
    shutil.copy(DEMO, b)  # b changed, 119.5 s ago
    os.utime(b, (T - 119.5, T - 119.5))
    rep = swp(store, root, ignore_settle=False)
    assert rep.waiting == [(str(b), "modified within the last 120 s (settle window)")]
    rep = swp(store, root, ignore_settle=False, settle_seconds=30.5)
    assert rep.waiting == [] and rep.counts.rewritten == 1


def test_a_session_waits_for_its_freshest_file(tmp_path: Path, store: Store) -> None:
    sub = "c7133dee-e28c-4d03-8ec3-1209007ef3b4"
    r = tmp_path / "logs"
    (r / "p").mkdir(parents=True)
    shutil.copy(SAMPLES / "claude" / "subagents" / f"{sub}.jsonl", r / "p" / f"{sub}.jsonl")
    shutil.copytree(SAMPLES / "claude" / "subagents" / sub, r / "p" / sub)
    files = sorted(r.rglob("*.jsonl"))
    for f in files:
        os.utime(f, (T - 3600, T - 3600))
    assert swp(store, r, ignore_settle=False).counts.traced == 1
    member = next(f for f in files if f.name != f"{sub}.jsonl")
    with member.open("ab") as f:
        f.write(b"\n")
    os.utime(member, (T - 60, T - 60))
    rep = swp(store, r, ignore_settle=False)
    assert rep.waiting == [(str(r / "p" / f"{sub}.jsonl"), "modified within the last 120 s (settle window)")]
    rep = swp(store, r, now=T + 60, ignore_settle=False)
    assert (rep.waiting, rep.counts.grown, rep.counts.traced) == ([], 1, 1)
    states = store.file_states([str(r)])
    assert states[str(member)].status == "member" and states[str(member)].unit_path == str(r / "p" / f"{sub}.jsonl")


def test_progress_counts_files_and_bytes_in_order(root: Path, store: Store) -> None:
    events: list[SweepProgress] = []
    sa, sb = (root / "p" / "a.jsonl").stat().st_size, (root / "p" / "b.jsonl").stat().st_size
    swp(store, root, progress=events.append)
    assert events == [SweepProgress(0, 0, 0, 0, str(root)), SweepProgress(0, 0, 0, 0, str(root)),
                      SweepProgress(0, 2, 0, sa + sb, str(root / "p" / "a.jsonl")),
                      SweepProgress(1, 2, sa, sa + sb, str(root / "p" / "b.jsonl"))]
    events.clear()
    swp(store, root, progress=events.append)  # nothing new: the walk only, no discovery
    assert events == [SweepProgress(0, 0, 0, 0, str(root))]


def test_a_file_no_source_reads_fails_alone_and_is_read_again(root: Path, store: Store) -> None:
    bad = root / "p" / "bad.jsonl"
    bad.write_bytes(b"not a log\n")
    rep = swp(store, root)
    assert [e.path for e in rep.failures] == [str(bad)]
    assert (rep.counts.traced, rep.counts.failed, rep.exit_code) == (2, 1, ExitCode.PARTIAL)
    assert [e.path for e in store.errors(1)] == [str(bad)]
    st = store.file_states([str(root)])[str(bad)]
    assert (st.status, st.unit_path, st.size, st.read_to, st.run_id) == ("failed", str(bad), 10, 10, 1)
    assert st.last_error == rep.failures[0].message and st.updated_at == iso(T)
    one = swp(store, bad)  # a root that is the file alone: the same failure, nothing else done
    assert (one.counts.seen, one.counts.failed, one.counts.traced, one.exit_code) == (1, 1, 0, ExitCode.INPUT)


def test_a_root_that_is_a_file_no_source_reads_is_its_failure(tmp_path: Path, store: Store) -> None:
    f = tmp_path / "x.jsonl"
    f.write_bytes(b"not a log\n")
    rep = swp(store, f)  # found by no source: it is not looked at, its state is remembered failed
    assert (rep.counts.seen, rep.counts.failed, rep.counts.bytes_read) == (1, 1, fp_cost(10))
    assert rep.exit_code == ExitCode.INPUT and [e.path for e in rep.failures] == [str(f)]
    st = store.file_states([str(f)])[str(f)]
    assert (st.status, st.unit_path, st.source_kind, st.last_error) == ("failed", str(f), None,
                                                                        rep.failures[0].message)
    assert [e.message for e in store.errors(1)] == [rep.failures[0].message]


def test_a_file_that_cannot_be_read_is_a_fault_said_once_and_tried_again(root: Path, store: Store,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    a = root / "p" / "a.jsonl"
    real = sweep_mod.fingerprint

    def denied(path: str, size: int) -> Any:
        if path == str(a):
            raise PermissionError(13, "Permission denied", path)
        return real(path, size)

    monkeypatch.setattr(sweep_mod, "fingerprint", denied)
    rep = swp(store, root)
    assert [(f.path, f.what, f.reason, f.runs) for f in rep.faults] == [
        (str(a), "file", "cannot read: permission denied", 1)]
    assert (rep.counts.traced, rep.counts.failed, rep.exit_code) == (1, 1, ExitCode.PARTIAL)
    assert store.errors(1) == [ErrorRow(1, str(a), "cannot read: permission denied", iso(T))]
    rep = swp(store, root, now=T + 60)
    assert [(f.path, f.runs, f.first_at) for f in rep.faults] == [(str(a), 2, iso(T))]
    assert store.errors(2) == []  # said when first met
    monkeypatch.undo()
    rep = swp(store, root, now=T + 120)
    assert (rep.faults, rep.counts.new, rep.exit_code) == ([], 1, ExitCode.OK)


def test_a_folder_that_cannot_be_listed_is_a_fault(root: Path, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    real = sweep_mod.walk

    def walk(r: str, blocked: dict[str, str], links: list[tuple[str, str]]) -> Any:
        found = real(r, blocked, links)
        blocked[str(root / "q")] = "cannot list this folder: permission denied"
        return found

    monkeypatch.setattr(sweep_mod, "walk", walk)
    rep = swp(store, root)
    assert [(f.path, f.what, f.reason) for f in rep.faults] == [
        (str(root / "q"), "folder", "cannot list this folder: permission denied")]
    assert (rep.counts.traced, rep.counts.failed, rep.exit_code) == (2, 1, ExitCode.PARTIAL)


def test_a_gone_file_is_counted_once_and_its_rows_marked(root: Path, store: Store) -> None:
    swp(store, root)
    (root / "p" / "a.jsonl").unlink()
    rep = swp(store, root, now=T + 5)
    assert (rep.counts.gone, rep.counts.seen, rep.counts.unchanged) == (1, 1, 1)
    st = store.file_states([str(root)])[str(root / "p" / "a.jsonl")]
    assert (st.status, st.updated_at, st.run_id) == ("source_gone", iso(T + 5), 2)
    assert swp(store, root).counts.gone == 0


def test_files_no_session_claims_are_remembered_as_ignored(root: Path, store: Store) -> None:
    notes = root / "p" / "notes.json"
    notes.write_bytes(b'{"a": 1}\n')
    rep = swp(store, root)
    st = store.file_states([str(root)])[str(notes)]
    assert (st.status, st.unit_path, st.size, st.last_error, st.run_id) == ("ignored", "", 9, None, 1)
    sa, sb = (root / "p" / "a.jsonl").stat().st_size, (root / "p" / "b.jsonl").stat().st_size
    assert rep.counts.bytes_read == 2 * fp_cost(sa) + sa + 2 * fp_cost(sb) + sb + fp_cost(9)
    assert rep.left_out == [] and rep.counts.seen == 2


def test_a_store_that_fails_stops_the_run_marks_it_failed_and_frees_the_lock(
        root: Path, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(states: Any) -> None:
        raise StoreError("database or disk is full")

    monkeypatch.setattr(store, "put_file_states", full)
    rep = swp(store, root, now=T + 7)
    assert rep.failure == "database or disk is full" and rep.exit_code == ExitCode.STORE and rep.marked_failed
    [run] = store.runs()
    assert (run.status, run.failure, run.finished_at) == ("failed", "database or disk is full", iso(T + 7))
    assert store.lock_holder() is None


def test_a_bug_marks_the_run_failed_with_its_name_and_is_raised(root: Path, store: Store,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*a: Any, **k: Any) -> Any:
        raise RuntimeError("x" * 400)

    monkeypatch.setattr(sweep_mod, "plan_units", boom)
    with pytest.raises(RuntimeError):
        swp(store, root)
    [run] = store.runs()
    assert run.status == "failed" and run.failure == ("RuntimeError: " + "x" * 400)[:300]
    assert store.lock_holder() is None


def test_a_failure_the_store_cannot_even_record_leaves_the_run_to_status(
        root: Path, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(*a: Any, **k: Any) -> None:
        raise StoreError("database or disk is full")

    monkeypatch.setattr(store, "put_file_states", full)
    monkeypatch.setattr(store, "fail_run", full)
    monkeypatch.setattr(store, "release_lock", full)
    rep = swp(store, root)
    assert rep.failure == "database or disk is full" and rep.run_id == 1 and not rep.marked_failed
    assert [r.status for r in store.runs()] == ["running"]


@pytest.mark.parametrize("marked", [True, False])
def test_a_stopped_sweep_says_it_stopped_and_whether_its_run_is_marked(
        marked: bool, capsys: pytest.CaptureFixture[str]) -> None:
    from forsy.cli.sweep import _summary

    rep = _report(failure="database or disk is full", run_id=3, marked_failed=marked,
                  counts=RunCounts(seen=2, traced=1, traces_written=1))
    _summary(rep)
    out, err = capsys.readouterr()
    assert out.startswith("stopped after ") and "root(s) not swept to the end: 2 session file(s)" in out
    assert "the sweep stopped: database or disk is full; what it was writing was rolled back" in err
    assert ("run 3 is marked failed" in err) is marked
    assert ("the store could not mark run 3 failed either (--status shows it stopped)" in err) is not marked


def test_a_live_holder_of_the_lock_stops_the_run_at_once(root: Path, store: Store) -> None:
    # init is alive, and is the process the lock names
    live = LockInfo(1, socket.gethostname(), "2020-01-01T00:00:00+00:00", process_token(1) or "")
    assert store.acquire_lock(live, lambda _: True) is None
    rep = swp(store, root)
    assert rep.locked_by is not None and rep.locked_by.idle_s is not None
    assert (replace(rep.locked_by, idle_s=None), rep.run_id, rep.counts, rep.exit_code) == \
        (live, None, RunCounts(), ExitCode.OK)
    held = store.lock_holder()
    assert store.runs() == [] and held is not None and replace(held, idle_s=None) == live


def test_a_lock_that_cannot_be_taken_is_a_store_failure(root: Path, store: Store,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    def locked(*a: Any) -> None:
        raise StoreError("database is locked")

    monkeypatch.setattr(store, "acquire_lock", locked)
    rep = swp(store, root)
    assert (rep.failure, rep.run_id, rep.exit_code) == ("database is locked", None, ExitCode.STORE)
    assert store.runs() == []


def test_holder_alive(monkeypatch: pytest.MonkeyPatch) -> None:
    here = socket.gethostname()
    assert holder_alive(LockInfo(os.getpid(), here, ""))
    assert holder_alive(LockInfo(2**22 + 12345, here + ".other", ""))  # another host: cannot tell, live
    assert not holder_alive(LockInfo(2**22 + 12345, here, ""))  # above pid_max: no such process

    def no(pid: int, sig: int) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(lock_mod.os, "kill", no)
    assert holder_alive(LockInfo(1, here, ""))


def _report(**kw: Any) -> SweepReport:
    return SweepReport("sqlite:///s.db", ["/r"], **kw)


@pytest.mark.parametrize(("kw", "code"), [
    ({}, ExitCode.OK),
    ({"counts": RunCounts(seen=3, unchanged=3)}, ExitCode.OK),
    ({"counts": RunCounts(seen=1, failed=1)}, ExitCode.INPUT),  # nothing else done
    ({"counts": RunCounts(seen=2, failed=1)}, ExitCode.PARTIAL),  # another file was
    ({"counts": RunCounts(seen=1, failed=1, traces_written=1)}, ExitCode.PARTIAL),  # another session was
    ({"faults": [FaultRow("/r/x", "file", "why", "t", 1, "t", 1, 1)]}, ExitCode.PARTIAL),
    ({"faults": [FaultRow("/r/x", "file", "why", "t", 1, "t", 1, 1)], "failure": "full"}, ExitCode.STORE),
    ({"counts": RunCounts(seen=1, failed=1), "failure": "full"}, ExitCode.STORE),
])
def test_the_exit_code(kw: dict[str, Any], code: int) -> None:
    assert _report(**kw).exit_code == code


def test_the_json_of_a_report() -> None:
    rep = _report(run_id=4, counts=RunCounts(seen=2, traced=1, failed=1), duration_s=1.23456,
                  failures=[ErrorRow(4, "/r/b.jsonl", "bad", "t")], waiting=[("/r/c.jsonl", "settle")],
                  warnings=["w"], locked_by=LockInfo(9, "h", "s", "b:7", 12.5),
                  faults=[FaultRow("/r/x", "folder", "why", "t0", 1, "t1", 4, 3)], left_out=[("/r/deep", "far")],
                  no_work=[("/r/d.jsonl", "empty")], already_stored=[("/r/e.jsonl", "forsy_x", "/r/a.jsonl")],
                  behind=[("/r/f.jsonl", "forsy_y", "forsy_z", "/r/g.jsonl")])
    counts = {"seen": 2, "unchanged": 0, "new": 0, "grown": 0, "rewritten": 0, "retried": 0, "gone": 0, "failed": 1,
              "waiting": 0, "traced": 1, "skipped": 0, "traces_written": 0, "bytes_read": 0}
    assert rep.to_json() == {
        "store": "sqlite:///s.db", "roots": ["/r"], "run_id": 4,
        "locked_by": {"pid": 9, "host": "h", "since": "s", "proc": "b:7", "idle_s": 12.5},
        **counts, "counts": counts, "duration_s": 1.235, "failure": None,
        "failures": [{"path": "/r/b.jsonl", "message": "bad"}],
        "faults": [{"path": "/r/x", "what": "folder", "reason": "why", "since": "t0", "runs": 3}],
        "left_out": [{"path": "/r/deep", "reason": "far"}],
        "waiting_files": [{"path": "/r/c.jsonl", "reason": "settle"}],
        "no_work_files": [{"path": "/r/d.jsonl", "reason": "empty"}], "warnings": ["w"],
        "already_stored": [{"path": "/r/e.jsonl", "trace_id": "forsy_x", "stored_from": "/r/a.jsonl"}],
        "behind": [{"path": "/r/f.jsonl", "trace_id": "forsy_y", "behind": "forsy_z", "stored_from": "/r/g.jsonl"}],
        "exit_code": ExitCode.PARTIAL}
    assert _report().to_json()["locked_by"] is None


def test_small_words() -> None:
    assert iso(T) == "2033-05-18T03:33:20+00:00" and iso(T + 0.9) == "2033-05-18T03:33:20+00:00"
    assert _file_reason(FileNotFoundError(2, "No such file or directory", "/r/a.jsonl"), "/r/a.jsonl") == \
        "vanished during the sweep"
    assert _file_reason(FileNotFoundError(2, "No such file or directory", "/r/a/sub.jsonl"), "/r/a.jsonl") == \
        "vanished during the sweep (/r/a/sub.jsonl)"
    assert _file_reason(PermissionError(13, "Permission denied"), "/r/a.jsonl") == "cannot read: permission denied"
    assert _file_reason(PermissionError(13, "Permission denied", "/r/m"), "/r/a") == \
        "cannot read: permission denied (/r/m)"
    from forsy.sweep._units import Unit

    assert _source(Unit("/r/a.jsonl", "new")) is None
    assert _source(Unit("/r/a.jsonl", "new", source_kind="no-such-source")) is None
    src = _source(Unit("/r/a.jsonl", "new", source_kind="claude_code"))
    assert src is not None and src.name == "claude_code"


def test_the_crash_tests_hold(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FORSY_SWEEP_TEST_HOLD", raising=False)
    assert _TestHold.from_env() == _TestHold()
    monkeypatch.setenv("FORSY_SWEEP_TEST_HOLD", "3")
    monkeypatch.setenv("FORSY_SWEEP_TEST_MARK", str(tmp_path / "mark"))
    assert _TestHold.from_env() == _TestHold(3, "traced", str(tmp_path / "mark"))
    monkeypatch.setenv("FORSY_SWEEP_TEST_HOLD", "2:committed")
    hold = _TestHold.from_env()
    assert hold == _TestHold(2, "committed", str(tmp_path / "mark"))

    class Held(Exception):
        pass

    def sleep(s: float) -> None:
        raise Held(s)

    monkeypatch.setattr(sweep_mod.time, "sleep", sleep)
    hold.maybe("traced")  # another stage: not counted
    hold.maybe("committed")  # the first: goes on
    assert not (tmp_path / "mark").exists()
    with pytest.raises(Held) as held:
        hold.maybe("committed")
    assert held.value.args == (60,) and (tmp_path / "mark").read_text() == str(os.getpid())
    _TestHold().maybe("traced")  # unset: nothing


def _six(tmp_path: Path) -> Path:
    """Six session files in name order: five traced (one of them failing) and one waiting."""
    r = tmp_path / "six"
    (r / "p").mkdir(parents=True)
    for name, src in (("a", DEMO), ("b", OTHER), ("d", SAMPLES / "claude" / "legacy-inline-sidechain.jsonl"),
                      ("e", SAMPLES / "claude" / "subagents" / "c7133dee-e28c-4d03-8ec3-1209007ef3b4.jsonl")):
        shutil.copy(src, r / "p" / f"{name}.jsonl")
    (r / "p" / "c.jsonl").write_bytes(b"not a log\n")
    (r / "p" / "f.jsonl").write_bytes(DEMO.read_bytes()[:-10])  # incomplete: waits
    (r / "p" / "notes.json").write_bytes(b"{}\n")
    for f in (r / "p").iterdir():
        os.utime(f, (T - 3600, T - 3600))
    return r


def test_a_sweep_on_two_processes_keeps_a_window_and_stores_what_one_stores(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from forsy.run import RetraceOptions, parallel

    r = _six(tmp_path)
    one = open_store(f"sqlite:///{tmp_path / 'one.db'}")
    two = open_store(f"sqlite:///{tmp_path / 'two.db'}")
    try:
        serial = swp(one, r, ignore_settle=False)
        events: list[str] = []
        real_submit, real_finish = parallel.SessionPool.submit, parallel.SessionPool.finish

        def submit(pool: Any, path: Path, *a: Any, **k: Any) -> Any:
            events.append(f"+{path.stem}")
            return real_submit(pool, path, *a, **k)

        def finish(pool: Any, p: Any, *a: Any) -> Any:
            events.append(f"-{p.path.stem}")
            return real_finish(pool, p, *a)

        monkeypatch.setattr(parallel.SessionPool, "submit", submit)
        monkeypatch.setattr(parallel.SessionPool, "finish", finish)
        progress: list[SweepProgress] = []
        both = swp(two, r, ignore_settle=False, retrace=RetraceOptions(jobs=2), progress=progress.append)
        # a window of 2 workers + 2 read ahead: four files out, then one in for each one out, in order
        assert events == ["+a", "+b", "+c", "+d", "-a", "+e", "-b", "-c", "-d", "-e"]
        assert [os.path.basename(p.path) for p in progress if p.files] == ["a.jsonl", "b.jsonl", "c.jsonl",
                                                                          "d.jsonl", "e.jsonl"]
        assert (vars(both.counts) | {"bytes_read": 0}) == (vars(serial.counts) | {"bytes_read": 0})
        assert (both.counts.traced, both.counts.failed, both.counts.waiting) == (4, 1, 1)
        assert both.counts.bytes_read == serial.counts.bytes_read
        assert (both.failures, both.waiting, both.faults) == (serial.failures, serial.waiting, serial.faults)
        assert two.file_states([str(r)]) == one.file_states([str(r)])
        assert two.errors(1) == one.errors(1)
    finally:
        one.close()
        two.close()


def test_each_history_and_the_repository_is_read_on_its_own_and_a_failing_one_is_a_fault(
        root: Path, store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import forsy.run as forsy_run
    from forsy.errors import InputError
    from forsy.run import RetraceOptions, Timeline

    h1, h2, h3, repo = (tmp_path / n for n in ("h1", "h2", "h3", "repo"))
    asked: list[tuple[list[Path], Path | None]] = []

    def inputs(opts: RetraceOptions) -> Timeline:
        asked.append((list(opts.history), opts.git))
        if opts.history == [h1]:
            raise PermissionError(13, "Permission denied", str(h1))
        if opts.history == [h2]:
            raise InputError("not a shell history")
        if opts.history == [h3]:
            return Timeline(["h3-session"], ["h3-git"])  # type: ignore[list-item]
        return Timeline([], ["repo-session"])  # type: ignore[list-item]

    seen: list[object] = []
    real = forsy_run.retrace_one

    def retrace_one(path: Any, *a: Any, timeline: Any = None, **k: Any) -> Any:
        seen.append(timeline)
        return real(path, *a, timeline=None, **k)

    monkeypatch.setattr(forsy_run, "timeline_inputs", inputs)
    monkeypatch.setattr(forsy_run, "retrace_one", retrace_one)
    rep = swp(store, root, retrace=RetraceOptions(history=[h1, h2, h3], git=repo))
    assert asked == [([h1], None), ([h2], None), ([h3], None), ([], repo)]
    assert [(f.path, f.what, f.reason) for f in rep.faults] == [
        (str(h1), "file", "cannot read this history or repository: permission denied (sessions traced without it)"),
        (str(h2), "file", "cannot read this history or repository: not a shell history (sessions traced without it)")]
    assert seen == [Timeline(["h3-session"], ["h3-git", "repo-session"])] * 2  # type: ignore[list-item]
    assert (rep.counts.traced, rep.exit_code) == (2, ExitCode.PARTIAL)
    asked.clear()
    assert swp(store, root, retrace=RetraceOptions(history=[h1], git=repo)).counts.unchanged == 2
    assert asked == []  # nothing to trace: no history read


def test_a_failed_run_records_how_long_it_ran(root: Path, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(states: Any) -> None:
        raise StoreError("database or disk is full")

    monkeypatch.setattr(store, "put_file_states", full)
    rep = swp(store, root)
    [run] = store.runs()
    assert run.duration_s is not None and 0 < run.duration_s < 60 and 0 < rep.duration_s < 60


def test_a_session_file_back_from_gone_is_traced_from_scratch(root: Path, store: Store, tmp_path: Path) -> None:
    a = root / "p" / "a.jsonl"
    swp(store, root)
    a.rename(tmp_path / "away.jsonl")
    assert swp(store, root).counts.gone == 1
    (tmp_path / "away.jsonl").rename(a)  # the same file: same device, inode, size and time
    c = swp(store, root).counts
    assert (c.rewritten, c.grown, c.traced, c.unchanged) == (1, 0, 1, 1)


def test_an_ignored_file_that_changed_is_remembered_as_it_is_now(root: Path, store: Store) -> None:
    notes = root / "p" / "notes.json"
    notes.write_bytes(b"{}\n")
    swp(store, root)
    notes.write_bytes(b'{"a": [1, 2]}\n')
    swp(store, root)
    st = store.file_states([str(root)])[str(notes)]
    assert (st.status, st.size) == ("ignored", 14)


def test_a_file_a_search_limit_left_out_is_named_and_remembered_with_why(
        root: Path, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    import forsy.run as forsy_run

    deep = root / "p" / "deep" / "x.jsonl"
    deep.parent.mkdir()
    deep.write_bytes(b"{}\n")
    real = forsy_run.discover

    def discover(paths: Any, unread: Any = None) -> Any:
        found = real(paths, unread)
        unread.append((root / "p" / "deep", "deeper than 6 levels: not searched"))
        return [(s, p) for s, p in found if Path(p) != deep]

    monkeypatch.setattr(forsy_run, "discover", discover)
    rep = swp(store, root)
    assert rep.left_out == [(str(deep), "deeper than 6 levels: not searched")]
    st = store.file_states([str(root)])[str(deep)]
    assert (st.status, st.last_error) == ("ignored", "deeper than 6 levels: not searched")


def test_the_cleanup_warning_looks_in_the_users_claude_home(tmp_path: Path, store: Store,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    proj = tmp_path / "home" / ".claude" / "projects" / "p"
    proj.mkdir(parents=True)
    shutil.copy(DEMO, proj / "a.jsonl")
    os.utime(proj / "a.jsonl", (T - 27 * 86400, T - 27 * 86400))  # 3 days left of 30
    rep = sweep(store, SweepOptions(roots=[proj.parent], now=lambda: T, ignore_settle=True))
    assert rep.warnings == ["1 traced session log(s) will be deleted by Claude Code within 5 days "
                            "(cleanupPeriodDays=30); their traces stay in the store"]


def test_a_failing_file_that_is_not_text_is_a_failure_not_a_crash(root: Path, store: Store) -> None:
    bad = root / "p" / "bad.jsonl"
    bad.write_bytes(b"\xff\xfe\x00not a log\n")
    rep = swp(store, root)
    assert [e.path for e in rep.failures] == [str(bad)] and rep.faults == []
    assert (rep.counts.traced, rep.counts.failed) == (2, 1)


def _grow(f: Path) -> int:
    """Append f's last line again; return that line's length (what classify reads of the tail)."""
    data = f.read_bytes()
    n = len(data) - data.rfind(b"\n", 0, len(data) - 1) - 1
    with f.open("ab") as out:
        out.write(data[-n:])
    return n


def test_two_grown_files_add_up_and_their_drafts_carry_the_run(root: Path, store: Store, tmp_path: Path) -> None:
    import sqlite3

    a, b = root / "p" / "a.jsonl", root / "p" / "b.jsonl"
    swp(store, root)
    la, lb = _grow(a), _grow(b)
    sa, sb = a.stat().st_size, b.stat().st_size
    c = swp(store, root).counts
    assert c.grown == 2
    assert c.bytes_read == HEAD_BLOCK + la + 2 * fp_cost(sa) + sa + HEAD_BLOCK + lb + 2 * fp_cost(sb) + sb
    with sqlite3.connect(tmp_path / "s.db") as db:
        assert sorted(db.execute("SELECT run_id FROM traces")) == [(1,), (1,), (2,), (2,)]


def test_progress_counts_a_sessions_other_files_in_its_bytes(tmp_path: Path, store: Store) -> None:
    sub = "c7133dee-e28c-4d03-8ec3-1209007ef3b4"
    r = tmp_path / "logs"
    (r / "p").mkdir(parents=True)
    shutil.copy(SAMPLES / "claude" / "subagents" / f"{sub}.jsonl", r / "p" / "a.jsonl")
    shutil.copytree(SAMPLES / "claude" / "subagents" / sub, r / "p" / "a")  # a's subagents
    shutil.copy(DEMO, r / "p" / "b.jsonl")
    shutil.copy(OTHER, r / "p" / "c.jsonl")
    swp(store, r)  # the first run finds a's member files
    member = next(f for f in r.rglob("agent-*.jsonl"))
    for f in (r / "p" / "a.jsonl", r / "p" / "b.jsonl", r / "p" / "c.jsonl"):
        _grow(f)
    _grow(member)
    sizes = {f.name: f.stat().st_size for f in r.rglob("*.jsonl")}
    sa = sizes["a.jsonl"] + sizes[member.name]
    sb, sc = sizes["b.jsonl"], sizes["c.jsonl"]
    events: list[SweepProgress] = []
    rep = swp(store, r, progress=events.append)
    assert rep.counts.grown == 3
    total = sa + sb + sc
    assert [e for e in events if e.files] == [
        SweepProgress(0, 3, 0, total, str(r / "p" / "a.jsonl")),
        SweepProgress(1, 3, sa, total, str(r / "p" / "b.jsonl")),
        SweepProgress(2, 3, sa + sb, total, str(r / "p" / "c.jsonl"))]

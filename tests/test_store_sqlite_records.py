"""What the SQLite store gives back is what was put in, field by field: runs and their
failures, errors, remembered faults, file states, drafts, audit records, stored files and the
full-text search. Hand-built records and hand-computed expectations, in process."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from forsy.errors import InputError
from forsy.store import FileState, TraceQuery
from forsy.store._sqlite import SqliteStore
from forsy.store.migrations import CORE, for_backend
from forsy.store.models import ErrorRow, NewTrace, ReviewChange, RunCounts, StoredFile


@pytest.fixture
def st(tmp_path: Path) -> SqliteStore:
    s = SqliteStore(tmp_path / "s.db")
    yield s  # type: ignore[misc]
    s.close()


def _trace(tid: str, *, session: str = "sess-1", texts: list[tuple[str, str]] | None = None,
           data: bytes = b'{"trace": 1}\n') -> NewTrace:
    return NewTrace(trace_id=tid, source_kind="claude_code", session_id=session, unit_path="/logs/a.jsonl",
                    agent="claude-code", project="proj", started_at="2026-03-01T10:00:00Z",
                    ended_at="2026-03-01T10:05:00Z", confidence=70, steps=3, turns=1, task="fix the parser",
                    files=[StoredFile("trace.json", data), StoredFile("manifest.json", b"{}\n")],
                    texts=texts or [("prompt", "fix the parser")])


def _at(i: int) -> str:
    return f"2026-03-01T10:{i:02d}:00+00:00"


def test_runs_are_newest_first_ten_by_default_each_with_its_own_failure(st: SqliteStore) -> None:
    for i in range(12):
        run = st.start_run(_at(i), 100 + i, [f"/root{i}"])
        if run % 2:
            st.fail_run(run, _at(i + 1), RunCounts(seen=i), 1.5, f"disk full in run {run}")
        else:
            st.finish_run(run, _at(i + 1), RunCounts(seen=i), 1.5)
    rows = st.runs()
    assert [r.id for r in rows] == list(range(12, 2, -1))
    # the oldest listed run (3) failed too: its failure is not lost at the edge of the page
    assert [(r.id, r.status, r.failure) for r in rows[-2:]] == [(4, "done", None),
                                                                  (3, "failed", "disk full in run 3")]
    assert {r.id: r.failure for r in rows} == {i: (f"disk full in run {i}" if i % 2 else None) for i in range(3, 13)}
    assert rows[0].roots == ["/root11"] and rows[0].pid == 111 and rows[0].counts.seen == 11
    assert [r.id for r in st.runs(limit=3)] == [12, 11, 10]


def test_errors_come_back_field_for_field_in_the_order_added(st: SqliteStore) -> None:
    run = st.start_run(_at(0), 1, ["/r"])
    other = st.start_run(_at(1), 2, ["/r"])
    st.add_error(ErrorRow(run, "/r/a.jsonl", "cannot read: permission denied", _at(2)))
    st.add_error(ErrorRow(other, "/r/x.jsonl", "elsewhere", _at(3)))
    st.add_error(ErrorRow(run, "/r/b.jsonl", "not a log", _at(4)))
    assert st.errors(run) == [ErrorRow(run, "/r/a.jsonl", "cannot read: permission denied", _at(2)),
                              ErrorRow(run, "/r/b.jsonl", "not a log", _at(4))]


def test_a_fault_met_again_keeps_its_first_time_and_counts_runs_and_one_not_met_is_gone(st: SqliteStore) -> None:
    r1, r2, r3 = (st.start_run(_at(i), i, ["/logs"]) for i in range(3))
    st.record_faults(r1, _at(10), ["/logs"], [("/logs/a", "folder", "permission denied"),
                                              ("/logs/b.jsonl", "file", "vanished")])
    st.record_faults(r1, _at(10), ["/other"], [("/other/z", "folder", "permission denied")])
    got = st.record_faults(r2, _at(20), ["/logs"], [("/logs/a", "folder", "still denied")])
    assert [(f.path, f.reason, f.first_at, f.first_run, f.last_at, f.last_run, f.runs) for f in got] == [
        ("/logs/a", "still denied", _at(10), r1, _at(20), r2, 2)]
    got = st.record_faults(r3, _at(30), ["/logs"], [("/logs/a", "folder", "still denied"),
                                                    ("/logs/c.jsonl", "file", "vanished")])
    assert [(f.path, f.first_at, f.first_run, f.last_run, f.runs) for f in got] == [
        ("/logs/a", _at(10), r1, r3, 3), ("/logs/c.jsonl", _at(30), r3, r3, 1)]
    # a fault under another root is left alone by runs over /logs
    assert [f.path for f in st.faults()] == ["/logs/a", "/logs/c.jsonl", "/other/z"]


def _state(path: str, unit: str, status: str = "ok", err: str | None = None, at: str = _at(0)) -> FileState:
    return FileState(path=path, unit_path=unit, source_kind="claude_code", dev=1, ino=2, size=3, mtime_ns=4,
                     head_sha256="h", tail_sha256="t", tail_offset=0, read_to=3, status=status,  # type: ignore[arg-type]
                     last_error=err, updated_at=at, run_id=None)


def test_a_file_state_is_stored_and_updated_in_every_field(st: SqliteStore) -> None:
    first = _state("/logs/s/sub/agent-1.jsonl", "/logs/s.jsonl", "member")
    st.put_file_states([first])
    assert st.file_states(["/logs"]) == {first.path: first}
    moved = _state("/logs/s/sub/agent-1.jsonl", "/logs/t.jsonl", "failed", "broken", _at(5))
    st.put_file_states([moved])
    assert st.file_states(["/logs"]) == {moved.path: moved}
    assert st.failures() == [moved]


def test_gone_files_newest_first_twenty_by_default(st: SqliteStore) -> None:
    st.put_file_states([_state(f"/g/{i:02d}.jsonl", f"/g/{i:02d}.jsonl", "source_gone", at=_at(i))
                        for i in range(22)]
                       + [_state("/g/member.jsonl", "/g/00.jsonl", "source_gone", at=_at(59))])
    gone = st.gone()
    assert [g.path for g in gone] == [f"/g/{i:02d}.jsonl" for i in range(21, 1, -1)]  # not the member file
    assert len(st.gone(limit=50)) == 22


def test_a_status_change_is_audited_from_and_to_with_its_note(st: SqliteStore) -> None:
    assert st.add_trace(_trace("t-1"), _at(0))
    assert not st.add_trace(_trace("t-1"), _at(1))  # stored once
    st.set_draft_status("t-1", "rejected", "ana", _at(2), note="wrong session")
    st.set_draft_status("t-1", "pending", "bo", _at(3))
    audit = st.audit("t-1")
    assert [(a.actor, a.action, json.loads(a.detail_json)) for a in audit] == [
        ("forsy", "draft_created", {"trace_id": "t-1", "prior_trace_id": None}),
        ("ana", "status", {"from": "pending", "to": "rejected", "note": "wrong session"}),
        ("bo", "status", {"from": "rejected", "to": "pending", "note": ""}),
    ]
    with pytest.raises(InputError, match="no draft of trace t-404 in the store"):
        st.set_draft_status("t-404", "rejected", "ana", _at(4))
    assert st.draft_state("t-404") is None and st.trace("t-404") is None


def test_the_audit_is_read_a_thousand_records_at_most_by_default(st: SqliteStore) -> None:
    st.add_trace(_trace("t-1"), _at(0))
    for i in range(1000):
        st.set_draft_status("t-1", "rejected" if i % 2 == 0 else "pending", "ana", _at(1))
    assert len(st.audit("t-1")) == 1000 and len(st.audit()) == 1000
    assert len(st.audit("t-1", limit=2000)) == 1001


def test_a_review_that_approves_nothing_leaves_reviewed_as_empty(st: SqliteStore) -> None:
    st.add_trace(_trace("t-1"), _at(0))
    state = st.record_review(ReviewChange("t-1", 0, "needs_changes", "ana", _at(1), status="needs_changes"))
    assert state.reviewed_as is None and state.version == 1 and state.status == "needs_changes"
    with pytest.raises(InputError, match="no draft of trace t-2 in the store"):
        st.record_review(ReviewChange("t-2", 0, "reject", "ana", _at(1), status="rejected"))


def test_the_latest_trace_of_a_session_is_the_last_added(st: SqliteStore) -> None:
    st.add_trace(_trace("t-1"), _at(0))
    st.add_trace(_trace("t-2"), _at(0))  # the same second: the later row
    st.add_trace(_trace("t-3", session="sess-2"), _at(9))
    assert st.latest_trace_id("/logs/a.jsonl", "sess-1") == "t-2"
    assert st.latest_trace_id("/logs/a.jsonl", "sess-9") is None


def test_a_stored_file_that_does_not_match_its_hash_is_refused_naming_it(st: SqliteStore) -> None:
    st.add_trace(_trace("t-1"), _at(0))
    assert [(f.name, f.data) for f in st.trace_files("t-1")] == [("manifest.json", b"{}\n"),
                                                                 ("trace.json", b'{"trace": 1}\n')]
    st.db.execute("UPDATE trace_files SET sha256 = ? WHERE name = 'trace.json'", ("0" * 64,))
    with pytest.raises(InputError, match="stored file trace.json of trace t-1 does not match its sha256") as e:
        st.trace_files("t-1")
    assert e.value.path == str(st.path)


def test_full_text_search_takes_quotes_and_blank_text_literally(st: SqliteStore) -> None:
    st.add_trace(_trace("t-1", texts=[("prompt", 'say "hello" to the parser')]), _at(0))
    st.add_trace(_trace("t-2", texts=[("prompt", "another prompt")]), _at(0))
    for text, want in (('"hello"', ["t-1"]), ('parser"', ["t-1"]), ("prompt", ["t-2"]), ("   ", []),
                       ("AND OR NOT", []), ("hello prompt", [])):
        got = [r.trace_id for r in st.traces(TraceQuery(text=text))]
        assert got == want, text
        assert st.count_traces(TraceQuery(text=text)) == len(want), text


def test_a_search_the_database_cannot_run_is_an_input_error_saying_so(st: SqliteStore) -> None:
    st.add_trace(_trace("t-1"), _at(0))
    st.db.execute("DROP TABLE trace_text")
    for run in (st.traces, st.count_traces):
        with pytest.raises(InputError, match="^cannot run this search: no such table"):
            run(TraceQuery(text="parser"))  # type: ignore[operator]


def test_migrations_of_a_backend_are_the_shared_and_its_own_in_name_order() -> None:
    own = [("0002b_extra", "SELECT 1;"), ("0000_first", "SELECT 0;")]
    got = for_backend(own)
    assert [n for n, _ in got] == sorted([n for n, _ in CORE] + ["0002b_extra", "0000_first"])
    assert dict(got)["0002b_extra"] == "SELECT 1;"
    with pytest.raises(ValueError, match="two migrations of one name"):
        for_backend([(CORE[1][0], "SELECT 2;")])
    with pytest.raises(ValueError, match="two migrations of one name"):
        for_backend([("0100_x", "a"), ("0100_x", "b")])


def test_an_error_of_sqlite_that_is_not_the_environment_s_stays_what_it_is(st: SqliteStore) -> None:
    with pytest.raises(sqlite3.OperationalError):
        st.db.execute("SELECT nothing FROM nowhere")

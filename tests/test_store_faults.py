"""What the store keeps for an unattended sweep, on both backends: file names that are not
UTF-8 (given back as the same surrogateescape strings), the faults a sweep met (since when,
in how many runs, forgotten once gone), a run stopped by the environment (failed, saying why)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from _paths import SAMPLES
from forsy.run import RetraceOptions, retrace_one
from forsy.store import ErrorRow, FileState, RunCounts, TraceQuery, open_store
from forsy.store.names import from_db, shown, to_db
from forsy.store.sink import StoreSink

NOW = "2026-03-01T12:00:00+00:00"
LATER = "2026-03-01T12:15:00+00:00"
LATIN1 = os.fsdecode(b"/logs/proj/caf\xe9-latin1.jsonl")


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    return str(request.getfixturevalue("pg_url"))


@pytest.mark.parametrize("name", [LATIN1, "/logs/é/\ue000x", "/logs/\ue000e9", "/plain/a.jsonl",
                                  os.fsdecode(b"/l/\xff\xfe\x80")])
def test_the_name_code_gives_back_what_it_was_given(name: str) -> None:
    coded = to_db(name)
    coded.encode("utf-8")  # a database takes it
    assert from_db(coded) == name
    assert to_db("/logs/") + to_db(name[6:]) == coded or not name.startswith("/logs/")  # a prefix stays a prefix


def test_a_name_is_shown_with_its_bytes() -> None:
    assert shown(LATIN1) == "/logs/proj/caf\\xe9-latin1.jsonl"


def test_names_that_are_not_utf8_round_trip(url: str, tmp_path: Path) -> None:
    st = open_store(url)
    try:
        run = st.start_run(NOW, 1, ["/logs"])
        state = FileState(LATIN1, LATIN1, "claude_code", 1, 2, 3, 4, "h", None, 0, 3, "failed", "boom", NOW, run)
        st.put_file_states([state])
        assert st.file_states(["/logs/proj"]) == {LATIN1: state}
        assert st.file_states([os.fsdecode(b"/logs/proj/caf\xe9")]) == {}  # no prefix match across a name
        assert [f.path for f in st.failures()] == [LATIN1]
        st.add_error(ErrorRow(run, LATIN1, "boom", NOW))
        assert [e.path for e in st.errors(run)] == [LATIN1]
        log = tmp_path / "s.jsonl"
        log.write_bytes((SAMPLES / "claude" / "demo-session.jsonl").read_bytes())
        [o] = retrace_one(log, RetraceOptions(), sink=StoreSink(st, now=NOW, unit_path=LATIN1), keep=False)
        assert o.status == "written"
        [row] = [r for r in st.traces(TraceQuery()) if r.trace_id == o.trace_id]
        assert row.unit_path == LATIN1
        assert st.latest_trace_id(LATIN1, row.session_id) == o.trace_id
    finally:
        st.close()


def test_faults_are_counted_while_they_last_and_forgotten_when_gone(url: str) -> None:
    st = open_store(url)
    try:
        r1 = st.start_run(NOW, 1, ["/logs"])
        got = st.record_faults(r1, NOW, ["/logs"], [("/logs/locked", "folder", "cannot list this folder: permission "
                                                     "denied"), (LATIN1, "file", "cannot read: permission denied")])
        assert [(f.path, f.runs, f.first_at) for f in got] == [("/logs/locked", 1, NOW), (LATIN1, 1, NOW)]
        st.record_faults(r1, NOW, ["/other"], [("/other/x.jsonl", "file", "vanished during the sweep")])
        r2 = st.start_run(LATER, 1, ["/logs"])
        got = st.record_faults(r2, LATER, ["/logs"], [(LATIN1, "file", "cannot read: permission denied")])
        assert [(f.path, f.runs, f.first_at, f.first_run, f.last_at, f.last_run) for f in got] == [
            (LATIN1, 2, NOW, r1, LATER, r2)]  # the folder can be listed again: forgotten
        assert [f.path for f in st.faults()] == [LATIN1, "/other/x.jsonl"]  # another root's are not touched
    finally:
        st.close()


def test_a_failed_run_says_why(url: str) -> None:
    st = open_store(url)
    try:
        r1 = st.start_run(NOW, 1, ["/logs"])
        st.finish_run(r1, NOW, RunCounts(seen=3), 0.5)
        r2 = st.start_run(LATER, 1, ["/logs"])
        st.fail_run(r2, LATER, RunCounts(seen=3, traced=1), 0.7, "database or disk is full")
        runs = st.runs(2)
        assert [(r.id, r.status, r.failure) for r in runs] == [(r2, "failed", "database or disk is full"),
                                                               (r1, "done", None)]
        assert runs[0].counts.traced == 1
    finally:
        st.close()


def test_a_postgresql_store_that_cannot_be_written_is_a_store_error(pg_url: str) -> None:
    from forsy.errors import StoreError

    open_store(pg_url).close()  # made and migrated
    sep = "&" if "?" in pg_url else "?"
    st = open_store(pg_url + sep + "options=-c%20default_transaction_read_only%3Don")  # a read-only server, say
    try:
        assert st.runs(1) == []  # it reads
        with pytest.raises(StoreError, match="read-only transaction"):
            st.start_run(NOW, 1, ["/logs"])
    finally:
        st.close()


def test_gone_session_files_are_listed_latest_first(url: str) -> None:
    st = open_store(url)
    try:
        def state(path: str, status: str, at: str, unit: str | None = None) -> FileState:
            return FileState(path, unit or path, "claude_code", 1, 2, 3, 4, "h", None, 0, 3, status, None, at, None)  # type: ignore[arg-type]

        st.put_file_states([state("/logs/a.jsonl", "source_gone", NOW), state(LATIN1, "source_gone", LATER),
                            state("/logs/a/sub.jsonl", "source_gone", LATER, "/logs/a.jsonl"),
                            state("/logs/b.jsonl", "ok", LATER)])
        assert [f.path for f in st.gone()] == [LATIN1, "/logs/a.jsonl"]  # session files only, not their parts
        assert [f.path for f in st.gone(1)] == [LATIN1]
    finally:
        st.close()

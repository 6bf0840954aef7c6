"""What the PostgreSQL store gives back is what was put in, field by field, and only this
sweeper's (`store/_postgres.py`): runs and their failures, errors, remembered faults, file states,
drafts, audit records, stored files, the full-text search. Every test runs in a database whose
default collation is a person's language (ICU `en`, as most servers are set up), where the store
still lists and ranges paths, agents and tasks in byte order, as the SQLite store does.
Hand-built records and hand-computed expectations, in process."""

from __future__ import annotations

import json
import os
import socket
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from forsy.errors import InputError, StoreError, StoreUnreachable
from forsy.store import FileState, TraceQuery, open_store
from forsy.store.models import ErrorRow, NewTrace, RunCounts, StoredFile

psycopg = pytest.importorskip("psycopg")
from forsy.store._postgres import TEXT_PIECE, PostgresStore, words  # noqa: E402


@pytest.fixture
def url(pg_server: Any) -> Iterator[str]:
    """A fresh database whose default collation is ICU's English (`B` sorts after `a`)."""
    name = f"icu_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_server.url("postgres"), autocommit=True) as c:
        c.execute(f"CREATE DATABASE {name} TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C' "
                  "LOCALE_PROVIDER icu ICU_LOCALE 'en'")
    yield pg_server.url(name)
    with psycopg.connect(pg_server.url("postgres"), autocommit=True) as c:
        c.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def _open(url: str, monkeypatch: pytest.MonkeyPatch, host: str) -> PostgresStore:
    monkeypatch.setenv("FORSY_HOST", host)
    st = open_store(url)
    assert isinstance(st, PostgresStore)
    return st


@pytest.fixture
def st(url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[PostgresStore]:
    s = _open(url, monkeypatch, "sweeper-a")
    yield s
    s.close()


@pytest.fixture
def other(url: str, monkeypatch: pytest.MonkeyPatch, st: PostgresStore) -> Iterator[PostgresStore]:
    """Another sweeper (host `sweeper-b`) on the same database."""
    s = _open(url, monkeypatch, "sweeper-b")
    yield s
    s.close()


def _at(i: int) -> str:
    return f"2026-03-01T10:{i:02d}:00+00:00"


def _trace(tid: str, *, session: str = "sess-1", unit: str = "/logs/a.jsonl", agent: str | None = "claude-code",
           task: str = "fix the parser", project: str | None = "~/proj", texts: list[tuple[str, str]] | None = None,
           data: bytes = b'{"trace": 1}\n', prior: str | None = None) -> NewTrace:
    return NewTrace(trace_id=tid, source_kind="claude_code", session_id=session, unit_path=unit, agent=agent,
                    project=project, started_at="2026-03-01T10:00:00Z", ended_at="2026-03-01T10:05:00Z",
                    confidence=70, steps=3, turns=1, task=task,
                    files=[StoredFile("trace.json", data), StoredFile("manifest.json", b"{}\n")],
                    texts=texts if texts is not None else [("prompt", "fix the parser")], prior_trace_id=prior,
                    run_id=None, model_values=2)


def _state(path: str, unit: str, status: str = "ok", err: str | None = None, at: str = _at(0),
           n: int = 1) -> FileState:
    return FileState(path=path, unit_path=unit, source_kind="claude_code", dev=n, ino=n + 1, size=n + 2,
                     mtime_ns=n + 3, head_sha256=f"h{n}", tail_sha256=f"t{n}", tail_offset=n + 4, read_to=n + 5,
                     status=status, last_error=err, updated_at=at, run_id=None)  # type: ignore[arg-type]


# ------------------------------------------------------------------ runs and errors
def test_runs_are_this_sweepers_newest_first_ten_by_default_each_with_its_own_failure(
        st: PostgresStore, other: PostgresStore) -> None:
    ids = []
    for i in range(12):
        run = st.start_run(_at(i), 100 + i, [f"/root{i}"])
        ids.append(run)
        if i == 5:  # another sweeper's failed run between this one's
            b = other.start_run(_at(i), 7, ["/b"])
            other.fail_run(b, _at(i), RunCounts(), 0.5, "b's disk is full")
        if i % 2 == 0:
            st.fail_run(run, _at(i + 1), RunCounts(seen=i), 1.5, f"disk full in run {run}")
        else:
            st.finish_run(run, _at(i + 1), RunCounts(seen=i), 1.5)
    rows = st.runs()
    assert [r.id for r in rows] == ids[:1:-1]
    # the oldest listed run failed too: its failure is not lost at the edge of the page
    assert (rows[-1].id, rows[-1].status, rows[-1].failure) == (ids[2], "failed", f"disk full in run {ids[2]}")
    assert {r.id: (r.status, r.failure) for r in rows} == {
        ids[i]: ("failed", f"disk full in run {ids[i]}") if i % 2 == 0 else ("done", None) for i in range(2, 12)}
    assert [r.id for r in st.runs(limit=3)] == ids[:-4:-1]
    [theirs] = other.runs()
    assert (theirs.id, theirs.status, theirs.failure, theirs.roots, theirs.pid) == (
        b, "failed", "b's disk is full", ["/b"], 7)


def test_a_finished_run_reads_back_every_field(st: PostgresStore) -> None:
    run = st.start_run(_at(1), 4242, ["/logs", "/more"])
    counts = RunCounts(*range(1, 14))
    st.finish_run(run, _at(2), counts, 2.5)
    [row] = st.runs()
    assert (row.id, row.started_at, row.finished_at, row.pid, row.status, row.roots, row.counts, row.duration_s,
            row.failure) == (run, _at(1), _at(2), 4242, "done", ["/logs", "/more"], counts, 2.5, None)
    st.fail_run(run, _at(3), RunCounts(*range(20, 33)), 3.5, "the store is read-only")
    [row] = st.runs()
    assert (row.finished_at, row.status, row.counts, row.duration_s, row.failure) == (
        _at(3), "failed", RunCounts(*range(20, 33)), 3.5, "the store is read-only")


def test_only_this_sweepers_running_runs_are_marked_interrupted(st: PostgresStore, other: PostgresStore) -> None:
    mine, done = st.start_run(_at(0), 1, ["/a"]), st.start_run(_at(1), 2, ["/a"])
    st.finish_run(done, _at(2), RunCounts(), 1.0)
    theirs = other.start_run(_at(0), 3, ["/b"])
    assert st.interrupt_running() == 1
    assert [(r.id, r.status) for r in st.runs()] == [(done, "done"), (mine, "interrupted")]
    assert [(r.id, r.status) for r in other.runs()] == [(theirs, "running")]


def test_errors_come_back_field_for_field_in_the_order_added(st: PostgresStore) -> None:
    run, later = st.start_run(_at(0), 1, ["/r"]), st.start_run(_at(1), 2, ["/r"])
    st.add_error(ErrorRow(run, "/r/caf\udce9.jsonl", "cannot read: permission denied", _at(2)))
    st.add_error(ErrorRow(later, "/r/x.jsonl", "elsewhere", _at(3)))
    st.add_error(ErrorRow(run, "/r/b.jsonl", "not a log", _at(4)))
    assert st.errors(run) == [ErrorRow(run, "/r/caf\udce9.jsonl", "cannot read: permission denied", _at(2)),
                              ErrorRow(run, "/r/b.jsonl", "not a log", _at(4))]


# ------------------------------------------------------------------ faults and file states
def test_a_fault_met_again_keeps_its_first_time_and_counts_runs_and_one_not_met_is_gone(
        st: PostgresStore, other: PostgresStore) -> None:
    r1, r2, r3 = (st.start_run(_at(i), i, ["/logs"]) for i in range(3))
    other.record_faults(r1, _at(5), ["/logs"], [("/logs/a", "folder", "their own")])
    st.record_faults(r1, _at(10), ["/logs"], [("/logs/a", "folder", "permission denied"),
                                              ("/logs/b.jsonl", "file", "vanished")])
    st.record_faults(r1, _at(10), ["/other"], [("/other/z", "folder", "permission denied")])
    got = st.record_faults(r2, _at(20), ["/logs"], [("/logs/a", "folder", "still denied")])
    assert [(f.path, f.what, f.reason, f.first_at, f.first_run, f.last_at, f.last_run, f.runs) for f in got] == [
        ("/logs/a", "folder", "still denied", _at(10), r1, _at(20), r2, 2)]
    got = st.record_faults(r3, _at(30), ["/logs"], [("/logs/a", "folder", "still denied"),
                                                    ("/logs/C.jsonl", "file", "vanished")])
    # byte order: `C` before `a`
    assert [(f.path, f.what, f.first_at, f.first_run, f.last_run, f.runs) for f in got] == [
        ("/logs/C.jsonl", "file", _at(30), r3, r3, 1), ("/logs/a", "folder", _at(10), r1, r3, 3)]
    assert [f.path for f in st.faults()] == ["/logs/C.jsonl", "/logs/a", "/other/z"]
    # the other sweeper's fault of the same path is its own, untouched
    assert [(f.path, f.reason, f.runs) for f in other.faults()] == [("/logs/a", "their own", 1)]


def test_a_file_state_is_stored_and_updated_in_every_field(st: PostgresStore, other: PostgresStore) -> None:
    first = _state("/logs/s/sub/agent-1.jsonl", "/logs/s.jsonl", "member", n=1)
    st.put_file_states([first])
    assert st.file_states(["/logs"]) == {first.path: first}
    moved = _state("/logs/s/sub/agent-1.jsonl", "/logs/t.jsonl", "failed", "broken", _at(5), n=10)
    st.put_file_states([moved])
    assert st.file_states(["/logs/"]) == {moved.path: moved}
    assert other.file_states(["/logs"]) == {}  # another sweeper's files are its own
    st.put_file_states([])


def test_the_files_below_a_root_are_those_in_its_byte_range_not_a_siblings(st: PostgresStore) -> None:
    inside = ["/w/proj", "/w/proj/a.jsonl", "/w/proj/Z/b.jsonl"]
    # `+`, `~`, `$` sort between `/` and `0` in English but not in bytes
    siblings = ["/w/proj+old/a.jsonl", "/w/proj~/a.jsonl", "/w/proj$/a.jsonl", "/w/proj0/a.jsonl", "/w/pro"]
    st.put_file_states([_state(p, p) for p in inside + siblings])
    assert sorted(st.file_states(["/w/proj"])) == sorted(inside)
    assert sorted(st.file_states(["/w/proj", "/w/proj0"])) == sorted(inside + ["/w/proj0/a.jsonl"])


def test_failed_ignored_and_counted_files_are_this_sweepers_in_byte_order(
        st: PostgresStore, other: PostgresStore) -> None:
    st.put_file_states([_state("/l/b.jsonl", "/l/b.jsonl", "failed", "bad"),
                        _state("/l/B.jsonl", "/l/B.jsonl", "failed", "worse"),
                        _state("/l/ok.jsonl", "/l/ok.jsonl"),
                        _state("/l/notes.txt", "", "ignored", "no source reads it"),
                        _state("/l/Notes.md", "", "ignored", "no source reads it"),
                        _state("/l/quiet.txt", "", "ignored")])
    other.put_file_states([_state("/l/a.jsonl", "/l/a.jsonl", "failed", "theirs"),
                           _state("/l/a.txt", "", "ignored", "theirs")])
    assert [f.path for f in st.failures()] == ["/l/B.jsonl", "/l/b.jsonl"]
    assert [(f.path, f.last_error) for f in st.left_out()] == [("/l/Notes.md", "no source reads it"),
                                                               ("/l/notes.txt", "no source reads it")]
    assert st.file_counts() == {"failed": 2, "ok": 1, "ignored": 3}
    assert other.file_counts() == {"failed": 1, "ignored": 1}


def test_gone_session_files_newest_first_twenty_by_default_ties_in_byte_order(
        st: PostgresStore, other: PostgresStore) -> None:
    st.put_file_states([_state(f"/g/{i:02d}.jsonl", f"/g/{i:02d}.jsonl", "source_gone", at=_at(i))
                        for i in range(22)]
                       + [_state("/g/member.jsonl", "/g/00.jsonl", "source_gone", at=_at(59)),
                          _state("/g/b.jsonl", "/g/b.jsonl", "source_gone", at=_at(40)),
                          _state("/g/A.jsonl", "/g/A.jsonl", "source_gone", at=_at(40))])
    other.put_file_states([_state("/g/theirs.jsonl", "/g/theirs.jsonl", "source_gone", at=_at(50))])
    assert [g.path for g in st.gone()] == ["/g/A.jsonl", "/g/b.jsonl"] + [f"/g/{i:02d}.jsonl"
                                                                          for i in range(21, 3, -1)]
    assert len(st.gone(limit=50)) == 24
    assert [g.path for g in other.gone()] == ["/g/theirs.jsonl"]


# ------------------------------------------------------------------ traces
def test_a_trace_is_stored_once_for_every_sweeper_and_its_session_is_each_sweepers_own(
        st: PostgresStore, other: PostgresStore) -> None:
    assert st.add_trace(_trace("t-1"), _at(0))
    assert not st.add_trace(_trace("t-1"), _at(1))
    assert not other.add_trace(_trace("t-1"), _at(2))  # stored already, by another sweeper
    assert other.add_trace(_trace("t-2"), _at(3))  # the same session path, on another machine
    assert st.latest_trace_id("/logs/a.jsonl", "sess-1") == "t-1"
    assert other.latest_trace_id("/logs/a.jsonl", "sess-1") == "t-2"
    assert st.add_trace(_trace("t-0", prior="t-1"), _at(0))  # the same second, a later row: its id is less
    assert st.latest_trace_id("/logs/a.jsonl", "sess-1") == "t-1"
    assert st.add_trace(_trace("t-9", prior="t-1"), _at(0))
    assert st.latest_trace_id("/logs/a.jsonl", "sess-1") == "t-9"
    assert st.latest_trace_id("/logs/a.jsonl", "sess-404") is None
    [made] = [a for a in st.audit("t-2")]
    assert (made.at, made.actor, made.action, made.trace_id, json.loads(made.detail_json)) == (
        _at(3), "forsy", "draft_created", "t-2", {"trace_id": "t-2", "prior_trace_id": None, "host": "sweeper-b"})
    assert json.loads(st.audit("t-9")[0].detail_json)["prior_trace_id"] == "t-1"


def test_a_stored_trace_reads_back_field_by_field_with_its_files(st: PostgresStore, other: PostgresStore) -> None:
    st.add_trace(_trace("t-1", data=b'{"trace": 1}\n'), _at(4))
    row = st.trace("t-1")
    assert row is not None
    assert (row.trace_id, row.status, row.source_kind, row.session_id, row.unit_path, row.agent, row.project,
            row.started_at, row.ended_at, row.confidence, row.steps, row.turns, row.task, row.prior_trace_id,
            row.created_at, row.source_gone) == (
        "t-1", "pending", "claude_code", "sess-1", "/logs/a.jsonl", "claude-code", "~/proj", "2026-03-01T10:00:00Z",
        "2026-03-01T10:05:00Z", 70, 3, 1, "fix the parser", None, _at(4), False)
    import hashlib

    assert row.sha256 == {"manifest.json": hashlib.sha256(b"{}\n").hexdigest(),
                          "trace.json": hashlib.sha256(b'{"trace": 1}\n').hexdigest()}
    assert [(f.name, f.data) for f in st.trace_files("t-1")] == [("manifest.json", b"{}\n"),
                                                                 ("trace.json", b'{"trace": 1}\n')]
    assert st.trace("t-404") is None
    # the session file gone on another machine is not this one's
    other.put_file_states([_state("/logs/a.jsonl", "/logs/a.jsonl", "source_gone")])
    assert st.trace("t-1").source_gone is False  # type: ignore[union-attr]
    st.put_file_states([_state("/logs/a.jsonl", "/logs/a.jsonl", "source_gone")])
    assert st.trace("t-1").source_gone is True  # type: ignore[union-attr]
    assert [r.source_gone for r in st.traces(TraceQuery())] == [True]
    st.conn.execute("UPDATE trace_files SET sha256 = %s WHERE name = 'trace.json'", ("0" * 64,))
    with pytest.raises(InputError, match="stored file trace.json of trace t-1 does not match its sha256"):
        st.trace_files("t-1")


def test_rows_sorted_by_text_are_in_byte_order_either_way_ties_by_trace_id(st: PostgresStore) -> None:
    for tid, agent, task, project in (("t-a", "b-agent", "Zebra", "~/api"), ("t-B", "b-agent", "apple", "~/Work"),
                                      ("t-c", "B-agent", "Mango", "~/api"), ("t-d", None, "~banana", None)):
        st.add_trace(_trace(tid, session=tid, agent=agent, task=task, project=project), _at(0))

    def ids(order: str, descending: bool) -> list[str]:
        got = [r.trace_id for r in st.traces(TraceQuery(order=order, descending=descending))]  # type: ignore[arg-type]
        assert got == [r.trace_id for r in st.traces(TraceQuery(order=order, descending=descending,  # type: ignore[arg-type]
                                                                 limit=2))] + \
            [r.trace_id for r in st.traces(TraceQuery(order=order, descending=descending, offset=2))]  # type: ignore[arg-type]
        return got

    assert ids("agent", False) == ["t-c", "t-B", "t-a", "t-d"]  # missing last; equal agents by trace id bytes
    assert ids("agent", True) == ["t-B", "t-a", "t-c", "t-d"]
    assert ids("task", False) == ["t-B", "t-c", "t-a", "t-d"]  # the task in lower case, `~` after letters
    assert ids("project", False) == ["t-B", "t-a", "t-c", "t-d"]
    assert ids("project", True) == ["t-a", "t-c", "t-B", "t-d"]
    assert ids("trace", False) == ["t-B", "t-a", "t-c", "t-d"]
    assert ids("trace", True) == ["t-d", "t-c", "t-a", "t-B"]
    assert st.count_traces(TraceQuery(agent="b-agent")) == 2


def test_full_text_search_finds_each_word_as_a_phrase_of_its_words(st: PostgresStore) -> None:
    st.add_trace(_trace("t-1", texts=[("prompt", 'say "hello" to the Parser_v2 now'), ("task", "")]), _at(0))
    st.add_trace(_trace("t-2", texts=[("tool_input", "another prompt; hello-world")]), _at(0))
    for text, want in (('"hello"', ["t-1", "t-2"]), ('parser"', ["t-1"]), ("PROMPT", ["t-2"]), ("   ", []),
                       ("v2 parser", ["t-1"]), ("parser_v2", ["t-1"]), ("hello-world", ["t-2"]),
                       ("world-hello", []), ("hello prompt", ["t-2"]), ("say ;", []), ("nothing", [])):
        got = sorted(r.trace_id for r in st.traces(TraceQuery(text=text)))
        assert got == want, text
        assert st.count_traces(TraceQuery(text=text)) == len(want), text
    assert st.count_traces(TraceQuery()) == 2
    assert words("Ça va? x_y-Z 3.14") == "ça va x y z 3 14"


def test_a_long_text_is_searched_in_pieces_every_word_found(st: PostgresStore) -> None:
    head = "zebra " + "a " * (TEXT_PIECE // 2 - 3)  # exactly one piece long, ending in a space
    assert len(head) == TEXT_PIECE
    st.add_trace(_trace("t-1", texts=[("prompt", head + "needle and more")]), _at(0))
    assert TEXT_PIECE == 100_000
    for word in ("zebra", "needle", "more"):
        assert [r.trace_id for r in st.traces(TraceQuery(text=word))] == ["t-1"], word
    assert st.conn.execute("SELECT count(*) FROM trace_text").fetchone()[0] == 2


def test_the_audit_is_read_a_thousand_records_at_most_by_default_in_order(st: PostgresStore) -> None:
    st.add_trace(_trace("t-1"), _at(0))
    st.add_trace(_trace("t-2", session="s-2"), _at(0))
    st.conn.execute("INSERT INTO audit (at, actor, action, draft_id, detail_json) SELECT %s, 'ana', 'status', "
                    "(SELECT id FROM drafts WHERE trace_id = 't-1'), '{}' FROM generate_series(1, 1000)", (_at(1),))
    assert len(st.audit("t-1")) == 1000 and len(st.audit()) == 1000
    got = st.audit("t-1", limit=2000)
    assert len(got) == 1001 and got[0].action == "draft_created" and got[-1].actor == "ana"
    assert {a.trace_id for a in got} == {"t-1"}
    assert [(a.trace_id, a.action) for a in st.audit("t-2")] == [("t-2", "draft_created")]


# ------------------------------------------------------------------ connecting, migrating, errors
def test_a_store_that_cannot_be_reached_is_a_store_error_without_its_password(tmp_path: Any) -> None:
    url = f"postgresql://forsy:s3cret@/db?host={tmp_path}/nowhere&port=1"
    shown = r"^cannot connect to the PostgreSQL store postgresql://forsy:\*\*\*@/db"
    with pytest.raises(StoreUnreachable, match=shown) as e:
        PostgresStore(url)
    assert "s3cret" not in str(e.value)
    # and why, in the driver's words: the socket it tried and what the system said
    assert f"{tmp_path}/nowhere/.s.PGSQL.1" in e.value.message and "No such file or directory" in e.value.message
    url = f"postgresql://forsy@/db?host={tmp_path}/nowhere&port=1&password=s3cret"  # in the query: masked too
    with pytest.raises(StoreUnreachable) as e:
        PostgresStore(url)
    assert "s3cret" not in str(e.value) and "password=***" in e.value.message


def test_a_store_opened_with_a_password_shows_its_url_without_it(pg_server: Any) -> None:
    """The store's `url` is what sweep reports, `--status` and errors print: never the password
    (the test cluster trusts its socket, so any password opens it)."""
    db = pg_server.new_database()
    for with_pw, shown in ((db.replace("forsy@", "forsy:s3cret@"), db.replace("forsy@", "forsy:***@")),
                           (db + "&password=s3cret", db + "&password=***")):
        st = open_store(with_pw)
        try:
            assert st.url == shown
        finally:
            st.close()


def test_a_store_not_migrated_is_refused_when_asked_not_to_migrate_and_left_closed(url: str, pg_server: Any) -> None:
    with pytest.raises(InputError) as e:
        PostgresStore(url, migrate=False)
    assert e.value.message == "the store's schema is not up to date: run `forsy store migrate --store URL`"
    name = url.split("/")[-1].split("?")[0]
    with psycopg.connect(pg_server.url("postgres"), autocommit=True) as c:
        for _ in range(50):  # the refused connection is closed (the server may take a moment to see it)
            if not c.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s", (name,)).fetchone()[0]:
                break
            time.sleep(0.1)
        else:
            pytest.fail("the refused store's connection was left open")
    PostgresStore(url).close()
    PostgresStore(url, migrate=False).close()  # up to date: opened


def test_an_error_of_the_server_that_is_not_the_environments_stays_what_it_is(st: PostgresStore) -> None:
    with pytest.raises(psycopg.errors.UndefinedTable):
        st._q("SELECT nothing FROM nowhere")
    with pytest.raises(psycopg.errors.UndefinedTable), st.transaction():
        st.add_trace(_trace("t-1"), _at(0))  # a nested transaction: rolled back with the outer one
        st._x("DELETE FROM nowhere")
    assert st.trace("t-1") is None
    with st.transaction():  # the next transaction is a transaction of its own again
        st.add_trace(_trace("t-1"), _at(0))
    assert st.trace("t-1") is not None


def test_a_lost_connection_is_a_store_error(st: PostgresStore) -> None:
    st.conn.close()
    with pytest.raises(StoreError, match="^the PostgreSQL store: "):
        st.runs()


def test_the_sweeper_is_named_by_forsy_host_else_the_machine(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FORSY_HOST", raising=False)
    s = PostgresStore(url)
    assert s.host == socket.gethostname()
    s.close()
    monkeypatch.setenv("FORSY_HOST", "")
    s = PostgresStore(url)
    assert s.host == socket.gethostname()
    s.close()


def test_without_psycopg_a_postgresql_store_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import forsy.store._postgres as pg

    monkeypatch.setattr(pg, "psycopg", None)
    with pytest.raises(InputError) as e:
        PostgresStore("postgresql://nobody@/nothing")
    assert e.value.message == "PostgreSQL stores need psycopg: pip install 'forsy[postgres]'"


def test_a_store_from_a_newer_forsy_is_refused_naming_what_it_does_not_know(st: PostgresStore, url: str) -> None:
    st.conn.execute("INSERT INTO schema_migrations (name, applied_at) VALUES ('9999_future', 'x')")
    with pytest.raises(InputError) as e:
        PostgresStore(url)
    assert e.value.message == "the store was made by a newer forsy (migrations ['9999_future'])"


def test_a_trace_two_sweepers_add_at_once_is_stored_once_and_the_second_says_so(
        st: PostgresStore, other: PostgresStore) -> None:
    """The second sweeper finds no trace yet (the first has not committed), waits on the first's
    row, then stores nothing and says so: no files, no draft of its own."""
    import threading

    out: list[bool] = []
    with st.transaction():
        assert st.add_trace(_trace("t-1"), _at(0))
        th = threading.Thread(target=lambda: out.append(other.add_trace(_trace("t-1", session="s-b"), _at(1))))
        th.start()
        me = other.conn.info.backend_pid
        for _ in range(100):  # until the other sweeper waits on this transaction's row
            if st.conn.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s",
                               (me,)).fetchone()[0] == "Lock":
                break
            time.sleep(0.05)
        else:
            pytest.fail("the second sweeper never waited")
    th.join(10)
    assert out == [False]
    assert [(a.action, json.loads(a.detail_json)["host"]) for a in st.audit("t-1")] == [
        ("draft_created", "sweeper-a")]
    assert st.conn.execute("SELECT count(*) FROM trace_files").fetchone()[0] == 2

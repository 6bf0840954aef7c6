"""The SQLite store's promises when it is opened read-only, is older or newer than this forsy,
or is damaged: what it reads, what it refuses, and that every fault of the environment is a
StoreError naming the file and saying what to do (never an internal error, never a silent
empty answer). In process, so that the mutation run reaches them (the same paths through the
CLI, as a user without write access, are in test_sweep_faults.py)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from _sqlite_doubles import Refusing, damaged_store
from forsy.errors import InputError, StoreError
from forsy.store import FileState, _sqlite, open_store
from forsy.store._sqlite import MIGRATIONS, OutdatedStore, SqliteStore
from forsy.store.models import RunCounts


def _made(db: Path) -> None:
    """A store with two runs (one still running), two remembered files and one left out."""
    st = SqliteStore(db)
    try:
        st.start_run("2026-03-01T10:00:00+00:00", 11, ["/logs"])
        st.start_run("2026-03-01T11:00:00+00:00", 12, ["/logs"])
        st.finish_run(1, "2026-03-01T10:05:00+00:00", RunCounts(), 1.0)
        with st.transaction():
            for path, status, err in (("/logs/a.jsonl", "ok", None), ("/logs/b.jsonl", "failed", "broken"),
                                      ("/logs/c.jsonl", "ok", None), ("/logs/huge.jsonl", "ignored", "too big"),
                                      ("/logs/skip.txt", "ignored", None)):
                st.db.execute("INSERT INTO source_files (path, unit_path, dev, ino, size, mtime_ns, head_sha256, "
                              "tail_offset, read_to, status, last_error, updated_at) "
                              "VALUES (?, ?, 1, 2, 3, 4, 'h', 0, 3, ?, ?, '2026-03-01T10:00:00+00:00')",
                              (path, path, status, err))
    finally:
        st.close()


def test_read_only_reads_what_was_written_and_refuses_every_write(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    _made(db)
    ro = SqliteStore(db, readonly=True)
    try:
        assert ro.readonly
        assert ro.migrations() == [name for name, _ in MIGRATIONS]
        assert ro.file_counts() == {"ok": 2, "failed": 1, "ignored": 2}
        # a limit of the search left it out (it says why); a plain ignored file is not listed
        assert [f.path for f in ro.left_out()] == ["/logs/huge.jsonl"]
        assert all(isinstance(f, FileState) for f in ro.left_out())
        assert [r.status for r in ro.runs()] == ["running", "done"]
        with pytest.raises(StoreError, match="read-only") as e:
            ro.interrupt_running()
        assert e.value.path == str(db)
        with pytest.raises(StoreError, match="read-only"):
            ro.start_run("2026-03-01T12:00:00+00:00", 13, ["/logs"])
    finally:
        ro.close()
    st = SqliteStore(db)
    try:
        assert [r.status for r in st.runs()] == ["running", "done"]  # the refused writes left nothing
        assert st.interrupt_running() == 1  # the one run still marked running, not the finished one
        assert st.interrupt_running() == 0
        assert [r.status for r in st.runs()] == ["interrupted", "done"]
    finally:
        st.close()


def _older(db: Path) -> None:
    conn = sqlite3.connect(db)
    conn.executescript("DELETE FROM schema_migrations WHERE name = '0006_sweep_faults'; DROP TABLE sweep_faults; "
                       "ALTER TABLE runs DROP COLUMN failure;")
    conn.close()


def test_an_older_store_is_refused_read_only_naming_what_it_lacks_and_migrated_when_writable(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    _made(db)
    _older(db)
    with pytest.raises(OutdatedStore) as e:
        SqliteStore(db, readonly=True)
    assert "0006_sweep_faults" in e.value.message and "older forsy" in e.value.message
    assert "forsy store migrate" in e.value.message and e.value.path == str(db)
    # a reading command opens it writable once when it can, which brings it up to date
    st = open_store(f"sqlite:///{db}", readonly=True)
    try:
        assert not st.readonly  # type: ignore[attr-defined]
        # in the order applied: the one it lacked last
        done = st.migrations()  # type: ignore[attr-defined]
        assert sorted(done) == sorted(name for name, _ in MIGRATIONS) and done[-1] == "0006_sweep_faults"
        assert st.faults() == []
    finally:
        st.close()
    ro = SqliteStore(db, readonly=True)  # and now read-only opens it
    ro.close()


def test_a_store_from_a_newer_forsy_is_refused_either_way(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    _made(db)
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO schema_migrations (name, applied_at) VALUES ('9999_future', '2027-01-01')")
    conn.commit()
    conn.close()
    for readonly in (False, True):
        with pytest.raises(InputError, match="newer forsy") as e:
            SqliteStore(db, readonly=readonly)
        assert "9999_future" in e.value.message


def test_a_sqlite_file_that_is_not_a_store_is_refused_read_only_and_left_as_it_was(tmp_path: Path) -> None:
    db = tmp_path / "other.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE notes (x)")
    conn.commit()
    conn.close()
    before = db.read_bytes()
    with pytest.raises(InputError, match="not a forsy store") as e:
        SqliteStore(db, readonly=True)
    assert e.value.path == str(db)
    assert db.read_bytes() == before


@pytest.mark.parametrize("content, hint", [
    (b"this is a text file, not a database\n" * 200, "not a forsy store"),
])
def test_a_file_that_is_not_a_database_is_a_store_error_with_its_hint(tmp_path: Path, content: bytes,
                                                                    hint: str) -> None:
    db = tmp_path / "s.db"
    db.write_bytes(content)
    for readonly in (False, True):
        with pytest.raises(StoreError) as e:
            SqliteStore(db, readonly=readonly)
        assert e.value.message.startswith("cannot open the store: ") and hint in e.value.message
        assert e.value.path == str(db)
    assert db.read_bytes() == content  # never "repaired" into an empty store


def test_a_damaged_page_met_while_reading_rows_is_a_store_error_with_its_hint(tmp_path: Path) -> None:
    db = damaged_store(tmp_path)
    ro = SqliteStore(db, readonly=True)
    try:
        with pytest.raises(StoreError, match="damaged") as e:
            ro.db.execute("SELECT path, message FROM errors").fetchall()
        assert "restore a backup" in e.value.message and e.value.path == str(db)
    finally:
        ro.close()


def test_read_only_falls_back_to_an_immutable_reading_when_mode_ro_cannot_open(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "s.db"
    _made(db)
    real_connect = sqlite3.connect
    opened: list[str] = []
    refused: list[Refusing] = []

    def connect(target: Any, *a: Any, **k: Any) -> Any:
        opened.append(str(target))
        conn = real_connect(target, *a, **k)
        if str(target).endswith("?mode=ro"):
            refused.append(Refusing(conn))
            return refused[-1]
        return conn

    monkeypatch.setattr(_sqlite.sqlite3, "connect", connect)
    ro = SqliteStore(db, readonly=True)
    try:
        assert [o.rsplit("?", 1)[1] for o in opened] == ["mode=ro", "mode=ro&immutable=1"]
        assert opened[0].startswith("file:/") and str(db.resolve()) in opened[0]
        assert refused[0].closed  # the refused connection is not left open
        assert ro.file_counts() == {"ok": 2, "failed": 1, "ignored": 2}
    finally:
        ro.close()


def test_a_path_with_uri_characters_is_opened_read_only_as_that_file(tmp_path: Path) -> None:
    d = tmp_path / "a dir?x=1#frag%20"
    d.mkdir()
    db = d / "s.db"
    _made(db)
    ro = SqliteStore(db, readonly=True)
    try:
        assert ro.file_counts()["ok"] == 2
    finally:
        ro.close()


def test_a_new_store_is_made_with_its_folders_and_the_settings_it_relies_on(tmp_path: Path) -> None:
    db = tmp_path / "not" / "yet" / "there" / "s.db"
    st = SqliteStore(db)
    try:
        assert db.is_file()
        pragma = {name: st.db.execute(f"PRAGMA {name}").fetchone()[0]
                  for name in ("journal_mode", "foreign_keys", "synchronous")}
        # WAL with synchronous NORMAL (1): a killed process loses nothing committed; foreign keys on
        assert pragma == {"journal_mode": "wal", "foreign_keys": 1, "synchronous": 1}
        # autocommit mode: forsy's own BEGIN … COMMIT are the transactions (no implicit one is open)
        st.db.execute("INSERT INTO runs (started_at, pid, status, roots) VALUES ('t', 1, 'running', '[]')")
        assert not st.db.in_transaction
        with pytest.raises(sqlite3.IntegrityError):  # the foreign key is enforced
            st.db.execute("INSERT INTO errors (run_id, path, message, at) VALUES (999, 'p', 'm', 'a')")
    finally:
        st.close()
    other = sqlite3.connect(db)  # what was written outside a transaction is there for another reader
    assert other.execute("SELECT count(*) FROM runs").fetchone()[0] == 1
    other.close()
    ro = SqliteStore(db, readonly=True)
    try:
        assert ro.db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert ro.db.execute("PRAGMA query_only").fetchone()[0] == 0 and ro.readonly
    finally:
        ro.close()


def test_a_new_draft_is_audited_as_made_by_forsy_with_its_prior_trace(tmp_path: Path) -> None:
    import json

    from forsy.store.models import NewTrace, StoredFile

    st = SqliteStore(tmp_path / "s.db")
    try:
        for tid, prior in (("t-1", None), ("t-2", "t-1")):
            st.add_trace(NewTrace(trace_id=tid, source_kind="codex", session_id="s", unit_path="/l/a.jsonl",
                                  agent=None, project=None, started_at=None, ended_at=None, confidence=None,
                                  steps=1, turns=1, task="t", files=[StoredFile("trace.json", b"{}\n")], texts=[],
                                  prior_trace_id=prior), "2026-03-01T10:00:00+00:00")
        got = [(a.actor, a.action, json.loads(a.detail_json)) for a in st.audit()]
        assert got == [("forsy", "draft_created", {"trace_id": "t-1", "prior_trace_id": None}),
                       ("forsy", "draft_created", {"trace_id": "t-2", "prior_trace_id": "t-1"})]
        with pytest.raises(InputError, match="^no draft of trace t-9 in the store$"):
            st.import_review("t-9", None, [], [], "", "2026-03-01T10:00:00+00:00")  # type: ignore[arg-type]
    finally:
        st.close()

"""How the SQLite store says what went wrong: every fault of the environment, wherever SQLite
reports it (opening, a statement, a batch, stepping through rows), is a StoreError with the
database's words, its hint when there is one, and the store's path; anything else stays the
error it is. And two reviewers acting on the same version at the same moment: exactly one
wins, the other gets a conflict (not "database is locked")."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from _sqlite_doubles import Refusing, damaged_store, sqlite_error
from forsy.errors import InputError, StoreError
from forsy.store import _sqlite
from forsy.store._sqlite import SqliteStore, _Conn, _Cursor, _environment
from forsy.store.models import NewTrace, ReviewChange, StoredFile


@pytest.mark.parametrize("code, hint", [
    (sqlite3.SQLITE_CORRUPT, " (the store file is damaged: restore a backup, or move it aside and sweep again)"),
    (sqlite3.SQLITE_NOTADB, " (this file is not a forsy store)"),
    (sqlite3.SQLITE_FULL, " (free some disk space (or raise the file-size limit) and run again)"),
    (sqlite3.SQLITE_IOERR_WRITE, " (a read or write of the store file failed: a full disk, a file-size limit or a "
                                 "failing device)"),  # an extended code: its primary code decides
    (sqlite3.SQLITE_READONLY, " (the store (or its folder) is read-only for this user)"),
    (sqlite3.SQLITE_BUSY, ""),  # no hint: the database's words alone, nothing appended
    (sqlite3.SQLITE_LOCKED, ""),
    (sqlite3.SQLITE_CANTOPEN, ""),
    (sqlite3.SQLITE_PERM, ""),
])
def test_a_fault_of_the_environment_is_a_store_error_with_its_hint(code: int, hint: str) -> None:
    got = _environment(sqlite_error(code), Path("/data/s.db"))
    assert isinstance(got, StoreError)
    assert got.message == "the database's own words" + hint and got.path == "/data/s.db"


@pytest.mark.parametrize("code", [sqlite3.SQLITE_ERROR, sqlite3.SQLITE_CONSTRAINT, sqlite3.SQLITE_MISMATCH])
def test_an_error_of_forsy_s_own_making_is_not_blamed_on_the_environment(code: int) -> None:
    assert _environment(sqlite_error(code), Path("/data/s.db")) is None
    assert _environment(sqlite3.OperationalError("no code at all"), Path("/data/s.db")) is None


class _Raw:
    """A connection or cursor double whose every call fails with `error`."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    def _fail(self, *a: Any) -> Any:
        raise self.error

    execute = executemany = fetchone = fetchall = _fail


@pytest.mark.parametrize("call", ["execute", "executemany", "fetchone", "fetchall", "iterate"])
def test_every_entry_point_translates_a_fault_and_keeps_any_othersqlite_error(call: str) -> None:
    path = Path("/data/s.db")

    def run(error: Exception) -> None:
        if call in ("execute", "executemany"):
            getattr(_Conn(_Raw(error), path), call)("SELECT 1", [()] if call == "executemany" else ())  # type: ignore[arg-type]
        elif call == "iterate":
            list(_Cursor(_Raw(error), path))  # type: ignore[arg-type]
        else:
            getattr(_Cursor(_Raw(error), path), call)()  # type: ignore[arg-type]

    with pytest.raises(StoreError) as e:
        run(sqlite_error(sqlite3.SQLITE_CORRUPT, "database disk image is malformed"))
    assert e.value.message.startswith("database disk image is malformed (the store file is damaged")
    assert e.value.path == str(path) and e.value.__cause__ is None
    own = sqlite_error(sqlite3.SQLITE_ERROR, "no such column: x")
    with pytest.raises(sqlite3.OperationalError) as plain:
        run(own)
    assert plain.value is own


def test_a_store_that_cannot_be_made_where_asked_says_why(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("not a folder")
    db = tmp_path / "a-file" / "s.db"
    with pytest.raises(StoreError) as e:
        SqliteStore(db)
    assert e.value.message in ("cannot open the store: File exists", "cannot open the store: Not a directory")
    assert e.value.path == str(db)


def test_an_unexpected_error_while_opening_is_said_with_its_words(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    real = sqlite3.connect

    class _NoPragma:
        def __init__(self, conn: sqlite3.Connection) -> None:
            self.conn = conn

        def execute(self, *a: Any) -> Any:
            raise sqlite_error(sqlite3.SQLITE_ERROR, "unknown pragma")

        def close(self) -> None:
            self.conn.close()

    monkeypatch.setattr(_sqlite.sqlite3, "connect", lambda *a, **k: _NoPragma(real(*a, **k)))
    for readonly in (False, True):
        if readonly:
            monkeypatch.setattr(_sqlite.sqlite3, "connect", real)
            SqliteStore(tmp_path / "s.db").close()
            monkeypatch.setattr(_sqlite.sqlite3, "connect", lambda *a, **k: _NoPragma(real(*a, **k)))
        with pytest.raises(StoreError) as e:
            SqliteStore(tmp_path / "s.db", readonly=readonly)
        assert e.value.message == "cannot open the store: unknown pragma" and e.value.path == str(tmp_path / "s.db")


def test_a_damaged_page_read_through_a_writable_store_names_the_store(tmp_path: Path) -> None:
    db = damaged_store(tmp_path)
    st = SqliteStore(db)
    try:
        with pytest.raises(StoreError, match="damaged") as e:
            st.errors(1)
        assert e.value.path == str(db)
    finally:
        st.close()


def test_a_store_opened_immutable_names_itself_in_a_fault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = damaged_store(tmp_path)
    real = sqlite3.connect

    def connect(t: Any, *a: Any, **k: Any) -> Any:
        return Refusing(real(t, *a, **k)) if str(t).endswith("?mode=ro") else real(t, *a, **k)

    monkeypatch.setattr(_sqlite.sqlite3, "connect", connect)
    ro = SqliteStore(db, readonly=True)
    try:
        with pytest.raises(StoreError, match="damaged") as e:
            ro.errors(1)
        assert e.value.path == str(db)
    finally:
        ro.close()


def test_the_runs_of_an_empty_store_are_none(tmp_path: Path) -> None:
    st = SqliteStore(tmp_path / "s.db")
    try:
        assert st.runs() == []
    finally:
        st.close()


def test_refusals_say_exactly_what_and_where(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    sqlite3.connect(other).close()
    with pytest.raises(InputError) as e:
        SqliteStore(other, readonly=True)
    assert e.value.message == "not a forsy store (no schema_migrations table)" and e.value.path == str(other)
    db = tmp_path / "s.db"
    SqliteStore(db).close()
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO schema_migrations (name, applied_at) VALUES ('9999_future', 'x')")
    conn.commit()
    conn.close()
    for readonly in (False, True):
        with pytest.raises(InputError) as e:
            SqliteStore(db, readonly=readonly)
        assert e.value.message == "the store was made by a newer forsy (migrations ['9999_future'])"
        assert e.value.path == str(db)
    conn = sqlite3.connect(db)
    conn.executescript("DELETE FROM schema_migrations WHERE name IN ('9999_future', '0007_queue_rules', "
                       "'0008_model_values')")
    conn.close()
    with pytest.raises(_sqlite.OutdatedStore) as e:
        SqliteStore(db, readonly=True)
    assert e.value.message == ("the store is read-only and was made by an older forsy (it lacks 0007_queue_rules, "
                               "0008_model_values): open it once writable (forsy store migrate) to bring it up to date")


def _trace() -> NewTrace:
    return NewTrace(trace_id="t-1", source_kind="codex", session_id="s", unit_path="/l/a.jsonl", agent=None,
                    project=None, started_at=None, ended_at=None, confidence=None, steps=1, turns=1, task="t",
                    files=[StoredFile("trace.json", b"{}\n")], texts=[])


def test_two_reviewers_on_the_same_version_at_once_one_wins_the_other_gets_a_conflict(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "s.db"
    SqliteStore(db).add_trace(_trace(), "2026-03-01T10:00:00+00:00")
    # both reviewers read the version before either writes, when the store lets them (each waits
    # at most a second for the other: under the write lock the second one cannot get there)
    meet = threading.Barrier(2, timeout=1.0)
    real_check = _sqlite.check_version

    def check(change: ReviewChange, version: int) -> None:
        try:
            meet.wait()
        except threading.BrokenBarrierError:
            pass
        real_check(change, version)

    monkeypatch.setattr(_sqlite, "check_version", check)
    results: dict[str, object] = {}

    def review(who: str) -> None:
        st = SqliteStore(db)
        try:
            results[who] = st.record_review(ReviewChange("t-1", 0, "reject", who, "2026-03-01T10:01:00+00:00",
                                                          status="rejected"))
        except Exception as e:  # the test looks at which one it is
            results[who] = e
        finally:
            st.close()

    threads = [threading.Thread(target=review, args=(w,)) for w in ("ana", "bo")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    kinds = sorted(type(r).__name__ for r in results.values())
    assert kinds == ["DraftState", "ReviewConflict"], results
    st = SqliteStore(db)
    try:
        assert st.draft_state("t-1").version == 1  # type: ignore[union-attr]
    finally:
        st.close()


def test_two_sweeps_making_one_new_store_at_once_both_open_it(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Two processes (a cron sweep and a hook, say) opening a store that does not exist yet: both
    find the migrations missing; the one that waits for the other's write lock then finds them
    applied. Neither fails with "database is locked"."""
    import forsy.schema_migrations as schema

    db = tmp_path / "new" / "s.db"
    meet = threading.Barrier(2, timeout=1.0)
    calls = threading.local()
    real_missing = schema.missing

    def missing(*a: Any, **k: Any) -> list[str]:
        calls.n = getattr(calls, "n", 0) + 1
        if calls.n == 2:  # the look inside the write transaction: both get there if the store lets them
            try:
                meet.wait()
            except threading.BrokenBarrierError:
                pass
        return real_missing(*a, **k)

    monkeypatch.setattr(schema, "missing", missing)
    results: list[object] = []

    def open_it() -> None:
        try:
            st = SqliteStore(db)
            results.append(st.migrations())
            st.close()
        except Exception as e:  # the test looks at what it is
            results.append(e)

    threads = [threading.Thread(target=open_it) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert len(results) == 2 and all(isinstance(r, list) for r in results), results
    assert results[0] == results[1] == [name for name, _ in _sqlite.MIGRATIONS]


def test_a_new_store_another_process_holds_locked_for_a_moment_is_waited_for(tmp_path: Path) -> None:
    """Turning a new database to WAL takes a lock SQLite does not wait for while another
    connection is about to write (the busy handler is not called, to avoid a deadlock): opening
    the store then failed at once with "database is locked" (seen in 3 of 8 runs of the test
    above, two new stores made at once)."""
    db = tmp_path / "s.db"
    other = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")  # a write lock on a database not yet in WAL
    other.execute("CREATE TABLE held (x)")
    release = threading.Timer(0.3, lambda: other.execute("COMMIT"))
    release.start()
    try:
        st = SqliteStore(db)
        try:
            assert st.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
            assert st.migrations() == [name for name, _ in _sqlite.MIGRATIONS]
        finally:
            st.close()
    finally:
        release.join()
        other.close()

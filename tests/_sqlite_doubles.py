"""Shared by the SQLite store's tests: an error with SQLite's code, a connection that cannot
read, and a store whose last pages a failing disk zeroed."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from forsy.store._sqlite import SqliteStore


def sqlite_error(code: int, text: str = "the database's own words") -> sqlite3.OperationalError:
    e = sqlite3.OperationalError(text)
    e.sqlite_errorcode = code  # type: ignore[attr-defined]
    return e


class Refusing:
    """A connection that cannot read (as `mode=ro` on a WAL store whose -shm cannot be made
    in a read-only folder): every statement fails with SQLITE_CANTOPEN."""

    def __init__(self, real: sqlite3.Connection) -> None:
        self.real = real
        self.closed = False

    def execute(self, *a: Any) -> Any:
        raise sqlite_error(sqlite3.SQLITE_CANTOPEN, "unable to open database file")

    def close(self) -> None:
        self.closed = True
        self.real.close()


def damaged_store(tmp_path: Path) -> Path:
    """A store with 400 errors recorded, then its last 20 pages (the table's leaves, written
    last) zeroed, as a failing disk leaves them; its schema is intact, so it opens."""
    db = tmp_path / "s.db"
    st = SqliteStore(db)
    try:
        with st.transaction():
            run = st.start_run("2026-03-01T10:00:00+00:00", 11, ["/p"])
            st.db.executemany(f"INSERT INTO errors (run_id, path, message, at) VALUES ({run}, ?, ?, '')",
                              [(f"/p/{i}", "x" * 400) for i in range(400)])
        st.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page = st.db.execute("PRAGMA page_size").fetchone()[0]
    finally:
        st.close()
    data = bytearray(db.read_bytes())
    assert len(data) // page > 40
    data[-20 * page:] = bytes(20 * page)
    db.write_bytes(bytes(data))
    return db

"""Faults of the environment around the SQLite store (a damaged file, a full disk, a read-only
folder, a lock held too long), turned into StoreErrors with the database's words and a hint."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from ..errors import StoreError

# What the database reports when the environment, not forsy, is at fault: a damaged file,
# a full disk (or a file-size limit), a read-only file or folder, a lock held too long.
# These become a StoreError (exit 8) with the database's words; anything else is a bug.
_ENVIRONMENT = {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR,
                sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM, sqlite3.SQLITE_BUSY,
                sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_NOLFS, sqlite3.SQLITE_PROTOCOL}
_HINTS = {sqlite3.SQLITE_CORRUPT: "the store file is damaged: restore a backup, or move it aside and sweep again",
          sqlite3.SQLITE_NOTADB: "this file is not a forsy store",
          sqlite3.SQLITE_FULL: "free some disk space (or raise the file-size limit) and run again",
          sqlite3.SQLITE_IOERR: "a read or write of the store file failed: a full disk, a file-size limit or a "
                                "failing device",
          sqlite3.SQLITE_READONLY: "the store (or its folder) is read-only for this user"}


def _environment(e: sqlite3.Error, path: Path) -> StoreError | None:
    code = getattr(e, "sqlite_errorcode", None)
    if code is None or code & 0xFF not in _ENVIRONMENT:
        return None
    hint = _HINTS.get(code & 0xFF)
    return StoreError(f"{e}" + (f" ({hint})" if hint else ""), path=path)


def _wal(conn: sqlite3.Connection, path: Path, wait_s: float = 30.0) -> None:
    """`PRAGMA journal_mode=WAL`. Turning a new database to WAL takes a lock SQLite does not wait
    for (the busy handler is not called there): two processes making one new store at once (a
    cron sweep and a hook) saw "database is locked" at once. Tried again for as long as any other
    statement waits for a lock."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.Error as e:
            code = getattr(e, "sqlite_errorcode", None)
            busy = code is not None and code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
            if not busy or time.monotonic() > deadline:
                raise _environment(e, path) or e from None
        time.sleep(0.01)

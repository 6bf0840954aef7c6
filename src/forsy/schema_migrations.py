"""One migrations mechanism for every database forsy keeps (the store, on SQLite or PostgreSQL,
and the model pass's answer cache).

A database's schema is a list of named migrations, applied in order; each one applied is a row
of its `schema_migrations` table (name, applied_at). A migration is never edited once released:
a change is a new entry at the end. A database holding a migration this forsy does not know
was made by a newer forsy and is not touched (its tables may mean something this version does
not know). On SQLite the missing ones are applied in one write transaction: a second process
opening the database at the same time waits, then finds them applied.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, Protocol

from .errors import InputError

Migration = tuple[str, str]  # (name, SQL script)

SQLITE_TABLE = "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT)"
SQLITE_RECORD = "INSERT INTO schema_migrations (name, applied_at) VALUES (?, datetime('now'))"


def missing(done: set[str], migrations: Sequence[Migration], *, what: str, where: Path | None = None) -> list[str]:
    """The migrations not applied yet, in order; an InputError when `done` holds one that
    `migrations` does not know (`what`: the database, as a message names it)."""
    unknown = done - {name for name, _ in migrations}
    if unknown:
        raise InputError(f"{what} was made by a newer forsy (migrations {sorted(unknown)})", path=where)
    return [name for name, _ in migrations if name not in done]


def statements(script: str) -> Iterator[str]:
    """The statements of a SQLite script, one at a time (executescript would commit on its own)."""
    buf = ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                yield buf
            buf = ""
    if buf.strip() and not buf.strip().startswith("--"):
        yield buf


class Connection(Protocol):
    """What `migrate_sqlite` asks of a connection: sqlite3's, or the store's wrapper of it."""

    @property
    def in_transaction(self) -> bool: ...

    def execute(self, sql: str, args: Sequence[Any] = (), /) -> Any: ...


def applied_sqlite(db: Connection) -> set[str]:
    return {r[0] for r in db.execute("SELECT name FROM schema_migrations")}


def migrate_sqlite(db: Connection, migrations: Sequence[Migration], *, what: str,
                   where: Path | None = None, dialect: dict[str, str] | None = None,
                   transaction: Callable[[], AbstractContextManager[None]] | None = None) -> list[str]:
    """Bring a SQLite database up to date: the migrations not applied yet, applied in order in
    one write transaction (`transaction`, else BEGIN IMMEDIATE … COMMIT); their names.
    `dialect` fills the scripts' `{placeholders}`."""
    db.execute(SQLITE_TABLE)
    if not missing(applied_sqlite(db), migrations, what=what, where=where):
        return []
    scripts = dict(migrations)
    with (transaction or (lambda: _immediate(db)))():
        todo = missing(applied_sqlite(db), migrations, what=what, where=where)
        for name in todo:
            for stmt in statements(scripts[name].format(**dialect) if dialect else scripts[name]):
                db.execute(stmt)
            db.execute(SQLITE_RECORD, (name,))
    return todo


@contextmanager
def _immediate(db: Connection) -> Iterator[None]:
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        if db.in_transaction:  # SQLite may have rolled back already (a full disk): the first error is the one
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")

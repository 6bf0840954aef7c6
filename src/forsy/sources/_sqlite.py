"""Reading an agent's SQLite database without writing beside it (atuin's shell history,
OpenCode's and Goose's sessions): all keep it in WAL mode. Also what their readers share: the
ids of a table, read once while the database is unchanged, and where `forsy verify` finds the
database a record names."""

from __future__ import annotations

import functools
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any

from .lines import inside
from .listing import walk


def read_only_query(db: Path, sql: str, args: tuple[str, ...] = (), *, what: str = "db",
                    unread_wal: list[OSError] | None = None) -> list[dict[str, Any]]:
    """The rows of a read-only query. In WAL mode SQLite needs the `-shm` file beside the
    database even to read, which a read-only folder cannot take: then the query runs on a copy of
    the database and its `-wal` in a temporary folder (`forsy-<what>-…`), so the rows still in the
    write-ahead log are read too (`immutable=1` would read the main file alone and lose them
    without a word). Nothing is written beside the database. A `-wal` that may not be read
    (mode 000) fails the query, unless `unread_wal` is given: then its error is added there, for
    the caller to say, and the rows are the main file's alone."""
    try:
        return _query_file(db, sql, args)
    except sqlite3.OperationalError:
        pass
    with tempfile.TemporaryDirectory(prefix=f"forsy-{what}-") as tmp:
        copy = Path(tmp) / db.name
        shutil.copyfile(db, copy)
        wal = db.with_name(db.name + "-wal")
        try:
            if wal.is_file():
                shutil.copyfile(wal, Path(tmp) / wal.name)
        except OSError as e:
            if unread_wal is None:
                raise
            unread_wal.append(e)
            (Path(tmp) / wal.name).unlink(missing_ok=True)  # never a part of it
        return _query_file(copy, sql, args)


# what a warning says a database lacks when its `-wal` may not be read (`read_only_query`)
WAL_MISSING = "the rows written since its last checkpoint are not here"


def without_wal(unread_wal: list[OSError]) -> str:
    """What the error of a database read without its `-wal` (`read_only_query`) adds: the main
    file alone may hold no table yet, which is not what is wrong with it."""
    return f"; its write-ahead log could not be read ({unread_wal[0].strerror or unread_wal[0]})" if unread_wal \
        else ""


def _query_file(db: Path, sql: str, args: tuple[str, ...]) -> list[dict[str, Any]]:
    # as a URI, escaped: a "#", "?" or "%" in a folder name is part of the path
    con = sqlite3.connect(db.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        con.row_factory = sqlite3.Row
        return [dict(r) for r in con.execute(sql, args)]
    finally:
        con.close()


def ids_while_unchanged(db: Path, table: str, *, what: str) -> frozenset[str]:
    """The `id`s of a table of the database (none when it cannot be read). Read once while the
    database and its write-ahead log are unchanged: a folder's walk asks it of every file beside it."""
    try:
        stamp = tuple(p.stat().st_mtime_ns if p.exists() else 0 for p in (db, db.with_name(db.name + "-wal")))
    except OSError:
        return frozenset()
    return _ids(str(db), table, what, stamp)


@functools.lru_cache(maxsize=32)
def _ids(db: str, table: str, what: str, stamp: tuple[int, ...]) -> frozenset[str]:
    try:
        return frozenset(str(r["id"]) for r in read_only_query(Path(db), f"SELECT id FROM {table}", what=what))
    except (sqlite3.Error, OSError):
        return frozenset()


def databases_at(root: Path, db_name: str) -> list[Path]:
    """Where the database a record names may be, under a root given to `forsy verify`: the root
    itself when it is that file, the path inside it, or a database below it whose path ends with
    `db_name` (the name is relative to the folder `forsy retrace` was given, which may lie below
    the root)."""
    if root.is_file():
        return [root] if root.name == Path(db_name).name else []
    if not root.is_dir():
        return []
    db = inside(root, db_name)
    if db is not None and db.is_file():
        return [db]
    return ([db] if db is not None else []) + _below(root, db_name)


def row_back(name: str, scheme: str, tables: Collection[str], roots: Sequence[Path],
             is_db: Callable[[Path], bool], *, what: str) -> tuple[str, dict[str, Any]] | None:
    """The table and the row a record's name (`<scheme><database>#<table>/<id>`) names, read
    from its database under one of `roots` (`databases_at`), for `forsy verify`; None when no
    database there holds it."""
    db_name, _, key = name.removeprefix(scheme).rpartition("#")
    table, _, rid = key.partition("/")
    if not name.startswith(scheme) or table not in tables or not rid:
        return None
    for root in roots:
        for p in databases_at(root, db_name):
            if not is_db(p):
                continue
            try:  # table: one of `tables`
                rows = read_only_query(p, f"SELECT * FROM {table} WHERE id = ?", (rid,), what=what)
            except sqlite3.Error:
                continue
            if rows:
                return table, rows[0]
    return None


WALK_LIMIT = 200_000  # files looked at below a root before giving up (a home folder given)


def _below(root: Path, db_name: str) -> list[Path]:
    """The databases below `root` whose path ends with `db_name`. Links to folders are not
    followed; `.git` is skipped."""
    out, seen = [], 0
    last = Path(db_name).name
    for dirpath, dirs, files in walk(root.resolve()):
        dirs[:] = [d for d in dirs if d != ".git"]
        seen += len(files)
        if seen > WALK_LIMIT:
            break
        full = Path(dirpath) / last
        if last in files and full.as_posix().endswith("/" + db_name):
            out.append(full)
    return out

"""Reading an agent's SQLite database without writing beside it (atuin's shell history,
OpenCode's sessions): both keep it in WAL mode."""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any


def read_only_query(db: Path, sql: str, args: tuple[str, ...] = (), *, what: str = "db") -> list[dict[str, Any]]:
    """The rows of a read-only query. In WAL mode SQLite needs the `-shm` file beside the
    database even to read, which a read-only folder cannot take: then the query runs on a copy of
    the database and its `-wal` in a temporary folder (`forsy-<what>-…`), so the rows still in the
    write-ahead log are read too (`immutable=1` would read the main file alone and lose them
    without a word). Nothing is written beside the database."""
    try:
        return _query_file(db, sql, args)
    except sqlite3.OperationalError:
        pass
    with tempfile.TemporaryDirectory(prefix=f"forsy-{what}-") as tmp:
        copy = Path(tmp) / db.name
        shutil.copyfile(db, copy)
        wal = db.with_name(db.name + "-wal")
        if wal.is_file():
            shutil.copyfile(wal, Path(tmp) / wal.name)
        return _query_file(copy, sql, args)


def _query_file(db: Path, sql: str, args: tuple[str, ...]) -> list[dict[str, Any]]:
    # as a URI, escaped: a "#", "?" or "%" in a folder name is part of the path
    con = sqlite3.connect(db.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        con.row_factory = sqlite3.Row
        return [dict(r) for r in con.execute(sql, args)]
    finally:
        con.close()


WALK_LIMIT = 200_000  # files looked at below a root before giving up (a home folder given)


def databases_below(root: Path, db_name: str) -> list[Path]:
    """The databases below `root` whose path ends with `db_name` (a record's name holds its
    database's path relative to the folder `forsy retrace` was given, which may lie below the
    root `forsy verify` is given). Links to folders are not followed; `.git` is skipped."""
    out, seen = [], 0
    last = Path(db_name).name
    for dirpath, dirs, files in os.walk(root.resolve()):
        dirs[:] = [d for d in dirs if d != ".git"]
        seen += len(files)
        if seen > WALK_LIMIT:
            break
        full = Path(dirpath) / last
        if last in files and full.as_posix().endswith("/" + db_name):
            out.append(full)
    return out

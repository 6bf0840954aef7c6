"""OpenCode's SQLite database (since 1.2): where it is, its rows as records, its sessions read.

storage/db.ts keeps it in the data folder (`opencode.db`, `opencode-<channel>.db` for another
release channel), in WAL mode. session/session.sql.ts's tables hold what the JSON storage held
(`_layout`): `session` a session's info as columns (`id`, `project_id`, `parent_id`, `directory`,
`title`, `version`, `revert` as JSON text, `time_created`, ...), `message` and `part` each item's
JSON object less its ids in `data` (the ids are the columns `id`, `session_id`, `message_id`).
storage/json-migration.ts copied the JSON storage into it once, ids unchanged, and left the
files: a session with an id in the database is read from the database only (`migrated`).

Each row read is one record, named `SCHEME` + the database's path (as evidence names files) +
`#<table>/<id>`: a message's or part's bytes are its `data` column as stored (so a pointer into
the object finds the value copied), a session's the canonical JSON of its row (`forsy.ids
.canonical`, as `SELECT *` returns it). `read_back` reads the row again from a database under
the roots given to `forsy verify`.

A newer OpenCode design (packages/core session/projector.ts) projects a session's messages into a
`session_message` table (`type`, `seq`, `data`) instead; its row shape has kept changing, so it is
not read: a session with rows there says how many were left unread (`session-message-unread`),
and a database without the `message`/`part` tables is read as holding no rows in them.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ...errors import InputError
from ...evidence import Session, SessionMeta, SourceFile
from ...ids import canonical
from .. import ReadContext
from .._records import Record
from .._sqlite import ids_while_unchanged, read_only_query, row_back, without_wal
from ..lines import sha256, sniff_file, source_name
from . import _rules
from ._build import Builder, Thread, _role, _type
from ._emit import get
from ._files import parse, record
from ._layout import DATA_DIR
from ._session import _facts

SCHEME = "opencode-db:"
NAME = re.compile(r"^opencode(-[A-Za-z0-9._-]+)?\.db$")
SQLITE_MAGIC = b"SQLite format 3\x00"
TABLES = ("session", "message", "part")


def is_db(path: Path) -> bool:
    """A file named as storage/db.ts names the database, and an SQLite file."""
    if not NAME.match(path.name) or not path.is_file():
        return False
    try:
        with path.open("rb") as f:
            return f.read(16) == SQLITE_MAGIC
    except OSError:
        return False


def _sqlite_head(path: Path, head: bytes) -> bool:
    return head.startswith(SQLITE_MAGIC)


def dbs_at(d: Path) -> list[Path]:
    """The databases of the data folder `d` is or a home folder `d` holds."""
    for folder in (d, d.joinpath(*DATA_DIR)):
        try:  # one that may not be read is said to the walk (`lines.sniff_file`)
            found = sorted(p for p in folder.iterdir() if NAME.match(p.name) and sniff_file(p, _sqlite_head))
        except OSError:
            continue
        if found:
            return found
    return []


def query(db: Path, sql: str, args: tuple[str, ...] = (), unread_wal: list[OSError] | None = None) \
        -> list[dict[str, Any]]:
    """The rows of a read-only query, nothing written beside the database (`_sqlite`)."""
    return read_only_query(db, sql, args, what="opencode", unread_wal=unread_wal)


def session_ids(db: Path) -> frozenset[str]:
    """The ids of the database's sessions (none when it cannot be read), read once while the
    database and its log are unchanged: the walk asks it of every file of the storage."""
    return ids_while_unchanged(db, "session", what="opencode")


def migrated(storage: Path, sid: str) -> Path | None:
    """The database beside a JSON storage folder that holds session `sid` too (json-migration.ts
    copied it), or None."""
    return next((db for db in dbs_at(storage.parent) if sid in session_ids(db)), None)


def _text(v: Any) -> Any:
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else v


def _row_bytes(table: str, row: dict[str, Any]) -> bytes:
    if table == "session":
        return canonical({k: _text(v) for k, v in row.items()})
    data = row.get("data")
    return data if isinstance(data, bytes) else str(data if data is not None else "").encode("utf-8", "surrogatepass")


def read_back(name: str, roots: Sequence[Path]) -> bytes | None:
    """The row `name` names, from the database at that path under one of `roots`."""
    found = row_back(name, SCHEME, TABLES, roots, is_db, what="opencode")
    return _row_bytes(*found) if found is not None else None


class DbReader:
    """The sessions of one database, read from a snapshot of its rows taken once."""

    def __init__(self, db: Path, ctx: ReadContext) -> None:
        self.db, self.ctx = db, ctx
        self.src = source_name(db, ctx.root)
        self.wal: list[OSError] = []  # its write-ahead log, when it may not be read (`read_db` says so)
        try:
            self.sessions = {r["id"]: r for r in query(db, "SELECT * FROM session ORDER BY id", unread_wal=self.wal)}
        except sqlite3.Error as e:
            raise InputError(f"cannot read OpenCode's database ({e}){without_wal(self.wal)}", path=db) from None
        try:
            data = db.read_bytes()
        except OSError as e:
            raise InputError(f"cannot read OpenCode's database ({e.strerror or e})", path=db) from None
        self.file = SourceFile(self.src, str(db.resolve()), "opencode", len(data), sha256(data))
        try:
            self.tables = {str(r["name"]) for r in query(db, "SELECT name FROM sqlite_master WHERE type = 'table'",
                                                         unread_wal=self.wal)}
        except sqlite3.Error as e:
            raise InputError(f"cannot read OpenCode's database ({e}){without_wal(self.wal)}", path=db) from None

    def _rows(self, sql: str, table: str, sid: str) -> list[dict[str, Any]]:
        """The rows of `sql` for session `sid`; none when the database has no such table (a
        newer OpenCode may keep its messages elsewhere: `thread` says so)."""
        return query(self.db, sql, (sid,), self.wal) if table in self.tables else []

    def name(self, table: str, rid: str) -> str:
        return f"{SCHEME}{self.src}#{table}/{rid}"

    def record(self, s: Session, name: str, data: bytes, type_of: Callable[[dict[str, Any]], str],
               what: str) -> Record | None:
        """A row as one record of `s` (`_files.record`), listed among its sources under its own
        name, as a JSON storage's files are: provenance names every source its evidence is from."""
        s.files.append(SourceFile(name, self.file.abs_path, "opencode", len(data), sha256(data)))
        return record(s, name, data, type_of, what)

    def tops(self) -> list[str]:
        """The sessions read as sessions of their own: no parent, or a parent not in the table."""
        return [sid for sid, r in self.sessions.items() if r.get("parent_id") not in self.sessions]

    def children(self, sid: str) -> list[tuple[str, str]]:
        return [(c, self.name("session", c)) for c, r in self.sessions.items() if r.get("parent_id") == sid]

    def thread(self, sid: str, actor: str, parent: str | None) -> Thread:
        """Session `sid` read as `_session.read_thread` reads a session's file."""
        row = self.sessions[sid]
        # the database is listed once, with the main session (a subagent's is folded into it)
        s = Session("opencode", sid, [self.file] if parent is None else [], {}, [], SessionMeta(agent="opencode"))
        name = self.name("session", sid)
        rec = self.record(s, name, _row_bytes("session", row), lambda d: "session", "the session's row")
        if rec is not None:
            s.mark(rec.ev.id, "metadata", _rules.SESSION)
        revert = row.get("revert")
        try:
            revert = parse(revert.encode("utf-8"))[0] if isinstance(revert, str) else None
        except UnicodeEncodeError:
            revert = None
        info = {"id": sid, "version": row.get("version"), "directory": row.get("directory"),
                "title": row.get("title"), "projectID": row.get("project_id"), "parentID": row.get("parent_id"),
                "revert": revert}
        _facts(s, info)
        up = row.get("parent_id")
        if isinstance(up, str) and up:
            s.meta.extra["parent_session"] = up
            parent = parent or "agent"  # a subagent's session read alone: its user words are its task
        b = Builder(s, self.db, actor, parent, self.ctx)
        to = get(info, "revert", "messageID")
        try:
            msgs = self._rows("SELECT id, data FROM message WHERE session_id = ? ORDER BY id", "message", sid)
            parts = self._rows("SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY id", "part", sid)
            unread = self._rows("SELECT count(*) AS n FROM session_message WHERE session_id = ?", "session_message",
                                sid)
        except sqlite3.Error as e:
            raise InputError(f"cannot read OpenCode's database ({e}){without_wal(self.wal)}", path=self.db) from None
        n = int(unread[0]["n"]) if unread else 0
        if n:
            # never lost silently: the rows are there, forsy does not know their shape well enough
            s.warn("session-message-unread", f"{n} row(s) of this session in the database's session_message table "
                   "(OpenCode's newer message store) were not read: forsy reads only the message and part tables",
                   name, None)
        by_msg: dict[str, list[dict[str, Any]]] = {}
        for p in parts:
            by_msg.setdefault(str(p["message_id"]), []).append(p)
        if not msgs:
            where = ("the database's message table" if "message" in self.tables
                     else "the database (it has no message table)")
            s.warn("no-messages", f"no messages of this session in {where}", name, None)
        for m in msgs:
            mid = str(m["id"])
            if isinstance(to, str) and mid == to:
                # the person undid the work from here on (session/revert.ts): OpenCode hides these
                # messages, and deletes them when the next prompt is sent
                b.abandoned = True
            mname = self.name("message", mid)
            mrec = self.record(s, mname, _row_bytes("message", m), _role, "a message's row")
            prows = by_msg.pop(mid, [])
            precs = [r for p in prows
                     if (r := self.record(s, self.name("part", str(p["id"])), _row_bytes("part", p), _type,
                                           "a part's row"))]
            b.records(mrec, precs, mid, mname, bool(prows), "the part table")
        for mid, prows in by_msg.items():
            # a part whose message row is gone (the foreign key deletes parts with their message)
            for p in prows:
                r = self.record(s, self.name("part", str(p["id"])), _row_bytes("part", p), _type, "a part's row")
                b.mark(r, "set_aside", _rules.UNREAD_MESSAGE)
            s.warn("no-message", f"{len(prows)} part row(s) of message {mid}, which has no row in the message "
                   "table: set aside", self.name("message", mid), None)
        if isinstance(to, str) and not b.abandoned:
            s.warn("revert-unknown", f"the session was reverted to message {to}, which is not among its messages: "
                   "nothing is flagged abandoned", name, None)
        return Thread(s, actor, b.tools.spawned, b.tools.tasks)
